//! [`SessionView`]: the one fold over a session's event stream. Every consumer that needs
//! more than the event in hand — the report, `aipc sessions show`, the transcript, the batch
//! printer, the TUI — reads what the events mean from here: which stage is running and how
//! it stands, which tool a call id names and how the call ended, which check a check id is,
//! the budgets as raised, whether the session is paused, how it ended. A new event kind is a
//! change in [`SessionView::apply`] (which matches every kind) and nowhere else unless a
//! consumer shows something new.
//!
//! The fold is pure: the same events give the same view, live or replayed.

use crate::protocol::{
    BudgetKind, CallStatus, Decider, EngineerAction, Event, EventEnvelope, Evidence, GateResult,
    Outcome, PauseCause,
};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// How a stage stands.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StageStatus {
    /// Not started yet (or to be done again after a rollback).
    Pending,
    /// Started; the session ended inside it when this is final.
    Running,
    Passed,
    Failed,
    Skipped,
}

impl StageStatus {
    pub fn word(self) -> &'static str {
        match self {
            StageStatus::Pending => "pending",
            StageStatus::Running => "running",
            StageStatus::Passed => "passed",
            StageStatus::Failed => "failed",
            StageStatus::Skipped => "skipped",
        }
    }
}

/// How a `checks_first` stage's checks before any model turn went.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChecksFirst {
    Running,
    /// The stage passed with no model call (0 attempts).
    Passed,
    /// They failed; attempt 1 repaired.
    Failed,
}

/// One check's result.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheckSummary {
    pub name: String,
    pub passed: bool,
    pub detail: String,
    pub exit_code: Option<i32>,
    pub gates: Vec<GateResult>,
    pub duration_ms: u64,
}

/// One stage of the session.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StageSummary {
    pub name: String,
    pub status: StageStatus,
    pub attempts: u32,
    pub metrics: BTreeMap<String, f64>,
    /// The checks of the stage's last attempt.
    pub checks: Vec<CheckSummary>,
    pub duration_ms: u64,
    pub tool_calls: u32,
    pub model_turns: u32,
    pub tokens: u64,
    pub checkpoint: Option<String>,
    /// The evidence of the stage's last failure, if any.
    pub last_evidence: Option<Evidence>,
    /// For a `checks_first` stage, how its checks before any model turn went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks_first: Option<ChecksFirst>,
}

impl StageSummary {
    fn new(name: &str) -> Self {
        StageSummary {
            name: name.to_string(),
            status: StageStatus::Pending,
            attempts: 0,
            metrics: BTreeMap::new(),
            checks: Vec::new(),
            duration_ms: 0,
            tool_calls: 0,
            model_turns: 0,
            tokens: 0,
            checkpoint: None,
            last_evidence: None,
            checks_first: None,
        }
    }
}

/// A build output recorded with its hash.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArtifactSummary {
    pub stage: String,
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
}

/// A budget that ran out.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Escalation {
    pub stage: Option<String>,
    pub budget: BudgetKind,
    pub detail: String,
}

/// What `session_started` says about the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionFacts {
    pub session_id: String,
    pub project: String,
    pub target: String,
    pub model: String,
    pub worktree: String,
    pub branch: String,
    pub base_commit: String,
    pub batch: bool,
    pub context_size: u32,
}

/// One tool call as far as the events tell.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSummary {
    pub tool: String,
    /// The stage it was proposed in.
    pub stage: String,
    pub args: serde_json::Value,
    pub policy: crate::protocol::Policy,
    /// Who let it run or stopped it, once decided.
    pub decided_by: Option<Decider>,
    /// How it ended, once it did.
    pub status: Option<CallStatus>,
    /// Output lines it printed so far.
    pub output_lines: usize,
}

/// One check as far as the events tell.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRef {
    pub name: String,
    pub stage: String,
    pub command: Option<String>,
    /// Output lines it printed so far.
    pub output_lines: usize,
}

