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
    /// The device run, accuracy and performance executed on (empty: the build host).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device: String,
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
    /// For a session that did not deploy: what stopped it and what a human must do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<Diagnosis>,
}

/// The first stage that did not pass, the evidence of its last failure, what was tried, and
/// the repairs the evidence names that were not: what an engineer needs to take over.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Diagnosis {
    pub stage: String,
    pub status: String,
    pub signature: Option<String>,
    pub class: Option<String>,
    /// `file:line` (with the function) when the evidence names the place.
    pub location: Option<String>,
    pub facts: std::collections::BTreeMap<String, String>,
    /// The calls made in the stage, in order: `tool {args} -> status`.
    pub tried: Vec<String>,
    /// The evidence's candidate fixes.
    pub candidate_fixes: Vec<String>,
}

/// Most calls of a stage listed in a diagnosis (the rest are counted).
const DIAGNOSIS_CALLS: usize = 20;

impl Diagnosis {
    fn of(view: &SessionView) -> Option<Diagnosis> {
        let stage = view.stages.iter().find(|s| {
            !matches!(
                s.status,
                StageStatus::Passed | StageStatus::Skipped | StageStatus::Pending
            )
        })?;
        let evidence = stage.last_evidence.as_ref();
        let facts = evidence.map(|e| e.facts.clone()).unwrap_or_default();
        let location = facts.get("path").or_else(|| facts.get("file")).map(|file| {
            let mut at = file.clone();
            if let Some(line) = facts.get("line") {
                at.push_str(&format!(":{line}"));
            }
            if let Some(function) = facts.get("function") {
                at.push_str(&format!(" in {function}()"));
            }
            at
        });
        let mut calls: Vec<(&String, &crate::session::view::CallSummary)> = view
            .calls
            .iter()
            .filter(|(_, c)| c.stage == stage.name)
            .collect();
        // Call ids are `<stage>.<n>`: order by n.
        calls.sort_by_key(|(id, _)| {
            id.rsplit('.')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(u64::MAX)
        });
        let mut tried: Vec<String> = calls
            .iter()
            .take(DIAGNOSIS_CALLS)
            .map(|(_, c)| {
                let status = c
                    .status
                    .map(|s| format!("{s:?}").to_lowercase())
                    .unwrap_or_else(|| "not finished".into());
                let args = c.args.to_string();
                let args = if args.chars().count() > 160 {
                    format!("{}…", args.chars().take(160).collect::<String>())
                } else {
                    args
                };
                format!("{} {args} -> {status}", c.tool)
            })
            .collect();
        if calls.len() > DIAGNOSIS_CALLS {
            tried.push(format!("… and {} more", calls.len() - DIAGNOSIS_CALLS));
        }
        Some(Diagnosis {
            stage: stage.name.clone(),
            status: stage.status.word().to_string(),
            signature: evidence.map(|e| e.signature.clone()),
            class: evidence.and_then(|e| e.class.clone()),
            location,
            facts,
            tried,
            candidate_fixes: evidence
                .map(|e| e.candidate_fixes.clone())
                .unwrap_or_default(),
        })
    }
}

impl Report {
    /// A session's report from its events. `outcome` and `duration_ms` come from the caller
    /// because the report is written before the final event.
    pub fn from_events(events: &[EventEnvelope], outcome: Outcome, duration_ms: u64) -> Report {
        Report::from_view(SessionView::of(events), outcome, duration_ms)
    }

    /// The report of a folded session.
    pub fn from_view(view: SessionView, outcome: Outcome, duration_ms: u64) -> Report {
        let diagnosis = match outcome {
            Outcome::Deployed => None,
            _ => Diagnosis::of(&view),
        };
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
            device: policy
                .as_ref()
                .map(|p| p.device.clone())
                .unwrap_or_default(),
            batch_approved: totals.batch_approved,
            batch_denied: totals.batch_denied,
            toolbox_digest: policy.map(|p| p.toolbox_digest).unwrap_or_default(),
            stages: view.stages,
            checkpoints: view.checkpoints,
            artifacts: view.artifacts,
            escalations: view.escalations,
            errors: view.errors,
            diagnosis,
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
        if !self.device.is_empty() {
            let _ = writeln!(
                md,
                "- device: {} (run, accuracy and performance)",
                self.device
            );
        }
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
        if let Some(d) = &self.diagnosis {
            let _ = writeln!(md, "\n## What a human must do\n");
            let _ = writeln!(
                md,
                "Stage **{}** {}{}.",
                d.stage,
                d.status,
                d.signature
                    .as_ref()
                    .map(|s| format!(
                        " on `{s}`{}",
                        d.class
                            .as_ref()
                            .map(|c| format!(" ({c})"))
                            .unwrap_or_default()
                    ))
                    .unwrap_or_default()
            );
            if let Some(at) = &d.location {
                let _ = writeln!(md, "\n- where: `{at}`");
            }
            if !d.facts.is_empty() {
                let facts: Vec<String> = d
                    .facts
                    .iter()
                    .map(|(k, v)| format!("{k} = `{v}`"))
                    .collect();
                let _ = writeln!(md, "- facts: {}", facts.join(", "));
            }
            if !d.tried.is_empty() {
                let _ = writeln!(md, "- tried in that stage:");
                for t in &d.tried {
                    let _ = writeln!(md, "  - `{t}`");
                }
            }
            if !d.candidate_fixes.is_empty() {
                let _ = writeln!(md, "- repairs the evidence names:");
                for f in &d.candidate_fixes {
                    let _ = writeln!(md, "  - {f}");
                }
            }
            let next = match self.outcome {
                // An interrupted session continues from its last checkpoint.
                Outcome::Aborted | Outcome::Error => format!(
                    "Repair the cause, then continue from the last checkpoint with `aipc resume {}`.",
                    self.session_id
                ),
                _ => format!(
                    "Repair it in the project (the session's branch `{}` holds every passed \
                     stage), then run `aipc run` again.",
                    self.branch
                ),
            };
            let _ = writeln!(md, "\n{next}");
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept session of a failed DeployBench run (the control arm, which has no classified
    /// evidence) and a deployed one.
    fn events(path: &str) -> Vec<EventEnvelope> {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    #[test]
    fn a_failed_session_says_what_a_human_must_do() {
        let events = events(
            "tests/deploybench/results/2026-11-30/control-626677a/sessions/branchy-ort.control/events.jsonl",
        );
        let report = Report::from_events(&events, Outcome::Failed, 1);
        let d = report.diagnosis.clone().expect("a diagnosis");
        assert_eq!(d.stage, "export");
        assert_eq!(d.status, "failed");
        assert!(d.signature.is_some());
        assert!(!d.tried.is_empty(), "{d:?}");
        assert!(d.tried.iter().all(|t| t.contains(" -> ")), "{:?}", d.tried);
        let md = report.to_markdown();
        assert!(md.contains("## What a human must do"), "{md}");
        assert!(md.contains("Stage **export** failed"), "{md}");
        assert!(md.contains("run `aipc run` again"), "{md}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["diagnosis"]["stage"], "export");
    }

    #[test]
    fn a_deployed_session_has_no_diagnosis() {
        let events = events("sessions/digits-cnn-onnxruntime/events.jsonl");
        let report = Report::from_events(&events, Outcome::Deployed, 1);
        assert!(report.diagnosis.is_none());
        assert!(!report.to_markdown().contains("What a human must do"));
        assert!(serde_json::to_value(&report)
            .unwrap()
            .get("diagnosis")
            .is_none());
    }
}
