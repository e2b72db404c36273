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

/// One check file run in one venv: its exit status and output, and how long it took.
struct CheckRun {
    file: PathBuf,
    target: String,
    ok: bool,
    seconds: f64,
    output: String,
}

fn run_check(file: &Path, target: &str) -> CheckRun {
    let python = venv_python(target);
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
    CheckRun {
        file: file.to_path_buf(),
        target: target.to_string(),
        ok: out.status.success(),
        seconds: started.elapsed().as_secs_f64(),
        output: format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// The (file, venv) runs are independent processes, so they run side by side on the machine's
/// cores (at most 4: each holds a venv's torch): one after the other they took 23 of the 48
/// minutes of a cold `cargo test` on a 2-core machine.
#[test]
fn every_toolbox_check_file_passes_in_its_venvs() {
    let files = check_files();
    assert!(
        files.len() >= 4,
        "only {} check files under toolbox/tests: {files:?}",
        files.len()
    );
    let jobs: Vec<(PathBuf, String)> = files
        .iter()
        .flat_map(|file| {
            venvs_of(file)
                .into_iter()
                .map(move |target| (file.clone(), target))
        })
        .collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let runs = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((file, target)) = jobs.get(i) else {
                    break;
                };
                let run = run_check(file, target);
                runs.lock().unwrap().push(run);
            });
        }
    });
    let runs = runs.into_inner().unwrap();
    assert_eq!(runs.len(), jobs.len(), "a check run panicked (see above)");
    let mut failures = Vec::new();
    for run in &runs {
        eprintln!(
            "{} in {}: {} in {:.1} s",
            run.file.display(),
            run.target,
            if run.ok { "ok" } else { "FAILED" },
            run.seconds
        );
        if !run.ok {
            failures.push(format!(
                "{} in {} failed:\n{}",
                run.file.display(),
                run.target,
                run.output
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
