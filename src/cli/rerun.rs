//! `aipc rerun`: re-execute a recorded session with its recorded model outputs
//! ([`crate::rerun`]), run by [`drive`] — in the TUI when stdout is a terminal (not with `--json`
//! or `--quiet`), else with progress on stderr unless `--quiet` — then print the comparison
//! with the recording (text, or one JSON object with `--json`): exit 0 when nothing diverged,
//! 6 when something did.

use super::args::SessionRef;
use super::drive::{drive, DriveOptions, DrivenSession};
use crate::engine::exit;
use crate::rerun::compare::CompareOptions;
use crate::rerun::{report_text, RerunResult};
use crate::sandbox::SandboxMode;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

/// `aipc rerun`.
#[derive(Debug, Clone, Args)]
pub(crate) struct RerunArgs {
    #[command(flatten)]
    which: SessionRef,
    /// Stop after this event seq (as numbered in the recording; the numbering agrees until the
    /// first divergence) or after this stage, and leave the worktree in that state.
    #[arg(long)]
    until: Option<String>,
    /// Re-run in this project folder instead of the recorded one: for a shipped recording
    /// (`sessions/<name>`) whose project is a copy of an example. Without the recorded base
    /// commit the re-run starts from a snapshot of this folder, whose files must be the ones the
    /// recording started from.
    #[arg(long, value_name = "PROJECT")]
    from: Option<PathBuf>,
    /// Relative tolerance for metric values that are not timings.
    #[arg(long, default_value_t = 1e-4)]
    tolerance: f64,
    /// Compare gate outcomes only, no metric values.
    #[arg(long)]
    gates_only: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Also print command output and model replies.
    #[arg(long, short)]
    verbose: bool,
    /// Where commands run (default: the recorded contract's mode, else strict); `off` is
    /// recorded in the re-run.
    #[arg(long, value_enum)]
    sandbox: Option<SandboxMode>,
}

/// Run `aipc rerun`; returns the exit code.
pub(crate) async fn rerun(args: RerunArgs, data_dir: Option<PathBuf>) -> i32 {
    let request = crate::rerun::RerunArgs {
        session: args.which.session,
        project: args.which.project,
        from: args.from,
        data_dir,
        until: args.until,
        compare: CompareOptions {
            metric_tolerance: (!args.gates_only).then_some(args.tolerance.max(0.0)),
        },
        sandbox: args.sandbox,
    };
    let ready = match crate::rerun::start(&request) {
        Ok(ready) => ready,
        Err(e) => {
            eprintln!("error: {e}");
            return e.code;
        }
    };
    let comparison = ready.comparison;
    if !args.quiet {
        eprintln!(
            "re-running session {} as {} from {}",
            comparison.recorded_session, comparison.rerun_session, comparison.base_commit
        );
    }
    let session = DrivenSession {
        id: comparison.rerun_session.clone(),
        project: ready.project,
    };
    // The engine asks nothing (a re-run is a batch run); the TUI is there to watch it, so it
    // opens on a terminal unless the result is wanted alone (`--json`, `--quiet`). The
    // comparison, not the re-run's report, is what this command prints.
    let options = DriveOptions {
        batch: args.json || args.quiet || !std::io::stdout().is_terminal(),
        progress: !args.quiet,
        verbose: args.verbose,
        json_events: false,
        report: false,
    };
    let outcome = drive(ready.engine, ready.commands, session, &options).await;
    match comparison.compare(&outcome.session_dir) {
        Ok(result) => print_result(&result, args.json),
        Err(e) => {
            eprintln!("error: {e}");
            e.code
        }
    }
}

/// Print the result (one JSON object or the text); exit 6 when something diverged.
fn print_result(result: &RerunResult, json: bool) -> i32 {
    if json {
        match serde_json::to_string(result) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("error: {e}");
                return exit::ENVIRONMENT;
            }
        }
    } else {
        print!("{}", report_text(result));
    }
    if result.divergence.is_some() {
        exit::DIVERGED
    } else {
        0
    }
}
