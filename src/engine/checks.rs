//! Stage checks: the engineer's commands, expected exit codes, required files and metric gates
//! that decide whether a stage passed. Each check's full output goes to the session's `logs/`
//! and, line by line, to the event stream. A check whose `when` does not hold on the project as
//! it is now is skipped, with the reason, and counts as passed.

use crate::contract::{flatten_metrics, parse_metrics_line, CheckSpec};
use crate::evidence::Failure;
use crate::protocol::{Event, GateResult, OutputStream};
use crate::sandbox::Sandbox;
use crate::toolchain::seal::Seal;
use crate::tools::{run_command, CommandSpec};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use super::bus::EventBus;

/// What a stage's checks concluded.
#[derive(Debug, Default)]
pub struct ChecksOutcome {
    pub passed: bool,
    /// The first failing check, reduced for the classifier.
    pub failure: Option<Failure>,
    /// Every metric every check printed, by name.
    pub metrics: BTreeMap<String, f64>,
    /// Whether the run was cancelled (abort) while a check ran.
    pub cancelled: bool,
}

/// Where and how the checks run.
pub struct CheckRunner<'a> {
    pub bus: &'a EventBus,
    pub dir: &'a Path,
    pub logs: &'a Path,
    pub env: &'a [(String, String)],
    pub env_remove: &'a [String],
    pub cancel: &'a CancellationToken,
    /// Where the check commands run.
    pub sandbox: &'a Sandbox,
    /// The toolbox as it was when the session started: a check refuses to judge when it
    /// changed.
    pub seal: &'a Seal,
}

impl CheckRunner<'_> {
    /// Run `checks` in order; stop at the first one that fails (later checks usually need
    /// what the earlier ones produce).
    pub async fn run_all(&self, stage: &str, attempt: u32, checks: &[CheckSpec]) -> ChecksOutcome {
        let mut outcome = ChecksOutcome {
            passed: true,
            ..ChecksOutcome::default()
        };
        for (index, check) in checks.iter().enumerate() {
            let check_id = format!("{stage}.a{attempt}.c{}", index + 1);
            self.bus.emit(Event::CheckStarted {
                check_id: check_id.clone(),
                stage: stage.to_string(),
                name: check.name.clone(),
                command: check.command.clone(),
            });
            // Read now, not at session start: a stage may have changed the project since.
            let project = check
                .when
                .as_ref()
                .and_then(|_| crate::contract::project_table(self.dir));
            if let Some(reason) = check.skip_reason(project.as_ref()) {
                self.bus.emit(Event::CheckResult {
                    check_id,
                    passed: true,
                    exit_code: None,
                    detail: String::new(),
                    metrics: BTreeMap::new(),
                    gates: Vec::new(),
                    duration_ms: 0,
                    skipped: Some(reason),
                });
                continue;
            }
            let result = self.run_one(&check_id, stage, attempt, check).await;
            outcome.metrics.extend(result.metrics.clone());
            self.bus.emit(Event::CheckResult {
                check_id,
                passed: result.failure.is_none(),
                exit_code: result.exit_code,
                detail: result
                    .failure
                    .as_ref()
                    .map(|f| f.failed_check.clone())
                    .unwrap_or_default(),
                metrics: result.metrics,
                gates: result.gates,
                duration_ms: result.duration.as_millis() as u64,
                skipped: None,
            });
            if result.cancelled {
                outcome.cancelled = true;
            }
            if let Some(failure) = result.failure {
                outcome.passed = false;
                outcome.failure = Some(failure);
                break;
            }
        }
        outcome
    }

    async fn run_one(
        &self,
        check_id: &str,
        stage: &str,
        attempt: u32,
        check: &CheckSpec,
    ) -> OneCheck {
        let started = Instant::now();
        let mut result = OneCheck::default();
        let mut log = String::new();
        if let Some(command) = &check.command {
            let combined = Mutex::new(String::new());
            let on_line = |stream: OutputStream, line: &str| {
                if let Ok(mut text) = combined.lock() {
                    text.push_str(line);
                    text.push('\n');
                }
                self.bus.emit(Event::CheckOutput {
                    check_id: check_id.to_string(),
                    stream,
                    line: line.to_string(),
                });
            };
            if let Err(changes) = self.seal.verify() {
                let reason = format!(
                    "the toolbox that judges this check changed since the session started \
                     ({}): {}; restore it and start a new session",
                    self.seal.root().display(),
                    changes.join("; ")
                );
                result.gates = unmeasured(check);
                result.fail(check, reason, "");
                result.duration = started.elapsed();
                return result;
            }
            let spec = CommandSpec {
                command,
                cwd: self.dir,
                env: self.env,
                env_remove: self.env_remove,
                timeout: Duration::from_secs(check.timeout_s),
                sandbox: self.sandbox,
                spill: Some(self.logs.join(format!("{check_id}.out"))),
            };
            match run_command(&spec, self.cancel, &on_line).await {
                Ok(out) => {
                    log = combined.into_inner().unwrap_or_default();
                    result.exit_code = out.exit_code;
                    result.cancelled = out.cancelled;
                    if let Some(value) = parse_metrics_line(&out.stdout) {
                        result.metrics = flatten_metrics(&value);
                        result.gates = check.gates.iter().map(|g| g.eval(&value)).collect();
                    } else {
                        result.gates = unmeasured(check);
                    }
                    let reason = if out.cancelled {
                        Some("cancelled".to_string())
                    } else if out.timed_out {
                        Some(format!("timed out after {} s (killed)", check.timeout_s))
                    } else if out.exit_code != Some(check.expect_exit) {
                        Some(match out.exit_code {
                            Some(code) => {
                                format!("exit code {code}, expected {}", check.expect_exit)
                            }
                            None => {
                                format!("killed by a signal, expected exit {}", check.expect_exit)
                            }
                        })
                    } else {
                        None
                    };
                    if let Some(reason) = reason {
                        result.fail(check, reason, &log);
                    }
                }
                Err(e) => result.fail(check, format!("could not start `{command}`: {e}"), ""),
            }
            self.write_log(stage, attempt, check, &log);
        }
        if result.failure.is_none() {
            let missing: Vec<&str> = check
                .files
                .iter()
                .filter(|pattern| !file_present(self.dir, pattern))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                result.fail(
                    check,
                    format!("missing files: {}", missing.join(", ")),
                    &log,
                );
            }
        }
        if result.failure.is_none() {
            let failed: Vec<&GateResult> = result.gates.iter().filter(|g| !g.passed).collect();
            if !failed.is_empty() {
                let described: Vec<String> = failed
                    .iter()
                    .map(|g| match g.measured {
                        Some(value) => format!("{} (measured {})", g.expr, round(value)),
                        None => format!("{} (metric not printed)", g.expr),
                    })
                    .collect();
                let keys: Vec<String> = failed
                    .iter()
                    .map(|g| match g.measured {
                        Some(value) => format!("{}={}", g.expr, round(value)),
                        None => format!("{}=missing", g.expr),
                    })
                    .collect();
                result.fail(
                    check,
                    format!("gates failed: {}", described.join("; ")),
                    &log,
                );
                if let Some(failure) = result.failure.as_mut() {
                    failure.gate_failures = keys;
                }
            }
        }
        result.duration = started.elapsed();
        result
    }

    fn write_log(&self, stage: &str, attempt: u32, check: &CheckSpec, log: &str) {
        let slug: String = check
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let path = self.logs.join(format!("{stage}-a{attempt}-{slug}.log"));
        if std::fs::create_dir_all(self.logs).is_ok() {
            // The event stream holds every line too; a failed write loses only this copy.
            let _ = std::fs::write(path, log);
        }
    }
}

