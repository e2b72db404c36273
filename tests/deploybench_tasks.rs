//! The DeployBench task folders (`tests/deploybench/tasks/<name>/`) load and are runnable: every
//! `task.toml` parses, its project exists, its overlay applies over a copy of the project, the
//! merged contract of the copy loads for the task's target, and the copy's `aipc.toml
//! [project]` passes the toolbox's own checks. The suite covers what issue 7 asks for (both
//! targets, the fault kinds), and `quick.txt` names real tasks.
//!
//! Fast: nothing here runs a toolchain. Whether a task's fault and repair behave as its README
//! says is checked by `tests/deploybench/verify_tasks.py` (minutes per task, real toolchains).

mod common;

use aipc::bench::deploy::{load_tasks, materialize, Task};
use aipc::contract::Contract;
use common::{data_dir, LLM_STAGES};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGETS: [&str; 2] = ["onnxruntime-cpu", "executorch-xnnpack"];
/// The flows' targets (docs/split-adaptation.md, docs/llm.md), named for the runtime they run on.
const FLOW_TARGETS: [&str; 3] = [
    "split-onnxruntime-cpu",
    "split-executorch-xnnpack",
    "llm-executorch-xnnpack",
];
/// The agent stages of the deployment targets' contracts, and of the split flow's.
const DEPLOY_STAGES: [&str; 6] = [
    "export",
    "inspect",
    "build",
    "run",
    "accuracy",
    "performance",
];
const FLOW_STAGES: [&str; 6] = ["split", "backbone", "features", "extract", "adapt", "cost"];
/// The Qualcomm AI Runtime targets (docs/qairt.md; their tasks need QAIRT_SDK_ROOT), the name
/// suffix of each one's tasks, and their agent and judged stages (the same for both flows).
const QAIRT: [(&str, &str); 2] = [("qairt-qnn", "-qairt"), ("qairt-snpe", "-snpe")];
const QAIRT_STAGES: [&str; 6] = [
    "export",
    "convert",
    "build",
    "run",
    "accuracy",
    "performance",
];

/// What issue 7 asks the suite to cover, as `covers` labels.
const REQUIRED_COVERS: &[&str] = &[
    "clean",
    "cnn",
    "mlp",
    "transformer",
    "two-inputs",
    "control-flow",
    "dynamic-seq",
    "unsupported-op",
    "opset-drift",
    "int8-collapse",
    "partial-delegation",
    "latency-int8",
    "preprocessing",
];

fn tasks_dir() -> PathBuf {
    data_dir().join("tests/deploybench/tasks")
}

fn all_tasks() -> Vec<Task> {
    load_tasks(&tasks_dir(), &data_dir(), "*").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_task_loads_with_a_known_target_and_an_existing_project() {
    let tasks = all_tasks();
    assert!(tasks.len() >= 12, "{} tasks", tasks.len());
    for task in &tasks {
        assert!(
            TARGETS.contains(&task.target.as_str())
                || FLOW_TARGETS.contains(&task.target.as_str())
                || QAIRT.iter().any(|(t, _)| task.target == *t),
            "{}: target {}",
            task.name,
            task.target
        );
        assert!(
            task.project.join("aipc.toml").is_file(),
            "{}: {} has no aipc.toml",
            task.name,
            task.project.display()
        );
        assert!(
            !task.description.is_empty(),
            "{}: no description",
            task.name
        );
        assert!(!task.covers.is_empty(), "{}: no covers", task.name);
        // The name says the target, so the table reads without the target column.
        let runtime = task
            .target
            .strip_prefix("split-")
            .or_else(|| task.target.strip_prefix("llm-"))
            .unwrap_or(&task.target);
        let suffix = if runtime == "onnxruntime-cpu" {
            "-ort"
        } else if let Some((_, suffix)) = QAIRT.iter().find(|(t, _)| runtime == *t) {
            suffix
        } else {
            "-et"
        };
        assert!(task.name.ends_with(suffix), "{}: name", task.name);
    }
}

#[test]
fn the_suite_covers_both_targets_and_every_fault_kind() {
    let tasks = all_tasks();
    let mut per_target: BTreeMap<&str, usize> = BTreeMap::new();
    for task in &tasks {
        *per_target.entry(task.target.as_str()).or_default() += 1;
    }
    for target in TARGETS {
        let n = per_target.get(target).copied().unwrap_or(0);
        assert!(n >= 4, "{target}: {n} tasks");
    }
    let covered: BTreeSet<&str> = tasks
        .iter()
        .flat_map(|t| t.covers.iter().map(String::as_str))
        .collect();
    let missing: Vec<&&str> = REQUIRED_COVERS
        .iter()
        .filter(|c| !covered.contains(**c))
        .collect();
    assert!(missing.is_empty(), "nothing covers {missing:?}");
}

/// Each task's project copy, as `aipc bench deploy` makes it, in a temporary folder.
fn materialized() -> (tempfile::TempDir, Vec<(Task, PathBuf)>) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let copies = all_tasks()
        .into_iter()
        .map(|task| {
            let dest = tmp.path().join(&task.name);
            materialize(&task, &dest).unwrap_or_else(|e| panic!("{}: {e:#}", task.name));
            (task, dest)
        })
        .collect();
    (tmp, copies)
}

