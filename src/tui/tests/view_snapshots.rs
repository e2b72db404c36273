//! One snapshot per view and state: running (medium, wide, narrow), paused, approval prompt,
//! escalation, diff (per change and per stage), gates passing and failing, help, a text
//! prompt, a finished session — plus resizing and odd bytes in the log.

use super::fixtures::*;
use crate::protocol::{CallStatus, Decider, Event, GateResult, OutputStream, Policy};
use crate::tui::app::App;
use crate::tui::views::layout::Pane;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

fn press(app: &mut App, state: &crate::tui::state::TuiState, code: KeyCode) {
    app.on_key(&KeyEvent::new(code, KeyModifiers::NONE), state);
}

fn type_text(app: &mut App, state: &crate::tui::state::TuiState, text: &str) {
    for c in text.chars() {
        press(app, state, KeyCode::Char(c));
    }
}

/// Validate attempt 1 is running `compare.py`, which has printed some output.
fn running() -> Script {
    let mut s = Script::new();
    through_export(&mut s);
    s.push(Event::StageStarted {
        stage: "validate".into(),
        index: 2,
        goal: "Run the exported artifact on the reference runtime and make it agree with the eager model.".into(),
        max_attempts: 3,
    });
    s.push(Event::AttemptStarted {
        stage: "validate".into(),
        attempt: 1,
        max_attempts: 3,
    });
    turn(&mut s, 2, 44);
    call(
        &mut s,
        "validate.3",
        "run",
        json!({"command": "python3 export.py && python3 \"$AIPC_TARGET_DIR/compare.py\" build/model.json"}),
        "Measure before changing anything.",
        Policy::Allow,
    );
    s.push(Event::ToolCallApproved {
        call_id: "validate.3".into(),
        by: Decider::Policy,
    });
    s.push(Event::ToolCallStarted {
        call_id: "validate.3".into(),
        tool: "run".into(),
    });
    for (stream, line) in [
        (
            OutputStream::Stdout,
            "{\"layers\": 3, \"path\": \"build/model.json\"}",
        ),
        (OutputStream::Stdout, "comparing 64 samples"),
        (
            OutputStream::Stderr,
            "\u{1b}[33mwarning\u{1b}[0m: sample 3 differs (ref 0.91, got 0.62)",
        ),
        (
            OutputStream::Stdout,
            "raw bytes: \\xff\\xfe\u{0}\u{7} and \u{fffd}",
        ),
    ] {
        s.push(Event::ToolOutput {
            call_id: "validate.3".into(),
            stream,
            line: line.into(),
        });
    }
    s
}

#[test]
fn running_medium_transcript_and_log() {
    let s = running();
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 120, 40, s.now());
    insta::assert_snapshot!("running_transcript", terminal.backend());
    app.focus = Pane::Log;
    let terminal = render(&state, &mut app, 120, 40, s.now());
    insta::assert_snapshot!("running_log", terminal.backend());
}

#[test]
fn running_wide_shows_every_pane() {
    let mut s = running();
    s.push(Event::FileChanged {
        call_id: Some("validate.3".into()),
        diff: diff("export.py", EXPORT_BEFORE, &export_after("tanh")),
    });
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 160, 45, s.now());
    insta::assert_snapshot!("running_wide", terminal.backend());
}

#[test]
fn narrow_terminal() {
    let s = running();
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 60, 20, s.now());
    insta::assert_snapshot!("narrow_60x20", terminal.backend());
}

#[test]
fn paused_by_the_engineer() {
    let mut s = running();
    s.push(Event::Paused {
        reason: "paused by the engineer".into(),
        cause: crate::protocol::PauseCause::Engineer,
    });
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 80, 24, s.now());
    insta::assert_snapshot!("paused_80x24", terminal.backend());
}

fn waiting_for_approval() -> Script {
    let mut s = Script::new();
    through_export(&mut s);
    s.push(Event::StepMode { on: true });
    s.push(Event::StageStarted {
        stage: "validate".into(),
        index: 2,
        goal: "Make the artifact agree with the eager model.".into(),
        max_attempts: 3,
    });
    s.push(Event::AttemptStarted {
        stage: "validate".into(),
        attempt: 1,
        max_attempts: 3,
    });
    turn(&mut s, 2, 41);
    call(
        &mut s,
        "validate.3",
        "edit_file",
        json!({"path": "export.py", "search": "{\"op\": \"relu\"}", "replace": "{\"op\": \"sigmoid\"}"}),
        "relu is wrong; try sigmoid.",
        Policy::Allow,
    );
    s
}

