//! The engine end to end through its library API: a real project, real check commands, git
//! checkpoints, and a scripted model — every outcome and failure path the contract promises.

mod common;

use aipc::engine::exit;
use aipc::protocol::{
    BudgetKind, CallStatus, Command, Decider, EngineerAction, Event, Outcome, PauseCause, Policy,
};
use common::calls::*;
use common::*;
use std::time::{Duration, Instant};

fn demo_script() -> String {
    std::fs::read_to_string(data_dir().join("examples/scripts/tiny-mlp.jsonl")).unwrap()
}

#[tokio::test]
async fn wrong_edit_then_right_edit_deploys_in_two_attempts_and_leaves_the_user_untouched() {
    let project = git_project();
    let before = fingerprint(project.path());
    let harness = engine(project.path(), &demo_script(), batch());
    let session_id = harness.session_id.clone();
    let (outcome, events) = run(harness).await;

    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    assert_eq!(outcome.exit_code, exit::DEPLOYED);
    let report = report_json(&outcome);
    assert_eq!(report["outcome"], "deployed");
    assert_eq!(report["human_interventions"], 0);
    let stages: Vec<(String, String, u64)> = report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
                s["attempts"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        stages,
        vec![
            ("env".into(), "passed".into(), 1),
            ("export".into(), "passed".into(), 1),
            ("validate".into(), "passed".into(), 2)
        ]
    );
    let validate = &report["stages"][2];
    assert_eq!(validate["metrics"]["top1_agreement"], 1.0);

    // The failed first attempt produced evidence, and the second attempt's first request
    // carried it to the model.
    let evidence = find(&events, |e| matches!(e, Event::EvidenceCollected { .. }));
    assert_eq!(evidence.len(), 1);
    let Event::EvidenceCollected { evidence, .. } = evidence[0] else {
        unreachable!()
    };
    assert!(
        evidence.failed_check.contains("cosine >= 0.999"),
        "{evidence:?}"
    );
    let second_attempt_request = events
        .iter()
        .skip_while(|e| !matches!(&e.event, Event::AttemptStarted { stage, attempt: 2, .. } if stage == "validate"))
        .find_map(|e| match &e.event {
            Event::ModelRequest { new_messages, .. } => Some(new_messages.clone()),
            _ => None,
        })
        .unwrap();
    let task = &second_attempt_request[1].1;
    assert!(task.contains("Attempt 2 of 3"), "{task}");
    assert!(task.contains("gates failed"), "{task}");

    // The session branch has the attempt commits and the stage tags.
    let repo = git2::Repository::open(project.path()).unwrap();
    let branch = repo
        .find_branch(&format!("aipc/{session_id}"), git2::BranchType::Local)
        .unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push(branch.get().target().unwrap()).unwrap();
    let messages: Vec<String> = walk
        .map(|oid| {
            repo.find_commit(oid.unwrap())
                .unwrap()
                .summary()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("validate attempt 1")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("validate attempt 2")),
        "{messages:?}"
    );
    for stage in ["env", "export", "validate"] {
        let tag = format!("refs/tags/aipc/{session_id}/{stage}");
        assert!(repo.find_reference(&tag).is_ok(), "missing {tag}");
    }
    // The build output is not in git but is in the record, with its hash.
    let artifacts = report["artifacts"].as_array().unwrap();
    assert!(artifacts
        .iter()
        .any(|a| a["path"] == "build/model.json" && a["sha256"].as_str().unwrap().len() == 64));

    // The user's branch, index and working tree are byte-identical.
    assert_eq!(fingerprint(project.path()), before);
    // And the user's `git status` does not see the session folder.
    let statuses = repo.statuses(None).unwrap();
    let seen: Vec<String> = statuses
        .iter()
        .map(|s| format!("{} {:?}", s.path().unwrap_or_default(), s.status()))
        .collect();
    assert!(
        seen.iter()
            .all(|s| !s.starts_with(".aipc") || s.ends_with("Status(IGNORED)")),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_plain_folder_is_deployed_from_a_fresh_repository() {
    let project = plain_project();
    let before = fingerprint(project.path());
    let (outcome, _) = run(engine(project.path(), &demo_script(), batch())).await;
    assert_eq!(outcome.outcome, Outcome::Deployed);
    assert_eq!(fingerprint(project.path()), before);
}

#[tokio::test]
async fn attempt_budget_exhausted_fails_the_stage_with_exit_1() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[[stage]]\nname = \"validate\"\nattempts = 2\n",
    )
    .unwrap();
    let script = script(&[EXPORT, FINISH, TO_SIGMOID, FINISH, SIGMOID_TO_RELU, FINISH]);
    let (outcome, events) = run(engine(project.path(), &script, batch())).await;
    assert_eq!(outcome.exit_code, exit::STAGE_FAILED);
    assert_eq!(outcome.outcome, Outcome::Failed);
    assert!(!find(&events, |e| matches!(
        e,
        Event::BudgetExhausted {
            budget: BudgetKind::Attempts,
            ..
        }
    ))
    .is_empty());
    let report = report_json(&outcome);
    assert_eq!(report["outcome"], "failed");
    assert_eq!(report["stages"][2]["status"], "failed");
    assert_eq!(report["stages"][2]["attempts"], 2);
}

