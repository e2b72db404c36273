//! The session report (`report.md` + `report.json`), computed from the event log alone, so
//! any recorded session — live, replayed or re-run — yields the same report.

use crate::protocol::{EventEnvelope, Outcome};
use crate::session::view::{
    ArtifactSummary, ChecksFirst, Escalation, SessionView, StageStatus, StageSummary,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// The JUnit XML report's file name, beside `report.md`.
pub const JUNIT_FILE: &str = "report.junit.xml";

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
    /// The sandbox commands ran in: `strict`, `workspace-write`, `off` (empty: not recorded).
    pub sandbox: String,
    /// Who chose it (`flag`, `contract`, `default`) and what it allowed.
    pub sandbox_detail: String,
    /// Batch runs approved `ask` calls (`--approve-all`).
    pub approve_all: bool,
    /// `ask` calls decided without an engineer: approved, denied.
    pub batch_approved: u32,
    pub batch_denied: u32,
    /// The seal on the toolbox the checks ran (sha256 over its files).
    pub toolbox_digest: String,
    pub stages: Vec<StageSummary>,
    pub checkpoints: Vec<(String, String)>,
    pub artifacts: Vec<ArtifactSummary>,
    pub escalations: Vec<Escalation>,
    pub errors: Vec<String>,
}

impl Report {
    /// A session's report from its events. `outcome` and `duration_ms` come from the caller
    /// because the report is written before the final event.
    pub fn from_events(events: &[EventEnvelope], outcome: Outcome, duration_ms: u64) -> Report {
        Report::from_view(SessionView::of(events), outcome, duration_ms)
    }

    /// The report of a folded session.
    pub fn from_view(view: SessionView, outcome: Outcome, duration_ms: u64) -> Report {
        let session = view.session.unwrap_or_default();
        let totals = view.totals;
        let policy = view.policy;
        Report {
            outcome,
            session_id: session.session_id,
            target: session.target,
            model: session.model,
            project: session.project,
            branch: session.branch,
            base_commit: session.base_commit,
            duration_ms,
            human_interventions: totals.human_interventions,
            model_turns: totals.model_turns,
            invalid_replies: totals.invalid_replies,
            prompt_tokens: totals.prompt_tokens,
            completion_tokens: totals.completion_tokens,
            model_time_ms: totals.model_time_ms,
            toolchain_time_ms: totals.toolchain_time_ms,
            tool_calls: totals.tool_calls,
            sandbox: policy
                .as_ref()
                .map(|p| p.sandbox.clone())
                .unwrap_or_default(),
            sandbox_detail: policy
                .as_ref()
                .map(|p| format!("({}) {}", p.chosen_by, p.detail))
                .unwrap_or_default(),
            approve_all: policy.as_ref().is_some_and(|p| p.approve_all),
            batch_approved: totals.batch_approved,
            batch_denied: totals.batch_denied,
            toolbox_digest: policy.map(|p| p.toolbox_digest).unwrap_or_default(),
            stages: view.stages,
            checkpoints: view.checkpoints,
            artifacts: view.artifacts,
            escalations: view.escalations,
            errors: view.errors,
        }
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
        let _ = writeln!(md, "- outcome: **{}**", self.outcome.word());
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
        let _ = writeln!(md, "- human interventions: {}", self.human_interventions);
        if !self.sandbox.is_empty() {
            let _ = writeln!(
                md,
                "- sandbox: {}{} {}",
                if self.sandbox == "off" {
                    "**OFF** "
                } else {
                    ""
                },
                self.sandbox,
                self.sandbox_detail
            );
            let _ = writeln!(
                md,
                "- decided without an engineer: {} `ask` calls approved{}, {} denied",
                self.batch_approved,
                if self.approve_all {
                    " (--approve-all)"
                } else {
                    ""
                },
                self.batch_denied
            );
            let _ = writeln!(
                md,
                "- toolbox sealed: sha256 {}",
                short(&self.toolbox_digest)
            );
        }
        let _ = writeln!(md);
        let _ = writeln!(md, "## Stages\n");
        let _ = writeln!(
            md,
            "| stage | status | attempts | turns | tool calls | tokens | time | checkpoint |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
        for s in &self.stages {
            let status = s.status.word();
            let status = match s.checks_first {
                Some(ChecksFirst::Passed) => format!("{status} (checks first, no model call)"),
                Some(ChecksFirst::Failed) => format!("{status} (checks first failed, repaired)"),
                Some(ChecksFirst::Running) | None => status.to_string(),
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
            if s.status != StageStatus::Passed {
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

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}