#[test]
fn approval_prompt_in_step_mode() {
    let s = waiting_for_approval();
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 100, 30, s.now());
    insta::assert_snapshot!("approval_prompt", terminal.backend());
    // n asks for the reason.
    press(&mut app, &state, KeyCode::Char('n'));
    type_text(&mut app, &state, "sigmoid is a guess");
    let terminal = render(&state, &mut app, 100, 30, s.now());
    insta::assert_snapshot!("reject_reason_prompt", terminal.backend());
}

fn failed_twice() -> Script {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    s.push(Event::AttemptStarted {
        stage: "validate".into(),
        attempt: 2,
        max_attempts: 3,
    });
    s
}

#[test]
fn escalation_offers_the_ways_on() {
    let mut s = failed_twice();
    escalate(&mut s);
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 120, 40, s.now());
    insta::assert_snapshot!("escalation", terminal.backend());
    // Small: the evidence gives way, the keys stay.
    let terminal = render(&state, &mut app, 80, 24, s.now());
    insta::assert_snapshot!("escalation_80x24", terminal.backend());
}

#[test]
fn diff_per_change_and_per_stage() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    let state = s.state();
    let mut app = App::new(false).with_stage_diffs(Box::new(|from, to| {
        assert_eq!(
            (from, to),
            (
                "3333333333333333333333333333333333333333",
                "4444444444444444444444444444444444444444"
            )
        );
        Ok(vec![diff(
            "export.py",
            EXPORT_BEFORE,
            &export_after("sigmoid"),
        )])
    }));
    app.focus = Pane::Diff;
    let terminal = render(&state, &mut app, 100, 30, s.now());
    insta::assert_snapshot!("diff_change", terminal.backend());
    press(&mut app, &state, KeyCode::Char('c'));
    // The first frame asks the worker thread for the stage diff; a later one shows it.
    render(&state, &mut app, 100, 30, s.now());
    app.settle_stage_diffs();
    let terminal = render(&state, &mut app, 100, 30, s.now());
    insta::assert_snapshot!("diff_stage", terminal.backend());
}

#[test]
fn gates_failing_with_evidence() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    let state = s.state();
    let mut app = App::new(false);
    app.focus = Pane::Gates;
    let terminal = render(&state, &mut app, 100, 32, s.now());
    insta::assert_snapshot!("gates_failing", terminal.backend());
}

#[test]
fn gates_passing_and_the_session_deployed() {
    let mut s = failed_twice();
    let gates = vec![
        GateResult {
            expr: "cosine >= 0.999".into(),
            measured: Some(0.99991),
            passed: true,
        },
        GateResult {
            expr: "top1_agreement == 1.0".into(),
            measured: Some(1.0),
            passed: true,
        },
        GateResult {
            expr: "max_abs_err <= 1e-6".into(),
            measured: Some(2.1e-7),
            passed: true,
        },
    ];
    check(
        &mut s,
        "validate.2.c1",
        "validate",
        "artifact matches eager",
        "python3 compare.py",
        &["{\"cosine\": 0.99991}"],
        true,
        gates,
    );
    s.push(Event::CheckpointMade {
        stage: "validate".into(),
        commit: "5555555555555555555555555555555555555555".into(),
        tag: "aipc/20261129-223000-ab12/validate".into(),
    });
    s.push(Event::StagePassed {
        stage: "validate".into(),
        attempts: 2,
        duration_ms: 5_100,
    });
    let state = s.state();
    let mut app = App::new(false);
    app.focus = Pane::Gates;
    let terminal = render(&state, &mut app, 100, 30, s.now());
    insta::assert_snapshot!("gates_passing", terminal.backend());
    finish(&mut s, crate::protocol::Outcome::Deployed, 0);
    let state = s.state();
    app.focus = Pane::Transcript;
    let terminal = render(&state, &mut app, 80, 24, s.now());
    insta::assert_snapshot!("finished_deployed", terminal.backend());
}

