//! Contract loading, merging and located errors, through the public API.

use aipc::contract::{available_targets, CmpOp, Contract, ContractError};
use aipc::protocol::Policy;
use std::fs;
use std::path::Path;

/// A target contract. Line numbers matter to the tests below: keep them stable.
const TARGET: &str = r#"target = "onnxruntime-cpu"
description = "ONNX Runtime on CPU"
artifacts = ["*.onnx", "*.onnx.data"]
[budgets]
total_tokens = 400000
[defaults]
attempts = 3
turns_per_attempt = 12
run_timeout_s = 600
[defaults.tools]
read_file = "allow"
run = "ask"
apply_patch = "allow"

[[stage]]
name = "env"
agent = false
[[stage.check]]
name = "python imports"
command = "python -c 'import torch, onnxruntime'"

[[stage]]
name = "export"
goal = """
Export the model to ONNX.
[this is not a header]
"""
skills = ["export-data-dependent-control-flow"]
attempts = 4
turns_per_attempt = 8
[stage.tools]
apply_patch = "deny"
[[stage.check]]
name = "export runs"
command = "python export.py"
files = ["model.onnx"]
gates = ["cosine >= 0.99", "top1_agreement == 1.0"]
timeout_s = 300
[[stage.check]]
name = "onnx valid"
command = "python -m onnx.checker model.onnx"

[[stage]]
name = "bench"
goal = "Measure latency."
run_timeout_s = 120
[[stage.check]]
name = "latency"
command = "python bench.py"
gates = ["latency.p50_ms <= 50"]
"#;

fn target_only() -> Contract {
    Contract::from_strs(("contract.toml", TARGET), None).expect("target contract loads")
}

fn with_project(project: &str) -> Result<Contract, ContractError> {
    Contract::from_strs(("contract.toml", TARGET), Some(("aipc.toml", project)))
}

fn project_err(project: &str) -> ContractError {
    match with_project(project) {
        Ok(c) => panic!("expected an error, got {c:#?}"),
        Err(e) => e,
    }
}

fn target_err(target: &str) -> ContractError {
    match Contract::from_strs(("contract.toml", target), None) {
        Ok(c) => panic!("expected an error, got {c:#?}"),
        Err(e) => e,
    }
}

/// Assert file, line, key (and context) both in the fields and in the Display text.
fn assert_located(
    e: &ContractError,
    file: &str,
    line: Option<usize>,
    context: Option<&str>,
    key: Option<&str>,
) {
    assert_eq!(e.file(), file, "{e}");
    assert_eq!(e.line(), line, "{e}");
    assert_eq!(e.context(), context, "{e}");
    assert_eq!(e.key(), key, "{e}");
    let text = e.to_string();
    let mut prefix = file.to_string();
    if let Some(l) = line {
        prefix.push_str(&format!(":{l}"));
    }
    if let Some(c) = context {
        prefix.push_str(&format!(": {c}"));
    }
    if let Some(k) = key {
        prefix.push_str(&format!(": key \"{k}\""));
    }
    assert!(text.starts_with(&format!("{prefix}: ")), "{text}");
    assert!(e.hint().is_some(), "every error has a hint: {text}");
    assert!(text.contains("\n  hint: "), "{text}");
}

// ---- resolution and merge --------------------------------------------------------------------

