//! Driving a started engine to its end, for `aipc run`, `aipc resume` and `aipc rerun`: the one
//! place that wires the engine to its consumers and command producers.
//!
//! - A terminal on stdout gets the TUI ([`crate::tui::run_live`]) unless the run is batch;
//!   otherwise the batch printer writes progress on stderr (with a live status line when stderr
//!   is a terminal), and a run that is not batch (`--interactive` without a terminal) reads the
//!   engineer's commands from stdin (the line console, [`crate::console`]).
//! - `--json`: the events as JSON Lines on stdout ([`crate::json_stream`]).
//! - SIGINT (Ctrl-C; in the TUI, whose terminal is raw, it is a key instead), SIGTERM and SIGHUP
//!   abort the session ([`super::signals`]).
//! - At the end, when asked: the outcome after the TUI closed (on stderr), and the report's
//!   path on stdout (not with `--json`, whose stdout holds only the events).

use super::signals;
use crate::checkpoint::SessionRepo;
use crate::engine::{Engine, RunOutcome};
use crate::protocol::Command;
use crate::session::SessionPaths;
use crate::{console, json_stream, printer, tui};
use std::io::IsTerminal;
use std::path::PathBuf;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

/// How to drive a run.
#[derive(Debug, Clone)]
pub(crate) struct DriveOptions {
    /// Nobody steers: no TUI and no line console (`--batch`, `--json`, stdout not a terminal
    /// without `--interactive`).
    pub(crate) batch: bool,
    /// Progress on stderr when there is no TUI.
    pub(crate) progress: bool,
    /// Also print command output and model replies (the batch printer).
    pub(crate) verbose: bool,
    /// Stream the events as JSON Lines on stdout (`run --json`).
    pub(crate) json_events: bool,
    /// Say how the session ended: its outcome after the TUI, its report's path on stdout.
    pub(crate) report: bool,
}

/// The session an engine runs, as the TUI needs it (for the diffs between checkpoints).
pub(crate) struct DrivenSession {
    pub(crate) id: String,
    /// The project folder the session belongs to.
    pub(crate) project: PathBuf,
}

/// Run `engine` to its end, its events shown and `commands` fed as `how` says.
pub(crate) async fn drive(
    engine: Engine,
    commands: mpsc::UnboundedSender<Command>,
    session: DrivenSession,
    how: &DriveOptions,
) -> RunOutcome {
    let use_tui = !how.batch && std::io::stdout().is_terminal();
    let stopped = signals::abort_on_signals(commands.clone());
    let json_stream = how.json_events.then(|| {
        let log = SessionPaths::from_dir(engine.session_dir()).events;
        tokio::spawn(json_stream::stream_events(
            engine.subscribe(),
            log,
            0,
            std::io::stdout(),
        ))
    });
    let mut printer = None;
    let mut ui = None;
    if use_tui {
        let worktree = engine.session_dir().join("worktree");
        let (project, session_id) = (session.project, session.id);
        let live = tui::LiveSession {
            events: engine.subscribe(),
            commands: commands.clone(),
            session_dir: engine.session_dir().to_path_buf(),
            stop: stopped,
            stage_diffs: Box::new(move |from, to| {
                SessionRepo::open(&project, &session_id, &worktree, &[])
                    .and_then(|repo| repo.diff_commits(from, to))
                    .map_err(|e| e.to_string())
            }),
        };
        ui = Some(tokio::task::spawn_blocking(move || tui::run_live(live)));
    } else if how.progress {
        printer = Some(tokio::spawn(printer::print_events_with_status(
            engine.subscribe(),
            std::io::stderr(),
            how.verbose,
            std::io::stderr().is_terminal(),
        )));
    }
    if !how.batch && !use_tui {
        spawn_console(commands.clone());
    }
    drop(commands);
    let outcome = engine.run().await;
    if let Some(printer) = printer {
        let _ = printer.await;
    }
    if let Some(stream) = json_stream {
        let _ = stream.await;
    }
    if let Some(ui) = ui {
        match ui.await {
            Ok(Ok(())) if how.report => eprintln!(
                "aipc: session {} (exit {})",
                outcome.outcome.word(),
                outcome.exit_code
            ),
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("error: the TUI failed: {e:#}"),
            Err(e) => eprintln!("error: the TUI failed: {e}"),
        }
    }
    if let (Some(report), true, false) = (&outcome.report_md, how.report, how.json_events) {
        println!("{}", report.display());
    }
    outcome
}

/// The line console: the engineer's commands from stdin, one a line.
fn spawn_console(commands: mpsc::UnboundedSender<Command>) {
    eprintln!(
        "interactive: type commands (pause, resume, approve <call>, hint <text>, retry, skip, abort …)"
    );
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            match console::parse_line(&line) {
                Ok(Some(command)) => {
                    if commands.send(command).is_err() {
                        break;
                    }
                }
                Ok(None) => {}
                Err(message) => eprintln!("  {message}"),
            }
        }
    });
}
