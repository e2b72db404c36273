//! `aipc resume`: continue an interrupted session from its last checkpoint
//! ([`crate::resume`]), run by [`drive`] like `aipc run`: the TUI when stdout is a terminal
//! (unless `--batch`), else progress on stderr (and the line console with `--interactive`);
//! the report's path at the end.

use super::args::{GuardArgs, ModelArgs, SessionRef};
use super::drive::{drive, DriveOptions, DrivenSession};
use crate::engine::exit;
use crate::resume::Resumed;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

/// `aipc resume`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ResumeArgs {
    #[command(flatten)]
    which: SessionRef,
    /// The model to continue with (default: the recorded one).
    #[arg(long)]
    model: Option<String>,
    /// Zero-human mode (implied when stdout is not a terminal).
    #[arg(long, conflicts_with = "interactive")]
    batch: bool,
    /// Interactive mode even when stdout is not a terminal (commands are read from stdin).
    #[arg(long)]
    interactive: bool,
    /// Also print command output and model replies.
    #[arg(long, short)]
    verbose: bool,
    #[command(flatten)]
    model_args: ModelArgs,
    #[command(flatten)]
    guard: GuardArgs,
}

/// Run `aipc resume`; returns the exit code (a session that had already ended: its recorded
/// one).
pub(crate) async fn resume(args: ResumeArgs, data_dir: Option<PathBuf>) -> i32 {
    let batch = args.batch || (!args.interactive && !std::io::stdout().is_terminal());
    // The user's config and AIPC_* (a session's project config is read by the run it resumes).
    let config = match crate::config::load(None) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::USAGE;
        }
    };
    let resumed = crate::resume::start(crate::resume::ResumeArgs {
        session: args.which.session,
        project: args.which.project,
        data_dir,
        model: args.model,
        model_options: args.model_args.options(&config),
        batch,
        guard: args.guard.guard(),
    });
    let ready = match resumed {
        Ok(Resumed::Ready(ready)) => *ready,
        Ok(Resumed::Finished { exit_code }) => return exit_code,
        Err(e) => {
            eprintln!("error: {e}");
            return e.code;
        }
    };
    let session = DrivenSession {
        id: ready.session_id,
        project: ready.project,
    };
    let options = DriveOptions {
        batch,
        progress: true,
        verbose: args.verbose,
        json_events: false,
        report: true,
    };
    drive(ready.engine, ready.commands, session, &options)
        .await
        .exit_code
}
