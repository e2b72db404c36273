//! The bubblewrap command line that realises a [`Sandbox`]'s policy, and the probe that
//! checks it can start on this machine before a session begins.
//!
//! Mount order matters (later mounts cover earlier ones): the whole filesystem read-only, fresh
//! `/dev`, `/proc` and a private `/tmp`, the read-only paths that lived under `/tmp` again, the
//! worktree writable (or only its `build/`), the worktree's `.git` link read-only, and
//! credential files of the home folder masked.

use super::{Sandbox, SandboxError, SandboxMode};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Credential files and folders under `$HOME` that commands never see (masked with an empty
/// file or folder), even read-only.
const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".config/gcloud",
    ".config/gh",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

/// The `bwrap` arguments (before `--`) for a command in `cwd`.
pub(crate) fn arguments(sandbox: &Sandbox, cwd: &Path) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let mut push = |words: &[&str]| args.extend(words.iter().map(|w| w.to_string()));
    push(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    push(&["--tmpfs", "/tmp"]);
    let tmp = Path::new("/tmp");
    for path in &sandbox.visible {
        if path.starts_with(tmp) && !path.starts_with(&sandbox.workspace) {
            let p = path.display().to_string();
            push(&["--ro-bind-try", &p, &p]);
        }
    }
    let ws = sandbox.workspace.display().to_string();
    if sandbox.workspace_writable {
        push(&["--bind", &ws, &ws]);
    } else {
        push(&["--ro-bind", &ws, &ws]);
        let build = sandbox.workspace.join("build");
        // bwrap needs the mount point; the folder is the stage's artifact output anyway.
        let _ = std::fs::create_dir_all(&build);
        let build = build.display().to_string();
        push(&["--bind-try", &build, &build]);
    }
    let git_link = sandbox.workspace.join(".git").display().to_string();
    push(&["--ro-bind-try", &git_link, &git_link]);
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        for secret in HOME_SECRETS {
            let path = home.join(secret);
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let p = path.display().to_string();
            if meta.is_dir() {
                push(&["--tmpfs", &p]);
            } else {
                push(&["--ro-bind", "/dev/null", &p]);
            }
        }
    }
    push(&[
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]);
    if sandbox.mode == SandboxMode::Strict {
        push(&["--unshare-net"]);
    }
    push(&["--die-with-parent", "--new-session", "--cap-drop", "ALL"]);
    let cwd = cwd.display().to_string();
    push(&["--chdir", &cwd]);
    args
}

/// Find `bwrap`, read its version, and run `true` in the sandbox once: the error says what to
/// install or change when it cannot start.
pub(crate) fn probe(sandbox: &Sandbox) -> Result<(PathBuf, String), SandboxError> {
    let bwrap = find_on_path("bwrap").ok_or(SandboxError::Missing)?;
    let shown = bwrap.display().to_string();
    let run = |args: &[String]| {
        Command::new(&bwrap)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| SandboxError::CannotStart {
                bwrap: shown.clone(),
                detail: e.to_string(),
            })
    };
    let version = run(&["--version".to_string()])?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let mut args = arguments(sandbox, &sandbox.workspace);
    args.extend(["--", "true"].map(String::from));
    let out = run(&args)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(SandboxError::CannotStart {
            bwrap: shown,
            detail: format!(
                "`bwrap … true` exited with {}: {}",
                out.status,
                stderr.trim().chars().take(400).collect::<String>()
            ),
        });
    }
    Ok((bwrap, version))
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .map(|m| {
                    m.is_file()
                        && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
                })
                .unwrap_or(false)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Limits;

    fn sandbox(mode: SandboxMode, ws: &Path, visible: &[PathBuf]) -> Sandbox {
        Sandbox {
            mode,
            bwrap: Some(PathBuf::from("/usr/bin/bwrap")),
            workspace: ws.to_path_buf(),
            workspace_writable: true,
            visible: visible.to_vec(),
            limits: Limits::default(),
            version: String::new(),
        }
    }

    fn position(args: &[String], words: &[&str]) -> Option<usize> {
        args.windows(words.len())
            .position(|w| w.iter().zip(words).all(|(a, b)| a == b))
    }

    #[test]
    fn strict_turns_the_network_off_and_workspace_write_does_not() {
        let ws = Path::new("/home/u/p/.aipc/sessions/s/worktree");
        let strict = arguments(&sandbox(SandboxMode::Strict, ws, &[]), ws);
        assert!(strict.contains(&"--unshare-net".to_string()));
        let open = arguments(&sandbox(SandboxMode::WorkspaceWrite, ws, &[]), ws);
        assert!(!open.contains(&"--unshare-net".to_string()));
    }

    #[test]
    fn the_worktree_is_bound_after_tmp_and_its_git_link_after_it() {
        let ws = Path::new("/tmp/t/p/.aipc/sessions/s/worktree");
        let venv = PathBuf::from("/tmp/t/venv");
        let args = arguments(&sandbox(SandboxMode::Strict, ws, &[venv]), ws);
        let tmp = position(&args, &["--tmpfs", "/tmp"]).unwrap();
        let venv = position(&args, &["--ro-bind-try", "/tmp/t/venv"]).unwrap();
        let bind = position(&args, &["--bind", &ws.display().to_string()]).unwrap();
        let git = position(
            &args,
            &["--ro-bind-try", &ws.join(".git").display().to_string()],
        )
        .unwrap();
        assert!(tmp < venv && venv < bind && bind < git, "{args:?}");
    }
}
