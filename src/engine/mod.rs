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

pub mod bus;
pub mod checks;
pub mod control;
pub mod exit;
pub mod narrowing;
pub mod resume;

use crate::agent::{self, Conversation, OfferedTool, ToolCall};
use crate::checkpoint::SessionRepo;
use crate::contract::{Contract, StageSpec};
use crate::evidence::Classifier;
use crate::model::{ModelBackend, ModelError, ModelRequest, Role};
use crate::prompts::Prompts;
use crate::protocol::{BudgetKind, Command, Event, EventEnvelope, Evidence, Outcome, Policy};
use crate::report::Report;
use crate::session::{self, Meta, SessionPaths};
use crate::skills::SkillSet;
use crate::toolbox::Toolbox;
use crate::toolchain::{Toolchain, VenvState};
use crate::tools::{self, ToolContext, ToolControl, ToolSpec, Workspace};
use bus::EventBus;
use checks::CheckRunner;
use control::{Control, Interrupt};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc};

/// Tools that exist in every stage whatever the contract says: the model must be able to end
/// a stage.
const ALWAYS_OFFERED: &[&str] = &["finish_stage"];

/// Knobs that are not part of the contract.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// No engineer is present: `ask` calls run, `ask_human` and exhausted budgets end the run.
    pub batch: bool,
    /// Offer skills to the model (false for a control arm).
    pub offer_skills: bool,
    /// Classify failures with the signature table (false: raw log tail only).
    pub classified_evidence: bool,
    /// Upper bound on one reply's tokens.
    pub max_reply_tokens: u32,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            batch: true,
            offer_skills: true,
            classified_evidence: true,
            max_reply_tokens: 512,
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

enum AttemptEnd {
    Finished(String),
    TurnsExhausted,
    /// The model made the same call with the same result several times in a row.
    Looping(u32),
}

/// Identical calls with identical results in a row after which the attempt ends and the checks
/// run (a small model's loop; the checks decide whether the work is done).
const MAX_REPEATED_CALLS: u32 = 2;

enum StageEnd {
    Passed(String),
    Skipped,
    Failed { exit_code: i32 },
    Rollback(String),
    Aborted,
    Model(String),
    Engine(String),
}

