//! The DeployBench table: one row per run (task × arm) read from the session's own report, and
//! a summary per arm; printed as Markdown and JSON.

use super::{Arm, Task};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One run of one task in one arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub task: String,
    pub target: String,
    pub arm: String,
    /// Which trial (from 1) of the task in this arm.
    #[serde(default = "first_trial")]
    pub trial: u32,
    /// The session's outcome (`deployed`, `failed`, `aborted`, `error`), or `error` when the
    /// run produced no report.
    pub outcome: String,
    /// Whether the task's expectation was met with zero human interventions.
    pub success: bool,
    /// The last stage that passed, or the stage that failed.
    pub stage_reached: String,
    /// Attempts beyond the first, summed over stages.
    pub repair_attempts: u32,
    pub model_turns: u64,
    pub tokens: u64,
    pub model_time_s: f64,
    pub toolchain_time_s: f64,
    pub wall_s: f64,
    pub human_interventions: u64,
    pub exit_code: Option<i32>,
    /// The session folder (replay it with `aipc replay`).
    pub session: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// What the deployment measured, read from the session's report.
    #[serde(default)]
    pub figures: Figures,
}

/// What one deployment measured, for the per-run figures table (ZooBench's columns): every value
/// is absent when the session did not get that far or the target does not measure it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// The signature of the failure the session ended on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Wall time of the export stage and of the artifact build stage (quantize, lowering).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_s: Option<f64>,
    /// p50 latency of the FP32 and of the INT8 artifact (performance stage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp32_p50_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int8_p50_ms: Option<f64>,
    /// The last measured agreement with eager: cosine and top-1 (the INT8 artifact's when it
    /// was compared, else FP32's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top1_agreement: Option<f64>,
    /// Task accuracy of the artifact and of eager, where the eval data has labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_acc: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_acc_eager: Option<f64>,
    /// Share of compute ops the delegate runs (ExecuTorch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegated_ratio: Option<f64>,
}

impl Figures {
    /// Read the figures from a session's `report.json`.
    pub(super) fn from_report(report: &serde_json::Value) -> Figures {
        let stages: Vec<&serde_json::Value> = report
            .get("stages")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let stage = |name: &str| {
            stages
                .iter()
                .copied()
                .find(|s| s.get("name").and_then(|v| v.as_str()) == Some(name))
        };
        let metric = |name: &str, key: &str| {
            stage(name)
                .and_then(|s| s.get("metrics"))
                .and_then(|m| m.get(key))
                .and_then(|v| v.as_f64())
        };
        let seconds = |name: &str| {
            stage(name)
                .and_then(|s| s.get("duration_ms"))
                .and_then(|v| v.as_f64())
                .map(|ms| ms / 1000.0)
        };
        // The measured value of a gate on `key` in the last check that measured it, over the
        // stages in order (a later stage's comparison is of the artifact shipped).
        let gate = |key: &str| {
            let mut last = None;
            for s in &stages {
                for check in s
                    .get("checks")
                    .and_then(|c| c.as_array())
                    .into_iter()
                    .flatten()
                {
                    for g in check
                        .get("gates")
                        .and_then(|g| g.as_array())
                        .into_iter()
                        .flatten()
                    {
                        let expr = g.get("expr").and_then(|e| e.as_str()).unwrap_or("");
                        let metric_name = expr
                            .split(|c: char| c.is_whitespace() || "<>=!".contains(c))
                            .next();
                        if metric_name == Some(key) {
                            if let Some(v) = g.get("measured").and_then(|v| v.as_f64()) {
                                last = Some(v);
                            }
                        }
                    }
                }
            }
            last
        };
        let p50 = metric("performance", "p50_ms");
        let (fp32_p50_ms, int8_p50_ms) = match (
            metric("performance", "fp32_p50_ms"),
            metric("performance", "int8_p50_ms"),
        ) {
            (Some(fp32), _) => (Some(fp32), p50),
            (None, Some(int8)) => (p50, Some(int8)),
            // The shipped artifact timed was an INT8 one: ORT's quantized node count, or a
            // target's own flag (qairt-*).
            (None, None)
                if metric("performance", "int8_nodes").unwrap_or(0.0) >= 1.0
                    || metric("performance", "quantized").unwrap_or(0.0) >= 1.0 =>
            {
                (None, p50)
            }
            (None, None) => (p50, None),
        };
        let last_metric = |key: &str| {
            ["performance", "accuracy", "run"]
                .iter()
                .find_map(|name| metric(name, key))
        };
        Figures {
            signature: report
                .get("diagnosis")
                .and_then(|d| d.get("signature"))
                .and_then(|v| v.as_str())
                .map(str::to_string),
            export_s: seconds("export"),
            build_s: seconds("build"),
            fp32_p50_ms,
            int8_p50_ms,
            cosine: gate("cosine"),
            top1_agreement: gate("top1_agreement"),
            task_acc: last_metric("task_acc_target"),
            task_acc_eager: last_metric("task_acc_ref"),
            delegated_ratio: ["build", "inspect"]
                .iter()
                .find_map(|name| metric(name, "delegated_ratio")),
        }
    }
}

