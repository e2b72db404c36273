//! The sandbox every command of a session runs in: the model's `run` calls, the toolbox
//! scripts and the stage checks (not the engine's own toolchain setup, which installs from the
//! package registry before the session starts).
//!
//! Policy (`strict`, the default): the session worktree is the only writable place besides a
//! private `/tmp`; everything else — the toolbox, prompts, skills, venvs, the model, the session
//! folder with its log, the user's checkout and `.git` — is read-only; the worktree's own `.git`
//! link is read-only too; the network is off; processes live in their own PID namespace (a
//! double-forked or `setsid` child dies with the command) and session (no terminal to inject
//! into); no capabilities; the environment is reduced to an allow-list ([`env`]); and each
//! command gets resource limits ([`limits`]). `workspace-write` is the same with the network
//! on. `off` runs commands as plain child processes (process group and limits only) and is only
//! ever chosen by the engineer's explicit `--sandbox off`, which the log and report record.
//!
//! The mechanism is bubblewrap (`bwrap`, Debian package `bubblewrap`), probed when the session
//! starts: a sandbox that cannot start ends the start with exit 3 and what to install — never a
//! silent fallback to running unsandboxed.

pub(crate) mod bwrap;
pub(crate) mod cgroup;
pub(crate) mod env;
pub(crate) mod limits;

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub use limits::Limits;

/// How strictly commands are confined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Worktree writable, everything else read-only, network off, secrets out of the
    /// environment, own PID namespace.
    #[default]
    Strict,
    /// As strict, with the network on.
    WorkspaceWrite,
    /// No sandbox (process group and resource limits only). Only by an explicit flag.
    Off,
}

impl SandboxMode {
    /// The word used in contracts, flags, the log and the report.
    pub fn word(self) -> &'static str {
        match self {
            SandboxMode::Strict => "strict",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::Off => "off",
        }
    }
}

/// Why a sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "the command sandbox needs bubblewrap (`bwrap`), which is not on PATH: install it \
         (`apt-get install bubblewrap`), or run without a sandbox with `--sandbox off` (recorded \
         in the session)"
    )]
    Missing,
    #[error(
        "the command sandbox (bubblewrap at {bwrap}) cannot start here: {detail}. Enable user \
         namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as a user allowed to \
         create them, or run without a sandbox with `--sandbox off` (recorded in the session)"
    )]
    CannotStart { bwrap: String, detail: String },
    #[error("the worktree {path} cannot be resolved: {detail}")]
    Workspace { path: String, detail: String },
}

/// A ready sandbox: how to wrap one shell command of the session.
#[derive(Debug, Clone)]
pub struct Sandbox {
    mode: SandboxMode,
    /// The `bwrap` binary (none when the mode is off).
    bwrap: Option<PathBuf>,
    /// The session worktree (canonical).
    workspace: PathBuf,
    /// False: the worktree is read-only except its `build/` folder (a stage that denies the
    /// file-writing tools denies the same effect through `run`).
    workspace_writable: bool,
    /// Read-only paths that must stay visible even where `/tmp` is replaced (e.g. a venv or a
    /// toolbox under `/tmp`).
    visible: Vec<PathBuf>,
    limits: Limits,
    /// `bwrap --version`, for the log.
    version: String,
}

impl Sandbox {
    /// A sandbox of `mode` around `workspace`; `visible` are read-only paths the commands need
    /// (toolbox, venv, session folder). Probes bubblewrap unless the mode is off.
    pub fn new(
        mode: SandboxMode,
        workspace: &Path,
        visible: &[PathBuf],
        limits: Limits,
    ) -> Result<Sandbox, SandboxError> {
        let workspace = workspace
            .canonicalize()
            .map_err(|e| SandboxError::Workspace {
                path: workspace.display().to_string(),
                detail: e.to_string(),
            })?;
        let visible = visible
            .iter()
            .filter_map(|p| p.canonicalize().ok())
            .collect();
        let mut sandbox = Sandbox {
            mode,
            bwrap: None,
            workspace,
            workspace_writable: true,
            visible,
            limits,
            version: String::new(),
        };
        if mode != SandboxMode::Off {
            let (bwrap, version) = bwrap::probe(&sandbox)?;
            sandbox.bwrap = Some(bwrap);
            sandbox.version = version;
        }
        Ok(sandbox)
    }

