//! Toolchain environments: where a target's Python toolchain lives and what every command of a
//! session sees.
//!
//! A target whose folder holds a `requirements.txt` gets one venv under the user's cache,
//! `<cache>/toolchains/<target>/venv` (cache = `~/.cache/aipc`, `$XDG_CACHE_HOME` and
//! `$AIPC_CACHE_DIR` honoured, as for the model store). It is installed from the target's
//! `requirements.lock` (every transitive package pinned with its hashes, made from
//! `requirements.txt` by `scripts/lock-toolchains.sh`) with `pip --require-hashes --no-deps`;
//! a target without a lock installs `requirements.txt` as it is. The stamp file in the venv
//! records the sha256 of the file installed from and of the list of distributions actually
//! installed, so the venv is *missing* (no python in it), *stale* (no stamp, the lock changed
//! since, or — checked by `aipc doctor` — packages were changed by hand) or *ready*. pip's own
//! download cache (`~/.cache/pip`, or `PIP_CACHE_DIR`) is shared by every target. A target without
//! `requirements.txt` (e.g. `python-reference`) has no venv: its commands run with the ambient
//! `PATH`.
//!
//! A target may run in another target's venv: a flow such as split adaptation
//! (`toolbox/targets/split-onnxruntime-cpu`) has its own contract, tools and signatures but the
//! runtime's packages, named by its `toolchain.toml` (`runtime = "onnxruntime-cpu"`). Its venv,
//! requirements and lock are then the runtime's (`aipc toolchain setup` on either sets up the
//! same venv), and its commands see the runtime's folder as `$AIPC_RUNTIME_DIR`.
//!
//! Files: [`env`] builds the environment of check commands, `run` calls and toolbox tools (one
//! place for all three), [`setup`] creates or refreshes a venv, [`probe`] reads the versions of
//! the packages in one.

pub mod env;
pub mod probe;
pub mod seal;
pub mod setup;

pub use env::ToolchainEnv;

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The pinned requirements of a target, in its folder (what a person edits).
pub const REQUIREMENTS_FILE: &str = "requirements.txt";
/// The full lock of [`REQUIREMENTS_FILE`], with hashes (what is installed).
pub const LOCK_FILE: &str = "requirements.lock";
/// A target's `toolchain.toml`: `runtime = "<target>"`, whose venv its commands run in.
pub const RUNTIME_FILE: &str = "toolchain.toml";
/// The stamp in a venv (see [`Stamp`]).
pub const STAMP_FILE: &str = ".aipc-installed";
/// The locks are resolved for this platform; elsewhere `requirements.txt` is installed.
const LOCK_PLATFORM: bool = cfg!(all(target_os = "linux", target_arch = "x86_64"));

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
    /// The target whose packages the commands use: `target` itself, or the `runtime` its
    /// `toolchain.toml` names (`$AIPC_RUNTIME`).
    pub runtime: String,
    /// `toolbox/targets/<runtime>` (absolute): `$AIPC_RUNTIME_DIR`, where the requirements are.
    pub runtime_dir: PathBuf,
    /// `<cache>/toolchains/<runtime>/venv` when the runtime has a `requirements.txt`.
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
        let runtime = runtime_of(&target_dir).unwrap_or_else(|| target.to_string());
        let runtime_dir = toolbox_dir.join("targets").join(&runtime);
        let venv = runtime_dir
            .join(REQUIREMENTS_FILE)
            .is_file()
            .then(|| toolchains_dir.join(&runtime).join("venv"));
        Toolchain {
            target: target.to_string(),
            toolbox_dir,
            target_dir,
            runtime,
            runtime_dir,
            venv,
        }
    }

    /// `toolbox/targets/<runtime>/requirements.txt`.
    pub fn requirements(&self) -> PathBuf {
        self.runtime_dir.join(REQUIREMENTS_FILE)
    }

    /// What the venv is installed from: the lock when there is one (and this is the platform
    /// it was resolved for), else `requirements.txt`. `true` for a lock.
    pub fn install_source(&self) -> (PathBuf, bool) {
        let lock = self.runtime_dir.join(LOCK_FILE);
        if LOCK_PLATFORM && lock.is_file() {
            (lock, true)
        } else {
            (self.requirements(), false)
        }
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
        let (source, _) = self.install_source();
        match (requirements_hash(&source), Stamp::parse(&stamp)) {
            (Ok(hash), Some(stamp)) if stamp.source_sha256 == hash => VenvState::Ready,
            _ => VenvState::Stale,
        }
    }

    /// The venv's stamp, when it has a readable one.
    pub fn stamp(&self) -> Option<Stamp> {
        let venv = self.venv.as_ref()?;
        Stamp::parse(&std::fs::read_to_string(venv.join(STAMP_FILE)).ok()?)
    }

    /// The environment of this toolchain's commands.
    pub fn env(&self) -> ToolchainEnv {
        ToolchainEnv::for_target(self)
    }
}

