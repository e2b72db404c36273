//! The real `aipc` binary: batch deployment, exit codes, contract errors, `sessions`, `doctor`.

mod common;

use common::*;
use std::process::Command;

fn aipc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_aipc"));
    command.env("AIPC_DATA_DIR", data_dir());
    command
}

fn demo_model() -> String {
    format!(
        "scripted:{}",
        data_dir().join("examples/scripts/tiny-mlp.jsonl").display()
    )
}

#[test]
fn batch_run_deploys_prints_progress_and_ends_with_the_report_path() {
    let project = git_project();
    let out = aipc()
        .args(["run", "--target", "python-reference", "--batch", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    assert!(
        stderr.contains("✔ validate passed after 2 attempt(s)"),
        "{stderr}"
    );
    assert!(stderr.contains("cosine >= 0.999"), "{stderr}");
    let report_path = stdout.lines().last().unwrap();
    assert!(report_path.ends_with("report.md"), "{stdout}");
    let md = std::fs::read_to_string(report_path).unwrap();
    assert!(md.contains("outcome: **deployed**"), "{md}");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(report_path.replace("report.md", "report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["outcome"], "deployed");
    let junit =
        std::fs::read_to_string(report_path.replace("report.md", "report.junit.xml")).unwrap();
    assert!(
        junit.contains("tests=\"") && junit.contains("failures=\"0\""),
        "{junit}"
    );
    assert!(!junit.contains("<failure"), "{junit}");

    // `aipc sessions` lists it.
    let out = aipc().arg("sessions").arg(project.path()).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(table.contains("python-reference"), "{table}");
    assert!(table.contains("deployed"), "{table}");
}

/// `run --json`: stdout is the event stream, one JSON object per line, `seq` from 0 without
/// gaps, the same lines as the session log, ending with the finished session.
#[test]
fn run_json_streams_every_event_as_a_json_line() {
    let project = git_project();
    let out = aipc()
        .args(["run", "--target", "python-reference", "--json", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(events.len() > 10, "{stdout}");
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["seq"], i as u64, "{event}");
    }
    assert_eq!(events[0]["type"], "session_started");
    assert_eq!(events.last().unwrap()["type"], "session_finished");
    let session = events[0]["session_id"].as_str().unwrap();
    let log = project
        .path()
        .join(".aipc/sessions")
        .join(session)
        .join("events.jsonl");
    let logged = std::fs::read_to_string(log).unwrap();
    assert_eq!(logged.lines().count(), events.len());
    assert!(stderr.contains("validate passed"), "{stderr}");
}

#[test]
fn stdout_not_a_terminal_implies_batch() {
    let project = git_project();
    // No --batch: stdout is a pipe here, so no console is read and nothing waits for a human.
    let out = aipc()
        .args(["run", "--target", "python-reference", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// `aipc run --batch` on `project` with the demo model; (exit code, stderr).
fn run_with_contract_error(project: &std::path::Path) -> (Option<i32>, String) {
    let out = aipc()
        .args(["run", "--batch", "--model"])
        .arg(demo_model())
        .arg(project)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_malformed_contract_exits_2_naming_file_line_and_key() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n\n[defaults]\natempts = 2\n",
    )
    .unwrap();
    let (code, stderr) = run_with_contract_error(project.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("aipc.toml:4"), "{stderr}");
    assert!(stderr.contains("atempts"), "{stderr}");
    // Nothing was started.
    assert!(!project.path().join(".aipc").exists());
}

#[test]
fn a_bad_gate_expression_exits_2() {
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[[stage]]\nname = \"validate\"\n[[stage.check]]\nname = \"latency\"\ncommand = \"true\"\ngates = [\"p50_ms <== 5\"]\n",
    )
    .unwrap();
    let (code, stderr) = run_with_contract_error(project.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("aipc.toml:7"), "{stderr}");
    assert!(stderr.contains("p50_ms <== 5"), "{stderr}");
}

#[test]
fn an_unknown_target_lists_the_known_ones() {
    let project = git_project();
    let out = aipc()
        .args(["run", "--batch", "--target", "tpu-9000", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("python-reference"), "{stderr}");
}

#[test]
fn a_missing_model_file_exits_5_and_so_does_no_model_without_the_default() {
    let project = git_project();
    let out = aipc()
        .args([
            "run",
            "--batch",
            "--model",
            "scripted:/nonexistent/replies.jsonl",
        ])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/replies.jsonl"));
    let cache = tempfile::tempdir().unwrap();
    let out = aipc()
        .args(["run", "--batch"])
        .arg(project.path())
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("--model"), "{stderr}");
    assert!(stderr.contains("`aipc model fetch`"), "{stderr}");
    assert!(
        stderr.contains(&cache.path().display().to_string()),
        "{stderr}"
    );
}

#[test]
fn without_model_run_uses_the_default_model_in_the_cache() {
    let project = git_project();
    let cache = tempfile::tempdir().unwrap();
    let models = cache.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let default = models.join("gemma-3-270m-q4_k_m.gguf");
    std::fs::write(&default, "not really a model").unwrap();
    let out = aipc()
        .args(["run", "--batch"])
        .arg(project.path())
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The backend is handed the default path (and cannot use this stand-in file).
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains(&default.display().to_string()), "{stderr}");
    assert!(!stderr.contains("aipc model fetch"), "{stderr}");
}

#[test]
fn a_failing_stage_exits_1_with_a_failed_report() {
    let project = git_project();
    let replies = project.path().parent().unwrap().join("lazy-model.jsonl");
    std::fs::write(
        &replies,
        calls::script(&[calls::EXPORT, calls::FINISH, calls::FINISH, calls::FINISH]),
    )
    .unwrap();
    let out = aipc()
        .args(["run", "--batch", "--model"])
        .arg(format!("scripted:{}", replies.display()))
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report_path = stdout.lines().last().unwrap();
    let report = std::fs::read_to_string(report_path).unwrap();
    assert!(report.contains("outcome: **failed**"), "{report}");
    // The JUnit report: one test case per stage, the failed one a <failure> naming its check.
    let junit =
        std::fs::read_to_string(report_path.replace("report.md", "report.junit.xml")).unwrap();
    assert!(junit.starts_with("<?xml"), "{junit}");
    assert!(junit.contains("<testcase name=\"validate\""), "{junit}");
    assert!(junit.contains("<failure"), "{junit}");
    assert!(junit.contains("failures=\"1\""), "{junit}");
}

#[test]
fn usage_errors_exit_2() {
    let out = aipc().args(["run"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = aipc()
        .args(["run", "/nonexistent/project", "--model", "scripted:x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `aipc doctor` tells the truth: with an empty cache the model and every toolchain are "not
/// ready", each with the command that fixes it, and the exit code is 3; a target that needs no
/// venv and a present model are ready (exit 0); `--json` says the same.
#[test]
fn doctor_reports_what_is_not_ready_and_the_fix() {
    let cache = tempfile::tempdir().unwrap();
    let out = aipc()
        .arg("doctor")
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("python-reference"), "{stdout}");
    assert!(stdout.contains("export-layer-fidelity"), "{stdout}");
    assert!(
        stdout.contains("ok        toolchain python-reference: no venv needed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("NOT READY toolchain onnxruntime-cpu: missing"),
        "{stdout}"
    );
    assert!(
        stdout.contains("fix: aipc toolchain setup onnxruntime-cpu"),
        "{stdout}"
    );
    assert!(stdout.contains("NOT READY default model"), "{stdout}");
    assert!(stdout.contains("fix: aipc model fetch"), "{stdout}");
    assert!(stdout.contains("not ready:"), "{stdout}");

    let out = aipc()
        .args(["doctor", "--json"])
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ready"], false);
    let checks = json["checks"].as_array().unwrap();
    let model = checks
        .iter()
        .find(|c| c["name"] == "default model")
        .unwrap();
    assert_eq!(model["status"], "not-ready");
    assert_eq!(model["fix"], "aipc model fetch");

    // With the model in place (the real one, which .ci/run fetches) and only a target that
    // needs no venv: ready.
    let real_model = std::path::PathBuf::from(std::env::var_os("HOME").unwrap())
        .join(".cache/aipc/models/gemma-3-270m-q4_k_m.gguf");
    assert!(
        real_model.is_file(),
        "{} is missing: run `aipc model fetch` (as .ci/run does)",
        real_model.display()
    );
    std::fs::create_dir_all(cache.path().join("models")).unwrap();
    std::os::unix::fs::symlink(
        &real_model,
        cache.path().join("models/gemma-3-270m-q4_k_m.gguf"),
    )
    .unwrap();
    let out = aipc()
        .args(["doctor", "--target", "python-reference", "--json"])
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ready"], true, "{text}");
    assert!(!text.contains("toolchain onnxruntime-cpu"), "{text}");

    let out = aipc()
        .args(["doctor", "--data-dir", "/nonexistent"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

/// `--version` names the build; completions and the man page come from the clap definition.
#[test]
fn version_completions_and_man_page() {
    let out = aipc().arg("--version").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("commit: "), "{stdout}");
    assert!(stdout.contains("target-cpu "), "{stdout}");
    assert!(stdout.contains("llama-cpp-sys-2 "), "{stdout}");
    let out = aipc().args(["completions", "bash"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("_aipc()"), "{stdout}");
    assert!(stdout.contains("doctor"), "{stdout}");
    let out = aipc().arg("man").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains(".TH aipc"), "{stdout}");
}

/// With no data folder beside the binary and no AIPC_DATA_DIR, the binary uses the copy
/// embedded in it, extracted under the cache, from any working directory; a wrong
/// AIPC_DATA_DIR is an error, not a silent fallback.
#[test]
fn an_installed_binary_uses_its_embedded_data_from_any_folder() {
    let root = tempfile::tempdir().unwrap();
    let bin = root.path().join("bin/aipc");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_aipc"), &bin).unwrap();
    let cache = root.path().join("cache");
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = Command::new(&bin)
        .args(["doctor", "--json", "--target", "python-reference"])
        .current_dir(&elsewhere)
        .env_remove("AIPC_DATA_DIR")
        .env("AIPC_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks = json["checks"].as_array().unwrap();
    let data = checks
        .iter()
        .find(|c| c["name"] == "data directory")
        .unwrap();
    assert_eq!(data["status"], "ok", "{json}");
    let detail = data["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&cache.join("data").display().to_string())
            && detail.ends_with("(embedded in the binary)"),
        "{detail}"
    );
    let skills = checks.iter().find(|c| c["name"] == "skills").unwrap();
    assert_eq!(skills["status"], "ok", "{json}");

    let out = Command::new(&bin)
        .arg("doctor")
        .env("AIPC_DATA_DIR", root.path().join("nowhere"))
        .env("AIPC_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("nowhere is not an aipc data directory"),
        "{stdout}"
    );
}

/// A session whose model server is down, or answers garbage, stops with exit 5 and keeps a
/// readable log that ends with the outcome.
#[test]
fn a_broken_model_server_ends_the_session_with_exit_5_and_keeps_the_log() {
    // Down: a port nobody listens on.
    let down = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    // Garbage: answers every request with something that is not HTTP+JSON/SSE.
    let garbage = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let garbage_port = garbage.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in garbage.incoming() {
            use std::io::{Read, Write};
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 20\r\n\r\n<html>nope</html>\n\n\n",
            );
        }
    });
    for port in [down, garbage_port] {
        let project = git_project();
        let out = aipc()
            .args(["run", "--batch", "--request-timeout-s", "20", "--model"])
            .arg(format!("http://127.0.0.1:{port}/v1"))
            .arg(project.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "port {port}: {stderr}");
        assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
        let sessions = project.path().join(".aipc/sessions");
        let session = std::fs::read_dir(&sessions)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let log = aipc::session::read_events(&session.join("events.jsonl")).unwrap();
        assert!(matches!(
            log.events.last().map(|e| &e.event),
            Some(aipc::protocol::Event::SessionFinished { exit_code: 5, .. })
        ));
    }
}

// ---- toolchains ------------------------------------------------------------------------------

/// A data directory with the repository's prompts and skills and one target, `pinned`, made
/// of `files` (name, content) in `toolbox/targets/pinned/`.
fn data_dir_with_target(root: &std::path::Path, files: &[(&str, &str)]) -> std::path::PathBuf {
    let data = root.join("data");
    let target = data.join("toolbox/targets/pinned");
    std::fs::create_dir_all(&target).unwrap();
    for dir in ["prompts", "skills"] {
        std::os::unix::fs::symlink(data_dir().join(dir), data.join(dir)).unwrap();
    }
    for (name, content) in files {
        std::fs::write(target.join(name), content).unwrap();
    }
    data
}

const PINNED_CONTRACT: &str = r#"target = "pinned"
[[stage]]
name = "env"
agent = false
[[stage.check]]
name = "python is the venv's"
command = "python -c 'import json, os, sys; print(json.dumps({\"in_venv\": int(sys.prefix != sys.base_prefix and sys.prefix == os.environ[\"VIRTUAL_ENV\"])}))'"
gates = ["in_venv == 1"]
"#;

#[test]
fn toolchain_list_and_setup_explain_a_target_without_requirements() {
    let cache = tempfile::tempdir().unwrap();
    let out = aipc()
        .args(["toolchain", "list"])
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let line = |target: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(target))
            .unwrap_or_else(|| panic!("no {target} in {stdout}"))
            .to_string()
    };
    assert!(line("python-reference").contains("none needed"), "{stdout}");
    assert!(
        line("python-reference").contains("no requirements.txt"),
        "{stdout}"
    );
    let venv = cache.path().join("toolchains/onnxruntime-cpu/venv");
    assert!(line("onnxruntime-cpu").contains("missing"), "{stdout}");
    assert!(
        line("onnxruntime-cpu").contains(&venv.display().to_string()),
        "{stdout}"
    );

    let out = aipc()
        .args(["toolchain", "setup", "python-reference"])
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("nothing to set up"), "{stdout}");
    assert!(stdout.contains("no requirements.txt"), "{stdout}");
    assert!(stdout.contains("ambient PATH"), "{stdout}");
    assert!(!cache.path().join("toolchains").exists());

    let out = aipc()
        .args(["toolchain", "setup", "tpu-9000"])
        .env("AIPC_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown target \"tpu-9000\""), "{stderr}");
    assert!(stderr.contains("python-reference"), "{stderr}");
}

#[test]
fn run_with_a_missing_venv_and_no_toolchain_setup_exits_3_with_the_command() {
    let root = tempfile::tempdir().unwrap();
    let data = data_dir_with_target(
        root.path(),
        &[
            ("contract.toml", PINNED_CONTRACT),
            ("requirements.txt", "# nothing pinned\n"),
        ],
    );
    let project = git_project();
    let out = aipc()
        .args([
            "run",
            "--batch",
            "--target",
            "pinned",
            "--no-toolchain-setup",
        ])
        .arg("--data-dir")
        .arg(&data)
        .arg("--model")
        .arg(demo_model())
        .arg(project.path())
        .env("AIPC_CACHE_DIR", root.path().join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("is missing"), "{stderr}");
    assert!(stderr.contains("`aipc toolchain setup pinned`"), "{stderr}");
    assert!(!project.path().join(".aipc").exists(), "nothing started");
}

#[test]
fn a_broken_toolbox_manifest_exits_2_naming_file_line_tool_and_key() {
    let root = tempfile::tempdir().unwrap();
    let data = data_dir_with_target(
        root.path(),
        &[
            ("contract.toml", PINNED_CONTRACT),
            (
                "toolbox.toml",
                "[[tool]]\nname = \"make\"\nscript = \"make.py\"\ndescription = \"d\"\n",
            ),
        ],
    );
    let project = git_project();
    let out = aipc()
        .args(["run", "--batch", "--target", "pinned"])
        .arg("--data-dir")
        .arg(&data)
        .arg("--model")
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("toolbox.toml:3: tool \"make\": key \"script\": script not found"),
        "{stderr}"
    );
}

/// A real venv (python3 -m venv, pip with an empty requirements file: no download), set up
/// once, reused the second time, used by the session's commands, and reported by doctor.
#[test]
fn toolchain_setup_creates_then_reuses_a_venv_that_commands_run_in() {
    let root = tempfile::tempdir().unwrap();
    let data = data_dir_with_target(
        root.path(),
        &[
            ("contract.toml", PINNED_CONTRACT),
            ("requirements.txt", "# nothing pinned\n"),
        ],
    );
    let cache = root.path().join("cache");
    let setup = || {
        aipc()
            .args(["toolchain", "setup", "pinned", "--data-dir"])
            .arg(&data)
            .env("AIPC_CACHE_DIR", &cache)
            .output()
            .unwrap()
    };
    let out = setup();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("toolchain pinned: ready, created"),
        "{stdout}"
    );
    assert!(stdout.contains("torch absent"), "{stdout}");
    assert!(stderr.contains("creating the venv"), "{stderr}");
    let venv = cache.join("toolchains/pinned/venv");
    let stamp = std::fs::read_to_string(venv.join(".aipc-installed")).unwrap();
    assert!(stamp.starts_with("installed-from sha256 "), "{stamp}");
    // What the venv actually holds (pip, at least), hashed on the second line.
    assert!(
        stamp
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("installed sha256 "),
        "{stamp}"
    );
    assert!(stamp.lines().any(|l| l.starts_with("pip==")), "{stamp}");

    let out = setup();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("ready, reusing"), "{stdout}");

    let out = aipc()
        .args(["toolchain", "list", "--data-dir"])
        .arg(&data)
        .env("AIPC_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("pinned") && l.contains("ready")),
        "{stdout}"
    );

    let doctor = || {
        aipc()
            .args(["doctor", "--target", "pinned", "--data-dir"])
            .arg(&data)
            .env("AIPC_CACHE_DIR", &cache)
            .output()
            .unwrap()
    };
    let stdout = String::from_utf8_lossy(&doctor().stdout).into_owned();
    assert!(
        stdout.contains("ok        toolchain pinned: ready"),
        "{stdout}"
    );
    assert!(stdout.contains("torch absent, onnx absent"), "{stdout}");

    // The check's `python` is the venv's.
    let project = git_project();
    let out = aipc()
        .args([
            "run",
            "--batch",
            "--target",
            "pinned",
            "--no-toolchain-setup",
        ])
        .arg("--data-dir")
        .arg(&data)
        .arg("--model")
        .arg(demo_model())
        .arg(project.path())
        .env("AIPC_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("in_venv == 1 [1.0000] ok"), "{stderr}");

    // Changed requirements make it stale; setup refreshes it in place.
    std::fs::write(
        data.join("toolbox/targets/pinned/requirements.txt"),
        "# still nothing\n",
    )
    .unwrap();
    let out = setup();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("adopting the existing venv"), "{stderr}");
    assert!(stdout.contains("ready, adopted"), "{stdout}");

    // A package added by hand after setup: doctor sees that the venv is not what was stamped.
    let marker = venv.join("lib");
    let site = std::fs::read_dir(&marker)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .unwrap();
    let dist = site.join("handmade-1.0.dist-info");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(
        dist.join("METADATA"),
        "Metadata-Version: 2.1\nName: handmade\nVersion: 1.0\n",
    )
    .unwrap();
    let out = doctor();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("NOT READY toolchain pinned:")
            && stdout.contains("changed after setup (e.g. handmade==1.0)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("aipc toolchain setup pinned --force"),
        "{stdout}"
    );
}

/// `aipc config show` layers the user's file, the project's and AIPC_*; a broken file stops
/// `run` with exit 2 naming the file and line, before anything else happens.
#[test]
fn config_files_and_environment_feed_run_and_config_show() {
    let home = tempfile::tempdir().unwrap();
    let config_home = home.path().join("config");
    std::fs::create_dir_all(config_home.join("aipc")).unwrap();
    std::fs::write(
        config_home.join("aipc/config.toml"),
        "threads = 1\nctx = 4096\n",
    )
    .unwrap();
    let project = git_project();
    std::fs::create_dir_all(project.path().join(".aipc")).unwrap();
    std::fs::write(
        project.path().join(".aipc/config.toml"),
        "target = \"python-reference\"\n",
    )
    .unwrap();
    let out = aipc()
        .args(["config", "show", "--json", "--project"])
        .arg(project.path())
        .env("XDG_CONFIG_HOME", &config_home)
        .env("AIPC_CTX", "2048")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["threads"]["value"], 1);
    assert_eq!(json["ctx"]["value"], 2048);
    assert_eq!(json["ctx"]["source"]["environment"], "AIPC_CTX");
    assert_eq!(json["target"]["value"], "python-reference");

    // The project's default target is used by `run` (no --target given).
    let out = aipc()
        .args(["run", "--batch", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .env("XDG_CONFIG_HOME", &config_home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");

    std::fs::write(
        project.path().join(".aipc/config.toml"),
        "target = \"python-reference\"\nthread = 2\n",
    )
    .unwrap();
    let out = aipc()
        .args(["run", "--batch", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .env("XDG_CONFIG_HOME", &config_home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(".aipc/config.toml"), "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
}

/// Without bubblewrap the session does not start (exit 3, saying what to install); it never
/// runs commands unsandboxed. `--sandbox off` is the explicit way out, and it is recorded.
#[test]
fn a_sandbox_that_cannot_start_stops_the_session_before_any_command() {
    let project = git_project();
    // A PATH with python3 and sh but no bwrap.
    let bin = tempfile::tempdir().unwrap();
    for tool in ["python3", "sh"] {
        let found = ["/usr/bin", "/bin", "/usr/local/bin"]
            .iter()
            .map(|d| std::path::Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap();
        std::os::unix::fs::symlink(found, bin.path().join(tool)).unwrap();
    }
    let out = aipc()
        .env("PATH", bin.path())
        .args(["run", "--target", "python-reference", "--batch", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("apt-get install bubblewrap"), "{stderr}");
    assert!(stderr.contains("--sandbox off"), "{stderr}");
    assert!(
        !project.path().join(".aipc/sessions").exists() || {
            // A session folder may exist, but no command ran in it.
            let log = std::fs::read_dir(project.path().join(".aipc/sessions"))
                .unwrap()
                .flatten()
                .map(|e| e.path().join("events.jsonl"))
                .find(|p| p.exists());
            log.is_none_or(|p| {
                !std::fs::read_to_string(p)
                    .unwrap()
                    .contains("check_started")
            })
        }
    );

    let off = aipc()
        .env("PATH", bin.path())
        .args([
            "run",
            "--target",
            "python-reference",
            "--batch",
            "--sandbox",
            "off",
            "--model",
        ])
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&off.stderr);
    assert_eq!(off.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("sandbox OFF (flag)"), "{stderr}");
    let report =
        std::fs::read_to_string(String::from_utf8_lossy(&off.stdout).lines().last().unwrap())
            .unwrap();
    assert!(report.contains("sandbox: **OFF** off"), "{report}");
}

/// A target whose toolbox reads `[project]` gets the table checked before any toolchain is set
/// up: every problem with its `aipc.toml:<line>`, exit 2, and no venv, session or git change.
/// `aipc run --batch` of a project folder holding `files`, with an empty cache (a toolchain
/// setup would start there and take minutes): (exit code, stderr, whether a toolchain was set up).
fn run_in_empty_cache(files: &[(&str, &str)]) -> (Option<i32>, String, bool) {
    let project = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(project.path().join(name), text).unwrap();
    }
    let cache = tempfile::tempdir().unwrap();
    let out = aipc()
        .env("AIPC_CACHE_DIR", cache.path())
        .args(["run", "--batch", "--model"])
        .arg(demo_model())
        .arg(project.path())
        .output()
        .unwrap();
    let set_up = cache.path().join("toolchains").exists();
    assert!(!project.path().join(".aipc/sessions").exists());
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        set_up,
    )
}

#[test]
fn run_checks_the_project_table_before_any_toolchain_setup() {
    let (code, stderr, set_up) = run_in_empty_cache(&[
        ("model.py", "def load_model():\n    pass\n"),
        (
            "aipc.toml",
            "target = \"onnxruntime-cpu\"\n\n[project]\nmodel = \"model:load_model\"\nexample_inputs = \"data:example_inputs\"\nquantize = \"fp16\"\n",
        ),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr
            .contains("aipc.toml:5: `example_inputs` = \"data:example_inputs\": no module `data`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("aipc.toml:6: `quantize` = \"fp16\": expected one of \"int8\", \"none\""),
        "{stderr}"
    );
    assert!(!set_up, "no toolchain setup");
}

/// `aipc run` also parses the entries' modules (python3's ast, nothing imported): a function the
/// module does not define, and a module that does not parse, exit 2 before any toolchain setup.
#[test]
fn run_checks_that_the_model_functions_exist_before_any_toolchain_setup() {
    let (code, stderr, set_up) = run_in_empty_cache(&[
        ("model.py", "def load_model():\n    pass\n"),
        ("data.py", "def example(:\n"),
        (
            "aipc.toml",
            "target = \"onnxruntime-cpu\"\n\n[project]\nmodel = \"model:load_modle\"\nexample_inputs = \"data:example\"\n",
        ),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("aipc.toml:4: `model` = \"model:load_modle\": model.py defines no `load_modle` at its top level (did you mean `load_model`?)"),
        "{stderr}"
    );
    assert!(stderr.contains("data.py:1: does not parse"), "{stderr}");
    assert!(!set_up, "no toolchain setup");
}

/// `aipc init` on a project it has never seen: it lists the functions that look like the model
/// when --from is missing (batch: exit 2, nothing written), writes aipc.toml and the hooks, and
/// checks them (a misspelt function: exit 2 naming aipc.toml's line); it never replaces files
/// without --force.
#[test]
fn init_writes_a_project_table_and_hooks_that_validate() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("nets")).unwrap();
    std::fs::write(project.path().join("nets/__init__.py"), "").unwrap();
    std::fs::write(
        project.path().join("nets/classifier.py"),
        "import torch\n\n\ndef build_classifier():\n    torch.manual_seed(0)\n    return torch.nn.Linear(16, 4)\n\n\ndef _helper():\n    pass\n",
    )
    .unwrap();
    let init = |args: &[&str]| {
        aipc()
            .arg("init")
            .args(args)
            .arg(project.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = init(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("give --from module:function"), "{stderr}");
    assert!(
        stderr.contains("candidates: nets.classifier:build_classifier"),
        "{stderr}"
    );
    assert!(!project.path().join("aipc.toml").exists());

    let out = init(&["--from", "nets.classifier:build_classifier"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("give --input-shape"), "{stderr}");

    let out = init(&[
        "--from",
        "nets.classifier:build_clasifier",
        "--input-shape",
        "16",
        "--target",
        "executorch-xnnpack",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("aipc.toml:6: `model` = \"nets.classifier:build_clasifier\": nets/classifier.py defines no `build_clasifier`"),
        "{stderr}"
    );
    let out = init(&[
        "--from",
        "nets.classifier:build_classifier",
        "--input-shape",
        "16",
    ]);
    assert_eq!(out.status.code(), Some(2), "no --force: {out:?}");
    let before = std::fs::read_to_string(project.path().join("aipc.toml")).unwrap();
    assert!(
        before.contains("build_clasifier"),
        "unchanged without --force"
    );

    let out = init(&[
        "--from",
        "nets.classifier:build_classifier",
        "--input-shape",
        "16",
        "--latency-budget-ms",
        "2",
        "--fp32",
        "--force",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ready: aipc run"));
    let toml = std::fs::read_to_string(project.path().join("aipc.toml")).unwrap();
    assert!(toml.contains("target = \"onnxruntime-cpu\""), "{toml}");
    assert!(
        toml.contains("model = \"nets.classifier:build_classifier\""),
        "{toml}"
    );
    assert!(toml.contains("quantize = \"none\""), "{toml}");
    assert!(toml.contains("latency_budget_ms = 2"), "{toml}");
    let hooks = std::fs::read_to_string(project.path().join("aipc_hooks.py")).unwrap();
    assert!(hooks.contains("INPUT_SHAPE = (16,)"), "{hooks}");

    // timm and transformers sources need no input shape: the hooks read the model's config.
    let out = init(&["--from", "timm:resnet18", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let toml = std::fs::read_to_string(project.path().join("aipc.toml")).unwrap();
    assert!(toml.contains("model = \"aipc_hooks:model\""), "{toml}");
    // A random-weight model gets labelled data and a short fit by default; its fitted weights
    // are cached beside the hooks and git-ignored (once, however often init runs).
    let hooks = std::fs::read_to_string(project.path().join("aipc_hooks.py")).unwrap();
    assert!(hooks.contains("return _fitted(_net())"), "{hooks}");
    let out = init(&["--from", "timm:resnet18", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let ignore = std::fs::read_to_string(project.path().join(".gitignore")).unwrap();
    assert_eq!(ignore.matches(".aipc_hooks_cache/").count(), 1, "{ignore}");
    let out = init(&["--from", "timm:resnet18", "--data", "synthetic", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let hooks = std::fs::read_to_string(project.path().join("aipc_hooks.py")).unwrap();
    assert!(
        hooks.contains("return _net()") && !hooks.contains("def _fit"),
        "{hooks}"
    );
    // The project's own model has its own weights: nothing to fit.
    let out = init(&[
        "--from",
        "nets.classifier:build_classifier",
        "--input-shape",
        "16",
        "--data",
        "labelled",
        "--force",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("has its own weights"), "{stderr}");
    let out = init(&[
        "--from",
        "hf:vit",
        "--hf-config",
        "hidden_size=32",
        "--force",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let hooks = std::fs::read_to_string(project.path().join("aipc_hooks.py")).unwrap();
    assert!(hooks.contains("CONFIG = {\"hidden_size\": 32}"), "{hooks}");
    let out = init(&["--from", "hf:vit", "--hf-config", "hidden size", "--force"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// Every ZooBench entry (tests/zoobench/zoo.toml) is something `aipc init` accepts and writes a
/// valid project for, on both targets (tests/zoobench/generate.py makes the task folders the
/// same way).
#[test]
fn init_accepts_every_zoobench_entry() {
    let zoo: toml::Value = toml::from_str(
        &std::fs::read_to_string(common::data_dir().join("tests/zoobench/zoo.toml")).unwrap(),
    )
    .unwrap();
    let entries = zoo["arch"].as_array().unwrap();
    assert!(
        entries.len() >= 30,
        "ZooBench needs at least 30 architectures"
    );
    for entry in entries {
        let name = entry["name"].as_str().unwrap();
        for target in ["onnxruntime-cpu", "executorch-xnnpack"] {
            let project = tempfile::tempdir().unwrap();
            let mut command = aipc();
            command
                .arg("init")
                .arg(project.path())
                .args(["--batch", "--target", target, "--from"])
                .arg(entry["from"].as_str().unwrap());
            if let Some(shape) = entry.get("input_shape").and_then(|s| s.as_array()) {
                let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
                command.arg("--input-shape").arg(dims.join(","));
            }
            for pair in entry
                .get("hf_config")
                .and_then(|c| c.as_array())
                .into_iter()
                .flatten()
            {
                command.arg("--hf-config").arg(pair.as_str().unwrap());
            }
            let out = command.stdin(std::process::Stdio::null()).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} on {target}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// `bench deploy --keep-failed`: a run whose scripted model stops after the export stage fails,
/// and its session (not its worktree) is kept beside the table under `<task>.<arm>.t<trial>`.
#[test]
fn bench_deploy_keeps_the_table_and_the_failed_session() {
    let tasks = tempfile::tempdir().unwrap();
    let task = tasks.path().join("tiny-cut");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::write(
        task.join("task.toml"),
        "project = \"examples/tiny-mlp\"\ntarget = \"python-reference\"\n",
    )
    .unwrap();
    let full = std::fs::read_to_string(data_dir().join("examples/scripts/tiny-mlp.jsonl")).unwrap();
    let replies: Vec<&str> = full.lines().filter(|l| l.starts_with('{')).collect();
    let script = tasks.path().join("cut.jsonl");
    std::fs::write(&script, replies[..2].join("\n")).unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let kept = tempfile::tempdir().unwrap();
    let kept = kept.path().join("results");
    let out = aipc()
        .args(["bench", "deploy", "--tasks", "tiny-cut", "--tasks-dir"])
        .arg(tasks.path())
        .arg("--model")
        .arg(format!("scripted:{}", script.display()))
        .arg("--out")
        .arg(out_dir.path())
        .arg("--keep-failed")
        .arg(&kept)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("tiny-cut [skills #1] ✘"), "{stderr}");
    assert!(
        stderr.contains("kept the table and 1 failed session(s)"),
        "{stderr}"
    );
    let session = kept.join("sessions/tiny-cut.skills.t1");
    for file in [
        "events.jsonl",
        "meta.json",
        "report.json",
        "deploybench.json",
    ] {
        let path = if file.starts_with("deploybench") {
            kept.join(file)
        } else {
            session.join(file)
        };
        assert!(path.is_file(), "{} missing", path.display());
    }
    assert!(!session.join("worktree").exists());
}
