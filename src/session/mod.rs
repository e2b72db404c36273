//! The session record: one folder per session under `<project>/.aipc/sessions/<id>/`, holding
//! the append-only event log (`events.jsonl`), `meta.json`, the reports, the worktree and logs.
//!
//! Submodules (one concern each):
//! - [`id`]: session ids and UTC time stamps.
//! - [`paths`]: where each file of a session lives.
//! - [`meta`]: `meta.json`, written atomically, with a format-version check on read.
//! - [`writer`]: [`EventLog`], the append-only writer (with torn-tail repair on resume).
//! - [`reader`]: [`read_events`], the strict reader that tolerates only a torn last line.
//! - [`list`]: [`list_sessions`] and the `aipc sessions` table.
//! - [`locate`]: [`resolve_session`], a session from what the user typed (id, part, path).
//! - [`recording`]: [`Recording`], a session opened for reading: events, index, seek — the
//!   event source of replay, rerun, resume, show and export.
//! - [`transcript`]: the Markdown transcript (`replay --batch`, `export --format md`).
//! - [`show`]: the one-page summary of `aipc sessions show`.
//! - [`export`]: `aipc sessions export --format md|json`.
//! - [`gc`]: `aipc sessions gc`, removing old sessions with their worktrees and refs.
//! - [`synth`]: synthetic sessions of any size, and the replay benchmark over them.
//! - [`error`]: the error type, [`SessionError`].

pub mod error;
pub mod export;
pub mod gc;
pub mod id;
pub mod list;
pub mod locate;
pub mod markdown;
pub mod meta;
pub mod paths;
pub mod reader;
pub mod recording;
pub mod show;
pub mod synth;
pub mod tail;
pub mod view;
pub mod writer;

pub use error::SessionError;
pub use id::{new_session_id, now_rfc3339};
pub use list::{format_sessions_table, list_sessions, SessionSummary};
pub use locate::resolve_session;
pub use markdown::{render_markdown, TranscriptOptions};
pub use meta::{read_meta, write_meta, Meta};
pub use paths::SessionPaths;
pub use reader::{read_events, ReadLog, TornTail};
pub use recording::{Mark, Recording, RecordingIndex};
pub use tail::LogTail;
pub use view::SessionView;
pub use writer::EventLog;