pub struct Engine {
    setup: EngineSetup,
    paths: SessionPaths,
    model: Box<dyn ModelBackend>,
    repo: SessionRepo,
    workspace: Workspace,
    bus: Arc<EventBus>,
    control: Control,
    started: Instant,
    token_limit: u64,
    wall_limit: Duration,
    tokens_used: u64,
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
    /// Set when the session continues a recorded one (`aipc resume`): see [`resume`].
    continuation: Option<resume::Continuation>,
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
        Self::open_session(setup, model, commands, resume::Origin::New)
    }

    /// [`Engine::start`], [`Engine::start_at`] and [`Engine::resume`]: what differs by origin
    /// (log, branch and worktree, meta, restored state) is in [`resume`].
    fn open_session(
        setup: EngineSetup,
        model: Box<dyn ModelBackend>,
        commands: mpsc::UnboundedReceiver<Command>,
        origin: resume::Origin,
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
        let (log, repo, reset) = resume::open_log_and_repo(&origin, &project, &paths, &setup)?;
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
            ]
            .into(),
        };
        let meta = resume::session_meta(&origin, &paths, meta);
        session::write_meta(&paths.meta, &meta)
            .map_err(|e| StartError::Environment(format!("cannot write meta.json: {e}")))?;
        let mut toolchain_env = setup.toolchain.env();
        toolchain_env.push("AIPC_SESSION_DIR", paths.dir.display().to_string());
        // Byte-code caches would show up as changes in every attempt commit.
        toolchain_env.push("PYTHONDONTWRITEBYTECODE", "1".to_string());
        let next_seq = log.next_seq();
        let engine = Engine {
            token_limit: setup.contract.budgets.total_tokens,
            wall_limit: Duration::from_secs(setup.contract.budgets.wall_time_s),
            paths,
            model,
            repo,
            workspace,
            bus: Arc::new(EventBus::new(Some(log), next_seq)),
            control: Control::new(commands),
            started: Instant::now(),
            tokens_used: 0,
            next_request: 0,
            next_call: 0,
            pending_notes: Vec::new(),
            done: Vec::new(),
            artifact_hashes: BTreeMap::new(),
            env: toolchain_env.set,
            env_remove: toolchain_env.unset,
            setup,
            continuation: None,
            last_call: None,
            repeated_calls: 0,
            narrowing: narrowing::Narrowing::default(),
            tool_failure: None,
        };
        resume::restore(engine, origin, reset)
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
        let (outcome, exit_code) = self.run_stages(first_stage).await;
        self.finish(outcome, exit_code)
    }

    async fn run_stages(&mut self, first_stage: usize) -> (Outcome, i32) {
        let mut index = first_stage;
        while index < self.setup.contract.stages.len() {
            // An abort between stages (or `rerun --until` tripping) ends here, cleanly.
            if self.control.aborted() {
                return (Outcome::Aborted, exit::ABORTED);
            }
            let stage = self.setup.contract.stages[index].clone();
            let end = self.run_stage(index, &stage).await;
            if let Some(error) = self.bus.log_error() {
                self.bus.emit(Event::EngineError {
                    message: format!("the session log cannot be written: {error}"),
                });
                return (Outcome::Error, exit::ENVIRONMENT);
            }
            match end {
                StageEnd::Passed(summary) => {
                    self.done.truncate(index);
                    self.done.push((stage.name.clone(), summary));
                    index += 1;
                }
                StageEnd::Skipped => {
                    self.done.truncate(index);
                    self.done
                        .push((stage.name.clone(), "skipped by the engineer".to_string()));
                    index += 1;
                }
                StageEnd::Rollback(tag) => match self.rollback(&tag) {
                    Ok(next) => index = next,
                    Err(message) => {
                        self.bus.emit(Event::EngineError { message });
                        return (Outcome::Error, exit::ENVIRONMENT);
                    }
                },
                StageEnd::Failed { exit_code, .. } => return (Outcome::Failed, exit_code),
                StageEnd::Aborted => return (Outcome::Aborted, exit::ABORTED),
                StageEnd::Model(message) => {
                    self.bus.emit(Event::EngineError {
                        message: format!("model backend: {message}"),
                    });
                    return (Outcome::Error, exit::MODEL);
                }
                StageEnd::Engine(message) => {
                    self.bus.emit(Event::EngineError { message });
                    return (Outcome::Error, exit::ENVIRONMENT);
                }
            }
        }
        (Outcome::Deployed, exit::DEPLOYED)
    }

    /// One stage: attempts until the checks pass or a budget ends it.
    async fn run_stage(&mut self, index: usize, stage: &StageSpec) -> StageEnd {
        let stage_started = Instant::now();
        self.bus.emit(Event::StageStarted {
            stage: stage.name.clone(),
            index,
            goal: stage.goal.clone(),
            max_attempts: stage.attempts,
        });
        let mut max_attempts = stage.attempts;
        let mut attempt = 0;
        let mut evidence: Option<Evidence> = None;
        let mut last_signature: Option<String> = None;
        self.tool_failure = None;
        if stage.agent && stage.checks_first {
            // Attempt 0: the checks alone, before any model turn. It uses none of the stage's
            // attempts; a failure becomes the evidence of attempt 1, a repair attempt.
            self.bus.emit(Event::AttemptStarted {
                stage: stage.name.clone(),
                attempt: 0,
                max_attempts,
            });
            let outcome = self.run_checks(stage, 0).await;
            if outcome.cancelled || self.control.aborted() {
                return StageEnd::Aborted;
            }
            if outcome.passed {
                return self.pass_stage(
                    stage,
                    0,
                    stage_started,
                    "its checks passed before any model turn".to_string(),
                );
            }
            let found = self.collect_evidence(stage, 0, outcome.failure.unwrap_or_default());
            last_signature = Some(found.signature.clone());
            evidence = Some(found);
        }
        loop {
            attempt += 1;
            let mut exhausted = None;
            if attempt > max_attempts {
                exhausted = Some((
                    BudgetKind::Attempts,
                    format!("{max_attempts} attempts used and the checks still fail"),
                ));
            }
            if exhausted.is_none() {
                self.tool_failure = None;
                self.bus.emit(Event::AttemptStarted {
                    stage: stage.name.clone(),
                    attempt,
                    max_attempts,
                });
                let work = if stage.agent {
                    self.agent_attempt(index, stage, attempt, max_attempts, evidence.as_ref())
                        .await
                        .map(Some)
                } else {
                    self.poll_point().await.map(|()| None)
                };
                let summary = match work {
                    Ok(Some(AttemptEnd::Finished(summary))) => summary,
                    Ok(Some(AttemptEnd::TurnsExhausted)) => {
                        self.bus.emit(Event::BudgetExhausted {
                            stage: Some(stage.name.clone()),
                            budget: BudgetKind::Turns,
                            detail: format!(
                                "{} turns without finish_stage; running the checks anyway",
                                stage.turns_per_attempt
                            ),
                        });
                        String::new()
                    }
                    Ok(Some(AttemptEnd::Looping(times))) => {
                        self.bus.emit(Event::BudgetExhausted {
                            stage: Some(stage.name.clone()),
                            budget: BudgetKind::Turns,
                            detail: format!(
                                "the same call with the same result {} times in a row; running \
                                 the checks",
                                times + 1
                            ),
                        });
                        String::new()
                    }
                    Ok(None) => "checks only".to_string(),
                    Err(Stop::Escalate { budget, detail }) => {
                        exhausted = Some((budget, detail));
                        String::new()
                    }
                    Err(stop) => match self.stop_to_end(stop) {
                        Ok(retry) => {
                            max_attempts = attempt + retry;
                            evidence = None;
                            last_signature = None;
                            continue;
                        }
                        Err(end) => return end,
                    },
                };
                if exhausted.is_none() {
                    if let Err(message) = self.commit_attempt(&stage.name, attempt) {
                        return StageEnd::Engine(message);
                    }
                    let outcome = self.run_checks(stage, attempt).await;
                    if outcome.cancelled || self.control.aborted() {
                        return StageEnd::Aborted;
                    }
                    if outcome.passed {
                        return self.pass_stage(stage, attempt, stage_started, summary);
                    }
                    let found =
                        self.collect_evidence(stage, attempt, outcome.failure.unwrap_or_default());
                    if last_signature.as_deref() == Some(found.signature.as_str()) {
                        exhausted = Some((
                            BudgetKind::NoProgress,
                            format!(
                                "the same failure twice in a row ({}): repairing is not making progress",
                                found.signature
                            ),
                        ));
                    } else if !stage.agent {
                        exhausted = Some((
                            BudgetKind::Attempts,
                            format!(
                                "this stage has no model work to repair it: {}",
                                found.failed_check
                            ),
                        ));
                    }
                    last_signature = Some(found.signature.clone());
                    evidence = Some(found);
                }
            }
            if let Some((budget, detail)) = exhausted {
                self.bus.emit(Event::BudgetExhausted {
                    stage: Some(stage.name.clone()),
                    budget,
                    detail: detail.clone(),
                });
                match self.escalate(stage, budget, &detail, attempt).await {
                    Ok(extra) => {
                        if budget == BudgetKind::Attempts {
                            // That attempt number was never started; the retry takes it.
                            attempt -= 1;
                        }
                        max_attempts = attempt + extra;
                        last_signature = None;
                    }
                    Err(end) => return end,
                }
            }
        }
    }

    /// Run the stage's checks as attempt `attempt` (0: checks first) and record the build
    /// outputs they left.
    async fn run_checks(&mut self, stage: &StageSpec, attempt: u32) -> checks::ChecksOutcome {
        let outcome = CheckRunner {
            bus: &self.bus,
            dir: self.workspace.root(),
            logs: &self.paths.logs,
            env: &self.env,
            env_remove: &self.env_remove,
            cancel: &self.control.cancel,
        }
        .run_all(&stage.name, attempt, &stage.checks)
        .await;
        self.record_artifacts(&stage.name);
        outcome
    }

    /// The checks passed: tag the checkpoint and say so.
    fn pass_stage(
        &mut self,
        stage: &StageSpec,
        attempts: u32,
        started: Instant,
        summary: String,
    ) -> StageEnd {
        match self.repo.tag_checkpoint(&stage.name) {
            Ok((tag, commit)) => {
                self.bus.emit(Event::CheckpointMade {
                    stage: stage.name.clone(),
                    commit,
                    tag,
                });
                self.bus.emit(Event::StagePassed {
                    stage: stage.name.clone(),
                    attempts,
                    duration_ms: started.elapsed().as_millis() as u64,
                });
                StageEnd::Passed(summary)
            }
            Err(e) => StageEnd::Engine(format!("git tag: {e}")),
        }
    }

    /// Reduce a failed check to evidence and record it.
    fn collect_evidence(
        &mut self,
        stage: &StageSpec,
        attempt: u32,
        failure: crate::evidence::Failure,
    ) -> Evidence {
        let classified = self.setup.options.classified_evidence;
        let mut found = self.setup.classifier.classify(&failure, classified);
        // The checks found no artifact (or failed otherwise unclassified) after a toolbox call
        // failed in this attempt: that call's failure is the cause, and its signature (e.g.
        // export.data_dependent_guard) is what the model must repair.
        if found.class.is_none() {
            if let Some((tool, tool_failure)) = self.tool_failure.take() {
                let cause = self.setup.classifier.classify(&tool_failure, classified);
                if cause.class.is_some() {
                    found = Evidence {
                        failed_check: format!(
                            "{} (after `{tool}` failed in this attempt)",
                            found.failed_check
                        ),
                        ..cause
                    };
                }
            }
        }
        self.bus.emit(Event::EvidenceCollected {
            stage: stage.name.clone(),
            attempt,
            evidence: found.clone(),
        });
        found
    }

    /// A budget ran out. Batch: the stage fails. Interactive: wait for the engineer; `Ok(n)`
    /// grants `n` more attempts.
    async fn escalate(
        &mut self,
        stage: &StageSpec,
        budget: BudgetKind,
        detail: &str,
        attempt: u32,
    ) -> Result<u32, StageEnd> {
        let exit_code = if stage.agent {
            exit::STAGE_FAILED
        } else {
            exit::ENVIRONMENT
        };
        let attempts_used = if budget == BudgetKind::Attempts {
            attempt - 1
        } else {
            attempt
        };
        if self.setup.options.batch {
            self.bus.emit(Event::StageFailed {
                stage: stage.name.clone(),
                attempts: attempts_used,
                reason: detail.to_string(),
            });
            return Err(StageEnd::Failed { exit_code });
        }
        self.bus.emit(Event::Paused {
            reason: format!(
                "stage {} needs you: {detail} (retry, take over, roll back, skip or abort)",
                stage.name
            ),
        });
        loop {
            let Some(command) = self.control.next().await else {
                self.bus.emit(Event::StageFailed {
                    stage: stage.name.clone(),
                    attempts: attempts_used,
                    reason: format!("{detail}; no engineer is connected"),
                });
                return Err(StageEnd::Failed { exit_code });
            };
            match command {
                Command::Resume => {
                    self.human("retry", "resume after escalation");
                    self.bus.emit(Event::Resumed);
                    self.grow_global_budget(budget);
                    return Ok(stage.attempts);
                }
                other => match self.apply_command(other).await {
                    Ok(()) => {}
                    Err(stop) => {
                        return match self.stop_to_end(stop) {
                            Ok(extra) => {
                                self.bus.emit(Event::Resumed);
                                self.grow_global_budget(budget);
                                Ok(extra)
                            }
                            Err(end) => Err(end),
                        };
                    }
                },
            }
        }
    }

    /// Retrying after a global budget ran out gives that budget as much again.
    fn grow_global_budget(&mut self, budget: BudgetKind) {
        match budget {
            BudgetKind::Tokens => {
                self.token_limit += self.setup.contract.budgets.total_tokens;
            }
            BudgetKind::WallTime => {
                self.wall_limit += Duration::from_secs(self.setup.contract.budgets.wall_time_s);
            }
            _ => {}
        }
    }

    /// Turn an interruption into how the stage ends; `Ok(n)` means retry with `n` attempts.
    fn stop_to_end(&mut self, stop: Stop) -> Result<u32, StageEnd> {
        match stop {
            Stop::Interrupt(Interrupt::Abort) => Err(StageEnd::Aborted),
            Stop::Interrupt(Interrupt::SkipStage) => Err(StageEnd::Skipped),
            Stop::Interrupt(Interrupt::RollbackTo { tag }) => Err(StageEnd::Rollback(tag)),
            Stop::Interrupt(Interrupt::RetryStage { extra_attempts }) => {
                Ok(extra_attempts.unwrap_or(1).max(1))
            }
            Stop::Model(message) => Err(StageEnd::Model(message)),
            Stop::Engine(message) => Err(StageEnd::Engine(message)),
            Stop::Escalate { .. } => Err(StageEnd::Failed {
                exit_code: exit::STAGE_FAILED,
            }),
        }
    }

    /// One attempt of agent turns, ending at `finish_stage` or the turn budget.
    async fn agent_attempt(
        &mut self,
        index: usize,
        stage: &StageSpec,
        attempt: u32,
        max_attempts: u32,
        evidence: Option<&Evidence>,
    ) -> Result<AttemptEnd, Stop> {
        // Each attempt opens a fresh conversation: repeats count within it only.
        self.last_call = None;
        self.repeated_calls = 0;
        self.narrowing = narrowing::Narrowing::new(stage.main_tool.as_deref());
        if let Some(evidence) = evidence {
            self.narrowing.follow_evidence(&evidence.candidate_fixes);
        }
        let offered = self.offered_tools(stage);
        let mut conversation =
            self.open_conversation(index, stage, &offered, attempt, max_attempts, evidence)?;
        let mut sent = 0;
        for _ in 0..stage.turns_per_attempt {
            self.poll_point().await?;
            for note in std::mem::take(&mut self.pending_notes) {
                conversation.push(Role::User, note);
            }
            self.check_global_budgets()?;
            let request_id = self.next_request;
            self.next_request += 1;
            // The constraint offers this turn's choices; the prompt still lists the stage's.
            let offered_now = self.narrowing.offered(&offered);
            // A tool named by the evidence with two argument sets is offered twice.
            let mut names: Vec<String> = Vec::new();
            for tool in &offered_now {
                if !names.contains(&tool.name) {
                    names.push(tool.name.clone());
                }
            }
            let call_schema = agent::call_schema(&offered_now);
            self.bus.emit(Event::ModelRequest {
                request_id,
                stage: stage.name.clone(),
                new_messages: conversation.messages[sent..]
                    .iter()
                    .map(|m| (m.role.as_str().to_string(), m.content.clone()))
                    .collect(),
                total_messages: conversation.messages.len(),
                tools: names.clone(),
            });
            sent = conversation.messages.len();
            let request = ModelRequest {
                messages: conversation.messages.clone(),
                call_schema,
                max_tokens: self.setup.options.max_reply_tokens,
            };
            let bus = Arc::clone(&self.bus);
            let mut on_delta = move |text: &str| {
                bus.emit(Event::ModelDelta {
                    request_id,
                    text: text.to_string(),
                })
            };
            let reply = match self
                .ask_model(request_id, &mut conversation, request, &mut on_delta)
                .await
            {
                Ok(reply) => reply,
                Err(ModelError::Cancelled) => return Err(Interrupt::Abort.into()),
                Err(e) => return Err(Stop::Model(e.to_string())),
            };
            self.tokens_used += reply.prompt_tokens + reply.completion_tokens;
            self.bus.emit(Event::ModelResponse {
                request_id,
                text: reply.text.clone(),
                prompt_tokens: reply.prompt_tokens,
                completion_tokens: reply.completion_tokens,
                cached_tokens: reply.cached_tokens,
                duration_ms: reply.duration_ms,
            });
            conversation.push(Role::Assistant, reply.text.clone());
            sent += 1;
            let call = match agent::parse_reply(&reply.text, &names) {
                Ok(call) => call,
                Err(error) => {
                    self.bus.emit(Event::ModelInvalidCall {
                        request_id,
                        error: error.clone(),
                    });
                    conversation.push(Role::Tool, format!("[invalid call]\n{error}"));
                    continue;
                }
            };
            // Unique over the session, even when a stage runs again after a retry or rollback.
            self.next_call += 1;
            let call_id = format!("{}.{}", stage.name, self.next_call);
            let policy = self.policy(stage, &call.tool);
            match self.run_call(stage, &call_id, call, policy).await? {
                CallResult::Observation(text) => conversation.push(Role::Tool, text),
                CallResult::Finish(summary) => return Ok(AttemptEnd::Finished(summary)),
            }
            if self.repeated_calls >= MAX_REPEATED_CALLS {
                return Ok(AttemptEnd::Looping(self.repeated_calls));
            }
        }
        Ok(AttemptEnd::TurnsExhausted)
    }

    /// Ask the model; when the conversation no longer fits its context, fold older tool
    /// outputs and ask again (at most twice), recording each compaction.
    async fn ask_model(
        &mut self,
        request_id: u64,
        conversation: &mut Conversation,
        mut request: ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<crate::model::ModelReply, ModelError> {
        let cancel = self.control.cancel.clone();
        let mut fold_steps = [2usize, 0].into_iter();
        loop {
            let reply = tokio::select! {
                reply = self.model.complete(&request, on_delta) => reply,
                () = cancel.cancelled() => Err(ModelError::Cancelled),
            };
            let Err(ModelError::ContextOverflow { .. }) = &reply else {
                return reply;
            };
            let chars_before = conversation.chars();
            let folded = loop {
                match fold_steps.next() {
                    Some(keep_recent) => {
                        let folded = conversation.compact(keep_recent);
                        if folded > 0 {
                            break folded;
                        }
                    }
                    // Nothing left to fold: the overflow stands.
                    None => return reply,
                }
            };
            self.bus.emit(Event::Compacted {
                request_id,
                folded,
                chars_before,
                chars_after: conversation.chars(),
            });
            request.messages = conversation.messages.clone();
        }
    }

    fn open_conversation(
        &self,
        index: usize,
        stage: &StageSpec,
        offered: &[OfferedTool],
        attempt: u32,
        max_attempts: u32,
        evidence: Option<&Evidence>,
    ) -> Result<Conversation, Stop> {
        let skills: Vec<(String, String)> = self
            .offered_skills(stage)
            .iter()
            .filter_map(|name| self.setup.skills.get(name))
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect();
        let previous: Vec<String> = self
            .done
            .iter()
            .take(index)
            .map(|(name, summary)| format!("{name}: {summary}"))
            .collect();
        agent::open_conversation(
            &self.setup.prompts,
            &agent::StagePrompt {
                target: &self.setup.contract.target,
                stage,
                stage_index: index,
                stage_count: self.setup.contract.stages.len(),
                tools: offered,
                skills: &skills,
                previous: &previous,
                repair: evidence.map(|evidence| (attempt, max_attempts, evidence)),
            },
        )
        .map_err(|e| Stop::Engine(e.to_string()))
    }

    /// Propose, decide, run one call; the observation (or the stage's end) comes back.
    async fn run_call(
        &mut self,
        stage: &StageSpec,
        call_id: &str,
        call: ToolCall,
        policy: Policy,
    ) -> Result<CallResult, Stop> {
        self.bus.emit(Event::ToolCallProposed {
            call_id: call_id.to_string(),
            tool: call.tool.clone(),
            args: call.args.clone(),
            thought: call.thought.clone(),
            policy,
        });
        let mut args = call.args.clone();
        let needs_human = policy == Policy::Ask || self.control.step_mode;
        if policy == Policy::Deny {
            let reason = "the contract denies this tool in this stage".to_string();
            self.bus.emit(Event::ToolCallRejected {
                call_id: call_id.to_string(),
                reason: reason.clone(),
                by: "policy".to_string(),
            });
            return Ok(CallResult::Observation(format!(
                "[{} rejected] {reason}",
                call.tool
            )));
        } else if needs_human && !self.setup.options.batch {
            match self.await_decision(call_id).await? {
                Decision::Approve(edited) => {
                    if let Some(edited) = edited {
                        args = edited;
                    }
                }
                Decision::Reject(reason) => {
                    return Ok(CallResult::Observation(format!(
                        "[{} rejected by the engineer] {reason}",
                        call.tool
                    )));
                }
            }
        } else {
            self.bus.emit(Event::ToolCallApproved {
                call_id: call_id.to_string(),
                by: if needs_human { "batch" } else { "policy" }.to_string(),
            });
        }
        // A cancelled turn never runs its call.
        self.poll_point().await?;
        self.bus.emit(Event::ToolCallStarted {
            call_id: call_id.to_string(),
            tool: call.tool.clone(),
        });
        let started = Instant::now();
        let bus = Arc::clone(&self.bus);
        let output_id = call_id.to_string();
        let on_output = move |stream, line: &str| {
            bus.emit(Event::ToolOutput {
                call_id: output_id.clone(),
                stream,
                line: line.to_string(),
            })
        };
        let offered_skills = self.offered_skills(stage);
        let skills = &self.setup.skills;
        let load_skill = |name: &str| {
            if offered_skills.iter().any(|s| s == name) {
                skills.render_for_model(name)
            } else {
                Err(format!(
                    "skill \"{name}\" is not offered in this stage; offered: {}",
                    if offered_skills.is_empty() {
                        "none".to_string()
                    } else {
                        offered_skills.join(", ")
                    }
                ))
            }
        };
        let ctx = ToolContext {
            workspace: &self.workspace,
            cancel: self.control.cancel.clone(),
            on_output: &on_output,
            load_skill: &load_skill,
            run_timeout: Duration::from_secs(stage.run_timeout_s),
            env: &self.env,
            env_remove: &self.env_remove,
        };
        let toolbox_tool = self.setup.toolbox.get(&call.tool);
        // A toolbox script (a codemod) edits files behind the engine's back: compare the
        // worktree before and after to know whether it changed the project (build outputs are
        // artifacts and do not count).
        let worktree_before = toolbox_tool.and_then(|_| self.repo.uncommitted_diffs().ok());
        let mut tool_failure = None;
        let mut failure_fixes: Vec<String> = Vec::new();
        let result = match toolbox_tool {
            Some(tool) => {
                let classifier = &self.setup.classifier;
                let classified = self.setup.options.classified_evidence;
                let failed = std::sync::Mutex::new(None);
                let classify = |failure: &crate::evidence::Failure| {
                    let evidence = classifier.classify(failure, classified);
                    if let Ok(mut slot) = failed.lock() {
                        *slot = Some((failure.clone(), evidence.candidate_fixes.clone()));
                    }
                    evidence
                };
                let result = crate::toolbox::execute(
                    tool,
                    &args,
                    &ctx,
                    &self.setup.toolchain.python(),
                    &classify,
                )
                .await;
                if let Some((failure, fixes)) =
                    failed.into_inner().unwrap_or_else(|p| p.into_inner())
                {
                    tool_failure = Some(failure);
                    failure_fixes = fixes;
                }
                result
            }
            None => tools::execute(&call.tool, &args, &ctx).await,
        };
        let ran_toolbox_tool = toolbox_tool.is_some();
        if ran_toolbox_tool {
            if result.ok {
                if self
                    .tool_failure
                    .as_ref()
                    .is_some_and(|(tool, _)| *tool == call.tool)
                {
                    self.tool_failure = None;
                }
            } else if let Some(failure) = tool_failure {
                self.tool_failure = Some((call.tool.clone(), failure));
            }
        }
        for diff in &result.diffs {
            self.bus.emit(Event::FileChanged {
                call_id: Some(call_id.to_string()),
                diff: diff.clone(),
            });
        }
        self.bus.emit(Event::ToolCallFinished {
            call_id: call_id.to_string(),
            ok: result.ok,
            observation: result.observation.clone(),
            exit_code: result.exit_code,
            duration_ms: started.elapsed().as_millis() as u64,
        });
        if ran_toolbox_tool {
            // Toolbox scripts write the build outputs; record them as they appear.
            self.record_artifacts(&stage.name);
        }
        if self.control.aborted() {
            return Err(Interrupt::Abort.into());
        }
        // The same call with the same outcome as the one before: a small model's loop; the
        // observation says so (prompts/observation.md.j2).
        // Compared as a re-run compares it (no timings, no raw log tail: a script's stdout and
        // stderr interleave differently each time) and without digits.
        let observed: String =
            crate::toolbox::observation::mask_result_timings(&result.observation)
                .chars()
                .filter(|c| !c.is_ascii_digit())
                .collect();
        let call_key = format!("{} {} {} {observed}", call.tool, args, result.ok);
        let repeated = self.last_call.as_deref() == Some(call_key.as_str());
        self.repeated_calls = if repeated { self.repeated_calls + 1 } else { 0 };
        self.last_call = Some(call_key);
        let args_text = args.to_string();
        let changed_files = !result.diffs.is_empty()
            || worktree_before.is_some_and(|before| {
                self.repo
                    .uncommitted_diffs()
                    .is_ok_and(|after| after != before)
            });
        if result.ok && changed_files {
            // The inputs changed: an earlier toolbox failure no longer explains a failed check.
            self.tool_failure = None;
        }
        let next_step = self.narrowing.after_call(&narrowing::CallOutcome {
            tool: &call.tool,
            args: &args_text,
            ok: result.ok,
            observed: &observed,
            changed_files,
            toolbox: ran_toolbox_tool,
            fixes: if result.ok { &[] } else { &failure_fixes },
        });
        let observation = self
            .setup
            .prompts
            .render(
                "observation.md.j2",
                minijinja::context! {
                    tool => call.tool, ok => result.ok, exit_code => result.exit_code,
                    observation => result.observation, toolbox => ran_toolbox_tool,
                    repeated => repeated, next_step => next_step,
                },
            )
            .map_err(|e| Stop::Engine(e.to_string()))?;
        match result.control {
            Some(ToolControl::FinishStage { summary }) => Ok(CallResult::Finish(summary)),
            Some(ToolControl::AskHuman { question }) => {
                if self.setup.options.batch {
                    return Err(Stop::Escalate {
                        budget: BudgetKind::HumanNeeded,
                        detail: format!("the model asks a human, and none is present: {question}"),
                    });
                }
                self.bus.emit(Event::Paused {
                    reason: format!("the model asks: {question} (answer with a hint)"),
                });
                let answer = self.await_answer().await?;
                self.bus.emit(Event::Resumed);
                Ok(CallResult::Observation(format!(
                    "{observation}\nThe engineer answers: {answer}"
                )))
            }
            None => Ok(CallResult::Observation(observation)),
        }
    }

    /// Wait for the engineer's verdict on `call_id`; other commands are applied meanwhile.
    async fn await_decision(&mut self, call_id: &str) -> Result<Decision, Stop> {
        loop {
            let Some(command) = self.control.next().await else {
                return Err(Stop::Escalate {
                    budget: BudgetKind::HumanNeeded,
                    detail: format!("call {call_id} needs approval and no engineer is connected"),
                });
            };
            match command {
                Command::Approve { call_id: id } if id == call_id => {
                    self.bus.emit(Event::ToolCallApproved {
                        call_id: id,
                        by: "human".to_string(),
                    });
                    return Ok(Decision::Approve(None));
                }
                Command::Reject {
                    call_id: id,
                    reason,
                } if id == call_id => {
                    self.human("reject", &format!("{id}: {reason}"));
                    self.bus.emit(Event::ToolCallRejected {
                        call_id: id,
                        reason: reason.clone(),
                        by: "human".to_string(),
                    });
                    return Ok(Decision::Reject(reason));
                }
                Command::EditCall { call_id: id, args } if id == call_id => {
                    self.human("edit_call", &id);
                    self.bus.emit(Event::ToolCallEdited {
                        call_id: id.clone(),
                        args: args.clone(),
                    });
                    self.bus.emit(Event::ToolCallApproved {
                        call_id: id,
                        by: "human".to_string(),
                    });
                    return Ok(Decision::Approve(Some(args)));
                }
                other => self.apply_command(other).await?,
            }
        }
    }

    /// Wait for a hint that answers the model's question.
    async fn await_answer(&mut self) -> Result<String, Stop> {
        loop {
            match self.control.next().await {
                None => {
                    return Err(Stop::Escalate {
                        budget: BudgetKind::HumanNeeded,
                        detail: "the model asked a question and no engineer is connected"
                            .to_string(),
                    })
                }
                Some(Command::Hint { text }) => {
                    self.human("answer", &text);
                    return Ok(text);
                }
                Some(other) => self.apply_command(other).await?,
            }
        }
    }

    /// A decision point: apply queued commands; while paused, wait.
    async fn poll_point(&mut self) -> Result<(), Stop> {
        while let Some(command) = self.control.try_next() {
            self.apply_command(command).await?;
        }
        while self.control.paused {
            match self.control.next().await {
                Some(command) => self.apply_command(command).await?,
                None => return Err(Interrupt::Abort.into()),
            }
        }
        if self.control.aborted() {
            return Err(Interrupt::Abort.into());
        }
        Ok(())
    }

    /// Apply one command outside an approval prompt.
    async fn apply_command(&mut self, command: Command) -> Result<(), Stop> {
        match command {
            Command::Pause => {
                if !self.control.paused {
                    self.control.paused = true;
                    self.bus.emit(Event::Paused {
                        reason: "paused by the engineer".to_string(),
                    });
                }
            }
            Command::Resume => {
                if self.control.paused {
                    self.control.paused = false;
                    self.bus.emit(Event::Resumed);
                }
            }
            Command::StepMode { on } => {
                self.control.step_mode = on;
                self.bus.emit(Event::StepMode { on });
            }
            Command::Hint { text } => self.add_hint(text)?,
            Command::TakeoverBegin => self.takeover().await?,
            // Stale verdicts (the call already ran or was cancelled) and a hand-back without a
            // takeover change nothing.
            Command::Approve { .. }
            | Command::Reject { .. }
            | Command::EditCall { .. }
            | Command::TakeoverEnd { .. } => {}
            Command::RetryStage { extra_attempts } => {
                self.human("retry_stage", "");
                return Err(Interrupt::RetryStage { extra_attempts }.into());
            }
            Command::SkipStage => {
                self.human("skip_stage", "");
                return Err(Interrupt::SkipStage.into());
            }
            Command::RollbackTo { tag } => {
                self.human("rollback", &tag);
                return Err(Interrupt::RollbackTo { tag }.into());
            }
            Command::Abort => {
                self.human("abort", "");
                return Err(Interrupt::Abort.into());
            }
        }
        Ok(())
    }

    /// A note from the engineer for the model's next turn.
    fn add_hint(&mut self, text: String) -> Result<(), Stop> {
        self.human("hint", &text);
        self.bus.emit(Event::HintAdded { text: text.clone() });
        let note = self
            .setup
            .prompts
            .render("hint.md.j2", minijinja::context! { text => text })
            .map_err(|e| Stop::Engine(e.to_string()))?;
        self.pending_notes.push(note);
        Ok(())
    }

    /// The engineer works in the worktree until they hand back; their change is committed,
    /// recorded with its diff, and shown to the model.
    async fn takeover(&mut self) -> Result<(), Stop> {
        self.human(
            "takeover_begin",
            &self.repo.worktree().display().to_string(),
        );
        self.bus.emit(Event::Paused {
            reason: "taken over by the engineer".to_string(),
        });
        let note = loop {
            match self.control.next().await {
                Some(Command::TakeoverEnd { note }) => break note,
                Some(Command::Abort) | None => return Err(Interrupt::Abort.into()),
                Some(Command::Hint { text }) => self.add_hint(text)?,
                // Everything else waits until the engineer hands back.
                Some(other) => self.control.defer(other),
            }
        };
        let diffs = self
            .repo
            .uncommitted_diffs()
            .map_err(|e| Stop::Engine(format!("git diff after takeover: {e}")))?;
        for diff in &diffs {
            self.bus.emit(Event::FileChanged {
                call_id: None,
                diff: diff.clone(),
            });
        }
        if let Err(e) = self
            .repo
            .commit_all("aipc: the engineer's changes (takeover)")
        {
            return Err(Stop::Engine(format!("git commit after takeover: {e}")));
        }
        self.bus.emit(Event::HumanAction {
            action: "takeover_end".to_string(),
            detail: note.clone().unwrap_or_default(),
            diffs: diffs.clone(),
        });
        let text = self
            .setup
            .prompts
            .render(
                "human_action.md.j2",
                minijinja::context! { note => note, diffs => diffs },
            )
            .map_err(|e| Stop::Engine(e.to_string()))?;
        self.pending_notes.push(text);
        self.bus.emit(Event::Resumed);
        Ok(())
    }

    fn human(&self, action: &str, detail: &str) {
        self.bus.emit(Event::HumanAction {
            action: action.to_string(),
            detail: detail.to_string(),
            diffs: Vec::new(),
        });
    }

    fn check_global_budgets(&self) -> Result<(), Stop> {
        if self.tokens_used >= self.token_limit {
            return Err(Stop::Escalate {
                budget: BudgetKind::Tokens,
                detail: format!("{} tokens used of {}", self.tokens_used, self.token_limit),
            });
        }
        let elapsed = self.started.elapsed();
        if elapsed >= self.wall_limit {
            return Err(Stop::Escalate {
                budget: BudgetKind::WallTime,
                detail: format!(
                    "{} s of wall time used of {}",
                    elapsed.as_secs(),
                    self.wall_limit.as_secs()
                ),
            });
        }
        Ok(())
    }

    fn policy(&self, stage: &StageSpec, tool: &str) -> Policy {
        if ALWAYS_OFFERED.contains(&tool) {
            return Policy::Allow;
        }
        stage.tools.get(tool).copied().unwrap_or(Policy::Deny)
    }

    fn offered_skills(&self, stage: &StageSpec) -> Vec<String> {
        if !self.setup.options.offer_skills {
            return Vec::new();
        }
        stage
            .skills
            .iter()
            .filter(|name| self.setup.skills.get(name).is_some())
            .cloned()
            .collect()
    }

    /// The stage's tools the model may call (denied ones are not offered): the target's
    /// toolbox tools the stage names, in manifest order — the stage's own actions, listed first
    /// because a small model favours what it reads first — then the built-in ones.
    fn offered_tools(&self, stage: &StageSpec) -> Vec<OfferedTool> {
        let has_skills = !self.offered_skills(stage).is_empty();
        self.setup
            .toolbox
            .specs()
            .into_iter()
            .chain(tools::builtin_specs())
            .filter(|spec: &ToolSpec| {
                let allowed = ALWAYS_OFFERED.contains(&spec.name.as_str())
                    || stage
                        .tools
                        .get(&spec.name)
                        .is_some_and(|policy| *policy != Policy::Deny);
                allowed && (spec.name != "load_skill" || has_skills)
            })
            .map(OfferedTool::from)
            .collect()
    }

    fn commit_attempt(&mut self, stage: &str, attempt: u32) -> Result<(), String> {
        match self
            .repo
            .commit_all(&format!("aipc: {stage} attempt {attempt}"))
        {
            Ok(Some(info)) => {
                self.bus.emit(Event::AttemptCommitted {
                    stage: stage.to_string(),
                    attempt,
                    commit: info.commit,
                    files_changed: info.files_changed,
                });
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err(format!("git commit of {stage} attempt {attempt}: {e}")),
        }
    }

    fn record_artifacts(&mut self, stage: &str) {
        let artifacts = match self.repo.artifacts() {
            Ok(artifacts) => artifacts,
            Err(e) => {
                self.bus.emit(Event::EngineError {
                    message: format!("cannot hash build outputs: {e}"),
                });
                return;
            }
        };
        for artifact in artifacts {
            if self.artifact_hashes.get(&artifact.path) == Some(&artifact.sha256) {
                continue;
            }
            self.artifact_hashes
                .insert(artifact.path.clone(), artifact.sha256.clone());
            self.bus.emit(Event::ArtifactRecorded {
                stage: stage.to_string(),
                path: artifact.path,
                sha256: artifact.sha256,
                bytes: artifact.bytes,
            });
        }
    }

    /// Restore files and conversation state to a stage's checkpoint; returns the index of the
    /// stage to run next.
    fn rollback(&mut self, tag: &str) -> Result<usize, String> {
        let prefix = format!("aipc/{}/", self.setup.session_id);
        let stage_name = tag.strip_prefix(&prefix).unwrap_or(tag);
        let index = self
            .setup
            .contract
            .stages
            .iter()
            .position(|s| s.name == stage_name)
            .ok_or_else(|| format!("rollback: no stage checkpoint named {tag}"))?;
        let full_tag = format!("{prefix}{stage_name}");
        if let Err(e) = self
            .repo
            .commit_all("aipc: work in progress before rollback")
        {
            return Err(format!("git commit before rollback: {e}"));
        }
        let info = self
            .repo
            .rollback_to(&full_tag)
            .map_err(|e| format!("rollback to {full_tag}: {e}"))?;
        self.done.truncate(index + 1);
        self.pending_notes.clear();
        self.bus.emit(Event::RolledBack {
            to_tag: full_tag,
            commit: info.commit,
            previous_head: info.previous_head,
        });
        Ok(index + 1)
    }

    /// Write the report and the final event.
    fn finish(self, outcome: Outcome, exit_code: i32) -> RunOutcome {
        let duration_ms = self.started.elapsed().as_millis() as u64;
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

enum CallResult {
    Observation(String),
    Finish(String),
}

enum Decision {
    Approve(Option<serde_json::Value>),
    Reject(String),
}

/// Every tool a contract names must exist: a built-in tool or one of the target's toolbox
/// tools. The contract loader cannot check this (it does not know the manifest); the CLI calls
/// it before setting up a toolchain, and [`Engine::start`] again.
pub fn validate_tools(contract: &Contract, toolbox: &Toolbox) -> Result<(), StartError> {
    let mut known: Vec<&str> = tools::builtin_names();
    known.extend(toolbox.names());
    for stage in &contract.stages {
        for tool in stage.tools.keys() {
            if known.contains(&tool.as_str()) {
                continue;
            }
            let suggestion = closest_name(tool, &known)
                .map(|n| format!("did you mean `{n}`? "))
                .unwrap_or_default();
            let manifest = match &toolbox.file {
                Some(file) => format!("the built-in tools and {}", file.display()),
                None => format!(
                    "the built-in tools (target \"{}\" has no toolbox.toml)",
                    contract.target
                ),
            };
            return Err(StartError::Contract(format!(
                "{}: stage \"{}\": key \"tools.{tool}\": unknown tool (not in {manifest})\n  \
                 hint: {suggestion}known tools: {}",
                contract
                    .sources
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" + "),
                stage.name,
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// The known name nearest to `name`, when near enough to be a typo.
fn closest_name<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (similar::TextDiff::from_chars(name, k).ratio(), *k))
        .filter(|(ratio, _)| *ratio >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
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

fn libgit2_version() -> String {
    let (major, minor, patch) = git2::Version::get().libgit2_version();
    format!("{major}.{minor}.{patch}")
}
