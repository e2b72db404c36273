//! Finding the repository a project's sessions live in: the user's git repository (the project
//! may be a subdirectory of it), or, for a project outside git, a bare repository of aipc's own
//! at `<project>/.aipc/repo.git`.

use super::error::{CheckpointError, GitContext, IoContext};
use super::names::AIPC_DIR;
use git2::{ErrorCode, Repository, RepositoryInitOptions};
use std::path::{Path, PathBuf};

/// The repository that holds a project's sessions.
pub(crate) struct Host {
    pub repo: Repository,
    /// The directory whose files make the session's base: the repository's working tree, or the
    /// project itself when it is not in git.
    pub root: PathBuf,
    /// The project's path inside `root` (empty when the project is the root).
    pub subpath: PathBuf,
    /// Whether this is the user's repository (as opposed to aipc's own bare one).
    pub is_user_repo: bool,
}

/// Where aipc keeps the repository of a project that is not in git.
pub(crate) fn plain_repo_path(project: &Path) -> PathBuf {
    project.join(AIPC_DIR).join("repo.git")
}

/// Canonical form of an existing directory, with the path in the error.
pub(crate) fn canonical(path: &Path) -> Result<PathBuf, CheckpointError> {
    path.canonicalize().io_ctx("resolve", path)
}

/// Locate (and with `create`, make) the repository for `project`, which must be a canonical path
/// to an existing directory.
pub(crate) fn locate(project: &Path, create: bool) -> Result<Host, CheckpointError> {
    match Repository::discover(project) {
        Ok(repo) => {
            let Some(workdir) = repo.workdir() else {
                return Err(CheckpointError::BareRepository {
                    project: project.to_path_buf(),
                    repo: repo.path().to_path_buf(),
                });
            };
            let root = canonical(workdir)?;
            let subpath = project
                .strip_prefix(&root)
                .map(Path::to_path_buf)
                .map_err(|_| CheckpointError::BareRepository {
                    // Only reachable for a project inside the `.git` directory itself.
                    project: project.to_path_buf(),
                    repo: repo.path().to_path_buf(),
                })?;
            Ok(Host {
                repo,
                root,
                subpath,
                is_user_repo: true,
            })
        }
        Err(e) if e.code() == ErrorCode::NotFound => {
            let path = plain_repo_path(project);
            let repo = if path.join("HEAD").exists() || !create {
                Repository::open_bare(&path)
                    .git_ctx(|| format!("open aipc's repository {}", path.display()))?
            } else {
                let mut opts = RepositoryInitOptions::new();
                opts.bare(true).mkpath(true).initial_head("main");
                Repository::init_opts(&path, &opts)
                    .git_ctx(|| format!("create aipc's repository {}", path.display()))?
            };
            Ok(Host {
                repo,
                root: project.to_path_buf(),
                subpath: PathBuf::new(),
                is_user_repo: false,
            })
        }
        Err(e) => Err(e).git_ctx(|| format!("look for a git repository at {}", project.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_user_repo_with_subpath() {
        let d = tempfile::tempdir().unwrap();
        let root = canonical(d.path()).unwrap();
        Repository::init(&root).unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        let host = locate(&root.join("a/b"), true).unwrap();
        assert!(host.is_user_repo);
        assert_eq!(host.root, root);
        assert_eq!(host.subpath, PathBuf::from("a/b"));
    }

    #[test]
    fn bare_repository_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let root = canonical(d.path()).unwrap();
        Repository::init_bare(&root).unwrap();
        std::fs::create_dir_all(root.join("objects/x")).unwrap();
        let e = locate(&root.join("objects/x"), true).err().unwrap();
        assert!(matches!(e, CheckpointError::BareRepository { .. }), "{e}");
        assert!(e.to_string().contains("inside a bare repository"));
    }

    #[test]
    fn plain_directory_gets_a_bare_repo_under_aipc() {
        let d = tempfile::tempdir().unwrap();
        let root = canonical(d.path()).unwrap();
        assert!(locate(&root, false).is_err());
        let host = locate(&root, true).unwrap();
        assert!(!host.is_user_repo);
        assert!(host.repo.is_bare());
        assert!(root.join(".aipc/repo.git/HEAD").exists());
        assert!(locate(&root, false).is_ok());
    }
}
