//! The qairt-qnn and qairt-snpe targets (docs/qairt.md) against the stand-in QAIRT SDK in
//! `tests/data/qairt-standin` (NOT the Qualcomm SDK, which cannot be installed here; tests only):
//! - `examples/digits-cnn` deploys with the scripted model through every stage: ONNX export,
//!   conversion and the FP model library, the INT8 HTP context binary from the project's
//!   calibration data, qnn-net-run against eager (the AIPC gates) and the profiled latency; and
//!   on the SNPE flow: the FP DLC, the quantized DLC, snpe-net-run on the CPU and DSP runtimes;
//! - the SDK's refusals, as the stand-in prints them from real conversions and runs (a dynamic
//!   input without `-d`, an unsupported operator, a library that does not load, a context on the
//!   wrong backend, no SDK at all), are classified by the target's signature table with the facts
//!   the repair needs;
//! - `aipc doctor --target qairt-qnn` (and `qairt-snpe`) names what is missing of its flow.
//!
//! Needs onnxruntime-cpu's venv (`aipc toolchain setup onnxruntime-cpu`; .ci/run does).

mod common;

use aipc::evidence::{Classifier, Failure};
use common::{copy_example, data_dir, run_scripted_example};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn venv_bin() -> PathBuf {
    let bin = aipc::model::store::cache_dir().join("toolchains/onnxruntime-cpu/venv/bin");
    assert!(
        bin.join("python").exists(),
        "no onnxruntime-cpu venv at {} (run `aipc toolchain setup onnxruntime-cpu`; .ci/run does)",
        bin.display()
    );
    bin
}

fn standin() -> PathBuf {
    data_dir().join("tests/data/qairt-standin")
}

#[test]
fn digits_cnn_deploys_on_qairt_qnn_against_the_stand_in_sdk() {
    assert_deploys(
        "qairt-qnn",
        &[
            "build/qnn/fp/libs/x86_64-linux-clang/libmodel.so",
            "build/qnn/int8/output/model_int8.bin",
            "build/qnn/fp/model_net.json",
        ],
        "(qnn-net-run) vs eager",
    );
}

#[test]
fn digits_cnn_deploys_on_qairt_snpe_against_the_stand_in_sdk() {
    assert_deploys(
        "qairt-snpe",
        &[
            "build/snpe/model.dlc",
            "build/snpe/model_int8.dlc",
            "build/snpe/model.dlc.json",
        ],
        "build/snpe/model_int8.dlc (activations 8 bit, weights 8 bit) (snpe-net-run) vs eager",
    );
}

/// `examples/digits-cnn` deploys on `target` with the scripted model and the stand-in SDK: every
/// stage, the artifacts built, the runtime named in the accuracy stage's output, and the env check
/// saying the SDK is the stand-in.
fn assert_deploys(target: &str, artifacts: &[&str], compared: &str) {
    venv_bin();
    let dir = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let sdk = [("QAIRT_SDK_ROOT", standin().display().to_string())];
    let (project, out) = run_scripted_example(dir.path(), "digits-cnn", target, &[], &sdk);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "{target} wall time: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let session = std::fs::read_dir(project.join(".aipc/sessions"))
        .expect("sessions")
        .find_map(|e| e.ok().map(|e| e.path()))
        .expect("a session");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(session.join("report.json")).expect("report"),
    )
    .expect("report parses");
    let stages: Vec<&str> = report["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        stages,
        [
            "env",
            "export",
            "convert",
            "build",
            "run",
            "accuracy",
            "performance",
            "report"
        ]
    );
    let accuracy = report["stages"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "accuracy"))
        .expect("accuracy stage");
    let text = accuracy.to_string();
    assert!(text.contains("cosine"), "{text}");
    for artifact in artifacts {
        assert!(
            report["artifacts"]
                .to_string()
                .contains(artifact.rsplit('/').next().unwrap_or(artifact))
                || session.join("worktree").join(artifact).exists(),
            "{artifact}: {}",
            report["artifacts"]
        );
    }
    let events = std::fs::read_to_string(session.join("events.jsonl")).expect("events");
    assert!(events.contains(compared), "{target}: no `{compared}` line");
    assert!(
        events.contains("this is aipc's test stand-in for the SDK"),
        "the env check says the SDK is the stand-in:\n{}",
        events
            .lines()
            .filter(|l| l.contains("env.a0"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Run a python snippet in the venv with the stand-in SDK on PATH; returns stdout + stderr.
fn python(dir: &Path, code: &str, sdk: bool) -> String {
    let bin = venv_bin();
    let mut cmd = Command::new(bin.join("python"));
    cmd.arg("-c").arg(code).current_dir(dir);
    let path = format!(
        "{}:{}:{}",
        standin().join("bin/x86_64-linux-clang").display(),
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .env("PYTHONPATH", data_dir().join("toolbox/lib"))
        .env("AIPC_TOOLBOX", data_dir().join("toolbox"))
        .env("QNN_SDK_ROOT", "");
    if sdk {
        cmd.env("QAIRT_SDK_ROOT", standin());
    } else {
        cmd.env_remove("QAIRT_SDK_ROOT");
    }
    let out = cmd.output().expect("python");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn classify(log: &str) -> aipc::protocol::Evidence {
    classify_for("qairt-qnn", log)
}

fn classify_for(target: &str, log: &str) -> aipc::protocol::Evidence {
    let table = Classifier::load(
        &data_dir()
            .join("toolbox/targets")
            .join(target)
            .join("signatures.toml"),
    )
    .expect("qairt signatures");
    table.classify(
        &Failure {
            failed_check: "convert: exit code 1, expected 0".into(),
            check: "convert".into(),
            exit_code: Some(1),
            log: log.to_string(),
            gate_failures: vec![],
        },
        true,
    )
}

/// ONNX models written with onnx.helper: a dynamic batch, an Einsum.
const MODELS: &str = r#"
import onnx
from onnx import helper as h, TensorProto as T
x = h.make_tensor_value_info("x", T.FLOAT, ["batch", 4])
y = h.make_tensor_value_info("y", T.FLOAT, ["batch", 4])
g = h.make_graph([h.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 18)]), "dynamic.onnx")
x = h.make_tensor_value_info("x", T.FLOAT, [2, 4])
y = h.make_tensor_value_info("y", T.FLOAT, [2, 2])
w = h.make_tensor("w", T.FLOAT, [4, 2], [0.5] * 8)
g = h.make_graph([h.make_node("Einsum", ["x", "w"], ["y"], equation="ij,jk->ik")], "g", [x], [y], [w])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 18)]), "einsum.onnx")
"#;