#[tokio::test]
async fn the_same_failure_twice_ends_the_stage_early() {
    let project = git_project();
    // Attempt budget 3, but the model changes nothing: attempt 2 fails exactly like attempt 1.
    let script = script(&[EXPORT, FINISH, FINISH, FINISH]);
    let (outcome, events) = run(engine(project.path(), &script, batch())).await;
    assert_eq!(
        outcome.exit_code,
        exit::STAGE_FAILED,
        "{:?}",
        kinds(&events)
    );
    let exhausted = find(&events, |e| matches!(e, Event::BudgetExhausted { .. }));
    assert!(
        matches!(
            exhausted.last(),
            Some(Event::BudgetExhausted {
                budget: BudgetKind::NoProgress,
                ..
            })
        ),
        "{exhausted:?}"
    );
    assert_eq!(report_json(&outcome)["stages"][2]["attempts"], 2);
}

#[tokio::test]
async fn a_repeated_failure_goes_on_while_the_evidence_names_a_repair_not_made_yet() {
    let project = git_project();
    // A table whose one signature names two calls (any failure matches it).
    let table = project.path().join("..").join(format!(
        "signatures-{}.toml",
        aipc::session::new_session_id()
    ));
    std::fs::write(
        &table,
        r#"[[signature]]
id = "any.failure"
class = "any"
regex = '(?s).'
fixes = ['read_file {"path": "export.py"}', 'list_dir {"path": "."}']
"#,
    )
    .unwrap();
    let mut setup = setup_for(
        project.path(),
        &data_dir().join("toolbox"),
        "python-reference",
        batch(),
    );
    setup.classifier = aipc::evidence::Classifier::load(&table).unwrap();
    let read = r#"{"tool": "read_file", "args": {"path": "export.py"}}"#;
    let list = r#"{"tool": "list_dir", "args": {"path": "."}}"#;
    // validate: attempt 1 finishes with nothing done; attempt 2 makes the first named call, and
    // the failure repeats; attempt 3 is still owed the second one.
    let replies = script(&[EXPORT, FINISH, FINISH, read, FINISH, list, FINISH]);
    let (outcome, events) = run(start(setup, &replies)).await;
    assert_eq!(
        outcome.exit_code,
        exit::STAGE_FAILED,
        "{:?}",
        kinds(&events)
    );
    assert_eq!(report_json(&outcome)["stages"][2]["attempts"], 3);
    // Attempt 3 is offered only the call not made yet, and told which one was.
    let third: Vec<&Event> = events
        .iter()
        .map(|e| &e.event)
        .skip_while(|e| !matches!(e, Event::AttemptStarted { stage, attempt: 3, .. } if stage == "validate"))
        .collect();
    let first_request = third
        .iter()
        .find_map(|e| match e {
            Event::ModelRequest {
                tools,
                new_messages,
                ..
            } => Some((tools, new_messages)),
            _ => None,
        })
        .unwrap();
    assert_eq!(first_request.0, &vec!["list_dir".to_string()]);
    assert!(
        first_request
            .1
            .iter()
            .any(|(_, m)| m.contains("Made in an earlier attempt") && m.contains("read_file")),
        "{:?}",
        first_request.1
    );
}

