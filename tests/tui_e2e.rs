//! The real binary in a real terminal: `aipc run` inside tmux, driven with `send-keys` and read
//! with `capture-pane`, on a copy of the tiny-mlp example with the scripted model of
//! `tests/data/tui-e2e.jsonl`. The engineer turns step mode on, approves a call, rejects one
//! with a reason, takes over with a scripted `$EDITOR` that fixes the exporter, hands back with
//! a note, and the run finishes with every stage passed; the session log holds the human
//! actions and the diff of the takeover.
//!
//! Skipped (with a message) when tmux is not installed.

mod common;

use aipc::protocol::{Decider, EngineerAction, Event, EventEnvelope};
use common::tmux::{quote, tmux_available, Tmux, STEP_TIMEOUT};
use common::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A script for `$EDITOR`: turns the exporter's `relu` into `tanh`, as the engineer would.
fn editor_script(dir: &Path) -> PathBuf {
    let path = dir.join("fix-activation.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\n# The engineer's edit: the eager model uses tanh.\nsed -i 's/\"op\": \"relu\"/\"op\": \"tanh\"/' \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn step_approve_reject_take_over_and_hand_back_in_the_tui() {
    assert!(
        tmux_available(),
        "tmux is not installed; install it to run the TUI end-to-end test (.ci/run installs it)"
    );
    let project = git_project();
    // Every `run` asks, so the first call waits for the engineer before anything runs.
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[defaults.tools]\nrun = \"ask\"\n",
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let editor = editor_script(work.path());
    let exit_file = work.path().join("exit-code");
    let script = data_dir().join("tests/data/tui-e2e.jsonl");
    let command = format!(
        "env AIPC_DATA_DIR={data} EDITOR={editor} {bin} run {project} --target python-reference \
         --model scripted:{script}; echo $? > {exit}",
        data = quote(&data_dir()),
        editor = quote(&editor),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_aipc"))),
        project = quote(project.path()),
        script = quote(&script),
        exit = quote(&exit_file),
    );
    let tmux = Tmux::start(work.path(), "e2e", 120, 40, &command);

    // The export's `run` waits (policy ask); turn step mode on, then approve.
    tmux.wait_for("export.1 run waits for you");
    tmux.type_text("s");
    tmux.wait_until("step mode on", |s| {
        s.contains(" STEP ") || s.contains("step mode on")
    });
    tmux.type_text("y");
    // In step mode even finish_stage waits.
    tmux.wait_for("export.2 finish_stage waits for you");
    tmux.type_text("y");

    // Reject the wrong edit, with a reason.
    tmux.wait_for("validate.3 edit_file waits for you");
    tmux.type_text("n");
    tmux.wait_for("Reject validate.3: why?");
    tmux.type_text("sigmoid is a guess; read model.py");
    tmux.press("Enter");

    // Take over while the read of model.py waits: $EDITOR on export.py.
    tmux.wait_for("validate.4 read_file waits for you");
    tmux.type_text("t");
    tmux.wait_for("Take over: a shell, or a file");
    tmux.type_text("export.py");
    tmux.press("Enter");
    tmux.wait_for("Hand back: a note for the model");
    tmux.type_text("relu -> tanh by hand");
    tmux.press("Enter");
    tmux.wait_for("engineer: takeover end");
    tmux.wait_for("validate.4 read_file waits for you");
    tmux.type_text("y");
    tmux.wait_for("validate.5 finish_stage waits for you");
    tmux.type_text("y");

    // Every stage passes; q leaves the finished session.
    let screen = tmux.wait_for("DEPLOYED");
    assert!(screen.contains("✔ validate passed"), "{screen}");
    tmux.type_text("q");
    let started = Instant::now();
    let code = loop {
        if let Ok(text) = std::fs::read_to_string(&exit_file) {
            if !text.trim().is_empty() {
                break text.trim().to_string();
            }
        }
        assert!(
            started.elapsed() < STEP_TIMEOUT,
            "aipc did not exit after q; the screen:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(code, "0", "exit code; the screen:\n{}", tmux.screen());

    // The session log records the engineer's actions and the takeover's diff.
    let events = session_events(project.path());
    let humans: Vec<(&str, &str, usize)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::HumanAction {
                action,
                detail,
                diffs,
            } => Some((action.word(), detail.as_str(), diffs.len())),
            _ => None,
        })
        .collect();
    assert!(
        humans
            .iter()
            .any(|(a, d, _)| *a == "reject" && d.contains("sigmoid is a guess")),
        "{humans:?}"
    );
    assert!(
        humans.iter().any(|(a, _, _)| *a == "takeover_begin"),
        "{humans:?}"
    );
    let handback = events
        .iter()
        .find_map(|e| match &e.event {
            Event::HumanAction {
                action,
                detail,
                diffs,
            } if *action == EngineerAction::TakeoverEnd => Some((detail.clone(), diffs.clone())),
            _ => None,
        })
        .expect("a takeover_end action");
    assert_eq!(handback.0, "relu -> tanh by hand");
    assert_eq!(handback.1.len(), 1, "{:?}", handback.1);
    assert_eq!(handback.1[0].path, "export.py");
    assert!(
        handback.1[0]
            .unified
            .contains("+        {\"op\": \"tanh\"},"),
        "{}",
        handback.1[0].unified
    );
    let by_human = |kind: &str| {
        events
            .iter()
            .filter(|e| match &e.event {
                Event::ToolCallApproved { by, .. } => kind == "approved" && *by == Decider::Human,
                Event::ToolCallRejected { by, .. } => kind == "rejected" && *by == Decider::Human,
                _ => false,
            })
            .count()
    };
    assert_eq!(by_human("approved"), 4);
    assert_eq!(by_human("rejected"), 1);
    assert!(events
        .iter()
        .any(|e| e.event == Event::StepMode { on: true }));
    let finished = events.last().map(|e| &e.event);
    assert!(
        matches!(finished, Some(Event::SessionFinished { exit_code: 0, .. })),
        "{finished:?}"
    );
}

/// The events of the project's only session.
fn session_events(project: &Path) -> Vec<EventEnvelope> {
    let sessions = project.join(".aipc/sessions");
    let dir = std::fs::read_dir(&sessions)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join("events.jsonl").is_file())
        .expect("a session folder");
    aipc::session::read_events(&dir.join("events.jsonl"))
        .unwrap()
        .events
}
