//! Integration tests of the session record: event log round trip, torn tails, corruption,
//! seq gaps, meta versions and listing.

use aipc::protocol::*;
use aipc::session::*;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

fn env(seq: u64, event: Event) -> EventEnvelope {
    EventEnvelope {
        seq,
        ts_ms: 1_764_444_612_000 + seq * 10,
        event,
    }
}

fn started(stages: &[&str]) -> Event {
    Event::SessionStarted {
        session_id: "s".into(),
        project: "/proj".into(),
        target: "rk3588".into(),
        model: "qwen2.5-coder".into(),
        worktree: "/proj/.aipc/sessions/s/worktree".into(),
        branch: "aipc/s".into(),
        base_commit: "abc123".into(),
        batch: true,
        stages: stages.iter().map(|s| s.to_string()).collect(),
        context_size: 8192,
        token_budget: 200_000,
        wall_time_s: 1800,
    }
}

/// A stream touching most event kinds, with awkward text (newlines, quotes, unicode).
fn many_events() -> Vec<Event> {
    let diff = FileDiff {
        path: "export.py".into(),
        unified: "--- a/export.py\n+++ b/export.py\n@@ -1 +1 @@\n-x\n+y \"q\" ✓\n".into(),
        added: 1,
        removed: 1,
    };
    vec![
        started(&["export", "quantize"]),
        Event::StageStarted {
            stage: "export".into(),
            index: 0,
            goal: "ONNX export".into(),
            max_attempts: 3,
        },
        Event::AttemptStarted {
            stage: "export".into(),
            attempt: 1,
            max_attempts: 3,
        },
        Event::ModelRequest {
            request_id: 1,
            stage: "export".into(),
            new_messages: vec![("system".into(), "You are…\nline two".into())],
            total_messages: 1,
            tools: vec!["read_file".into(), "load_skill".into()],
        },
        Event::ModelDelta {
            request_id: 1,
            text: "{\"tool\":".into(),
        },
        Event::ModelResponse {
            request_id: 1,
            text: "{\"tool\":\"edit\"}".into(),
            prompt_tokens: 1200,
            completion_tokens: 40,
            cached_tokens: 1000,
            duration_ms: 900,
        },
        Event::ToolCallProposed {
            call_id: "c1".into(),
            tool: "edit".into(),
            args: serde_json::json!({"path": "export.py", "n": [1, 2.5, null]}),
            thought: Some("fix opset".into()),
            policy: Policy::Ask,
        },
        Event::ToolCallApproved {
            call_id: "c1".into(),
            by: Decider::Batch,
        },
        Event::ToolCallStarted {
            call_id: "c1".into(),
            tool: "edit".into(),
        },
        Event::ToolOutput {
            call_id: "c1".into(),
            stream: OutputStream::Stderr,
            line: "warning: \t tab".into(),
        },
        Event::ToolCallFinished {
            call_id: "c1".into(),
            ok: true,
            status: CallStatus::Ok,
            observation: "edited".into(),
            exit_code: None,
            duration_ms: 3,
        },
        Event::FileChanged {
            call_id: Some("c1".into()),
            diff: diff.clone(),
        },
        Event::CheckResult {
            check_id: "k1".into(),
            passed: false,
            exit_code: Some(1),
            detail: "gate cosine >= 0.99: 0.93".into(),
            metrics: BTreeMap::from([("cosine".into(), 0.93)]),
            gates: vec![GateResult {
                expr: "cosine >= 0.99".into(),
                measured: Some(0.93),
                passed: false,
            }],
            duration_ms: 1500,
            skipped: None,
        },
        Event::CheckResult {
            check_id: "k2".into(),
            passed: true,
            exit_code: None,
            detail: String::new(),
            metrics: BTreeMap::new(),
            gates: Vec::new(),
            duration_ms: 0,
            skipped: Some("quantize = \"none\" in aipc.toml (applies when quantize != \"none\")".into()),
        },
        Event::StageSkipped {
            stage: "build".into(),
            by: Decider::Policy,
            reason: "no check applies: quantize = \"none\" in aipc.toml (applies when quantize != \"none\")".into(),
        },
        Event::EvidenceCollected {
            stage: "export".into(),
            attempt: 1,
            evidence: Evidence {
                signature: "onnx.unsupported_op".into(),
                class: Some("export".into()),
                failed_check: "exit code 1, expected 0".into(),
                exit_code: Some(1),
                excerpt: "Unsupported: aten::foo".into(),
                facts: BTreeMap::from([("op".into(), "aten::foo".into())]),
                candidate_fixes: vec!["onnx-custom-op".into()],
            },
        },
        Event::BudgetExhausted {
            stage: None,
            budget: BudgetKind::NoProgress,
            detail: "same signature twice".into(),
        },
        Event::Paused {
            reason: "human".into(),
            cause: PauseCause::Escalation,
        },
        Event::Resumed,
        Event::HumanAction {
            action: EngineerAction::Other("takeover".into()),
            detail: "".into(),
            diffs: vec![diff],
        },
        Event::StagePassed {
            stage: "export".into(),
            attempts: 2,
            duration_ms: 5000,
        },
        Event::SessionFinished {
            outcome: Outcome::Failed,
            exit_code: 1,
            report: None,
            duration_ms: 9000,
        },
    ]
}

