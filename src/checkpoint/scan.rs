//! Scanning a working directory into a flat tree, the way `git add -A` would see it: `.gitignore`
//! (and `info/exclude`) honoured, files already tracked kept even when ignored, untracked
//! artifacts left out, `.git` and `.aipc` never entered, executable bits and symlinks kept.
//!
//! A file or folder whose name git cannot store (an alias of `.git` such as `.GIT` or `git~1`,
//! see [`crate::git_name`]) or that is not UTF-8 is left out and listed in
//! [`Scanned::left_out`]: written into a tree, it would fail every commit of the session.

use super::artifacts::ArtifactMatcher;
use super::error::{CheckpointError, GitContext, IoContext};
use super::names::AIPC_DIR;
use super::tree::{Entry, FlatTree, MODE_BLOB, MODE_EXEC, MODE_GITLINK, MODE_LINK};
use crate::git_name::component_problem;
use git2::{ObjectType, Oid, Repository};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::Metadata;
use std::path::{Component, Path};
use std::sync::{Arc, Mutex};

/// A file or folder of the worktree left out of the scan because git cannot store its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// Relative, `/`-separated (not-UTF-8 bytes shown as U+FFFD); a folder's whole content is
    /// left out with it.
    pub path: String,
    /// Why git cannot store it.
    pub reason: String,
}

/// A scanned directory: its flat tree and what had to be left out of it, by path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scanned {
    pub tree: FlatTree,
    pub left_out: Vec<LeftOut>,
}

/// What to do with the content of scanned files.
#[derive(Clone, Copy)]
pub(crate) enum Store<'r> {
    /// Only compute ids (nothing is written; for diffs of uncommitted work).
    HashOnly,
    /// Write each blob into this repository's object database (for commits).
    Write(&'r Repository),
}

/// Scan `root` into a flat tree. `tracked` is the tree the scan is compared with (HEAD's): its
/// paths stay in even when ignore rules or artifact globs match them, as tracked files do in git.
/// Nested repositories are left out unless `tracked` records them as gitlinks; so are names git
/// cannot store (unless tracked: what a commit already holds, git stores).
pub(crate) fn scan(
    root: &Path,
    tracked: &FlatTree,
    artifacts: &ArtifactMatcher,
    store: Store<'_>,
) -> Result<Scanned, CheckpointError> {
    let mut out = FlatTree::new();
    let refused: Arc<Mutex<BTreeMap<String, String>>> = Arc::default();
    let refused_in_walk = Arc::clone(&refused);
    let walk_root = root.to_path_buf();
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(false)
        .parents(false)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            let name = e.file_name();
            if name == ".git" || name == AIPC_DIR {
                return false;
            }
            if let Some(reason) = unstorable(name) {
                if let Ok(mut refused) = refused_in_walk.lock() {
                    refused.insert(lossy_relative(&walk_root, e.path()), reason);
                }
                return false;
            }
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            // A nested repository (submodule or stray clone) is not walked into.
            !(is_dir && e.path().join(".git").symlink_metadata().is_ok())
        })
        .build();
    for item in walker {
        let entry = item.map_err(|source| CheckpointError::Walk {
            path: root.to_path_buf(),
            source,
        })?;
        if entry.depth() == 0 {
            continue;
        }
        let Some(ft) = entry.file_type() else {
            continue;
        };
        if !(ft.is_file() || ft.is_symlink()) {
            continue;
        }
        let rel = relative(root, entry.path())?;
        if !tracked.contains_key(&rel) && artifacts.is_match(&rel) {
            continue;
        }
        let meta = entry
            .path()
            .symlink_metadata()
            .io_ctx("stat", entry.path())?;
        if let Some(e) = file_entry(entry.path(), &meta, store)? {
            out.insert(rel, e);
        }
    }
    // Tracked files the ignore rules hid (force-added files, gitlinks) are still part of the tree.
    for (rel, old) in tracked {
        if out.contains_key(rel) || rel.split('/').any(|c| c == ".git" || c == AIPC_DIR) {
            continue;
        }
        let abs = root.join(rel);
        let Ok(meta) = abs.symlink_metadata() else {
            continue; // deleted
        };
        if old.mode == MODE_GITLINK {
            if meta.is_dir() {
                out.insert(rel.clone(), old.clone());
            }
            continue;
        }
        if let Some(e) = file_entry(&abs, &meta, store)? {
            out.insert(rel.clone(), e);
        }
    }
    let refused = match refused.lock() {
        Ok(refused) => refused.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    let left_out = refused
        .into_iter()
        // A tracked path the walk refused came back with the tracked files: it is not left out.
        .filter(|(path, _)| !holds(&out, path))
        .map(|(path, reason)| LeftOut { path, reason })
        .collect();
    Ok(Scanned {
        tree: out,
        left_out,
    })
}

