//! The engine: walks the contract's stages in order, runs agent turns until the model calls
//! `finish_stage`, lets the stage's checks decide, feeds evidence back into bounded repair
//! attempts, commits every attempt and tags every passed stage, and reports through the event
//! bus only. It knows nothing about terminals: the TUI, the batch printer and the recorder
//! consume its events; the engineer reaches it through [`Command`]s.
//!
//! The model's tools are the built-in ones plus the target's toolbox tools a stage names; every
//! command (checks, `run`, toolbox scripts) runs in the toolchain environment
//! ([`crate::toolchain::env`]). A `checks_first` stage runs its checks as attempt 0 before any
//! model turn: passing, the stage passes with no model call (`stage_passed` with 0 attempts);
//! failing, attempt 1 is a repair attempt with that evidence.

mod attempt;
mod budget;
pub mod bus;
mod call;
mod checkpoints;
pub mod checks;
pub mod control;
pub mod exit;
mod human;
pub mod narrowing;
pub mod origin;
mod stage;
mod tool;

pub use tool::validate_tools;

use crate::checkpoint::SessionRepo;
use crate::contract::Contract;
use crate::evidence::Classifier;
use crate::model::ModelBackend;
use crate::prompts::Prompts;
use crate::protocol::{BudgetKind, Command, Event, EventEnvelope, Outcome};
use crate::report::Report;
use crate::sandbox::{Limits, Sandbox, SandboxMode};
use crate::session::{self, Meta, SessionPaths};
use crate::skills::SkillSet;
use crate::toolbox::Toolbox;
use crate::toolchain::seal::Seal;
use crate::toolchain::{Toolchain, VenvState};
use crate::tools::Workspace;
use budget::GlobalBudgets;
use bus::EventBus;
use control::{Control, Interrupt};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};

/// Knobs that are not part of the contract.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// No engineer is present: `ask` calls run, `ask_human` and exhausted budgets end the run.
    pub batch: bool,
    /// Offer skills to the model (false for a control arm).
    pub offer_skills: bool,
    /// Classify failures with the signature table (false: raw log tail only).
    pub classified_evidence: bool,
    /// Narrow each turn's choices to what the evidence names ([`narrowing`]); false offers the
    /// stage's tools on every turn, with the evidence as text only (the `evidence-text` arm).
    pub narrow_choices: bool,
    /// Upper bound on one reply's tokens.
    pub max_reply_tokens: u32,
    /// The sandbox the engineer chose on the command line (`--sandbox`); `None`: the
    /// contract's `[sandbox] mode`, else strict.
    pub sandbox: Option<SandboxMode>,
    /// Batch only: approve `ask` calls (`--approve-all`); without it they are denied.
    pub approve_all: bool,
    /// Where run, accuracy and performance execute (`--device <file>`, else the project's
    /// aipc.toml `[device]`; `None`: the build host).
    pub device: Option<crate::device::DeviceConfig>,
}

impl EngineOptions {
    /// These options with the engineer's `guard` flags applied.
    pub fn guarded(self, guard: Guard) -> EngineOptions {
        EngineOptions {
            sandbox: guard.sandbox,
            approve_all: guard.approve_all,
            ..self
        }
    }
}

/// The engineer's command-line choices on confinement and unattended approval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guard {
    /// `--sandbox`: overrides the contract's mode (and is the only way to `off`).
    pub sandbox: Option<SandboxMode>,
    /// `--approve-all`: a batch run approves `ask` calls instead of denying them.
    pub approve_all: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            batch: true,
            offer_skills: true,
            classified_evidence: true,
            narrow_choices: true,
            max_reply_tokens: 512,
            sandbox: None,
            approve_all: false,
            device: None,
        }
    }
}

/// Everything a session needs, gathered by the caller (the CLI or a test).
pub struct EngineSetup {
    pub session_id: String,
    pub project: PathBuf,
    pub contract: Contract,
    pub skills: SkillSet,
    pub prompts: Prompts,
    pub classifier: Classifier,
    /// The target's toolchain: its folders (`$AIPC_TARGET_DIR`, `$AIPC_TOOLBOX`) and venv.
    /// Every check command, `run` call and toolbox tool runs in its environment.
    pub toolchain: Toolchain,
    /// The target's toolbox tools (`toolbox.toml`), offered where a stage's tools name them.
    pub toolbox: Toolbox,
    pub options: EngineOptions,
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("contract: {0}")]
    Contract(String),
    #[error("{0}")]
    Environment(String),
}

impl StartError {
    pub fn exit_code(&self) -> i32 {
        match self {
            StartError::Contract(_) => exit::USAGE,
            StartError::Environment(_) => exit::ENVIRONMENT,
        }
    }
}