    /// No confinement (the engineer's `--sandbox off`, and unit tests of the process runner).
    pub fn off(workspace: &Path) -> Sandbox {
        Sandbox {
            mode: SandboxMode::Off,
            bwrap: None,
            workspace: workspace.to_path_buf(),
            workspace_writable: true,
            visible: Vec::new(),
            limits: Limits::default(),
            version: String::new(),
        }
    }

    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// `bubblewrap 0.8.0`, or empty when the mode is off.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The same sandbox with the worktree read-only except `build/`.
    pub fn with_read_only_workspace(&self) -> Sandbox {
        Sandbox {
            workspace_writable: false,
            ..self.clone()
        }
    }

    pub fn workspace_writable(&self) -> bool {
        self.workspace_writable
    }

    /// Whether commands can reach the network.
    pub fn network(&self) -> bool {
        self.mode != SandboxMode::Strict
    }

    /// The program and arguments that run `sh -c <command>` in `cwd` inside the sandbox.
    pub fn argv(&self, command: &str, cwd: &Path) -> (PathBuf, Vec<String>) {
        match &self.bwrap {
            Some(bwrap) if self.mode != SandboxMode::Off => {
                let mut args = bwrap::arguments(self, cwd);
                args.extend(["--", "sh", "-c", command].map(String::from));
                (bwrap.clone(), args)
            }
            _ => (
                PathBuf::from("sh"),
                vec!["-c".to_string(), command.to_string()],
            ),
        }
    }

    /// The environment a command gets from `full` (the inherited one with the session's
    /// variables applied): the allow-list, unless the mode is off. Temporary files and caches
    /// go to the private `/tmp` (the home folder is read-only; onnxruntime, for one, warns on
    /// every import when it cannot write its cache there).
    pub fn environment(&self, full: Vec<(String, String)>) -> Vec<(String, String)> {
        if self.mode == SandboxMode::Off {
            return full;
        }
        let mut kept = env::allowed(full);
        let private = [("TMPDIR", "/tmp"), ("XDG_CACHE_HOME", "/tmp/.cache")];
        kept.retain(|(k, _)| !private.iter().any(|(name, _)| k == name));
        kept.extend(private.map(|(k, v)| (k.to_string(), v.to_string())));
        kept
    }

    /// One line for the log and the report.
    pub fn describe(&self) -> String {
        match self.mode {
            SandboxMode::Off => "off: commands run unconfined (--sandbox off)".to_string(),
            mode => format!(
                "{}: {} writable{}, network {}, environment allow-listed, {}",
                mode.word(),
                self.workspace.display(),
                if self.workspace_writable {
                    ""
                } else {
                    " (build/ only)"
                },
                if self.network() { "on" } else { "off" },
                self.limits.describe()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_and_write_as_their_words() {
        for mode in [
            SandboxMode::Strict,
            SandboxMode::WorkspaceWrite,
            SandboxMode::Off,
        ] {
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.word()));
            assert_eq!(serde_json::from_str::<SandboxMode>(&json).unwrap(), mode);
        }
    }

    #[test]
    fn off_runs_plain_sh_with_the_full_environment() {
        let sandbox = Sandbox::off(Path::new("/w"));
        let (program, args) = sandbox.argv("echo hi", Path::new("/w"));
        assert_eq!(program, PathBuf::from("sh"));
        assert_eq!(args, ["-c", "echo hi"]);
        let env = vec![("AIPC_API_KEY".to_string(), "s".to_string())];
        assert_eq!(sandbox.environment(env.clone()), env);
    }
}