/// The files under `dir` (its subfolders' too), relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        for entry in std::fs::read_dir(dir.join(&rel)).expect("overlay folder") {
            let entry = entry.expect("overlay entry");
            let path = rel.join(entry.file_name());
            if entry.file_type().expect("file type").is_dir() {
                pending.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn overlays_apply_and_the_merged_contract_loads() {
    let targets = data_dir().join("toolbox/targets");
    let (_tmp, copies) = materialized();
    for (task, copy) in &copies {
        if let Some(overlay) = &task.overlay {
            for name in files_under(overlay) {
                let want = std::fs::read(overlay.join(&name)).expect("overlay file");
                let got = std::fs::read(copy.join(&name)).expect("copied overlay file");
                assert_eq!(got, want, "{}: {:?} not overlaid", task.name, name);
            }
        }
        let contract = Contract::load(&targets, Some(&task.target), copy)
            .unwrap_or_else(|e| panic!("{}: {e}", task.name));
        let stages = if task.target.starts_with("llm-") {
            LLM_STAGES
        } else if QAIRT.iter().any(|(t, _)| task.target == *t) {
            QAIRT_STAGES
        } else if FLOW_TARGETS.contains(&task.target.as_str()) {
            FLOW_STAGES
        } else {
            DEPLOY_STAGES
        };
        for stage in stages {
            assert!(
                contract.stage(stage).is_some(),
                "{}: no stage {stage}",
                task.name
            );
        }
        // A task starts from the project's sources, never from artifacts of another run.
        assert!(!copy.join("build").exists(), "{}: build/ copied", task.name);
    }
}

#[test]
fn every_project_table_passes_the_toolbox_checks() {
    // aipc_toolbox.project reads [project] with the standard library only (no toolchain).
    let python = which_python();
    let python = python.expect("no python3 with tomllib (3.11+) on PATH (.ci/run needs one)");
    let (_tmp, copies) = materialized();
    let dirs: Vec<String> = copies
        .iter()
        .map(|(_, copy)| copy.display().to_string())
        .collect();
    let script = "import sys\n\
        from aipc_toolbox.project import Project\n\
        for d in sys.argv[1:]:\n\
        \x20   p = Project(d)\n\
        \x20   assert p['model'] and p['example_inputs'], d\n\
        \x20   if p.get('tokenizer'): continue\n\
        \x20   assert p['eval_data'] and p['calibration_data'], d\n\
        \x20   assert p['latency_budget_ms'] or p['adapt_data'], d\n\
        print('ok', len(sys.argv) - 1)\n";
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(&dirs)
        .env("PYTHONPATH", data_dir().join("toolbox/lib"))
        .output()
        .expect("run python3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Unknown [project] keys are only warned about by the scripts: none here.
    assert!(!stderr.contains("unknown key"), "{stderr}");
}

/// `python3` when it has `tomllib` (Python 3.11+), which aipc_toolbox needs.
fn which_python() -> Option<&'static str> {
    let ok = Command::new("python3")
        .args(["-c", "import tomllib"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some("python3")
}

#[test]
fn every_task_has_a_readme_row_and_quick_names_real_tasks() {
    let tasks = all_tasks();
    let names: BTreeSet<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
    let readme = std::fs::read_to_string(data_dir().join("tests/deploybench/README.md"))
        .expect("tests/deploybench/README.md");
    for name in &names {
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "README.md has no row for {name}"
        );
    }
    let quick = std::fs::read_to_string(data_dir().join("tests/deploybench/quick.txt"))
        .expect("tests/deploybench/quick.txt");
    let quick: Vec<&str> = quick
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!((3..=4).contains(&quick.len()), "{quick:?}");
    for name in quick {
        assert!(names.contains(name), "quick.txt names unknown task {name}");
    }
}

#[test]
fn verify_files_parse_and_name_real_stages() {
    // verify.toml (read by verify_tasks.py only): the fault's stage is a contract stage and the
    // repair calls are STAGE:TOOL:JSON with a JSON object.
    let stages: Vec<&str> = ["env", "report"]
        .into_iter()
        .chain(DEPLOY_STAGES)
        .chain(FLOW_STAGES)
        .chain(LLM_STAGES)
        .chain(QAIRT_STAGES)
        .collect();
    for task in all_tasks() {
        let path = tasks_dir().join(&task.name).join("verify.toml");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let value: toml::Value =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(stage) = value
            .get("fault")
            .and_then(|f| f.get("stage"))
            .and_then(|s| s.as_str())
        {
            assert!(stages.contains(&stage), "{}: stage {stage}", task.name);
        }
        let calls = value
            .get("repair")
            .and_then(|r| r.get("calls"))
            .and_then(|c| c.as_array())
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            value.get("fault").is_some(),
            !calls.is_empty(),
            "{}: a fault needs a repair and a clean task none",
            task.name
        );
        for call in calls {
            let call = call.as_str().unwrap_or_default();
            let mut parts = call.splitn(3, ':');
            let (stage, tool, args) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or("{}"),
            );
            assert!(stages.contains(&stage), "{}: {call}", task.name);
            assert!(!tool.is_empty(), "{}: {call}", task.name);
            let args: serde_json::Value =
                serde_json::from_str(args).unwrap_or_else(|e| panic!("{}: {call}: {e}", task.name));
            assert!(args.is_object(), "{}: {call}", task.name);
        }
    }
}