#[tokio::test]
async fn calls_outside_the_workspace_are_rejected_and_write_nothing() {
    let project = git_project();
    // A file next to the project that an escaping edit would change.
    let victim = project
        .path()
        .join("..")
        .join(format!("victim-{}.py", aipc::session::new_session_id()));
    std::fs::write(&victim, "{\"op\": \"relu\"}\n").unwrap();
    let victim = victim.canonicalize().unwrap();
    let edit = |path: &str| {
        format!(
            r#"{{"tool": "edit_file", "args": {{"path": "{path}", "search": "relu", "replace": "tanh"}}}}"#
        )
    };
    let name = victim.file_name().unwrap().to_str().unwrap();
    // The worktree sits at <project>/.aipc/sessions/<id>/worktree: climb out of it and the project.
    let relative = edit(&format!("../../../../../{name}"));
    let absolute = edit(victim.to_str().unwrap());
    let script = script(&[EXPORT, FINISH, &relative, &absolute, RELU_TO_TANH, FINISH]);
    let (outcome, events) = run(engine(project.path(), &script, batch())).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "{\"op\": \"relu\"}\n"
    );
    let failed: Vec<_> = find(&events, |e| {
        matches!(e, Event::ToolCallFinished { ok: false, .. })
    });
    assert_eq!(failed.len(), 2, "{failed:?}");
    for event in failed {
        let Event::ToolCallFinished { observation, .. } = event else {
            unreachable!()
        };
        assert!(observation.contains("outside"), "{observation}");
    }
}

#[tokio::test]
async fn a_hanging_check_is_killed_with_its_children() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[[stage]]\nname = \"export\"\n[[stage.check]]\nname = \"export runs\"\ncommand = \"sleep 97 & sleep 97\"\ntimeout_s = 1\n",
    )
    .unwrap();
    let script = script(&[FINISH, FINISH]);
    let started = Instant::now();
    let (outcome, events) = run(engine(project.path(), &script, batch())).await;
    assert_eq!(outcome.exit_code, exit::STAGE_FAILED);
    // Two attempts, each a 1 s timeout plus the kill grace.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let results = find(&events, |e| {
        matches!(e, Event::CheckResult { passed: false, .. })
    });
    assert!(
        matches!(results[0], Event::CheckResult { detail, .. } if detail.contains("timed out")),
        "{results:?}"
    );
    assert!(no_process_with_args("sleep 97"), "a sleep survived");
}

fn no_process_with_args(needle: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().all(|entry| {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        !cmdline.trim().eq(needle)
    })
}

#[tokio::test]
async fn a_question_in_batch_mode_is_an_escalation() {
    let project = git_project();
    let ask = r#"{"tool": "ask_human", "args": {"question": "which activation?"}}"#;
    let (outcome, events) = run(engine(
        project.path(),
        &script(&[EXPORT, FINISH, ask]),
        batch(),
    ))
    .await;
    assert_eq!(outcome.exit_code, exit::STAGE_FAILED);
    assert!(!find(&events, |e| matches!(
        e,
        Event::BudgetExhausted {
            budget: BudgetKind::HumanNeeded,
            ..
        }
    ))
    .is_empty());
}

#[tokio::test]
async fn a_script_that_runs_out_is_a_model_error() {
    let project = git_project();
    let (outcome, _) = run(engine(project.path(), &script(&[EXPORT]), batch())).await;
    assert_eq!(outcome.exit_code, exit::MODEL);
    assert_eq!(outcome.outcome, Outcome::Error);
    assert_eq!(report_json(&outcome)["outcome"], "error");
}

