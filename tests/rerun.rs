//! `aipc rerun` with the real binary: a recorded scripted session re-runs without divergence;
//! after a change to the target's comparison script (in a copy of the data directory) the
//! re-run reports the first divergence at the right event with both sides and exits 6;
//! `--until` stops after a stage or an event and leaves the worktree in that state.

mod common;

use aipc::protocol::Event;
use aipc::session::{read_events, SessionPaths};
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn aipc(data: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_aipc"));
    command.env("AIPC_DATA_DIR", data);
    command
}

/// Deploy the demo in `project`; the session folder.
fn record(project: &Path) -> PathBuf {
    let model = format!(
        "scripted:{}",
        data_dir().join("examples/scripts/tiny-mlp.jsonl").display()
    );
    let out = aipc(&data_dir())
        .args(["run", "--batch", "--target", "python-reference", "--model"])
        .arg(model)
        .arg(project)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let root = SessionPaths::sessions_root(project);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs.pop().unwrap()
}

/// A copy of the data directory whose python-reference `compare.py` is changed by `edit`.
fn data_with_compare(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["prompts", "skills", "toolbox"] {
        copy_tree(&data_dir().join(sub), &dir.path().join(sub));
    }
    let compare = dir
        .path()
        .join("toolbox/targets/python-reference/compare.py");
    let text = std::fs::read_to_string(&compare).unwrap();
    let changed = edit(&text);
    assert_ne!(changed, text, "the edit must change compare.py");
    std::fs::write(&compare, changed).unwrap();
    dir
}

fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), to).unwrap();
        }
    }
}

fn rerun_json(data: &Path, session: &Path, extra: &[&str]) -> (Output, serde_json::Value) {
    let out = aipc(data)
        .args(["rerun", "--quiet", "--json"])
        .args(extra)
        .arg(session)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    (out, value)
}

fn seq_of(session: &Path, pred: impl Fn(&Event) -> bool) -> u64 {
    read_events(&session.join("events.jsonl"))
        .unwrap()
        .events
        .into_iter()
        .find(|e| pred(&e.event))
        .unwrap()
        .seq
}

#[test]
fn a_recorded_session_reruns_without_divergence() {
    let project = git_project();
    let session = record(project.path());
    let out = aipc(&data_dir())
        .args(["rerun", "--quiet"])
        .arg(&session)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("no divergence"), "{stdout}");
    // The re-run is a session of its own, recorded as usual, starting at the same commit.
    let worktree = PathBuf::from(stdout.lines().last().unwrap());
    assert!(worktree.join("export.py").exists(), "{stdout}");
    let rerun_dir = worktree.parent().unwrap();
    let events = read_events(&rerun_dir.join("events.jsonl")).unwrap().events;
    let base = |events: &[aipc::protocol::EventEnvelope]| {
        events.iter().find_map(|e| match &e.event {
            Event::SessionStarted { base_commit, .. } => Some(base_commit.clone()),
            _ => None,
        })
    };
    let recorded = read_events(&session.join("events.jsonl")).unwrap().events;
    assert_eq!(base(&events), base(&recorded));
    // While nothing diverges, the numbering of both logs agrees.
    assert_eq!(events.len(), recorded.len());
    let meta = std::fs::read_to_string(rerun_dir.join("meta.json")).unwrap();
    assert!(meta.contains("rerun_of"), "{meta}");
}

#[test]
fn a_changed_check_script_diverges_at_the_failing_check_with_both_sides() {
    let project = git_project();
    let session = record(project.path());
    // The toolchain "changes": its sigmoid becomes a tanh, so the first validate attempt
    // (the model's wrong guess, sigmoid) now passes its gates.
    let data = data_with_compare(|text| {
        text.replace(
            "\"sigmoid\": lambda v: 1.0 / (1.0 + math.exp(-v)),",
            "\"sigmoid\": math.tanh,",
        )
    });
    let (out, result) = rerun_json(data.path(), &session, &[]);
    assert_eq!(out.status.code(), Some(6), "{result}");
    let first_check = seq_of(&session, |e| {
        matches!(e, Event::CheckResult { passed: false, .. })
    });
    let d = &result["divergence"];
    assert_eq!(d["field"], "passed", "{result}");
    assert_eq!(d["recorded"]["kind"], "check_result");
    assert_eq!(d["recorded"]["seq"], first_check);
    assert_eq!(d["rerun"]["seq"], first_check, "{result}");
    assert_eq!(d["recorded"]["value"], "false");
    assert_eq!(d["rerun"]["value"], "true");
    assert_eq!(d["recorded"]["context"], "stage validate, attempt 1");

    // The text form names the event and shows both sides.
    let out = aipc(data.path())
        .args(["rerun", "--quiet"])
        .arg(&session)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(6));
    assert!(stdout.contains("first divergence"), "{stdout}");
    assert!(
        stdout.contains("check \"artifact matches eager\""),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("recorded seq {first_check}: false")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("rerun    seq {first_check}: true")),
        "{stdout}"
    );
}

