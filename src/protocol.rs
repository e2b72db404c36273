//! The engine's one typed protocol: [`Event`] is everything the engine says, [`Command`] is
//! everything it accepts.
//!
//! The TUI, the batch printer and the session recorder are consumers of the same event stream;
//! replay is a producer of it. Every event travels inside an [`EventEnvelope`] carrying a
//! sequence number and a timestamp, so a recorded stream can be re-played, seeked and compared.
//! Long operations are `*Started` / delta / `*Finished` triples keyed by an id (`call_id`,
//! `check_id`, `request_id`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the on-disk session format (`meta.json` + `events.jsonl`) this build writes.
/// Bump when a change is not additive for readers.
///
/// History: 1 — the first format; 2 — adds the `session_resumed` event (`aipc resume`); 3 —
/// every call ends with a `tool_call_finished` carrying a [`CallStatus`] (rejected and
/// cancelled calls too), `rolled_back` names its stage, `paused` its [`PauseCause`],
/// `stage_skipped` is written, `budget_raised` records a grown global budget, and deciders and
/// engineer actions are typed ([`Decider`], [`EngineerAction`]: the same words as before). Older logs read as version 3:
/// [`Event::upgrade`] fills what they lack from what they hold.
pub const EVENT_FORMAT_VERSION: u32 = 3;

/// The oldest session format version this build still reads.
pub const MIN_EVENT_FORMAT_VERSION: u32 = 1;

/// One event with its position in the session's stream.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EventEnvelope {
    /// Position in the session's stream, from 0, without gaps.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub ts_ms: u64,
    #[serde(flatten)]
    pub event: Event,
}

/// Which output stream of a command a line came from.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    Stdout,
    Stderr,
}

/// How a proposed tool call was decided.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Runs without asking.
    Allow,
    /// Waits for a human's approval when one is present (interactive mode, or step mode).
    Ask,
    /// Never runs; the model is told so.
    Deny,
}

/// Who decided a call's approval or rejection, or a stage's skip.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// The engineer, in the TUI or the line console.
    Human,
    /// The contract's policy for the tool in this stage (`allow` runs, `deny` rejects), or
    /// its checks' `when` (a stage none of whose checks applies is skipped).
    Policy,
    /// Zero-human mode: an `ask` call (or a step-mode call) runs without a human.
    Batch,
    /// The model itself (e.g. a stage it ends).
    Model,
}

impl Decider {
    /// The word in the log, e.g. `human`.
    pub fn word(self) -> &'static str {
        match self {
            Decider::Human => "human",
            Decider::Policy => "policy",
            Decider::Batch => "batch",
            Decider::Model => "model",
        }
    }
}

impl std::fmt::Display for Decider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// Why the engine paused.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum PauseCause {
    /// The engineer paused it.
    #[default]
    Engineer,
    /// A budget ran out in an interactive session: the engineer decides how to go on.
    Escalation,
    /// The model asked the engineer a question (answered with a hint).
    Question,
    /// The engineer took over the worktree.
    Takeover,
}

/// What the engineer did (`human_action`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EngineerAction {
    /// Resumed after an escalation (the stage retries).
    Retry,
    /// Rejected a call.
    Reject,
    /// Edited a call's arguments, then let it run.
    EditCall,
    /// Answered the model's question.
    Answer,
    Hint,
    TakeoverBegin,
    /// Handed back; the event carries the diffs of what they changed.
    TakeoverEnd,
    RetryStage,
    SkipStage,
    Rollback,
    Abort,
    /// A word this build does not know (a log written by another version).
    #[serde(untagged)]
    Other(String),
}