/// The `runtime` that `<target_dir>/toolchain.toml` names, when it names a plain target name
/// other than the target's own. A file that does not parse names none: the target then has no
/// venv of its own and `aipc doctor` / `toolchain setup` say so.
fn runtime_of(target_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(target_dir.join(RUNTIME_FILE)).ok()?;
    let table: toml::Table = text.parse().ok()?;
    let name = table.get("runtime")?.as_str()?;
    let plain = !name.is_empty()
        && !name.contains(['/', '\\'])
        && name != "."
        && name != ".."
        && target_dir.file_name().and_then(|n| n.to_str()) != Some(name);
    plain.then(|| name.to_string())
}

/// sha256 (hex) of a requirements file.
pub fn requirements_hash(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

/// What a ready venv's stamp records: the sha256 of the file it was installed from and of the
/// distributions that were then in it (sorted `name==version` lines, listed below the hashes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub source_sha256: String,
    pub installed_sha256: String,
    pub installed: Vec<String>,
}

impl Stamp {
    /// The stamp of a venv installed from a file with hash `source_sha256` that now holds
    /// `installed`.
    pub fn new(source_sha256: &str, installed: Vec<String>) -> Stamp {
        Stamp {
            source_sha256: source_sha256.to_string(),
            installed_sha256: installed_hash(&installed),
            installed,
        }
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "installed-from sha256 {}\ninstalled sha256 {}\n",
            self.source_sha256, self.installed_sha256
        );
        for line in &self.installed {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    /// Read a stamp; `None` for any other text (an older format makes the venv stale).
    pub fn parse(text: &str) -> Option<Stamp> {
        let mut lines = text.lines();
        let source_sha256 = lines.next()?.strip_prefix("installed-from sha256 ")?.trim();
        let installed_sha256 = lines.next()?.strip_prefix("installed sha256 ")?.trim();
        Some(Stamp {
            source_sha256: source_sha256.to_string(),
            installed_sha256: installed_sha256.to_string(),
            installed: lines.map(str::to_string).collect(),
        })
    }

    /// Whether a venv that now holds `installed` still holds what was stamped.
    pub fn matches(&self, installed: &[String]) -> bool {
        installed_hash(installed) == self.installed_sha256
    }
}

/// sha256 (hex) of a list of `name==version` lines, one per line.
fn installed_hash(installed: &[String]) -> String {
    let mut hasher = Sha256::new();
    for line in installed {
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    format!("{:x}", hasher.finalize())
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
    fn a_flow_target_runs_in_its_runtimes_venv() {
        let dir = tempfile::tempdir().unwrap();
        target(dir.path(), "rt", Some("numpy==2.0\n"));
        target(dir.path(), "flow", None);
        let toolbox = dir.path().join("toolbox");
        std::fs::write(
            toolbox.join("targets/flow").join(RUNTIME_FILE),
            "runtime = \"rt\"\n",
        )
        .unwrap();
        let cache = dir.path().join("cache");
        let flow = Toolchain::locate_in(&toolbox, "flow", &cache);
        assert_eq!(flow.runtime, "rt");
        assert_eq!(flow.venv, Some(cache.join("rt/venv")));
        assert_eq!(
            flow.requirements(),
            flow.runtime_dir.join(REQUIREMENTS_FILE)
        );
        assert!(flow.target_dir.ends_with("targets/flow"));
        let env = flow.env();
        assert_eq!(env.get("AIPC_RUNTIME"), Some("rt"));
        assert!(env
            .get("AIPC_TARGET_DIR")
            .unwrap()
            .ends_with("targets/flow"));
        // Naming itself, a path or a file that does not parse: the target's own folder.
        for text in [
            "runtime = \"flow\"\n",
            "runtime = \"../rt\"\n",
            "runtime = [\n",
        ] {
            std::fs::write(toolbox.join("targets/flow").join(RUNTIME_FILE), text).unwrap();
            let flow = Toolchain::locate_in(&toolbox, "flow", &cache);
            assert_eq!(flow.runtime, "flow", "{text}");
            assert_eq!(flow.venv, None, "{text}");
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
        std::fs::write(venv.join(STAMP_FILE), "sha256 0000\n").unwrap();
        assert_eq!(pinned.state(), VenvState::Stale, "an older stamp format");
        let hash = requirements_hash(&pinned.requirements()).unwrap();
        let stamp = Stamp::new(&hash, vec!["numpy==2.0".to_string()]);
        std::fs::write(venv.join(STAMP_FILE), stamp.to_text()).unwrap();
        assert_eq!(pinned.state(), VenvState::Ready);
        assert_eq!(pinned.stamp(), Some(stamp.clone()));
        assert!(stamp.matches(&["numpy==2.0".to_string()]));
        assert!(!stamp.matches(&["numpy==2.0".to_string(), "six==1.16.0".to_string()]));
        std::fs::write(pinned.requirements(), "numpy==2.1\n").unwrap();
        assert_eq!(pinned.state(), VenvState::Stale, "requirements changed");
        // A lock, where there is one, is what the venv is installed from.
        std::fs::write(venv.join(STAMP_FILE), stamp.to_text()).unwrap();
        let lock = pinned.target_dir.join(LOCK_FILE);
        std::fs::write(&lock, "numpy==2.0 --hash=sha256:00\n").unwrap();
        if LOCK_PLATFORM {
            assert_eq!(pinned.install_source(), (lock.clone(), true));
            let lock_hash = requirements_hash(&lock).unwrap();
            std::fs::write(
                venv.join(STAMP_FILE),
                Stamp::new(&lock_hash, vec![]).to_text(),
            )
            .unwrap();
            assert_eq!(pinned.state(), VenvState::Ready);
        }
        assert!(pinned.python().ends_with("pinned/venv/bin/python"));
        assert_eq!(
            list_targets(&toolbox.join("targets")),
            vec!["pinned".to_string(), "plain".to_string()]
        );
    }

    /// Every shipped lock was made from its requirements.txt as it is now (run
    /// scripts/lock-toolchains.sh after editing one), and pins every package with hashes.
    #[test]
    fn shipped_locks_are_current_and_complete() {
        let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("toolbox/targets");
        let mut locked = 0;
        for target in list_targets(&targets) {
            let dir = targets.join(&target);
            if !dir.join(REQUIREMENTS_FILE).is_file() {
                continue;
            }
            let lock = std::fs::read_to_string(dir.join(LOCK_FILE))
                .unwrap_or_else(|e| panic!("{target}: no {LOCK_FILE} ({e})"));
            let hash = requirements_hash(&dir.join(REQUIREMENTS_FILE)).unwrap();
            assert!(
                lock.contains(&format!("# requirements.txt sha256 {hash}")),
                "{target}: {LOCK_FILE} is older than {REQUIREMENTS_FILE}: run scripts/lock-toolchains.sh {target}"
            );
            let pins: Vec<&str> = lock.lines().filter(|l| l.contains("==")).collect();
            assert!(pins.iter().any(|l| l.starts_with("numpy==")), "{target}");
            assert!(pins.iter().any(|l| l.starts_with("torch==")), "{target}");
            for pin in &pins {
                assert!(pin.ends_with(" \\"), "{target}: {pin} has no hashes");
            }
            locked += 1;
        }
        assert!(locked >= 2, "{locked} locked targets");
    }
}