#[derive(Debug, Default)]
struct OneCheck {
    exit_code: Option<i32>,
    cancelled: bool,
    metrics: BTreeMap<String, f64>,
    gates: Vec<GateResult>,
    failure: Option<Failure>,
    duration: Duration,
}

impl OneCheck {
    fn fail(&mut self, check: &CheckSpec, reason: String, log: &str) {
        self.failure = Some(Failure {
            failed_check: format!("{}: {reason}", check.name),
            check: check.name.clone(),
            exit_code: self.exit_code,
            log: log.to_string(),
            gate_failures: Vec::new(),
        });
    }
}

/// Four significant digits: enough to tell progress from noise in a signature.
fn round(value: f64) -> String {
    format!("{value:.4}")
}

/// Whether `pattern` (a path or a glob, relative to `dir`) names at least one existing file.
/// Build outputs are usually git-ignored, so ignore files are not honoured here.
pub fn file_present(dir: &Path, pattern: &str) -> bool {
    let is_glob = pattern.contains(['*', '?', '[', '{']);
    if !is_glob {
        return dir.join(pattern).exists();
    }
    let Ok(glob) = globset::Glob::new(pattern) else {
        return false;
    };
    let matcher = glob.compile_matcher();
    ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .hidden(false)
        .filter_entry(|entry| entry.file_name() != ".git" && entry.file_name() != ".aipc")
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .any(|entry| {
            entry
                .path()
                .strip_prefix(dir)
                .is_ok_and(|rel| matcher.is_match(rel))
        })
}

/// The check's gates, none measured (no metrics line, or the check did not run): all fail.
fn unmeasured(check: &CheckSpec) -> Vec<GateResult> {
    check
        .gates
        .iter()
        .map(|g| GateResult {
            expr: g.source.clone(),
            measured: None,
            passed: false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_present_handles_paths_and_globs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("out")).unwrap();
        std::fs::write(dir.path().join("out/model.onnx"), b"x").unwrap();
        assert!(file_present(dir.path(), "out/model.onnx"));
        assert!(file_present(dir.path(), "out/*.onnx"));
        assert!(file_present(dir.path(), "**/*.onnx"));
        assert!(!file_present(dir.path(), "*.pte"));
        assert!(!file_present(dir.path(), "model.onnx"));
    }
}