impl EngineerAction {
    /// The word in the log, e.g. `takeover_end`.
    pub fn word(&self) -> &str {
        match self {
            EngineerAction::Retry => "retry",
            EngineerAction::Reject => "reject",
            EngineerAction::EditCall => "edit_call",
            EngineerAction::Answer => "answer",
            EngineerAction::Hint => "hint",
            EngineerAction::TakeoverBegin => "takeover_begin",
            EngineerAction::TakeoverEnd => "takeover_end",
            EngineerAction::RetryStage => "retry_stage",
            EngineerAction::SkipStage => "skip_stage",
            EngineerAction::Rollback => "rollback",
            EngineerAction::Abort => "abort",
            EngineerAction::Other(word) => word,
        }
    }
}

impl std::fmt::Display for EngineerAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// How a tool call ended: every proposed call gets exactly one `tool_call_finished`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// It ran and succeeded.
    #[default]
    Ok,
    /// It ran and failed (a non-zero exit, a tool error).
    Failed,
    /// It never ran: the policy or the engineer rejected it.
    Rejected,
    /// It was stopped or never started because the session was aborted or the stage
    /// interrupted (retry, skip, rollback).
    Cancelled,
}

impl CallStatus {
    /// The word in the log, e.g. `rejected`.
    pub fn word(self) -> &'static str {
        match self {
            CallStatus::Ok => "ok",
            CallStatus::Failed => "failed",
            CallStatus::Rejected => "rejected",
            CallStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the call ran at all.
    pub fn ran(self) -> bool {
        matches!(self, CallStatus::Ok | CallStatus::Failed)
    }
}

impl std::fmt::Display for CallStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// Why a stage or session ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every stage passed its checks.
    Deployed,
    /// A stage failed after its budget (attempts, no progress, tokens, wall time).
    Failed,
    /// A human (or a signal) aborted the session.
    Aborted,
    /// The engine could not go on: toolchain, git, model backend or contract trouble.
    Error,
}

impl Outcome {
    /// The word for it, e.g. `deployed`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Deployed => "deployed",
            Outcome::Failed => "failed",
            Outcome::Aborted => "aborted",
            Outcome::Error => "error",
        }
    }
}

/// Which budget ran out.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    /// Repair attempts of one stage.
    Attempts,
    /// Model turns in one attempt.
    Turns,
    /// Tokens over the whole session.
    Tokens,
    /// Wall-clock time over the whole session.
    WallTime,
    /// The same failure signature twice in a row: repairing is not making progress.
    NoProgress,
    /// The model asked a human, and no human is present (batch mode).
    HumanNeeded,
}

/// The result of one check.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GateResult {
    /// The gate as written in the contract, e.g. `cosine >= 0.99`.
    pub expr: String,
    /// The metric's measured value, when the command printed it.
    pub measured: Option<f64>,
    pub passed: bool,
}

/// A classified failure: what the model sees instead of the full log.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Evidence {
    /// Stable identity of the failure, used for no-progress detection
    /// (e.g. `onnx.unsupported_op` or `exit:1:<normalised line>`).
    pub signature: String,
    /// The class a signature table gave it, when one knew it.
    pub class: Option<String>,
    /// Which check failed, and how (`exit code 1, expected 0`, `gate cosine >= 0.99: 0.93`).
    pub failed_check: String,
    pub exit_code: Option<i32>,
    /// The last lines of the failing command's output (the full log stays in the session).
    pub excerpt: String,
    /// Facts extracted by the signature's regex (op name, node, dims …).
    pub facts: BTreeMap<String, String>,
    /// Candidate fixes the signature table lists (skill names, toolbox fixes).
    pub candidate_fixes: Vec<String>,
}

/// A file's change as a unified diff, made with `similar`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FileDiff {
    /// Path relative to the worktree.
    pub path: String,
    /// Unified diff text (`--- a/…`, `+++ b/…`, hunks). Empty for binary files.
    pub unified: String,
    pub added: usize,
    pub removed: usize,
}

/// A file (or folder) a session commit left out because git cannot store its name.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NotCommitted {
    /// Path relative to the worktree.
    pub path: String,
    /// Why git cannot store it (e.g. "`.GIT` is git's own metadata directory …").
    pub reason: String,
}

