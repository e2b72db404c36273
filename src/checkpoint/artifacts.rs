//! Build artifacts (exported models and the like): the glob matcher that keeps them out of
//! commits, and the listing of the ones present in a worktree with their sha256 and size.

use super::error::{CheckpointError, IoContext};
use super::names::AIPC_DIR;
use globset::{Glob, GlobSet, GlobSetBuilder};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::path::Path;

/// A file in the worktree that matches an artifact glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// Path relative to the worktree, with `/` separators.
    pub path: String,
    /// Lowercase hex sha256 of the content.
    pub sha256: String,
    pub bytes: u64,
}

/// Directories never searched for artifacts (besides `.git`, `.aipc` and virtualenvs, which are
/// recognised by their `pyvenv.cfg`): caches and dependency trees full of binaries that are not
/// the session's output.
const PRUNED_DIRS: &[&str] = &[
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
];

/// Matches paths against the artifact globs. A path matches when the glob matches the whole
/// relative path or its file name, so `*.onnx` and `model.onnx` both find `out/model.onnx`.
#[derive(Debug, Clone)]
pub(crate) struct ArtifactMatcher {
    set: GlobSet,
}

impl ArtifactMatcher {
    pub(crate) fn new(globs: &[String]) -> Result<Self, CheckpointError> {
        let mut builder = GlobSetBuilder::new();
        for glob in globs {
            let g = Glob::new(glob).map_err(|source| CheckpointError::InvalidGlob {
                glob: glob.clone(),
                source,
            })?;
            builder.add(g);
        }
        let set = builder
            .build()
            .map_err(|source| CheckpointError::InvalidGlob {
                glob: globs.join(", "),
                source,
            })?;
        Ok(ArtifactMatcher { set })
    }

    /// `rel` is relative to the worktree root, with `/` separators.
    pub(crate) fn is_match(&self, rel: &str) -> bool {
        if self.set.is_empty() {
            return false;
        }
        let name = rel.rsplit('/').next().unwrap_or(rel);
        self.set.is_match(rel) || self.set.is_match(name)
    }
}

/// Every file under `root` matching the globs (ignore rules do not apply: artifacts are often
/// git-ignored), sorted by path.
pub(crate) fn list_artifacts(
    root: &Path,
    matcher: &ArtifactMatcher,
) -> Result<Vec<Artifact>, CheckpointError> {
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(|e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if e.depth() == 0 || !is_dir {
                return e.file_name() != ".git" && e.file_name() != AIPC_DIR;
            }
            let name = e.file_name();
            name != ".git"
                && name != AIPC_DIR
                && !PRUNED_DIRS.iter().any(|d| name == *d)
                && !e.path().join("pyvenv.cfg").exists()
        })
        .build();
    for entry in walker {
        let entry = entry.map_err(|source| CheckpointError::Walk {
            path: root.to_path_buf(),
            source,
        })?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = super::scan::relative(root, entry.path())?;
        if !matcher.is_match(&rel) {
            continue;
        }
        let (sha256, bytes) = sha256_file(entry.path())?;
        out.push(Artifact {
            path: rel,
            sha256,
            bytes,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Hex sha256 and length of a file, streamed.
pub(crate) fn sha256_file(path: &Path) -> Result<(String, u64), CheckpointError> {
    let mut file = File::open(path).io_ctx("open", path)?;
    let mut hasher = Sha256::new();
    let bytes = std::io::copy(&mut file, &mut hasher).io_ctx("read", path)?;
    let hex = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    Ok((hex, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_whole_path_or_file_name() {
        let m = ArtifactMatcher::new(&["*.onnx".into(), "weights.bin".into()]).unwrap();
        assert!(m.is_match("model.onnx"));
        assert!(m.is_match("out/deep/model.onnx"));
        assert!(m.is_match("a/weights.bin"));
        assert!(!m.is_match("model.py"));
        assert!(!m.is_match("onnx/readme.md"));
        let none = ArtifactMatcher::new(&[]).unwrap();
        assert!(!none.is_match("model.onnx"));
    }

    #[test]
    fn bad_glob_is_reported_with_the_glob() {
        let e = ArtifactMatcher::new(&["a[".into()]).unwrap_err();
        assert!(e.to_string().contains("\"a[\""), "{e}");
    }

    #[test]
    fn lists_artifacts_with_sha256_skipping_caches() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("out")).unwrap();
        std::fs::create_dir_all(d.path().join("node_modules")).unwrap();
        std::fs::create_dir_all(d.path().join(".venv")).unwrap();
        std::fs::write(d.path().join(".venv/pyvenv.cfg"), "home = /usr\n").unwrap();
        std::fs::write(d.path().join(".venv/x.onnx"), "no").unwrap();
        std::fs::write(d.path().join("out/m.onnx"), "abc").unwrap();
        std::fs::write(d.path().join("node_modules/n.onnx"), "no").unwrap();
        std::fs::write(d.path().join("m.py"), "no").unwrap();
        let m = ArtifactMatcher::new(&["*.onnx".into()]).unwrap();
        let a = list_artifacts(d.path(), &m).unwrap();
        assert_eq!(
            a,
            vec![Artifact {
                path: "out/m.onnx".into(),
                sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into(),
                bytes: 3,
            }]
        );
    }
}
