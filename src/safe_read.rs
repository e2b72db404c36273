//! Reading a file aipc was told about without trusting what is at the path: only a regular file
//! (a symlink to one is fine) is read, and never more than a cap.
//!
//! A FIFO would block the open or the read until a writer comes (forever, for `aipc replay`); a
//! character device such as `/dev/zero` never ends; a directory is an error deep in a parser.
//! [`open_regular`] checks what the path is before opening it, opens it with `O_NONBLOCK` (so a
//! FIFO swapped in after the check cannot block the open), and checks the opened descriptor
//! again (so what was checked is what is read). [`read`] and [`read_to_string`] then read at
//! most a [`Cap`], named by what the file is, so an error can say which limit a file broke.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

/// A size limit for one kind of file: the largest file aipc reads whole, and what it is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    /// The most bytes read.
    pub bytes: u64,
    /// What kind of file the limit is for, as said in an error ("a session's event log").
    pub what: &'static str,
}

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// A session's `events.jsonl`: a long session with big tool outputs is hundreds of MB, so the
/// limit only stops what is no event log at all (`/dev/zero`, a runaway file).
pub const EVENT_LOG: Cap = Cap {
    bytes: 2 * GIB,
    what: "a session's event log",
};

/// One line (one event) of `events.jsonl`: the largest events carry a tool's whole output or a
/// model reply, a few MB at most.
pub const EVENT_LINE: Cap = Cap {
    bytes: 64 * MIB,
    what: "one event of a session's log",
};

/// A session's `meta.json` or report (`report.json`): small summaries of a session.
pub const SESSION_FILE: Cap = Cap {
    bytes: 64 * MIB,
    what: "a session's metadata or report",
};

/// A skill's `SKILL.md`: a few hundred lines of Markdown.
pub const SKILL: Cap = Cap {
    bytes: MIB,
    what: "a skill's SKILL.md",
};

/// A contract (`contract.toml`, `aipc.toml`), a target's `toolbox.toml` or `signatures.toml`
/// (and the tables they include), or a `config.toml`: hand-written TOML.
pub const CONTRACT: Cap = Cap {
    bytes: MIB,
    what: "a contract, toolbox, signature or config file",
};

/// A prompt template (`prompts/*.j2`, `few_shot.md`).
pub const PROMPT: Cap = Cap {
    bytes: MIB,
    what: "a prompt template",
};

/// A workspace file a tool reads whole (`read_file`, or the old content `write_file`,
/// `edit_file` and `apply_patch` diff against): far above any source file.
pub const WORKSPACE_FILE: Cap = Cap {
    bytes: 256 * MIB,
    what: "a file a tool reads whole",
};

/// The replies of a scripted model (`scripted:<file>`), a JSON Lines file.
pub const SCRIPTED_REPLIES: Cap = Cap {
    bytes: 64 * MIB,
    what: "a scripted model's replies",
};

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// The path (after following symlinks) is not a regular file.
    #[error("it is {kind}, not a regular file; put the file itself (or a symlink to it) there")]
    NotRegular {
        /// What it is instead: "a FIFO (named pipe)", "a character device", …
        kind: &'static str,
    },
    /// The file is larger than the cap for its kind.
    #[error(
        "it is {}, over the limit of {} for {}; check that it is the right file",
        bytes_text(*size),
        bytes_text(cap.bytes),
        cap.what
    )]
    TooLarge { size: u64, cap: Cap },
    /// Opening, inspecting or reading it failed.
    #[error("{0}")]
    Io(#[source] std::io::Error),
}

/// A file that could not be read: the path and why. `Display`: `cannot read <path>: <why>`.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {problem}", path.display())]
pub struct SafeReadError {
    pub path: PathBuf,
    #[source]
    pub problem: Problem,
}

impl SafeReadError {
    fn new(path: &Path, problem: Problem) -> Self {
        SafeReadError {
            path: path.to_path_buf(),
            problem,
        }
    }

