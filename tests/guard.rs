//! What guards a session, end to end through the engine with a scripted model: a model's
//! `run` cannot change what the checks measure (sandboxed, or — with the sandbox off — caught
//! by the seal on the toolbox), `ask` calls are denied without an engineer unless
//! `--approve-all`, a stage that denies file edits denies them through `run` too, and the
//! session records all of it.

mod common;

use aipc::engine::{EngineOptions, Guard};
use aipc::protocol::{Decider, Event, Outcome};
use aipc::sandbox::SandboxMode;
use common::*;
use std::path::{Path, PathBuf};

/// A copy of the repository's toolbox (a forging session must not touch the real one).
fn toolbox_copy(root: &Path) -> PathBuf {
    let dest = root.join("toolbox");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(data_dir().join("toolbox"))
        .arg(&dest)
        .status()
        .unwrap();
    assert!(status.success());
    dest
}

const EXPORT: &str = r#"{"tool": "run", "args": {"command": "python3 export.py"}}"#;
const FINISH: &str = r#"{"tool": "finish_stage", "args": {"summary": "done"}}"#;
/// The probe of the issue: rewrite the target's evaluator so that the gates pass whatever the
/// artifact computes.
const FORGE: &str = r#"{"tool": "run", "args": {"command": "printf 'print(\"{\\\"cosine\\\": 1.0, \\\"top1_agreement\\\": 1.0, \\\"max_abs_err\\\": 0.0}\")\\n' > \"$AIPC_TARGET_DIR/compare.py\""}}"#;

fn forging_script() -> String {
    let mut lines = vec![EXPORT, FINISH];
    for _ in 0..3 {
        lines.extend([FORGE, FINISH]);
    }
    calls::script(&lines)
}

/// What a forging session left: its outcome, events, report (JSON and Markdown), and the
/// evaluator before and after.
struct Forged {
    outcome: Outcome,
    events: Vec<aipc::protocol::EventEnvelope>,
    report: serde_json::Value,
    report_md: String,
    before: String,
    after: String,
}

async fn forge_with(sandbox: SandboxMode) -> Forged {
    let project = git_project();
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_copy(root.path());
    let compare = toolbox.join("targets/python-reference/compare.py");
    let before = std::fs::read_to_string(&compare).unwrap();
    let options = EngineOptions {
        sandbox: Some(sandbox),
        ..batch()
    };
    let harness = engine_for(
        project.path(),
        &toolbox,
        "python-reference",
        &forging_script(),
        options,
    );
    let (outcome, events) = run(harness).await;
    Forged {
        outcome: outcome.outcome,
        report: report_json(&outcome),
        report_md: std::fs::read_to_string(outcome.report_md.as_ref().unwrap()).unwrap(),
        events,
        before,
        after: std::fs::read_to_string(&compare).unwrap(),
    }
}

#[tokio::test]
async fn a_forged_evaluator_cannot_pass_the_gates_in_the_sandbox() {
    let Forged {
        outcome,
        events,
        report,
        before,
        after,
        ..
    } = forge_with(SandboxMode::Strict).await;
    assert_ne!(outcome, Outcome::Deployed, "{:?}", kinds(&events));
    assert_eq!(
        before, after,
        "the sandbox let the model rewrite the evaluator"
    );
    // The forging calls failed: the toolbox is read-only.
    let failed_forges = events
        .iter()
        .filter(|e| {
            matches!(&e.event, Event::ToolOutput { line, .. } if line.contains("Read-only file system"))
        })
        .count();
    assert!(failed_forges >= 1, "{:?}", kinds(&events));
    assert_eq!(report["sandbox"], "strict");
}

