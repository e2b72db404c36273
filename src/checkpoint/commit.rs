//! Writing commits as `aipc <aipc@localhost>`, independent of any user git configuration.

use super::error::{CheckpointError, GitContext};
use git2::{Commit, Oid, Repository, Signature, Tree};

/// The author and committer of every commit aipc makes.
pub(crate) fn signature() -> Result<Signature<'static>, CheckpointError> {
    Signature::now("aipc", "aipc@localhost").git_ctx(|| "make the aipc signature".into())
}

/// Commit `tree` with `parents`; `update_ref` (e.g. `HEAD`) is moved to it when given, and must
/// currently point at the first parent.
pub(crate) fn commit_tree(
    repo: &Repository,
    update_ref: Option<&str>,
    tree: &Tree<'_>,
    parents: &[&Commit<'_>],
    message: &str,
) -> Result<Oid, CheckpointError> {
    let sig = signature()?;
    repo.commit(update_ref, &sig, &sig, message, tree, parents)
        .git_ctx(|| {
            format!(
                "commit tree {} on {} in {}",
                tree.id(),
                update_ref.unwrap_or("(no ref)"),
                repo.path().display()
            )
        })
}

/// The commit HEAD points at, `None` when HEAD is unborn (a repository without commits).
pub(crate) fn head_commit(repo: &Repository) -> Result<Option<Commit<'_>>, CheckpointError> {
    match repo.head() {
        Ok(head) => head
            .peel_to_commit()
            .map(Some)
            .git_ctx(|| format!("resolve HEAD of {} to a commit", repo.path().display())),
        Err(e)
            if e.code() == git2::ErrorCode::UnbornBranch
                || e.code() == git2::ErrorCode::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e).git_ctx(|| format!("read HEAD of {}", repo.path().display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_as_aipc_and_unborn_head_is_none() {
        let d = tempfile::tempdir().unwrap();
        let repo = Repository::init(d.path()).unwrap();
        assert!(head_commit(&repo).unwrap().is_none());
        let tree = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let id = commit_tree(&repo, Some("HEAD"), &tree, &[], "m").unwrap();
        let c = head_commit(&repo).unwrap().unwrap();
        assert_eq!(c.id(), id);
        assert_eq!(c.author().name(), Some("aipc"));
        assert_eq!(c.committer().email(), Some("aipc@localhost"));
    }
}
