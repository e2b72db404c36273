//! The environment every check command, every `run` call and every toolbox tool of a session
//! runs in (docs/toolbox.md, "Environment"), built in this one place.
//!
//! - `PATH` = `<venv>/bin:$PATH` and `VIRTUAL_ENV` = `<venv>` when the target has a venv
//!   (`PYTHONHOME` removed, as `activate` does);
//! - `AIPC_TARGET`, `AIPC_TARGET_DIR` (absolute), `AIPC_TOOLBOX` (absolute), and the target whose
//!   packages the commands use, `AIPC_RUNTIME` and `AIPC_RUNTIME_DIR` (absolute; the target itself
//!   unless its `toolchain.toml` names another);
//! - `PYTHONPATH` = `$AIPC_TOOLBOX/lib` prepended to any inherited value;
//! - `QNN_SDK_ROOT` empty (ExecuTorch's Qualcomm backend must not try to download an SDK),
//!   `PYTHONUNBUFFERED=1` (progress lines arrive as they are printed);
//! - `OMP_NUM_THREADS` removed: the engine's own setting for the model must not throttle the
//!   toolchain; a project that wants it sets it in its commands.

use super::Toolchain;
use std::ffi::OsString;

/// Variables to set on top of the inherited environment, and variables to remove from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolchainEnv {
    /// Set, in order (a later entry wins over an earlier one with the same name).
    pub set: Vec<(String, String)>,
    /// Removed from the inherited environment.
    pub unset: Vec<String>,
}

impl ToolchainEnv {
    /// The environment of `toolchain`'s commands, from the current process's environment.
    pub fn for_target(toolchain: &Toolchain) -> ToolchainEnv {
        Self::build(toolchain, |name| std::env::var_os(name))
    }

    /// Like [`ToolchainEnv::for_target`], reading inherited variables through `inherited`.
    pub fn build(
        toolchain: &Toolchain,
        inherited: impl Fn(&str) -> Option<OsString>,
    ) -> ToolchainEnv {
        let mut env = ToolchainEnv::default();
        let mut unset = vec!["OMP_NUM_THREADS".to_string()];
        if let Some(venv) = &toolchain.venv {
            let bin = venv.join("bin").display().to_string();
            let path = match inherited("PATH").filter(|p| !p.is_empty()) {
                Some(path) => format!("{bin}:{}", path.to_string_lossy()),
                None => bin,
            };
            env.push("PATH", path);
            env.push("VIRTUAL_ENV", venv.display().to_string());
            unset.push("PYTHONHOME".to_string());
        }
        env.push("AIPC_TARGET", toolchain.target.clone());
        env.push(
            "AIPC_TARGET_DIR",
            toolchain.target_dir.display().to_string(),
        );
        env.push("AIPC_TOOLBOX", toolchain.toolbox_dir.display().to_string());
        env.push("AIPC_RUNTIME", toolchain.runtime.clone());
        env.push(
            "AIPC_RUNTIME_DIR",
            toolchain.runtime_dir.display().to_string(),
        );
        let lib = toolchain.toolbox_dir.join("lib").display().to_string();
        let pythonpath = match inherited("PYTHONPATH").filter(|p| !p.is_empty()) {
            Some(old) => format!("{lib}:{}", old.to_string_lossy()),
            None => lib,
        };
        env.push("PYTHONPATH", pythonpath);
        env.push("QNN_SDK_ROOT", String::new());
        env.push("PYTHONUNBUFFERED", "1".to_string());
        env.unset = unset;
        env
    }

    /// Add (or replace) one variable to set.
    pub fn push(&mut self, name: &str, value: String) {
        self.set.retain(|(k, _)| k != name);
        self.set.push((name.to_string(), value));
    }

    /// The value this environment sets for `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.set
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn toolchain(venv: Option<&str>) -> Toolchain {
        Toolchain {
            target: "t".into(),
            toolbox_dir: PathBuf::from("/data/toolbox"),
            target_dir: PathBuf::from("/data/toolbox/targets/t"),
            runtime: "t".into(),
            runtime_dir: PathBuf::from("/data/toolbox/targets/t"),
            venv: venv.map(PathBuf::from),
        }
    }

    fn inherited(name: &str) -> Option<OsString> {
        match name {
            "PATH" => Some("/usr/bin:/bin".into()),
            "PYTHONPATH" => Some("/mine".into()),
            _ => None,
        }
    }

    #[test]
    fn a_venv_goes_first_on_path_and_the_toolbox_on_pythonpath() {
        let env = ToolchainEnv::build(&toolchain(Some("/c/t/venv")), inherited);
        assert_eq!(env.get("PATH"), Some("/c/t/venv/bin:/usr/bin:/bin"));
        assert_eq!(env.get("VIRTUAL_ENV"), Some("/c/t/venv"));
        assert_eq!(env.get("AIPC_TARGET_DIR"), Some("/data/toolbox/targets/t"));
        assert_eq!(env.get("AIPC_TOOLBOX"), Some("/data/toolbox"));
        assert_eq!(env.get("PYTHONPATH"), Some("/data/toolbox/lib:/mine"));
        assert_eq!(env.get("QNN_SDK_ROOT"), Some(""));
        assert_eq!(env.get("PYTHONUNBUFFERED"), Some("1"));
        assert!(env.unset.contains(&"OMP_NUM_THREADS".to_string()));
        assert!(env.unset.contains(&"PYTHONHOME".to_string()));
    }

    #[test]
    fn without_a_venv_path_is_left_alone() {
        let env = ToolchainEnv::build(&toolchain(None), |_| None);
        assert_eq!(env.get("PATH"), None);
        assert_eq!(env.get("VIRTUAL_ENV"), None);
        assert_eq!(env.get("PYTHONPATH"), Some("/data/toolbox/lib"));
        assert_eq!(env.unset, vec!["OMP_NUM_THREADS".to_string()]);
    }
}