fn tool(dir: &Path, args: &str) -> String {
    python(
        dir,
        &format!(
            "import subprocess, sys; r = subprocess.run({args}, capture_output=True, text=True); \
             print(r.stdout); print(r.stderr); print('exit', r.returncode)"
        ),
        true,
    )
}

#[test]
fn the_sdk_refusals_are_classified_with_their_facts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    python(d, MODELS, true);
    let sdk = standin().join("bin/x86_64-linux-clang");
    let conv = sdk.join("qnn-onnx-converter").display().to_string();

    let log = tool(
        d,
        &format!("['{conv}', '--input_network', 'dynamic.onnx', '--output_path', 'out/m.cpp']"),
    );
    assert!(log.contains("exit 1"), "{log}");
    let ev = classify(&log);
    assert_eq!(ev.signature, "qairt.dynamic_input", "{log}");
    assert_eq!(
        ev.facts.get("inputs").map(String::as_str),
        Some("'x'"),
        "{:?}",
        ev.facts
    );

    let log = tool(
        d,
        &format!("['{conv}', '--input_network', 'einsum.onnx', '--output_path', 'out/m.cpp']"),
    );
    let ev = classify(&log);
    assert_eq!(ev.signature, "qairt.unsupported_op", "{log}");
    assert_eq!(ev.facts.get("op").map(String::as_str), Some("Einsum"));

    // The dynamic model converts with -d; a library target that is not a .cpp and a context
    // run on the CPU backend are refused as the SDK refuses them.
    let log = tool(d, &format!("['{conv}', '--input_network', 'dynamic.onnx', '--output_path', 'out/m.cpp', '-d', 'x', '2,4']"));
    assert!(log.contains("exit 0"), "{log}");
    let libgen = sdk.join("qnn-model-lib-generator").display().to_string();
    let log = tool(
        d,
        &format!("['{libgen}', '-c', 'out/m.bin', '-b', 'out/m.bin', '-o', 'libs']"),
    );
    assert_eq!(classify(&log).signature, "qairt.cpp_ext", "{log}");
    let log = tool(
        d,
        &format!("['{libgen}', '-c', 'out/m.cpp', '-b', 'out/m.bin', '-o', 'libs']"),
    );
    assert!(log.contains("exit 0"), "{log}");
    let ctx = sdk
        .join("qnn-context-binary-generator")
        .display()
        .to_string();
    let htp = standin()
        .join("lib/x86_64-linux-clang/libQnnHtp.so")
        .display()
        .to_string();
    let cpu = standin()
        .join("lib/x86_64-linux-clang/libQnnCpu.so")
        .display()
        .to_string();
    let log = tool(d, &format!("['{ctx}', '--backend', '{htp}', '--model', 'libs/x86_64-linux-clang/libm.so', '--binary_file', 'm']"));
    assert!(log.contains("exit 0"), "{log}");
    std::fs::write(d.join("x.raw"), [0u8; 32]).expect("raw");
    std::fs::write(d.join("list.txt"), "x:=x.raw\n").expect("list");
    let run = sdk.join("qnn-net-run").display().to_string();
    let log = tool(d, &format!("['{run}', '--retrieve_context', 'output/m.bin', '--backend', '{cpu}', '--input_list', 'list.txt']"));
    assert_eq!(classify(&log).signature, "qairt.ctx_interpret", "{log}");
    let log = tool(
        d,
        &format!(
            "['{run}', '--model', 'out/m.cpp', '--backend', '{cpu}', '--input_list', 'list.txt']"
        ),
    );
    assert_eq!(classify(&log).signature, "qairt.model_not_found", "{log}");
    let log = tool(d, &format!("['{run}', '--retrieve_context', 'output/m.bin', '--backend', '{htp}', '--input_list', 'list.txt']"));
    assert!(
        log.contains("exit 0") && d.join("output/Result_0/y.raw").is_file(),
        "{log}"
    );

    // The SNPE flow: qairt-converter wants --source_model_input_shape for a dynamic input (the
    // same SDK message, classified by qairt-snpe's table), the DLC quantizes with an input list
    // and runs on the DSP runtime; a converter warning is not the failure, a gate is.
    let qconv = sdk.join("qairt-converter").display().to_string();
    let log = tool(
        d,
        &format!("['{qconv}', '--input_network', 'dynamic.onnx', '--output_path', 'm.dlc']"),
    );
    let ev = classify_for("qairt-snpe", &log);
    assert_eq!(ev.signature, "qairt.dynamic_input", "{log}");
    assert!(
        ev.candidate_fixes
            .iter()
            .any(|f| f.contains("--source_model_input_shape")),
        "{:?}",
        ev.candidate_fixes
    );
    let log = tool(d, &format!("['{qconv}', '--input_network', 'dynamic.onnx', '--output_path', 'm.dlc', '--source_model_input_shape', 'x', '2,4']"));
    assert!(log.contains("exit 0"), "{log}");
    let quant = sdk.join("snpe-dlc-quant").display().to_string();
    let log = tool(d, &format!("['{quant}', '--input_dlc', 'm.dlc', '--input_list', 'list.txt', '--output_dlc', 'q.dlc', '--enable_htp']"));
    assert!(log.contains("exit 0"), "{log}");
    let info = tool(
        d,
        &format!("['{}', '-i', 'q.dlc']", sdk.join("snpe-dlc-info").display()),
    );
    assert!(
        info.contains("Quantized: act 8 bit, weights 8 bit"),
        "{info}"
    );
    let run = sdk.join("snpe-net-run").display().to_string();
    let log = tool(d, &format!("['{run}', '--container', 'q.dlc', '--input_list', 'list.txt', '--output_dir', 'snpe_out', '--use_dsp']"));
    assert!(
        log.contains("exit 0") && d.join("snpe_out/Result_0/y.raw").is_file(),
        "{log}"
    );
    let gate = "MaxPool: unsupported version, converting anyway\n\
                build/snpe/model_int8.dlc (activations 8 bit, weights 4 bit) (snpe-net-run) vs eager on 360 samples: cosine 0.91\n\
                aipc-gate-failed: int8 matches eager: cosine >= 0.95 (measured 0.91)\n";
    let ev = classify_for("qairt-snpe", gate);
    assert_eq!(ev.signature, "qairt.int8_accuracy", "{gate}");
    assert_eq!(ev.facts.get("weight_bw").map(String::as_str), Some("4"));
    assert_eq!(
        classify_for("qairt-snpe", "MaxPool: unsupported version\n").signature,
        "qairt.warning_not_blocker"
    );
}

