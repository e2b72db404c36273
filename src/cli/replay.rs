//! `aipc replay`: a recorded session played in the TUI (speed, pause, steps, jumps), or its
//! Markdown transcript with `--batch` or when stdout is not a terminal.

use super::args::SessionRef;
use super::output::{usage_error, write_stdout};
use crate::engine::exit;
use crate::session::{render_markdown, TranscriptOptions};
use crate::tui::player::Speed;
use crate::tui::player_loop::{run_replay, ReplayOptions};
use clap::Args;
use std::io::IsTerminal;

/// `aipc replay`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    which: SessionRef,
    /// Print the Markdown transcript instead of playing the session in the TUI (also what
    /// replay does when stdout is not a terminal).
    #[arg(long)]
    batch: bool,
    /// Playback speed: 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64 (times the recorded pace) or
    /// `instant`.
    #[arg(long, default_value = "1", value_parser = Speed::parse)]
    speed: Speed,
    /// Open the replay paused at the start.
    #[arg(long)]
    paused: bool,
    /// Also show the messages each model request added (prompts, notes), bounded.
    #[arg(long)]
    prompts: bool,
    /// Lines of each tool observation to show.
    #[arg(long, default_value_t = 20)]
    observation_lines: usize,
}

/// `aipc replay`: the session in the TUI when stdout is a terminal, else (or with `--batch`)
/// the Markdown transcript. A session that cannot be read is an error before the terminal is
/// touched.
pub(crate) fn replay(args: ReplayArgs) -> i32 {
    let recording = match args.which.open() {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    if !args.batch && std::io::stdout().is_terminal() {
        let options = ReplayOptions {
            speed: args.speed,
            paused: args.paused,
        };
        return match run_replay(recording, options) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: {e:#}");
                exit::ENVIRONMENT
            }
        };
    }
    let options = TranscriptOptions {
        prompts: args.prompts,
        observation_lines: args.observation_lines,
        ..TranscriptOptions::default()
    };
    write_stdout(&render_markdown(&recording, &options))
}
