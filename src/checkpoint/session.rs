//! [`SessionRepo`]: one session's branch and worktree — attempt commits, checkpoint tags,
//! rollbacks, diffs and artifacts — all inside the worktree, never in the user's checkout.

use super::artifacts::{list_artifacts, Artifact, ArtifactMatcher};
use super::changes::{changed_paths, diffs};
use super::commit::{commit_tree, head_commit};
use super::error::{CheckpointError, GitContext};
use super::exclude::ensure_excluded;
use super::locate::{canonical, locate};
use super::names::{
    branch_name, branch_ref, tag_name, tag_ref_prefix, validate_session_id, validate_stage,
};
use super::scan::{scan, LeftOut, Store};
use super::snapshot::snapshot;
use super::tree::{read_commit_tree, read_tree, write_tree};
use super::worktree::{add_worktree, preflight, read_base};
use crate::protocol::FileDiff;
use git2::build::CheckoutBuilder;
use git2::{Commit, Oid, Repository, ResetType, Sort};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// An attempt's commit.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitInfo {
    pub commit: String,
    /// Paths added, modified (content or mode) or deleted.
    pub files_changed: usize,
    pub diffs: Vec<FileDiff>,
}

/// What [`SessionRepo::commit_all`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitOutcome {
    /// The commit, `None` when nothing that can be committed changed.
    pub commit: Option<CommitInfo>,
    /// Files and folders of the worktree git cannot store under their names (an alias of
    /// `.git` such as `.GIT/config`, a name that is not UTF-8): not in the commit, still in
    /// the worktree. Listed on every commit while they are there.
    pub left_out: Vec<LeftOut>,
}

/// The result of a rollback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollbackInfo {
    /// The commit the branch and worktree now are at.
    pub commit: String,
    /// Where the branch was before (still reachable from the reflog and the record).
    pub previous_head: String,
}

/// Whether `commit` is a commit of the repository `project`'s sessions live in (false when there
/// is no such repository yet, or the text is not a commit id).
pub fn has_commit(project: &Path, commit: &str) -> bool {
    let Ok(project) = canonical(project) else {
        return false;
    };
    let Ok(host) = locate(&project, false) else {
        return false;
    };
    Oid::from_str(commit).is_ok_and(|oid| host.repo.find_commit(oid).is_ok())
}

/// A session's branch `aipc/<id>` and its worktree. Holds no open repository, so it is cheap to
/// clone and can be shared between threads; every method opens the worktree afresh.
#[derive(Debug, Clone)]
pub struct SessionRepo {
    id: String,
    worktree: PathBuf,
    subpath: PathBuf,
    base: String,
    artifacts: ArtifactMatcher,
}

impl SessionRepo {
    /// Start a session: `project` is the user's project dir; `worktree` is where the session's
    /// worktree goes (normally `<project>/.aipc/sessions/<id>/worktree`); files matching
    /// `artifact_globs` (e.g. `*.onnx`) are never committed unless already tracked.
    pub fn create(
        project: &Path,
        session_id: &str,
        worktree: &Path,
        artifact_globs: &[String],
    ) -> Result<SessionRepo, CheckpointError> {
        validate_session_id(session_id)?;
        let project = project_dir(project)?;
        let artifacts = ArtifactMatcher::new(artifact_globs)?;
        let host = locate(&project, true)?;
        if host.is_user_repo {
            ensure_excluded(host.repo.commondir())?;
        }
        preflight(&host.repo, session_id, worktree)?;
        let parent = if host.is_user_repo {
            head_commit(&host.repo)?
        } else {
            None
        };
        let base = snapshot(&host.repo, &host.root, &artifacts, parent.as_ref())?;
        add_worktree(&host.repo, session_id, base, worktree)?;
        Ok(SessionRepo {
            id: session_id.to_string(),
            worktree: worktree.to_path_buf(),
            subpath: host.subpath,
            base: base.to_string(),
            artifacts,
        })
    }

    /// Start a session at `base`, an existing commit of the project's repository, instead of
    /// a snapshot of the working tree: `aipc rerun` starts where the recorded session started.
    pub fn create_at(
        project: &Path,
        session_id: &str,
        worktree: &Path,
        artifact_globs: &[String],
        base: &str,
    ) -> Result<SessionRepo, CheckpointError> {
        validate_session_id(session_id)?;
        let project = project_dir(project)?;
        let artifacts = ArtifactMatcher::new(artifact_globs)?;
        let host = locate(&project, false)?;
        if host.is_user_repo {
            ensure_excluded(host.repo.commondir())?;
        }
        preflight(&host.repo, session_id, worktree)?;
        let unknown = |source| CheckpointError::UnknownRevision {
            rev: base.to_string(),
            repo: host.repo.commondir().to_path_buf(),
            source,
        };
        let oid = Oid::from_str(base).map_err(unknown)?;
        host.repo.find_commit(oid).map_err(unknown)?;
        add_worktree(&host.repo, session_id, oid, worktree)?;
        Ok(SessionRepo {
            id: session_id.to_string(),
            worktree: worktree.to_path_buf(),
            subpath: host.subpath,
            base: oid.to_string(),
            artifacts,
        })
    }