fn write_log(path: &Path, events: Vec<Event>) -> Vec<EventEnvelope> {
    let mut log = EventLog::create(path).unwrap();
    let mut out = Vec::new();
    for event in events {
        let e = env(log.next_seq(), event);
        log.append(&e).unwrap();
        out.push(e);
    }
    out
}

#[test]
fn round_trip_many_event_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions/x/events.jsonl");
    let written = write_log(&path, many_events());
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), written.len(), "one line per event");
    let read = read_events(&path).unwrap();
    assert_eq!(read.torn_tail, None);
    assert_eq!(read.events, written);
    // The tag as written is the kind.
    assert!(text
        .lines()
        .nth(1)
        .unwrap()
        .contains("\"type\":\"stage_started\""));
}

#[test]
fn empty_file_is_zero_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    EventLog::create(&path).unwrap();
    let read = read_events(&path).unwrap();
    assert!(read.events.is_empty() && read.torn_tail.is_none());
}

#[test]
fn torn_tail_tolerated_then_truncated_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    let mut written = write_log(&path, many_events()[..5].to_vec());
    let good_len = std::fs::metadata(&path).unwrap().len();
    // A crash in the middle of writing the sixth line.
    let partial = serde_json::to_string(&env(5, Event::Resumed)).unwrap();
    let partial = &partial[..partial.len() / 2];
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(partial.as_bytes())
        .unwrap();

    let read = read_events(&path).unwrap();
    assert_eq!(read.events, written);
    let torn = read.torn_tail.expect("torn tail reported");
    assert_eq!(torn.line, 6);
    assert_eq!(torn.bytes, partial.len());
    assert_eq!(torn.offset, good_len);

    let mut log = EventLog::open_append(&path).unwrap();
    assert_eq!(log.next_seq(), 5);
    assert_eq!(log.repaired(), Some(torn));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), good_len);
    for event in [Event::Resumed, Event::HintAdded { text: "go".into() }] {
        let e = env(log.next_seq(), event);
        log.append(&e).unwrap();
        written.push(e);
    }
    drop(log);
    let read = read_events(&path).unwrap();
    assert_eq!(read.torn_tail, None);
    assert_eq!(read.events, written);
    assert_eq!(read.events.last().unwrap().seq, 6);
}

#[test]
fn corruption_in_the_middle_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    write_log(&path, many_events()[..6].to_vec());
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[3] = lines[3].replace("\"type\":", "\"type\"");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();

    let err = read_events(&path).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with(&format!("{}:4: ", path.display())), "{msg}");
    assert!(msg.contains("events.jsonl:4: "), "{msg}");
    assert!(
        msg.ends_with("the log is corrupted at this line (3 events before it read fine)"),
        "{msg}"
    );
    assert!(matches!(
        err,
        SessionError::Corrupt {
            line: 4,
            good: 3,
            ..
        }
    ));
    // Resume refuses a corrupt log rather than appending to it.
    assert!(EventLog::open_append(&path).is_err());
}

#[test]
fn garbage_last_line_with_newline_is_corruption_not_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    write_log(&path, many_events()[..2].to_vec());
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"{\"seq\":2,\"ts_\n").unwrap();
    let err = read_events(&path).unwrap_err();
    assert!(
        matches!(
            err,
            SessionError::Corrupt {
                line: 3,
                good: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn seq_gap_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    let lines: Vec<String> = [0u64, 1, 3]
        .iter()
        .map(|&s| serde_json::to_string(&env(s, Event::Resumed)).unwrap())
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let err = read_events(&path).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("events.jsonl:3: event seq 3, expected 2"),
        "{msg}"
    );

    // A log not starting at 0 is a gap at line 1.
    std::fs::write(
        &path,
        serde_json::to_string(&env(1, Event::Resumed)).unwrap() + "\n",
    )
    .unwrap();
    assert!(matches!(
        read_events(&path).unwrap_err(),
        SessionError::SeqGap {
            line: 1,
            expected: 0,
            found: 1,
            ..
        }
    ));
}

fn meta(id: &str, created: &str, target: &str) -> Meta {
    Meta {
        format_version: EVENT_FORMAT_VERSION,
        session_id: id.into(),
        created: created.into(),
        project: "/proj".into(),
        target: target.into(),
        model: "qwen2.5-coder".into(),
        batch: false,
        aipc_version: "0.1.0".into(),
        contract: serde_json::json!({"stages": 3}),
        extra: BTreeMap::from([("libgit2".into(), "1.9.0".into())]),
    }
}

#[test]
fn meta_newer_version_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("meta.json");
    let mut m = meta("a", "2026-11-29T19:30:12Z", "rk3588");
    write_meta(&path, &m).unwrap();
    assert_eq!(read_meta(&path).unwrap(), m);

    m.format_version = EVENT_FORMAT_VERSION + 1;
    write_meta(&path, &m).unwrap();
    let err = read_meta(&path).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(
        msg.contains(&format!(
            "version {} is newer than this aipc supports (version {})",
            EVENT_FORMAT_VERSION + 1,
            EVENT_FORMAT_VERSION
        )),
        "{msg}"
    );
}