#[tokio::test]
async fn a_forged_evaluator_is_caught_by_the_seal_without_the_sandbox() {
    let Forged {
        outcome,
        events,
        report_md,
        before,
        after,
        ..
    } = forge_with(SandboxMode::Off).await;
    assert_ne!(
        before, after,
        "with the sandbox off the forge reaches the file"
    );
    assert_ne!(outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let refused = events.iter().any(|e| {
        matches!(&e.event, Event::CheckResult { detail, passed: false, .. }
            if detail.contains("changed since the session started") && detail.contains("compare.py"))
    });
    assert!(refused, "no check refused the changed evaluator");
    // The session says the sandbox was off, and who chose it.
    let policy = events
        .iter()
        .find_map(|e| match &e.event {
            Event::SessionPolicy {
                sandbox,
                sandbox_chosen_by,
                toolbox_files,
                ..
            } => Some((
                sandbox.clone(),
                sandbox_chosen_by.clone(),
                toolbox_files.len(),
            )),
            _ => None,
        })
        .unwrap();
    assert_eq!(policy.0, "off");
    assert_eq!(policy.1, "flag");
    assert!(policy.2 > 10, "{policy:?}");
    assert!(report_md.contains("sandbox: **OFF**"), "{report_md}");
}

/// A project whose aipc.toml says to ask before `write_file`, and a model that calls it in the
/// export stage, then exports.
fn asking_project() -> tempfile::TempDir {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "[defaults.tools]\nwrite_file = \"ask\"\n",
    )
    .unwrap();
    project
}

const WRITE: &str =
    r#"{"tool": "write_file", "args": {"path": "notes.txt", "content": "written\n"}}"#;

async fn ask_in_batch(
    guard: Guard,
) -> (Vec<aipc::protocol::EventEnvelope>, serde_json::Value, bool) {
    let project = asking_project();
    let options = batch().guarded(guard);
    let harness = engine(
        project.path(),
        &calls::script(&[WRITE, EXPORT, FINISH, FINISH]),
        options,
    );
    let worktree = harness
        .engine
        .session_dir()
        .join("worktree")
        .join("notes.txt");
    let (outcome, events) = run(harness).await;
    let report = report_json(&outcome);
    (events, report, worktree.exists())
}

#[tokio::test]
async fn batch_denies_ask_calls_and_counts_them() {
    let (events, report, written) = ask_in_batch(Guard::default()).await;
    let rejected = find(
        &events,
        |e| matches!(e, Event::ToolCallRejected { by: Decider::Batch, reason, .. } if reason.contains("--approve-all")),
    );
    assert_eq!(rejected.len(), 1, "{:?}", kinds(&events));
    assert!(!written);
    assert_eq!(report["batch_denied"], 1);
    assert_eq!(report["batch_approved"], 0);
    assert_eq!(report["approve_all"], false);
}

#[tokio::test]
async fn approve_all_approves_ask_calls_and_is_recorded() {
    let (events, report, written) = ask_in_batch(Guard {
        sandbox: None,
        approve_all: true,
    })
    .await;
    let approved = find(&events, |e| {
        matches!(
            e,
            Event::ToolCallApproved {
                by: Decider::Batch,
                ..
            }
        )
    });
    assert_eq!(approved.len(), 1, "{:?}", kinds(&events));
    assert!(written);
    assert_eq!(report["batch_approved"], 1);
    assert_eq!(report["approve_all"], true);
}

#[tokio::test]
async fn a_stage_that_denies_edits_denies_them_through_run() {
    // python-reference's validate stage denies write_file: `sed -i` on the project's code in
    // that stage must fail, while the build outputs stay writable.
    let project = git_project();
    let sed = r#"{"tool": "run", "args": {"command": "sed -i s/relu/tanh/ export.py"}}"#;
    let build = r#"{"tool": "run", "args": {"command": "python3 export.py"}}"#;
    let harness = engine(
        project.path(),
        &calls::script(&[EXPORT, FINISH, sed, build, FINISH, FINISH, FINISH]),
        batch(),
    );
    let export_py = harness.engine.session_dir().join("worktree/export.py");
    let before = std::fs::read_to_string(&export_py).unwrap();
    let (_, events) = run(harness).await;
    let finished: Vec<(bool, String)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolCallFinished {
                ok, observation, ..
            } => Some((*ok, observation.clone())),
            _ => None,
        })
        .collect();
    assert!(
        finished
            .iter()
            .any(|(ok, o)| !ok && o.contains("Read-only file system")),
        "{finished:?}"
    );
    assert_eq!(std::fs::read_to_string(&export_py).unwrap(), before);
}

#[test]
fn a_contract_cannot_turn_the_sandbox_off() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("aipc.toml"),
        "[sandbox]\nmode = \"off\"\n",
    )
    .unwrap();
    let err = aipc::contract::Contract::load(
        &data_dir().join("toolbox/targets"),
        Some("python-reference"),
        project.path(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("cannot turn the sandbox off"), "{err}");
    assert!(err.contains("aipc.toml:2"), "{err}");
    assert!(err.contains("--sandbox off"), "{err}");
}