#[test]
fn target_contract_resolves_defaults() {
    let c = target_only();
    assert_eq!(c.target, "onnxruntime-cpu");
    assert_eq!(c.description, "ONNX Runtime on CPU");
    assert_eq!(c.artifacts, ["*.onnx", "*.onnx.data"]);
    assert_eq!(c.budgets.total_tokens, 400_000);
    assert_eq!(c.budgets.wall_time_s, 3600, "built-in default");
    let names: Vec<&str> = c.stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["env", "export", "bench"]);
    assert_eq!(c.sources, [Path::new("contract.toml")]);

    let env = c.stage("env").unwrap();
    assert!(!env.agent);
    assert_eq!(env.goal, "");
    assert_eq!(env.attempts, 3);
    assert_eq!(
        env.checks[0].timeout_s, 600,
        "check timeout defaults to run_timeout_s"
    );
    assert_eq!(env.checks[0].expect_exit, 0);

    let export = c.stage("export").unwrap();
    assert!(export.agent);
    assert_eq!(
        export.goal,
        "Export the model to ONNX.\n[this is not a header]\n"
    );
    assert_eq!(export.skills, ["export-data-dependent-control-flow"]);
    assert_eq!((export.attempts, export.turns_per_attempt), (4, 8));
    assert_eq!(export.tools["apply_patch"], Policy::Deny);
    assert_eq!(export.tools["read_file"], Policy::Allow);
    assert_eq!(export.tools["run"], Policy::Ask);
    let check = &export.checks[0];
    assert_eq!(check.command.as_deref(), Some("python export.py"));
    assert_eq!(check.files, ["model.onnx"]);
    assert_eq!(check.timeout_s, 300);
    assert_eq!(check.gates.len(), 2);
    assert_eq!(check.gates[0].metric, "cosine");
    assert_eq!(check.gates[0].op, CmpOp::Ge);
    assert_eq!(check.gates[1].source, "top1_agreement == 1.0");

    let bench = c.stage("bench").unwrap();
    assert_eq!(bench.run_timeout_s, 120);
    assert_eq!(bench.checks[0].timeout_s, 120);
    assert_eq!(bench.tools["apply_patch"], Policy::Allow);
    assert!(c.stage("nope").is_none());
}

#[test]
fn project_patches_a_stage_in_place() {
    let c = with_project(
        r#"
[[stage]]
name = "export"
goal = "Export with opset 17."
attempts = 6
[stage.tools]
run = "allow"
"#,
    )
    .unwrap();
    let names: Vec<&str> = c.stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["env", "export", "bench"]);
    let s = c.stage("export").unwrap();
    assert_eq!(s.goal, "Export with opset 17.");
    assert_eq!(s.attempts, 6);
    assert_eq!(s.turns_per_attempt, 8, "not given: kept");
    assert_eq!(s.skills, ["export-data-dependent-control-flow"], "kept");
    assert_eq!(s.tools["run"], Policy::Allow, "patched");
    assert_eq!(s.tools["apply_patch"], Policy::Deny, "kept");
    assert_eq!(s.checks.len(), 2, "checks kept");
    assert_eq!(c.sources.len(), 2);
}

#[test]
fn project_replaces_and_appends_checks() {
    let c = with_project(
        r#"
[[stage]]
name = "export"
[[stage.check]]
name = "export runs"
command = "python export.py --opset 17"
gates = ["cosine >= 99.5%"]
[[stage.check]]
name = "size"
command = "python size.py"
expect_exit = 3
"#,
    )
    .unwrap();
    let s = c.stage("export").unwrap();
    let names: Vec<&str> = s.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["export runs", "onnx valid", "size"]);
    let replaced = &s.checks[0];
    assert_eq!(
        replaced.command.as_deref(),
        Some("python export.py --opset 17")
    );
    assert!(
        replaced.files.is_empty(),
        "a replaced check is replaced whole"
    );
    assert_eq!(replaced.timeout_s, 600, "the replacement's own default");
    assert_eq!(replaced.gates.len(), 1);
    assert!((replaced.gates[0].threshold - 0.995).abs() < 1e-12);
    assert_eq!(s.checks[2].expect_exit, 3);
}

#[test]
fn project_inserts_stages_after_and_at_end() {
    let c = with_project(
        r#"
[[stage]]
name = "quantize"
goal = "Quantize to int8."
after = "export"
[[stage.check]]
name = "q"
command = "python q.py"

[[stage]]
name = "report"
goal = "Write a report."

[[stage]]
name = "calibrate"
goal = "Calibrate."
after = "export"

[[stage]]
name = "first-env"
agent = false
after = "env"
[[stage.check]]
name = "x"
files = ["x.txt"]
"#,
    )
    .unwrap();
    let names: Vec<&str> = c.stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "env",
            "first-env",
            "export",
            "quantize",
            "calibrate",
            "bench",
            "report"
        ]
    );
    let q = c.stage("quantize").unwrap();
    assert_eq!(q.attempts, 3, "target defaults apply to project stages");
    assert_eq!(q.tools["read_file"], Policy::Allow);
    assert_eq!(q.checks[0].name, "q");
    let fe = c.stage("first-env").unwrap();
    assert_eq!(fe.checks[0].command, None);
    assert_eq!(fe.checks[0].files, ["x.txt"]);
}

