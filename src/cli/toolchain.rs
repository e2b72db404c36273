//! `aipc toolchain setup|list`: the per-target venvs under the cache, and the on-demand setup
//! `aipc run` does before a session ([`ensure_toolchain`]); progress goes to stderr, results to
//! stdout.

use crate::datadir;
use crate::engine::exit;
use crate::toolchain::setup::{setup, SetupOutcome};
use crate::toolchain::{list_targets, probe, Toolchain, VenvState};
use clap::Subcommand;
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// `aipc toolchain …`.
#[derive(Debug, Subcommand)]
pub(crate) enum ToolchainAction {
    /// Create (or refresh) a target's venv under the cache
    /// (<cache>/toolchains/<target>/venv) from toolbox/targets/<target>/requirements.txt;
    /// a venv that is ready for the current requirements is reused. Exit 3 when it fails.
    Setup {
        /// The target, e.g. onnxruntime-cpu.
        target: String,
        /// Remove the venv first and install from scratch.
        #[arg(long)]
        force: bool,
    },
    /// Show each target's venv and its state (missing / stale / ready).
    List {
        /// Print one JSON array of {target, state, venv}.
        #[arg(long)]
        json: bool,
    },
}

/// Run `aipc toolchain <action>`; returns the exit code.
pub(crate) async fn toolchain(data_dir: Option<&Path>, action: ToolchainAction) -> i32 {
    let data = match datadir::locate(data_dir) {
        Ok(dir) => dir,
        Err(message) => {
            eprintln!("error: {message}");
            return exit::ENVIRONMENT;
        }
    };
    let toolbox = data.join("toolbox");
    let targets = list_targets(&toolbox.join("targets"));
    match action {
        ToolchainAction::List { json: true } => {
            let rows: Vec<serde_json::Value> = targets
                .iter()
                .map(|target| {
                    let toolchain = Toolchain::locate(&toolbox, target);
                    serde_json::json!({
                        "target": target,
                        "state": toolchain.state().word(),
                        "venv": toolchain.venv.as_ref().map(|v| v.display().to_string()),
                        "installed_from": toolchain.venv.as_ref().map(|_| toolchain.install_source().0.display().to_string()),
                    })
                })
                .collect();
            println!("{}", serde_json::Value::Array(rows));
            0
        }
        ToolchainAction::List { json: false } => {
            if targets.is_empty() {
                println!("no targets in {}", toolbox.join("targets").display());
                return 0;
            }
            println!("{:<26} {:<12} venv", "target", "state");
            for target in &targets {
                let toolchain = Toolchain::locate(&toolbox, target);
                let venv = match &toolchain.venv {
                    Some(venv) => venv.display().to_string(),
                    None => {
                        "(none: no requirements.txt, commands use the ambient PATH)".to_string()
                    }
                };
                println!("{target:<26} {:<12} {venv}", toolchain.state().word());
            }
            0
        }
        ToolchainAction::Setup { target, force } => {
            if !targets.contains(&target) {
                eprintln!(
                    "error: unknown target \"{target}\"; available targets: {}",
                    targets.join(", ")
                );
                return exit::USAGE;
            }
            let toolchain = Toolchain::locate(&toolbox, &target);
            match setup_with_progress(&toolchain, force).await {
                Ok(()) => 0,
                Err(message) => {
                    eprintln!("error: {message}");
                    exit::ENVIRONMENT
                }
            }
        }
    }
}

/// Set up `toolchain`, progress on stderr, the outcome on stdout; `Err` is the message of a
/// failure (exit 3).
async fn setup_with_progress(toolchain: &Toolchain, force: bool) -> Result<(), String> {
    let target = &toolchain.target;
    let cancel = CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    let watcher = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    let progress = |line: &str| eprintln!("  {line}");
    let outcome = setup(toolchain, force, "python3", &progress, &cancel).await;
    watcher.abort();
    let venv = toolchain
        .venv
        .as_ref()
        .map(|v| v.display().to_string())
        .unwrap_or_default();
    match outcome.map_err(|e| format!("toolchain {target}: {e}"))? {
        SetupOutcome::NotNeeded => println!(
            "toolchain {target}: nothing to set up — the target has no requirements.txt, so its \
             commands run with the ambient PATH ({})",
            toolchain.requirements().display()
        ),
        SetupOutcome::Reused => println!(
            "toolchain {target}: ready, reusing {venv} (requirements.txt unchanged; --force reinstalls)"
        ),
        SetupOutcome::Installed { created } => {
            let versions = probe::versions(&Path::new(&venv).join("bin/python"))
                .map(|v| probe::describe(&v))
                .unwrap_or_else(|e| format!("versions unknown: {e}"));
            println!(
                "toolchain {target}: ready, {} {venv} ({versions})",
                if created { "created" } else { "adopted" }
            );
        }
    }
    Ok(())
}

/// Before `aipc run`: make the target's venv ready, or say how. `allow_setup` false
/// (`--no-toolchain-setup`) turns a missing or stale venv into an error naming the command.
pub(crate) async fn ensure_toolchain(
    toolchain: &Toolchain,
    allow_setup: bool,
) -> Result<(), String> {
    let state = toolchain.state();
    if matches!(state, VenvState::Ready | VenvState::NotNeeded) {
        return Ok(());
    }
    let target = &toolchain.target;
    if !allow_setup {
        return Err(format!(
            "the toolchain of target \"{target}\" is {}: run `aipc toolchain setup {target}` \
             (or drop --no-toolchain-setup to set it up on demand)",
            state.word()
        ));
    }
    eprintln!(
        "toolchain {target} is {}: setting it up now (`aipc toolchain setup {target}`)",
        state.word()
    );
    setup_with_progress(toolchain, false).await
}