    /// Re-open an existing session's repository and worktree (for resume).
    pub fn open(
        project: &Path,
        session_id: &str,
        worktree: &Path,
        artifact_globs: &[String],
    ) -> Result<SessionRepo, CheckpointError> {
        validate_session_id(session_id)?;
        let project = project_dir(project)?;
        let artifacts = ArtifactMatcher::new(artifact_globs)?;
        let wt = open_worktree(worktree)?;
        let common = canonical(wt.commondir())?;
        let subpath = match locate(&project, false) {
            Ok(host) if canonical(host.repo.commondir())? == common => host.subpath,
            _ => {
                return Err(CheckpointError::ForeignWorktree {
                    worktree: worktree.to_path_buf(),
                    repo: common,
                    project: project.clone(),
                })
            }
        };
        let session = SessionRepo {
            id: session_id.to_string(),
            worktree: worktree.to_path_buf(),
            subpath,
            base: read_base(&wt, session_id)?.to_string(),
            artifacts,
        };
        session.check_branch(&wt)?;
        Ok(session)
    }

    /// `aipc/<id>`.
    pub fn branch(&self) -> String {
        branch_name(&self.id)
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.id
    }

    /// The commit the session started from.
    pub fn base_commit(&self) -> String {
        self.base.clone()
    }

    /// The tree of the project at the base commit (the project's subtree when it is a folder
    /// inside a larger repository). Content-addressed, so two snapshots of the same files have
    /// the same tree even in different repositories: `aipc rerun --from` uses it to check that a
    /// project copy is where a shipped recording started.
    pub fn base_tree(&self) -> Result<String, CheckpointError> {
        let repo = self.repo()?;
        let oid = Oid::from_str(&self.base).git_ctx(|| format!("parse the base {}", self.base))?;
        let tree = repo
            .find_commit(oid)
            .and_then(|c| c.tree())
            .git_ctx(|| format!("read the tree of the base commit {oid}"))?;
        if self.subpath.as_os_str().is_empty() {
            return Ok(tree.id().to_string());
        }
        let entry = tree
            .get_path(&self.subpath)
            .git_ctx(|| format!("find {} in the base commit", self.subpath.display()))?;
        Ok(entry.id().to_string())
    }

    /// The commit the worktree's HEAD is at.
    pub fn head(&self) -> Result<String, CheckpointError> {
        let repo = self.repo()?;
        let id = self.head_of(&repo)?.id();
        Ok(id.to_string())
    }

    /// The session's worktree (the whole repository's tree).
    pub fn worktree(&self) -> &Path {
        &self.worktree
    }

    /// The project inside the worktree: `worktree()` joined with the project's path in its
    /// repository (the same as `worktree()` when the project is the repository's root, or not
    /// in git).
    pub fn project_dir(&self) -> PathBuf {
        self.worktree.join(&self.subpath)
    }

    /// Commit everything that changed in the worktree (new, modified, deleted files; respecting
    /// `.gitignore`; skipping untracked artifacts and `.aipc/`). No commit when nothing changed.
    /// A file whose name git cannot store does not fail the commit: it is left out, and listed.
    pub fn commit_all(&self, message: &str) -> Result<CommitOutcome, CheckpointError> {
        let repo = self.repo()?;
        self.check_branch(&repo)?;
        let head = self.head_of(&repo)?;
        let before = read_commit_tree(Some(&head))?;
        let scanned = scan(
            &self.worktree,
            &before,
            &self.artifacts,
            Store::Write(&repo),
        )?;
        let (after, left_out) = (scanned.tree, scanned.left_out);
        let tree_id = write_tree(&repo, &after)?;
        if tree_id == head.tree_id() {
            return Ok(CommitOutcome {
                commit: None,
                left_out,
            });
        }
        let tree = repo
            .find_tree(tree_id)
            .git_ctx(|| format!("find new tree {tree_id}"))?;
        let commit = commit_tree(&repo, Some("HEAD"), &tree, &[&head], message)?;
        let mut index = repo
            .index()
            .git_ctx(|| format!("open the index of {}", self.worktree.display()))?;
        index
            .read_tree(&tree)
            .git_ctx(|| format!("load tree {tree_id} into the worktree index"))?;
        index
            .write()
            .git_ctx(|| format!("write the index of {}", self.worktree.display()))?;
        Ok(CommitOutcome {
            commit: Some(CommitInfo {
                commit: commit.to_string(),
                files_changed: changed_paths(&before, &after).len(),
                diffs: diffs(&repo, &before, &after)?,
            }),
            left_out,
        })
    }

