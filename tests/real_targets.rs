//! End to end on the real deployment targets: the `aipc` binary deploys the digits examples
//! onto onnxruntime-cpu and executorch-xnnpack with their real toolchains (torch.export,
//! onnxruntime, ExecuTorch/XNNPACK) and a scripted model (`tests/data/scripts/<example>.<target>.jsonl`).
//!
//! - `digits-cnn` deploys with every stage passing and real accuracy metrics.
//! - Each faulty example fails at the stage and with the classified signature its README names,
//!   then the scripted model applies the documented repair and the session deploys.
//! - Two DeployBench faults (tests/deploybench) repaired in a checks-first stage: the app's
//!   float64 preprocessing (digits-preprocess, run stage) and a sequence dim the app varies
//!   (wave-transformer, inspect stage).
//!
//! - Split adaptation (targets split-*, docs/split-adaptation.md): `adapt-digits-cnn` adapts with
//!   every gate passing; `adapt-digits-dwsep` fails the feature gate until the restoration the
//!   sweep measured (cross-layer equalization) is recorded and the backbone rebuilt.
//!
//! Each case needs the target's venv (`aipc toolchain setup <target>`, done by CI); without it
//! the case prints why and returns. The cases are slow (every check imports torch): each prints
//! its wall time. Every case runs in its own temporary copy of the example.

mod common;

use common::{data_dir, run_scripted_example};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const ORT: &str = "onnxruntime-cpu";
const ET: &str = "executorch-xnnpack";
const SPLIT_ORT: &str = "split-onnxruntime-cpu";
const SPLIT_ET: &str = "split-executorch-xnnpack";
const LLM_ET: &str = "llm-executorch-xnnpack";

/// The venv's interpreter `aipc toolchain setup <target>` makes (same cache rules as aipc).
fn venv_python(target: &str) -> PathBuf {
    aipc::model::store::cache_dir()
        .join("toolchains")
        .join(target)
        .join("venv/bin/python")
}

/// What a finished session left.
struct Session {
    label: String,
    exit_code: Option<i32>,
    stderr: String,
    report: Value,
    events: Vec<Value>,
    /// Keeps the project (and the session under it) until the case ends.
    _dir: tempfile::TempDir,
}

impl Session {
    /// The end of the progress output, for assertion messages.
    fn tail(&self) -> String {
        let lines: Vec<&str> = self.stderr.lines().collect();
        let from = lines.len().saturating_sub(60);
        format!("{}:\n{}", self.label, lines[from..].join("\n"))
    }

    fn stage(&self, name: &str) -> &Value {
        self.report["stages"]
            .as_array()
            .and_then(|stages| stages.iter().find(|s| s["name"] == name))
            .unwrap_or_else(|| panic!("no stage {name} in the report\n{}", self.tail()))
    }