#[tokio::test]
async fn invalid_replies_are_fed_back_not_fatal() {
    let project = git_project();
    let script = script(&[
        "\"I think I should export\"",
        r#"{"tool": "launch_rockets", "args": {}}"#,
        EXPORT,
        FINISH,
        RELU_TO_TANH,
        FINISH,
    ]);
    let (outcome, events) = run(engine(project.path(), &script, batch())).await;
    assert_eq!(outcome.outcome, Outcome::Deployed);
    assert_eq!(
        find(&events, |e| matches!(e, Event::ModelInvalidCall { .. })).len(),
        2
    );
}

#[tokio::test]
async fn a_reply_cut_at_the_token_limit_is_fed_back_as_cut() {
    let project = git_project();
    // A model counting inside a list until the reply limit (512 tokens) ends its call.
    let runaway = format!(
        r#"{{"tool": "export", "args": {{"names": [{}"#,
        (0..600).map(|i| format!("\"{i}\", ")).collect::<String>()
    );
    let runaway = serde_json::to_string(&runaway).unwrap(); // a scripted text reply
    let script = script(&[&runaway, EXPORT, FINISH, RELU_TO_TANH, FINISH]);
    let (outcome, events) = run(engine(project.path(), &script, batch())).await;
    assert_eq!(outcome.outcome, Outcome::Deployed);
    let errors: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ModelInvalidCall { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("cut at the reply limit (512 tokens)"),
        "{errors:?}"
    );
}

/// Drive an interactive session: `respond` sees each event and may answer with commands.
async fn interactive_run(
    project: &std::path::Path,
    script: &str,
    respond: impl FnMut(&Event) -> Vec<Command> + Send + 'static,
) -> (aipc::engine::RunOutcome, Vec<aipc::protocol::EventEnvelope>) {
    interactive_run_with(project, script, vec![], respond).await
}

/// Like [`interactive_run`], with commands queued before the session starts.
async fn interactive_run_with(
    project: &std::path::Path,
    script: &str,
    initial: Vec<Command>,
    mut respond: impl FnMut(&Event) -> Vec<Command> + Send + 'static,
) -> (aipc::engine::RunOutcome, Vec<aipc::protocol::EventEnvelope>) {
    let harness = engine(project, script, interactive());
    let mut events = harness.engine.subscribe();
    let commands = harness.commands.clone();
    for command in initial {
        commands.send(command).unwrap();
    }
    let responder = tokio::spawn(async move {
        while let Ok(envelope) = events.recv().await {
            for command in respond(&envelope.event) {
                let _ = commands.send(command);
            }
        }
    });
    let result = tokio::time::timeout(Duration::from_secs(60), run(harness))
        .await
        .expect("interactive session did not finish");
    responder.abort();
    result
}

#[tokio::test]
async fn ask_policy_waits_for_approval_and_a_rejection_reaches_the_model() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[defaults.tools]\nrun = \"ask\"\n",
    )
    .unwrap();
    let mut seen_run = 0;
    let (outcome, events) = interactive_run(
        project.path(),
        &script(&[EXPORT, EXPORT, FINISH, RELU_TO_TANH, FINISH]),
        move |event| match event {
            Event::ToolCallProposed {
                call_id,
                policy: Policy::Ask,
                ..
            } => {
                seen_run += 1;
                if seen_run == 1 {
                    vec![Command::Reject {
                        call_id: call_id.clone(),
                        reason: "not yet".into(),
                    }]
                } else {
                    vec![Command::Approve {
                        call_id: call_id.clone(),
                    }]
                }
            }
            _ => vec![],
        },
    )
    .await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let rejected = find(
        &events,
        |e| matches!(e, Event::ToolCallRejected { by, .. } if *by == Decider::Human),
    );
    assert_eq!(rejected.len(), 1);
    // The model saw the rejection as its next observation.
    let saw_rejection = events.iter().any(|e| match &e.event {
        Event::ModelRequest { new_messages, .. } => new_messages
            .iter()
            .any(|(_, text)| text.contains("rejected by the engineer] not yet")),
        _ => false,
    });
    assert!(saw_rejection);
    // One rejection, one approval.
    assert_eq!(report_json(&outcome)["human_interventions"], 2);
    assert_every_call_ends_once(&events);
    let rejected_id = match rejected[0] {
        Event::ToolCallRejected { call_id, .. } => call_id.clone(),
        other => panic!("not a rejection: {other:?}"),
    };
    assert_eq!(call_status(&events, &rejected_id), CallStatus::Rejected);
}

