//! Toolbox tools and toolchain environments through the engine, with a throwaway target whose
//! scripts need only python3: tools offered from the manifest where a stage names them, their
//! output streamed, their artifacts recorded, failures shown as classified evidence, policies
//! applied as to built-in tools; checks_first stages; the environment commands see.

mod common;

use aipc::engine::{exit, Engine};
use aipc::protocol::{Command, Event, Outcome, Policy};
use common::calls::{script, FINISH};
use common::*;
use std::time::Duration;

const MAKE: &str = r#"{"tool": "make", "args": {"size": 3}}"#;
const BROKEN: &str = r#"{"tool": "broken", "args": {}}"#;

fn project() -> tempfile::TempDir {
    git_repo_with(&[("model.py", "def forward(x):\n    return x\n")])
}

/// One model request: the tools offered and the messages added, as (role, text).
type Request<'a> = (&'a Vec<String>, &'a Vec<(String, String)>);

/// The requests of `stage`.
fn requests<'a>(events: &'a [aipc::protocol::EventEnvelope], stage_name: &str) -> Vec<Request<'a>> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ModelRequest {
                stage,
                tools,
                new_messages,
                ..
            } if stage == stage_name => Some((tools, new_messages)),
            _ => None,
        })
        .collect()
}

fn finished(events: &[aipc::protocol::EventEnvelope]) -> Vec<(bool, String, Option<i32>)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolCallFinished {
                ok,
                observation,
                exit_code,
                ..
            } => Some((*ok, observation.clone(), *exit_code)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_toolbox_tool_is_offered_streamed_observed_and_its_artifact_recorded() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[MAKE, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));

    // Offered where the stage names it, never where no stage does.
    let build = requests(&events, "build");
    let (tools, messages) = build[0];
    assert!(tools.contains(&"make".to_string()), "{tools:?}");
    assert!(tools.contains(&"broken".to_string()), "{tools:?}");
    assert!(!tools.contains(&"hidden".to_string()), "{tools:?}");
    assert!(tools.contains(&"read_file".to_string()), "{tools:?}");
    let system = &messages[0].1;
    assert!(
        system.contains("Write build/x.bin (size bytes)"),
        "{system}"
    );

    // Its output streamed line by line, and the model sees the result line and the warning.
    let output: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolOutput { line, .. } => Some(line.as_str()),
            _ => None,
        })
        .collect();
    assert!(output.contains(&"making 3 bytes"), "{output:?}");
    let calls = finished(&events);
    assert_eq!(calls.len(), 2, "{calls:?}");
    let (ok, observation, exit_code) = &calls[0];
    assert!(ok, "{observation}");
    assert_eq!(*exit_code, Some(0));
    assert!(
        observation.contains(
            r#"result: {"ok":true,"artifact":"build/x.bin","size":3,"lib":"from-toolbox-lib"}"#
        ),
        "{observation}"
    );
    assert!(
        observation.contains("aipc-warning: opset drift"),
        "{observation}"
    );
    assert!(!observation.contains("making 3 bytes"), "{observation}");

    // The build output is recorded with its hash as soon as the tool wrote it.
    let artifacts = find(&events, |e| matches!(e, Event::ArtifactRecorded { .. }));
    assert!(
        matches!(artifacts.first(), Some(Event::ArtifactRecorded { path, stage, bytes: 3, .. }) if path == "build/x.bin" && stage == "build"),
        "{artifacts:?}"
    );
    let recorded_at = events
        .iter()
        .position(|e| matches!(e.event, Event::ArtifactRecorded { .. }))
        .unwrap();
    let first_check = events
        .iter()
        .position(|e| matches!(&e.event, Event::CheckStarted { stage, .. } if stage == "build"))
        .unwrap();
    assert!(recorded_at < first_check, "recorded after the tool call");
}

#[tokio::test]
async fn a_failing_toolbox_tool_is_observed_as_classified_evidence() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[BROKEN, MAKE, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let (ok, observation, exit_code) = &finished(&events)[0];
    assert!(!ok);
    assert_eq!(*exit_code, Some(1));
    for expected in [
        "exit 1 (",
        r#"result: {"ok":false,"error":"UserError: Could not guard on data-dependent expression","stage_hint":"export"}"#,
        "signature: torch.export.data_dependent_guard (class data-dependent-control-flow)",
        "facts: file=model.py, line=23",
        r#"fixes: fix_data_dependent_branch {"file": "model.py"}; load_skill export-data-dependent-control-flow"#,
        "earlier lines in the session log",
    ] {
        assert!(observation.contains(expected), "{expected}\n{observation}");
    }
    assert!(
        !observation.contains("frame 3\n"),
        "a short excerpt: {observation}"
    );
    // The model's next request carries it.
    let build = requests(&events, "build");
    let (_, messages) = build[1];
    assert!(
        messages.iter().any(|(role, text)| role == "tool"
            && text.contains("[broken failed, exit 1]")
            && text.contains("signature: torch.export.data_dependent_guard")),
        "{messages:?}"
    );
}

