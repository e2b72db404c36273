//! `aipc bench deploy`: DeployBench, a suite of real deployment tasks run in batch mode (zero
//! human input), each in its own session, in up to four arms — `skills` (skills offered,
//! classified evidence, choices narrowed to what the evidence names), `control` (no skills, raw
//! log tail only), `no-model` (no model at all: a deterministic policy that makes the first call
//! the evidence names, [`crate::model::policy`]: what the tables alone achieve) and
//! `evidence-text` (skills and classified evidence as text, every turn offering the stage's
//! tools) — repeated `trials` times, with a table of outcomes, their spread over trials, and
//! where the time went.
//!
//! Every run deploys a fresh copy of the task's project with the real `aipc run` binary (the
//! same executable, as a child process), so the sessions are ordinary sessions: kept under the
//! output folder, replayable, and judged only by their own reports (gates on artifacts built
//! in that run). Nothing about a task's expected result is known to the runner beyond which
//! stages count as success.

pub mod keep;
pub mod table;
pub mod task;

pub use keep::{keep_failed, Kept};
pub use table::{ArmSummary, BenchDeployReport, Figures, RunRecord};
pub use task::{load_tasks, Task, TaskError};

use anyhow::{Context, Result};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Which arm of the experiment a run belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arm {
    Skills,
    Control,
    NoModel,
    EvidenceText,
}

impl Arm {
    pub fn name(self) -> &'static str {
        match self {
            Arm::Skills => "skills",
            Arm::Control => "control",
            Arm::NoModel => "no-model",
            Arm::EvidenceText => "evidence-text",
        }
    }

    /// The `aipc run` flags that make this arm (the model comes from the config, except for
    /// `no-model`).
    fn run_flags(self) -> &'static [&'static str] {
        match self {
            Arm::Skills | Arm::NoModel => &[],
            Arm::Control => &["--no-skills", "--raw-evidence"],
            Arm::EvidenceText => &["--no-narrowing"],
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct DeployBenchConfig {
    /// The `aipc` executable that runs each task.
    pub exe: PathBuf,
    /// The aipc data dir (toolbox, skills, prompts), passed to each run.
    pub data_dir: PathBuf,
    pub tasks: Vec<Task>,
    pub arms: Vec<Arm>,
    /// `--model` for each run (default: the embedded default model).
    pub model: Option<String>,
    /// Further flags passed to every `aipc run` (e.g. `--threads 1`).
    pub run_flags: Vec<String>,
    /// Runs in parallel.
    pub jobs: usize,
    /// Times each task runs in each arm (greedy decoding is deterministic on one machine, so
    /// trials measure what differs between runs: timing, the machine's load, the toolchain).
    pub trials: u32,
    /// Where project copies, sessions and the table go.
    pub out_dir: PathBuf,
}

/// Folders never copied into a run's project copy: sessions, build outputs, caches.
const SKIPPED_DIRS: &[&str] = &[".aipc", ".git", "build", "__pycache__", ".pytest_cache"];

/// Run every task in every arm and collect the table. `progress` hears one line per finished
/// run.
pub fn run(
    config: &DeployBenchConfig,
    progress: &(dyn Fn(&RunRecord) + Sync),
) -> Result<BenchDeployReport> {
    std::fs::create_dir_all(&config.out_dir)
        .with_context(|| format!("creating {}", config.out_dir.display()))?;
    let mut queue: VecDeque<(usize, Task, Arm, u32)> = VecDeque::new();
    for trial in 1..=config.trials.max(1) {
        for task in &config.tasks {
            for arm in &config.arms {
                queue.push_back((queue.len(), task.clone(), *arm, trial));
            }
        }
    }
    let total = queue.len();
    let queue = Arc::new(Mutex::new(queue));
    let results: Arc<Mutex<Vec<(usize, RunRecord)>>> = Arc::new(Mutex::new(Vec::new()));
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.clamp(1, total.max(1)) {
            let queue = Arc::clone(&queue);
            let results = Arc::clone(&results);
            scope.spawn(move || loop {
                let next = match queue.lock() {
                    Ok(mut q) => q.pop_front(),
                    Err(_) => None,
                };
                let Some((index, task, arm, trial)) = next else {
                    break;
                };
                let record = run_one(config, &task, arm, trial);
                progress(&record);
                if let Ok(mut r) = results.lock() {
                    r.push((index, record));
                }
            });
        }
    });
    let mut runs = match Arc::try_unwrap(results) {
        Ok(m) => m.into_inner().unwrap_or_else(|e| e.into_inner()),
        Err(shared) => shared.lock().map(|r| r.clone()).unwrap_or_default(),
    };
    runs.sort_by_key(|(i, _)| *i);
    let report = BenchDeployReport::new(runs.into_iter().map(|(_, r)| r).collect());
    std::fs::write(config.out_dir.join("deploybench.md"), report.to_markdown())
        .with_context(|| format!("writing the table into {}", config.out_dir.display()))?;
    std::fs::write(
        config.out_dir.join("deploybench.json"),
        serde_json::to_string_pretty(&report)?,
    )
    .with_context(|| format!("writing the JSON into {}", config.out_dir.display()))?;
    Ok(report)
}

