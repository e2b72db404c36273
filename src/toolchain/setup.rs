//! Creating or refreshing a target's venv: `python3 -m venv <venv>`, then
//! `<venv>/bin/python -m pip install --require-hashes --no-deps -r requirements.lock` (or
//! `-r requirements.txt` for a target without a lock) with its output streamed line by line,
//! then the stamp (sha256 of the file installed from and of what is then installed) that marks
//! the venv ready.
//!
//! A venv that already exists is adopted, not rebuilt: `pip install -r` is quick when the pins
//! are already satisfied, and then the stamp is written. `force` removes the venv first.

use super::{probe, requirements_hash, Stamp, Toolchain, VenvState, STAMP_FILE};
use crate::protocol::OutputStream;
use crate::sandbox::Sandbox;
use crate::tools::{run_command, shell_quote as quote, CommandSpec};
use std::path::Path;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Longest a venv creation may take.
pub const VENV_TIMEOUT: Duration = Duration::from_secs(600);
/// Longest `pip install -r` may take (torch is a ~3 GB download).
pub const PIP_TIMEOUT: Duration = Duration::from_secs(2 * 3600);

/// What `setup` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupOutcome {
    /// The target has no requirements.txt: nothing to set up.
    NotNeeded,
    /// The venv was ready for the current requirements and was left as it is.
    Reused,
    /// The requirements were installed; `created` when the venv was made anew.
    Installed { created: bool },
}

/// A step of the setup failed: what, how, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} failed: {detail}\n  hint: {hint}")]
pub struct SetupError {
    pub what: String,
    pub detail: String,
    pub hint: String,
}