/// How a session ended.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub outcome: Outcome,
    pub exit_code: i32,
    pub session_dir: PathBuf,
    pub report_md: Option<PathBuf>,
    pub report_json: Option<PathBuf>,
}

/// Why the work of an attempt stopped early.
#[derive(Debug)]
enum Stop {
    Interrupt(Interrupt),
    Escalate { budget: BudgetKind, detail: String },
    Model(String),
    Engine(String),
}

impl From<Interrupt> for Stop {
    fn from(interrupt: Interrupt) -> Self {
        Stop::Interrupt(interrupt)
    }
}

pub struct Engine {
    setup: EngineSetup,
    paths: SessionPaths,
    model: Box<dyn ModelBackend>,
    repo: SessionRepo,
    workspace: Workspace,
    bus: Arc<EventBus>,
    control: Control,
    /// Tokens and wall time: what the session may spend and has spent.
    budgets: GlobalBudgets,
    next_request: u64,
    next_call: u64,
    /// Notes for the model's next turn: hints, the engineer's takeover diffs, answers.
    pending_notes: Vec<String>,
    /// Summaries of passed stages, in stage order (the conversation state a checkpoint keeps).
    done: Vec<(String, String)>,
    artifact_hashes: BTreeMap<String, String>,
    /// The environment of every command: the toolchain's, plus the session's own variables.
    env: Vec<(String, String)>,
    /// Variables removed from the inherited environment of every command.
    env_remove: Vec<String>,
    /// Where every command runs ([`crate::sandbox`]).
    sandbox: Sandbox,
    /// Who chose the sandbox's mode: `flag`, `contract` or `default`.
    sandbox_chosen_by: &'static str,
    /// The device jobs run on, when it is not the build host ([`crate::device`]).
    device: Option<crate::device::DeviceLink>,
    /// The hashes of the toolbox files that judge the checks, taken at the start.
    seal: Seal,
    /// Set when the session continues a recorded one (`aipc resume`): see [`resume`].
    continuation: Option<origin::Continuation>,
    /// The previous tool call and its outcome, to tell the model when it repeats itself.
    last_call: Option<String>,
    /// How many times in a row the last call was repeated with the same result.
    repeated_calls: u32,
    /// Which tools the next turn of this attempt offers ([`narrowing`]).
    narrowing: narrowing::Narrowing,
    /// The last failed toolbox call of the current attempt (tool name and its failure), until
    /// the same tool succeeds: when the checks then fail with nothing the signature table
    /// knows (`build/model.onnx does not exist` after `export` raised), that call's classified
    /// failure is the stage's evidence.
    tool_failure: Option<(String, crate::evidence::Failure)>,
}

impl Engine {
    /// Create the session: its folder and log, its branch and worktree, its meta.json.
    pub fn start(
        setup: EngineSetup,
        model: Box<dyn ModelBackend>,
        commands: mpsc::UnboundedReceiver<Command>,
    ) -> Result<Engine, StartError> {
        Self::open_session(setup, model, commands, origin::Origin::New)
    }