#[tokio::test]
async fn checks_that_fail_unclassified_after_a_failed_toolbox_call_carry_that_calls_signature() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    // Attempt 1: `broken` raises (a data-dependent guard), the model finishes anyway and the
    // check finds no build/x.bin — a failure no signature knows. Attempt 2 repairs.
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[BROKEN, FINISH, MAKE, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let evidence: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::EvidenceCollected {
                stage, evidence, ..
            } if stage == "build" => Some(evidence),
            _ => None,
        })
        .collect();
    assert_eq!(evidence.len(), 1, "{evidence:?}");
    assert_eq!(evidence[0].signature, "torch.export.data_dependent_guard");
    assert_eq!(
        evidence[0].class.as_deref(),
        Some("data-dependent-control-flow")
    );
    assert_eq!(
        evidence[0].facts.get("line").map(String::as_str),
        Some("23")
    );
    assert!(
        evidence[0].failed_check.contains("build/x.bin")
            && evidence[0]
                .failed_check
                .contains("after `broken` failed in this attempt"),
        "{}",
        evidence[0].failed_check
    );
    let report = report_json(&outcome);
    assert_eq!(report["stages"][1]["attempts"], 2);
}

#[tokio::test]
async fn a_failed_toolbox_call_explains_only_the_checks_of_its_own_attempt() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    // Attempt 1: `broken` fails, the check finds no build/x.bin: the guard is the evidence.
    // Attempt 2: no toolbox call; the same missing file is the check's own (unclassified)
    // failure, not the earlier call's.
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[BROKEN, FINISH, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Failed, "{:?}", kinds(&events));
    let evidence: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::EvidenceCollected { evidence, .. } => Some(evidence),
            _ => None,
        })
        .collect();
    assert_eq!(evidence.len(), 2, "{evidence:?}");
    assert_eq!(evidence[0].signature, "torch.export.data_dependent_guard");
    assert_eq!(evidence[1].class, None, "{:?}", evidence[1]);
    assert!(!evidence[1].failed_check.contains("after `broken`"));
}

#[tokio::test]
async fn a_checks_first_stage_that_passes_makes_no_model_call_and_its_check_saw_the_toolchain_env()
{
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[MAKE, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    assert!(requests(&events, "prepare").is_empty(), "no model call");
    assert!(
        find(
            &events,
            |e| matches!(e, Event::StagePassed { stage, attempts: 0, .. } if stage == "prepare")
        )
        .len()
            == 1
    );
    assert!(!find(
        &events,
        |e| matches!(e, Event::AttemptStarted { stage, attempt: 0, .. } if stage == "prepare")
    )
    .is_empty());
    assert!(!find(
        &events,
        |e| matches!(e, Event::CheckpointMade { stage, .. } if stage == "prepare")
    )
    .is_empty());
    // The check saw AIPC_TARGET_DIR, AIPC_TOOLBOX, PYTHONPATH, QNN_SDK_ROOT="" and
    // PYTHONUNBUFFERED=1 (every gate names one).
    let results = find(
        &events,
        |e| matches!(e, Event::CheckResult { check_id, .. } if check_id == "prepare.a0.c1"),
    );
    let Event::CheckResult {
        passed, metrics, ..
    } = results[0]
    else {
        unreachable!()
    };
    assert!(passed, "{metrics:?}");
    assert_eq!(metrics.len(), 5, "{metrics:?}");
    let report = report_json(&outcome);
    let prepare = &report["stages"][0];
    assert_eq!(prepare["status"], "passed");
    assert_eq!(prepare["attempts"], 0);
    assert_eq!(prepare["model_turns"], 0);
    assert_eq!(prepare["checks_first"], "passed");
    let md = std::fs::read_to_string(outcome.report_md.unwrap()).unwrap();
    assert!(
        md.contains("| prepare | passed (checks first, no model call) | 0 | 0 |"),
        "{md}"
    );
}

#[tokio::test]
async fn a_checks_first_stage_that_fails_starts_a_repair_attempt_with_the_evidence() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"tt\"\n[[stage]]\nname = \"build\"\nchecks_first = true\n",
    )
    .unwrap();
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[MAKE, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let evidence = find(
        &events,
        |e| matches!(e, Event::EvidenceCollected { stage, attempt: 0, .. } if stage == "build"),
    );
    assert_eq!(evidence.len(), 1, "{evidence:?}");
    let build = requests(&events, "build");
    assert_eq!(build.len(), 2, "one attempt, two turns");
    let task = &build[0].1[1].1;
    assert!(task.contains("Attempt 1 of 2"), "{task}");
    assert!(
        task.contains("checks were run before you started"),
        "{task}"
    );
    assert!(task.contains("missing files: build/x.bin"), "{task}");
    let report = report_json(&outcome);
    let stage = &report["stages"][1];
    assert_eq!(stage["status"], "passed");
    assert_eq!(stage["attempts"], 1);
    assert_eq!(stage["checks_first"], "failed");
}