/// Every proposed call ends with exactly one `tool_call_finished`, after its proposal.
fn assert_every_call_ends_once(events: &[aipc::protocol::EventEnvelope]) {
    for proposed in events {
        let Event::ToolCallProposed { call_id, .. } = &proposed.event else {
            continue;
        };
        let ends: Vec<u64> = events
            .iter()
            .filter(|e| matches!(&e.event, Event::ToolCallFinished { call_id: id, .. } if id == call_id))
            .map(|e| e.seq)
            .collect();
        assert_eq!(ends.len(), 1, "call {call_id} ends {} times", ends.len());
        assert!(
            ends[0] > proposed.seq,
            "call {call_id} ends before it was proposed"
        );
    }
}

/// How the call `call_id` ended.
fn call_status(events: &[aipc::protocol::EventEnvelope], call_id: &str) -> CallStatus {
    events
        .iter()
        .find_map(|e| match &e.event {
            Event::ToolCallFinished {
                call_id: id,
                status,
                ..
            } if id == call_id => Some(*status),
            _ => None,
        })
        .unwrap_or_else(|| panic!("call {call_id} never ended"))
}

#[tokio::test]
async fn interactive_escalation_pauses_and_retry_continues() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[[stage]]\nname = \"validate\"\nattempts = 1\n",
    )
    .unwrap();
    let (outcome, events) = interactive_run(
        project.path(),
        &script(&[EXPORT, FINISH, FINISH, RELU_TO_TANH, FINISH]),
        |event| match event {
            Event::Paused {
                cause: PauseCause::Escalation,
                ..
            } => vec![Command::RetryStage {
                extra_attempts: Some(1),
            }],
            _ => vec![],
        },
    )
    .await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    assert_eq!(report_json(&outcome)["stages"][2]["attempts"], 2);
}

#[tokio::test]
async fn abort_at_an_approval_prompt_never_runs_the_call() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[defaults.tools]\nrun = \"ask\"\n",
    )
    .unwrap();
    let (outcome, events) =
        interactive_run(
            project.path(),
            &script(&[EXPORT, FINISH]),
            |event| match event {
                Event::ToolCallProposed { .. } => vec![Command::Abort],
                _ => vec![],
            },
        )
        .await;
    assert_eq!(outcome.exit_code, exit::ABORTED);
    assert_eq!(outcome.outcome, Outcome::Aborted);
    assert!(find(&events, |e| matches!(e, Event::ToolCallStarted { .. })).is_empty());
    assert_every_call_ends_once(&events);
    let statuses: Vec<CallStatus> = find(&events, |e| matches!(e, Event::ToolCallFinished { .. }))
        .iter()
        .map(|e| match e {
            Event::ToolCallFinished { status, .. } => *status,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(statuses, vec![CallStatus::Cancelled]);
}

#[tokio::test]
async fn takeover_records_the_engineers_diff_and_shows_it_to_the_model() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[[stage]]\nname = \"validate\"\n[stage.tools]\nread_file = \"ask\"\n",
    )
    .unwrap();
    let read = r#"{"tool": "read_file", "args": {"path": "export.py"}}"#;
    let worktree = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
    let seen = worktree.clone();
    let pending = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
    let (outcome, events) = interactive_run(
        project.path(),
        &script(&[EXPORT, FINISH, read, FINISH]),
        move |event| match event {
            Event::SessionStarted { worktree, .. } => {
                *seen.lock().unwrap() = Some(worktree.clone());
                vec![]
            }
            Event::ToolCallProposed {
                policy: Policy::Ask,
                call_id,
                ..
            } => {
                *pending.lock().unwrap() = Some(call_id.clone());
                vec![Command::TakeoverBegin]
            }
            Event::Paused {
                cause: PauseCause::Takeover,
                ..
            } => {
                // The engineer fixes the exporter by hand, then hands back and lets the call run.
                let dir = seen.lock().unwrap().clone().unwrap();
                let path = std::path::Path::new(&dir).join("export.py");
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(
                    &path,
                    text.replace("{\"op\": \"relu\"}", "{\"op\": \"tanh\"}"),
                )
                .unwrap();
                vec![Command::TakeoverEnd {
                    note: Some("fixed the activation".into()),
                }]
            }
            Event::HumanAction {
                action: EngineerAction::TakeoverEnd,
                ..
            } => {
                vec![Command::Approve {
                    call_id: pending.lock().unwrap().clone().unwrap(),
                }]
            }
            _ => vec![],
        },
    )
    .await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let handback = find(&events, |e| {
        matches!(
            e,
            Event::HumanAction {
                action: EngineerAction::TakeoverEnd,
                ..
            }
        )
    });
    let Event::HumanAction { diffs, detail, .. } = handback[0] else {
        unreachable!()
    };
    assert_eq!(detail, "fixed the activation");
    assert_eq!(diffs.len(), 1);
    assert!(
        diffs[0].unified.contains("+        {\"op\": \"tanh\"},"),
        "{}",
        diffs[0].unified
    );
    let shown = events.iter().any(|e| match &e.event {
        Event::ModelRequest { new_messages, .. } => new_messages
            .iter()
            .any(|(_, text)| text.contains("The engineer took over")),
        _ => false,
    });
    assert!(shown, "the model was not told about the takeover");
}

