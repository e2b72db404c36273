//! Processes a killed session left running: the commands its tools and checks started (they
//! run in process groups of their own, so killing aipc does not end them). Left alone, one
//! could still write into the worktree while the resumed session works there.
//!
//! They are recognised by the environment the engine gives every command,
//! `AIPC_SESSION_DIR=<the session folder>` — so an engineer's own shell in the worktree is never
//! touched. And a session whose log some process still holds open is not dead at all: it is
//! running, and must not be resumed ([`holders`]). Linux only (`/proc`); elsewhere nothing is
//! found.

use std::path::Path;
use std::time::{Duration, Instant};

/// The pids of processes started for the session stored in `session_dir`.
pub fn find(session_dir: &Path) -> Vec<i32> {
    let needle = format!("AIPC_SESSION_DIR={}", session_dir.display());
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        // Unreadable (another user's, or gone): not ours.
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
        {
            pids.push(pid);
        }
    }
    pids.sort_unstable();
    pids
}

/// The pids (other than this process) that hold `file` open — for a session's `events.jsonl`,
/// the aipc process that is running the session. Linux only; elsewhere none are found.
pub fn holders(file: &Path) -> Vec<i32> {
    let Ok(target) = file.canonicalize() else {
        return Vec::new();
    };
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        if fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|link| link == target))
        {
            pids.push(pid);
        }
    }
    pids.sort_unstable();
    pids
}

/// The holders of `file` that are still there after `patience`: a process that aipc forked
/// just before it was killed holds every descriptor of aipc's until it executes its command
/// (joining the command's cgroup can take tens of milliseconds), and must not make a dead
/// session look like a running one.
pub fn lasting_holders(file: &Path, patience: Duration) -> Vec<i32> {
    let deadline = Instant::now() + patience;
    loop {
        let pids = holders(file);
        if pids.is_empty() || Instant::now() >= deadline {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// How long [`lasting_holders`] waits for a transient holder to let go.
pub const HOLDER_PATIENCE: Duration = Duration::from_secs(2);

/// Wait up to `grace` for the session's leftover processes to end, then kill the rest.
/// Returns the pids that had to be killed.
pub fn stop(session_dir: &Path, grace: Duration) -> Vec<i32> {
    let deadline = Instant::now() + grace;
    loop {
        let pids = find(session_dir);
        if pids.is_empty() {
            return Vec::new();
        }
        if Instant::now() >= deadline {
            for &pid in &pids {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            // Give the kernel a moment to take them down before the worktree is reset.
            let until = Instant::now() + Duration::from_secs(2);
            while !find(session_dir).is_empty() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(20));
            }
            return pids;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_holding_the_log_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("events.jsonl");
        std::fs::write(&log, "").unwrap();
        assert!(holders(&log).is_empty(), "this process does not count");
        let mut holder = std::process::Command::new("sh")
            .arg("-c")
            .arg("exec 3<\"$1\"; exec sleep 30")
            .arg("sh")
            .arg(&log)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while holders(&log).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(holders(&log), vec![holder.id() as i32]);
        holder.kill().unwrap();
        holder.wait().unwrap();
        assert!(holders(&log).is_empty());
    }

    #[test]
    fn finds_and_stops_only_processes_of_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s1");
        let mut ours = std::process::Command::new("sleep")
            .arg("30")
            .env("AIPC_SESSION_DIR", &session)
            .spawn()
            .unwrap();
        let mut other = std::process::Command::new("sleep")
            .arg("30")
            .env("AIPC_SESSION_DIR", dir.path().join("s2"))
            .spawn()
            .unwrap();
        assert_eq!(find(&session), vec![ours.id() as i32]);
        assert_eq!(
            stop(&session, Duration::from_millis(50)),
            vec![ours.id() as i32]
        );
        assert!(ours.wait().is_ok());
        assert!(find(&session).is_empty());
        other.kill().unwrap();
        other.wait().unwrap();
    }
}