#[tokio::test]
async fn toolbox_tools_go_through_policy_approval_and_edit_call() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"tt\"\n[[stage]]\nname = \"build\"\n[stage.tools]\nmake = \"ask\"\nbroken = \"deny\"\n",
    )
    .unwrap();
    let bad_args = r#"{"tool": "make", "args": {"size": 1000}}"#;
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[bad_args, MAKE, FINISH]),
        interactive(),
    );
    let mut stream = harness.engine.subscribe();
    let commands = harness.commands.clone();
    let responder = tokio::spawn(async move {
        while let Ok(envelope) = stream.recv().await {
            if let Event::ToolCallProposed {
                call_id,
                tool,
                policy: Policy::Ask,
                args,
                ..
            } = &envelope.event
            {
                assert_eq!(tool, "make");
                let command = if args["size"] == 1000 {
                    // Approved as proposed: the arguments are checked and refused.
                    Command::Approve {
                        call_id: call_id.clone(),
                    }
                } else {
                    Command::EditCall {
                        call_id: call_id.clone(),
                        args: serde_json::json!({"size": 5}),
                    }
                };
                let _ = commands.send(command);
            }
        }
    });
    let (outcome, events) = tokio::time::timeout(Duration::from_secs(60), run(harness))
        .await
        .expect("the session did not finish");
    responder.abort();
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let (tools, _) = requests(&events, "build")[0];
    assert!(
        !tools.contains(&"broken".to_string()),
        "denied: not offered"
    );
    let calls = finished(&events);
    assert!(!calls[0].0);
    assert!(
        calls[0]
            .1
            .contains("invalid arguments for `make`: `size` must be at most 64"),
        "{}",
        calls[0].1
    );
    assert!(calls[1].0);
    assert!(calls[1].1.contains(r#""size":5"#), "edited: {}", calls[1].1);
    assert_eq!(
        find(&events, |e| matches!(e, Event::ToolCallEdited { .. })).len(),
        1
    );
}

#[tokio::test]
async fn an_unknown_tool_in_the_contract_is_refused_at_start_with_a_suggestion() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = toolbox_fixture(root.path());
    let project = project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"tt\"\n[[stage]]\nname = \"build\"\n[stage.tools]\nmkae = \"allow\"\n",
    )
    .unwrap();
    let setup = setup_for(project.path(), &toolbox, "tt", batch());
    let (_commands, rx) = tokio::sync::mpsc::unbounded_channel();
    let model = aipc::model::scripted::ScriptedBackend::parse(
        std::path::Path::new("replies.jsonl"),
        FINISH,
    )
    .unwrap();
    let Err(err) = Engine::start(setup, Box::new(model), rx) else {
        panic!("an unknown tool must not start a session")
    };
    let text = err.to_string();
    assert_eq!(err.exit_code(), exit::USAGE);
    assert!(text.contains("aipc.toml"), "{text}");
    assert!(
        text.contains("stage \"build\": key \"tools.mkae\": unknown tool"),
        "{text}"
    );
    assert!(text.contains("did you mean `make`?"), "{text}");
    assert!(!project.path().join(".aipc").exists(), "nothing started");
}

