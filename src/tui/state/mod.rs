//! [`TuiState`]: everything the views show, as a pure function of the events applied so far —
//! no terminal, no clock, no I/O except the log buffer's spill file. The live TUI applies the
//! engine's events as they arrive; a replay applies recorded ones (and rebuilds from the start
//! to seek backwards), so both show exactly the same thing for the same events.
//!
//! What the protocol leaves implicit is derived here, deterministically:
//! - a call waits for the engineer when it was proposed with policy `ask`, or while step mode
//!   was on, in a session that is not batch (the engine's rule in `run_call`), until it is
//!   approved or rejected;
//! - an escalation starts with a `budget_exhausted` other than `turns` in an interactive
//!   session and lasts until the stage starts an attempt again, ends, or is rolled back;
//! - the log line the classifier points at is the first line of the failed check's output
//!   holding one of the evidence's facts, else the first one naming an error.
//!
//! `types.rs` holds the data the views read; `output.rs` the log side (commands, their output
//! lines, checks, the evidence's line); this file the reducer.

mod output;
mod types;

pub use types::*;

use crate::protocol::{
    BudgetKind, EngineerAction, Event, EventEnvelope, FileDiff, Outcome, Policy,
};
use crate::session::SessionView;
use crate::tui::cells::{CallCell, CallResult, Cell, Decision, Level, Transcript};
use crate::tui::logbuf::LogBuf;
use crate::tui::shared::SharedVec;
use output::CheckOutcome;
use std::collections::HashMap;
use std::sync::Arc;

/// How much streamed model text is kept for display.
const STREAM_KEEP_BYTES: usize = 16 * 1024;

pub struct TuiState {
    pub session: Option<SessionInfo>,
    pub stages: Vec<StageView>,
    pub current: Option<usize>,
    pub transcript: Transcript,
    pub log: LogBuf,
    pub origins: SharedVec<Origin>,
    origin_ids: HashMap<Arc<str>, u32>,
    call_cells: HashMap<Arc<str>, usize>,
    pub diffs: SharedVec<DiffEntry>,
    pub checks: Option<ChecksView>,
    pub evidence: Option<EvidenceView>,
    pub escalation: Option<Escalation>,
    pub approval: Option<Approval>,
    pub model: ModelStats,
    pub finished: Option<Finished>,
    /// The session-wide facts as the one fold over its events has them: budgets as raised,
    /// tokens used, pause and its cause, step mode, takeover, errors ([`SessionView`], facts
    /// only: the TUI keeps its own stages and call cells).
    pub view: SessionView,
    pub last_seq: Option<u64>,
    pub last_ts: u64,
    /// Events a lagging live consumer never saw.
    pub missed: u64,
}

/// A [`TuiState`] kept to return to: see [`TuiState::snapshot`].
pub struct Snapshot {
    state: Box<TuiState>,
    log_len: u64,
}

impl TuiState {
    /// An empty state whose log buffer spills as `log` says.
    pub fn new(log: LogBuf) -> Self {
        TuiState {
            session: None,
            stages: Vec::new(),
            current: None,
            transcript: Transcript::default(),
            log,
            origins: SharedVec::new(),
            origin_ids: HashMap::new(),
            call_cells: HashMap::new(),
            diffs: SharedVec::new(),
            checks: None,
            evidence: None,
            escalation: None,
            approval: None,
            model: ModelStats::default(),
            finished: None,
            view: SessionView::facts_only(),
            last_seq: None,
            last_ts: 0,
            missed: 0,
        }
    }