/// Session-wide counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub model_turns: u32,
    pub invalid_replies: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    pub model_time_ms: u64,
    /// Time in check commands and tool calls.
    pub toolchain_time_ms: u64,
    /// Calls that ran.
    pub tool_calls: u32,
    /// Approvals, rejections, hints, retries … by the engineer (a takeover counts once).
    pub human_interventions: u32,
    /// `ask` calls decided without an engineer (batch): approved (`--approve-all`), denied.
    pub batch_approved: u32,
    pub batch_denied: u32,
}

/// What guarded the session's commands ([`Event::SessionPolicy`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyFacts {
    /// `strict`, `workspace-write` or `off`.
    pub sandbox: String,
    pub chosen_by: String,
    pub detail: String,
    pub approve_all: bool,
    pub toolbox_digest: String,
    /// The device run, accuracy and performance executed on (empty: the build host).
    pub device: String,
}

/// The global budgets as the events set and raised them (0: not recorded).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BudgetLimits {
    pub tokens: u64,
    pub wall_time_s: u64,
}

/// How the session ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    pub outcome: Outcome,
    pub exit_code: i32,
    pub report: Option<String>,
    pub duration_ms: u64,
}

/// Everything the events of a session say, folded: the session-wide facts (always) and the
/// detail per stage, call and check (unless [`SessionView::facts_only`]).
#[derive(Debug, Clone, Default)]
pub struct SessionView {
    // Session-wide facts.
    pub session: Option<SessionFacts>,
    pub totals: Totals,
    pub limits: BudgetLimits,
    pub errors: Vec<String>,
    /// The sandbox and approval policy, as last recorded (`None` in logs before it was).
    pub policy: Option<PolicyFacts>,
    /// Why the session is paused, while it is: the cause and the engine's words.
    pub paused: Option<(PauseCause, String)>,
    pub step_mode: bool,
    pub taken_over: bool,
    pub ended: Option<Ending>,
    pub last_seq: Option<u64>,
    pub last_ts_ms: u64,
    // Detail.
    pub stages: Vec<StageSummary>,
    /// The index of the stage last started.
    pub current: Option<usize>,
    pub calls: HashMap<String, CallSummary>,
    pub checks: HashMap<String, CheckRef>,
    pub checkpoints: Vec<(String, String)>,
    pub artifacts: Vec<ArtifactSummary>,
    pub escalations: Vec<Escalation>,
    /// Fold the session-wide facts only (see [`SessionView::facts_only`]).
    facts_only: bool,
}

impl SessionView {
    /// A view of the session-wide facts only: the detail (stages, calls, checks, checkpoints,
    /// artifacts, escalations) stays empty. For a consumer that keeps its own detail and clones
    /// its state often — the TUI snapshots its state to seek a replay; with the detail inside,
    /// opening a 100,000-event replay took 7× as long and a seek 1.2× to 8.5×.
    pub fn facts_only() -> SessionView {
        SessionView {
            facts_only: true,
            ..SessionView::default()
        }
    }