#[test]
fn project_artifacts_budgets_and_defaults() {
    let c = with_project(
        r#"
target = "something-else"   # ignored by from_strs: the target file decides
artifacts = ["weights/*.bin"]
[budgets]
wall_time_s = 7200
[defaults]
attempts = 5
run_timeout_s = 900
[defaults.tools]
run = "deny"
"#,
    )
    .unwrap();
    assert_eq!(c.target, "onnxruntime-cpu");
    assert_eq!(c.artifacts, ["*.onnx", "*.onnx.data", "weights/*.bin"]);
    assert_eq!(c.budgets.total_tokens, 400_000, "kept");
    assert_eq!(c.budgets.wall_time_s, 7200, "overridden");
    assert_eq!(c.stage("env").unwrap().attempts, 5, "project default");
    assert_eq!(
        c.stage("export").unwrap().attempts,
        4,
        "the stage's own wins"
    );
    assert_eq!(c.stage("env").unwrap().checks[0].timeout_s, 900);
    assert_eq!(c.stage("bench").unwrap().run_timeout_s, 120);
    assert_eq!(c.stage("bench").unwrap().tools["run"], Policy::Deny);
    assert_eq!(c.stage("export").unwrap().tools["read_file"], Policy::Allow);
}

#[test]
fn resolved_contract_serializes() {
    let v = serde_json::to_value(target_only()).unwrap();
    assert_eq!(v["stages"][1]["checks"][0]["gates"][0]["op"], ">=");
    assert_eq!(v["stages"][1]["tools"]["apply_patch"], "deny");
    let back: Contract = serde_json::from_value(v).unwrap();
    assert_eq!(back, target_only());
}

// ---- located errors --------------------------------------------------------------------------

#[test]
fn bad_gate_operator_reads_like_the_spec() {
    // The gate sits on line 14 of aipc.toml.
    let project = "# project\n\n\n\n\n\n\n\n[[stage]]\nname = \"export\"\n[[stage.check]]\nname = \"export runs\"\ncommand = \"python export.py\"\ngates = [\"cosine >== 0.99\"]\n";
    let e = project_err(project);
    assert_located(
        &e,
        "aipc.toml",
        Some(14),
        Some("stage \"export\" check \"export runs\""),
        Some("gates"),
    );
    let first_line = e.to_string().lines().next().unwrap().to_string();
    assert_eq!(
        first_line,
        "aipc.toml:14: stage \"export\" check \"export runs\": key \"gates\": bad gate \"cosine >== 0.99\": expected a comparison operator (>=, <=, >, <, ==, !=) after the metric name"
    );
}

#[test]
fn a_check_when_is_parsed_and_a_bad_one_is_located() {
    let c = with_project(
        "[[stage]]\nname = \"bench\"\n[[stage.check]]\nname = \"int8 latency\"\ncommand = \"b\"\nwhen = 'quantize != \"none\"'\n",
    )
    .unwrap();
    let check = &c.stage("bench").unwrap().checks[1];
    let when = check.when.as_ref().unwrap();
    assert_eq!(
        (when.key.as_str(), when.source.as_str()),
        ("quantize", "quantize != \"none\"")
    );
    let fp32: toml::Table = "quantize = \"none\"".parse().unwrap();
    assert_eq!(
        check.skip_reason(Some(&fp32)).as_deref(),
        Some("quantize = \"none\" in aipc.toml (applies when quantize != \"none\")")
    );
    assert_eq!(check.skip_reason(None), None);
    // The stage keeps a check that always applies, so it is never skipped as a whole.
    assert_eq!(c.stage("bench").unwrap().skip_reason(Some(&fp32)), None);

    let e = project_err(
        "[[stage]]\nname = \"bench\"\n[[stage.check]]\nname = \"latency\"\ncommand = \"b\"\nwhen = \"quantize = none\"\n",
    );
    assert_located(
        &e,
        "aipc.toml",
        Some(6),
        Some("stage \"bench\" check \"latency\""),
        Some("when"),
    );
    assert!(
        e.message().contains(
            "bad condition \"quantize = none\": expected `==` or `!=` after \"quantize\""
        ),
        "{e}"
    );
}