    fn of_type<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.events.iter().filter(move |e| e["type"] == kind)
    }

    /// The measured value of `gate` (as written in the contract) in `check` of `stage`.
    fn measured(&self, stage: &str, check: &str, gate: &str) -> f64 {
        let checks = self.stage(stage)["checks"].as_array().cloned();
        let check = checks
            .unwrap_or_default()
            .into_iter()
            .find(|c| c["name"] == check)
            .unwrap_or_else(|| panic!("no check {check:?} in stage {stage}\n{}", self.tail()));
        let gates = check["gates"].as_array().cloned().unwrap_or_default();
        let found = gates
            .iter()
            .find(|g| g["expr"] == gate)
            .unwrap_or_else(|| panic!("no gate {gate:?} in {check}"));
        found["measured"]
            .as_f64()
            .unwrap_or_else(|| panic!("gate {gate:?} measured nothing: {found}"))
    }

    fn assert_deployed(&self) {
        assert_eq!(self.exit_code, Some(0), "{}", self.tail());
        assert_eq!(self.report["outcome"], "deployed", "{}", self.tail());
        let stages = self.report["stages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(stages.len(), 8, "{}", self.tail());
        for stage in &stages {
            assert_eq!(
                stage["status"],
                "passed",
                "stage {}\n{}",
                stage["name"],
                self.tail()
            );
        }
    }

    /// The accuracy stage measured the artifacts against the eager model for real.
    fn assert_accurate(&self) {
        let fp32 = "fp32 matches eager";
        let int8 = "int8 matches eager";
        let cosine = self.measured("accuracy", fp32, "cosine >= 0.99");
        assert!(cosine >= 0.999, "FP32 cosine {cosine}\n{}", self.tail());
        let top1 = self.measured("accuracy", fp32, "top1_agreement == 1.0");
        assert_eq!(top1, 1.0, "FP32 top-1 agreement\n{}", self.tail());
        let cosine = self.measured("accuracy", int8, "cosine >= 0.95");
        assert!(cosine >= 0.95, "INT8 cosine {cosine}\n{}", self.tail());
        let top1 = self.measured("accuracy", int8, "top1_agreement >= 0.98");
        assert!(top1 >= 0.98, "INT8 top-1 agreement {top1}\n{}", self.tail());
        let drop = self.measured("accuracy", int8, "acc_drop_points <= 1");
        assert!(drop <= 1.0, "INT8 accuracy drop {drop}\n{}", self.tail());
    }

    /// The evidence events, as (stage, attempt, signature).
    fn evidence(&self) -> Vec<(String, u64, String)> {
        self.of_type("evidence_collected")
            .map(|e| {
                (
                    e["stage"].as_str().unwrap_or_default().to_string(),
                    e["attempt"].as_u64().unwrap_or(u64::MAX),
                    e["evidence"]["signature"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                )
            })
            .collect()
    }

    /// Whether the toolbox call `tool` ran and succeeded.
    fn call_succeeded(&self, tool: &str) -> bool {
        let ids: Vec<&Value> = self
            .of_type("tool_call_proposed")
            .filter(|e| e["tool"] == tool)
            .map(|e| &e["call_id"])
            .collect();
        self.of_type("tool_call_finished")
            .any(|e| ids.contains(&&e["call_id"]) && e["ok"] == true)
    }

    /// The tools offered on each model turn of `stage`, in order.
    fn offered(&self, stage: &str) -> Vec<Vec<String>> {
        self.of_type("model_request")
            .filter(|e| e["stage"] == stage)
            .map(|e| {
                e["tools"]
                    .as_array()
                    .map(|t| {
                        t.iter()
                            .filter_map(|n| n.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Whether a call of `tool` failed with classified evidence of `signature`.
    fn call_failed_with(&self, tool: &str, signature: &str) -> bool {
        let ids: Vec<&Value> = self
            .of_type("tool_call_proposed")
            .filter(|e| e["tool"] == tool)
            .map(|e| &e["call_id"])
            .collect();
        self.of_type("tool_call_finished").any(|e| {
            ids.contains(&&e["call_id"])
                && e["ok"] == false
                && e["observation"]
                    .as_str()
                    .is_some_and(|o| o.contains(&format!("signature: {signature} ")))
        })
    }
}

/// Deploy a fresh copy of `examples/<example>` onto `target` with the scripted model of
/// `tests/data/scripts/<example>.<target>.jsonl`. Fails loudly when the target's venv is not
/// installed (.ci/run sets both up).
fn deploy(example: &str, target: &str) -> Session {
    let label = format!("{example} on {target}");
    // A split-* target runs in its runtime's venv (its toolchain.toml).
    let python = venv_python(
        target
            .strip_prefix("split-")
            .or_else(|| target.strip_prefix("llm-"))
            .unwrap_or(target),
    );
    assert!(
        python.exists(),
        "{label}: no toolchain venv at {} (run `aipc toolchain setup {target}`; .ci/run does)",
        python.display()
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let (project, out) = run_scripted_example(dir.path(), example, target, &[], &[]);
    let secs = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!(
        "real-targets wall time: {label}: {secs:.1} s (exit {:?})",
        out.status.code()
    );
    let session_dir = session_dir(&project, &stdout).unwrap_or_else(|| {
        panic!("{label}: no session found\nstdout:\n{stdout}\nstderr:\n{stderr}")
    });
    let report_text = std::fs::read_to_string(session_dir.join("report.json"))
        .unwrap_or_else(|e| panic!("{label}: report.json: {e}\nstderr:\n{stderr}"));
    let report: Value = serde_json::from_str(&report_text).expect("report.json parses");
    let events = std::fs::read_to_string(session_dir.join("events.jsonl"))
        .expect("events.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    Session {
        label,
        exit_code: out.status.code(),
        stderr,
        report,
        events,
        _dir: dir,
    }
}

/// The session folder: the last stdout line is its report.md; else the only session there.
fn session_dir(project: &Path, stdout: &str) -> Option<PathBuf> {
    if let Some(dir) = stdout
        .lines()
        .last()
        .filter(|l| l.ends_with("report.md"))
        .and_then(|l| Path::new(l.trim()).parent())
    {
        return Some(dir.to_path_buf());
    }
    let sessions = project.join(".aipc/sessions");
    std::fs::read_dir(sessions)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join("events.jsonl").is_file())
}

// ---------------------------------------------------------------- the clean example

fn clean_deploys(target: &str) {
    let session = deploy("digits-cnn", target);
    session.assert_deployed();
    session.assert_accurate();
    assert!(session.evidence().is_empty(), "{:?}", session.evidence());
    // The agent stages took one attempt; the checks-first stages made no model call.
    for (stage, attempts) in [("export", 1), ("build", 1), ("report", 1)] {
        assert_eq!(session.stage(stage)["attempts"], attempts, "{stage}");
    }
    for stage in ["env", "inspect", "run", "accuracy", "performance"] {
        assert_eq!(session.stage(stage)["checks_first"], "passed", "{stage}");
        assert_eq!(session.stage(stage)["model_turns"], 0, "{stage}");
    }
}

#[test]
fn digits_cnn_deploys_on_onnxruntime_cpu() {
    clean_deploys(ORT);
}

#[test]
fn digits_cnn_deploys_on_executorch_xnnpack() {
    clean_deploys(ET);
}

// ---------------------------------------------------------------- export faults

/// `example`'s export fails with `signature`; the evidence names `fix`, so the next turn offers
/// the repairs the signature names (`fix` among them) and their skill, nothing else; after the
/// fix changed model.py only export is offered, then only finish_stage, and the stage passes in
/// its first attempt.
fn export_fault_is_repaired(example: &str, target: &str, signature: &str, fix: &str) {
    let session = deploy(example, target);
    assert!(
        session.call_failed_with("export", signature),
        "export did not fail with {signature}\n{}",
        session.tail()
    );
    assert!(session.evidence().is_empty(), "{:?}", session.evidence());
    session.assert_deployed();
    session.assert_accurate();
    assert_eq!(session.stage("export")["attempts"], 1, "{}", session.tail());
    let offered = session.offered("export");
    assert!(
        offered.len() == 4
            && offered[1].contains(&fix.to_string())
            && offered[1]
                .iter()
                .all(|tool| tool == "load_skill" || tool.starts_with("fix_")),
        "{offered:?}"
    );
    assert_eq!(offered[2], ["export"], "{offered:?}");
    assert_eq!(offered[3], ["finish_stage"], "{offered:?}");
    assert!(
        session.call_succeeded(fix),
        "{fix} did not succeed\n{}",
        session.tail()
    );
}

#[test]
fn digits_branchy_data_dependent_branch_is_repaired_on_onnxruntime_cpu() {
    export_fault_is_repaired(
        "digits-branchy",
        ORT,
        "export.data_dependent_guard",
        "fix_branch_to_where",
    );
}

#[test]
fn digits_branchy_data_dependent_branch_is_repaired_on_executorch_xnnpack() {
    export_fault_is_repaired(
        "digits-branchy",
        ET,
        "export.data_dependent_guard",
        "fix_branch_to_where",
    );
}

/// An operator the toolchain rejects and the rewrite library has: the evidence names the project
/// option that has every export rewrite it at graph level, the model's code stays as it is, only
/// export is offered after the option changed, and the stage passes in its first attempt.
fn rewritable_op_is_repaired(target: &str) {
    let session = deploy("digits-unsupported-op", target);
    assert!(
        session.call_failed_with("export", "export.rewritable_op"),
        "export did not fail with export.rewritable_op\n{}",
        session.tail()
    );
    session.assert_deployed();
    session.assert_accurate();
    assert_eq!(session.stage("export")["attempts"], 1, "{}", session.tail());
    let offered = session.offered("export");
    assert!(
        offered.len() == 4
            && offered[1].contains(&"set_project_option".to_string())
            && !offered[1].contains(&"finish_stage".to_string()),
        "{offered:?}"
    );
    assert_eq!(offered[2], ["export"], "{offered:?}");
    assert_eq!(offered[3], ["finish_stage"], "{offered:?}");
}

#[test]
fn digits_unsupported_op_median_is_rewritten_on_onnxruntime_cpu() {
    rewritable_op_is_repaired(ORT);
}

#[test]
fn digits_unsupported_op_median_is_rewritten_on_executorch_xnnpack() {
    rewritable_op_is_repaired(ET);
}

// ---------------------------------------------------------------- a silent INT8 failure

/// The INT8 model built from a calibration set with one outlier passes its cosine gate but not
/// top-1: the accuracy stage's checks-first run fails with that evidence, and attempt 1
/// re-quantizes with `drop_outliers`.
fn calibration_outlier_is_repaired(target: &str) {
    let session = deploy("digits-calib-outlier", target);
    let evidence = session.evidence();
    assert_eq!(
        evidence,
        vec![(
            "accuracy".to_string(),
            0,
            "quant.accuracy_collapse".to_string()
        )],
        "{}",
        session.tail()
    );
    // quantize printed the silent-failure line the README quotes.
    assert!(
        session
            .of_type("tool_output")
            .any(|e| e["line"].as_str().is_some_and(
                |l| l.starts_with("aipc-warning: calibration outlier: sample 17 max|x| 150")
            )),
        "{}",
        session.tail()
    );
    session.assert_deployed();
    session.assert_accurate();
    let accuracy = session.stage("accuracy");
    assert_eq!(accuracy["checks_first"], "failed", "{}", session.tail());
    assert_eq!(accuracy["attempts"], 1, "{}", session.tail());
    assert_eq!(
        accuracy["last_evidence"]["signature"],
        "quant.accuracy_collapse"
    );
    // The repair: quantize again without the outlier.
    assert!(
        session
            .of_type("tool_call_proposed")
            .any(|e| e["tool"] == "quantize" && e["args"]["drop_outliers"] == true),
        "{}",
        session.tail()
    );
}

#[test]
fn digits_calib_outlier_int8_collapse_is_repaired_on_onnxruntime_cpu() {
    calibration_outlier_is_repaired(ORT);
}

#[test]
fn digits_calib_outlier_int8_collapse_is_repaired_on_executorch_xnnpack() {
    calibration_outlier_is_repaired(ET);
}

// ---------------------------------------------------------------- DeployBench faults (tests/deploybench)

/// A checks-first stage of `example` fails before any model turn with `signature`; the scripted
/// model's one repair call in attempt 1 (`tool`) makes it pass and the session deploys.
fn checks_first_fault_is_repaired(
    example: &str,
    target: &str,
    stage: &str,
    signature: &str,
    tool: &str,
) {
    let session = deploy(example, target);
    assert_eq!(
        session.evidence(),
        vec![(stage.to_string(), 0, signature.to_string())],
        "{}",
        session.tail()
    );
    session.assert_deployed();
    session.assert_accurate();
    let repaired = session.stage(stage);
    assert_eq!(repaired["checks_first"], "failed", "{}", session.tail());
    assert_eq!(repaired["attempts"], 1, "{}", session.tail());
    assert!(
        session.call_succeeded(tool),
        "{tool} did not succeed\n{}",
        session.tail()
    );
}

/// digits-preprocess: the app's infer.py feeds float64; the run stage feeds its run_inputs,
/// the toolbox names the file and function, and `fix_input_feed` on infer.py repairs it.
#[test]
fn digits_preprocess_float64_feed_is_repaired_on_onnxruntime_cpu() {
    checks_first_fault_is_repaired(
        "digits-preprocess",
        ORT,
        "run",
        "run.input_dtype",
        "fix_input_feed",
    );
}

/// wave-transformer: the app streams 6..32 frames, the static export fixes 16; inspect sees it
/// and `dynamic_seq = true` set in aipc.toml, then `export`, repairs it (the INT8 build then
/// quantizes that model).
#[test]
fn wave_transformer_fixed_sequence_is_repaired_on_onnxruntime_cpu() {
    checks_first_fault_is_repaired(
        "wave-transformer",
        ORT,
        "inspect",
        "shape.fixed_dim",
        "export",
    );
}

// ---------------------------------------------------------------- split adaptation

/// The gate values of the split flow's stages, for the log and the assertions.
fn split_gates(session: &Session) -> (f64, f64, f64) {
    let cosine = session.measured(
        "features",
        "int8 features match fp32",
        "cosine_mean >= 0.99",
    );
    let channel = session.measured(
        "features",
        "int8 features match fp32",
        "channel_err_max <= 0.25",
    );
    let within = session.measured("adapt", "adaptation within budget", "within_budget == 1");
    eprintln!("{}: feature cosine_mean {cosine}, channel_err_max {channel}, adaptation within budget {within}", session.label);
    (cosine, channel, within)
}

#[test]
fn adapt_digits_cnn_adapts_on_split_onnxruntime_cpu() {
    let session = deploy("adapt-digits-cnn", SPLIT_ORT);
    session.assert_deployed();
    assert!(session.evidence().is_empty(), "{:?}", session.evidence());
    let (cosine, channel, _) = split_gates(&session);
    assert!(cosine >= 0.99 && channel <= 0.25, "{}", session.tail());
    for stage in ["env", "split", "features", "extract", "adapt", "cost"] {
        assert_eq!(session.stage(stage)["model_turns"], 0, "{stage}");
    }
}

#[test]
fn adapt_digits_cnn_adapts_on_split_executorch_xnnpack() {
    let session = deploy("adapt-digits-cnn", SPLIT_ET);
    session.assert_deployed();
    assert!(session.evidence().is_empty(), "{:?}", session.evidence());
    split_gates(&session);
}

/// The feature gate fails on the imbalanced depthwise backbone; the evidence offers the sweep and
/// each restoration; after the sweep's choice is recorded and the backbone rebuilt, it passes.
fn restoration_repairs_the_feature_gate(target: &str) {
    let session = deploy("adapt-digits-dwsep", target);
    let evidence = session.evidence();
    assert_eq!(
        evidence.first().map(|e| (e.0.as_str(), e.2.as_str())),
        Some(("features", "split.feature_drift")),
        "{evidence:?}\n{}",
        session.tail()
    );
    assert!(
        session.of_type("tool_output").any(|e| e["line"].as_str().is_some_and(|l| l.starts_with(
            "aipc-warning: restoration chosen: the least restoration that passes the feature gate is \"cle\""
        ))),
        "{}",
        session.tail()
    );
    session.assert_deployed();
    let (cosine, channel, within) = split_gates(&session);
    assert!(
        cosine >= 0.99 && channel <= 0.25 && within == 1.0,
        "{}",
        session.tail()
    );
}

#[test]
fn adapt_digits_dwsep_feature_drift_is_restored_on_split_onnxruntime_cpu() {
    restoration_repairs_the_feature_gate(SPLIT_ORT);
}

/// The toolbox's own unit checks (toolbox/tests/test_toolbox.py, ~10 s) in the ORT venv: among
/// them, the warning lines the scripts print against the signature tables' regexes.
#[test]
fn toolbox_unit_checks_pass() {
    let python = venv_python(ORT);
    assert!(
        python.exists(),
        "no toolchain venv at {} (aipc toolchain setup {ORT}; .ci/run sets it up)",
        python.display()
    );
    let out = Command::new(&python)
        .arg(data_dir().join("toolbox/tests/test_toolbox.py"))
        .output()
        .expect("run test_toolbox.py");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------- decoder LLM

/// A Qwen-class decoder (random weights, tied embeddings) through every phase of the LLM flow on
/// ExecuTorch: the reference, prefill and decode parity pass on the FP32 program, the 8da4w
/// program stays within its perplexity budget, and the speed phase measures both programs.
#[test]
fn llm_qwen_tiny_deploys_phase_by_phase_on_llm_executorch_xnnpack() {
    let session = deploy("llm-qwen-tiny", LLM_ET);
    session.assert_deployed();
    assert!(session.evidence().is_empty(), "{:?}", session.evidence());
    let cosine = session.measured("prefill", "prefill parity", "prefill_cosine_min >= 0.99");
    let decode = session.measured("decode", "decode parity", "decode_match == 1");
    let budget = session.measured("quantize", "quantized quality", "within_budget == 1");
    eprintln!("llm-qwen-tiny: prefill cosine min {cosine}, decode match {decode}, quantized within budget {budget}");
    assert!(
        cosine >= 0.99 && decode == 1.0 && budget == 1.0,
        "{}",
        session.tail()
    );
    for stage in ["env", "reference", "prefill", "decode", "speed"] {
        assert_eq!(session.stage(stage)["model_turns"], 0, "{stage}");
    }
}
