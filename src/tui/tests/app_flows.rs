//! Keys and mouse → commands: approvals, rejections with reasons, edited arguments, pause,
//! step, hints, takeover and hand-back, retry with a bigger budget, skip, rollback, abort
//! with confirmation, search, the evidence's line, and read-only mode.

use super::fixtures::*;
use crate::protocol::{Command, Event, Policy};
use crate::tui::app::{App, Overlay, TakeoverPhase};
use crate::tui::state::TuiState;
use crate::tui::takeover::Program;
use crate::tui::views::layout::Pane;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use serde_json::json;

fn key(app: &mut App, state: &TuiState, code: KeyCode) {
    app.on_key(&KeyEvent::new(code, KeyModifiers::NONE), state);
}

fn keys(app: &mut App, state: &TuiState, text: &str) {
    for c in text.chars() {
        key(app, state, KeyCode::Char(c));
    }
}

fn waiting(policy: Policy) -> Script {
    let mut s = Script::new();
    through_export(&mut s);
    s.push(Event::StageStarted {
        stage: "validate".into(),
        index: 2,
        goal: "g".into(),
        max_attempts: 3,
    });
    s.push(Event::AttemptStarted {
        stage: "validate".into(),
        attempt: 1,
        max_attempts: 3,
    });
    call(
        &mut s,
        "validate.3",
        "run",
        json!({"command": "ls"}),
        "look",
        policy,
    );
    s
}

#[test]
fn approve_reject_and_edit_a_waiting_call() {
    let state = waiting(Policy::Ask).state();
    let mut app = App::new(false);
    key(&mut app, &state, KeyCode::Char('y'));
    assert_eq!(
        app.take_commands(),
        vec![Command::Approve {
            call_id: "validate.3".into()
        }]
    );
    key(&mut app, &state, KeyCode::Char('n'));
    keys(&mut app, &state, "not now");
    key(&mut app, &state, KeyCode::Enter);
    assert_eq!(
        app.take_commands(),
        vec![Command::Reject {
            call_id: "validate.3".into(),
            reason: "not now".into()
        }]
    );
    key(&mut app, &state, KeyCode::Char('e'));
    // The prompt starts with the call's arguments; break them, then fix them.
    key(&mut app, &state, KeyCode::Backspace);
    key(&mut app, &state, KeyCode::Enter);
    assert!(app.take_commands().is_empty());
    assert!(
        matches!(&app.overlay, Some(Overlay::Input(i)) if i.error.as_deref().is_some_and(|e| e.contains("not JSON")))
    );
    key(&mut app, &state, KeyCode::End);
    key(&mut app, &state, KeyCode::Char('}'));
    key(&mut app, &state, KeyCode::Enter);
    assert_eq!(
        app.take_commands(),
        vec![Command::EditCall {
            call_id: "validate.3".into(),
            args: json!({"command": "ls"})
        }]
    );
}

#[test]
fn pause_step_and_hint() {
    let mut s = waiting(Policy::Allow);
    let state = s.state();
    let mut app = App::new(false);
    key(&mut app, &state, KeyCode::Char(' '));
    key(&mut app, &state, KeyCode::Char('s'));
    key(&mut app, &state, KeyCode::Char('h'));
    keys(&mut app, &state, "model.py uses tanh");
    key(&mut app, &state, KeyCode::Enter);
    assert_eq!(
        app.take_commands(),
        vec![
            Command::Pause,
            Command::StepMode { on: true },
            Command::Hint {
                text: "model.py uses tanh".into()
            }
        ]
    );
    s.push(Event::Paused {
        reason: "paused by the engineer".into(),
        cause: crate::protocol::PauseCause::Engineer,
    });
    s.push(Event::StepMode { on: true });
    let state = s.state();
    key(&mut app, &state, KeyCode::Char(' '));
    key(&mut app, &state, KeyCode::Char('s'));
    assert_eq!(
        app.take_commands(),
        vec![Command::Resume, Command::StepMode { on: false }]
    );
}

#[test]
fn takeover_waits_for_the_engine_then_hands_back_with_a_note() {
    let mut s = waiting(Policy::Ask);
    let state = s.state();
    let mut app = App::new(false);
    key(&mut app, &state, KeyCode::Char('t'));
    assert!(matches!(app.overlay, Some(Overlay::Picker(_))));
    key(&mut app, &state, KeyCode::Enter);
    assert_eq!(app.take_commands(), vec![Command::TakeoverBegin]);
    assert_eq!(app.takeover, TakeoverPhase::Requested(Program::Shell));
    assert_eq!(
        app.takeover_ready(&state),
        None,
        "the engine has not stopped yet"
    );
    s.push(Event::HumanAction {
        action: crate::protocol::EngineerAction::TakeoverBegin,
        detail: "/wt".into(),
        diffs: vec![],
    });
    let state = s.state();
    assert_eq!(app.takeover_ready(&state), Some(Program::Shell));
    assert_eq!(app.takeover_ready(&state), None, "started once");
    app.takeover_done("back from the takeover");
    keys(&mut app, &state, "fixed the activation");
    key(&mut app, &state, KeyCode::Enter);
    assert_eq!(
        app.take_commands(),
        vec![Command::TakeoverEnd {
            note: Some("fixed the activation".into())
        }]
    );
}