/// Everything the engine says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    SessionStarted {
        session_id: String,
        project: String,
        target: String,
        model: String,
        worktree: String,
        branch: String,
        base_commit: String,
        batch: bool,
        stages: Vec<String>,
        /// The model's context size in tokens (0 in logs written before it was recorded).
        #[serde(default)]
        context_size: u32,
        /// The session's token budget (0: not recorded).
        #[serde(default)]
        token_budget: u64,
        /// The session's wall-time budget in seconds (0: not recorded).
        #[serde(default)]
        wall_time_s: u64,
    },
    /// What guards the session's commands and checks, recorded when a session starts or
    /// resumes: the sandbox (mode, who chose it, what it allows), whether `ask` calls are
    /// approved without an engineer (`--approve-all`), and the hashes of the toolbox files the
    /// checks are judged by.
    SessionPolicy {
        /// `strict`, `workspace-write` or `off`.
        sandbox: String,
        /// `flag` (the command line), `contract` or `default`.
        sandbox_chosen_by: String,
        /// One line: what is writable, the network, the limits.
        sandbox_detail: String,
        /// The sandbox program and version (empty when off).
        #[serde(default)]
        sandbox_version: String,
        /// Batch runs approve `ask` calls (else they are denied).
        approve_all: bool,
        /// The device run, accuracy and performance execute on (`ssh user@host:port (python
        /// 3.11.2)`); empty: the build host.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        device: String,
        /// The sealed toolbox folder, its one-line digest and every file's sha256.
        toolbox: String,
        toolbox_digest: String,
        toolbox_files: BTreeMap<String, String>,
    },
    StageStarted {
        stage: String,
        index: usize,
        goal: String,
        max_attempts: u32,
    },
    AttemptStarted {
        stage: String,
        attempt: u32,
        max_attempts: u32,
    },
    ModelRequest {
        request_id: u64,
        stage: String,
        /// Messages added since this attempt's previous request, as (role, content); the whole
        /// conversation is the concatenation over the attempt's requests.
        new_messages: Vec<(String, String)>,
        /// How many messages the request holds in all.
        total_messages: usize,
        tools: Vec<String>,
    },
    ModelDelta {
        request_id: u64,
        text: String,
    },
    ModelResponse {
        request_id: u64,
        text: String,
        prompt_tokens: u64,
        completion_tokens: u64,
        /// Prompt tokens served from a cache (KV reuse), when the backend knows.
        cached_tokens: u64,
        duration_ms: u64,
    },
    /// The conversation no longer fit the model's context: older tool outputs were folded
    /// into one-line summaries (the full outputs stay in this log).
    Compacted {
        request_id: u64,
        folded: usize,
        chars_before: usize,
        chars_after: usize,
    },
    /// The model's reply did not parse as a tool call; it is told so.
    ModelInvalidCall {
        request_id: u64,
        error: String,
    },
    ToolCallProposed {
        call_id: String,
        tool: String,
        args: serde_json::Value,
        thought: Option<String>,
        policy: Policy,
    },
    ToolCallApproved {
        call_id: String,
        by: Decider,
    },
    ToolCallRejected {
        call_id: String,
        reason: String,
        by: Decider,
    },
    ToolCallEdited {
        call_id: String,
        args: serde_json::Value,
    },
    ToolCallStarted {
        call_id: String,
        tool: String,
    },
    ToolOutput {
        call_id: String,
        stream: OutputStream,
        line: String,
    },
    /// The end of every proposed call, whether it ran or not.
    ToolCallFinished {
        call_id: String,
        /// `status == ok`, kept for readers of the older format.
        ok: bool,
        /// How it ended (a version-2 log has none: read from `ok`).
        #[serde(default)]
        status: CallStatus,
        /// What the model is told (bounded).
        observation: String,
        exit_code: Option<i32>,
        duration_ms: u64,
    },
    FileChanged {
        call_id: Option<String>,
        diff: FileDiff,
    },
    CheckStarted {
        check_id: String,
        stage: String,
        name: String,
        command: Option<String>,
    },
    CheckOutput {
        check_id: String,
        stream: OutputStream,
        line: String,
    },
    CheckResult {
        check_id: String,
        passed: bool,
        exit_code: Option<i32>,
        /// Why it failed, in one line (empty when it passed).
        detail: String,
        metrics: BTreeMap<String, f64>,
        gates: Vec<GateResult>,
        duration_ms: u64,
        /// Set when the check did not run because it does not apply to the project as it is
        /// (its contract `when`): why, e.g. `quantize = "none" in aipc.toml (applies when
        /// quantize != "none")`. Such a check counts as passed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        skipped: Option<String>,
    },
    EvidenceCollected {
        stage: String,
        attempt: u32,
        evidence: Evidence,
    },
    AttemptCommitted {
        stage: String,
        attempt: u32,
        commit: String,
        files_changed: usize,
    },
    ArtifactRecorded {
        stage: String,
        path: String,
        sha256: String,
        bytes: u64,
    },
    /// A commit of the stage's work left out files whose names git cannot store (an alias of
    /// `.git` such as `.GIT/config`, made by a command): they stay in the worktree, outside the
    /// session's history, and the session goes on.
    FilesNotCommitted {
        stage: String,
        files: Vec<NotCommitted>,
    },
    CheckpointMade {
        stage: String,
        commit: String,
        tag: String,
    },
    StagePassed {
        stage: String,
        attempts: u32,
        duration_ms: u64,
    },
    StageFailed {
        stage: String,
        attempts: u32,
        reason: String,
    },
    StageSkipped {
        stage: String,
        by: Decider,
        /// Why, when the contract skipped it (`by` = policy: no check of the stage applies to
        /// the project); empty when the engineer did.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    BudgetExhausted {
        stage: Option<String>,
        budget: BudgetKind,
        detail: String,
    },
    /// A global budget was raised because the engineer retried after it ran out: the new
    /// limit in its unit (tokens, or seconds of wall time).
    BudgetRaised {
        budget: BudgetKind,
        limit: u64,
    },
    Paused {
        reason: String,
        /// Why (a version-2 log has none: read from `reason`).
        #[serde(default)]
        cause: PauseCause,
    },
    Resumed,
    StepMode {
        on: bool,
    },
    HintAdded {
        text: String,
    },
    HumanAction {
        action: EngineerAction,
        detail: String,
        diffs: Vec<FileDiff>,
    },
    RolledBack {
        /// The stage whose checkpoint the session went back to; the stages after it run again
        /// (a version-2 log has none: read from the tag's last segment).
        #[serde(default)]
        stage: String,
        to_tag: String,
        commit: String,
        /// The head the session was at before, kept reachable for the record.
        previous_head: String,
    },
    /// Something went wrong outside the model's control; the session is ending with `error`.
    EngineError {
        message: String,
    },
    /// `aipc resume` continued an interrupted session: the worktree was reset to the last
    /// checkpoint and the stage loop goes on from `from_stage`. The events between `from_seq`
    /// and this one belong to work that was discarded (the interrupted stage is done again).
    SessionResumed {
        /// The stage that runs next (empty when every stage had passed and only the end was
        /// missing).
        from_stage: String,
        /// The last event whose state was restored: the `stage_passed` (or `stage_skipped`,
        /// `rolled_back`) of the checkpoint, or `session_started` when no stage had passed.
        from_seq: u64,
        /// The checkpoint tag the worktree was reset to; `None`: back to the base commit.
        #[serde(default)]
        checkpoint: Option<String>,
        /// The commit the worktree was reset to.
        #[serde(default)]
        commit: String,
        /// Where the branch was before the reset (the interrupted work, committed so it stays
        /// reachable).
        #[serde(default)]
        previous_head: String,
        /// Bytes of a torn last line that was cut off the log before resuming.
        #[serde(default)]
        repaired_bytes: u64,
    },
    SessionFinished {
        outcome: Outcome,
        exit_code: i32,
        report: Option<String>,
        duration_ms: u64,
    },
}