#[test]
fn bad_gate_number_on_its_own_line() {
    let e = project_err(
        "[[stage]]\nname = \"bench\"\n[[stage.check]]\nname = \"latency\"\ncommand = \"b\"\ngates = [\n  \"a >= 1\",\n  \"cosine >= high\",\n]\n",
    );
    assert_located(
        &e,
        "aipc.toml",
        Some(8),
        Some("stage \"bench\" check \"latency\""),
        Some("gates"),
    );
    assert!(
        e.message().contains(
            "bad gate \"cosine >= high\": expected a number after the operator, found \"high\""
        ),
        "{e}"
    );
}

#[test]
fn unknown_key_in_project_stage() {
    let e = project_err("[[stage]]\nname = \"export\"\natempts = 4\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(3),
        Some("stage \"export\""),
        Some("atempts"),
    );
    assert!(e.message().contains("unknown field `atempts`"), "{e}");
    assert!(e.hint().unwrap().contains("did you mean `attempts`"));
}

#[test]
fn unknown_key_in_target_check_and_tables() {
    let bad = TARGET.replace("timeout_s = 300", "timeout = 300");
    let e = target_err(&bad);
    assert_located(
        &e,
        "contract.toml",
        Some(38),
        Some("stage \"export\" check \"export runs\""),
        Some("timeout"),
    );
    assert!(e.hint().unwrap().contains("`timeout_s`"), "{e}");

    let e = project_err("\n[budgets]\ntotal_tokns = 1\n");
    assert_located(&e, "aipc.toml", Some(3), None, Some("budgets.total_tokns"));

    let e = project_err("[defaults]\nattempts = 2\nturns = 3\n");
    assert_located(&e, "aipc.toml", Some(3), None, Some("defaults.turns"));

    let e = project_err("targett = \"x\"\n");
    assert_located(&e, "aipc.toml", Some(1), None, Some("targett"));
}

#[test]
fn wrong_types() {
    let e = project_err("[[stage]]\nname = \"export\"\nattempts = \"four\"\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(3),
        Some("stage \"export\""),
        Some("attempts"),
    );
    assert!(e.message().contains("invalid type: string \"four\""), "{e}");

    let e = project_err("[[stage]]\nname = \"export\"\n[[stage.check]]\nname = \"c\"\ncommand = \"x\"\ngates = \"a >= 1\"\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(6),
        Some("stage \"export\" check \"c\""),
        Some("gates"),
    );

    let e = project_err("[defaults.tools]\nrun = 3\n");
    assert_located(&e, "aipc.toml", Some(2), None, Some("defaults.tools.run"));
}

#[test]
fn bad_policy_value() {
    let e = project_err("[[stage]]\nname = \"export\"\n[stage.tools]\nrun = \"always\"\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(4),
        Some("stage \"export\""),
        Some("tools.run"),
    );
    assert_eq!(e.message(), "bad policy \"always\"");

    let bad = TARGET.replace("run = \"ask\"", "run = \"Ask\"");
    let e = target_err(&bad);
    assert_located(
        &e,
        "contract.toml",
        Some(12),
        None,
        Some("defaults.tools.run"),
    );
}

#[test]
fn duplicate_stage_names() {
    let bad = format!("{TARGET}\n[[stage]]\nname = \"export\"\ngoal = \"again\"\n");
    let e = target_err(&bad);
    let line = TARGET.lines().count() + 3;
    assert_located(
        &e,
        "contract.toml",
        Some(line),
        Some("stage \"export\""),
        Some("name"),
    );
    assert!(
        e.message()
            .contains("duplicate stage name (first defined on line 23)"),
        "{e}"
    );

    let e = project_err(
        "[[stage]]\nname = \"x\"\ngoal = \"g\"\n[[stage]]\nname = \"x\"\ngoal = \"g\"\n",
    );
    assert_located(&e, "aipc.toml", Some(5), Some("stage \"x\""), Some("name"));
}

