//! [`EventLog`]: the append-only writer of `events.jsonl`.
//!
//! Each envelope is one JSON line written with a single `write_all` and a flush, so a crash
//! loses at most the line being written. Resuming ([`EventLog::open_append`]) first checks the
//! whole log, truncates a torn last line and finishes a last line that lacks its newline.

use super::error::SessionError;
use super::reader::{read_log, scan, TornTail};
use crate::protocol::EventEnvelope;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// An open event log, positioned at its end.
#[derive(Debug)]
pub struct EventLog {
    file: File,
    path: PathBuf,
    next_seq: u64,
    repaired: Option<TornTail>,
}

impl EventLog {
    /// Create a new, empty log, creating parent folders. Fails if the file already exists.
    pub fn create(path: &Path) -> Result<EventLog, SessionError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| SessionError::io("create the folder", parent, e))?;
        }
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => SessionError::LogExists {
                    path: path.to_path_buf(),
                },
                _ => SessionError::io("create", path, e),
            })?;
        Ok(EventLog {
            file,
            path: path.to_path_buf(),
            next_seq: 0,
            repaired: None,
        })
    }

    /// Open an existing log to continue it (resume). The log is checked like
    /// [`read_events`](super::read_events) does; a torn last line is truncated away (see
    /// [`EventLog::repaired`]), and a complete last line missing its newline gets one.
    pub fn open_append(path: &Path) -> Result<EventLog, SessionError> {
        let bytes = read_log(path)?;
        let found = scan(path, &bytes);
        if let Some(err) = found.error {
            return Err(err);
        }
        let mut file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| SessionError::io("open", path, e))?;
        if let Some(torn) = found.torn_tail {
            file.set_len(torn.offset)
                .map_err(|e| SessionError::io("truncate the torn last line of", path, e))?;
        } else if found.missing_newline {
            file.write_all(b"\n")
                .map_err(|e| SessionError::io("write to", path, e))?;
        }
        if found.torn_tail.is_some() || found.missing_newline {
            file.sync_all()
                .map_err(|e| SessionError::io("sync", path, e))?;
        }
        Ok(EventLog {
            file,
            path: path.to_path_buf(),
            next_seq: found.events.len() as u64,
            repaired: found.torn_tail,
        })
    }

    /// The `seq` the next appended envelope must carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The torn last line `open_append` truncated, if it did.
    pub fn repaired(&self) -> Option<TornTail> {
        self.repaired
    }

    /// The log's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one envelope as one line. Its `seq` must equal [`EventLog::next_seq`].
    pub fn append(&mut self, env: &EventEnvelope) -> Result<(), SessionError> {
        if env.seq != self.next_seq {
            return Err(SessionError::OutOfOrder {
                path: self.path.clone(),
                expected: self.next_seq,
                found: env.seq,
            });
        }
        let mut line = serde_json::to_vec(env).map_err(|source| SessionError::Encode {
            path: self.path.clone(),
            source,
        })?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(|e| SessionError::io("append to", &self.path, e))?;
        self.next_seq += 1;
        Ok(())
    }

    /// Force what was written to disk (e.g. when the session ends).
    pub fn sync(&self) -> Result<(), SessionError> {
        self.file
            .sync_all()
            .map_err(|e| SessionError::io("sync", &self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Event;

    fn env(seq: u64) -> EventEnvelope {
        EventEnvelope {
            seq,
            ts_ms: 1000 + seq,
            event: Event::HintAdded {
                text: "multi\nline".into(),
            },
        }
    }

    #[test]
    fn create_refuses_existing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/events.jsonl");
        EventLog::create(&path).unwrap();
        let err = EventLog::create(&path).unwrap_err();
        assert!(matches!(err, SessionError::LogExists { .. }), "{err}");
    }

    #[test]
    fn append_out_of_order_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = EventLog::create(&dir.path().join("events.jsonl")).unwrap();
        log.append(&env(0)).unwrap();
        let err = log.append(&env(2)).unwrap_err().to_string();
        assert!(
            err.contains("seq 2") && err.contains("next seq is 1"),
            "{err}"
        );
        assert_eq!(log.next_seq(), 1);
    }

    #[test]
    fn one_line_per_event() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let mut log = EventLog::create(&path).unwrap();
        for i in 0..3 {
            log.append(&env(i)).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn missing_newline_is_completed_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let line = serde_json::to_string(&env(0)).unwrap();
        std::fs::write(&path, &line).unwrap();
        let mut log = EventLog::open_append(&path).unwrap();
        assert_eq!(log.next_seq(), 1);
        assert!(log.repaired().is_none());
        log.append(&env(1)).unwrap();
        let got = super::super::read_events(&path).unwrap();
        assert_eq!(got.events, vec![env(0), env(1)]);
    }
}