#[test]
fn list_sessions_finished_and_interrupted() {
    let project = tempfile::tempdir().unwrap();
    assert!(list_sessions(project.path()).unwrap().is_empty());

    // Older: finished, deployed, both stages passed.
    let old = SessionPaths::new(project.path(), "20261129-100000-aaaa");
    write_meta(
        &old.meta,
        &meta("20261129-100000-aaaa", "2026-11-29T10:00:00Z", "rk3588"),
    )
    .unwrap();
    write_log(
        &old.events,
        vec![
            started(&["export", "quantize"]),
            Event::StagePassed {
                stage: "export".into(),
                attempts: 1,
                duration_ms: 1,
            },
            Event::StagePassed {
                stage: "quantize".into(),
                attempts: 2,
                duration_ms: 1,
            },
            Event::SessionFinished {
                outcome: Outcome::Deployed,
                exit_code: 0,
                report: Some("report.md".into()),
                duration_ms: 10,
            },
        ],
    );

    // Newer: interrupted mid-stage (no session_finished, a torn last line).
    let new = SessionPaths::new(project.path(), "20261129-120000-bbbb");
    write_meta(
        &new.meta,
        &meta("20261129-120000-bbbb", "2026-11-29T12:00:00Z", "jetson"),
    )
    .unwrap();
    write_log(
        &new.events,
        vec![
            started(&["export", "quantize", "bench"]),
            Event::StagePassed {
                stage: "export".into(),
                attempts: 1,
                duration_ms: 1,
            },
            Event::StageStarted {
                stage: "quantize".into(),
                index: 1,
                goal: "int8".into(),
                max_attempts: 3,
            },
        ],
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(&new.events)
        .unwrap()
        .write_all(b"{\"seq\":3,")
        .unwrap();

    // A stray file is not a session.
    std::fs::write(
        SessionPaths::sessions_root(project.path()).join("notes.txt"),
        "x",
    )
    .unwrap();

    let list = list_sessions(project.path()).unwrap();
    assert_eq!(list.len(), 2);
    let (n, o) = (&list[0], &list[1]);
    assert_eq!(n.id, "20261129-120000-bbbb", "newest first");
    assert_eq!(n.dir, new.dir);
    assert_eq!(n.created, "2026-11-29T12:00:00Z");
    assert_eq!(n.target, "jetson");
    assert_eq!(n.outcome, None);
    assert_eq!((n.stages_passed, n.stages_total), (1, 3));
    assert_eq!(n.events, 3);
    assert_eq!(n.last_event.as_deref(), Some("stage_started"));
    assert!(
        n.problem
            .as_deref()
            .unwrap_or("")
            .contains("torn last line"),
        "{:?}",
        n.problem
    );

    assert_eq!(o.id, "20261129-100000-aaaa");
    assert_eq!(o.outcome, Some(Outcome::Deployed));
    assert_eq!((o.stages_passed, o.stages_total), (2, 2));
    assert_eq!(o.events, 4);
    assert_eq!(o.last_event.as_deref(), Some("session_finished"));
    assert_eq!(o.problem, None);

    let table = format_sessions_table(&list);
    let rows: Vec<&str> = table.lines().collect();
    assert!(rows[0].starts_with("ID"));
    assert!(rows[1].starts_with("20261129-120000-bbbb") && rows[1].contains("unfinished"));
    assert!(rows[1].contains("1/3"));
    assert!(rows[2].starts_with("20261129-100000-aaaa") && rows[2].contains("deployed"));
    assert!(rows[2].contains("2/2"));
}

#[test]
fn list_sessions_keeps_unreadable_sessions() {
    let project = tempfile::tempdir().unwrap();
    // Meta is garbage, log is fine: target/model/created come from session_started.
    let a = SessionPaths::new(project.path(), "20261129-100000-aaaa");
    std::fs::create_dir_all(&a.dir).unwrap();
    std::fs::write(&a.meta, "{not json").unwrap();
    write_log(&a.events, vec![started(&["export"])]);
    // No files at all.
    let b = SessionPaths::new(project.path(), "20261129-090000-bbbb");
    std::fs::create_dir_all(&b.dir).unwrap();

    let list = list_sessions(project.path()).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].target, "rk3588");
    assert_eq!(list[0].model, "qwen2.5-coder");
    assert_eq!(list[0].created, "2025-11-29T19:30:12Z");
    assert_eq!((list[0].events, list[0].stages_total), (1, 1));
    assert!(list[0].problem.as_deref().unwrap().contains("meta.json:1:"));
    assert_eq!(list[1].events, 0);
    assert!(list[1].problem.is_some());
    let table = format_sessions_table(&list);
    assert!(
        table.contains("20261129-090000-bbbb: cannot read"),
        "{table}"
    );
}

#[test]
fn session_ids_sort_by_time() {
    let a = new_session_id();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let b = new_session_id();
    assert!(b > a, "{a} then {b}");
}