#[test]
fn duplicate_check_names() {
    let e = project_err(
        "[[stage]]\nname = \"bench\"\n[[stage.check]]\nname = \"c\"\ncommand = \"a\"\n[[stage.check]]\nname = \"c\"\ncommand = \"b\"\n",
    );
    assert_located(
        &e,
        "aipc.toml",
        Some(7),
        Some("stage \"bench\" check \"c\""),
        Some("name"),
    );
    assert!(e.message().contains("duplicate check name"), "{e}");
}

#[test]
fn agent_stage_without_goal() {
    // In the target.
    let bad = TARGET.replace("goal = \"Measure latency.\"\n", "");
    let e = target_err(&bad);
    assert_located(
        &e,
        "contract.toml",
        Some(44),
        Some("stage \"bench\""),
        Some("goal"),
    );
    // A project-only stage.
    let e = project_err("\n[[stage]]\nname = \"extra\"\nafter = \"env\"\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(3),
        Some("stage \"extra\""),
        Some("goal"),
    );
    assert!(
        e.message()
            .contains("a stage the project adds needs a goal"),
        "{e}"
    );
    // A patch turning a checks-only stage into an agent stage without a goal.
    let e = project_err("[[stage]]\nname = \"env\"\nagent = true\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(2),
        Some("stage \"env\""),
        Some("goal"),
    );
    // A blank goal is no goal.
    let e = project_err("[[stage]]\nname = \"export\"\ngoal = \"  \"\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(2),
        Some("stage \"export\""),
        Some("goal"),
    );
}

#[test]
fn zero_budgets() {
    let e = project_err("[[stage]]\nname = \"export\"\nattempts = 0\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(3),
        Some("stage \"export\""),
        Some("attempts"),
    );
    assert_eq!(e.message(), "must be at least 1");
    let e = project_err("[defaults]\nattempts = 0\n");
    assert_located(&e, "aipc.toml", Some(2), None, Some("defaults.attempts"));
    let e = project_err("[budgets]\ntotal_tokens = 0\n");
    assert_located(&e, "aipc.toml", Some(2), None, Some("budgets.total_tokens"));
    let e = project_err(
        "[[stage]]\nname = \"export\"\n[[stage.check]]\nname = \"c\"\ncommand = \"x\"\ntimeout_s = 0\n",
    );
    assert_located(
        &e,
        "aipc.toml",
        Some(6),
        Some("stage \"export\" check \"c\""),
        Some("timeout_s"),
    );
}

#[test]
fn after_unknown_stage() {
    let e = project_err("[[stage]]\nname = \"q\"\ngoal = \"g\"\nafter = \"exprot\"\n");
    assert_located(&e, "aipc.toml", Some(4), Some("stage \"q\""), Some("after"));
    assert!(e.message().contains("no stage named \"exprot\""), "{e}");
    assert!(e.hint().unwrap().contains("env, export, bench"), "{e}");
}

#[test]
fn after_misused() {
    let e = project_err("[[stage]]\nname = \"export\"\nafter = \"bench\"\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(3),
        Some("stage \"export\""),
        Some("after"),
    );
    let bad = TARGET.replace("name = \"bench\"\n", "name = \"bench\"\nafter = \"env\"\n");
    let e = target_err(&bad);
    assert_located(
        &e,
        "contract.toml",
        Some(45),
        Some("stage \"bench\""),
        Some("after"),
    );
}

#[test]
fn toml_syntax_error() {
    let e = project_err("[[stage]]\nname = \"export\ngoal = \"x\"\n");
    assert_eq!(e.file(), "aipc.toml");
    assert_eq!(e.line(), Some(2), "{e}");
    assert!(e.message().starts_with("TOML syntax error: "), "{e}");
    assert!(e.to_string().starts_with("aipc.toml:2: "), "{e}");
    let e = project_err("[budgets]\ntotal_tokens = 1\ntotal_tokens = 2\n");
    assert_eq!(e.line(), Some(3), "{e}");
    assert!(e.message().contains("duplicate key"), "{e}");
}