#[tokio::test]
async fn rollback_restores_files_and_redoes_the_stages_after_the_checkpoint() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[[stage]]\nname = \"validate\"\nattempts = 1\n",
    )
    .unwrap();
    let mut rolled_back = false;
    let (outcome, events) = interactive_run(
        project.path(),
        // validate attempt 1: a wrong edit, checks fail, escalation → rollback to export;
        // validate again from the export checkpoint (relu restored): the right edit.
        &script(&[EXPORT, FINISH, TO_SIGMOID, FINISH, RELU_TO_TANH, FINISH]),
        move |event| match event {
            Event::Paused {
                cause: PauseCause::Escalation,
                ..
            } if !rolled_back => {
                rolled_back = true;
                vec![Command::RollbackTo {
                    tag: "export".into(),
                }]
            }
            _ => vec![],
        },
    )
    .await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    assert_eq!(
        find(&events, |e| matches!(e, Event::RolledBack { .. })).len(),
        1
    );
    // RELU_TO_TANH applied cleanly, so the sigmoid edit was undone by the rollback.
    let edits_ok = find(
        &events,
        |e| matches!(e, Event::ToolCallFinished { ok: true, observation, .. } if observation.starts_with("edited")),
    );
    assert_eq!(edits_ok.len(), 2, "{edits_ok:?}");
}

#[tokio::test]
async fn the_token_budget_ends_a_batch_run() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[budgets]\ntotal_tokens = 50\n",
    )
    .unwrap();
    let (outcome, events) = run(engine(project.path(), &demo_script(), batch())).await;
    assert_eq!(
        outcome.exit_code,
        exit::STAGE_FAILED,
        "{:?}",
        kinds(&events)
    );
    assert!(!find(&events, |e| matches!(
        e,
        Event::BudgetExhausted {
            budget: BudgetKind::Tokens,
            ..
        }
    ))
    .is_empty());
}

#[tokio::test]
async fn a_retry_after_the_token_budget_ran_out_raises_it_by_an_event() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[budgets]\ntotal_tokens = 50\n",
    )
    .unwrap();
    let mut retried = false;
    let (outcome, events) =
        interactive_run(project.path(), &demo_script(), move |event| match event {
            Event::Paused {
                cause: PauseCause::Escalation,
                ..
            } if !retried => {
                retried = true;
                vec![Command::RetryStage {
                    extra_attempts: Some(1),
                }]
            }
            Event::Paused {
                cause: PauseCause::Escalation,
                ..
            } => vec![Command::Abort],
            _ => vec![],
        })
        .await;
    let raised: Vec<u64> = find(&events, |e| matches!(e, Event::BudgetRaised { .. }))
        .iter()
        .map(|e| match e {
            Event::BudgetRaised {
                budget: BudgetKind::Tokens,
                limit,
            } => *limit,
            other => panic!("not a token raise: {other:?}"),
        })
        .collect();
    assert_eq!(raised.first(), Some(&100), "{:?}", kinds(&events));
    assert_ne!(outcome.outcome, Outcome::Deployed);
}