impl Event {
    /// The `type` tag as written in the log, e.g. `stage_started`.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::SessionStarted { .. } => "session_started",
            Event::SessionPolicy { .. } => "session_policy",
            Event::StageStarted { .. } => "stage_started",
            Event::AttemptStarted { .. } => "attempt_started",
            Event::ModelRequest { .. } => "model_request",
            Event::ModelDelta { .. } => "model_delta",
            Event::ModelResponse { .. } => "model_response",
            Event::Compacted { .. } => "compacted",
            Event::ModelInvalidCall { .. } => "model_invalid_call",
            Event::ToolCallProposed { .. } => "tool_call_proposed",
            Event::ToolCallApproved { .. } => "tool_call_approved",
            Event::ToolCallRejected { .. } => "tool_call_rejected",
            Event::ToolCallEdited { .. } => "tool_call_edited",
            Event::ToolCallStarted { .. } => "tool_call_started",
            Event::ToolOutput { .. } => "tool_output",
            Event::ToolCallFinished { .. } => "tool_call_finished",
            Event::FileChanged { .. } => "file_changed",
            Event::CheckStarted { .. } => "check_started",
            Event::CheckOutput { .. } => "check_output",
            Event::CheckResult { .. } => "check_result",
            Event::EvidenceCollected { .. } => "evidence_collected",
            Event::AttemptCommitted { .. } => "attempt_committed",
            Event::ArtifactRecorded { .. } => "artifact_recorded",
            Event::FilesNotCommitted { .. } => "files_not_committed",
            Event::CheckpointMade { .. } => "checkpoint_made",
            Event::StagePassed { .. } => "stage_passed",
            Event::StageFailed { .. } => "stage_failed",
            Event::StageSkipped { .. } => "stage_skipped",
            Event::BudgetExhausted { .. } => "budget_exhausted",
            Event::BudgetRaised { .. } => "budget_raised",
            Event::Paused { .. } => "paused",
            Event::Resumed => "resumed",
            Event::StepMode { .. } => "step_mode",
            Event::HintAdded { .. } => "hint_added",
            Event::HumanAction { .. } => "human_action",
            Event::RolledBack { .. } => "rolled_back",
            Event::EngineError { .. } => "engine_error",
            Event::SessionResumed { .. } => "session_resumed",
            Event::SessionFinished { .. } => "session_finished",
        }
    }
}

