//! The toolbox's Python unit checks: every `toolbox/tests/check_*.py` runs in
//! each toolchain venv its header names (`# aipc-venvs: onnxruntime-cpu executorch-xnnpack`),
//! and must exit 0. A missing header or a missing venv fails the test loudly: `.ci/run` sets up
//! both venvs (`aipc toolchain setup <target>`), so a skip would hide a broken repair.
//!
//! Each check file prints one line per check and exits 1 when any fails (see
//! toolbox/tests/checklib.py). `test_toolbox.py` keeps its own runner in tests/real_targets.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The venv's interpreter `aipc toolchain setup <target>` makes (same cache rules as aipc).
fn venv_python(target: &str) -> PathBuf {
    aipc::model::store::cache_dir()
        .join("toolchains")
        .join(target)
        .join("venv/bin/python")
}

/// The targets a check file's `# aipc-venvs:` header names.
fn venvs_of(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .take(10)
        .find_map(|l| l.strip_prefix("# aipc-venvs:"))
        .unwrap_or_else(|| {
            panic!(
                "{}: no `# aipc-venvs: <target> …` line in its first 10 lines",
                path.display()
            )
        });
    let venvs: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    assert!(!venvs.is_empty(), "{}: empty aipc-venvs", path.display());
    venvs
}

fn check_files() -> Vec<PathBuf> {
    let dir = common::data_dir().join("toolbox/tests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("check_") && name.ends_with(".py")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_toolbox_check_file_passes_in_its_venvs() {
    let files = check_files();
    assert!(
        files.len() >= 4,
        "only {} check files under toolbox/tests: {files:?}",
        files.len()
    );
    let mut failures = Vec::new();
    for file in &files {
        for target in venvs_of(file) {
            let python = venv_python(&target);
            assert!(
                python.exists(),
                "no {target} venv at {} (aipc toolchain setup {target})",
                python.display()
            );
            let started = std::time::Instant::now();
            let out = Command::new(&python)
                .arg(file)
                .env("QNN_SDK_ROOT", "")
                .output()
                .unwrap();
            eprintln!(
                "{} in {target}: exit {:?} in {:.1} s",
                file.display(),
                out.status.code(),
                started.elapsed().as_secs_f64()
            );
            if !out.status.success() {
                failures.push(format!(
                    "{} in {target} failed:\n{}\n{}",
                    file.display(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