#[tokio::test]
async fn step_mode_edit_and_hint_are_honoured() {
    let project = git_project();
    let (outcome, events) = interactive_run_with(
        project.path(),
        // The model proposes the wrong edit in validate; the engineer edits the call into the
        // right one. Step mode is on from the start, so every call waits for approval.
        &script(&[EXPORT, FINISH, TO_SIGMOID, FINISH]),
        vec![
            Command::StepMode { on: true },
            Command::Hint {
                text: "model.py uses tanh".into(),
            },
        ],
        move |event| match event {
            Event::ToolCallProposed { call_id, tool, .. } if tool == "edit_file" => {
                vec![Command::EditCall {
                    call_id: call_id.clone(),
                    args: serde_json::json!({
                        "path": "export.py",
                        "search": "{\"op\": \"relu\"}",
                        "replace": "{\"op\": \"tanh\"}"
                    }),
                }]
            }
            Event::ToolCallProposed { call_id, .. } => vec![Command::Approve {
                call_id: call_id.clone(),
            }],
            _ => vec![],
        },
    )
    .await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    // In step mode even `allow` calls were approved by the human.
    let by_human = find(
        &events,
        |e| matches!(e, Event::ToolCallApproved { by, call_id } if *by == Decider::Human && call_id.starts_with("validate")),
    );
    assert_eq!(by_human.len(), 2, "{by_human:?}");
    assert_eq!(
        find(&events, |e| matches!(e, Event::ToolCallEdited { .. })).len(),
        1
    );
    let hint_seen = events.iter().any(|e| match &e.event {
        Event::ModelRequest { new_messages, .. } => new_messages
            .iter()
            .any(|(_, text)| text.contains("Hint from the engineer: model.py uses tanh")),
        _ => false,
    });
    assert!(hint_seen);
}

#[tokio::test]
async fn the_same_call_with_the_same_result_three_times_ends_the_attempt_and_runs_the_checks() {
    let project = git_project();
    // export three times (the model loops), then the script would go on exporting; the engine
    // stops the attempt after the second repeat and lets the checks decide (export passes).
    let script = script(&[EXPORT, EXPORT, EXPORT, RELU_TO_TANH, FINISH]);
    let (outcome, events) = run(engine(project.path(), &script, batch())).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{events:#?}");
    let looping = find(
        &events,
        |e| matches!(e, Event::BudgetExhausted { detail, .. } if detail.contains("same call with the same result 3 times")),
    );
    assert_eq!(looping.len(), 1, "{looping:#?}");
    let export_calls = find(
        &events,
        |e| matches!(e, Event::ToolCallStarted { call_id, .. } if call_id.starts_with("export.")),
    );
    assert_eq!(export_calls.len(), 3);
}

/// A command that makes `.GIT/config` (a name git cannot store) in the worktree (in the export
/// stage: validate denies `write_file`, so its `run` sees the worktree read-only): the
/// attempts' commits leave it out and say so, instead of failing the session; the model's own
/// write of such a name (`apply_patch`, in validate) is refused.
#[tokio::test]
async fn a_git_alias_made_by_a_command_is_left_out_of_the_commits() {
    let project = git_project();
    let make_alias =
        r#"{"tool": "run", "args": {"command": "mkdir -p .GIT && echo x > .GIT/config"}}"#;
    let write_alias = r#"{"tool": "apply_patch", "args": {"patch": "--- /dev/null\n+++ b/sub/.GiT/config\n@@ -0,0 +1 @@\n+x\n"}}"#;
    let script = script(&[
        EXPORT,
        make_alias,
        FINISH,
        write_alias,
        RELU_TO_TANH,
        FINISH,
    ]);
    let harness = engine(project.path(), &script, batch());
    let session_id = harness.session_id.clone();
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));

    let refused = find(&events, |e| {
        matches!(e, Event::ToolCallFinished { ok: false, observation, .. }
            if observation.contains("cannot be written"))
    });
    assert_eq!(refused.len(), 1, "{:?}", kinds(&events));
    // Said at each attempt commit while the file is there.
    let left_out = find(&events, |e| matches!(e, Event::FilesNotCommitted { .. }));
    assert!(!left_out.is_empty(), "{:?}", kinds(&events));
    let Event::FilesNotCommitted { stage, files } = left_out[0] else {
        unreachable!()
    };
    assert!(stage == "export" || stage == "validate", "{stage}");
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, ".GIT");
    assert!(files[0].reason.contains(".git"), "{:?}", files[0]);
    // The attempt was committed without it.
    let repo = git2::Repository::open(project.path()).unwrap();
    let tip = repo
        .find_branch(&format!("aipc/{session_id}"), git2::BranchType::Local)
        .unwrap()
        .get()
        .peel_to_tree()
        .unwrap();
    assert!(tip.get_name(".GIT").is_none());
    assert!(tip.get_name("export.py").is_some());
}

