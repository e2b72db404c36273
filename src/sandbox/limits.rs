//! Per-command resource limits, set with `setrlimit` in the child before it executes (so they
//! hold for the sandbox and everything it starts): address space, CPU time (a backstop behind
//! the wall-clock timeout), size of any one file written, open files, no core dumps.
//!
//! The number of tasks is limited by a pids cgroup where one can be made
//! ([`super::cgroup`]); memory by `RLIMIT_AS` (a cgroup memory limit would need a delegated
//! memory hierarchy, which machines of this kind do not give this process).

use nix::sys::resource::{setrlimit, Resource};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Default address-space limit: three quarters of physical memory.
const DEFAULT_MEMORY_SHARE: f64 = 0.75;
/// Default limit on one written file (an LLM's `.pte` can be several GB).
pub const DEFAULT_FILE_BYTES: u64 = 32 << 30;
/// Default open-file limit.
pub const DEFAULT_OPEN_FILES: u64 = 8192;
/// Default limit on a command's tasks (processes and threads), where a pids cgroup can be
/// made ([`super::cgroup`]): room for a toolchain's thread pools, not for a fork bomb.
pub const DEFAULT_MAX_PIDS: u64 = 4096;

/// What one command may use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Address space of each process, bytes (`None`: unlimited).
    pub memory_bytes: Option<u64>,
    /// Largest file a process may write, bytes.
    pub file_bytes: u64,
    pub open_files: u64,
    /// Tasks (processes and threads) of one command, where a pids cgroup can be made.
    pub max_pids: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: physical_memory().map(|m| (m as f64 * DEFAULT_MEMORY_SHARE) as u64),
            file_bytes: DEFAULT_FILE_BYTES,
            open_files: DEFAULT_OPEN_FILES,
            max_pids: DEFAULT_MAX_PIDS,
        }
    }
}

impl Limits {
    /// The defaults with the contract's memory limit, when it sets one.
    pub fn with_memory_mb(memory_mb: Option<u64>) -> Limits {
        let mut limits = Limits::default();
        if let Some(mb) = memory_mb {
            limits.memory_bytes = Some(mb.saturating_mul(1 << 20));
        }
        limits
    }

    /// For the log: `memory 18 GiB, files 32 GiB, 8192 open files`.
    pub fn describe(&self) -> String {
        let gib = |b: u64| format!("{:.0} GiB", b as f64 / (1u64 << 30) as f64);
        format!(
            "memory {}, files {}, {} open files, {} tasks, CPU time 2 x timeout x cores",
            self.memory_bytes.map_or("unlimited".to_string(), gib),
            gib(self.file_bytes),
            self.open_files,
            self.max_pids
        )
    }

    /// Apply to the calling process. Runs between `fork` and `exec` (only `setrlimit` calls:
    /// async-signal-safe). A limit above the current hard limit is lowered to it.
    pub fn apply(&self, timeout: Duration, cores: u64) -> std::io::Result<()> {
        let set = |resource: Resource, value: u64| -> std::io::Result<()> {
            let (_, hard) = nix::sys::resource::getrlimit(resource)?;
            let value = value.min(hard);
            setrlimit(resource, value, hard).map_err(std::io::Error::from)
        };
        if let Some(bytes) = self.memory_bytes {
            set(Resource::RLIMIT_AS, bytes)?;
        }
        set(Resource::RLIMIT_FSIZE, self.file_bytes)?;
        set(Resource::RLIMIT_NOFILE, self.open_files)?;
        set(Resource::RLIMIT_CORE, 0)?;
        let cpu = timeout
            .as_secs()
            .saturating_add(1)
            .saturating_mul(2)
            .saturating_mul(cores.max(1));
        set(Resource::RLIMIT_CPU, cpu)?;
        Ok(())
    }
}

/// Physical memory in bytes, from `/proc/meminfo`.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_leave_room_for_a_toolchain() {
        let limits = Limits::default();
        // torch alone maps ~3.3 GB of address space on import.
        if let Some(bytes) = limits.memory_bytes {
            assert!(bytes > 4 << 30, "{bytes}");
        }
        assert!(limits.describe().contains("open files"));
        assert_eq!(
            Limits::with_memory_mb(Some(512)).memory_bytes,
            Some(512 << 20)
        );
    }
}