/// A check whose contract `when` does not hold is shown as skipped, with the reason, in the gates
/// pane and the transcript; a stage none of whose checks applies is skipped by the contract.
#[test]
fn a_check_that_does_not_apply_is_shown_skipped() {
    let mut s = failed_twice();
    check(
        &mut s,
        "validate.2.c1",
        "validate",
        "artifact matches eager",
        "python3 compare.py",
        &["{\"cosine\": 0.99991}"],
        true,
        vec![GateResult {
            expr: "cosine >= 0.999".into(),
            measured: Some(0.99991),
            passed: true,
        }],
    );
    s.push(Event::CheckStarted {
        check_id: "validate.2.c2".into(),
        stage: "validate".into(),
        name: "int8 matches eager".into(),
        command: Some("python3 compare.py build/model_int8.json".into()),
    });
    s.push(Event::CheckResult {
        check_id: "validate.2.c2".into(),
        passed: true,
        exit_code: None,
        detail: String::new(),
        metrics: Default::default(),
        gates: Vec::new(),
        duration_ms: 0,
        skipped: Some(
            "quantize = \"none\" in aipc.toml (applies when quantize != \"none\")".into(),
        ),
    });
    s.push(Event::StagePassed {
        stage: "validate".into(),
        attempts: 2,
        duration_ms: 5_100,
    });
    let state = s.state();
    let mut app = App::new(false);
    app.focus = Pane::Gates;
    let terminal = render(&state, &mut app, 100, 30, s.now());
    insta::assert_snapshot!("gates_with_a_skipped_check", terminal.backend());
    // The fixture's stages are env, export and validate: only the skip's rendering is under test.
    s.push(Event::StageSkipped {
        stage: "validate".into(),
        by: Decider::Policy,
        reason:
            "no check applies: quantize = \"none\" in aipc.toml (applies when quantize != \"none\")"
                .into(),
    });
    let state = s.state();
    app.focus = Pane::Transcript;
    let terminal = render(&state, &mut app, 100, 24, s.now());
    insta::assert_snapshot!(
        "transcript_with_a_skipped_check_and_stage",
        terminal.backend()
    );
}

#[test]
fn a_reply_streaming_in() {
    let mut s = running();
    s.push(Event::ToolCallFinished {
        call_id: "validate.3".into(),
        ok: true,
        status: CallStatus::Ok,
        observation: "exit code 0".into(),
        exit_code: Some(0),
        duration_ms: 700,
    });
    s.push(Event::ModelRequest {
        request_id: 3,
        stage: "validate".into(),
        new_messages: vec![],
        total_messages: 6,
        tools: vec![],
    });
    for piece in [
        "{\"thought\": \"The gates",
        " fail on sample 3;",
        " read model.py\", \"tool\": \"read",
    ] {
        s.push(Event::ModelDelta {
            request_id: 3,
            text: piece.into(),
        });
    }
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 80, 24, s.now());
    insta::assert_snapshot!("model_streaming", terminal.backend());
}

#[test]
fn takeover_picker() {
    let s = waiting_for_approval();
    let state = s.state();
    let mut app = App::new(false);
    press(&mut app, &state, KeyCode::Char('t'));
    let terminal = render(&state, &mut app, 100, 30, s.now());
    insta::assert_snapshot!("takeover_picker", terminal.backend());
}

#[test]
fn help_overlay_at_80x24() {
    let s = running();
    let state = s.state();
    let mut app = App::new(false);
    press(&mut app, &state, KeyCode::Char('?'));
    let terminal = render(&state, &mut app, 80, 24, s.now());
    insta::assert_snapshot!("help_80x24", terminal.backend());
}

#[test]
fn resizing_to_60x20_and_back_redraws_cleanly() {
    let s = running();
    let state = s.state();
    let mut app = App::new(false);
    let mut terminal = render(&state, &mut app, 120, 40, s.now());
    let before = terminal.backend().buffer().clone();
    for (w, h) in [(60, 20), (20, 6), (1, 1), (60, 20), (120, 40)] {
        terminal.backend_mut().resize(w, h);
        draw(&mut terminal, &state, &mut app, s.now());
    }
    assert_eq!(*terminal.backend().buffer(), before);
}

#[test]
fn binary_log_lines_are_shown_escaped() {
    let s = running();
    let state = s.state();
    let mut app = App::new(false);
    app.focus = Pane::Log;
    let terminal = render(&state, &mut app, 120, 40, s.now());
    let text = terminal.backend().to_string();
    assert!(
        text.contains(r"raw bytes: \xff\xfe\x00\x07 and \u{fffd}"),
        "{text}"
    );
}

#[test]
fn a_session_on_a_device_names_it_in_the_status_bar_and_the_transcript() {
    let mut s = Script::new();
    s.push(Event::SessionPolicy {
        sandbox: "strict".into(),
        sandbox_chosen_by: "default".into(),
        sandbox_detail: "strict: /w writable, network off".into(),
        sandbox_version: "bubblewrap 0.8.0".into(),
        approve_all: false,
        device: "rb5 (ssh) (python 3.11.2)".into(),
        toolbox: "/t".into(),
        toolbox_digest: "0123456789abcdef".into(),
        toolbox_files: Default::default(),
    });
    through_export(&mut s);
    let state = s.state();
    let mut app = App::new(false);
    let terminal = render(&state, &mut app, 120, 30, s.now());
    insta::assert_snapshot!("on_a_device", terminal.backend());
}
