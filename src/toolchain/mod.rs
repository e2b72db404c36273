//! Toolchain environments: where a target's Python toolchain lives and what every command of a
//! session sees.
//!
//! A target whose folder holds a `requirements.txt` gets one venv under the user's cache,
//! `<cache>/toolchains/<target>/venv` (cache = `~/.cache/aipc`, `$XDG_CACHE_HOME` and
//! `$AIPC_CACHE_DIR` honoured, as for the model store). A stamp file in the venv records the
//! sha256 of the `requirements.txt` it was installed from, so the venv is *missing* (no python
//! in it), *stale* (no stamp, or the requirements changed since) or *ready*. A target without
//! `requirements.txt` (e.g. `python-reference`) has no venv: its commands run with the ambient
//! `PATH`.
//!
//! Files: [`env`] builds the environment of check commands, `run` calls and toolbox tools (one
//! place for all three), [`setup`] creates or refreshes a venv, [`probe`] reads the versions of
//! the packages in one.

pub mod env;
pub mod probe;
pub mod setup;

pub use env::ToolchainEnv;

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The pinned requirements of a target, in its folder.
pub const REQUIREMENTS_FILE: &str = "requirements.txt";
/// The stamp in a venv: `sha256 <hex of requirements.txt>`.
pub const STAMP_FILE: &str = ".aipc-requirements.sha256";

/// The folder holding every target's venv: `<cache>/toolchains`.
pub fn toolchains_dir() -> PathBuf {
    crate::model::store::cache_dir().join("toolchains")
}

/// What state a target's venv is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VenvState {
    /// The target has no `requirements.txt`: commands use the ambient `PATH`.
    NotNeeded,
    /// No venv (no `bin/python` in it).
    Missing,
    /// A venv without a stamp, or installed from other requirements than the current ones.
    Stale,
    /// Installed from the current requirements.
    Ready,
}

impl VenvState {
    /// One word for tables and messages.
    pub fn word(&self) -> &'static str {
        match self {
            VenvState::NotNeeded => "none needed",
            VenvState::Missing => "missing",
            VenvState::Stale => "stale",
            VenvState::Ready => "ready",
        }
    }
}

/// A target's toolchain: its folders, and its venv when it needs one.
#[derive(Debug, Clone, PartialEq)]
pub struct Toolchain {
    pub target: String,
    /// `toolbox/` (absolute): `$AIPC_TOOLBOX`.
    pub toolbox_dir: PathBuf,
    /// `toolbox/targets/<target>` (absolute): `$AIPC_TARGET_DIR`.
    pub target_dir: PathBuf,
    /// `<cache>/toolchains/<target>/venv` when the target has a `requirements.txt`.
    pub venv: Option<PathBuf>,
}

impl Toolchain {
    /// The toolchain of `target` in `toolbox_dir` (`<data>/toolbox`), its venv under
    /// [`toolchains_dir`].
    pub fn locate(toolbox_dir: &Path, target: &str) -> Toolchain {
        Self::locate_in(toolbox_dir, target, &toolchains_dir())
    }

    /// Like [`Toolchain::locate`], with the venvs under `toolchains_dir`.
    pub fn locate_in(toolbox_dir: &Path, target: &str, toolchains_dir: &Path) -> Toolchain {
        let toolbox_dir = absolute(toolbox_dir);
        let target_dir = toolbox_dir.join("targets").join(target);
        let venv = target_dir
            .join(REQUIREMENTS_FILE)
            .is_file()
            .then(|| toolchains_dir.join(target).join("venv"));
        Toolchain {
            target: target.to_string(),
            toolbox_dir,
            target_dir,
            venv,
        }
    }

    /// `toolbox/targets/<target>/requirements.txt`.
    pub fn requirements(&self) -> PathBuf {
        self.target_dir.join(REQUIREMENTS_FILE)
    }

    /// The interpreter toolbox scripts run with: the venv's `python`, else `python3` from the
    /// ambient `PATH`.
    pub fn python(&self) -> String {
        match &self.venv {
            Some(venv) => venv.join("bin/python").display().to_string(),
            None => "python3".to_string(),
        }
    }

    /// The state of the venv against the current `requirements.txt`.
    pub fn state(&self) -> VenvState {
        let Some(venv) = &self.venv else {
            return VenvState::NotNeeded;
        };
        if !venv.join("bin/python").exists() {
            return VenvState::Missing;
        }
        let stamp = std::fs::read_to_string(venv.join(STAMP_FILE)).unwrap_or_default();
        match requirements_hash(&self.requirements()) {
            Ok(hash) if stamp.trim() == stamp_text(&hash).trim() => VenvState::Ready,
            _ => VenvState::Stale,
        }
    }

    /// The environment of this toolchain's commands.
    pub fn env(&self) -> ToolchainEnv {
        ToolchainEnv::for_target(self)
    }
}

/// sha256 (hex) of a requirements file.
pub fn requirements_hash(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

/// The stamp file's content for a requirements hash.
pub fn stamp_text(hash: &str) -> String {
    format!("sha256 {hash}\n")
}

/// Targets under `targets_dir` that a toolchain can be named for: subfolders holding a
/// `contract.toml`, a `requirements.txt` or a `toolbox.toml`, sorted.
pub fn list_targets(targets_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(targets_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let dir = e.path();
            [
                crate::contract::TARGET_FILE,
                REQUIREMENTS_FILE,
                crate::toolbox::MANIFEST_FILE,
            ]
            .iter()
            .any(|f| dir.join(f).is_file())
        })
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

/// `path` made absolute against the current directory (canonical when it exists).
fn absolute(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(dir: &Path, name: &str, requirements: Option<&str>) {
        let t = dir.join("toolbox/targets").join(name);
        std::fs::create_dir_all(&t).unwrap();
        std::fs::write(t.join("contract.toml"), "target = \"x\"\n").unwrap();
        if let Some(text) = requirements {
            std::fs::write(t.join(REQUIREMENTS_FILE), text).unwrap();
        }
    }

    #[test]
    fn states_follow_the_venv_and_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        target(dir.path(), "plain", None);
        target(dir.path(), "pinned", Some("numpy==2.0\n"));
        let cache = dir.path().join("cache");
        let toolbox = dir.path().join("toolbox");
        let plain = Toolchain::locate_in(&toolbox, "plain", &cache);
        assert_eq!(plain.state(), VenvState::NotNeeded);
        assert_eq!(plain.python(), "python3");
        let pinned = Toolchain::locate_in(&toolbox, "pinned", &cache);
        let venv = pinned.venv.clone().unwrap();
        assert_eq!(venv, cache.join("pinned/venv"));
        assert_eq!(pinned.state(), VenvState::Missing);
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(venv.join("bin/python"), "").unwrap();
        assert_eq!(pinned.state(), VenvState::Stale, "no stamp");
        let hash = requirements_hash(&pinned.requirements()).unwrap();
        std::fs::write(venv.join(STAMP_FILE), stamp_text(&hash)).unwrap();
        assert_eq!(pinned.state(), VenvState::Ready);
        std::fs::write(pinned.requirements(), "numpy==2.1\n").unwrap();
        assert_eq!(pinned.state(), VenvState::Stale, "requirements changed");
        assert!(pinned.python().ends_with("pinned/venv/bin/python"));
        assert_eq!(
            list_targets(&toolbox.join("targets")),
            vec!["pinned".to_string(), "plain".to_string()]
        );
    }
}