    /// The state now, for [`TuiState::restore`]: everything but the log's lines, which stay
    /// in the log (it only hides lines when going back). Cheap: the transcript, origins and
    /// diffs are shared with this state until one of them changes.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: Box::new(self.clone_with_log(LogBuf::new(None, 1))),
            log_len: self.log.len(),
        }
    }

    /// Go back (or forward) to `snapshot`, taken from this state or from one that applied the
    /// same events: everything as it was then, the log showing its first lines of then. False
    /// (and nothing changed) when this log never held that many lines.
    pub fn restore(&mut self, snapshot: &Snapshot) -> bool {
        if !self.log.can_show(snapshot.log_len) {
            return false;
        }
        let log = std::mem::replace(&mut self.log, LogBuf::new(None, 1));
        *self = snapshot.state.clone_with_log(log);
        self.log.show(snapshot.log_len);
        true
    }

    /// A copy of everything but the log, with `log` as its log.
    fn clone_with_log(&self, log: LogBuf) -> TuiState {
        TuiState {
            session: self.session.clone(),
            stages: self.stages.clone(),
            current: self.current,
            transcript: self.transcript.clone(),
            log,
            origins: self.origins.clone(),
            origin_ids: self.origin_ids.clone(),
            call_cells: self.call_cells.clone(),
            diffs: self.diffs.clone(),
            checks: self.checks.clone(),
            evidence: self.evidence.clone(),
            escalation: self.escalation.clone(),
            approval: self.approval.clone(),
            model: self.model.clone(),
            finished: self.finished.clone(),
            view: self.view.clone(),
            last_seq: self.last_seq,
            last_ts: self.last_ts,
            missed: self.missed,
        }
    }

    /// The stage being worked on, if any.
    pub fn current_stage(&self) -> Option<&StageView> {
        self.current.and_then(|i| self.stages.get(i))
    }

    /// Passed stages' checkpoints as (stage, tag), in stage order.
    pub fn checkpoints(&self) -> Vec<(String, String)> {
        self.stages
            .iter()
            .filter_map(|s| {
                s.checkpoint
                    .as_ref()
                    .map(|(tag, _)| (s.name.clone(), tag.clone()))
            })
            .collect()
    }

    /// Note that a live consumer missed `count` events.
    pub fn note_missed(&mut self, count: u64) {
        self.missed += count;
        self.transcript.push(Cell::Note {
            level: Level::Warning,
            text: format!("{count} events not shown (the session log has them)"),
        });
    }

    /// Apply one event.
    pub fn apply(&mut self, envelope: &EventEnvelope) {
        self.view.apply(envelope);
        self.last_seq = Some(envelope.seq);
        self.last_ts = envelope.ts_ms;
        let ts = envelope.ts_ms;
        match &envelope.event {
            Event::SessionStarted {
                session_id,
                project,
                target,
                model,
                worktree,
                branch,
                base_commit,
                batch,
                stages,
                context_size,
                token_budget: _,
                wall_time_s: _,
            } => {
                self.session = Some(SessionInfo {
                    id: session_id.clone(),
                    project: project.clone(),
                    target: target.clone(),
                    model: model.clone(),
                    worktree: worktree.clone(),
                    branch: branch.clone(),
                    base_commit: base_commit.clone(),
                    batch: *batch,
                    context_size: *context_size,
                    started_ms: ts,
                });
                self.stages = stages
                    .iter()
                    .map(|name| StageView {
                        name: name.clone(),
                        goal: String::new(),
                        status: StageStatus::Pending,
                        attempt: 0,
                        max_attempts: 0,
                        started_ms: None,
                        duration_ms: None,
                        checkpoint: None,
                        last_commit: None,
                    })
                    .collect();
            }
            Event::StageStarted {
                stage,
                index,
                goal,
                max_attempts,
            } => {
                self.escalation = None;
                self.current = Some(*index);
                if let Some(view) = self.stages.get_mut(*index) {
                    view.goal = goal.clone();
                    view.status = StageStatus::Running;
                    view.attempt = 0;
                    view.max_attempts = *max_attempts;
                    view.started_ms = Some(ts);
                    view.duration_ms = None;
                }
                self.transcript.push(Cell::Stage {
                    index: *index,
                    name: stage.clone(),
                    goal: goal.clone(),
                });
            }
            Event::AttemptStarted {
                stage,
                attempt,
                max_attempts,
            } => {
                self.escalation = None;
                if let Some(view) = self.stage_mut(stage) {
                    view.status = StageStatus::Running;
                    view.attempt = *attempt;
                    view.max_attempts = *max_attempts;
                }
                self.transcript.push(Cell::Attempt {
                    stage: stage.clone(),
                    attempt: *attempt,
                    max_attempts: *max_attempts,
                });
            }
            Event::ModelRequest { request_id, .. } => {
                self.model.requests += 1;
                self.model.streaming = Some((*request_id, String::new()));
            }
            Event::ModelDelta { request_id, text } => {
                if let Some((id, streamed)) = self.model.streaming.as_mut() {
                    if id == request_id && streamed.len() < STREAM_KEEP_BYTES {
                        streamed.push_str(text);
                    }
                }
            }
            Event::ModelResponse {
                request_id,
                text,
                prompt_tokens,
                completion_tokens,
                duration_ms,
                ..
            } => {
                self.model.streaming = None;
                self.model.last_reply = text.chars().take(2_000).collect();
                self.model.prompt_tokens += prompt_tokens;
                self.model.completion_tokens += completion_tokens;
                self.model.context_used = prompt_tokens + completion_tokens;
                if *duration_ms > 0 {
                    self.model.last_tokens_per_s =
                        Some(*completion_tokens as f64 * 1000.0 / *duration_ms as f64);
                }
                self.transcript.push(Cell::Model {
                    request_id: *request_id,
                    prompt_tokens: *prompt_tokens,
                    completion_tokens: *completion_tokens,
                    duration_ms: *duration_ms,
                });
            }
            Event::Compacted {
                folded,
                chars_before,
                chars_after,
                ..
            } => {
                self.transcript.push(Cell::Note {
                    level: Level::Info,
                    text: format!(
                        "context full: folded {folded} older tool outputs ({chars_before} → {chars_after} chars)"
                    ),
                });
            }
            Event::ModelInvalidCall { error, .. } => {
                self.transcript.push(Cell::InvalidReply {
                    error: error.clone(),
                    text: self.model.last_reply.clone(),
                });
            }
            Event::ToolCallProposed {
                call_id,
                tool,
                args,
                thought,
                policy,
            } => self.call_proposed(call_id, tool, args, thought, *policy),
            Event::ToolCallApproved { call_id, by } => {
                self.decide(call_id, Decision::Approved { by: *by })
            }
            Event::ToolCallRejected {
                call_id,
                reason,
                by,
            } => self.decide(
                call_id,
                Decision::Rejected {
                    by: *by,
                    reason: reason.clone(),
                },
            ),
            Event::ToolCallEdited { call_id, args } => {
                if let Some(call) = self.call_mut(call_id) {
                    call.args = args.clone();
                    call.edited = true;
                }
            }
            Event::ToolCallStarted { call_id, tool } => self.tool_started(call_id, tool),
            Event::ToolOutput {
                call_id,
                stream,
                line,
            } => self.output_line(call_id, *stream, line),
            // A call that never ran: its rejection is on the call already; a cancelled one
            // stops waiting.
            Event::ToolCallFinished {
                call_id, status, ..
            } if !status.ran() => {
                if self
                    .approval
                    .as_ref()
                    .is_some_and(|a| a.call_id == *call_id)
                {
                    self.approval = None;
                }
            }
            Event::ToolCallFinished {
                call_id,
                ok,
                observation,
                exit_code,
                duration_ms,
                ..
            } => {
                let summary = observation
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_string();
                if let Some(call) = self.call_mut(call_id) {
                    call.running = false;
                    call.result = Some(CallResult {
                        ok: *ok,
                        exit_code: *exit_code,
                        duration_ms: *duration_ms,
                        summary,
                    });
                }
                let code = exit_code
                    .map(|c| format!("exit {c}"))
                    .unwrap_or_else(|| if *ok { "ok" } else { "failed" }.to_string());
                self.close_origin(call_id, format!("{code} · {}", seconds(*duration_ms)));
            }
            Event::FileChanged { call_id, diff } => {
                let (stage, attempt) = self
                    .current_stage()
                    .map(|s| (s.name.clone(), s.attempt))
                    .unwrap_or_default();
                let by = call_id.clone().unwrap_or_else(|| "engineer".to_string());
                if let Some(call) = call_id.as_ref().and_then(|id| self.call_mut(id)) {
                    call.files
                        .push((diff.path.clone(), diff.added, diff.removed));
                }
                self.diffs.push(DiffEntry {
                    stage,
                    attempt,
                    by,
                    diff: diff.clone(),
                });
            }
            Event::CheckStarted {
                check_id,
                stage,
                name,
                command,
            } => self.check_started(check_id, stage, name, command),
            Event::CheckOutput {
                check_id,
                stream,
                line,
            } => self.output_line(check_id, *stream, line),
            Event::CheckResult {
                check_id,
                passed,
                exit_code,
                detail,
                metrics,
                gates,
                duration_ms,
                skipped,
            } => self.check_result(CheckOutcome {
                skipped: skipped.as_deref(),
                check_id,
                passed: *passed,
                exit_code: *exit_code,
                detail,
                metrics,
                gates,
                duration_ms: *duration_ms,
            }),
            Event::EvidenceCollected {
                stage,
                attempt,
                evidence,
            } => {
                let anchor = self.evidence_anchor(evidence);
                self.evidence = Some(EvidenceView {
                    stage: stage.clone(),
                    attempt: *attempt,
                    evidence: evidence.clone(),
                    anchor,
                });
                self.transcript.push(Cell::Evidence {
                    signature: evidence.signature.clone(),
                    class: evidence.class.clone(),
                });
            }
            Event::AttemptCommitted {
                stage,
                attempt,
                commit,
                files_changed,
            } => {
                if let Some(view) = self.stage_mut(stage) {
                    view.last_commit = Some(commit.clone());
                }
                self.transcript.push(Cell::Note {
                    level: Level::Info,
                    text: format!(
                        "committed attempt {attempt}: {} ({files_changed} files)",
                        short(commit)
                    ),
                });
            }
            Event::ArtifactRecorded {
                path,
                sha256,
                bytes,
                ..
            } => {
                self.transcript.push(Cell::Note {
                    level: Level::Info,
                    text: format!("artifact {path} ({bytes} bytes, sha256 {})", short(sha256)),
                });
            }
            Event::FilesNotCommitted { files, .. } => {
                self.transcript.push(Cell::Note {
                    level: Level::Warning,
                    text: format!(
                        "not committed (git cannot store these names): {}",
                        files
                            .iter()
                            .map(|f| f.path.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
            Event::CheckpointMade { stage, commit, tag } => {
                if let Some(view) = self.stage_mut(stage) {
                    view.checkpoint = Some((tag.clone(), commit.clone()));
                    view.last_commit = Some(commit.clone());
                }
                self.transcript.push(Cell::Note {
                    level: Level::Success,
                    text: format!("checkpoint {tag}"),
                });
            }
            Event::StagePassed {
                stage,
                attempts,
                duration_ms,
            } => {
                self.end_stage(stage, StageStatus::Passed, Some(*duration_ms), ts);
                self.transcript.push(Cell::Note {
                    level: Level::Success,
                    text: format!(
                        "✔ {stage} passed after {attempts} attempt(s) in {}",
                        seconds(*duration_ms)
                    ),
                });
            }
            Event::StageFailed { stage, reason, .. } => {
                self.end_stage(stage, StageStatus::Failed, None, ts);
                self.transcript.push(Cell::Note {
                    level: Level::Error,
                    text: format!("✘ {stage} failed: {reason}"),
                });
            }
            Event::StageSkipped { stage, by, reason } => {
                self.end_stage(stage, StageStatus::Skipped, None, ts);
                let text = if reason.is_empty() {
                    format!("{stage} skipped by {by}")
                } else {
                    format!("{stage} skipped: {reason}")
                };
                self.transcript.push(Cell::Note {
                    level: Level::Warning,
                    text,
                });
            }
            Event::BudgetExhausted {
                stage,
                budget,
                detail,
            } => {
                let batch = self.session.as_ref().is_some_and(|s| s.batch);
                if *budget != BudgetKind::Turns && !batch {
                    self.escalation = Some(Escalation {
                        stage: stage.clone(),
                        budget: *budget,
                        detail: detail.clone(),
                    });
                    if let Some(view) = stage.as_ref().and_then(|s| self.stage_mut(s)) {
                        view.status = StageStatus::Escalated;
                    }
                }
                self.transcript.push(Cell::Budget {
                    budget: *budget,
                    detail: detail.clone(),
                });
            }
            Event::Paused { reason, .. } => {
                self.transcript.push(Cell::Note {
                    level: Level::Warning,
                    text: format!("paused: {reason}"),
                });
            }
            Event::Resumed => {
                self.transcript.push(Cell::Note {
                    level: Level::Info,
                    text: "resumed".to_string(),
                });
            }
            Event::StepMode { on } => {
                self.transcript.push(Cell::Note {
                    level: Level::Info,
                    text: format!("step mode {}", if *on { "on" } else { "off" }),
                });
            }
            Event::HintAdded { text } => {
                self.transcript.push(Cell::Hint { text: text.clone() });
            }
            Event::HumanAction {
                action,
                detail,
                diffs,
            } => self.human_action(action, detail, diffs),
            Event::RolledBack {
                stage,
                to_tag,
                commit,
                ..
            } => self.rolled_back(stage, to_tag, commit),
            Event::BudgetRaised { .. } => {}
            Event::SessionPolicy {
                sandbox,
                sandbox_detail,
                device,
                ..
            } => {
                let level = if sandbox == "off" {
                    Level::Warning
                } else {
                    Level::Info
                };
                self.transcript.push(Cell::Note {
                    level,
                    text: format!("sandbox {sandbox_detail}"),
                });
                if !device.is_empty() {
                    self.transcript.push(Cell::Note {
                        level: Level::Info,
                        text: format!(
                            "device {device}: run, accuracy and performance execute there"
                        ),
                    });
                }
            }
            Event::SessionResumed {
                from_stage,
                from_seq,
                ..
            } => {
                self.transcript.push(Cell::Note {
                    level: Level::Info,
                    text: format!("resumed at stage {from_stage} (state of event {from_seq})"),
                });
            }
            Event::EngineError { message } => {
                self.transcript.push(Cell::Note {
                    level: Level::Error,
                    text: format!("error: {message}"),
                });
            }
            Event::SessionFinished {
                outcome,
                exit_code,
                report,
                duration_ms,
            } => {
                self.finished = Some(Finished {
                    outcome: *outcome,
                    exit_code: *exit_code,
                    report: report.clone(),
                    duration_ms: *duration_ms,
                });
                self.approval = None;
                self.escalation = None;
                self.model.streaming = None;
                let level = match outcome {
                    Outcome::Deployed => Level::Success,
                    Outcome::Aborted => Level::Warning,
                    Outcome::Failed | Outcome::Error => Level::Error,
                };
                self.transcript.push(Cell::Note {
                    level,
                    text: format!(
                        "session {} (exit {exit_code}) in {}",
                        outcome.word(),
                        seconds(*duration_ms)
                    ),
                });
            }
        }
    }

    fn stage_mut(&mut self, name: &str) -> Option<&mut StageView> {
        self.stages.iter_mut().find(|s| s.name == name)
    }

    fn call_mut(&mut self, call_id: &str) -> Option<&mut CallCell> {
        let number = *self.call_cells.get(call_id)?;
        self.transcript.call_mut(number)
    }

    fn call_proposed(
        &mut self,
        call_id: &str,
        tool: &str,
        args: &serde_json::Value,
        thought: &Option<String>,
        policy: Policy,
    ) {
        let batch = self.session.as_ref().is_some_and(|s| s.batch);
        let waits =
            policy != Policy::Deny && (policy == Policy::Ask || self.view.step_mode) && !batch;
        if waits {
            self.approval = Some(Approval {
                call_id: call_id.to_string(),
                tool: tool.to_string(),
                args: args.clone(),
                thought: thought.clone(),
                policy,
            });
        }
        let number = self.transcript.push(Cell::Call(Box::new(CallCell {
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            args: args.clone(),
            thought: thought.clone(),
            policy,
            decision: Decision::Proposed,
            edited: false,
            running: false,
            result: None,
            files: Vec::new(),
        })));
        self.call_cells.insert(Arc::from(call_id), number);
    }

    fn decide(&mut self, call_id: &str, decision: Decision) {
        if self.approval.as_ref().is_some_and(|a| a.call_id == call_id) {
            self.approval = None;
        }
        if let Some(call) = self.call_mut(call_id) {
            call.decision = decision;
        }
    }

    fn human_action(&mut self, action: &EngineerAction, detail: &str, diffs: &[FileDiff]) {
        // Shown elsewhere: hints as hint cells, verdicts on the call itself.
        if matches!(
            action,
            EngineerAction::Hint | EngineerAction::Reject | EngineerAction::EditCall
        ) {
            return;
        }
        self.transcript.push(Cell::Human {
            action: action.to_string(),
            detail: detail.to_string(),
            files: diffs
                .iter()
                .map(|d| (d.path.clone(), d.added, d.removed))
                .collect(),
        });
    }

    fn rolled_back(&mut self, stage: &str, to_tag: &str, commit: &str) {
        if let Some(index) = self.stages.iter().position(|s| s.name == stage) {
            for view in self.stages.iter_mut().skip(index + 1) {
                view.status = StageStatus::Pending;
                view.attempt = 0;
                view.started_ms = None;
                view.duration_ms = None;
                view.checkpoint = None;
                view.last_commit = None;
            }
        }
        self.escalation = None;
        self.current = None;
        self.transcript.push(Cell::Note {
            level: Level::Warning,
            text: format!("rolled back to {to_tag} ({})", short(commit)),
        });
    }

    fn end_stage(&mut self, stage: &str, status: StageStatus, duration: Option<u64>, ts: u64) {
        if self.escalation.as_ref().and_then(|e| e.stage.as_deref()) == Some(stage) {
            self.escalation = None;
        }
        if let Some(view) = self.stage_mut(stage) {
            view.status = status;
            view.duration_ms = duration.or(view.started_ms.map(|s| ts.saturating_sub(s)));
        }
    }
}

/// `0.3 s`, `12 s`, `2m05s`.
pub fn seconds(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if ms < 60_000 {
        format!("{} s", ms / 1000)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// The first 7 characters of a hash.
pub fn short(hash: &str) -> &str {
    hash.get(..7).unwrap_or(hash)
}