#[test]
fn without_the_sdk_the_env_check_names_the_variable_and_doctor_the_fix() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("digits-cnn");
    std::fs::create_dir(&project).expect("project dir");
    copy_example("digits-cnn", &project);
    let env_py = data_dir().join("toolbox/targets/qairt-qnn/env.py");
    let log = python(
        &project,
        &format!(
            "import runpy, sys; sys.path.insert(0, '{}'); sys.argv = ['env.py']; runpy.run_path('{}', run_name='__main__')",
            env_py.parent().map(|p| p.display().to_string()).unwrap_or_default(),
            env_py.display()
        ),
        false,
    );
    assert!(
        log.contains("QAIRT_SDK_ROOT environment variable not set"),
        "{log}"
    );
    assert_eq!(classify(&log).signature, "qairt.sdk_missing", "{log}");

    let out = Command::new(env!("CARGO_BIN_EXE_aipc"))
        .arg("--data-dir")
        .arg(data_dir())
        .args(["doctor", "--target", "qairt-qnn"])
        .env_remove("QAIRT_SDK_ROOT")
        .env_remove("QNN_SDK_ROOT")
        .output()
        .expect("doctor");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("NOT READY QAIRT SDK: QAIRT_SDK_ROOT is not set"),
        "{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_aipc"))
        .arg("--data-dir")
        .arg(data_dir())
        .args(["doctor", "--target", "qairt-qnn"])
        .env("QAIRT_SDK_ROOT", dir.path())
        .output()
        .expect("doctor");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("lacks:") && text.contains("qnn-net-run"),
        "{text}"
    );
    // Each qairt target is checked for its own flow's tools.
    let out = Command::new(env!("CARGO_BIN_EXE_aipc"))
        .arg("--data-dir")
        .arg(data_dir())
        .args(["doctor", "--target", "qairt-snpe"])
        .env("QAIRT_SDK_ROOT", dir.path())
        .output()
        .expect("doctor");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("snpe-net-run") && !text.contains("qnn-net-run"),
        "{text}"
    );
}
