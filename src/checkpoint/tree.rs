//! Flat trees: a git tree as a sorted map from `/`-separated path to blob id and mode, read from
//! a commit's tree or written back as nested tree objects with `TreeBuilder`s.

use super::error::{CheckpointError, GitContext};
use git2::{ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Regular file.
pub(crate) const MODE_BLOB: i32 = 0o100644;
/// Executable file.
pub(crate) const MODE_EXEC: i32 = 0o100755;
/// Symbolic link (the blob holds the target).
pub(crate) const MODE_LINK: i32 = 0o120000;
/// Gitlink (a submodule's commit).
pub(crate) const MODE_GITLINK: i32 = 0o160000;

/// One file of a flat tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub oid: Oid,
    pub mode: i32,
    /// Where the content lives on disk, when the entry was scanned from a directory.
    pub source: Option<PathBuf>,
}

impl Entry {
    /// Same content and mode (the source does not matter).
    pub(crate) fn same_as(&self, other: &Entry) -> bool {
        self.oid == other.oid && self.mode == other.mode
    }
}

/// Path (relative, `/`-separated) → entry.
pub(crate) type FlatTree = BTreeMap<String, Entry>;

/// Every blob, link and gitlink of `tree`, recursively.
pub(crate) fn read_tree(tree: &Tree<'_>) -> Result<FlatTree, CheckpointError> {
    let mut out = FlatTree::new();
    let mut bad_name = None;
    tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Tree) {
            return TreeWalkResult::Ok;
        }
        match entry.name() {
            Some(name) => {
                out.insert(
                    format!("{root}{name}"),
                    Entry {
                        oid: entry.id(),
                        mode: entry.filemode(),
                        source: None,
                    },
                );
                TreeWalkResult::Ok
            }
            None => {
                bad_name = Some(format!(
                    "{root}{}",
                    String::from_utf8_lossy(entry.name_bytes())
                ));
                TreeWalkResult::Abort
            }
        }
    })
    .or_else(|e| {
        // An abort from the callback surfaces as an error; report the name instead.
        if bad_name.is_some() {
            Ok(())
        } else {
            Err(e)
        }
    })
    .git_ctx(|| format!("read tree {}", tree.id()))?;
    if let Some(path) = bad_name {
        return Err(CheckpointError::NonUtf8Path {
            path: PathBuf::from(path),
        });
    }
    Ok(out)
}

/// The flat tree of a commit-ish's tree (`None` → empty, for an unborn HEAD).
pub(crate) fn read_commit_tree(
    commit: Option<&git2::Commit<'_>>,
) -> Result<FlatTree, CheckpointError> {
    match commit {
        None => Ok(FlatTree::new()),
        Some(c) => {
            let tree = c
                .tree()
                .git_ctx(|| format!("read the tree of commit {}", c.id()))?;
            read_tree(&tree)
        }
    }
}

#[derive(Default)]
struct Dir<'a> {
    files: BTreeMap<&'a str, &'a Entry>,
    dirs: BTreeMap<&'a str, Dir<'a>>,
}

/// Write `flat` as tree objects (blobs must already be in the object database) and return the
/// root tree's id. Empty directories are not recorded, as in git.
pub(crate) fn write_tree(repo: &Repository, flat: &FlatTree) -> Result<Oid, CheckpointError> {
    let mut root = Dir::default();
    for (path, entry) in flat {
        let mut dir = &mut root;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                dir.files.insert(part, entry);
            } else {
                dir = dir.dirs.entry(part).or_default();
            }
        }
    }
    write_dir(repo, &root, "")
}

fn write_dir(repo: &Repository, dir: &Dir<'_>, prefix: &str) -> Result<Oid, CheckpointError> {
    let mut builder = repo
        .treebuilder(None)
        .git_ctx(|| format!("start tree {prefix:?}"))?;
    for (name, sub) in &dir.dirs {
        let path = format!("{prefix}{name}/");
        let oid = write_dir(repo, sub, &path)?;
        builder
            .insert(name, oid, 0o040000)
            .git_ctx(|| format!("add directory {path} to its tree"))?;
    }
    for (name, entry) in &dir.files {
        builder
            .insert(name, entry.oid, entry.mode)
            .git_ctx(|| format!("add {prefix}{name} ({}) to its tree", entry.oid))?;
    }
    builder.write().git_ctx(|| format!("write tree {prefix:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read_round_trips_nested_paths_and_modes() {
        let d = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(d.path()).unwrap();
        let a = repo.blob(b"a\n").unwrap();
        let b = repo.blob(b"#!/bin/sh\n").unwrap();
        let l = repo.blob(b"a.txt").unwrap();
        let mut flat = FlatTree::new();
        for (p, oid, mode) in [
            ("a.txt", a, MODE_BLOB),
            ("bin/run.sh", b, MODE_EXEC),
            ("deep/er/x/a.txt", a, MODE_BLOB),
            ("link", l, MODE_LINK),
        ] {
            flat.insert(
                p.to_string(),
                Entry {
                    oid,
                    mode,
                    source: None,
                },
            );
        }
        let tree_id = write_tree(&repo, &flat).unwrap();
        let tree = repo.find_tree(tree_id).unwrap();
        assert_eq!(read_tree(&tree).unwrap(), flat);
        assert_eq!(tree.len(), 4);
    }

    #[test]
    fn empty_flat_tree_is_the_empty_tree() {
        let d = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(d.path()).unwrap();
        let id = write_tree(&repo, &FlatTree::new()).unwrap();
        assert_eq!(id.to_string(), "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
    }
}