#[test]
fn escalation_keys_retry_bigger_skip_and_roll_back() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    escalate(&mut s);
    let state = s.state();
    let mut app = App::new(false);
    key(&mut app, &state, KeyCode::Char('r'));
    // Prefilled with the stage's budget (3); make it 5.
    key(&mut app, &state, KeyCode::Backspace);
    keys(&mut app, &state, "5");
    key(&mut app, &state, KeyCode::Enter);
    app.on_key(
        &KeyEvent::new(KeyCode::Char('S'), KeyModifiers::SHIFT),
        &state,
    );
    key(&mut app, &state, KeyCode::Char('b'));
    key(&mut app, &state, KeyCode::Down);
    key(&mut app, &state, KeyCode::Enter);
    assert_eq!(
        app.take_commands(),
        vec![
            Command::RetryStage {
                extra_attempts: Some(5)
            },
            Command::SkipStage,
            Command::RollbackTo {
                tag: "aipc/20261129-223000-ab12/export".into()
            }
        ]
    );
}

#[test]
fn quitting_asks_first_then_aborts_and_quits_when_the_session_ends() {
    let mut s = waiting(Policy::Allow);
    let state = s.state();
    let mut app = App::new(false);
    key(&mut app, &state, KeyCode::Char('q'));
    key(&mut app, &state, KeyCode::Char('n'));
    assert!(app.take_commands().is_empty() && app.overlay.is_none());
    app.on_key(
        &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
        &state,
    );
    app.on_key(
        &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
        &state,
    );
    assert_eq!(app.take_commands(), vec![Command::Abort]);
    assert!(!app.quit, "waits for the engine to stop");
    finish(&mut s, crate::protocol::Outcome::Aborted, 4);
    app.after_events(&s.state());
    assert!(app.quit);
}

#[test]
fn read_only_mode_sends_nothing_and_quits_at_once() {
    let state = waiting(Policy::Ask).state();
    let mut app = App::new(true);
    for c in ['y', 'n', ' ', 's', 'h', 't', 'r', 'b'] {
        key(&mut app, &state, KeyCode::Char(c));
    }
    assert!(app.take_commands().is_empty());
    assert!(app
        .flash
        .as_deref()
        .is_some_and(|f| f.contains("read-only")));
    key(&mut app, &state, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn search_next_previous_and_the_evidence_line() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    let state = s.state();
    let mut app = App::new(false);
    let _ = render(&state, &mut app, 100, 30, s.now());
    key(&mut app, &state, KeyCode::Char('/'));
    keys(&mut app, &state, "layers");
    key(&mut app, &state, KeyCode::Enter);
    let last = app.log.matched.unwrap();
    assert_eq!(app.focus, Pane::Log);
    assert!(!app.log.follow);
    key(&mut app, &state, KeyCode::Char('N'));
    let earlier = app.log.matched.unwrap();
    assert!(earlier < last);
    key(&mut app, &state, KeyCode::Char('n'));
    assert_eq!(app.log.matched, Some(last));
    app.on_key(
        &KeyEvent::new(KeyCode::Char('E'), KeyModifiers::SHIFT),
        &state,
    );
    let anchor = state.evidence.as_ref().and_then(|e| e.anchor);
    assert_eq!(app.log.matched, anchor);
    key(&mut app, &state, KeyCode::Char('G'));
    // G is bound with its capital letter; following again.
    assert!(app.log.follow || app.log.top >= state.log.len().saturating_sub(28));
}

#[test]
fn the_mouse_wheel_scrolls_the_pane_under_it() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    let state = s.state();
    let mut app = App::new(false);
    app.focus = Pane::Log;
    let _ = render(&state, &mut app, 100, 12, s.now());
    let rect = app.areas.pane(Pane::Log).unwrap();
    let wheel = |kind| MouseEvent {
        kind,
        column: rect.x + 2,
        row: rect.y + 2,
        modifiers: KeyModifiers::NONE,
    };
    app.on_mouse(&wheel(MouseEventKind::ScrollUp), &state);
    assert!(!app.log.follow);
    let top = app.log_top(&state);
    app.on_mouse(&wheel(MouseEventKind::ScrollDown), &state);
    assert!(app.log_top(&state) > top);
}
