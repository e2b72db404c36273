//! Synthetic sessions for the TUI's tests: event streams shaped like the engine's (the tiny-mlp
//! demo on python-reference), with fixed timestamps so snapshots are stable.

use crate::protocol::{
    BudgetKind, CallStatus, Decider, Event, EventEnvelope, Evidence, FileDiff, GateResult, Outcome,
    OutputStream, Policy,
};
use crate::tui::app::App;
use crate::tui::logbuf::{LogBuf, DEFAULT_MEMORY_CAP};
use crate::tui::state::TuiState;
use crate::tui::views;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;
use std::collections::BTreeMap;

pub const START_MS: u64 = 1_764_444_600_000;

/// Events with consecutive sequence numbers, 100 ms apart unless told otherwise.
#[derive(Default)]
pub struct Script {
    pub events: Vec<EventEnvelope>,
    ts: u64,
}

impl Script {
    pub fn new() -> Self {
        Script {
            events: Vec::new(),
            ts: START_MS,
        }
    }

    pub fn push(&mut self, event: Event) -> &mut Self {
        self.events.push(EventEnvelope {
            seq: self.events.len() as u64,
            ts_ms: self.ts,
            event,
        });
        self.ts += 100;
        self
    }

    pub fn wait(&mut self, ms: u64) -> &mut Self {
        self.ts += ms;
        self
    }

    /// The clock a few seconds after the last event.
    pub fn now(&self) -> u64 {
        self.ts + 4_900
    }

    pub fn state(&self) -> TuiState {
        let mut state = TuiState::new(LogBuf::new(None, DEFAULT_MEMORY_CAP));
        for envelope in &self.events {
            state.apply(envelope);
        }
        state
    }
}

pub fn diff(path: &str, before: &str, after: &str) -> FileDiff {
    crate::file_diff::file_diff(path, Some(before.as_bytes()), Some(after.as_bytes())).unwrap_or(
        FileDiff {
            path: path.into(),
            unified: String::new(),
            added: 0,
            removed: 0,
        },
    )
}

pub const EXPORT_BEFORE: &str = "def main():\n    params = model.build()\n    layers = [\n        {\"op\": \"dense\", \"w\": params[\"w1\"], \"b\": params[\"b1\"]},\n        # The first version of this exporter only knew one activation.\n        {\"op\": \"relu\"},\n        {\"op\": \"dense\", \"w\": params[\"w2\"], \"b\": params[\"b2\"]},\n    ]\n";

pub fn export_after(op: &str) -> String {
    EXPORT_BEFORE.replace("\"relu\"", &format!("\"{op}\""))
}