/// A check's `when` reads the project's `[project]` table each time the check is about to run:
/// a stage none of whose checks applies is skipped before any model turn (with the reason), a
/// check that does not apply is recorded as skipped, and one that a change to `aipc.toml` made
/// applicable since the session started runs.
#[tokio::test]
async fn checks_whose_when_does_not_hold_are_skipped_and_the_project_is_read_when_they_run() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        r#"target = "python-reference"

[project]
ships = "fp32"

[[stage]]
name = "export"
[[stage.check]]
name = "export runs"
command = "python3 export.py"
files = ["build/model.json"]
# The project changes while the session runs (here by a check, as set_project_option would).
[[stage.check]]
name = "switch to int8"
command = "sed -i 's/ships = \"fp32\"/ships = \"int8\"/' aipc.toml"

[[stage]]
name = "int8-build"
after = "export"
goal = "Build the INT8 artifact."
[[stage.check]]
name = "int8 built"
when = 'ships == "none-of-these"'
command = "false"

[[stage]]
name = "validate"
[[stage.check]]
name = "fp32-only check"
when = 'ships == "fp32"'
command = "false"
[[stage.check]]
name = "int8 check"
when = 'ships == "int8"'
command = "echo '{\"int8_ok\": 1}'"
gates = ["int8_ok == 1"]
"#,
    )
    .unwrap();
    let (outcome, events) = run(engine(project.path(), &demo_script(), batch())).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));

    let skipped_stage = find(&events, |e| matches!(e, Event::StageSkipped { .. }));
    assert_eq!(skipped_stage.len(), 1);
    let Event::StageSkipped { stage, by, reason } = skipped_stage[0] else {
        unreachable!()
    };
    assert_eq!(stage, "int8-build");
    assert_eq!(*by, Decider::Policy);
    assert_eq!(
        reason,
        "no check applies: ships = \"int8\" in aipc.toml (applies when ships == \"none-of-these\")"
    );
    // No attempt of the skipped stage, so no model turn in it.
    assert!(find(&events, |e| matches!(
        e,
        Event::AttemptStarted { stage, .. } if stage == "int8-build"
    ))
    .is_empty());

    // In validate, every attempt skips the FP32 check (the project says int8 by then) and runs
    // the INT8 one.
    let results: Vec<(String, Option<String>, bool)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::CheckResult {
                check_id,
                skipped,
                passed,
                ..
            } if check_id.starts_with("validate.") => {
                Some((check_id.clone(), skipped.clone(), *passed))
            }
            _ => None,
        })
        .collect();
    assert!(!results.is_empty());
    for (id, skipped, passed) in &results {
        if id.ends_with(".c2") {
            assert_eq!(
                skipped.as_deref(),
                Some("ships = \"int8\" in aipc.toml (applies when ships == \"fp32\")"),
                "{id}"
            );
            assert!(passed, "{id}");
        }
        if id.ends_with(".c3") {
            assert_eq!(skipped, &None, "{id}");
        }
    }
    let report = report_json(&outcome);
    let statuses: Vec<&str> = report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["passed", "passed", "skipped", "passed"]);
}