#[tokio::test]
async fn a_toolbox_script_past_its_timeout_is_killed_with_its_children() {
    let root = tempfile::tempdir().unwrap();
    let target = root.path().join("toolbox/targets/slow");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(
        target.join("slow.py"),
        "import subprocess, time\nprint('starting', flush=True)\nsubprocess.Popen(['sleep', '93'])\ntime.sleep(93)\n",
    )
    .unwrap();
    std::fs::write(
        target.join("toolbox.toml"),
        "[[tool]]\nname = \"slow\"\nscript = \"slow.py\"\ndescription = \"Never ends.\"\ntimeout_s = 3\n",
    )
    .unwrap();
    let toolbox = aipc::toolbox::Toolbox::load(&target).unwrap();
    let work = tempfile::tempdir().unwrap();
    let workspace = aipc::tools::Workspace::new(work.path()).unwrap();
    let lines = std::sync::Mutex::new(Vec::new());
    let on_output =
        |_: aipc::protocol::OutputStream, l: &str| lines.lock().unwrap().push(l.to_string());
    let no_skills = |_: &str| -> Result<String, String> { Err("none".into()) };
    let ctx = aipc::tools::ToolContext {
        workspace: &workspace,
        cancel: tokio_util::sync::CancellationToken::new(),
        on_output: &on_output,
        load_skill: &no_skills,
        run_timeout: Duration::from_secs(60),
        env: &[],
        env_remove: &[],
        sandbox: &aipc::sandbox::Sandbox::new(
            aipc::sandbox::SandboxMode::Strict,
            work.path(),
            std::slice::from_ref(&target),
            aipc::sandbox::Limits::default(),
        )
        .unwrap(),
        spill: None,
    };
    let classify = |_: &aipc::evidence::Failure| aipc::protocol::Evidence::default();
    let started = std::time::Instant::now();
    let result = aipc::toolbox::execute(
        toolbox.get("slow").unwrap(),
        &serde_json::json!({}),
        &ctx,
        "python3",
        &classify,
    )
    .await;
    // 3 s, not 1: on a loaded machine python may not reach its first print within 1 s.
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(!result.ok);
    assert!(
        result
            .observation
            .starts_with("timed out after 3 s; the script and its children were killed"),
        "{}",
        result.observation
    );
    assert_eq!(lines.lock().unwrap().as_slice(), ["starting"]);
    let survivors = std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        String::from_utf8_lossy(&cmdline).replace('\0', " ").trim() == "sleep 93"
    });
    assert!(!survivors, "a child of the script survived");
}

/// The `tt` fixture target with `make` as the build stage's main tool and one more toolbox tool,
/// `name`, allowed there and running `script` (Python); returns the toolbox folder.
fn tt_with_build_tool(root: &std::path::Path, name: &str, script: &str) -> std::path::PathBuf {
    let toolbox = toolbox_fixture(root);
    let target = toolbox.join("targets/tt");
    let contract = std::fs::read_to_string(target.join("contract.toml")).unwrap();
    let contract = contract
        .replace(
            "name = \"build\"\n",
            "name = \"build\"\nmain_tool = \"make\"\n",
        )
        .replace(
            "broken = \"allow\"\n",
            &format!("broken = \"allow\"\n{name} = \"allow\"\n"),
        );
    std::fs::write(target.join("contract.toml"), contract).unwrap();
    let mut manifest = std::fs::read_to_string(target.join("toolbox.toml")).unwrap();
    manifest.push_str(&format!(
        "\n[[tool]]\nname = \"{name}\"\nscript = \"{name}.py\"\ndescription = \"A {name} tool.\"\n"
    ));
    std::fs::write(target.join("toolbox.toml"), manifest).unwrap();
    std::fs::write(target.join(format!("{name}.py")), script).unwrap();
    toolbox
}