/// Why git cannot store a file named `name`, `None` when it can.
fn unstorable(name: &OsStr) -> Option<String> {
    match name.to_str() {
        None => Some("its name is not valid UTF-8".to_string()),
        Some(name) => component_problem(name).map(|p| p.to_string()),
    }
}

/// Whether `tree` has the file `path` or files under the folder `path`.
fn holds(tree: &FlatTree, path: &str) -> bool {
    let folder = format!("{path}/");
    tree.contains_key(path)
        || tree
            .range(folder.clone()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(&folder))
}

/// `path` relative to `root`, `/`-separated, any non-UTF-8 byte shown as U+FFFD.
fn lossy_relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The entry of one file or symlink (`None` for anything else).
fn file_entry(
    path: &Path,
    meta: &Metadata,
    store: Store<'_>,
) -> Result<Option<Entry>, CheckpointError> {
    let ft = meta.file_type();
    let mode = if ft.is_symlink() {
        MODE_LINK
    } else if ft.is_file() {
        if is_executable(meta) {
            MODE_EXEC
        } else {
            MODE_BLOB
        }
    } else {
        return Ok(None);
    };
    let content = read_content(path, mode)?;
    let oid = match store {
        Store::HashOnly => Oid::hash_object(ObjectType::Blob, &content)
            .git_ctx(|| format!("hash {}", path.display()))?,
        Store::Write(repo) => repo
            .blob(&content)
            .git_ctx(|| format!("store {} as a blob", path.display()))?,
    };
    Ok(Some(Entry {
        oid,
        mode,
        source: Some(path.to_path_buf()),
    }))
}

#[cfg(unix)]
fn is_executable(meta: &Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o100 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &Metadata) -> bool {
    false
}

/// What git stores for a file on disk: its bytes, or a symlink's target.
pub(crate) fn read_content(path: &Path, mode: i32) -> Result<Vec<u8>, CheckpointError> {
    if mode == MODE_LINK {
        let target = std::fs::read_link(path).io_ctx("read link", path)?;
        Ok(link_bytes(&target))
    } else {
        std::fs::read(path).io_ctx("read", path)
    }
}

