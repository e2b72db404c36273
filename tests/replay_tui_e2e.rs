//! The interactive replay in a real terminal: `aipc replay <session> --speed 16` inside tmux,
//! driven with `send-keys` and read with `capture-pane`. The events play (the position on the
//! timeline moves), space pauses (the position stays), Home goes back to the start, `f` jumps
//! to the first failure (the timeline lands just after it and the screen shows it), and `q`
//! quits with exit code 0.
//!
//! Skipped (with a message) when tmux is not installed.

mod common;

use aipc::session::{Recording, SessionPaths};
use common::tmux::{quote, tmux_available, Tmux, STEP_TIMEOUT};
use common::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The recorded session the test replays: a shipped real-model recording (sessions/README.md)
/// whose export fails on `aten.median.dim` before the model repairs it — the failure the test
/// jumps to.
fn session_to_replay() -> PathBuf {
    data_dir().join("sessions/digits-unsupported-op-onnxruntime")
}

/// The timeline's state: (playing, position, total), from its `▶ playing 16× │ 38/168 │` row.
fn timeline(screen: &str) -> Option<(bool, usize, usize)> {
    let line = screen
        .lines()
        .find(|l| l.contains("▶ playing") || l.contains("‖ paused"))?;
    let playing = line.contains("▶ playing");
    let counts = line.split('│').nth(1)?.trim();
    let (position, total) = counts.split_once('/')?;
    Some((playing, position.parse().ok()?, total.parse().ok()?))
}

#[test]
fn replay_plays_pauses_jumps_to_a_failure_and_quits() {
    assert!(
        tmux_available(),
        "tmux is not installed; install it to run the replay end-to-end test (.ci/run installs it)"
    );
    let session = session_to_replay();
    let recording = Recording::open(&SessionPaths::from_dir(&session)).unwrap();
    let first_failure = recording
        .index()
        .failures
        .first()
        .cloned()
        .expect("the session has a failure to jump to");
    let total = recording.len();

    let work = tempfile::tempdir().unwrap();
    let exit_file = work.path().join("exit-code");
    let command = format!(
        "env AIPC_DATA_DIR={data} {bin} replay {session} --speed 16; echo $? > {exit}",
        data = quote(&data_dir()),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_aipc"))),
        session = quote(&session),
        exit = quote(&exit_file),
    );
    let tmux = Tmux::start(work.path(), "replay", 120, 40, &command);

    // The events play: the position moves off the start.
    tmux.wait_until("events to play", |s| {
        timeline(s).is_some_and(|(_, position, _)| position > 0)
    });
    // Space pauses. (A short recording at 16× may already have played to its end and
    // paused there; space then plays it again from the start, and a second space pauses.)
    tmux.press("Space");
    std::thread::sleep(Duration::from_millis(300));
    if timeline(&tmux.screen()).is_some_and(|(playing, _, _)| playing) {
        tmux.press("Space");
    }
    let screen = tmux.wait_until("the replay to pause", |s| {
        timeline(s).is_some_and(|(playing, _, _)| !playing)
    });
    let (_, paused_at, shown_total) = timeline(&screen).unwrap();
    assert_eq!(shown_total, total, "{screen}");
    std::thread::sleep(Duration::from_millis(500));
    let (playing, still_at, _) = timeline(&tmux.screen()).unwrap();
    assert!(!playing && still_at == paused_at, "paused means paused");

    // Home, then f: just after the first failure, which the screen shows.
    tmux.press("Home");
    tmux.wait_until("the start", |s| {
        timeline(s).is_some_and(|(_, position, _)| position == 0)
    });
    tmux.press("f");
    let screen = tmux.wait_until("the jump to the failure", |s| {
        timeline(s).is_some_and(|(_, position, _)| position == first_failure.pos + 1)
    });
    assert!(screen.contains("failure 1/"), "{screen}");
    assert!(screen.contains('✘'), "the failure is on screen:\n{screen}");
    if first_failure.label.starts_with("check failed") {
        assert!(screen.contains("check ✘"), "{screen}");
    }

    // q quits, exit code 0.
    tmux.press("q");
    let started = Instant::now();
    let code = loop {
        if let Ok(text) = std::fs::read_to_string(&exit_file) {
            if !text.trim().is_empty() {
                break text.trim().to_string();
            }
        }
        assert!(
            started.elapsed() < STEP_TIMEOUT,
            "aipc did not exit after q; the screen:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(code, "0", "exit code; the screen:\n{}", tmux.screen());
}
