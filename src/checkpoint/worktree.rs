//! The session's branch and git worktree: checking neither exists yet, creating both, and the
//! base-commit record kept in the worktree's admin dir (`<commondir>/worktrees/aipc-<id>/`).

use super::error::{CheckpointError, GitContext, IoContext};
use super::names::{branch_ref, worktree_name, BASE_FILE};
use git2::build::CheckoutBuilder;
use git2::{Oid, Repository, WorktreeAddOptions};
use std::path::Path;

/// Fail when the session's branch, worktree admin dir or worktree path is already taken.
pub(crate) fn preflight(
    repo: &Repository,
    id: &str,
    worktree: &Path,
) -> Result<(), CheckpointError> {
    let branch = branch_ref(id);
    if repo.find_reference(&branch).is_ok() {
        return Err(CheckpointError::SessionExists {
            id: id.to_string(),
            what: format!("branch {branch}"),
            repo: repo.commondir().to_path_buf(),
        });
    }
    let admin = repo.commondir().join("worktrees").join(worktree_name(id));
    if admin.exists() {
        return Err(CheckpointError::SessionExists {
            id: id.to_string(),
            what: format!(
                "worktree admin dir {} (run `git worktree prune` if its worktree is gone)",
                admin.display()
            ),
            repo: repo.commondir().to_path_buf(),
        });
    }
    if worktree.symlink_metadata().is_ok() {
        let empty_dir = worktree.is_dir()
            && std::fs::read_dir(worktree)
                .io_ctx("list", worktree)?
                .next()
                .is_none();
        if !empty_dir {
            return Err(CheckpointError::WorktreePathTaken {
                path: worktree.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Create branch `aipc/<id>` at `base` and check it out as worktree `aipc-<id>` at `worktree`,
/// then record `base`. The branch is removed again when the worktree cannot be made.
pub(crate) fn add_worktree(
    repo: &Repository,
    id: &str,
    base: Oid,
    worktree: &Path,
) -> Result<(), CheckpointError> {
    preflight(repo, id, worktree)?;
    if worktree.is_dir() {
        // An empty directory (checked above): git wants to create it itself.
        std::fs::remove_dir(worktree).io_ctx("remove empty directory", worktree)?;
    }
    if let Some(parent) = worktree.parent() {
        std::fs::create_dir_all(parent).io_ctx("create directory", parent)?;
    }
    let refname = branch_ref(id);
    let mut branch = repo
        .reference(
            &refname,
            base,
            false,
            &format!("aipc: session {id} from {base}"),
        )
        .git_ctx(|| format!("create branch {refname} at {base}"))?;
    let added = (|| {
        let mut opts = WorktreeAddOptions::new();
        opts.reference(Some(&branch));
        let name = worktree_name(id);
        repo.worktree(&name, worktree, Some(&opts))
            .git_ctx(|| format!("add worktree {name} at {}", worktree.display()))?;
        let wt = Repository::open(worktree)
            .git_ctx(|| format!("open the new worktree {}", worktree.display()))?;
        wt.checkout_head(Some(CheckoutBuilder::new().force()))
            .git_ctx(|| format!("check out {refname} in {}", worktree.display()))?;
        write_base(&wt, base)
    })();
    if added.is_err() {
        // Best effort: leave no half-made session behind the error.
        let _ = branch.delete();
    }
    added
}

fn write_base(wt: &Repository, base: Oid) -> Result<(), CheckpointError> {
    let file = wt.path().join(BASE_FILE);
    std::fs::write(&file, format!("{base}\n")).io_ctx("write", &file)
}

/// The base commit recorded for the session whose worktree `wt` is.
pub(crate) fn read_base(wt: &Repository, id: &str) -> Result<Oid, CheckpointError> {
    let file = wt.path().join(BASE_FILE);
    let text = std::fs::read_to_string(&file).map_err(|_| CheckpointError::BaseUnknown {
        id: id.to_string(),
        path: file.clone(),
    })?;
    Oid::from_str(text.trim()).map_err(|_| CheckpointError::BaseUnknown {
        id: id.to_string(),
        path: file,
    })
}
