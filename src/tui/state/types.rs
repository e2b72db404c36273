//! The data the views read from [`super::TuiState`]: the session, its stages, commands and
//! their place in the log, file changes, checks and gates, the evidence of the last failure,
//! what waits for the engineer, model figures, and how the session ended.

use crate::protocol::{BudgetKind, Evidence, FileDiff, GateResult, Outcome, Policy};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: String,
    pub project: String,
    pub target: String,
    pub model: String,
    pub worktree: String,
    pub branch: String,
    pub base_commit: String,
    pub batch: bool,
    pub context_size: u32,
    pub started_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageStatus {
    Pending,
    Running,
    Passed,
    Failed,
    Escalated,
    Skipped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StageView {
    pub name: String,
    pub goal: String,
    pub status: StageStatus,
    pub attempt: u32,
    pub max_attempts: u32,
    pub started_ms: Option<u64>,
    /// Set when the stage ended (passed, failed, skipped).
    pub duration_ms: Option<u64>,
    /// The checkpoint tag and commit, once passed.
    pub checkpoint: Option<(String, String)>,
    /// The newest commit made in this stage (attempt commits, the checkpoint).
    pub last_commit: Option<String>,
}

/// One command whose output is in the log: a `run` call or a check.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub id: String,
    pub label: String,
    pub stage: String,
    pub first_line: u64,
    pub end_line: u64,
    pub running: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DiffEntry {
    pub stage: String,
    pub attempt: u32,
    /// The call that changed the file, or `engineer`.
    pub by: String,
    pub diff: FileDiff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckStatus {
    Running,
    Passed,
    Failed,
    /// Not run: it does not apply to the project as it is (its contract `when`); the detail
    /// says why.
    Skipped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckView {
    pub check_id: String,
    pub name: String,
    pub command: Option<String>,
    pub status: CheckStatus,
    pub exit_code: Option<i32>,
    pub detail: String,
    pub gates: Vec<GateResult>,
    pub metrics: BTreeMap<String, f64>,
    pub duration_ms: u64,
}

/// The checks of the attempt whose checks ran last.
#[derive(Debug, Clone, PartialEq)]
pub struct ChecksView {
    pub stage: String,
    pub attempt: u32,
    pub checks: Vec<CheckView>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceView {
    pub stage: String,
    pub attempt: u32,
    pub evidence: Evidence,
    /// The log line the evidence points at.
    pub anchor: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Escalation {
    pub stage: Option<String>,
    pub budget: BudgetKind,
    pub detail: String,
}

/// A tool call waiting for the engineer's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    pub call_id: String,
    pub tool: String,
    pub args: serde_json::Value,
    pub thought: Option<String>,
    pub policy: Policy,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelStats {
    pub requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub last_tokens_per_s: Option<f64>,
    /// Prompt + reply tokens of the last turn: how full the context was.
    pub context_used: u64,
    /// The reply being streamed: (request id, text so far).
    pub streaming: Option<(u64, String)>,
    /// The start of the last complete reply (shown when it did not parse).
    pub last_reply: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub outcome: Outcome,
    pub exit_code: i32,
    pub report: Option<String>,
    pub duration_ms: u64,
}
