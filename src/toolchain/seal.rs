//! The seal on the files that judge a session: the target's toolbox (its scripts, the gate
//! evaluators they print metrics with, the shared library). Hashed when the session starts and
//! recorded in the log; checked again before every stage check, so a check whose evaluator
//! changed since the start fails instead of giving a verdict. The sandbox already keeps these
//! files read-only; the seal also holds with `--sandbox off` and records what was trusted.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// More files than this under a sealed folder is refused (a toolbox is a few dozen files).
pub const MAX_FILES: usize = 5_000;
/// A bigger file than this under a sealed folder is refused.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// File hashes under one folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    root: PathBuf,
    /// Relative path → sha256 (hex).
    files: BTreeMap<String, String>,
}

/// Why the seal could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("cannot read {path} to record its hash: {detail}")]
    Read { path: String, detail: String },
    #[error("{path} holds more than {MAX_FILES} files; a toolbox folder should not")]
    TooManyFiles { path: String },
    #[error("{path} is larger than {} MiB; a toolbox file should not be", MAX_FILE_BYTES >> 20)]
    TooLarge { path: String },
}

impl Seal {
    /// Hash every regular file under `root` (byte-code caches excepted).
    pub fn take(root: &Path) -> Result<Seal, SealError> {
        Ok(Seal {
            root: root.to_path_buf(),
            files: hash_tree(root)?,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Relative path → sha256, for the log.
    pub fn files(&self) -> &BTreeMap<String, String> {
        &self.files
    }

    /// One sha256 over every path and hash, for a one-line summary.
    pub fn digest(&self) -> String {
        let mut hasher = Sha256::new();
        for (path, hash) in &self.files {
            hasher.update(path.as_bytes());
            hasher.update([0]);
            hasher.update(hash.as_bytes());
            hasher.update([b'\n']);
        }
        hex(&hasher.finalize())
    }

    /// What changed since the seal was taken: `Ok` when nothing did, else one line per changed,
    /// added or removed file.
    pub fn verify(&self) -> Result<(), Vec<String>> {
        let now = match hash_tree(&self.root) {
            Ok(now) => now,
            Err(e) => return Err(vec![e.to_string()]),
        };
        let mut changes = Vec::new();
        for (path, hash) in &self.files {
            match now.get(path) {
                None => changes.push(format!("{path}: removed")),
                Some(new) if new != hash => changes.push(format!(
                    "{path}: changed (sha256 {} -> {})",
                    &hash[..12],
                    &new[..12]
                )),
                Some(_) => {}
            }
        }
        for path in now.keys().filter(|p| !self.files.contains_key(*p)) {
            changes.push(format!("{path}: added"));
        }
        if changes.is_empty() {
            Ok(())
        } else {
            Err(changes)
        }
    }
}

fn hash_tree(root: &Path) -> Result<BTreeMap<String, String>, SealError> {
    let read_err = |path: &Path, e: &dyn std::fmt::Display| SealError::Read {
        path: path.display().to_string(),
        detail: e.to_string(),
    };
    let mut files = BTreeMap::new();
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != "__pycache__")
        .build();
    for entry in walker {
        let entry = entry.map_err(|e| read_err(root, &e))?;
        let path = entry.path();
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() || path.extension().is_some_and(|e| e == "pyc") {
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let hash = if kind.is_symlink() {
            // A link is sealed by where it points.
            let target = std::fs::read_link(path).map_err(|e| read_err(path, &e))?;
            hex(&Sha256::digest(target.display().to_string().as_bytes()))
        } else {
            let meta = entry.metadata().map_err(|e| read_err(path, &e))?;
            if !meta.is_file() {
                return Err(read_err(path, &"not a regular file"));
            }
            if meta.len() > MAX_FILE_BYTES {
                return Err(SealError::TooLarge {
                    path: path.display().to_string(),
                });
            }
            let bytes = std::fs::read(path).map_err(|e| read_err(path, &e))?;
            hex(&Sha256::digest(&bytes))
        };
        files.insert(relative, hash);
        if files.len() > MAX_FILES {
            return Err(SealError::TooManyFiles {
                path: root.display().to_string(),
            });
        }
    }
    Ok(files)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_added_or_removed_file_breaks_the_seal() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("t/__pycache__")).unwrap();
        std::fs::write(dir.path().join("t/compare.py"), "print(1)\n").unwrap();
        std::fs::write(dir.path().join("t/run.py"), "print(2)\n").unwrap();
        let seal = Seal::take(dir.path()).unwrap();
        assert_eq!(seal.files().len(), 2);
        assert!(seal.verify().is_ok());
        // Byte-code caches do not count.
        std::fs::write(dir.path().join("t/__pycache__/x.pyc"), "x").unwrap();
        assert!(seal.verify().is_ok());

        std::fs::write(dir.path().join("t/compare.py"), "print('forged')\n").unwrap();
        std::fs::write(dir.path().join("t/numpy.py"), "").unwrap();
        std::fs::remove_file(dir.path().join("t/run.py")).unwrap();
        let changes = seal.verify().unwrap_err();
        assert_eq!(changes.len(), 3, "{changes:?}");
        assert!(changes[0].starts_with("t/compare.py: changed"));
        assert!(changes.iter().any(|c| c == "t/run.py: removed"));
        assert!(changes.iter().any(|c| c == "t/numpy.py: added"));
    }

    #[test]
    fn the_digest_follows_the_contents() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "1").unwrap();
        let first = Seal::take(dir.path()).unwrap().digest();
        std::fs::write(dir.path().join("a.py"), "2").unwrap();
        assert_ne!(first, Seal::take(dir.path()).unwrap().digest());
    }
}
