//! Errors of the session record. Each names the file (and line, where there is one) and says
//! what to do about it.

use std::path::PathBuf;

/// Everything that can go wrong reading or writing a session's files.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A file-system operation failed.
    #[error("cannot {op} {path}: {source}; check that the path exists and is writable")]
    Io {
        /// What was being done, e.g. `open`, `write to`, `rename onto`.
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `EventLog::create` found a log already there.
    #[error(
        "{path} already exists; a session's event log is never overwritten: \
         resume it with open_append, or start a new session id"
    )]
    LogExists { path: PathBuf },
    /// A line of `events.jsonl` that is not the torn tail does not parse.
    #[error(
        "{path}:{line}: {source}; the log is corrupted at this line \
         ({good} events before it read fine)"
    )]
    Corrupt {
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// How many events before this line parsed.
        good: usize,
        #[source]
        source: serde_json::Error,
    },
    /// Sequence numbers are not contiguous from 0.
    #[error(
        "{path}:{line}: event seq {found}, expected {expected}; the log has a gap or a repeat \
         at this line (events must be numbered 0, 1, 2, … without gaps)"
    )]
    SeqGap {
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        expected: u64,
        found: u64,
    },
    /// `EventLog::append` was given an envelope out of order.
    #[error(
        "refusing to append seq {found} to {path}: the next seq is {expected}; \
         number envelopes with EventLog::next_seq"
    )]
    OutOfOrder {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    /// A value could not be turned into JSON.
    #[error("cannot encode JSON for {path}: {source}")]
    Encode {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// `meta.json` does not parse.
    #[error(
        "{path}:{line}: {source}; meta.json is not valid session metadata \
         (restore it, or delete the session folder)"
    )]
    MetaInvalid {
        path: PathBuf,
        /// 1-based line number (serde_json's; 0 when it has none).
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    /// `meta.json` was written by a newer aipc.
    #[error(
        "{path}: session format version {found} is newer than this aipc supports \
         (version {supported}); upgrade aipc to read this session"
    )]
    MetaTooNew {
        path: PathBuf,
        found: u64,
        supported: u32,
    },
    /// `meta.json` was written in a format this build no longer reads (or has no version).
    #[error(
        "{path}: session format version {found} is older than this aipc reads \
         (versions {oldest} to {newest}); replay it with the aipc release that recorded it, \
         or remove it with `aipc sessions gc`"
    )]
    MetaTooOld {
        path: PathBuf,
        /// 0 when `format_version` is missing.
        found: u64,
        oldest: u32,
        newest: u32,
    },
    /// No session matches what was typed.
    #[error(
        "no session \"{arg}\" in {root} (sessions there: {known}); give a session id, a \
         unique part of one, `last`, or a session folder (use --project for another project)"
    )]
    NotFound {
        arg: String,
        root: PathBuf,
        known: String,
    },
    /// Several sessions match what was typed.
    #[error("\"{arg}\" matches {count} sessions: {matches}; give more of the id", count = matches.split(", ").count())]
    Ambiguous { arg: String, matches: String },
    /// The session has no `events.jsonl`.
    #[error(
        "{path}: no event log; this folder is not a recorded session (or it was never started)"
    )]
    NoLog { path: PathBuf },
    /// A session file that is not a regular file (a FIFO, a device, a folder) or is larger
    /// than its cap: refused before it is read (see [`crate::safe_read`]).
    #[error("{0}")]
    Unreadable(#[from] crate::safe_read::SafeReadError),
    /// A line of `events.jsonl` longer than any event is.
    #[error(
        "{path}:{line}: the line is {bytes} bytes, over the limit of {cap} bytes for one \
         event; the log is corrupted at this line ({good} events before it read fine)"
    )]
    LineTooLong {
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        bytes: usize,
        cap: u64,
        /// How many events before this line parsed.
        good: usize,
    },
    /// A line of `events.jsonl` is an event of a kind this build does not know.
    #[error(
        "{path}:{line}: unknown event type \"{kind}\" ({good} events before it read fine); \
         the log was written by a newer aipc (this one reads session format versions \
         {oldest} to {newest}): upgrade aipc to read it"
    )]
    UnknownEvent {
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        good: usize,
        kind: String,
        oldest: u32,
        newest: u32,
    },
}

impl SessionError {
    /// Wrap an I/O error with the operation and path it belongs to.
    pub(crate) fn io(op: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        SessionError::Io {
            op,
            path: path.to_path_buf(),
            source,
        }
    }
}