/// Make `toolchain`'s venv ready. `progress` receives one line per step and every line of
/// the tools' output; `python` creates the venv (normally `python3`).
pub async fn setup(
    toolchain: &Toolchain,
    force: bool,
    python: &str,
    progress: &(dyn Fn(&str) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<SetupOutcome, SetupError> {
    let Some(venv) = &toolchain.venv else {
        return Ok(SetupOutcome::NotNeeded);
    };
    let target = &toolchain.target;
    let again = format!("then run `aipc toolchain setup {target}` again");
    if !force && toolchain.state() == VenvState::Ready {
        return Ok(SetupOutcome::Reused);
    }
    if force && venv.exists() {
        progress(&format!("removing {} (--force)", venv.display()));
        std::fs::remove_dir_all(venv).map_err(|e| SetupError {
            what: format!("removing {}", venv.display()),
            detail: e.to_string(),
            hint: format!("remove the folder by hand, {again}"),
        })?;
    }
    let (requirements, locked) = toolchain.install_source();
    let hash = requirements_hash(&requirements).map_err(|e| SetupError {
        what: format!("reading {}", requirements.display()),
        detail: e.to_string(),
        hint: format!("restore the file, {again}"),
    })?;
    let created = !venv.join("bin/python").exists();
    if created {
        if let Some(parent) = venv.parent() {
            std::fs::create_dir_all(parent).map_err(|e| SetupError {
                what: format!("creating {}", parent.display()),
                detail: e.to_string(),
                hint: format!("make the cache folder writable (or set AIPC_CACHE_DIR), {again}"),
            })?;
        }
        progress(&format!(
            "creating the venv {} ({python} -m venv)",
            venv.display()
        ));
        let command = format!("{} -m venv {}", quote(python), quote_path(venv));
        step(&command, VENV_TIMEOUT, progress, cancel)
            .await
            .map_err(|detail| SetupError {
                what: format!("`{command}`"),
                detail,
                hint: format!(
                    "{python} needs its venv module (Debian: the python3-venv package), {again}"
                ),
            })?;
    } else {
        progress(&format!(
            "adopting the existing venv {} (pip install -r is quick when the pins are satisfied)",
            venv.display()
        ));
    }
    // A failed install must not leave an old stamp that says "ready".
    let stamp = venv.join(STAMP_FILE);
    let _ = std::fs::remove_file(&stamp);
    progress(&format!(
        "installing {} into {} (pip; the first time downloads the whole toolchain)",
        requirements.display(),
        venv.display()
    ));
    // A lock pins every package with its hashes: pip installs exactly those files and
    // resolves nothing (a tampered or substituted download fails the hash check).
    let pin_flags = if locked {
        " --require-hashes --no-deps"
    } else {
        ""
    };
    let command = format!(
        "{} -m pip install --disable-pip-version-check{pin_flags} -r {}",
        quote_path(&venv.join("bin/python")),
        quote_path(&requirements)
    );
    step(&command, PIP_TIMEOUT, progress, cancel)
        .await
        .map_err(|detail| SetupError {
            what: format!("pip install -r {}", requirements.display()),
            detail,
            hint: format!(
                "check the network and the pins in {}, {again} (`--force` starts from a fresh venv)",
                requirements.display()
            ),
        })?;
    let installed = probe::installed(&venv.join("bin/python")).map_err(|detail| SetupError {
        what: format!("listing what was installed into {}", venv.display()),
        detail,
        hint: format!("`--force` starts from a fresh venv, {again}"),
    })?;
    let stamp_text = Stamp::new(&hash, installed).to_text();
    std::fs::write(&stamp, stamp_text).map_err(|e| SetupError {
        what: format!("writing {}", stamp.display()),
        detail: e.to_string(),
        hint: format!("make {} writable, {again}", venv.display()),
    })?;
    Ok(SetupOutcome::Installed { created })
}

/// Run one setup command, streaming its lines; `Err` says how it failed, with its last lines.
async fn step(
    command: &str,
    timeout: Duration,
    progress: &(dyn Fn(&str) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<(), String> {
    let env = [("PIP_DISABLE_PIP_VERSION_CHECK".to_string(), "1".to_string())];
    let unset = ["PYTHONHOME".to_string(), "VIRTUAL_ENV".to_string()];
    let spec = CommandSpec {
        command,
        cwd: Path::new("/"),
        env: &env,
        env_remove: &unset,
        timeout,
        // The engine's own setup (pip from the package registry, before any session):
        // unconfined, limits only.
        sandbox: &Sandbox::off(Path::new("/")),
        spill: None,
    };
    let on_line = |_: OutputStream, line: &str| progress(line);
    let out = run_command(&spec, cancel, &on_line)
        .await
        .map_err(|e| format!("could not start it: {e}"))?;
    if out.success() {
        return Ok(());
    }
    let how = if out.timed_out {
        format!("timed out after {} s", timeout.as_secs())
    } else if out.cancelled {
        "cancelled".to_string()
    } else {
        match out.exit_code {
            Some(code) => format!("exit code {code}"),
            None => "killed by a signal".to_string(),
        }
    };
    let log = format!("{}{}", out.stdout, out.stderr);
    let last: Vec<&str> = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .rev()
        .take(3)
        .collect();
    let last: Vec<&str> = last.into_iter().rev().collect();
    if last.is_empty() {
        Err(how)
    } else {
        Err(format!("{how}: {}", last.join(" / ")))
    }
}

fn quote_path(path: &Path) -> String {
    quote(&path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_target_without_requirements_needs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("toolbox/targets/plain")).unwrap();
        let toolchain =
            Toolchain::locate_in(&dir.path().join("toolbox"), "plain", &dir.path().join("c"));
        let outcome = setup(
            &toolchain,
            false,
            "python3",
            &|_| {},
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(outcome, SetupOutcome::NotNeeded);
    }

    #[tokio::test]
    async fn a_failing_venv_creation_says_what_failed_and_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("toolbox/targets/pinned");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("requirements.txt"), "\n").unwrap();
        let toolchain =
            Toolchain::locate_in(&dir.path().join("toolbox"), "pinned", &dir.path().join("c"));
        let err = setup(
            &toolchain,
            false,
            "/nonexistent/python3",
            &|_| {},
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
        assert!(err.what.contains("-m venv"), "{err}");
        assert!(err.hint.contains("aipc toolchain setup pinned"), "{err}");
        assert_eq!(toolchain.state(), VenvState::Missing);
    }
}
