//! The error type of the tools module: why a path was refused or a file operation failed.
//!
//! Every variant's `Display` text is written for the model: it says what went wrong and,
//! where it can, what to do instead.

use std::path::PathBuf;

/// A tool-level failure. Its message becomes the observation of an `ok: false` result.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The workspace root itself is unusable.
    #[error("workspace root {path}: {reason}")]
    BadRoot { path: PathBuf, reason: String },
    /// A path argument that is not a usable relative path.
    #[error("invalid path `{path}`: {reason}")]
    InvalidPath { path: String, reason: String },
    /// A path argument that leads outside the workspace.
    #[error("path `{path}` is outside the workspace: {reason}. Use a path relative to the workspace root.")]
    OutsideWorkspace { path: String, reason: String },
    /// A write into the repository's `.git` directory.
    #[error("path `{path}` is inside .git; the repository's metadata cannot be written")]
    GitDir { path: String },
    /// A path git cannot store (an alias of `.git`, a backslash, a control character): written,
    /// it would make every commit of the session fail.
    #[error(
        "path `{path}` cannot be written: {problem}. Git cannot record such a name in the \
         session's commits; nothing was written. Choose another name: not `.git` in any \
         spelling (case, trailing dots or spaces, `git~1`, `:`), and without backslashes or \
         control characters."
    )]
    GitName {
        path: String,
        problem: crate::git_name::NameProblem,
    },
    /// The path does not exist. `nearby` says what its nearest existing folder holds (empty, or
    /// starting with "; "): a small model often copies a file name from an example.
    #[error("`{path}` does not exist{nearby}")]
    NotFound { path: String, nearby: String },
    /// An I/O error on a path.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl ToolError {
    /// A file that [`crate::safe_read`] would not read, named by its workspace-relative path:
    /// not there or unreadable is an I/O error; not a regular file (a FIFO a command made) or
    /// too large is an invalid path, saying what it is.
    pub(crate) fn unreadable(path: &str, e: crate::safe_read::SafeReadError) -> Self {
        match e.problem {
            crate::safe_read::Problem::Io(source) => ToolError::io(path, source),
            other => ToolError::InvalidPath {
                path: path.to_string(),
                reason: other.to_string(),
            },
        }
    }

    /// Wrap an I/O error with the (workspace-relative) path it happened on.
    pub fn io(path: impl Into<String>, source: std::io::Error) -> Self {
        ToolError::Io {
            path: path.into(),
            source,
        }
    }
}