/// Session start, the env stage passed, the export stage passed.
pub fn through_export(s: &mut Script) {
    s.push(Event::SessionStarted {
        session_id: "20261129-223000-ab12".into(),
        project: "examples/tiny-mlp".into(),
        target: "python-reference".into(),
        model: "scripted:examples/scripts/tiny-mlp.jsonl".into(),
        worktree: "/nonexistent/aipc-test-worktree".into(),
        branch: "aipc/20261129-223000-ab12".into(),
        base_commit: "1111111111111111111111111111111111111111".into(),
        batch: false,
        stages: vec!["env".into(), "export".into(), "validate".into()],
        context_size: 8192,
        token_budget: 200_000,
        wall_time_s: 1800,
    });
    s.push(Event::StageStarted {
        stage: "env".into(),
        index: 0,
        goal: "The toolchain is present.".into(),
        max_attempts: 1,
    });
    s.push(Event::AttemptStarted {
        stage: "env".into(),
        attempt: 1,
        max_attempts: 1,
    });
    check(
        s,
        "env.1.c1",
        "env",
        "python3 available",
        "python3 -c 'print(1)'",
        &["{}"],
        true,
        vec![],
    );
    s.push(Event::CheckpointMade {
        stage: "env".into(),
        commit: "2222222222222222222222222222222222222222".into(),
        tag: "aipc/20261129-223000-ab12/env".into(),
    });
    s.push(Event::StagePassed {
        stage: "env".into(),
        attempts: 1,
        duration_ms: 400,
    });
    s.push(Event::StageStarted {
        stage: "export".into(),
        index: 1,
        goal: "Export the model to build/model.json with `python3 export.py`.".into(),
        max_attempts: 3,
    });
    s.push(Event::AttemptStarted {
        stage: "export".into(),
        attempt: 1,
        max_attempts: 3,
    });
    turn(s, 0, 35);
    call(
        s,
        "export.1",
        "run",
        json!({"command": "python3 export.py"}),
        "Run the exporter as the stage goal says.",
        Policy::Allow,
    );
    s.push(Event::ToolCallApproved {
        call_id: "export.1".into(),
        by: Decider::Policy,
    });
    run_output(
        s,
        "export.1",
        &["{\"layers\": 3, \"path\": \"build/model.json\"}"],
        0,
    );
    turn(s, 1, 18);
    call(
        s,
        "export.2",
        "finish_stage",
        json!({"summary": "exported build/model.json"}),
        "The artifact exists.",
        Policy::Allow,
    );
    s.push(Event::ToolCallApproved {
        call_id: "export.2".into(),
        by: Decider::Policy,
    });
    s.push(Event::ToolCallStarted {
        call_id: "export.2".into(),
        tool: "finish_stage".into(),
    });
    s.push(Event::ToolCallFinished {
        call_id: "export.2".into(),
        ok: true,
        status: CallStatus::Ok,
        observation: "stage finished".into(),
        exit_code: None,
        duration_ms: 1,
    });
    s.push(Event::AttemptCommitted {
        stage: "export".into(),
        attempt: 1,
        commit: "3333333333333333333333333333333333333333".into(),
        files_changed: 0,
    });
    check(
        s,
        "export.1.c1",
        "export",
        "export runs",
        "python3 export.py",
        &["{\"layers\": 3}"],
        true,
        vec![],
    );
    s.push(Event::CheckpointMade {
        stage: "export".into(),
        commit: "3333333333333333333333333333333333333333".into(),
        tag: "aipc/20261129-223000-ab12/export".into(),
    });
    s.push(Event::StagePassed {
        stage: "export".into(),
        attempts: 1,
        duration_ms: 2_300,
    });
}

/// The validate stage: attempt 1 edits the exporter to sigmoid, its gates fail.
pub fn validate_fails(s: &mut Script) {
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
    turn(s, 2, 41);
    call(
        s,
        "validate.3",
        "edit_file",
        json!({"path": "export.py", "search": "{\"op\": \"relu\"}", "replace": "{\"op\": \"sigmoid\"}"}),
        "relu is wrong; try sigmoid.",
        Policy::Allow,
    );
    s.push(Event::ToolCallApproved {
        call_id: "validate.3".into(),
        by: Decider::Policy,
    });
    s.push(Event::ToolCallStarted {
        call_id: "validate.3".into(),
        tool: "edit_file".into(),
    });
    s.push(Event::FileChanged {
        call_id: Some("validate.3".into()),
        diff: diff("export.py", EXPORT_BEFORE, &export_after("sigmoid")),
    });
    s.push(Event::ToolCallFinished {
        call_id: "validate.3".into(),
        ok: true,
        status: CallStatus::Ok,
        observation: "edited export.py: 1 replacement".into(),
        exit_code: None,
        duration_ms: 2,
    });
    s.push(Event::AttemptCommitted {
        stage: "validate".into(),
        attempt: 1,
        commit: "4444444444444444444444444444444444444444".into(),
        files_changed: 1,
    });
    let gates = vec![
        GateResult {
            expr: "cosine >= 0.999".into(),
            measured: Some(0.9312),
            passed: false,
        },
        GateResult {
            expr: "top1_agreement == 1.0".into(),
            measured: Some(0.82),
            passed: false,
        },
        GateResult {
            expr: "max_abs_err <= 1e-6".into(),
            measured: Some(0.41),
            passed: false,
        },
    ];
    check(
        s,
        "validate.1.c1",
        "validate",
        "artifact matches eager",
        "python3 export.py && python3 \"$AIPC_TARGET_DIR/compare.py\" build/model.json",
        &[
            "{\"layers\": 3, \"path\": \"build/model.json\"}",
            "comparing 64 samples",
            "\u{1b}[31mmismatch\u{1b}[0m: sample 3 differs (ref 0.91, got 0.62)",
            "{\"cosine\": 0.9312, \"top1_agreement\": 0.82, \"max_abs_err\": 0.41}",
        ],
        false,
        gates,
    );
    s.push(Event::EvidenceCollected {
        stage: "validate".into(),
        attempt: 1,
        evidence: Evidence {
            signature: "accuracy.activation_mismatch".into(),
            class: Some("accuracy".into()),
            failed_check: "artifact matches eager: gate cosine >= 0.999: 0.9312".into(),
            exit_code: Some(0),
            excerpt: "comparing 64 samples\nmismatch: sample 3 differs (ref 0.91, got 0.62)".into(),
            facts: BTreeMap::from([("sample".to_string(), "sample 3".to_string())]),
            candidate_fixes: vec!["load_skill export-layer-fidelity".into()],
        },
    });
}