fn first_trial() -> u32 {
    1
}

impl RunRecord {
    pub(super) fn new(task: &Task, arm: Arm) -> Self {
        RunRecord {
            task: task.name.clone(),
            target: task.target.clone(),
            arm: arm.name().to_string(),
            trial: 1,
            outcome: String::new(),
            success: false,
            stage_reached: String::new(),
            repair_attempts: 0,
            model_turns: 0,
            tokens: 0,
            model_time_s: 0.0,
            toolchain_time_s: 0.0,
            wall_s: 0.0,
            human_interventions: 0,
            exit_code: None,
            session: String::new(),
            note: String::new(),
            figures: Figures::default(),
        }
    }

    /// Fill the row from a session's `report.json`; `expect_stages` empty means the whole
    /// deployment must succeed.
    pub(super) fn fill_from_report(
        &mut self,
        report: &serde_json::Value,
        expect_stages: &[String],
    ) {
        let num = |key: &str| report.get(key).and_then(|v| v.as_u64()).unwrap_or(0);
        self.outcome = report
            .get("outcome")
            .and_then(|v| v.as_str())
            .unwrap_or("error")
            .to_string();
        self.model_turns = num("model_turns");
        self.tokens = num("prompt_tokens") + num("completion_tokens");
        self.model_time_s = num("model_time_ms") as f64 / 1000.0;
        self.toolchain_time_s = num("toolchain_time_ms") as f64 / 1000.0;
        self.human_interventions = num("human_interventions");
        // (name, status, attempts that repaired something): after a failed checks-first run
        // every attempt is a repair; otherwise the first one is the stage's own work.
        let stages: Vec<(String, String, u64)> = report
            .get("stages")
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .map(|s| {
                        let attempts = s.get("attempts").and_then(|v| v.as_u64()).unwrap_or(0);
                        let checks_first_failed =
                            s.get("checks_first").and_then(|v| v.as_str()) == Some("failed");
                        (
                            s.get("name")
                                .and_then(|v| v.as_str())
                                .unwrap_or("")
                                .to_string(),
                            s.get("status")
                                .and_then(|v| v.as_str())
                                .unwrap_or("")
                                .to_string(),
                            if checks_first_failed {
                                attempts
                            } else {
                                attempts.saturating_sub(1)
                            },
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.repair_attempts = stages.iter().map(|(_, _, repairs)| *repairs as u32).sum();
        self.stage_reached = stages
            .iter()
            .find(|(_, status, _)| status != "passed" && status != "skipped")
            .or_else(|| stages.last())
            .map(|(name, status, _)| {
                if status == "passed" {
                    name.clone()
                } else {
                    format!("{name} ({status})")
                }
            })
            .unwrap_or_default();
        let expected_met = if expect_stages.is_empty() {
            self.outcome == "deployed"
        } else {
            expect_stages.iter().all(|want| {
                stages
                    .iter()
                    .any(|(name, status, _)| name == want && status == "passed")
            })
        };
        self.success = expected_met && self.human_interventions == 0;
        self.figures = Figures::from_report(report);
    }
}

/// The figures of one arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmSummary {
    /// Runs in this arm (tasks × trials).
    pub tasks: usize,
    pub deployed: usize,
    /// Runs that produced no session report or ended `error` (the runner, the model backend or
    /// the environment failed): counted apart from deployments that failed a stage.
    #[serde(default)]
    pub errored: usize,
    pub success_rate: f64,
    /// The lowest and highest success rate of one trial (all tasks of that trial).
    #[serde(default)]
    pub trial_rates: Vec<f64>,
    pub median_wall_s: f64,
    pub median_model_time_s: f64,
    pub median_toolchain_time_s: f64,
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchDeployReport {
    pub runs: Vec<RunRecord>,
    pub summary: BTreeMap<String, ArmSummary>,
}

fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

impl BenchDeployReport {
    pub fn new(runs: Vec<RunRecord>) -> Self {
        let mut summary = BTreeMap::new();
        let arms: std::collections::BTreeSet<String> = runs.iter().map(|r| r.arm.clone()).collect();
        for arm in arms {
            let of_arm: Vec<&RunRecord> = runs.iter().filter(|r| r.arm == arm).collect();
            let deployed = of_arm.iter().filter(|r| r.success).count();
            let errored = of_arm.iter().filter(|r| r.outcome == "error").count();
            let trials: std::collections::BTreeSet<u32> = of_arm.iter().map(|r| r.trial).collect();
            let trial_rates = trials
                .iter()
                .map(|t| {
                    let of_trial: Vec<&&RunRecord> =
                        of_arm.iter().filter(|r| r.trial == *t).collect();
                    of_trial.iter().filter(|r| r.success).count() as f64 / of_trial.len() as f64
                })
                .collect();
            summary.insert(
                arm,
                ArmSummary {
                    tasks: of_arm.len(),
                    deployed,
                    errored,
                    trial_rates,
                    success_rate: if of_arm.is_empty() {
                        0.0
                    } else {
                        deployed as f64 / of_arm.len() as f64
                    },
                    median_wall_s: median(of_arm.iter().map(|r| r.wall_s).collect()),
                    median_model_time_s: median(of_arm.iter().map(|r| r.model_time_s).collect()),
                    median_toolchain_time_s: median(
                        of_arm.iter().map(|r| r.toolchain_time_s).collect(),
                    ),
                },
            );
        }
        BenchDeployReport { runs, summary }
    }

    pub fn to_markdown(&self) -> String {
        let mut md = String::from("# DeployBench\n\n");
        md.push_str("| arm | runs | deployed | errored | success rate | per trial | median wall | median model | median toolchain |\n|---|---|---|---|---|---|---|---|---|\n");
        for (arm, s) in &self.summary {
            let per_trial: Vec<String> = s
                .trial_rates
                .iter()
                .map(|r| format!("{:.0}%", r * 100.0))
                .collect();
            let _ = writeln!(
                md,
                "| {arm} | {} | {} | {} | {:.0}% | {} | {:.1} s | {:.1} s | {:.1} s |",
                s.tasks,
                s.deployed,
                s.errored,
                s.success_rate * 100.0,
                per_trial.join(" / "),
                s.median_wall_s,
                s.median_model_time_s,
                s.median_toolchain_time_s
            );
        }
        let trials = self.runs.iter().map(|r| r.trial).max().unwrap_or(1);
        if trials > 1 {
            md.push_str("\n| task | arm | deployed / trials | errored | stages reached | wall (min – max) |\n|---|---|---|---|---|---|\n");
            let mut keys: Vec<(&str, &str)> = self
                .runs
                .iter()
                .map(|r| (r.task.as_str(), r.arm.as_str()))
                .collect();
            keys.dedup();
            keys.sort();
            keys.dedup();
            for (task, arm) in keys {
                let of: Vec<&RunRecord> = self
                    .runs
                    .iter()
                    .filter(|r| r.task == task && r.arm == arm)
                    .collect();
                let mut reached: Vec<&str> = of.iter().map(|r| r.stage_reached.as_str()).collect();
                reached.sort();
                reached.dedup();
                let walls = of.iter().map(|r| r.wall_s);
                let _ = writeln!(
                    md,
                    "| {task} | {arm} | {} / {} | {} | {} | {:.0} – {:.0} s |",
                    of.iter().filter(|r| r.success).count(),
                    of.len(),
                    of.iter().filter(|r| r.outcome == "error").count(),
                    reached.join(", "),
                    walls.clone().fold(f64::INFINITY, f64::min),
                    walls.fold(0.0, f64::max)
                );
            }
        }
        md.push_str("\n| task | target | arm | trial | outcome | stage reached | repairs | turns | tokens | model | toolchain | wall | humans |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in &self.runs {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {}{} | {} | {} | {} | {} | {:.1} s | {:.1} s | {:.1} s | {} |",
                r.task,
                r.target,
                r.arm,
                r.trial,
                if r.success { "✔ " } else { "✘ " },
                r.outcome,
                r.stage_reached,
                r.repair_attempts,
                r.model_turns,
                r.tokens,
                r.model_time_s,
                r.toolchain_time_s,
                r.wall_s,
                r.human_interventions
            );
        }
        md.push_str("\nWhat each run measured (signature: the failure it ended on; export and build: stage wall time; latency: p50 at the contract's threads; cosine and top-1: the last comparison with eager; task accuracy: artifact / eager, where the eval data has labels; delegated: share of compute ops on the delegate):\n\n| task | arm | trial | signature | export | build | FP32 p50 | INT8 p50 | cosine | top-1 | task acc | delegated |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in &self.runs {
            let f = &r.figures;
            let or_dash = |v: Option<f64>, unit: &str, digits: usize| {
                v.map_or_else(|| "–".to_string(), |v| format!("{v:.digits$}{unit}"))
            };
            let task_acc = match (f.task_acc, f.task_acc_eager) {
                (Some(a), Some(e)) => format!("{a:.3} / {e:.3}"),
                (Some(a), None) => format!("{a:.3}"),
                _ => "–".to_string(),
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.task,
                r.arm,
                r.trial,
                f.signature.as_deref().unwrap_or("–"),
                or_dash(f.export_s, " s", 1),
                or_dash(f.build_s, " s", 1),
                or_dash(f.fp32_p50_ms, " ms", 3),
                or_dash(f.int8_p50_ms, " ms", 3),
                or_dash(f.cosine, "", 4),
                or_dash(f.top1_agreement, "", 3),
                task_acc,
                or_dash(f.delegated_ratio, "", 3),
            );
        }
        let notes: Vec<&RunRecord> = self.runs.iter().filter(|r| !r.note.is_empty()).collect();
        if !notes.is_empty() {
            md.push_str("\nNotes:\n");
            for r in notes {
                let _ = writeln!(
                    md,
                    "- {} ({}, trial {}): {}",
                    r.task, r.arm, r.trial, r.note
                );
            }
        }
        md.push_str("\nSessions:\n");
        for r in &self.runs {
            if !r.session.is_empty() {
                let _ = writeln!(
                    md,
                    "- {} ({}, trial {}): {}",
                    r.task, r.arm, r.trial, r.session
                );
            }
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(arm: Arm) -> RunRecord {
        let task = Task {
            name: "t".into(),
            description: String::new(),
            project: ".".into(),
            target: "x".into(),
            covers: vec![],
            overlay: None,
            expect_stages: vec![],
        };
        RunRecord::new(&task, arm)
    }

    fn report(outcome: &str, stages: serde_json::Value, humans: u64) -> serde_json::Value {
        json!({"outcome": outcome, "model_turns": 4, "prompt_tokens": 100, "completion_tokens": 20,
               "model_time_ms": 1500, "toolchain_time_ms": 2500, "human_interventions": humans,
               "stages": stages})
    }

    #[test]
    fn a_deployed_session_with_repairs_is_a_success() {
        let mut r = record(Arm::Skills);
        r.fill_from_report(
            &report(
                "deployed",
                json!([{"name":"export","status":"passed","attempts":2},
                       {"name":"inspect","status":"passed","attempts":0,"checks_first":"passed"},
                       {"name":"accuracy","status":"passed","attempts":1}]),
                0,
            ),
            &[],
        );
        assert!(r.success);
        assert_eq!(r.repair_attempts, 1);
        assert_eq!(r.stage_reached, "accuracy");
        // A checks-first stage that failed before any model turn: its attempt 1 is a repair.
        let mut r = record(Arm::Skills);
        r.fill_from_report(
            &report(
                "deployed",
                json!([{"name":"export","status":"passed","attempts":1},
                       {"name":"inspect","status":"passed","attempts":1,"checks_first":"failed"}]),
                0,
            ),
            &[],
        );
        assert_eq!(r.repair_attempts, 1);
        assert_eq!(r.tokens, 120);
        assert_eq!(r.toolchain_time_s, 2.5);
    }

    #[test]
    fn figures_come_from_the_stages_of_the_report() {
        let gates = |cos: f64, top1: f64| {
            json!([{"name": "int8 matches eager", "gates": [
                {"expr": "cosine >= 0.95", "measured": cos, "passed": true},
                {"expr": "top1_agreement >= 0.98", "measured": top1, "passed": true}]}])
        };
        let mut r = record(Arm::Skills);
        r.fill_from_report(
            &json!({"outcome": "failed", "diagnosis": {"signature": "quant.accuracy_collapse"},
                "stages": [
                {"name": "export", "status": "passed", "attempts": 1, "duration_ms": 2500},
                {"name": "build", "status": "passed", "attempts": 1, "duration_ms": 4000,
                 "metrics": {"delegated_ratio": 0.75}},
                {"name": "accuracy", "status": "passed", "attempts": 1, "checks": gates(0.97, 0.99),
                 "metrics": {"task_acc_target": 0.9, "task_acc_ref": 0.91}},
                {"name": "performance", "status": "failed", "attempts": 1, "checks": gates(0.96, 0.5),
                 "metrics": {"p50_ms": 1.5, "fp32_p50_ms": 3.0}}]}),
            &[],
        );
        let f = &r.figures;
        assert_eq!(f.signature.as_deref(), Some("quant.accuracy_collapse"));
        assert_eq!((f.export_s, f.build_s), (Some(2.5), Some(4.0)));
        assert_eq!((f.fp32_p50_ms, f.int8_p50_ms), (Some(3.0), Some(1.5)));
        assert_eq!(
            (f.cosine, f.top1_agreement),
            (Some(0.96), Some(0.5)),
            "the last comparison"
        );
        assert_eq!((f.task_acc, f.task_acc_eager), (Some(0.9), Some(0.91)));
        assert_eq!(f.delegated_ratio, Some(0.75));
        let md = BenchDeployReport::new(vec![r]).to_markdown();
        assert!(md.contains("| t | skills | 1 | quant.accuracy_collapse | 2.5 s | 4.0 s | 3.000 ms | 1.500 ms | 0.9600 | 0.500 | 0.900 / 0.910 | 0.750 |"), "{md}");
        // A target that times only the shipped artifact says whether it is the INT8 one.
        for (flag, expect) in [
            (json!({"int8_nodes": 12}), (None, Some(0.4))),
            (json!({"quantized": 1}), (None, Some(0.4))),
            (json!({"quantized": 0}), (Some(0.4), None)),
        ] {
            let mut metrics = flag;
            metrics["p50_ms"] = json!(0.4);
            let mut r = record(Arm::Skills);
            r.fill_from_report(
                &json!({"outcome": "deployed", "stages": [
                    {"name": "performance", "status": "passed", "attempts": 1, "metrics": metrics}]}),
                &[],
            );
            assert_eq!((r.figures.fp32_p50_ms, r.figures.int8_p50_ms), expect);
        }
        // A report from a session that stopped at export has none of it.
        let mut r = record(Arm::Skills);
        r.fill_from_report(&report("failed", json!([]), 0), &[]);
        assert_eq!(r.figures, Figures::default());
    }

    #[test]
    fn a_failed_stage_or_a_human_is_not_a_success() {
        let stages = json!([{"name":"export","status":"passed","attempts":1},
                            {"name":"accuracy","status":"failed","attempts":3}]);
        let mut r = record(Arm::Control);
        r.fill_from_report(&report("failed", stages.clone(), 0), &[]);
        assert!(!r.success);
        assert_eq!(r.stage_reached, "accuracy (failed)");
        // Only export expected: met — unless a human helped.
        let mut r = record(Arm::Control);
        r.fill_from_report(&report("failed", stages.clone(), 0), &["export".into()]);
        assert!(r.success);
        let mut r = record(Arm::Control);
        r.fill_from_report(&report("deployed", stages, 1), &["export".into()]);
        assert!(!r.success);
    }

    #[test]
    fn summary_per_arm_and_regressions() {
        let mut a = record(Arm::Skills);
        a.success = true;
        a.wall_s = 10.0;
        let mut b = record(Arm::Control);
        b.wall_s = 30.0;
        let before = BenchDeployReport::new(vec![a.clone(), b.clone()]);
        assert_eq!(before.summary["skills"].success_rate, 1.0);
        assert_eq!(before.summary["control"].deployed, 0);
        assert!(before
            .to_markdown()
            .contains("| skills | 1 | 1 | 0 | 100% | 100% |"));
        let mut a2 = a.clone();
        a2.success = false;
        a2.outcome = "failed".into();
        let now = BenchDeployReport::new(vec![a2, b]);
        let regressions = super::super::regressions(&before, &now);
        assert_eq!(regressions.len(), 1, "{regressions:?}");
    }

    #[test]
    fn trials_give_a_spread_and_errors_count_apart() {
        let mut runs = Vec::new();
        for (trial, ok, outcome) in [
            (1, true, "deployed"),
            (2, false, "failed"),
            (3, false, "error"),
        ] {
            let mut r = record(Arm::NoModel);
            r.trial = trial;
            r.success = ok;
            r.outcome = outcome.into();
            r.wall_s = 10.0 * trial as f64;
            runs.push(r);
        }
        let report = BenchDeployReport::new(runs);
        let s = &report.summary["no-model"];
        assert_eq!((s.tasks, s.deployed, s.errored), (3, 1, 1));
        assert_eq!(s.trial_rates, vec![1.0, 0.0, 0.0]);
        let md = report.to_markdown();
        assert!(md.contains("| t | no-model | 1 / 3 | 1 |"), "{md}");
        assert!(md.contains("10 – 30 s"), "{md}");
        // A baseline from before trials were recorded reads as trial 1.
        let old: RunRecord = serde_json::from_value(json!({
            "task": "t", "target": "x", "arm": "skills", "outcome": "deployed", "success": true,
            "stage_reached": "report", "repair_attempts": 0, "model_turns": 1, "tokens": 1,
            "model_time_s": 0.0, "toolchain_time_s": 0.0, "wall_s": 1.0, "human_interventions": 0,
            "exit_code": 0, "session": ""
        }))
        .unwrap();
        assert_eq!(old.trial, 1);
    }
}