#[cfg(unix)]
fn link_bytes(target: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    target.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn link_bytes(target: &Path) -> Vec<u8> {
    target.to_string_lossy().replace('\\', "/").into_bytes()
}

/// `path` relative to `root`, `/`-separated.
pub(crate) fn relative(root: &Path, path: &Path) -> Result<String, CheckpointError> {
    let rel = path
        .strip_prefix(root)
        .map_err(|_| CheckpointError::NonUtf8Path {
            path: path.to_path_buf(),
        })?;
    let mut parts = Vec::new();
    for c in rel.components() {
        if let Component::Normal(s) = c {
            parts.push(s.to_str().ok_or_else(|| CheckpointError::NonUtf8Path {
                path: path.to_path_buf(),
            })?);
        }
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn no_artifacts() -> ArtifactMatcher {
        ArtifactMatcher::new(&[]).unwrap()
    }

    #[test]
    fn honours_gitignore_and_skips_git_and_aipc() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::create_dir_all(r.join("src")).unwrap();
        fs::create_dir_all(r.join(".aipc/sessions")).unwrap();
        fs::create_dir_all(r.join("nested/.git")).unwrap();
        fs::write(r.join(".gitignore"), "*.log\nbuild/\n").unwrap();
        fs::write(r.join("src/m.py"), "x").unwrap();
        fs::write(r.join(".hidden"), "h").unwrap();
        fs::write(r.join("a.log"), "no").unwrap();
        fs::create_dir_all(r.join("build")).unwrap();
        fs::write(r.join("build/out"), "no").unwrap();
        fs::write(r.join(".aipc/sessions/x"), "no").unwrap();
        fs::write(r.join("nested/f"), "no").unwrap();
        let flat = scan(r, &FlatTree::new(), &no_artifacts(), Store::HashOnly)
            .unwrap()
            .tree;
        let paths: Vec<_> = flat.keys().cloned().collect();
        assert_eq!(paths, vec![".gitignore", ".hidden", "src/m.py"]);
        assert_eq!(
            flat["src/m.py"].oid,
            Oid::hash_object(ObjectType::Blob, b"x").unwrap()
        );
    }

    #[test]
    fn tracked_ignored_files_stay_and_untracked_artifacts_go() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::write(r.join(".gitignore"), "*.bin\n").unwrap();
        fs::write(r.join("weights.bin"), "w").unwrap();
        fs::write(r.join("model.onnx"), "m").unwrap();
        fs::write(r.join("kept.onnx"), "k").unwrap();
        let mut tracked = FlatTree::new();
        for p in ["weights.bin", "kept.onnx"] {
            tracked.insert(
                p.into(),
                Entry {
                    oid: Oid::zero(),
                    mode: MODE_BLOB,
                    source: None,
                },
            );
        }
        let arts = ArtifactMatcher::new(&["*.onnx".into()]).unwrap();
        let flat = scan(r, &tracked, &arts, Store::HashOnly).unwrap().tree;
        let paths: Vec<_> = flat.keys().cloned().collect();
        assert_eq!(paths, vec![".gitignore", "kept.onnx", "weights.bin"]);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_exec_bit_and_symlinks() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::write(r.join("run.sh"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(r.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("run.sh", r.join("link")).unwrap();
        let flat = scan(r, &FlatTree::new(), &no_artifacts(), Store::HashOnly)
            .unwrap()
            .tree;
        assert_eq!(flat["run.sh"].mode, MODE_EXEC);
        assert_eq!(flat["link"].mode, MODE_LINK);
        assert_eq!(
            flat["link"].oid,
            Oid::hash_object(ObjectType::Blob, b"run.sh").unwrap()
        );
    }

    #[test]
    fn names_git_cannot_store_are_left_out_and_listed() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for p in [
            ".GIT/config",
            "sub/.GiT/x",
            ".git./x",
            ".git /x",
            "git~1",
            "deep/.g\u{200c}it",
            "src/m.py",
        ] {
            let path = r.join(p);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            fs::write(r.join(OsStr::from_bytes(b"bad\xff")), "x").unwrap();
        }
        let found = scan(r, &FlatTree::new(), &no_artifacts(), Store::HashOnly).unwrap();
        let paths: Vec<_> = found.tree.keys().cloned().collect();
        assert_eq!(paths, vec!["src/m.py"]);
        let left: Vec<_> = found.left_out.iter().map(|l| l.path.as_str()).collect();
        let mut expected = vec![
            ".GIT",
            ".git ",
            ".git.",
            "deep/.g\u{200c}it",
            "git~1",
            "sub/.GiT",
        ];
        if cfg!(unix) {
            expected.push("bad\u{fffd}");
        }
        expected.sort_unstable();
        assert_eq!(left, expected);
        assert!(found.left_out[0]
            .reason
            .contains("git's own metadata directory"));
    }

    #[test]
    fn a_tracked_path_the_walk_refuses_stays_in() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::write(r.join(".g\u{200c}it"), "x").unwrap();
        let mut tracked = FlatTree::new();
        tracked.insert(
            ".g\u{200c}it".into(),
            Entry {
                oid: Oid::zero(),
                mode: MODE_BLOB,
                source: None,
            },
        );
        let found = scan(r, &tracked, &no_artifacts(), Store::HashOnly).unwrap();
        assert!(found.tree.contains_key(".g\u{200c}it"));
        assert!(found.left_out.is_empty());
    }
}
