//! The session report (`report.md` + `report.json`), computed from the event log alone, so
//! any recorded session — live, replayed or re-run — yields the same report.

use crate::protocol::{BudgetKind, Event, EventEnvelope, Evidence, GateResult, Outcome};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The JUnit XML report's file name, beside `report.md`.
pub const JUNIT_FILE: &str = "report.junit.xml";

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheckReport {
    pub name: String,
    pub passed: bool,
    pub detail: String,
    pub exit_code: Option<i32>,
    pub gates: Vec<GateResult>,
    pub duration_ms: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StageReport {
    pub name: String,
    /// `passed`, `failed`, `skipped`, `running` (the session ended inside it) or `pending`.
    pub status: String,
    pub attempts: u32,
    pub metrics: BTreeMap<String, f64>,
    /// The checks of the stage's last attempt.
    pub checks: Vec<CheckReport>,
    pub duration_ms: u64,
    pub tool_calls: u32,
    pub model_turns: u32,
    pub tokens: u64,
    pub checkpoint: Option<String>,
    /// The evidence of the stage's last failure, if any.
    pub last_evidence: Option<Evidence>,
    /// For a `checks_first` stage, how its checks before any model turn went: `passed` (the
    /// stage passed with no model call, 0 attempts) or `failed` (attempt 1 repaired).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks_first: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArtifactReport {
    pub stage: String,
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Escalation {
    pub stage: Option<String>,
    pub budget: BudgetKind,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub outcome: Outcome,
    pub session_id: String,
    pub target: String,
    pub model: String,
    pub project: String,
    pub branch: String,
    pub base_commit: String,
    pub duration_ms: u64,
    pub human_interventions: u32,
    pub model_turns: u32,
    pub invalid_replies: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub model_time_ms: u64,
    /// Time spent in check commands and tool calls (the toolchain's share of the wall time).
    pub toolchain_time_ms: u64,
    pub tool_calls: u32,
    pub stages: Vec<StageReport>,
    pub checkpoints: Vec<(String, String)>,
    pub artifacts: Vec<ArtifactReport>,
    pub escalations: Vec<Escalation>,
    pub errors: Vec<String>,
}

impl Report {
    /// Fold a session's events into its report. `outcome` and `duration_ms` come from the
    /// caller because the report is written before the final event.
    pub fn from_events(events: &[EventEnvelope], outcome: Outcome, duration_ms: u64) -> Report {
        let mut report = Report {
            outcome,
            session_id: String::new(),
            target: String::new(),
            model: String::new(),
            project: String::new(),
            branch: String::new(),
            base_commit: String::new(),
            duration_ms,
            human_interventions: 0,
            model_turns: 0,
            invalid_replies: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            model_time_ms: 0,
            toolchain_time_ms: 0,
            tool_calls: 0,
            stages: Vec::new(),
            checkpoints: Vec::new(),
            artifacts: Vec::new(),
            escalations: Vec::new(),
            errors: Vec::new(),
        };
        let mut current: Option<usize> = None;
        let mut check_names: BTreeMap<String, String> = BTreeMap::new();
        for envelope in events {
            let stage = current.and_then(|i| report.stages.get_mut(i));
            match &envelope.event {
                Event::SessionStarted {
                    session_id,
                    project,
                    target,
                    model,
                    branch,
                    base_commit,
                    stages,
                    ..
                } => {
                    report.session_id = session_id.clone();
                    report.project = project.clone();
                    report.target = target.clone();
                    report.model = model.clone();
                    report.branch = branch.clone();
                    report.base_commit = base_commit.clone();
                    report.stages = stages.iter().map(|name| new_stage(name)).collect();
                }
                Event::StageStarted { stage: name, .. } => {
                    current = report.stages.iter().position(|s| &s.name == name);
                    if let Some(s) = current.and_then(|i| report.stages.get_mut(i)) {
                        s.status = "running".to_string();
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
                            s.checks_first = Some("running".to_string());
                        }
                    }
                }
                Event::ModelResponse {
                    prompt_tokens,
                    completion_tokens,
                    duration_ms,
                    ..
                } => {
                    report.model_turns += 1;
                    report.prompt_tokens += prompt_tokens;
                    report.completion_tokens += completion_tokens;
                    report.model_time_ms += duration_ms;
                    if let Some(s) = stage {
                        s.model_turns += 1;
                        s.tokens += prompt_tokens + completion_tokens;
                    }
                }
                Event::ModelInvalidCall { .. } => report.invalid_replies += 1,
                Event::ToolCallFinished { duration_ms, .. } => {
                    report.toolchain_time_ms += duration_ms;
                }
                Event::ToolCallStarted { .. } => {
                    report.tool_calls += 1;
                    if let Some(s) = stage {
                        s.tool_calls += 1;
                    }
                }
                Event::ToolCallApproved { by, .. } if by == "human" => {
                    report.human_interventions += 1
                }
                Event::HumanAction { action, .. } if action != "takeover_end" => {
                    report.human_interventions += 1
                }
                Event::CheckStarted { check_id, name, .. } => {
                    check_names.insert(check_id.clone(), name.clone());
                }
                Event::CheckResult {
                    check_id,
                    passed,
                    exit_code,
                    detail,
                    metrics,
                    gates,
                    duration_ms,
                } => {
                    report.toolchain_time_ms += duration_ms;
                    if let Some(s) = stage {
                        s.metrics.extend(metrics.clone());
                        s.checks.push(CheckReport {
                            name: check_names.get(check_id).cloned().unwrap_or_default(),
                            passed: *passed,
                            detail: detail.clone(),
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
                            s.checks_first = Some("failed".to_string());
                        }
                    }
                }
                Event::CheckpointMade {
                    stage: name,
                    tag,
                    commit,
                } => {
                    report.checkpoints.push((tag.clone(), commit.clone()));
                    if let Some(s) = report.stages.iter_mut().find(|s| &s.name == name) {
                        s.checkpoint = Some(tag.clone());
                    }
                }
                Event::ArtifactRecorded {
                    stage: name,
                    path,
                    sha256,
                    bytes,
                } => {
                    report.artifacts.retain(|a| &a.path != path);
                    report.artifacts.push(ArtifactReport {
                        stage: name.clone(),
                        path: path.clone(),
                        sha256: sha256.clone(),
                        bytes: *bytes,
                    });
                }
                Event::StagePassed {
                    attempts,
                    duration_ms,
                    ..
                } => {
                    if let Some(s) = stage {
                        s.status = "passed".to_string();
                        s.attempts = *attempts;
                        s.duration_ms = *duration_ms;
                        if *attempts == 0 && s.checks_first.is_some() {
                            s.checks_first = Some("passed".to_string());
                        }
                    }
                }
                Event::StageFailed { attempts, .. } => {
                    if let Some(s) = stage {
                        s.status = "failed".to_string();
                        s.attempts = *attempts;
                    }
                }
                Event::StageSkipped { .. } => {
                    if let Some(s) = stage {
                        s.status = "skipped".to_string();
                    }
                }
                Event::BudgetExhausted {
                    stage: name,
                    budget,
                    detail,
                } => report.escalations.push(Escalation {
                    stage: name.clone(),
                    budget: *budget,
                    detail: detail.clone(),
                }),
                Event::RolledBack { to_tag, .. } => {
                    // Stages after the checkpoint are to be done again.
                    let stage_name = to_tag.rsplit('/').next().unwrap_or_default();
                    if let Some(i) = report.stages.iter().position(|s| s.name == stage_name) {
                        for s in report.stages.iter_mut().skip(i + 1) {
                            *s = new_stage(&s.name.clone());
                        }
                    }
                }
                Event::EngineError { message } => report.errors.push(message.clone()),
                _ => {}
            }
        }
        report
    }

    /// Write `report.md`, `report.json` and, beside them, `report.junit.xml`.
    pub fn write(&self, markdown: &Path, json: &Path) -> std::io::Result<()> {
        std::fs::write(markdown, self.to_markdown())?;
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(json, text + "\n")?;
        let junit = crate::junit::to_junit(self).map_err(std::io::Error::other)?;
        std::fs::write(markdown.with_file_name(JUNIT_FILE), junit)
    }

    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# aipc session {}\n", self.session_id);
        let _ = writeln!(md, "- outcome: **{}**", outcome_word(self.outcome));
        let _ = writeln!(md, "- target: {}", self.target);
        let _ = writeln!(md, "- model: {}", self.model);
        let _ = writeln!(md, "- project: {}", self.project);
        let _ = writeln!(
            md,
            "- branch: {} (from {})",
            self.branch,
            short(&self.base_commit)
        );
        let _ = writeln!(md, "- duration: {}", seconds(self.duration_ms));
        let _ = writeln!(
            md,
            "- model: {} turns ({} invalid), {} prompt + {} completion tokens, {} in the model",
            self.model_turns,
            self.invalid_replies,
            self.prompt_tokens,
            self.completion_tokens,
            seconds(self.model_time_ms)
        );
        let _ = writeln!(
            md,
            "- tool calls: {}; {} in checks and tool calls",
            self.tool_calls,
            seconds(self.toolchain_time_ms)
        );
        let _ = writeln!(md, "- human interventions: {}\n", self.human_interventions);
        let _ = writeln!(md, "## Stages\n");
        let _ = writeln!(
            md,
            "| stage | status | attempts | turns | tool calls | tokens | time | checkpoint |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
        for s in &self.stages {
            let status = match s.checks_first.as_deref() {
                Some("passed") => format!("{} (checks first, no model call)", s.status),
                Some("failed") => format!("{} (checks first failed, repaired)", s.status),
                _ => s.status.clone(),
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                s.name,
                status,
                s.attempts,
                s.model_turns,
                s.tool_calls,
                s.tokens,
                seconds(s.duration_ms),
                s.checkpoint.as_deref().unwrap_or("")
            );
        }
        for s in self.stages.iter().filter(|s| !s.checks.is_empty()) {
            let _ = writeln!(md, "\n### {}\n", s.name);
            for c in &s.checks {
                let mark = if c.passed { "pass" } else { "FAIL" };
                let _ = write!(md, "- {mark} {}", c.name);
                if !c.detail.is_empty() {
                    let _ = write!(md, ": {}", c.detail);
                }
                let _ = writeln!(md);
                for g in &c.gates {
                    let measured = g
                        .measured
                        .map(|v| format!("{v:.4}"))
                        .unwrap_or_else(|| "not printed".to_string());
                    let mark = if g.passed { "ok" } else { "not met" };
                    let _ = writeln!(md, "  - `{}`: {measured} ({mark})", g.expr);
                }
            }
            if s.status != "passed" {
                if let Some(ev) = &s.last_evidence {
                    let _ = writeln!(
                        md,
                        "\nLast evidence: `{}`{}\n\n```\n{}\n```",
                        ev.signature,
                        ev.class
                            .as_ref()
                            .map(|c| format!(" ({c})"))
                            .unwrap_or_default(),
                        ev.excerpt
                    );
                }
            }
        }
        if !self.escalations.is_empty() {
            let _ = writeln!(md, "\n## Budgets exhausted\n");
            for e in &self.escalations {
                let _ = writeln!(
                    md,
                    "- {} {:?}: {}",
                    e.stage.as_deref().unwrap_or("session"),
                    e.budget,
                    e.detail
                );
            }
        }
        if !self.checkpoints.is_empty() {
            let _ = writeln!(md, "\n## Checkpoints\n");
            for (tag, commit) in &self.checkpoints {
                let _ = writeln!(md, "- `{tag}` at {}", short(commit));
            }
        }
        if !self.artifacts.is_empty() {
            let _ = writeln!(md, "\n## Artifacts\n");
            for a in &self.artifacts {
                let _ = writeln!(
                    md,
                    "- `{}` ({} bytes, sha256 {}) from {}",
                    a.path, a.bytes, a.sha256, a.stage
                );
            }
        }
        if !self.errors.is_empty() {
            let _ = writeln!(md, "\n## Errors\n");
            for e in &self.errors {
                let _ = writeln!(md, "- {e}");
            }
        }
        md
    }
}

fn new_stage(name: &str) -> StageReport {
    StageReport {
        name: name.to_string(),
        status: "pending".to_string(),
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

pub fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Deployed => "deployed",
        Outcome::Failed => "failed",
        Outcome::Aborted => "aborted",
        Outcome::Error => "error",
    }
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}