impl Event {
    /// Fill what a log of an older format lacks from what it holds (see
    /// [`EVENT_FORMAT_VERSION`]); a no-op for an event of this format. Every reader of a log
    /// calls it once per event.
    pub fn upgrade(&mut self) {
        match self {
            // A version-2 event has `ok` only, and `status` defaults to `ok`.
            Event::ToolCallFinished { ok, status, .. } if !*ok && *status == CallStatus::Ok => {
                *status = CallStatus::Failed;
            }
            // A version-2 event has the reason only, and `cause` defaults to the engineer.
            Event::Paused { reason, cause } if *cause == PauseCause::Engineer => {
                if reason.starts_with("the model asks") {
                    *cause = PauseCause::Question;
                } else if reason.contains("needs you") {
                    *cause = PauseCause::Escalation;
                } else if reason.starts_with("taken over") {
                    *cause = PauseCause::Takeover;
                }
            }
            Event::RolledBack { stage, to_tag, .. } if stage.is_empty() => {
                *stage = to_tag.rsplit('/').next().unwrap_or_default().to_string();
            }
            _ => {}
        }
    }
}

/// Everything the engine accepts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Stop before the next model turn or tool call.
    Pause,
    Resume,
    /// Every tool call waits for approval (on), or only `ask` calls do (off).
    StepMode {
        on: bool,
    },
    Approve {
        call_id: String,
    },
    Reject {
        call_id: String,
        reason: String,
    },
    /// Replace a proposed call's arguments, then run it.
    EditCall {
        call_id: String,
        args: serde_json::Value,
    },
    /// A note the model sees in its next turn.
    Hint {
        text: String,
    },
    /// The engineer works in the worktree; the engine waits.
    TakeoverBegin,
    /// The engineer hands back; what they changed is recorded and shown to the model.
    TakeoverEnd {
        note: Option<String>,
    },
    /// Start the current (or escalated) stage again with a fresh attempt budget,
    /// optionally bigger.
    RetryStage {
        extra_attempts: Option<u32>,
    },
    /// Mark the escalated stage as skipped and go on.
    SkipStage,
    /// Restore files and conversation to a stage checkpoint tag and continue from the stage after it.
    RollbackTo {
        tag: String,
    },
    Abort,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_started_from_an_older_log_reads_with_zero_budgets() {
        let line = r#"{"seq":0,"ts_ms":1,"type":"session_started","session_id":"s","project":"p","target":"t","model":"m","worktree":"w","branch":"b","base_commit":"c","batch":false,"stages":["env"]}"#;
        let envelope: EventEnvelope = serde_json::from_str(line).unwrap();
        let Event::SessionStarted {
            context_size,
            token_budget,
            wall_time_s,
            ..
        } = envelope.event
        else {
            panic!("not session_started: {envelope:?}");
        };
        assert_eq!((context_size, token_budget, wall_time_s), (0, 0, 0));
    }

    #[test]
    fn a_version_2_log_reads_with_typed_facts() {
        let lines = [
            r#"{"seq":1,"ts_ms":1,"type":"tool_call_finished","call_id":"c","ok":false,"observation":"","exit_code":1,"duration_ms":3}"#,
            r#"{"seq":2,"ts_ms":2,"type":"rolled_back","to_tag":"aipc/s/export","commit":"c","previous_head":"p"}"#,
            r#"{"seq":3,"ts_ms":3,"type":"tool_call_approved","call_id":"c","by":"human"}"#,
            r#"{"seq":4,"ts_ms":4,"type":"human_action","action":"takeover_end","detail":"","diffs":[]}"#,
            r#"{"seq":5,"ts_ms":5,"type":"human_action","action":"wave","detail":"","diffs":[]}"#,
            r#"{"seq":6,"ts_ms":6,"type":"paused","reason":"the model asks: which? (answer with a hint)"}"#,
        ];
        let events: Vec<Event> = lines
            .iter()
            .map(|l| {
                crate::session::reader::parse_line(l.as_bytes())
                    .unwrap()
                    .event
            })
            .collect();
        assert!(matches!(
            &events[0],
            Event::ToolCallFinished {
                status: CallStatus::Failed,
                ..
            }
        ));
        assert!(matches!(&events[1], Event::RolledBack { stage, .. } if stage == "export"));
        assert!(matches!(
            &events[2],
            Event::ToolCallApproved {
                by: Decider::Human,
                ..
            }
        ));
        assert!(matches!(
            &events[3],
            Event::HumanAction {
                action: EngineerAction::TakeoverEnd,
                ..
            }
        ));
        let Event::HumanAction { action, .. } = &events[4] else {
            panic!("not a human action: {:?}", events[4]);
        };
        assert_eq!(action, &EngineerAction::Other("wave".into()));
        assert!(matches!(
            &events[5],
            Event::Paused {
                cause: PauseCause::Question,
                ..
            }
        ));
        assert_eq!(
            serde_json::to_value(action).unwrap(),
            serde_json::json!("wave")
        );
    }
}
