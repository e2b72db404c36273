//! The toolbox's own Python unit checks (`toolbox/tests/test_toolbox.py`: argument parsing,
//! metrics, the outlier rule, the codemods, reproducible ONNX export) run under the
//! onnxruntime-cpu venv, so CI fails when one of them does. Without the venv (`aipc toolchain
//! setup onnxruntime-cpu`, done by CI) the test says why and returns.

mod common;

use common::data_dir;
use std::process::Command;

#[test]
fn toolbox_python_checks_pass() {
    let python = aipc::model::store::cache_dir().join("toolchains/onnxruntime-cpu/venv/bin/python");
    if !python.exists() {
        eprintln!(
            "skipped: {} is missing (run `aipc toolchain setup onnxruntime-cpu`)",
            python.display()
        );
        return;
    }
    let out = Command::new(&python)
        .arg(data_dir().join("toolbox/tests/test_toolbox.py"))
        .env("QNN_SDK_ROOT", "")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}
