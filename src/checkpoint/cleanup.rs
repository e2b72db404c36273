//! Cleaning up after sessions: the git lock files a killed session leaves behind (so `resume`
//! can commit again), and removing a session's refs and worktree registration (`sessions gc`).
//!
//! Both touch only what belongs to one session: the worktree admin dir `worktrees/aipc-<id>/`,
//! the branch `refs/heads/aipc/<id>` and the tags `refs/tags/aipc/<id>/*`. Session ids are
//! validated first, so no id can reach another ref (ids hold no `/`, `*` or `..`).

use super::error::{CheckpointError, GitContext, IoContext};
use super::locate::{canonical, locate, plain_repo_path};
use super::names::{branch_ref, tag_ref_prefix, validate_session_id, worktree_name};
use git2::{Repository, WorktreePruneOptions};
use std::path::{Path, PathBuf};

/// What [`remove_session_refs`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemovedRefs {
    /// `aipc/<id>`, when it existed.
    pub branch: Option<String>,
    /// `aipc/<id>/<stage>` tags.
    pub tags: Vec<String>,
    /// The worktree registration `worktrees/aipc-<id>` was pruned.
    pub worktree_pruned: bool,
}

/// Delete lock files a process killed in the middle of a git write left in the session's
/// worktree admin dir and on its refs. Returns the files removed. Only call this when no
/// process works on the session any more.
pub fn clear_stale_locks(
    worktree: &Path,
    session_id: &str,
) -> Result<Vec<PathBuf>, CheckpointError> {
    validate_session_id(session_id)?;
    let repo = Repository::open(worktree).map_err(|source| CheckpointError::NoWorktree {
        path: worktree.to_path_buf(),
        source,
    })?;
    let common = repo.commondir().to_path_buf();
    let mut removed = Vec::new();
    let mut remove = |path: PathBuf| -> Result<(), CheckpointError> {
        if path.is_file() {
            std::fs::remove_file(&path).io_ctx("remove the stale lock", &path)?;
            removed.push(path);
        }
        Ok(())
    };
    // The worktree's own admin dir: index.lock, HEAD.lock, ORIG_HEAD.lock, logs/HEAD.lock …
    for dir in [repo.path().to_path_buf(), repo.path().join("logs")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().ends_with(".lock") {
                    remove(entry.path())?;
                }
            }
        }
    }
    let branch = branch_ref(session_id);
    remove(common.join(format!("{branch}.lock")))?;
    remove(common.join("logs").join(format!("{branch}.lock")))?;
    let tags = common.join(tag_ref_prefix(session_id));
    if let Ok(entries) = std::fs::read_dir(&tags) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".lock") {
                remove(entry.path())?;
            }
        }
    }
    Ok(removed)
}

/// Remove session `session_id`'s branch, checkpoint tags and worktree registration from the
/// repository of `project` (the worktree folder itself too, when it still exists). Nothing
/// else is touched. A project with no repository (nothing was ever committed) has nothing to
/// remove.
pub fn remove_session_refs(
    project: &Path,
    session_id: &str,
) -> Result<RemovedRefs, CheckpointError> {
    validate_session_id(session_id)?;
    let project = canonical(project)?;
    let mut removed = RemovedRefs::default();
    if Repository::discover(&project).is_err() && !plain_repo_path(&project).join("HEAD").exists() {
        return Ok(removed);
    }
    let host = locate(&project, false)?;
    let repo = host.repo;
    let name = worktree_name(session_id);
    if let Ok(wt) = repo.find_worktree(&name) {
        let mut options = WorktreePruneOptions::new();
        options.valid(true).locked(false).working_tree(true);
        wt.prune(Some(&mut options))
            .git_ctx(|| format!("prune worktree {name}"))?;
        removed.worktree_pruned = true;
    }
    // A registration git cannot read (the process died while adding it) is removed as files;
    // the folder's name is the session's own.
    let admin = repo.commondir().join("worktrees").join(&name);
    if admin.exists() {
        std::fs::remove_dir_all(&admin).io_ctx("remove the worktree registration", &admin)?;
        removed.worktree_pruned = true;
    }
    let prefix = tag_ref_prefix(session_id);
    let glob = format!("{prefix}*");
    let mut tag_refs = Vec::new();
    for r in repo
        .references_glob(&glob)
        .git_ctx(|| format!("list {glob}"))?
    {
        let r = r.git_ctx(|| format!("read a ref of {glob}"))?;
        if let Some(name) = r.name() {
            tag_refs.push(name.to_string());
        }
    }
    for refname in tag_refs {
        if let Ok(mut r) = repo.find_reference(&refname) {
            r.delete().git_ctx(|| format!("delete tag {refname}"))?;
            removed
                .tags
                .push(refname.trim_start_matches("refs/tags/").to_string());
        }
    }
    let branch = branch_ref(session_id);
    if let Ok(mut r) = repo.find_reference(&branch) {
        r.delete().git_ctx(|| format!("delete branch {branch}"))?;
        removed.branch = Some(branch.trim_start_matches("refs/heads/").to_string());
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::SessionRepo;

    fn user_repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("a.txt")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("u", "u@example.com").unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
            .unwrap();
        repo.branch(
            "aipc-lookalike",
            &repo.head().unwrap().peel_to_commit().unwrap(),
            false,
        )
        .unwrap();
        dir
    }

    #[test]
    fn removes_only_the_sessions_refs_and_clears_locks() {
        let project = user_repo();
        let keep_wt = project.path().join(".aipc/sessions/s1/worktree");
        let gone_wt = project.path().join(".aipc/sessions/s2/worktree");
        let keep = SessionRepo::create(project.path(), "s1", &keep_wt, &[]).unwrap();
        let gone = SessionRepo::create(project.path(), "s2", &gone_wt, &[]).unwrap();
        keep.tag_checkpoint("env").unwrap();
        gone.tag_checkpoint("env").unwrap();
        gone.tag_checkpoint("export").unwrap();

        let admin = Repository::open(&gone_wt).unwrap().path().to_path_buf();
        std::fs::write(admin.join("index.lock"), "").unwrap();
        let cleared = clear_stale_locks(&gone_wt, "s2").unwrap();
        assert_eq!(cleared, vec![admin.join("index.lock")]);

        let removed = remove_session_refs(project.path(), "s2").unwrap();
        assert_eq!(removed.branch.as_deref(), Some("aipc/s2"));
        assert_eq!(removed.tags.len(), 2);
        assert!(removed.worktree_pruned);
        assert!(!gone_wt.exists());
        let repo = Repository::open(project.path()).unwrap();
        assert!(repo.find_reference("refs/heads/aipc/s1").is_ok());
        assert!(repo.find_reference("refs/tags/aipc/s1/env").is_ok());
        assert!(repo.find_reference("refs/heads/aipc-lookalike").is_ok());
        assert!(
            repo.find_reference("refs/heads/master").is_ok()
                || repo.find_reference("refs/heads/main").is_ok()
        );
        assert!(keep_wt.join("a.txt").exists());
        // Twice is harmless.
        assert_eq!(
            remove_session_refs(project.path(), "s2").unwrap(),
            RemovedRefs::default()
        );
        assert!(remove_session_refs(project.path(), "../x").is_err());
    }
}
