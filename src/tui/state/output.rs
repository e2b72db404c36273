//! The log side of the state: each command (a `run` call or a check) gets an origin, a `━━`
//! header line, its output lines and a `──` footer in the log buffer; checks and their gates
//! are collected per attempt; and the evidence of a failure is pointed at its log line.

use super::types::{CheckStatus, CheckView, ChecksView, Origin};
use super::{seconds, TuiState};
use crate::protocol::{Evidence, GateResult, OutputStream};
use crate::tui::cells::Cell;
use crate::tui::logbuf::{LineKind, LineMeta};
use std::collections::BTreeMap;

/// A check's result as the engine reported it.
pub(super) struct CheckOutcome<'e> {
    pub check_id: &'e str,
    pub passed: bool,
    pub exit_code: Option<i32>,
    pub detail: &'e str,
    pub metrics: &'e BTreeMap<String, f64>,
    pub gates: &'e [GateResult],
    pub duration_ms: u64,
    /// Why the check did not run (its contract `when`); it counts as passed.
    pub skipped: Option<&'e str>,
}

impl TuiState {
    pub(super) fn tool_started(&mut self, call_id: &str, tool: &str) {
        let args = self.call_mut(call_id).map(|call| {
            call.running = true;
            call.args.clone()
        });
        if tool == "run" {
            let command = args
                .as_ref()
                .and_then(|a| a.get("command"))
                .and_then(|c| c.as_str())
                .unwrap_or("")
                .to_string();
            self.open_origin(call_id, format!("{call_id} run · {command}"));
        }
    }

    /// One line of a command's output (a call's or a check's).
    pub(super) fn output_line(&mut self, id: &str, stream: OutputStream, line: &str) {
        let origin = match self.origin_ids.get(id) {
            Some(&o) => o,
            None => self.open_origin(id, id.to_string()),
        };
        self.push_output(origin, stream == OutputStream::Stderr, line);
    }

    pub(super) fn check_started(
        &mut self,
        check_id: &str,
        stage: &str,
        name: &str,
        command: &Option<String>,
    ) {
        let attempt = self.stage_mut(stage).map(|s| s.attempt).unwrap_or(0);
        let fresh = self
            .checks
            .as_ref()
            .is_none_or(|c| c.stage != stage || c.attempt != attempt);
        if fresh {
            self.checks = Some(ChecksView {
                stage: stage.to_string(),
                attempt,
                checks: Vec::new(),
            });
        }
        if let Some(view) = self.checks.as_mut() {
            view.checks.push(CheckView {
                check_id: check_id.to_string(),
                name: name.to_string(),
                command: command.clone(),
                status: CheckStatus::Running,
                exit_code: None,
                detail: String::new(),
                gates: Vec::new(),
                metrics: BTreeMap::new(),
                duration_ms: 0,
            });
        }
        let label = match command {
            Some(command) => format!("check {name} · {command}"),
            None => format!("check {name}"),
        };
        self.open_origin(check_id, label);
    }

    pub(super) fn check_result(&mut self, result: CheckOutcome<'_>) {
        let CheckOutcome {
            check_id,
            passed,
            exit_code,
            detail,
            metrics,
            gates,
            duration_ms,
            skipped,
        } = result;
        let detail = match skipped {
            Some(reason) => format!("skipped: {reason}"),
            None => detail.to_string(),
        };
        let status = match (skipped, passed) {
            (Some(_), _) => CheckStatus::Skipped,
            (None, true) => CheckStatus::Passed,
            (None, false) => CheckStatus::Failed,
        };
        let mut name = check_id.to_string();
        if let Some(check) = self
            .checks
            .as_mut()
            .and_then(|v| v.checks.iter_mut().find(|c| c.check_id == *check_id))
        {
            check.status = status;
            check.exit_code = exit_code;
            check.detail = detail.clone();
            check.gates = gates.to_vec();
            check.metrics = metrics.clone();
            check.duration_ms = duration_ms;
            name = check.name.clone();
        }
        let verdict = match status {
            CheckStatus::Skipped => "skipped",
            CheckStatus::Failed => "FAILED",
            CheckStatus::Passed | CheckStatus::Running => "passed",
        };
        self.close_origin(check_id, format!("{verdict} · {}", seconds(duration_ms)));
        self.transcript.push(Cell::Check {
            name,
            passed,
            skipped: status == CheckStatus::Skipped,
            detail,
        });
    }

    fn open_origin(&mut self, id: &str, label: String) -> u32 {
        let number = self.origins.len() as u32;
        let stage = self
            .current_stage()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let first_line = self.log.len();
        self.log.push(
            &format!("━━ {label}"),
            LineMeta {
                origin: number,
                kind: LineKind::Header,
            },
        );
        self.origins.push(Origin {
            id: id.to_string(),
            label,
            stage,
            first_line,
            end_line: self.log.len(),
            running: true,
        });
        self.origin_ids.insert(std::sync::Arc::from(id), number);
        number
    }

    fn push_output(&mut self, origin: u32, stderr: bool, line: &str) {
        let meta = LineMeta {
            origin,
            kind: if stderr {
                LineKind::Stderr
            } else {
                LineKind::Stdout
            },
        };
        for part in line.split('\n') {
            self.log.push(part, meta);
        }
        if let Some(o) = self.origins.get_mut(origin as usize) {
            o.end_line = self.log.len();
        }
    }

    pub(super) fn close_origin(&mut self, id: &str, footer: String) {
        let Some(&number) = self.origin_ids.get(id) else {
            return;
        };
        self.log.push(
            &format!("── {footer}"),
            LineMeta {
                origin: number,
                kind: LineKind::Footer,
            },
        );
        if let Some(o) = self.origins.get_mut(number as usize) {
            o.end_line = self.log.len();
            o.running = false;
        }
    }

    /// The log line of the failed check that the evidence points at.
    pub(super) fn evidence_anchor(&self, evidence: &Evidence) -> Option<u64> {
        let failed = self.checks.as_ref().and_then(|v| {
            v.checks
                .iter()
                .rev()
                .find(|c| c.status == CheckStatus::Failed)
        })?;
        let origin = self
            .origins
            .get(*self.origin_ids.get(failed.check_id.as_str())? as usize)?;
        let (start, end) = (origin.first_line + 1, origin.end_line);
        let facts: Vec<&str> = evidence
            .facts
            .values()
            .map(|v| v.trim())
            .filter(|v| v.len() >= 2)
            .collect();
        if !facts.is_empty() {
            if let Some(line) = self
                .log
                .first_matching(start, end, |text| facts.iter().any(|f| text.contains(f)))
            {
                return Some(line);
            }
        }
        self.log
            .first_matching(start, end, names_an_error)
            .or(Some(origin.first_line))
    }
}

/// Does this line name an error (the words the classifier's fallback looks for)?
pub fn names_an_error(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    [
        "error",
        "exception",
        "traceback",
        "failed",
        "fatal",
        "assert",
    ]
    .iter()
    .any(|word| lower.contains(word))
}