pub fn turn(s: &mut Script, request_id: u64, completion: u64) {
    s.push(Event::ModelRequest {
        request_id,
        stage: "x".into(),
        new_messages: vec![("user".into(), "…".into())],
        total_messages: 2,
        tools: vec!["run".into()],
    });
    s.wait(400);
    s.push(Event::ModelResponse {
        request_id,
        text: "{\"tool\": …}".into(),
        prompt_tokens: 1_200,
        completion_tokens: completion,
        cached_tokens: 1_000,
        duration_ms: 500,
    });
}

pub fn call(
    s: &mut Script,
    id: &str,
    tool: &str,
    args: serde_json::Value,
    thought: &str,
    policy: Policy,
) {
    s.push(Event::ToolCallProposed {
        call_id: id.into(),
        tool: tool.into(),
        args,
        thought: Some(thought.into()),
        policy,
    });
}

pub fn run_output(s: &mut Script, id: &str, lines: &[&str], exit: i32) {
    s.push(Event::ToolCallStarted {
        call_id: id.into(),
        tool: "run".into(),
    });
    for line in lines {
        s.push(Event::ToolOutput {
            call_id: id.into(),
            stream: OutputStream::Stdout,
            line: line.to_string(),
        });
    }
    s.push(Event::ToolCallFinished {
        call_id: id.into(),
        ok: exit == 0,
        status: if exit == 0 {
            CallStatus::Ok
        } else {
            CallStatus::Failed
        },
        observation: lines.last().copied().unwrap_or("").to_string(),
        exit_code: Some(exit),
        duration_ms: 310,
    });
}

#[allow(clippy::too_many_arguments)]
pub fn check(
    s: &mut Script,
    id: &str,
    stage: &str,
    name: &str,
    command: &str,
    output: &[&str],
    passed: bool,
    gates: Vec<GateResult>,
) {
    s.push(Event::CheckStarted {
        check_id: id.into(),
        stage: stage.into(),
        name: name.into(),
        command: Some(command.into()),
    });
    for line in output {
        s.push(Event::CheckOutput {
            check_id: id.into(),
            stream: OutputStream::Stdout,
            line: line.to_string(),
        });
    }
    let detail = if passed {
        String::new()
    } else {
        "gates not met: cosine >= 0.999 (0.9312), top1_agreement == 1.0 (0.82), max_abs_err <= 1e-6 (0.41)".into()
    };
    s.push(Event::CheckResult {
        check_id: id.into(),
        passed,
        exit_code: Some(0),
        detail,
        metrics: BTreeMap::new(),
        gates,
        duration_ms: 420,
        skipped: None,
    });
}

pub fn escalate(s: &mut Script) {
    s.push(Event::BudgetExhausted {
        stage: Some("validate".into()),
        budget: BudgetKind::NoProgress,
        detail: "the same failure twice in a row (accuracy.activation_mismatch): repairing is not making progress".into(),
    });
    s.push(Event::Paused {
        reason: "stage validate needs you: the same failure twice in a row (retry, take over, roll back, skip or abort)".into(),
        cause: crate::protocol::PauseCause::Escalation,
    });
}

