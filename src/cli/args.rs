//! The arguments several commands share: how to run the model ([`ModelArgs`]: `run`,
//! `resume`) and which recorded session ([`SessionRef`]: `replay`, `rerun`, `resume`,
//! `sessions show|export`).
//!
//! A session is named by its id, a unique part of it, `last`, or its folder (see
//! [`crate::session::resolve_session`]); ids are looked up in `--project` (default: the current
//! directory). A session that cannot be read (corrupt log, unsupported format version) is a
//! one-line error naming the file and line, exit 2.

use crate::engine::Guard;
use crate::model::ModelOptions;
use crate::sandbox::SandboxMode;
use crate::session::{resolve_session, Recording};
use clap::Args;
use std::path::PathBuf;

/// How commands are confined and who approves what the contract says to ask about (`run`,
/// `resume`).
#[derive(Debug, Clone, Args)]
pub(crate) struct GuardArgs {
    /// Where commands run: strict (default: worktree writable, everything else read-only,
    /// network off, secrets out of the environment), workspace-write (the same with the
    /// network on), off (no sandbox; recorded in the session and its report).
    #[arg(long, value_enum)]
    sandbox: Option<SandboxMode>,
    /// Without an engineer (batch), approve the calls the contract says to ask about; without
    /// it they are denied. Recorded in the session and its report.
    #[arg(long)]
    approve_all: bool,
}

impl GuardArgs {
    pub(crate) fn guard(&self) -> Guard {
        Guard {
            sandbox: self.sandbox,
            approve_all: self.approve_all,
        }
    }
}

/// How to run the model (every backend reads what applies to it).
#[derive(Debug, Clone, Args)]
pub(crate) struct ModelArgs {
    /// Context size in tokens (in-process backend) [default: 8192, or `ctx` in the config].
    #[arg(long)]
    ctx: Option<u32>,
    /// Decode threads (in-process backend); default: the cores available.
    #[arg(long)]
    threads: Option<u32>,
    /// 0 is greedy decoding (runs reproduce); above 0 samples with --seed.
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    #[arg(long, default_value_t = 42)]
    seed: u32,
    /// HTTP model: the model name to request (default: the first one the server lists).
    #[arg(long)]
    model_name: Option<String>,
    /// HTTP model: bearer token, if the server wants one.
    #[arg(long, env = "AIPC_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// HTTP model: seconds one model request may take, retries included [default: 300, or
    /// `request_timeout_s` in the config].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    request_timeout_s: Option<u64>,
}

impl ModelArgs {
    /// The options, a flag winning over the config (`aipc config show`).
    pub(crate) fn options(&self, config: &crate::config::Config) -> ModelOptions {
        ModelOptions {
            context_size: self.ctx.unwrap_or(config.ctx.value),
            threads: self.threads.or(config.threads.value),
            temperature: self.temperature,
            seed: self.seed,
            model_name: self.model_name.clone(),
            api_key: self.api_key.clone(),
            request_timeout: std::time::Duration::from_secs(
                self.request_timeout_s
                    .unwrap_or(config.request_timeout_s.value)
                    .max(1),
            ),
        }
    }
}

/// Which session, in which project.
#[derive(Debug, Clone, Args)]
pub(crate) struct SessionRef {
    /// The session: its id, a unique part of it, `last`, or its folder.
    pub(crate) session: String,
    /// The project whose sessions the id is looked up in.
    #[arg(long, default_value = ".")]
    pub(crate) project: PathBuf,
}

impl SessionRef {
    /// Open the recording this names; `Err` is the one-line message.
    pub(crate) fn open(&self) -> Result<Recording, String> {
        let paths = resolve_session(&self.session, &self.project).map_err(|e| e.to_string())?;
        Recording::open(&paths).map_err(|e| e.to_string())
    }
}
