//! The interactive replay in a real terminal: `aipc replay <session> --speed 16` inside tmux,
//! driven with `send-keys` and read with `capture-pane`. The events play (the position on the
//! timeline moves), space pauses (the position stays), Home goes back to the start, `f` jumps
//! to the first failure (the timeline lands just after it and the screen shows it), and `q`
//! quits with exit code 0.
//!
//! Skipped (with a message) when tmux is not installed.

mod common;

use aipc::session::{Recording, SessionPaths};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long one step may take (a debug binary on a loaded machine).
const STEP_TIMEOUT: Duration = Duration::from_secs(90);

/// The recorded session the test replays: a shipped real-model recording (sessions/README.md)
/// whose export fails on `aten.median.dim` before the model repairs it — the failure the test
/// jumps to.
fn session_to_replay() -> PathBuf {
    data_dir().join("sessions/digits-unsupported-op-onnxruntime")
}

struct Tmux {
    socket: PathBuf,
    target: String,
}

impl Tmux {
    /// A tmux server of our own (its socket in `dir`), running `command` in a `width` ×
    /// `height` window that stays after the command exits.
    fn start(dir: &Path, width: u16, height: u16, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: dir.join("tmux.sock"),
            target: "replay".to_string(),
        };
        let status = tmux
            .command()
            .args(["new-session", "-d", "-s", &tmux.target])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .arg(command)
            .args([";", "set-option", "-t", "replay", "remain-on-exit", "on"])
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        tmux
    }

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"]);
        command
    }

    fn screen(&self) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p", "-t", &self.target])
            .output()
            .expect("tmux capture-pane runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Press a key: a character, or a tmux key name (`Space`, `Home`).
    fn press(&self, key: &str) {
        let status = self
            .command()
            .args(["send-keys", "-t", &self.target, key])
            .status()
            .expect("tmux send-keys runs");
        assert!(status.success());
    }

    /// Wait until `done` holds for the screen; the screen at that moment.
    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if started.elapsed() > STEP_TIMEOUT {
                panic!("waited {STEP_TIMEOUT:?} for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").status();
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|out| out.status.success())
}

fn quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
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
    if !tmux_available() {
        eprintln!("SKIPPED: tmux is not installed; install it to run the replay end-to-end test");
        return;
    }
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
    let tmux = Tmux::start(work.path(), 120, 40, &command);

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