pub fn finish(s: &mut Script, outcome: Outcome, exit_code: i32) {
    s.push(Event::SessionFinished {
        outcome,
        exit_code,
        report: Some("examples/tiny-mlp/.aipc/sessions/20261129-223000-ab12/report.md".into()),
        duration_ms: 12_400,
    });
}

/// A whole session for the replay: env and export pass; validate fails its check in attempt 1
/// (a failure), then in attempt 2 a `run` fails (exit 1, the second failure), the fix is made
/// and the check passes; the session is deployed. A minute of idle time sits before attempt 2.
pub fn replayed() -> Script {
    let mut s = Script::new();
    through_export(&mut s);
    validate_fails(&mut s);
    s.wait(60_000);
    s.push(Event::AttemptStarted {
        stage: "validate".into(),
        attempt: 2,
        max_attempts: 3,
    });
    turn(&mut s, 3, 52);
    call(
        &mut s,
        "validate.4",
        "run",
        json!({"command": "python3 check_model.py"}),
        "See which activation the eager model uses.",
        Policy::Allow,
    );
    s.push(Event::ToolCallApproved {
        call_id: "validate.4".into(),
        by: Decider::Policy,
    });
    run_output(
        &mut s,
        "validate.4",
        &[
            "Traceback (most recent call last):",
            "FileNotFoundError: check_model.py",
        ],
        1,
    );
    turn(&mut s, 4, 47);
    call(
        &mut s,
        "validate.5",
        "edit_file",
        json!({"path": "export.py", "search": "{\"op\": \"sigmoid\"}", "replace": "{\"op\": \"tanh\"}"}),
        "model.py uses tanh.",
        Policy::Allow,
    );
    s.push(Event::ToolCallApproved {
        call_id: "validate.5".into(),
        by: Decider::Policy,
    });
    s.push(Event::ToolCallStarted {
        call_id: "validate.5".into(),
        tool: "edit_file".into(),
    });
    s.push(Event::FileChanged {
        call_id: Some("validate.5".into()),
        diff: diff("export.py", &export_after("sigmoid"), &export_after("tanh")),
    });
    s.push(Event::ToolCallFinished {
        call_id: "validate.5".into(),
        ok: true,
        status: CallStatus::Ok,
        observation: "edited export.py: 1 replacement".into(),
        exit_code: None,
        duration_ms: 2,
    });
    check(
        &mut s,
        "validate.2.c1",
        "validate",
        "artifact matches eager",
        "python3 export.py && python3 \"$AIPC_TARGET_DIR/compare.py\" build/model.json",
        &["comparing 64 samples", "{\"cosine\": 1.0}"],
        true,
        vec![GateResult {
            expr: "cosine >= 0.999".into(),
            measured: Some(1.0),
            passed: true,
        }],
    );
    s.push(Event::CheckpointMade {
        stage: "validate".into(),
        commit: "5555555555555555555555555555555555555555".into(),
        tag: "aipc/20261129-223000-ab12/validate".into(),
    });
    s.push(Event::StagePassed {
        stage: "validate".into(),
        attempts: 2,
        duration_ms: 64_000,
    });
    finish(&mut s, Outcome::Deployed, 0);
    s
}

/// Draw `state` with `app` into a `width` × `height` test terminal.
pub fn render(
    state: &TuiState,
    app: &mut App,
    width: u16,
    height: u16,
    now_ms: u64,
) -> Terminal<TestBackend> {
    let mut terminal =
        Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|e| panic!("{e}"));
    draw(&mut terminal, state, app, now_ms);
    terminal
}

pub fn draw(terminal: &mut Terminal<TestBackend>, state: &TuiState, app: &mut App, now_ms: u64) {
    // Twice, like the live loop over two frames: the first lays out, the second uses it.
    for _ in 0..2 {
        app.prepare(state);
        let mut info = views::DrawInfo::default();
        terminal
            .draw(|frame| info = views::draw(frame, state, app, now_ms))
            .unwrap_or_else(|e| panic!("{e}"));
        app.areas = info.areas;
    }
}
