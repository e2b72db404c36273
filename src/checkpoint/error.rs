//! [`CheckpointError`]: everything that can go wrong while keeping a session's git history, each
//! variant naming the path or ref involved and, where there is one, what to do about it.

use std::path::{Path, PathBuf};

/// An error of the checkpoint layer. Its `Display` says what failed, where, and what to do.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("project {} is not a directory; pass the project's root directory", path.display())]
    NotADirectory { path: PathBuf },

    #[error(
        "project {} is inside a bare repository ({}); run aipc on a checkout that has a working tree",
        project.display(),
        repo.display()
    )]
    BareRepository { project: PathBuf, repo: PathBuf },

    #[error(
        "session id {id:?} cannot name a git branch; use letters, digits, '.', '_' or '-' \
         (not starting with '.' or '-', no '..', not ending in '.lock')"
    )]
    InvalidSessionId { id: String },

    #[error(
        "stage name {stage:?} cannot name a git tag; use letters, digits, '.', '_' or '-' \
         (not starting with '.' or '-', no '..', not ending in '.lock')"
    )]
    InvalidStageName { stage: String },

    #[error(
        "session {id} already exists ({what} in {}); resume it with `open` or choose another session id",
        repo.display()
    )]
    SessionExists {
        id: String,
        what: String,
        repo: PathBuf,
    },

    #[error(
        "worktree path {} already exists and is not empty; remove it or choose another session id",
        path.display()
    )]
    WorktreePathTaken { path: PathBuf },

    #[error(
        "no session worktree at {}: {source}; was the session created, or was its worktree removed?",
        path.display()
    )]
    NoWorktree { path: PathBuf, source: git2::Error },

    #[error(
        "worktree {} belongs to the repository at {}, not to project {}; pass the project the session was created for",
        worktree.display(),
        repo.display(),
        project.display()
    )]
    ForeignWorktree {
        worktree: PathBuf,
        repo: PathBuf,
        project: PathBuf,
    },

    #[error(
        "worktree {} is not on branch {expected} (HEAD is {found}); run `git switch {expected}` in it",
        worktree.display()
    )]
    WrongBranch {
        worktree: PathBuf,
        expected: String,
        found: String,
    },

    #[error(
        "the base commit of session {id} is not recorded in {}; the worktree was not made by aipc or its admin dir was damaged",
        path.display()
    )]
    BaseUnknown { id: String, path: PathBuf },

    #[error("checkpoint tag {tag} does not exist; known checkpoints: {known}")]
    UnknownCheckpoint { tag: String, known: String },

    #[error("revision {rev:?} cannot be resolved to a commit in {}: {source}", repo.display())]
    UnknownRevision {
        rev: String,
        repo: PathBuf,
        source: git2::Error,
    },

    #[error("artifact glob {glob:?} is invalid: {source}; fix the artifact patterns")]
    InvalidGlob {
        glob: String,
        source: globset::Error,
    },

    #[error("path {} is not valid UTF-8; rename it so it can be recorded", path.display())]
    NonUtf8Path { path: PathBuf },

    #[error("git: {action} failed: {source}")]
    Git { action: String, source: git2::Error },

    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("cannot walk {}: {source}", path.display())]
    Walk {
        path: PathBuf,
        source: ignore::Error,
    },
}

/// Attach what was being done to a `git2` error (the message is built only on failure).
pub(crate) trait GitContext<T> {
    fn git_ctx<F: FnOnce() -> String>(self, action: F) -> Result<T, CheckpointError>;
}

impl<T> GitContext<T> for Result<T, git2::Error> {
    fn git_ctx<F: FnOnce() -> String>(self, action: F) -> Result<T, CheckpointError> {
        self.map_err(|source| CheckpointError::Git {
            action: action(),
            source,
        })
    }
}

/// Attach the operation and path to an I/O error.
pub(crate) trait IoContext<T> {
    fn io_ctx(self, action: &'static str, path: &Path) -> Result<T, CheckpointError>;
}

impl<T> IoContext<T> for Result<T, std::io::Error> {
    fn io_ctx(self, action: &'static str, path: &Path) -> Result<T, CheckpointError> {
        self.map_err(|source| CheckpointError::Io {
            action,
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_says_what_to_do() {
        let e = CheckpointError::BareRepository {
            project: PathBuf::from("/x"),
            repo: PathBuf::from("/x.git"),
        };
        let s = e.to_string();
        assert!(s.contains("project /x is inside a bare repository"), "{s}");
        assert!(s.contains("working tree"), "{s}");
    }

    #[test]
    fn contexts_name_the_action_and_path() {
        let r: Result<(), std::io::Error> = Err(std::io::Error::other("boom"));
        let s = r.io_ctx("read", Path::new("/p/f")).unwrap_err().to_string();
        assert_eq!(s, "cannot read /p/f: boom");
        let r: Result<(), git2::Error> = Err(git2::Error::from_str("bad"));
        let s = r.git_ctx(|| "write tree".into()).unwrap_err().to_string();
        assert_eq!(s, "git: write tree failed: bad");
    }
}
