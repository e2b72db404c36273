//! Stop signals against the real binary: SIGTERM, SIGHUP and SIGINT while a command runs abort
//! the session — the command and everything it started are killed, the log ends with
//! `session_finished` (aborted), the exit code is 4 — promptly.

mod common;

use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The session log under `project`, once there is one.
fn events_file(project: &Path) -> Option<PathBuf> {
    let sessions = project.join(".aipc/sessions");
    std::fs::read_dir(sessions)
        .ok()?
        .flatten()
        .map(|e| e.path().join("events.jsonl"))
        .find(|p| p.exists())
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn abort_with(signal: Signal, seconds: u32) {
    let project = git_project();
    // A number nothing else on the machine sleeps for.
    let marker = format!("{}{seconds}", 7_000_000 + std::process::id());
    let command = format!(
        r#"{{"tool": "run", "args": {{"command": "setsid sleep {marker} & (sleep {marker} &); sleep {marker}"}}}}"#
    );
    let replies = project
        .path()
        .parent()
        .unwrap()
        .join(format!("sleeper-{}.jsonl", signal.as_str()));
    std::fs::write(&replies, calls::script(&[&command, calls::FINISH])).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_aipc"))
        .env("AIPC_DATA_DIR", data_dir())
        .args(["run", "--target", "python-reference", "--batch", "--model"])
        .arg(format!("scripted:{}", replies.display()))
        .arg(project.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("the command to start", Duration::from_secs(60), || {
        processes_with(&format!("sleep {marker}")).len() >= 3
    });
    let events = events_file(project.path()).unwrap();
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let sent = Instant::now();
    let mut status = None;
    wait_until("aipc to exit", Duration::from_secs(20), || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    let took = sent.elapsed();
    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
    assert_eq!(status.unwrap().code(), Some(4), "{signal}: {stderr}");
    // The issue's bound is 2 s; the margin is for a loaded CI machine (the reliability suite
    // reports the measured time).
    assert!(took < Duration::from_secs(4), "{signal}: took {took:?}");
    assert!(
        stderr.contains(&format!("{}: aborting", signal.as_str())),
        "{stderr}"
    );
    let log = std::fs::read_to_string(&events).unwrap();
    let last: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "session_finished", "{signal}");
    assert_eq!(last["outcome"], "aborted", "{signal}");
    wait_until("the sleepers to be gone", Duration::from_secs(2), || {
        processes_with(&format!("sleep {marker}")).is_empty()
    });
}

#[test]
fn sigterm_aborts_the_session() {
    abort_with(Signal::SIGTERM, 1);
}

#[test]
fn sighup_aborts_the_session() {
    abort_with(Signal::SIGHUP, 2);
}

#[test]
fn sigint_aborts_the_session() {
    abort_with(Signal::SIGINT, 3);
}
