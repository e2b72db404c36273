//! The command line (clap): the [`Cli`] definition and the dispatch to one file per command.
//!
//! Files (one concern each):
//! - [`init`]: `aipc init`, aipc.toml and hooks for a project folder.
//! - [`run`]: `aipc run`, a new session; [`resume`]: `aipc resume`; [`rerun`]: `aipc rerun`.
//! - [`drive`]: the one place that runs an engine and wires it to its consumers (the TUI, or the
//!   batch printer and the line console; the JSON stream; Ctrl-C), for all three.
//! - [`replay`]: `aipc replay`; [`sessions`]: `aipc sessions list|show|export|gc`.
//! - [`bench`]: `aipc bench model|deploy|replay|tui`; [`model`]: `aipc model fetch|list|info`;
//!   [`toolchain`]: `aipc toolchain setup|list` (and the on-demand setup of `run`).
//! - [`doctor`]: `aipc doctor`; [`config`]: `aipc config show`; [`generated`]: `aipc
//!   completions` and `aipc man`.
//! - [`args`]: the arguments several commands share (the model's, which session);
//!   [`output`]: how a command prints its result (JSON or text, a closed pipe, errors).
//!
//! Every command returns its process exit code ([`crate::engine::exit`]).

mod args;
mod bench;
mod config;
mod doctor;
mod drive;
mod generated;
mod init;
mod model;
mod output;
mod replay;
mod rerun;
mod resume;
mod run;
mod sessions;
mod signals;
mod toolchain;

use crate::engine::exit;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "aipc",
    version,
    long_version = crate::build_info::LONG_VERSION,
    about = "A local language model deploys a PyTorch project onto an edge runtime, stage by stage, under checks that decide."
)]
pub(crate) struct Cli {
    /// The data directory (prompts/, skills/, toolbox/); default: found next to the binary.
    #[arg(long, global = true, env = "AIPC_DATA_DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Make a project folder deployable: write aipc.toml and aipc_hooks.py (the model from the
    /// project, timm or transformers; synthetic inputs where none are given), then check them
    /// before any toolchain is installed (exit 2 with file:line).
    Init(init::InitArgs),
    /// Deploy a project: run the target contract's stages in a session worktree.
    Run(run::RunArgs),
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: bench::BenchWhat,
    },
    /// Recorded sessions: list (default), show, export, gc.
    Sessions(sessions::SessionsArgs),
    /// Play a recorded session in the TUI (speed, pause, steps, jumps to stages and failures);
    /// with --batch or when stdout is not a terminal, print it as a Markdown transcript.
    Replay(replay::ReplayArgs),
    /// Re-execute a recorded session with its recorded model outputs; report the first
    /// divergence (exit 6) or none (exit 0).
    Rerun(rerun::RerunArgs),
    /// Continue an interrupted session from its last checkpoint, in the same log.
    Resume(resume::ResumeArgs),
    /// Models: fetch the default one, list the local ones, describe a GGUF file.
    Model {
        #[command(subcommand)]
        action: model::ModelAction,
    },
    /// Toolchains: the per-target venvs under the cache (set up, list).
    Toolchain {
        #[command(subcommand)]
        action: toolchain::ToolchainAction,
    },
    /// Check what a deployment needs (python3, the data folders, the default model, each
    /// target's toolchain); print the command that fixes each item that is not ready. Exit 3
    /// when something needed is not ready.
    Doctor(doctor::DoctorArgs),
    /// Print a shell completion script, e.g. `aipc completions bash > /etc/bash_completion.d/aipc`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `aipc man > ~/.local/share/man/man1/aipc.1`.
    Man,
    /// Settings: `show` prints the effective model, threads, ctx, target and HTTP timeout and
    /// where each comes from (~/.config/aipc/config.toml, <project>/.aipc/config.toml, AIPC_*).
    Config {
        #[command(subcommand)]
        action: config::ConfigAction,
    },
}

/// Parse the command line, run, and return the process exit code.
pub async fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let data_dir = cli.data_dir;
    match cli.command {
        Commands::Init(args) => init::init(args),
        Commands::Run(args) => run::run(args, data_dir).await,
        Commands::Bench { what } => bench::bench(what, data_dir).await,
        Commands::Sessions(args) => sessions::sessions(args),
        Commands::Replay(args) => replay::replay(args),
        Commands::Rerun(args) => rerun::rerun(args, data_dir).await,
        Commands::Resume(args) => resume::resume(args, data_dir).await,
        Commands::Model { action } => model::model(action),
        Commands::Toolchain { action } => toolchain::toolchain(data_dir.as_deref(), action).await,
        Commands::Doctor(args) => doctor::doctor(args, data_dir.as_deref()),
        Commands::Completions { shell } => generated::completions(shell),
        Commands::Man => generated::man(),
        Commands::Config { action } => config::config(action),
    }
}