    /// The view of `events`, in order.
    pub fn of<'a>(events: impl IntoIterator<Item = &'a EventEnvelope>) -> SessionView {
        let mut view = SessionView::default();
        for envelope in events {
            view.apply(envelope);
        }
        view
    }

    /// Model tokens used so far (prompt and completion).
    pub fn tokens_used(&self) -> u64 {
        self.totals.prompt_tokens + self.totals.completion_tokens
    }

    /// Fold one more event.
    pub fn apply(&mut self, envelope: &EventEnvelope) {
        self.last_seq = Some(envelope.seq);
        self.last_ts_ms = envelope.ts_ms;
        self.apply_facts(&envelope.event);
        if !self.facts_only {
            self.apply_detail(&envelope.event);
        }
    }

    /// The session-wide facts an event changes.
    fn apply_facts(&mut self, event: &Event) {
        match event {
            Event::SessionStarted {
                session_id,
                project,
                target,
                model,
                worktree,
                branch,
                base_commit,
                batch,
                context_size,
                token_budget,
                wall_time_s,
                stages: _,
            } => {
                self.session = Some(SessionFacts {
                    session_id: session_id.clone(),
                    project: project.clone(),
                    target: target.clone(),
                    model: model.clone(),
                    worktree: worktree.clone(),
                    branch: branch.clone(),
                    base_commit: base_commit.clone(),
                    batch: *batch,
                    context_size: *context_size,
                });
                self.limits = BudgetLimits {
                    tokens: *token_budget,
                    wall_time_s: *wall_time_s,
                };
            }
            Event::ModelResponse {
                prompt_tokens,
                completion_tokens,
                cached_tokens,
                duration_ms,
                ..
            } => {
                let t = &mut self.totals;
                t.model_turns += 1;
                t.prompt_tokens += prompt_tokens;
                t.completion_tokens += completion_tokens;
                t.cached_tokens += cached_tokens;
                t.model_time_ms += duration_ms;
            }
            Event::ModelInvalidCall { .. } => self.totals.invalid_replies += 1,
            Event::ToolCallApproved { by, .. } => match by {
                Decider::Human => self.totals.human_interventions += 1,
                Decider::Batch => self.totals.batch_approved += 1,
                Decider::Policy | Decider::Model => {}
            },
            Event::ToolCallRejected { by, .. } => {
                if *by == Decider::Batch {
                    self.totals.batch_denied += 1;
                }
            }
            Event::SessionPolicy {
                sandbox,
                sandbox_chosen_by,
                sandbox_detail,
                approve_all,
                toolbox_digest,
                device,
                ..
            } => {
                self.policy = Some(PolicyFacts {
                    sandbox: sandbox.clone(),
                    chosen_by: sandbox_chosen_by.clone(),
                    detail: sandbox_detail.clone(),
                    approve_all: *approve_all,
                    toolbox_digest: toolbox_digest.clone(),
                    device: device.clone(),
                })
            }
            Event::ToolCallStarted { .. } => self.totals.tool_calls += 1,
            Event::ToolCallFinished { duration_ms, .. }
            | Event::CheckResult { duration_ms, .. } => {
                self.totals.toolchain_time_ms += duration_ms;
            }
            Event::BudgetRaised { budget, limit } => match budget {
                BudgetKind::Tokens => self.limits.tokens = *limit,
                BudgetKind::WallTime => self.limits.wall_time_s = *limit,
                BudgetKind::Attempts
                | BudgetKind::Turns
                | BudgetKind::NoProgress
                | BudgetKind::HumanNeeded => {}
            },
            Event::Paused { reason, cause } => self.paused = Some((*cause, reason.clone())),
            Event::Resumed => self.paused = None,
            Event::StepMode { on } => self.step_mode = *on,
            Event::HumanAction { action, .. } => match action {
                EngineerAction::TakeoverBegin => {
                    self.taken_over = true;
                    self.totals.human_interventions += 1;
                }
                // A takeover counts once, at its beginning.
                EngineerAction::TakeoverEnd => self.taken_over = false,
                EngineerAction::Retry
                | EngineerAction::Reject
                | EngineerAction::EditCall
                | EngineerAction::Answer
                | EngineerAction::Hint
                | EngineerAction::RetryStage
                | EngineerAction::SkipStage
                | EngineerAction::Rollback
                | EngineerAction::Abort
                | EngineerAction::Other(_) => self.totals.human_interventions += 1,
            },
            Event::EngineError { message } => self.errors.push(message.clone()),
            Event::SessionFinished {
                outcome,
                exit_code,
                report,
                duration_ms,
            } => {
                self.ended = Some(Ending {
                    outcome: *outcome,
                    exit_code: *exit_code,
                    report: report.clone(),
                    duration_ms: *duration_ms,
                });
                self.paused = None;
            }
            Event::StageStarted { .. }
            | Event::AttemptStarted { .. }
            | Event::ModelRequest { .. }
            | Event::ModelDelta { .. }
            | Event::Compacted { .. }
            | Event::ToolCallProposed { .. }
            | Event::ToolCallEdited { .. }
            | Event::ToolOutput { .. }
            | Event::FileChanged { .. }
            | Event::CheckStarted { .. }
            | Event::CheckOutput { .. }
            | Event::EvidenceCollected { .. }
            | Event::AttemptCommitted { .. }
            | Event::ArtifactRecorded { .. }
            | Event::FilesNotCommitted { .. }
            | Event::CheckpointMade { .. }
            | Event::StagePassed { .. }
            | Event::StageFailed { .. }
            | Event::StageSkipped { .. }
            | Event::BudgetExhausted { .. }
            | Event::HintAdded { .. }
            | Event::RolledBack { .. }
            | Event::SessionResumed { .. } => {}
        }
    }

    /// The detail an event changes: stages, calls, checks, checkpoints, artifacts,
    /// escalations.
    fn apply_detail(&mut self, event: &Event) {
        let current = self.current;
        let stage = current.and_then(|i| self.stages.get_mut(i));
        match event {
            Event::SessionStarted { stages, .. } => {
                self.stages = stages.iter().map(|name| StageSummary::new(name)).collect();
            }
            Event::StageStarted { stage: name, .. } => {
                self.current = self.stages.iter().position(|s| &s.name == name);
                if let Some(s) = self.current.and_then(|i| self.stages.get_mut(i)) {
                    s.status = StageStatus::Running;
                    s.attempts = 0;
                    s.checks.clear();
                    s.checks_first = None;
                }
            }
            Event::AttemptStarted { attempt, .. } => {
                if let Some(s) = stage {
                    s.attempts = *attempt;
                    s.checks.clear();
                    if *attempt == 0 {
                        s.checks_first = Some(ChecksFirst::Running);
                    }
                }
            }
            Event::ModelResponse {
                prompt_tokens,
                completion_tokens,
                ..
            } => {
                if let Some(s) = stage {
                    s.model_turns += 1;
                    s.tokens += prompt_tokens + completion_tokens;
                }
            }
            Event::ToolCallProposed {
                call_id,
                tool,
                args,
                policy,
                ..
            } => {
                self.calls.insert(
                    call_id.clone(),
                    CallSummary {
                        tool: tool.clone(),
                        stage: stage.map(|s| s.name.clone()).unwrap_or_default(),
                        args: args.clone(),
                        policy: *policy,
                        decided_by: None,
                        status: None,
                        output_lines: 0,
                    },
                );
            }
            Event::ToolCallApproved { call_id, by }
            | Event::ToolCallRejected { call_id, by, .. } => {
                if let Some(call) = self.calls.get_mut(call_id) {
                    call.decided_by = Some(*by);
                }
            }
            Event::ToolCallEdited { call_id, args } => {
                if let Some(call) = self.calls.get_mut(call_id) {
                    call.args = args.clone();
                }
            }
            Event::ToolCallStarted { .. } => {
                if let Some(s) = stage {
                    s.tool_calls += 1;
                }
            }
            Event::ToolOutput { call_id, .. } => {
                if let Some(call) = self.calls.get_mut(call_id) {
                    call.output_lines += 1;
                }
            }
            Event::ToolCallFinished {
                call_id, status, ..
            } => {
                if let Some(call) = self.calls.get_mut(call_id) {
                    call.status = Some(*status);
                }
            }
            Event::CheckStarted {
                check_id,
                stage: stage_name,
                name,
                command,
            } => {
                self.checks.insert(
                    check_id.clone(),
                    CheckRef {
                        name: name.clone(),
                        stage: stage_name.clone(),
                        command: command.clone(),
                        output_lines: 0,
                    },
                );
            }
            Event::CheckOutput { check_id, .. } => {
                if let Some(check) = self.checks.get_mut(check_id) {
                    check.output_lines += 1;
                }
            }
            Event::CheckResult {
                check_id,
                passed,
                exit_code,
                detail,
                metrics,
                gates,
                duration_ms,
                skipped,
            } => {
                let name = self
                    .checks
                    .get(check_id)
                    .map(|c| c.name.clone())
                    .unwrap_or_default();
                if let Some(s) = stage {
                    s.metrics.extend(metrics.clone());
                    s.checks.push(CheckSummary {
                        name,
                        passed: *passed,
                        detail: match skipped {
                            Some(reason) => format!("skipped: {reason}"),
                            None => detail.clone(),
                        },
                        exit_code: *exit_code,
                        gates: gates.clone(),
                        duration_ms: *duration_ms,
                    });
                }
            }
            Event::EvidenceCollected {
                evidence, attempt, ..
            } => {
                if let Some(s) = stage {
                    s.last_evidence = Some(evidence.clone());
                    if *attempt == 0 && s.checks_first.is_some() {
                        s.checks_first = Some(ChecksFirst::Failed);
                    }
                }
            }
            Event::ArtifactRecorded {
                stage: name,
                path,
                sha256,
                bytes,
            } => {
                self.artifacts.retain(|a| &a.path != path);
                self.artifacts.push(ArtifactSummary {
                    stage: name.clone(),
                    path: path.clone(),
                    sha256: sha256.clone(),
                    bytes: *bytes,
                });
            }
            Event::CheckpointMade {
                stage: name,
                tag,
                commit,
            } => {
                self.checkpoints.push((tag.clone(), commit.clone()));
                if let Some(s) = self.stages.iter_mut().find(|s| &s.name == name) {
                    s.checkpoint = Some(tag.clone());
                }
            }
            Event::StagePassed {
                attempts,
                duration_ms,
                ..
            } => {
                if let Some(s) = stage {
                    s.status = StageStatus::Passed;
                    s.attempts = *attempts;
                    s.duration_ms = *duration_ms;
                    if *attempts == 0 && s.checks_first.is_some() {
                        s.checks_first = Some(ChecksFirst::Passed);
                    }
                }
            }
            Event::StageFailed { attempts, .. } => {
                if let Some(s) = stage {
                    s.status = StageStatus::Failed;
                    s.attempts = *attempts;
                }
            }
            Event::StageSkipped { stage: name, .. } => {
                if let Some(s) = self.stages.iter_mut().find(|s| &s.name == name) {
                    s.status = StageStatus::Skipped;
                }
            }
            Event::BudgetExhausted {
                stage: name,
                budget,
                detail,
            } => self.escalations.push(Escalation {
                stage: name.clone(),
                budget: *budget,
                detail: detail.clone(),
            }),
            Event::RolledBack { stage: name, .. } => {
                // Stages after the checkpoint are to be done again.
                if let Some(i) = self.stages.iter().position(|s| &s.name == name) {
                    for s in self.stages.iter_mut().skip(i + 1) {
                        *s = StageSummary::new(&s.name.clone());
                    }
                }
            }
            Event::ModelRequest { .. }
            | Event::ModelDelta { .. }
            | Event::Compacted { .. }
            | Event::ModelInvalidCall { .. }
            | Event::FileChanged { .. }
            | Event::AttemptCommitted { .. }
            | Event::FilesNotCommitted { .. }
            | Event::BudgetRaised { .. }
            | Event::SessionPolicy { .. }
            | Event::Paused { .. }
            | Event::Resumed
            | Event::StepMode { .. }
            | Event::HintAdded { .. }
            | Event::HumanAction { .. }
            | Event::EngineError { .. }
            | Event::SessionResumed { .. }
            | Event::SessionFinished { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Policy;

    fn env(seq: u64, event: Event) -> EventEnvelope {
        EventEnvelope {
            seq,
            ts_ms: seq,
            event,
        }
    }

    fn started(stages: &[&str]) -> Event {
        Event::SessionStarted {
            session_id: "s".into(),
            project: "p".into(),
            target: "t".into(),
            model: "m".into(),
            worktree: "w".into(),
            branch: "b".into(),
            base_commit: "c".into(),
            batch: true,
            stages: stages.iter().map(|s| s.to_string()).collect(),
            context_size: 4096,
            token_budget: 1000,
            wall_time_s: 60,
        }
    }

    #[test]
    fn a_rejected_call_ends_rejected_and_names_its_decider() {
        let events = [
            env(0, started(&["export"])),
            env(
                1,
                Event::StageStarted {
                    stage: "export".into(),
                    index: 0,
                    goal: "g".into(),
                    max_attempts: 2,
                },
            ),
            env(
                2,
                Event::ToolCallProposed {
                    call_id: "export.1".into(),
                    tool: "run".into(),
                    args: serde_json::json!({"command": "ls"}),
                    thought: None,
                    policy: Policy::Deny,
                },
            ),
            env(
                3,
                Event::ToolCallRejected {
                    call_id: "export.1".into(),
                    reason: "denied".into(),
                    by: Decider::Policy,
                },
            ),
            env(
                4,
                Event::ToolCallFinished {
                    call_id: "export.1".into(),
                    ok: false,
                    status: CallStatus::Rejected,
                    observation: "x".into(),
                    exit_code: None,
                    duration_ms: 0,
                },
            ),
        ];
        let view = SessionView::of(&events);
        let call = &view.calls["export.1"];
        assert_eq!(call.stage, "export");
        assert_eq!(call.decided_by, Some(Decider::Policy));
        assert_eq!(call.status, Some(CallStatus::Rejected));
        assert_eq!(view.totals.tool_calls, 0, "a rejected call never ran");
        assert_eq!(call.tool, "run");
    }

    #[test]
    fn raised_budgets_and_rollbacks_fold_from_their_events() {
        let events = [
            env(0, started(&["a", "b"])),
            env(
                1,
                Event::BudgetRaised {
                    budget: BudgetKind::Tokens,
                    limit: 2000,
                },
            ),
            env(
                2,
                Event::StageStarted {
                    stage: "b".into(),
                    index: 1,
                    goal: String::new(),
                    max_attempts: 1,
                },
            ),
            env(
                3,
                Event::RolledBack {
                    stage: "a".into(),
                    to_tag: "aipc/s/a".into(),
                    commit: "c".into(),
                    previous_head: "d".into(),
                },
            ),
        ];
        let view = SessionView::of(&events);
        assert_eq!(view.limits.tokens, 2000);
        assert_eq!(view.limits.wall_time_s, 60);
        assert_eq!(view.stages[1].status, StageStatus::Pending);
        assert_eq!(view.last_seq, Some(3));
    }

    #[test]
    fn facts_only_folds_the_same_facts_and_no_detail() {
        let events = [
            env(0, started(&["export"])),
            env(
                1,
                Event::ToolCallProposed {
                    call_id: "export.1".into(),
                    tool: "run".into(),
                    args: serde_json::json!({}),
                    thought: None,
                    policy: Policy::Allow,
                },
            ),
            env(
                2,
                Event::ToolCallStarted {
                    call_id: "export.1".into(),
                    tool: "run".into(),
                },
            ),
        ];
        let mut light = SessionView::facts_only();
        for e in &events {
            light.apply(e);
        }
        let full = SessionView::of(&events);
        assert!(light.calls.is_empty() && light.stages.is_empty());
        assert_eq!(full.calls.len(), 1);
        assert_eq!(light.totals, full.totals);
        assert_eq!(light.last_seq, full.last_seq);
    }
}