#[test]
fn target_file_rules() {
    let e = target_err("[[stage]]\nname = \"a\"\ngoal = \"g\"\n");
    assert_located(&e, "contract.toml", None, None, Some("target"));
    let e = project_err("description = \"mine\"\n");
    assert_located(&e, "aipc.toml", Some(1), None, Some("description"));
}

#[test]
fn check_shape_rules() {
    let e = project_err("[[stage]]\nname = \"export\"\n[[stage.check]]\nname = \"empty\"\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(4),
        Some("stage \"export\" check \"empty\""),
        None,
    );
    let e = project_err(
        "[[stage]]\nname = \"export\"\n[[stage.check]]\nname = \"g\"\nfiles = [\"a\"]\ngates = [\"x > 1\"]\n",
    );
    assert_located(
        &e,
        "aipc.toml",
        Some(4),
        Some("stage \"export\" check \"g\""),
        Some("gates"),
    );
    let e = project_err(
        "[[stage]]\nname = \"export\"\n[[stage.check]]\nname = \"g\"\nfiles = [\"out/[a\"]\n",
    );
    assert_located(
        &e,
        "aipc.toml",
        Some(5),
        Some("stage \"export\" check \"g\""),
        Some("files"),
    );
    let e = project_err("[[stage]]\nname = \"pre\"\nagent = false\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(2),
        Some("stage \"pre\""),
        Some("check"),
    );
    let e = project_err("[[stage]]\nname = \"has space\"\ngoal = \"g\"\n");
    assert_located(&e, "aipc.toml", Some(2), Some("[[stage]]"), Some("name"));
}

// ---- loading from disk -----------------------------------------------------------------------

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn toolbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let targets = dir.path().join("targets");
    write(&targets.join("onnxruntime-cpu/contract.toml"), TARGET);
    write(
        &targets.join("tflite/contract.toml"),
        "target = \"tflite\"\n[[stage]]\nname = \"convert\"\ngoal = \"Convert.\"\n",
    );
    fs::create_dir_all(targets.join("empty-dir")).unwrap();
    dir
}

#[test]
fn load_from_disk() {
    let tb = toolbox();
    let targets = tb.path().join("targets");
    let project = tb.path().join("proj");
    fs::create_dir_all(&project).unwrap();

    assert_eq!(available_targets(&targets), ["onnxruntime-cpu", "tflite"]);
    assert!(available_targets(&tb.path().join("nowhere")).is_empty());

    // No aipc.toml: the CLI target alone.
    let c = Contract::load(&targets, Some("tflite"), &project).unwrap();
    assert_eq!(c.target, "tflite");
    assert_eq!(c.sources, [targets.join("tflite/contract.toml")]);

    // The project's target key, and its patches.
    write(
        &project.join("aipc.toml"),
        "target = \"onnxruntime-cpu\"\n[[stage]]\nname = \"export\"\nattempts = 7\n",
    );
    let c = Contract::load(&targets, None, &project).unwrap();
    assert_eq!(c.target, "onnxruntime-cpu");
    assert_eq!(c.stage("export").unwrap().attempts, 7);
    assert_eq!(
        c.sources,
        [
            targets.join("onnxruntime-cpu/contract.toml"),
            project.join("aipc.toml")
        ]
    );

    // The CLI wins over the project's key (and then the patch names an unknown stage: appended,
    // and it has no goal).
    let e = Contract::load(&targets, Some("tflite"), &project).unwrap_err();
    assert_eq!(e.file(), project.join("aipc.toml").display().to_string());
    assert_eq!(e.key(), Some("goal"));
}