/// One task in one arm, one trial: copy the project, run `aipc run --batch`, read the
/// session's report.
fn run_one(config: &DeployBenchConfig, task: &Task, arm: Arm, trial: u32) -> RunRecord {
    let name = if config.trials > 1 {
        format!("{}.{}.t{trial}", task.name, arm.name())
    } else {
        format!("{}.{}", task.name, arm.name())
    };
    let run_dir = config.out_dir.join("runs").join(name);
    let mut record = RunRecord::new(task, arm);
    record.trial = trial;
    let started = Instant::now();
    let result = (|| -> Result<()> {
        if run_dir.exists() {
            std::fs::remove_dir_all(&run_dir)
                .with_context(|| format!("clearing {}", run_dir.display()))?;
        }
        let project = run_dir.join("project");
        materialize(task, &project)?;
        let log_path = run_dir.join("run.log");
        let log = std::fs::File::create(&log_path)
            .with_context(|| format!("creating {}", log_path.display()))?;
        let mut command = Command::new(&config.exe);
        command
            .arg("--data-dir")
            .arg(&config.data_dir)
            .arg("run")
            .arg(&project)
            .arg("--batch")
            .arg("--target")
            .arg(&task.target);
        if arm == Arm::NoModel {
            command.arg("--model").arg(crate::model::policy::SPEC);
        } else if let Some(model) = &config.model {
            command.arg("--model").arg(model);
        }
        command.args(arm.run_flags());
        command.args(&config.run_flags);
        let output = command
            .stdin(Stdio::null())
            .stderr(Stdio::from(log))
            .output()
            .with_context(|| format!("starting {}", config.exe.display()))?;
        record.exit_code = output.status.code();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let report_md = stdout
            .lines()
            .rev()
            .find(|l| l.trim_end().ends_with("report.md"))
            .map(|l| PathBuf::from(l.trim()));
        match report_md {
            Some(md) => {
                let json_path = md.with_file_name("report.json");
                record.session = md
                    .parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                let text =
                    crate::safe_read::read_to_string(&json_path, crate::safe_read::SESSION_FILE)?;
                let report: serde_json::Value = serde_json::from_str(&text)
                    .with_context(|| format!("parsing {}", json_path.display()))?;
                record.fill_from_report(&report, &task.expect_stages);
            }
            None => {
                record.outcome = "error".to_string();
                record.note = format!(
                    "no session report (exit {:?}); see {}",
                    record.exit_code,
                    log_path.display()
                );
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        record.outcome = "error".to_string();
        record.note = format!("{e:#}");
    }
    record.wall_s = started.elapsed().as_secs_f64();
    record
}

/// The project a run deploys: a copy of the task's project at `dest` (created) with the task's
/// overlay copied over it.
pub fn materialize(task: &Task, dest: &Path) -> Result<()> {
    copy_tree(&task.project, dest)?;
    if let Some(overlay) = &task.overlay {
        copy_tree(overlay, dest)?;
    }
    Ok(())
}

/// Copy `from` into `to` (created), skipping session folders, build outputs and caches.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let entries = std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", from.display()))?;
        let name = entry.file_name();
        let kind = entry.file_type()?;
        let source = entry.path();
        let dest = to.join(&name);
        if kind.is_dir() {
            if SKIPPED_DIRS.iter().any(|s| name == *s) {
                continue;
            }
            copy_tree(&source, &dest)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &dest)
                .with_context(|| format!("copying {} to {}", source.display(), dest.display()))?;
        }
    }
    Ok(())
}

/// Task names that passed in `baseline` (a previous `deploybench.json`) but fail in `report`,
/// per arm: a regression.
pub fn regressions(baseline: &BenchDeployReport, report: &BenchDeployReport) -> Vec<String> {
    let mut out = Vec::new();
    for before in baseline.runs.iter().filter(|r| r.success) {
        if let Some(now) = report
            .runs
            .iter()
            .find(|r| r.task == before.task && r.arm == before.arm && r.trial == before.trial)
        {
            if !now.success {
                out.push(format!(
                    "{} ({}, trial {}): passed in the baseline, now {} at stage {}",
                    now.task, now.arm, now.trial, now.outcome, now.stage_reached
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_tree_skips_sessions_and_build_outputs() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join(".aipc/sessions")).unwrap();
        std::fs::create_dir_all(src.join("build")).unwrap();
        std::fs::create_dir_all(src.join("pkg")).unwrap();
        std::fs::write(src.join("model.py"), "m").unwrap();
        std::fs::write(src.join("pkg/x.py"), "x").unwrap();
        std::fs::write(src.join("build/model.onnx"), "o").unwrap();
        let dst = tmp.path().join("dst");
        copy_tree(&src, &dst).unwrap();
        assert!(dst.join("model.py").is_file());
        assert!(dst.join("pkg/x.py").is_file());
        assert!(!dst.join("build").exists());
        assert!(!dst.join(".aipc").exists());
    }
}
