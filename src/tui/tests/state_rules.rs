//! What the reducer derives from events: who waits for approval, when an escalation starts
//! and ends, budgets growing on retry, rollbacks resetting later stages, the evidence's line.

use super::fixtures::*;
use crate::protocol::{BudgetKind, Decider, Event, Policy};
use crate::tui::cells::Cell;
use crate::tui::state::StageStatus;
use serde_json::json;

fn started(batch: bool) -> Script {
    let mut s = Script::new();
    through_export(&mut s);
    if batch {
        if let Event::SessionStarted { batch, .. } = &mut s.events[0].event {
            *batch = true;
        }
    }
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
    s
}

#[test]
fn a_call_waits_when_asked_for_or_in_step_mode_and_never_in_batch() {
    let mut s = started(false);
    call(
        &mut s,
        "v.1",
        "run",
        json!({"command": "ls"}),
        "",
        Policy::Allow,
    );
    assert!(s.state().approval.is_none(), "allow outside step mode runs");
    call(
        &mut s,
        "v.2",
        "run",
        json!({"command": "ls"}),
        "",
        Policy::Ask,
    );
    assert_eq!(s.state().approval.map(|a| a.call_id), Some("v.2".into()));
    s.push(Event::ToolCallApproved {
        call_id: "v.2".into(),
        by: Decider::Human,
    });
    assert!(s.state().approval.is_none());
    s.push(Event::StepMode { on: true });
    call(
        &mut s,
        "v.3",
        "read_file",
        json!({"path": "x"}),
        "",
        Policy::Allow,
    );
    assert_eq!(s.state().approval.map(|a| a.call_id), Some("v.3".into()));
    s.push(Event::ToolCallRejected {
        call_id: "v.3".into(),
        reason: "no".into(),
        by: Decider::Human,
    });
    call(&mut s, "v.4", "write_file", json!({}), "", Policy::Deny);
    assert!(s.state().approval.is_none(), "denied calls never wait");

    let mut b = started(true);
    call(
        &mut b,
        "v.1",
        "run",
        json!({"command": "ls"}),
        "",
        Policy::Ask,
    );
    assert!(b.state().approval.is_none(), "batch answers by policy");
}

#[test]
fn escalation_lasts_until_the_stage_moves_and_the_budget_is_what_the_engine_raised_it_to() {
    let mut s = started(false);
    s.push(Event::BudgetExhausted {
        stage: Some("validate".into()),
        budget: BudgetKind::Turns,
        detail: "8 turns".into(),
    });
    assert!(
        s.state().escalation.is_none(),
        "a turn budget only runs the checks"
    );
    s.push(Event::BudgetExhausted {
        stage: Some("validate".into()),
        budget: BudgetKind::Tokens,
        detail: "200000 tokens used of 200000".into(),
    });
    let state = s.state();
    assert_eq!(
        state.escalation.as_ref().map(|e| e.budget),
        Some(BudgetKind::Tokens)
    );
    assert_eq!(state.stages[2].status, StageStatus::Escalated);
    // A takeover inside the escalation resumes, but the escalation stands.
    s.push(Event::HumanAction {
        action: crate::protocol::EngineerAction::TakeoverBegin,
        detail: String::new(),
        diffs: vec![],
    });
    assert!(s.state().view.taken_over);
    s.push(Event::HumanAction {
        action: crate::protocol::EngineerAction::TakeoverEnd,
        detail: String::new(),
        diffs: vec![],
    });
    s.push(Event::Resumed);
    assert!(s.state().escalation.is_some());
    assert!(!s.state().view.taken_over);
    assert_eq!(
        s.state().view.limits.tokens,
        200_000,
        "no raise without its event"
    );
    s.push(Event::BudgetRaised {
        budget: BudgetKind::Tokens,
        limit: 400_000,
    });
    s.push(Event::AttemptStarted {
        stage: "validate".into(),
        attempt: 2,
        max_attempts: 4,
    });
    let state = s.state();
    assert!(state.escalation.is_none());
    assert_eq!(state.view.limits.tokens, 400_000);
    assert_eq!(state.stages[2].status, StageStatus::Running);
    assert_eq!(
        (state.stages[2].attempt, state.stages[2].max_attempts),
        (2, 4)
    );
}

#[test]
fn rollback_returns_later_stages_to_pending() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    s.push(Event::RolledBack {
        stage: "env".into(),
        to_tag: "aipc/20261129-223000-ab12/env".into(),
        commit: "2222222222222222222222222222222222222222".into(),
        previous_head: "4444444444444444444444444444444444444444".into(),
    });
    let state = s.state();
    let statuses: Vec<StageStatus> = state.stages.iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        vec![
            StageStatus::Passed,
            StageStatus::Pending,
            StageStatus::Pending
        ]
    );
    assert_eq!(state.checkpoints().len(), 1);
}

#[test]
fn the_evidence_points_at_the_log_line_holding_its_facts() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    let state = s.state();
    let anchor = state.evidence.as_ref().and_then(|e| e.anchor).unwrap();
    let (text, _) = state.log.line(anchor).unwrap();
    assert!(text.contains("sample 3 differs"), "{text}");
}

#[test]
fn calls_collect_their_decision_result_and_files() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    let state = s.state();
    let call = state
        .transcript
        .cells()
        .iter()
        .find_map(|c| match c {
            Cell::Call(call) if call.call_id == "validate.3" => Some(call.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(call.files, vec![("export.py".to_string(), 1, 1)]);
    assert!(call.result.as_ref().is_some_and(|r| r.ok));
    let first = state.diffs.get(0).unwrap();
    assert_eq!(first.by, "validate.3");
    assert_eq!(first.stage, "validate");
    // The log holds headers, output and footers of every command and check.
    assert!(state
        .log
        .find("━━ check artifact matches eager", 0, true)
        .is_some());
    assert!(state.log.find("── FAILED", 0, true).is_some());
}

#[test]
fn missed_events_are_said_not_hidden() {
    let mut state = started(false).state();
    state.note_missed(42);
    assert_eq!(state.missed, 42);
    assert!(matches!(
        state.transcript.cells().back(),
        Some(Cell::Note { text, .. }) if text.contains("42 events")
    ));
}

#[test]
fn rebuilding_from_the_same_events_gives_the_same_state() {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    let (a, b) = (s.state(), s.state());
    assert_eq!(a.stages, b.stages);
    assert_eq!(a.diffs, b.diffs);
    assert_eq!(a.checks, b.checks);
    assert_eq!(a.evidence, b.evidence);
    assert_eq!(a.log.len(), b.log.len());
    assert_eq!(a.transcript.cells(), b.transcript.cells());
}
