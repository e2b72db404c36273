//! `aipc run`: deploy a project in a new session — the engine set up from the data directory
//! and the project ([`crate::setup::new_session`]), the target's toolchain made ready, the model
//! opened, then run by [`drive`]: the TUI when stdout is a terminal, else batch progress on
//! stderr (or the line console with `--interactive`), `--json` events on stdout; the report's
//! path at the end. The exit code is the session's ([`crate::engine::exit`]).

use super::args::{GuardArgs, ModelArgs};
use super::drive::{drive, DriveOptions, DrivenSession};
use super::toolchain::ensure_toolchain;
use crate::engine::{exit, Engine, EngineOptions};
use crate::model::{open_backend, store, ModelOptions};
use crate::protocol::Command;
use crate::setup::ExitError;
use crate::{datadir, session};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use tokio::sync::mpsc;

// (No doc comment: the `Run` variant's is the command's help.)
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The project folder (a git repository or a plain folder; never modified).
    project: PathBuf,
    /// Target contract (toolbox/targets/<target>); default: `target` in the project's aipc.toml.
    #[arg(long)]
    target: Option<String>,
    /// The model: scripted:<replies.jsonl>, <file.gguf>, or http://host:port/v1
    /// (default: the fetched default model, see `aipc model fetch`).
    #[arg(long)]
    model: Option<String>,
    /// Zero-human mode: no questions, progress on stderr, report at the end
    /// (implied when stdout is not a terminal).
    #[arg(long, conflicts_with = "interactive")]
    batch: bool,
    /// Interactive mode even when stdout is not a terminal (commands are read from stdin).
    #[arg(long)]
    interactive: bool,
    /// Offer no skills to the model (a control arm).
    #[arg(long)]
    no_skills: bool,
    /// Feed the raw log tail back instead of classified evidence.
    #[arg(long)]
    raw_evidence: bool,
    /// Offer the stage's tools on every turn instead of narrowing them to the calls the
    /// evidence names (the evidence is still shown as text; a DeployBench arm).
    #[arg(long)]
    no_narrowing: bool,
    /// Also print command output and model replies.
    #[arg(long, short)]
    verbose: bool,
    /// Stream the session's events as JSON Lines on stdout (one event per line, as in the
    /// session log; implies --batch; progress stays on stderr).
    #[arg(long, conflicts_with = "interactive")]
    json: bool,
    /// Do not create or refresh the target's venv on demand: exit 3 when it is not ready.
    #[arg(long)]
    no_toolchain_setup: bool,
    /// Execute the run, accuracy and performance stages on the device of this file's `[device]`
    /// table (ssh or adb) instead of the one in the project's aipc.toml (docs/device.md).
    #[arg(long, value_name = "FILE")]
    device: Option<PathBuf>,
    #[command(flatten)]
    model_args: ModelArgs,
    #[command(flatten)]
    guard: GuardArgs,
}

/// Run `aipc run`; returns the exit code.
pub(crate) async fn run(args: RunArgs, data_dir: Option<PathBuf>) -> i32 {
    let batch = args.batch || args.json || (!args.interactive && !std::io::stdout().is_terminal());
    let config = match crate::config::load(Some(&args.project)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::USAGE;
        }
    };
    let device = match args
        .device
        .as_deref()
        .map(crate::device::DeviceConfig::from_flag)
    {
        Some(Ok(device)) => Some(device),
        Some(Err(message)) => {
            eprintln!("error: {message}");
            return exit::USAGE;
        }
        None => None,
    };
    let request = Request {
        data_dir,
        target: args.target.or(config.target.value.clone()),
        model: args.model.or(config.model.value.clone()),
        model_options: args.model_args.options(&config),
        options: EngineOptions {
            batch,
            offer_skills: !args.no_skills,
            classified_evidence: !args.raw_evidence,
            narrow_choices: !args.no_narrowing,
            device,
            ..EngineOptions::default()
        }
        .guarded(args.guard.guard()),
        toolchain_setup: !args.no_toolchain_setup,
        project: args.project,
    };
    let started = match start(request).await {
        Ok(started) => started,
        Err(e) => {
            eprintln!("error: {e}");
            return e.code;
        }
    };
    let options = DriveOptions {
        batch,
        progress: true,
        verbose: args.verbose,
        json_events: args.json,
        report: true,
    };
    drive(started.engine, started.commands, started.session, &options)
        .await
        .exit_code
}

/// What a new session is started from (flags and config resolved).
struct Request {
    data_dir: Option<PathBuf>,
    project: PathBuf,
    target: Option<String>,
    model: Option<String>,
    model_options: ModelOptions,
    options: EngineOptions,
    /// Create or refresh the target's venv when it is not ready.
    toolchain_setup: bool,
}

/// A new session's engine, ready for [`Engine::run`], and what steers it.
struct Started {
    engine: Engine,
    commands: mpsc::UnboundedSender<Command>,
    session: DrivenSession,
}

/// Set up and start the engine of a new session: the quick checks first, then the toolchain
/// (which may install), then the model (which may take a while to load).
async fn start(request: Request) -> Result<Started, ExitError> {
    let data = datadir::locate(request.data_dir.as_deref())
        .map_err(|message| ExitError::new(exit::ENVIRONMENT, message))?;
    let session_id = session::new_session_id();
    let setup = crate::setup::new_session(
        &data,
        &request.project,
        request.target.as_deref(),
        session_id.clone(),
        request.options,
    )?;
    let model_spec = match request.model {
        Some(spec) => spec,
        None => {
            let default = store::default_model_path();
            if !default.is_file() {
                return Err(ExitError::new(
                    exit::MODEL,
                    format!(
                        "no --model given and the default model is not at {}: run `aipc model \
                         fetch` (253 MB), or pass --model <file.gguf>, http://host:port/v1 or \
                         scripted:<replies.jsonl>",
                        default.display()
                    ),
                ));
            }
            default.display().to_string()
        }
    };
    // After the quick checks above, before the model loads: this may install a toolchain.
    ensure_toolchain(&setup.toolchain, request.toolchain_setup)
        .await
        .map_err(|message| ExitError::new(exit::ENVIRONMENT, message))?;
    let model = open_backend(&model_spec, &request.model_options, &data.join("prompts"))
        .map_err(|e| ExitError::new(exit::MODEL, e.to_string()))?;
    let (commands, command_rx) = mpsc::unbounded_channel();
    let session = DrivenSession {
        id: session_id,
        project: request.project,
    };
    let engine = Engine::start(setup, model, command_rx)
        .map_err(|e| ExitError::new(e.exit_code(), e.to_string()))?;
    Ok(Started {
        engine,
        commands,
        session,
    })
}
