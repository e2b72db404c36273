//! The session's base: a snapshot of the user's working tree (or of a project outside git) as a
//! commit, written without touching the user's index, HEAD or files.

use super::artifacts::ArtifactMatcher;
use super::commit::commit_tree;
use super::error::{CheckpointError, GitContext};
use super::scan::{scan, Store};
use super::tree::{read_commit_tree, write_tree};
use git2::{Commit, Oid, Repository};
use std::path::Path;

/// Message of the snapshot commit.
pub(crate) const SNAPSHOT_MESSAGE: &str = "aipc: snapshot of the working tree";

/// Snapshot the files under `root` into `repo`. With a `parent` whose tree is the same, the
/// parent is the base; otherwise a new commit (a root commit when `parent` is `None`). Files
/// git cannot store under their names are not part of it (see [`scan`]).
pub(crate) fn snapshot(
    repo: &Repository,
    root: &Path,
    artifacts: &ArtifactMatcher,
    parent: Option<&Commit<'_>>,
) -> Result<Oid, CheckpointError> {
    let tracked = read_commit_tree(parent)?;
    let flat = scan(root, &tracked, artifacts, Store::Write(repo))?.tree;
    let tree_id = write_tree(repo, &flat)?;
    if let Some(p) = parent {
        if p.tree_id() == tree_id {
            return Ok(p.id());
        }
    }
    let tree = repo
        .find_tree(tree_id)
        .git_ctx(|| format!("find the snapshot tree {tree_id}"))?;
    let parents: Vec<&Commit<'_>> = parent.into_iter().collect();
    commit_tree(repo, None, &tree, &parents, SNAPSHOT_MESSAGE)
}