    /// [`Engine::start`], [`Engine::start_at`] and [`Engine::resume`]: what differs by origin
    /// (log, branch and worktree, meta, restored state) is in [`resume`].
    fn open_session(
        setup: EngineSetup,
        model: Box<dyn ModelBackend>,
        commands: mpsc::UnboundedReceiver<Command>,
        origin: origin::Origin,
    ) -> Result<Engine, StartError> {
        validate_tools(&setup.contract, &setup.toolbox)?;
        check_toolchain(&setup.toolchain)?;
        let project = setup.project.canonicalize().map_err(|e| {
            StartError::Environment(format!(
                "project {} cannot be opened: {e}",
                setup.project.display()
            ))
        })?;
        let paths = SessionPaths::new(&project, &setup.session_id);
        let (log, repo, reset) = origin::open_log_and_repo(&origin, &project, &paths, &setup)?;
        let workspace = Workspace::new(&repo.project_dir())
            .map_err(|e| StartError::Environment(format!("worktree: {e}")))?;
        let contract_json = serde_json::to_value(&setup.contract)
            .map_err(|e| StartError::Environment(format!("cannot record the contract: {e}")))?;
        let meta = Meta {
            format_version: crate::protocol::EVENT_FORMAT_VERSION,
            session_id: setup.session_id.clone(),
            created: session::now_rfc3339(),
            project: project.display().to_string(),
            target: setup.contract.target.clone(),
            model: model.info().name,
            batch: setup.options.batch,
            aipc_version: env!("CARGO_PKG_VERSION").to_string(),
            contract: contract_json,
            extra: [
                ("base_commit".to_string(), repo.base_commit()),
                (
                    "base_tree".to_string(),
                    repo.base_tree()
                        .map_err(|e| StartError::Environment(format!("git: {e}")))?,
                ),
                ("branch".to_string(), repo.branch()),
                ("libgit2".to_string(), libgit2_version()),
                (
                    "toolchain".to_string(),
                    match &setup.toolchain.venv {
                        Some(venv) => venv.display().to_string(),
                        None => "ambient PATH (no requirements.txt)".to_string(),
                    },
                ),
                (
                    "offer_skills".to_string(),
                    setup.options.offer_skills.to_string(),
                ),
                (
                    "classified_evidence".to_string(),
                    setup.options.classified_evidence.to_string(),
                ),
                (
                    "narrow_choices".to_string(),
                    setup.options.narrow_choices.to_string(),
                ),
                (
                    "device".to_string(),
                    setup
                        .options
                        .device
                        .as_ref()
                        .and_then(|d| serde_json::to_string(d).ok())
                        .unwrap_or_default(),
                ),
            ]
            .into(),
        };
        let meta = origin::session_meta(&origin, &paths, meta);
        session::write_meta(&paths.meta, &meta)
            .map_err(|e| StartError::Environment(format!("cannot write meta.json: {e}")))?;
        let mut toolchain_env = setup.toolchain.env();
        toolchain_env.push("AIPC_SESSION_DIR", paths.dir.display().to_string());
        // Byte-code caches would show up as changes in every attempt commit.
        toolchain_env.push("PYTHONDONTWRITEBYTECODE", "1".to_string());
        let device = match setup.options.device.as_ref().filter(|d| !d.is_local()) {
            Some(config) => Some(
                crate::device::DeviceLink::start(config, &setup.session_id, workspace.root())
                    .map_err(StartError::Environment)?,
            ),
            None => None,
        };
        let mut device_visible = Vec::new();
        if let Some(link) = &device {
            device_visible.push(link.socket_dir());
            for (name, value) in link.env() {
                toolchain_env.push(name, value);
            }
        }
        let (sandbox, sandbox_chosen_by) =
            open_sandbox(&setup, &project, &workspace, &device_visible)?;
        let seal = Seal::take(&setup.toolchain.toolbox_dir).map_err(|e| {
            StartError::Environment(format!("cannot seal the toolbox the checks run: {e}"))
        })?;
        let next_seq = log.next_seq();
        let engine = Engine {
            budgets: GlobalBudgets::new(&setup.contract.budgets),
            paths,
            model,
            repo,
            workspace,
            bus: Arc::new(EventBus::new(Some(log), next_seq)),
            control: Control::new(commands),
            next_request: 0,
            next_call: 0,
            pending_notes: Vec::new(),
            done: Vec::new(),
            artifact_hashes: BTreeMap::new(),
            env: toolchain_env.set,
            env_remove: toolchain_env.unset,
            sandbox,
            sandbox_chosen_by,
            device,
            seal,
            setup,
            continuation: None,
            last_call: None,
            repeated_calls: 0,
            narrowing: narrowing::Narrowing::default(),
            tool_failure: None,
        };
        origin::restore(engine, origin, reset)
    }

    /// A live consumer of the event stream (subscribe before [`Engine::run`]).
    pub fn subscribe(&self) -> broadcast::Receiver<EventEnvelope> {
        self.bus.subscribe()
    }

    pub fn session_dir(&self) -> &Path {
        &self.paths.dir
    }

    /// Run the session to its end.
    pub async fn run(mut self) -> RunOutcome {
        let continuation = self.continuation.take();
        let stages: Vec<String> = self
            .setup
            .contract
            .stages
            .iter()
            .map(|s| s.name.clone())
            .collect();
        if continuation.as_ref().is_none_or(|c| c.announce_start) {
            self.bus.emit(Event::SessionStarted {
                session_id: self.setup.session_id.clone(),
                project: self.setup.project.display().to_string(),
                target: self.setup.contract.target.clone(),
                model: self.model.info().name,
                worktree: self.repo.worktree().display().to_string(),
                branch: self.repo.branch(),
                base_commit: self.repo.base_commit(),
                batch: self.setup.options.batch,
                stages: stages.clone(),
                context_size: self.model.info().context_size,
                token_budget: self.setup.contract.budgets.total_tokens,
                wall_time_s: self.setup.contract.budgets.wall_time_s,
            });
        }
        let mut first_stage = 0;
        if let Some(continuation) = continuation {
            self.bus.emit(continuation.resumed);
            first_stage = continuation.next_stage;
        }
        self.bus.emit(Event::SessionPolicy {
            sandbox: self.sandbox.mode().word().to_string(),
            sandbox_chosen_by: self.sandbox_chosen_by.to_string(),
            sandbox_detail: self.sandbox.describe(),
            sandbox_version: self.sandbox.version().to_string(),
            approve_all: self.setup.options.approve_all,
            device: match &self.device {
                Some(link) => format!("{} (python {})", link.describe(), link.runner_version()),
                None => String::new(),
            },
            toolbox: self.seal.root().display().to_string(),
            toolbox_digest: self.seal.digest(),
            toolbox_files: self.seal.files().clone(),
        });
        let (outcome, exit_code) = self.run_stages(first_stage).await;
        self.finish(outcome, exit_code)
    }

