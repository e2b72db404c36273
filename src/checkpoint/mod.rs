//! Checkpoints: every session works on its own branch `aipc/<id>` in its own git worktree, every
//! attempt that changed files is a commit, every passed stage a tag `aipc/<id>/<stage>`.
//!
//! The hard invariant: a session never touches the user's branch, index or working tree. It only
//! adds refs `refs/heads/aipc/<id>` and `refs/tags/aipc/<id>/<stage>`, a worktree admin dir
//! `worktrees/aipc-<id>/` (which also records the base commit), objects, and the line `.aipc/`
//! in `info/exclude`. A project outside git gets a bare repository of its own at
//! `<project>/.aipc/repo.git`.
//!
//! Files (one concern each):
//! - [`session`]: the public face, [`SessionRepo`].
//! - `locate`: which repository a project's sessions live in.
//! - `snapshot`: the base commit, a snapshot of the user's working tree.
//! - `worktree`: the branch, the git worktree and the base record.
//! - `scan`: a directory as a flat tree, the way `git add -A` sees it (names git cannot store
//!   left out and listed).
//! - `tree`: flat trees read from and written as git trees.
//! - `changes`: diffs between flat trees.
//! - `commit`: commits as `aipc <aipc@localhost>`.
//! - `artifacts`: artifact globs and the artifact listing.
//! - `exclude`: the `.aipc/` line in `info/exclude`.
//! - `names`: ref and worktree names, id and stage validation.
//! - [`cleanup`]: stale git locks after a crash, removing a session's refs (gc).
//! - [`error`]: the error type, [`CheckpointError`], with what to do.

mod artifacts;
mod changes;
pub mod cleanup;
mod commit;
pub mod error;
mod exclude;
mod locate;
mod names;
mod scan;
pub mod session;
mod snapshot;
mod tree;
mod worktree;

pub use artifacts::Artifact;
pub use error::CheckpointError;
pub use scan::LeftOut;
pub use session::{has_commit, CommitInfo, CommitOutcome, RollbackInfo, SessionRepo};
