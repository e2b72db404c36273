//! A pids cgroup per command, where this process may make one (cgroup v1's `pids` hierarchy,
//! or cgroup v2 with the `pids` controller): the command joins it before it executes, so it
//! and everything it starts — `setsid` and double-forked children included — are counted
//! against `pids.max` (a fork bomb stops there instead of exhausting the host) and are killed
//! together when the command ends, with or without the sandbox's PID namespace.
//!
//! Where no cgroup can be made (not root, no delegated hierarchy), commands run without one:
//! the PID namespace still ends them, but a fork bomb is bounded only by the timeout.

use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long [`CommandCgroup`]'s drop keeps killing stragglers before it gives up removing the
/// folder.
const REMOVE_PATIENCE: Duration = Duration::from_millis(500);

/// One command's cgroup; killed and removed when dropped.
#[derive(Debug)]
pub(crate) struct CommandCgroup {
    dir: PathBuf,
    /// `cgroup.procs`, open for the child to write "0" into (join) between fork and exec.
    procs: std::fs::File,
}

impl CommandCgroup {
    /// A new cgroup allowing `max_pids` tasks, or `None` where none can be made here.
    pub(crate) fn create(max_pids: u64) -> Option<CommandCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = pids_base()?;
        let dir = base.join(format!(
            "aipc-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir).ok()?;
        let made = std::fs::write(dir.join("pids.max"), max_pids.to_string()).and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
        });
        match made {
            Ok(procs) => Some(CommandCgroup { dir, procs }),
            Err(_) => {
                let _ = std::fs::remove_dir(&dir);
                None
            }
        }
    }

    /// The descriptor the child writes "0" into to join (see [`join`]).
    pub(crate) fn procs_fd(&self) -> RawFd {
        self.procs.as_raw_fd()
    }

    /// SIGKILL every process in the cgroup (v2: `cgroup.kill`; v1: each listed pid). Returns
    /// how many were still there.
    pub(crate) fn kill_all(&self) -> usize {
        let kill_file = self.dir.join("cgroup.kill");
        if kill_file.exists() {
            let _ = std::fs::write(&kill_file, "1");
        }
        let pids = members(&self.dir);
        for pid in &pids {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(*pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        pids.len()
    }
}

impl Drop for CommandCgroup {
    fn drop(&mut self) {
        let deadline = std::time::Instant::now() + REMOVE_PATIENCE;
        loop {
            self.kill_all();
            if std::fs::remove_dir(&self.dir).is_ok() || std::time::Instant::now() > deadline {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Join the cgroup whose `cgroup.procs` is open as `fd`. Runs between fork and exec: one
/// `write` call, no allocation.
pub(crate) fn join(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: `fd` stays open in the parent (and so in the child) for the command's lifetime.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    nix::unistd::write(fd, b"0")
        .map(|_| ())
        .map_err(std::io::Error::from)
}

/// The pids of a cgroup's processes.
fn members(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// The folder of this process's own pids cgroup, where children can be made.
fn pids_base() -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            let base = Path::new("/sys/fs/cgroup/pids").join(path);
            // A cgroup has pids.max; the hierarchy's root has none, but its tasks file.
            let usable = base.join("pids.max").exists() || base.join("tasks").exists();
            return usable.then_some(base);
        }
        if id == "0" && controllers.is_empty() {
            let root = Path::new("/sys/fs/cgroup");
            let controllers = std::fs::read_to_string(root.join("cgroup.controllers")).ok()?;
            if controllers.split_whitespace().any(|c| c == "pids") {
                return Some(root.join(path));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cgroup_counts_and_kills_what_joined_it_where_one_can_be_made() {
        let Some(cgroup) = CommandCgroup::create(64) else {
            // Root on a machine with a pids hierarchy (as CI's) must get one.
            let root = nix::unistd::geteuid().is_root();
            assert!(
                !(root && Path::new("/sys/fs/cgroup/pids").exists()),
                "root could not make a pids cgroup"
            );
            return;
        };
        let fd = cgroup.procs_fd();
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "setsid sleep 30 & sleep 30"]);
        // SAFETY: `join` only writes to an open descriptor.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, move || join(fd));
        }
        let mut child = command.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(members(&cgroup.dir).len() >= 2);
        let dir = cgroup.dir.clone();
        drop(cgroup);
        let _ = child.wait();
        assert!(!dir.exists());
    }
}