#[test]
fn load_missing_target() {
    let tb = toolbox();
    let targets = tb.path().join("targets");
    let project = tb.path().join("proj");
    fs::create_dir_all(&project).unwrap();

    let e = Contract::load(&targets, Some("tensorrt"), &project).unwrap_err();
    assert_eq!(
        e.file(),
        targets.join("tensorrt/contract.toml").display().to_string()
    );
    assert_eq!(e.message(), "unknown target \"tensorrt\"");
    assert_eq!(e.hint(), Some("available targets: onnxruntime-cpu, tflite"));

    let e = Contract::load(&targets, Some("empty-dir"), &project).unwrap_err();
    assert_eq!(e.message(), "target \"empty-dir\" has no contract.toml");

    let e = Contract::load(&targets, Some("../x"), &project).unwrap_err();
    assert!(e.message().contains("is not a target name"), "{e}");

    // Neither CLI nor project.
    let e = Contract::load(&targets, None, &project).unwrap_err();
    assert_eq!(e.file(), project.join("aipc.toml").display().to_string());
    assert!(e.hint().unwrap().contains("--target"), "{e}");
    assert!(e.hint().unwrap().contains("onnxruntime-cpu, tflite"));

    // The project names a target that does not exist: the error points at its key.
    write(&project.join("aipc.toml"), "\ntarget = \"tensorrt\"\n");
    let e = Contract::load(&targets, None, &project).unwrap_err();
    assert_eq!(e.file(), project.join("aipc.toml").display().to_string());
    assert_eq!(e.line(), Some(2));
    assert_eq!(e.key(), Some("target"));

    // A project without a target key, and no CLI target.
    write(&project.join("aipc.toml"), "[budgets]\nwall_time_s = 5\n");
    let e = Contract::load(&targets, None, &project).unwrap_err();
    assert_eq!(e.key(), Some("target"));
    assert_eq!(e.message(), "no target given");
}

#[test]
fn load_target_name_mismatch() {
    let tb = toolbox();
    let targets = tb.path().join("targets");
    write(
        &targets.join("copy/contract.toml"),
        "\n\ntarget = \"tflite\"\n[[stage]]\nname = \"a\"\ngoal = \"g\"\n",
    );
    let e = Contract::load(&targets, Some("copy"), tb.path()).unwrap_err();
    assert_eq!(
        e.file(),
        targets.join("copy/contract.toml").display().to_string()
    );
    assert_eq!(e.line(), Some(3));
    assert_eq!(e.key(), Some("target"));
}

// ---- [project] and checks_first ----------------------------------------------------------

#[test]
fn a_project_table_is_free_form_and_only_in_aipc_toml() {
    let c = with_project(
        "[project]\nmodel = \"model:load_model\"\ninput_names = [\"image\"]\nopset = 18\n[project.extra]\nanything = true\n",
    )
    .unwrap();
    assert_eq!(c.stages.len(), 3);
    let e = project_err("project = 3\n");
    assert_eq!(e.file(), "aipc.toml");
    assert_eq!(e.line(), Some(1), "{e}");
    assert_eq!(e.key(), Some("project"), "{e}");
    let mut target = TARGET.to_string();
    target.push_str("[project]\nmodel = \"m:f\"\n");
    let e = target_err(&target);
    assert_eq!(e.key(), Some("project"), "{e}");
    assert!(e.line().is_some(), "{e}");
    assert!(e.to_string().contains("only a project's aipc.toml"), "{e}");
}

#[test]
fn checks_first_is_patched_like_other_stage_keys_and_needs_checks() {
    assert!(target_only().stages.iter().all(|s| !s.checks_first));
    let c = with_project("[[stage]]\nname = \"export\"\nchecks_first = true\n").unwrap();
    assert!(c.stage("export").unwrap().checks_first);
    assert!(!c.stage("bench").unwrap().checks_first);
    let e = project_err("[[stage]]\nname = \"new\"\ngoal = \"g\"\nchecks_first = true\n");
    assert_located(
        &e,
        "aipc.toml",
        Some(2),
        Some("stage \"new\""),
        Some("checks_first"),
    );
    let e = project_err("[[stage]]\nname = \"export\"\nchecks_first = \"yes\"\n");
    assert_eq!(e.line(), Some(3), "{e}");
}