#[test]
fn a_changed_metric_diverges_at_the_first_observation_that_shows_it() {
    let project = git_project();
    let session = record(project.path());
    // A tanh that is slightly off: the model's own measurement (a `run` of compare.py) is the
    // first event to show it.
    let data = data_with_compare(|text| {
        text.replace(
            "\"tanh\": math.tanh,",
            "\"tanh\": lambda v: math.tanh(v) * 0.5,",
        )
    });
    let (out, result) = rerun_json(data.path(), &session, &[]);
    assert_eq!(out.status.code(), Some(6), "{result}");
    let measured = seq_of(
        &session,
        |e| matches!(e, Event::ToolCallFinished { observation, .. } if observation.contains("cosine 1.000000")),
    );
    let d = &result["divergence"];
    assert_eq!(d["field"], "observation", "{result}");
    assert_eq!(d["recorded"]["seq"], measured);
    assert_eq!(d["rerun"]["seq"], measured);
    let diff = d["text_diff"].as_str().unwrap();
    assert!(
        diff.contains("-compared 64 samples: worst cosine 1.000000"),
        "{diff}"
    );
    assert!(
        diff.contains("+compared 64 samples: worst cosine 0.99"),
        "{diff}"
    );
}

#[test]
fn until_a_stage_or_an_event_stops_and_leaves_the_worktree() {
    let project = git_project();
    let session = record(project.path());
    let (out, result) = rerun_json(&data_dir(), &session, &["--until", "export"]);
    assert_eq!(out.status.code(), Some(0), "{result}");
    let worktree = PathBuf::from(result["worktree"].as_str().unwrap());
    assert!(worktree.join("build/model.json").exists());
    let rerun_dir = PathBuf::from(result["rerun_dir"].as_str().unwrap());
    let events = read_events(&rerun_dir.join("events.jsonl")).unwrap().events;
    let stopped = result["stopped_after"].as_u64().unwrap();
    assert!(matches!(
        &events[stopped as usize].event,
        Event::StagePassed { stage, .. } if stage == "export"
    ));
    assert!(!events.iter().any(|e| matches!(
        &e.event,
        Event::StageStarted { stage, .. } if stage == "validate"
    )));
    assert!(matches!(
        events.last().unwrap().event,
        Event::SessionFinished { exit_code: 4, .. }
    ));

    // Until the event that wrote the wrong guess: the worktree holds it.
    let edit = seq_of(&session, |e| matches!(e, Event::FileChanged { .. }));
    let (out, result) = rerun_json(&data_dir(), &session, &["--until", &edit.to_string()]);
    assert_eq!(out.status.code(), Some(0), "{result}");
    assert_eq!(result["stopped_after"], edit);
    let worktree = PathBuf::from(result["worktree"].as_str().unwrap());
    let export = std::fs::read_to_string(worktree.join("export.py")).unwrap();
    assert!(export.contains("{\"op\": \"sigmoid\"}"), "{export}");

    // An unknown stage is a usage error.
    let out = aipc(&data_dir())
        .args(["rerun", "--quiet", "--until", "quantize"])
        .arg(&session)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("env, export, validate"));
}

/// A shipped recording (`sessions/<name>`: the session's files without its worktree, its project
/// somewhere else) re-runs with `--from` a fresh copy of the example; a copy whose files differ
/// from the recording's start is stopped at once with a `base_tree` divergence; without
/// `--from` the missing base commit is a usage error that names the flag.
#[test]
fn a_shipped_session_reruns_from_a_copy_of_its_project() {
    let project = plain_project();
    let session = record(project.path());
    let shipped = tempfile::tempdir().unwrap();
    for name in ["meta.json", "events.jsonl", "report.md", "report.json"] {
        std::fs::copy(session.join(name), shipped.path().join(name)).unwrap();
    }
    drop(project);

    let copy = tempfile::tempdir().unwrap();
    copy_example("tiny-mlp", copy.path());
    let (out, value) = rerun_json(
        &data_dir(),
        shipped.path(),
        &["--from", path_str(copy.path())],
    );
    assert_eq!(out.status.code(), Some(0), "{value}");
    assert!(value["divergence"].is_null(), "{value}");

    let out = aipc(&data_dir())
        .args(["rerun", "--quiet"])
        .arg(shipped.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--from"), "{stderr}");

    let changed = tempfile::tempdir().unwrap();
    copy_example("tiny-mlp", changed.path());
    let model = changed.path().join("model.py");
    let text = std::fs::read_to_string(&model).unwrap();
    std::fs::write(&model, format!("{text}\n# a local change\n")).unwrap();
    let (out, value) = rerun_json(
        &data_dir(),
        shipped.path(),
        &["--from", path_str(changed.path())],
    );
    assert_eq!(out.status.code(), Some(6), "{value}");
    assert_eq!(value["divergence"]["field"], "base_tree", "{value}");
    assert_eq!(value["divergence"]["rerun"]["seq"], 0, "{value}");
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}