    /// Whether nothing is at the path (callers that treat a missing file as empty ask this).
    pub fn is_not_found(&self) -> bool {
        matches!(&self.problem, Problem::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// Open `path` for reading if it is a regular file (following symlinks), without blocking on a
/// FIFO; the file and its metadata (taken from the open descriptor).
pub(crate) fn open_regular(path: &Path) -> Result<(File, Metadata), SafeReadError> {
    let io = |e| SafeReadError::new(path, Problem::Io(e));
    // What is there before opening: a FIFO or a device is refused without ever opening it.
    let before = std::fs::metadata(path).map_err(io)?;
    refuse_irregular(path, &before)?;
    let file = open_nonblocking(path).map_err(io)?;
    // The path may have been replaced between the check and the open: check what was opened.
    let meta = file.metadata().map_err(io)?;
    refuse_irregular(path, &meta)?;
    Ok((file, meta))
}

/// The bytes of the regular file at `path`, at most `cap.bytes` of them.
pub(crate) fn read(path: &Path, cap: Cap) -> Result<Vec<u8>, SafeReadError> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > cap.bytes {
        return Err(SafeReadError::new(
            path,
            Problem::TooLarge {
                size: meta.len(),
                cap,
            },
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // One byte past the cap tells a file that grew since the stat from one that fits.
    file.take(cap.bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| SafeReadError::new(path, Problem::Io(e)))?;
    let read = bytes.len() as u64;
    if read > cap.bytes {
        return Err(SafeReadError::new(
            path,
            Problem::TooLarge { size: read, cap },
        ));
    }
    Ok(bytes)
}

/// The text of the regular file at `path` (UTF-8), at most `cap.bytes` of it.
pub(crate) fn read_to_string(path: &Path, cap: Cap) -> Result<String, SafeReadError> {
    let bytes = read(path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        SafeReadError::new(
            path,
            Problem::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("it is not UTF-8 text ({})", e.utf8_error()),
            )),
        )
    })
}

fn refuse_irregular(path: &Path, meta: &Metadata) -> Result<(), SafeReadError> {
    match kind_of(meta) {
        None => Ok(()),
        Some(kind) => Err(SafeReadError::new(path, Problem::NotRegular { kind })),
    }
}

/// `None` for a regular file, else what it is.
fn kind_of(meta: &Metadata) -> Option<&'static str> {
    let ft = meta.file_type();
    if ft.is_file() {
        return None;
    }
    if ft.is_dir() {
        return Some("a directory");
    }
    if ft.is_symlink() {
        return Some("a symlink");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if ft.is_char_device() {
            return Some("a character device");
        }
        if ft.is_block_device() {
            return Some("a block device");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a file of a kind aipc knows")
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer
    // (it is then refused); O_NOCTTY: a terminal device never becomes the controlling one.
    // Neither changes how a regular file reads.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// `300 bytes`, `1536 bytes (1.5 KiB)`, `3221225472 bytes (3.0 GiB)`: exact, and readable.
fn bytes_text(bytes: u64) -> String {
    // Precision does not matter in the readable part: the exact count is said before it.
    let b = bytes as f64;
    if bytes >= GIB {
        format!("{bytes} bytes ({:.1} GiB)", b / GIB as f64)
    } else if bytes >= MIB {
        format!("{bytes} bytes ({:.1} MiB)", b / MIB as f64)
    } else if bytes >= 1024 {
        format!("{bytes} bytes ({:.1} KiB)", b / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::stat::Mode;
    use std::time::{Duration, Instant};

    const SMALL: Cap = Cap {
        bytes: 16,
        what: "a test file",
    };

    /// Run `f` on another thread and fail the test (instead of hanging it) after 5 seconds.
    fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(5))
            .expect("the read blocked for 5 seconds")
    }

    #[test]
    fn a_regular_file_reads_whole() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("f.txt");
        std::fs::write(&path, "hello\n").unwrap();
        assert_eq!(read(&path, SMALL).unwrap(), b"hello\n");
        assert_eq!(read_to_string(&path, SMALL).unwrap(), "hello\n");
        // Exactly the cap is fine.
        std::fs::write(&path, "x".repeat(16)).unwrap();
        assert_eq!(read(&path, SMALL).unwrap().len(), 16);
    }

    #[test]
    fn a_symlink_to_a_regular_file_is_followed() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("real"), "r").unwrap();
        std::os::unix::fs::symlink(d.path().join("real"), d.path().join("link")).unwrap();
        assert_eq!(read(&d.path().join("link"), SMALL).unwrap(), b"r");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("events.jsonl");
        nix::unistd::mkfifo(&fifo, Mode::S_IRUSR | Mode::S_IWUSR).unwrap();
        let started = Instant::now();
        let path = fifo.clone();
        let err = within_seconds(move || read(&path, EVENT_LOG).unwrap_err());
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(matches!(
            err.problem,
            Problem::NotRegular {
                kind: "a FIFO (named pipe)"
            }
        ));
        let msg = err.to_string();
        assert!(msg.contains(&fifo.display().to_string()), "{msg}");
        assert!(
            msg.contains("FIFO (named pipe), not a regular file"),
            "{msg}"
        );
        // A symlink to it too.
        std::os::unix::fs::symlink(&fifo, d.path().join("link")).unwrap();
        let link = d.path().join("link");
        let err = within_seconds(move || read_to_string(&link, SKILL).unwrap_err());
        assert!(matches!(err.problem, Problem::NotRegular { .. }), "{err}");
    }

    #[test]
    fn the_open_itself_does_not_block_on_a_fifo() {
        // The race the metadata check cannot close: a FIFO at open time.
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("p");
        nix::unistd::mkfifo(&fifo, Mode::S_IRUSR | Mode::S_IWUSR).unwrap();
        let file = within_seconds(move || open_nonblocking(&fifo).unwrap());
        let err = refuse_irregular(Path::new("p"), &file.metadata().unwrap()).unwrap_err();
        assert!(matches!(err.problem, Problem::NotRegular { .. }));
    }

    #[test]
    fn dev_zero_and_a_symlink_to_it_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let link = d.path().join("events.jsonl");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        for path in [PathBuf::from("/dev/zero"), link] {
            let err = within_seconds(move || read(&path, EVENT_LOG).unwrap_err());
            assert!(
                matches!(
                    err.problem,
                    Problem::NotRegular {
                        kind: "a character device"
                    }
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn a_directory_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let err = read_to_string(d.path(), SKILL).unwrap_err();
        assert!(matches!(
            err.problem,
            Problem::NotRegular {
                kind: "a directory"
            }
        ));
        assert!(err
            .to_string()
            .contains("it is a directory, not a regular file"));
    }

    #[test]
    fn an_oversize_file_is_refused_naming_path_cap_and_size() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("big");
        std::fs::write(&path, "x".repeat(17)).unwrap();
        let err = read(&path, SMALL).unwrap_err();
        assert!(matches!(
            err.problem,
            Problem::TooLarge {
                size: 17,
                cap: SMALL
            }
        ));
        let msg = err.to_string();
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(
            msg.contains("it is 17 bytes, over the limit of 16 bytes for a test file"),
            "{msg}"
        );
        let err = read(&path, SKILL).map(|_| ()).err();
        assert!(err.is_none());
    }

    #[test]
    fn a_missing_file_is_not_found_and_bad_utf8_is_named() {
        let d = tempfile::tempdir().unwrap();
        let err = read(&d.path().join("nope"), SMALL).unwrap_err();
        assert!(err.is_not_found());
        let path = d.path().join("bin");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        let err = read_to_string(&path, SMALL).unwrap_err();
        assert!(!err.is_not_found());
        assert!(err.to_string().contains("not UTF-8"), "{err}");
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(bytes_text(300), "300 bytes");
        assert_eq!(bytes_text(1536), "1536 bytes (1.5 KiB)");
        assert_eq!(bytes_text(64 * MIB), "67108864 bytes (64.0 MiB)");
        assert_eq!(bytes_text(3 * GIB), "3221225472 bytes (3.0 GiB)");
    }
}
