//! The terminal workbench (ratatui + crossterm): watch the engine work, pause, step, approve,
//! take over and hand back. It consumes [`crate::protocol::EventEnvelope`]s and sends
//! [`crate::protocol::Command`]s; there is no engine logic in it.
//!
//! Files (one concern each):
//! - [`state`]: [`state::TuiState`], a pure reducer over events (what the views show);
//!   [`transcript`] its transcript cells, [`logbuf`] its bounded, spilling log buffer.
//! - [`app`]: focus, scrolling, overlays, and keys/mouse → commands; [`keys`] the key table,
//!   [`prompt`] text prompts and pickers, [`takeover`] the engineer's shell or editor.
//! - [`views`]: drawing, one file per view; [`ansi`] toolchain colours, [`unified_diff`] diffs.
//! - [`source`]: where events come from (live engine now, a recording for replay);
//!   [`live`] the loop; [`terminal`] raw mode, alternate screen, panic hook, suspend/resume.
//! - [`replay`]: `aipc replay`'s controller — position, play/pause, speed, steps and jumps over a
//!   recorded session, feeding the same reducer as a live run; [`player_loop`] its terminal loop;
//!   [`shared`] the copy-on-write list that makes its state snapshots cheap.
//! - [`bench`]: `aipc bench tui`, the ingest and frame-time benchmark.

pub mod ansi;
pub mod app;
pub mod cells;
pub mod keys;
pub mod live;
pub mod logbuf;
pub mod player;
pub mod player_loop;
pub mod prompt;
pub mod shared;
pub mod source;
pub mod stage_diffs;
pub mod state;
pub mod takeover;
pub mod terminal;
pub mod unified_diff;
pub mod views;

#[cfg(test)]
mod tests;

use crate::protocol::{Command, EventEnvelope};
use stage_diffs::StageDiffs;
use std::path::PathBuf;
use tokio::sync::{broadcast, mpsc};

/// The spill file of the log pane, in the session folder.
pub const LOG_SPILL_FILE: &str = "tui-log-spill.txt";

/// What the live TUI needs from the CLI: the event stream, the command channel, the session
/// folder (its log, for gaps; the log pane's spill file), and where stage diffs come from.
pub struct LiveSession {
    pub events: broadcast::Receiver<EventEnvelope>,
    pub commands: mpsc::UnboundedSender<Command>,
    pub session_dir: PathBuf,
    /// A stage's diff between two commits (git; computed on a worker thread).
    pub stage_diffs: StageDiffs,
    /// Set when a signal aborted the session: the TUI closes and gives the terminal back.
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// Run the TUI on the calling (blocking) thread until the engineer quits. If the TUI fails,
/// the session is aborted, so the engine never waits for an engineer who is gone.
pub fn run_live(session: LiveSession) -> anyhow::Result<()> {
    let LiveSession {
        events,
        commands,
        session_dir,
        stage_diffs,
        stop,
    } = session;
    let log = logbuf::LogBuf::new(
        Some(session_dir.join(LOG_SPILL_FILE)),
        logbuf::DEFAULT_MEMORY_CAP,
    );
    let mut state = state::TuiState::new(log);
    let mut app = app::App::new(false).with_stage_diffs(stage_diffs);
    let mut source = source::LiveSource::spawn(events, session_dir.join("events.jsonl"));
    let result = terminal::Term::enter().and_then(|mut term| {
        let mut send = |command: Command| commands.send(command).is_ok();
        live::run(
            &mut term,
            &mut source,
            &mut state,
            &mut app,
            &mut send,
            &stop,
        )
    });
    if result.is_err() && state.finished.is_none() {
        let _ = commands.send(Command::Abort);
    }
    result
}
