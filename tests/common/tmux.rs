//! A tmux harness for the end-to-end tests that drive the real binary in a real terminal: a
//! private tmux server (its socket in a temp dir), keys with `send-keys`, the screen with
//! `capture-pane`, waits with a timeout that prints the screen.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long one step may take (a debug binary, python3 checks, a loaded machine).
pub const STEP_TIMEOUT: Duration = Duration::from_secs(90);

pub struct Tmux {
    socket: PathBuf,
    target: String,
}

impl Tmux {
    /// A tmux server of our own (its socket in `dir`, removed with it), running `command` in a
    /// `width` × `height` window of session `name` that stays after the command exits.
    pub fn start(dir: &Path, name: &str, width: u16, height: u16, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: dir.join("tmux.sock"),
            target: name.to_string(),
        };
        let status = tmux
            .command()
            .args(["new-session", "-d", "-s", name])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .arg(command)
            .args([";", "set-option", "-t", name, "remain-on-exit", "on"])
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        tmux
    }

    pub fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"]);
        command
    }

    pub fn screen(&self) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p", "-t", &self.target])
            .output()
            .expect("tmux capture-pane runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Type text literally.
    pub fn type_text(&self, text: &str) {
        let status = self
            .command()
            .args(["send-keys", "-t", &self.target, "-l", text])
            .status()
            .expect("tmux send-keys runs");
        assert!(status.success());
    }

    /// Press a key: a character, or a tmux key name (`Enter`, `Escape`, `Space`, `Home`).
    pub fn press(&self, key: &str) {
        let status = self
            .command()
            .args(["send-keys", "-t", &self.target, key])
            .status()
            .expect("tmux send-keys runs");
        assert!(status.success());
    }

    /// Wait until the screen shows `text`; the screen at that moment.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_until(text, |screen| screen.contains(text))
    }

    /// Wait until `done` holds for the screen; the screen at that moment.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if started.elapsed() > STEP_TIMEOUT {
                panic!("waited {STEP_TIMEOUT:?} for {what:?}; the screen:\n{screen}");
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

pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// `path` quoted for the shell command tmux runs.
pub fn quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
