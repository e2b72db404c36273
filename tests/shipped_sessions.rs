//! The recorded sessions shipped under `sessions/<name>/` (made with the real embedded model by
//! `sessions/record.sh`) are regression tests: each re-runs (`aipc rerun --from`) in a fresh
//! copy of its example with the recorded model outputs and today's toolchain, and must not
//! diverge from its recording. Each also replays as a transcript.
//!
//! A re-run needs the target's venv (`aipc toolchain setup <target>`, done by CI); without it the
//! test fails and says so. A divergence here means a toolbox script, a prompt, a
//! check or a package changed what the model would have seen: if that change is intended,
//! re-record the session (sessions/README.md).

mod common;

use common::{copy_example, data_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

struct Shipped {
    dir: PathBuf,
    example: String,
    target: String,
}

fn shipped() -> Vec<Shipped> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(data_dir().join("sessions")).unwrap() {
        let dir = entry.unwrap().path();
        let ship = dir.join("ship.toml");
        if !ship.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&ship).unwrap();
        let value: toml::Value = toml::from_str(&text).unwrap();
        let field = |key: &str| value[key].as_str().unwrap().to_string();
        out.push(Shipped {
            dir,
            example: field("example"),
            target: field("target"),
        });
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

fn venv_ready(target: &str) -> bool {
    aipc::model::store::cache_dir()
        .join("toolchains")
        .join(target)
        .join("venv/bin/python")
        .exists()
}

fn aipc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_aipc"));
    command.env("AIPC_DATA_DIR", data_dir());
    command
}

#[test]
fn sessions_are_shipped() {
    let sessions = shipped();
    assert!(
        sessions.len() >= 2,
        "expected the shipped recordings under sessions/"
    );
    for s in &sessions {
        let meta = std::fs::read_to_string(s.dir.join("meta.json")).unwrap();
        assert!(
            meta.contains("gemma-3-270m"),
            "{}: not a real-model recording",
            s.dir.display()
        );
        let out = aipc()
            .args(["replay", "--batch"])
            .arg(&s.dir)
            .output()
            .unwrap();
        let transcript = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && transcript.contains("## "),
            "{}: no transcript: {}",
            s.dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_shipped_session_reruns_without_divergence() {
    for s in shipped() {
        assert!(
            venv_ready(&s.target),
            "{}: no {} venv (aipc toolchain setup {}; .ci/run does)",
            s.dir.display(),
            s.target,
            s.target
        );
        let copy = tempfile::tempdir().unwrap();
        let name = Path::new(&s.example).file_name().unwrap().to_str().unwrap();
        copy_example(name, copy.path());
        let started = std::time::Instant::now();
        let out = aipc()
            .args(["rerun", "--quiet", "--json", "--from"])
            .arg(copy.path())
            .arg(&s.dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!(
            "{}: re-run in {:.0} s",
            s.dir.display(),
            started.elapsed().as_secs_f64()
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{} diverged or failed:\n{stdout}\n{stderr}",
            s.dir.display()
        );
        let value: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert!(value["divergence"].is_null(), "{value}");
        assert!(value["compared"].as_u64().unwrap() > 10, "{value}");
    }
}

/// A recorded contract names the target scripts its checks run by file (`$AIPC_TARGET_DIR/...`):
/// each must still be there, under its recorded name or the one the target's toolbox.toml says
/// it was `renamed` to, or the re-run's checks would fail where the recording's passed. Needs no
/// venv.
#[test]
fn every_script_a_shipped_contract_checks_with_is_there() {
    for s in shipped() {
        let meta = std::fs::read_to_string(s.dir.join("meta.json")).unwrap();
        let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
        let mut contract: aipc::contract::Contract =
            serde_json::from_value(meta["contract"].clone()).unwrap();
        let target_dir = data_dir().join("toolbox/targets").join(&contract.target);
        let toolbox = aipc::toolbox::Toolbox::load(&target_dir).unwrap();
        toolbox.upgrade_recorded_contract(&mut contract);
        let mut named = 0;
        for stage in &contract.stages {
            for command in stage.checks.iter().filter_map(|c| c.command.as_deref()) {
                let words = command.split(|c: char| c.is_whitespace() || c == '"' || c == '\'');
                for file in words.filter_map(|w| w.strip_prefix("$AIPC_TARGET_DIR/")) {
                    assert!(
                        target_dir.join(file).is_file(),
                        "{}: stage {}: `{command}` runs {file}, which {} lacks (a renamed \
                         script belongs in `renamed` of its toolbox.toml)",
                        s.dir.display(),
                        stage.name,
                        target_dir.display()
                    );
                    named += 1;
                }
            }
        }
        assert!(
            named > 0,
            "{}: no check runs a target script",
            s.dir.display()
        );
    }
}