    /// Lightweight tag `aipc/<id>/<stage>` on HEAD, replacing an existing one (a stage re-done
    /// after a rollback). Returns (tag, commit).
    pub fn tag_checkpoint(&self, stage: &str) -> Result<(String, String), CheckpointError> {
        validate_stage(stage)?;
        let repo = self.repo()?;
        let head = self.head_of(&repo)?.id();
        let tag = tag_name(&self.id, stage);
        let refname = format!("refs/tags/{tag}");
        repo.reference(&refname, head, true, &format!("aipc: checkpoint {stage}"))
            .git_ctx(|| format!("create tag {refname} at {head}"))?;
        Ok((tag, head.to_string()))
    }

    /// The session's checkpoint tags with their commits, oldest first (parents before children).
    pub fn checkpoints(&self) -> Result<Vec<(String, String)>, CheckpointError> {
        let repo = self.repo()?;
        let tags = self.tags(&repo)?;
        let mut walk = repo.revwalk().git_ctx(|| "start a revision walk".into())?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)
            .git_ctx(|| "sort a revision walk".into())?;
        for (_, oid) in &tags {
            walk.push(*oid)
                .git_ctx(|| format!("walk from checkpoint commit {oid}"))?;
        }
        if let Ok(base) = Oid::from_str(&self.base).and_then(|b| repo.find_commit(b)) {
            for parent in base.parent_ids() {
                walk.hide(parent)
                    .git_ctx(|| format!("stop the walk at {parent}"))?;
            }
        }
        let mut position = HashMap::new();
        for (i, oid) in walk.enumerate() {
            let oid = oid.git_ctx(|| "walk the session's history".into())?;
            position.insert(oid, i);
        }
        let mut out: Vec<(usize, String, Oid)> = tags
            .into_iter()
            .map(|(tag, oid)| (position.get(&oid).copied().unwrap_or(usize::MAX), tag, oid))
            .collect();
        out.sort();
        Ok(out
            .into_iter()
            .map(|(_, tag, oid)| (tag, oid.to_string()))
            .collect())
    }

    /// Reset branch and worktree hard to a checkpoint tag's commit (`aipc/<id>/<stage>`, its
    /// `refs/tags/` form, or just the stage name): tracked files are restored or removed,
    /// untracked artifacts and ignored files are left alone. Uncommitted changes are lost.
    pub fn rollback_to(&self, tag: &str) -> Result<RollbackInfo, CheckpointError> {
        let repo = self.repo()?;
        self.check_branch(&repo)?;
        let refname = if tag.starts_with("refs/") {
            tag.to_string()
        } else if tag.contains('/') {
            format!("refs/tags/{tag}")
        } else {
            format!("refs/tags/{}", tag_name(&self.id, tag))
        };
        let target = refname
            .starts_with(&tag_ref_prefix(&self.id))
            .then(|| repo.find_reference(&refname).ok())
            .flatten()
            .and_then(|r| r.peel_to_commit().ok());
        let Some(target) = target else {
            let known = self
                .tags(&repo)?
                .into_iter()
                .map(|(t, _)| t)
                .collect::<Vec<_>>();
            return Err(CheckpointError::UnknownCheckpoint {
                tag: tag.to_string(),
                known: if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                },
            });
        };
        let previous = self.head_of(&repo)?.id();
        repo.reset(
            target.as_object(),
            ResetType::Hard,
            Some(CheckoutBuilder::new().force()),
        )
        .git_ctx(|| {
            format!(
                "reset {} hard to {tag} ({})",
                self.worktree.display(),
                target.id()
            )
        })?;
        Ok(RollbackInfo {
            commit: target.id().to_string(),
            previous_head: previous.to_string(),
        })
    }

    /// Reset branch and worktree hard to `rev`, a commit of this session (its base commit when
    /// no stage has a checkpoint yet). Same effect on files as [`SessionRepo::rollback_to`].
    pub fn reset_to(&self, rev: &str) -> Result<RollbackInfo, CheckpointError> {
        let repo = self.repo()?;
        self.check_branch(&repo)?;
        let target = repo
            .revparse_single(rev)
            .and_then(|o| o.peel_to_commit())
            .map_err(|source| CheckpointError::UnknownRevision {
                rev: rev.to_string(),
                repo: self.worktree.clone(),
                source,
            })?;
        let previous = self.head_of(&repo)?.id();
        repo.reset(
            target.as_object(),
            ResetType::Hard,
            Some(CheckoutBuilder::new().force()),
        )
        .git_ctx(|| format!("reset {} hard to {rev}", self.worktree.display()))?;
        Ok(RollbackInfo {
            commit: target.id().to_string(),
            previous_head: previous.to_string(),
        })
    }

    /// Diffs of the worktree against HEAD, without committing (what a human changed during a
    /// takeover). Same file selection as [`SessionRepo::commit_all`].
    pub fn uncommitted_diffs(&self) -> Result<Vec<FileDiff>, CheckpointError> {
        let repo = self.repo()?;
        let head = self.head_of(&repo)?;
        let before = read_commit_tree(Some(&head))?;
        let after = scan(&self.worktree, &before, &self.artifacts, Store::HashOnly)?.tree;
        diffs(&repo, &before, &after)
    }

    /// Diffs between two commits (any revision: a commit id, a tag, `HEAD`).
    pub fn diff_commits(&self, from: &str, to: &str) -> Result<Vec<FileDiff>, CheckpointError> {
        let repo = self.repo()?;
        let before = read_tree(&self.tree_of(&repo, from)?)?;
        let after = read_tree(&self.tree_of(&repo, to)?)?;
        diffs(&repo, &before, &after)
    }

    /// Files in the worktree matching the artifact globs, with sha256 and size, by path.
    pub fn artifacts(&self) -> Result<Vec<Artifact>, CheckpointError> {
        list_artifacts(&self.worktree, &self.artifacts)
    }

    fn repo(&self) -> Result<Repository, CheckpointError> {
        open_worktree(&self.worktree)
    }

    fn head_of<'r>(&self, repo: &'r Repository) -> Result<Commit<'r>, CheckpointError> {
        head_commit(repo)?.ok_or_else(|| CheckpointError::WrongBranch {
            worktree: self.worktree.clone(),
            expected: self.branch(),
            found: "an unborn branch".to_string(),
        })
    }

    fn tree_of<'r>(
        &self,
        repo: &'r Repository,
        rev: &str,
    ) -> Result<git2::Tree<'r>, CheckpointError> {
        repo.revparse_single(rev)
            .and_then(|o| o.peel_to_tree())
            .map_err(|source| CheckpointError::UnknownRevision {
                rev: rev.to_string(),
                repo: self.worktree.clone(),
                source,
            })
    }

    /// The session's tags (full short name `aipc/<id>/<stage>`) with their commits.
    fn tags(&self, repo: &Repository) -> Result<Vec<(String, Oid)>, CheckpointError> {
        let prefix = tag_ref_prefix(&self.id);
        let glob = format!("{prefix}*");
        let refs = repo
            .references_glob(&glob)
            .git_ctx(|| format!("list {glob}"))?;
        let mut out = Vec::new();
        for r in refs {
            let r = r.git_ctx(|| format!("read a ref of {glob}"))?;
            let Some(name) = r.name().and_then(|n| n.strip_prefix("refs/tags/")) else {
                continue;
            };
            let name = name.to_string();
            let commit = r
                .peel_to_commit()
                .git_ctx(|| format!("resolve tag {name} to a commit"))?;
            out.push((name, commit.id()));
        }
        Ok(out)
    }

    /// HEAD of the worktree must be the session's branch before anything moves it.
    fn check_branch(&self, repo: &Repository) -> Result<(), CheckpointError> {
        let expected = branch_ref(&self.id);
        let head = repo
            .find_reference("HEAD")
            .git_ctx(|| format!("read HEAD of {}", self.worktree.display()))?;
        match head.symbolic_target() {
            Some(t) if t == expected => Ok(()),
            other => Err(CheckpointError::WrongBranch {
                worktree: self.worktree.clone(),
                expected: self.branch(),
                found: other.map_or_else(
                    || {
                        format!(
                            "detached at {}",
                            head.target().map_or_else(String::new, |o| o.to_string())
                        )
                    },
                    |t| t.strip_prefix("refs/heads/").unwrap_or(t).to_string(),
                ),
            }),
        }
    }
}

fn project_dir(project: &Path) -> Result<PathBuf, CheckpointError> {
    if !project.is_dir() {
        return Err(CheckpointError::NotADirectory {
            path: project.to_path_buf(),
        });
    }
    canonical(project)
}

fn open_worktree(worktree: &Path) -> Result<Repository, CheckpointError> {
    Repository::open(worktree).map_err(|source| CheckpointError::NoWorktree {
        path: worktree.to_path_buf(),
        source,
    })
}