    /// Write the report and the final event.
    fn finish(self, outcome: Outcome, exit_code: i32) -> RunOutcome {
        let duration_ms = self.budgets.elapsed_ms();
        // Work a resume threw away does not count in the report.
        let report = session::read_events(&self.paths.events).map(|log| {
            let recording = session::Recording::from_events(log.events, None);
            let events: Vec<EventEnvelope> = recording.effective().cloned().collect();
            Report::from_events(&events, outcome, duration_ms)
        });
        let written = report.map_err(|e| e.to_string()).and_then(|report| {
            report
                .write(&self.paths.report_md, &self.paths.report_json)
                .map_err(|e| e.to_string())
        });
        let (report_md, report_json) = match written {
            Ok(()) => (
                Some(self.paths.report_md.clone()),
                Some(self.paths.report_json.clone()),
            ),
            Err(message) => {
                self.bus.emit(Event::EngineError {
                    message: format!("cannot write the report: {message}"),
                });
                (None, None)
            }
        };
        self.bus.emit(Event::SessionFinished {
            outcome,
            exit_code,
            report: report_md.as_ref().map(|p| p.display().to_string()),
            duration_ms,
        });
        RunOutcome {
            outcome,
            exit_code,
            session_dir: self.paths.dir.clone(),
            report_md,
            report_json,
        }
    }
}

/// A target that needs a venv must have it ready (the CLI creates it on demand before the
/// session starts).
fn check_toolchain(toolchain: &Toolchain) -> Result<(), StartError> {
    let state = toolchain.state();
    if matches!(state, VenvState::Missing | VenvState::Stale) {
        let venv = toolchain
            .venv
            .as_ref()
            .map(|v| v.display().to_string())
            .unwrap_or_default();
        return Err(StartError::Environment(format!(
            "the toolchain of target \"{}\" is {} ({venv}): run `aipc toolchain setup {}`",
            toolchain.target,
            state.word(),
            toolchain.target
        )));
    }
    Ok(())
}

/// The session's sandbox: the mode from the flag, else the contract, else strict; probed
/// (bubblewrap must start, or the session does not).
fn open_sandbox(
    setup: &EngineSetup,
    project: &Path,
    workspace: &Workspace,
    extra_visible: &[PathBuf],
) -> Result<(Sandbox, &'static str), StartError> {
    let settings = &setup.contract.sandbox;
    let (mode, chosen_by) = match (setup.options.sandbox, settings.mode) {
        (Some(mode), _) => (mode, "flag"),
        (None, Some(mode)) => (mode, "contract"),
        (None, None) => (SandboxMode::Strict, "default"),
    };
    let toolchain = &setup.toolchain;
    let mut visible = vec![
        project.to_path_buf(),
        toolchain.toolbox_dir.clone(),
        toolchain.target_dir.clone(),
    ];
    visible.extend(toolchain.venv.iter().cloned());
    visible.extend(extra_visible.iter().cloned());
    // Programs and modules the environment points at (a tool folder under /tmp stays visible).
    // (The QAIRT SDK too, wherever it is installed: docs/qairt.md.)
    for name in ["PATH", "PYTHONPATH", "QAIRT_SDK_ROOT"] {
        if let Some(value) = std::env::var_os(name) {
            visible.extend(std::env::split_paths(&value).filter(|p| p.is_absolute()));
        }
    }
    let sandbox = Sandbox::new(
        mode,
        workspace.root(),
        &visible,
        Limits::with_memory_mb(settings.memory_mb),
    )
    .map_err(|e| StartError::Environment(e.to_string()))?;
    Ok((sandbox, chosen_by))
}

fn libgit2_version() -> String {
    let (major, minor, patch) = git2::Version::get().libgit2_version();
    format!("{major}.{minor}.{patch}")
}