/// Choice narrowing (src/engine/narrowing.rs) through the engine: a codemod that edits the
/// project leaves only the stage's main tool on the next turn (the artifact is stale); after the main
/// tool succeeds only finish_stage is left; the next attempt offers everything again.
#[tokio::test]
async fn after_a_codemod_only_the_main_tool_then_only_finish_is_offered() {
    let root = tempfile::tempdir().unwrap();
    let toolbox = tt_with_build_tool(
        root.path(),
        "fix",
        "import json\nopen('model.py', 'a').write('# fixed\\n')\nprint(json.dumps({'ok': True}))\n",
    );
    let project = project();
    let fix = r#"{"tool": "fix", "args": {}}"#;
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[fix, MAKE, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let build = requests(&events, "build");
    assert_eq!(build.len(), 3, "{build:?}");
    assert!(build[0].0.contains(&"fix".to_string()), "{:?}", build[0].0);
    // Not finish_stage: the artifact the checks would test was built before the fix.
    assert_eq!(*build[1].0, ["make".to_string()]);
    assert!(
        build[1]
            .1
            .iter()
            .any(|(_, text)| text.contains("Now call make again")),
        "{:?}",
        build[1].1
    );
    assert_eq!(build[2].0, &["finish_stage".to_string()]);
}

/// A successful toolbox result that names its next call (`next_calls`, docs/toolbox.md): that
/// call alone is offered next with its arguments bound, then (it changed the project) the
/// stage's main tool, then finish_stage.
#[tokio::test]
async fn a_result_naming_its_next_call_is_followed_by_that_call_then_the_rebuild() {
    let root = tempfile::tempdir().unwrap();
    let edit = r#"edit_file {"path": "model.py", "search": "return x", "replace": "return x + 0"}"#;
    let toolbox = tt_with_build_tool(
        root.path(),
        "analyse",
        &format!(
            "import json\nprint(json.dumps({{'ok': True, 'next_calls': [{:?} + '  (measured)']}}))\n",
            edit
        ),
    );
    let project = project();
    let analyse = r#"{"tool": "analyse", "args": {}}"#;
    let edit_call = r#"{"tool": "edit_file", "args": {"path": "model.py", "search": "return x", "replace": "return x + 0"}}"#;
    let harness = engine_for(
        project.path(),
        &toolbox,
        "tt",
        &script(&[analyse, edit_call, MAKE, FINISH]),
        batch(),
    );
    let (outcome, events) = run(harness).await;
    assert_eq!(outcome.outcome, Outcome::Deployed, "{:?}", kinds(&events));
    let build = requests(&events, "build");
    assert_eq!(build.len(), 4, "{build:?}");
    assert!(
        build[0].0.contains(&"analyse".to_string()),
        "{:?}",
        build[0].0
    );
    assert_eq!(*build[1].0, ["edit_file".to_string()]);
    assert!(
        build[1]
            .1
            .iter()
            .any(|(_, text)| text.contains("analyse names the next call: edit_file")),
        "{:?}",
        build[1].1
    );
    assert_eq!(*build[2].0, ["make".to_string()]);
    assert_eq!(*build[3].0, ["finish_stage".to_string()]);
}

/// The shipped targets' toolbox tools, in the order the model reads them: the codemods both
/// targets offer are declared once (toolbox/fixes/toolbox.toml) and take the place of the
/// target manifest's `[[include]]`, so each target offers the same tools as when each manifest
/// declared its own copy.
#[test]
fn the_shipped_targets_offer_their_tools_in_order_with_the_shared_fixes_declared_once() {
    let fixes = data_dir().join("toolbox/fixes").canonicalize().unwrap();
    let expected: &[(&str, &[&str])] = &[
        (
            "onnxruntime-cpu",
            &[
                "env",
                "export",
                "inspect",
                "run_artifact",
                "compare",
                "quantize",
                "profile",
                "int8_formats",
                "int8_sensitivity",
                "fix_branch_to_where",
                "fix_input_feed",
                "replace_function",
                "fix_loop_bound",
                "fix_call_site",
                "report",
            ],
        ),
        (
            "executorch-xnnpack",
            &[
                "env",
                "export",
                "inspect",
                "run_artifact",
                "compare",
                "quantize",
                "profile",
                "int8_formats",
                "int8_sensitivity",
                "fix_branch_to_where",
                "fix_input_feed",
                "replace_function",
                "fix_loop_bound",
                "fix_call_site",
                "report",
            ],
        ),
    ];
    let mut shared = Vec::new();
    for (target, names) in expected {
        let toolbox =
            aipc::toolbox::Toolbox::load(&data_dir().join("toolbox/targets").join(target)).unwrap();
        assert_eq!(toolbox.names(), *names, "{target}");
        for tool in &toolbox.tools {
            assert!(tool.script.is_file(), "{target}: {}", tool.script.display());
            // The shared repairs (toolbox/fixes): the codemods, and replace_function.
            let shared = tool.name.starts_with("fix_") || tool.name == "replace_function";
            assert_eq!(
                shared,
                tool.script.starts_with(&fixes),
                "{target}: {} runs {}",
                tool.name,
                tool.script.display()
            );
        }
        let fixes: Vec<_> = toolbox
            .tools
            .into_iter()
            .filter(|t| t.name.starts_with("fix_") || t.name == "replace_function")
            .collect();
        shared.push(fixes);
    }
    assert_eq!(
        shared[0], shared[1],
        "the shared codemods differ per target"
    );
}
