//! Resuming in-process: what a resumed engine restores. A session whose model ran out in the
//! last stage (an `error` end, as a dead model server gives) is resumed with a complete
//! script: it continues in the same log after the last checkpoint, delivers a hint the
//! engineer gave while the interrupted stage ran, numbers its calls on, and ends deployed.

mod common;

use aipc::contract::Contract;
use aipc::engine::{Engine, EngineSetup};
use aipc::evidence::Classifier;
use aipc::model::scripted::ScriptedBackend;
use aipc::prompts::Prompts;
use aipc::protocol::{Event, EventEnvelope, Outcome};
use aipc::resume::plan::{plan, Plan};
use aipc::session::{read_events, EventLog, Recording, SessionPaths};
use aipc::skills::SkillSet;
use common::*;
use std::path::Path;

fn setup(project: &Path, session_id: &str) -> EngineSetup {
    let data = data_dir();
    let targets = data.join("toolbox/targets");
    EngineSetup {
        session_id: session_id.to_string(),
        project: project.to_path_buf(),
        contract: Contract::load(&targets, Some("python-reference"), project).unwrap(),
        skills: SkillSet::load_dir(&data.join("skills")).unwrap(),
        prompts: Prompts::load(&data.join("prompts")).unwrap(),
        classifier: Classifier::load(&targets.join("python-reference/signatures.toml")).unwrap(),
        toolchain: aipc::toolchain::Toolchain::locate(&data.join("toolbox"), "python-reference"),
        toolbox: aipc::toolbox::Toolbox::load(&targets.join("python-reference")).unwrap(),
        options: batch(),
    }
}

#[tokio::test]
async fn a_resumed_session_continues_after_its_checkpoint_with_the_pending_hint() {
    let project = git_project();
    // The model knows the first two stages only: validate ends with a model error.
    let harness = engine(
        project.path(),
        &calls::script(&[calls::EXPORT, calls::FINISH]),
        batch(),
    );
    let id = harness.session_id.clone();
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Error);
    let export_passed = events
        .iter()
        .find(|e| matches!(&e.event, Event::StagePassed { stage, .. } if stage == "export"))
        .unwrap()
        .seq;

    // The engineer left a hint while validate was failing (appended as the engine would).
    let paths = SessionPaths::from_dir(&outcome.session_dir);
    let mut log = EventLog::open_append(&paths.events).unwrap();
    let hint = EventEnvelope {
        seq: log.next_seq(),
        ts_ms: 1,
        event: Event::HintAdded {
            text: "the eager model uses tanh".into(),
        },
    };
    log.append(&hint).unwrap();
    drop(log);

    let recording = Recording::open(&paths).unwrap();
    let Plan::Resume {
        point,
        replies_kept,
    } = plan(&recording).unwrap()
    else {
        panic!("an error end is resumable");
    };
    assert_eq!(point.next_stage, 2);
    assert_eq!(point.from_seq, export_passed);
    assert_eq!(point.hints, vec!["the eager model uses tanh".to_string()]);
    assert_eq!(replies_kept, 2);
    assert_eq!(
        point.completed,
        vec![
            ("env".to_string(), "checks only".to_string()),
            ("export".to_string(), "done".to_string())
        ]
    );

    // The whole demo script; the first two replies were used by the kept stages.
    let mut model =
        ScriptedBackend::load(&data_dir().join("examples/scripts/tiny-mlp.jsonl")).unwrap();
    model.skip(replies_kept);
    let (_commands, rx) = tokio::sync::mpsc::unbounded_channel();
    let engine = Engine::resume(setup(project.path(), &id), Box::new(model), rx, point).unwrap();
    let outcome = engine.run().await;
    assert_eq!(outcome.outcome, Outcome::Deployed);
    assert_eq!(outcome.exit_code, 0);

    let all = read_events(&paths.events).unwrap();
    assert!(all.torn_tail.is_none());
    let resumed_at = all
        .events
        .iter()
        .position(|e| matches!(e.event, Event::SessionResumed { .. }))
        .unwrap();
    let Event::SessionResumed {
        from_stage,
        from_seq,
        checkpoint,
        ..
    } = &all.events[resumed_at].event
    else {
        unreachable!()
    };
    assert_eq!(from_stage, "validate");
    assert_eq!(*from_seq, export_passed);
    assert_eq!(checkpoint.as_deref(), Some(&*format!("aipc/{id}/export")));
    // The first request after the resume carries the hint and the kept stages' summaries.
    let first_request = all.events[resumed_at..]
        .iter()
        .find_map(|e| match &e.event {
            Event::ModelRequest { new_messages, .. } => Some(new_messages.clone()),
            _ => None,
        })
        .unwrap();
    let text: String = first_request.iter().map(|(_, m)| m.as_str()).collect();
    assert!(text.contains("the eager model uses tanh"), "{text}");
    assert!(text.contains("export: done"), "{text}");
    // Call ids run on past the ones the interrupted run used.
    let calls_before: Vec<String> = all.events[..resumed_at]
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolCallProposed { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    assert!(all.events[resumed_at..].iter().all(|e| match &e.event {
        Event::ToolCallProposed { call_id, .. } => !calls_before.contains(call_id),
        _ => true,
    }));
    // The report counts what counts: validate passed after 2 attempts.
    let report = report_json(&outcome);
    assert_eq!(report["stages"][2]["status"], "passed");
    assert_eq!(report["stages"][2]["attempts"], 2);
    let meta = std::fs::read_to_string(&paths.meta).unwrap();
    assert!(meta.contains("\"resumes\": \"1\""), "{meta}");
    let version = format!(
        "\"format_version\": {}",
        aipc::protocol::EVENT_FORMAT_VERSION
    );
    assert!(meta.contains(&version), "{meta}");
}
