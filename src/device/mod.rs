//! Where the run, accuracy and performance stages execute an artifact: the project's
//! `aipc.toml` `[device]` table (or `aipc run --device <file>`), parsed and checked here.
//!
//! `kind = "local"` (the default, also when there is no table) runs everything on the build
//! host, in the sandbox, as before. `ssh` and `adb` run each execution on a device: the toolbox
//! script (inside the sandbox, network off, no keys) writes a job folder under `build/` and asks
//! the engine's [`proxy`] over a Unix socket; the proxy, outside the sandbox, pushes the artifact
//! and the job, runs the target's device runner there, pulls the outputs back and cleans up
//! ([`job`]), through a [`transport`] (`ssh`: the OpenSSH client; `adb`: Android's adb). The
//! checks then judge the pulled outputs as they judge local ones. docs/device.md has the
//! protocol and the keys.

pub(crate) mod job;
pub(crate) mod proxy;
pub(crate) mod transport;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) use proxy::DeviceLink;

/// How the device is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// The build host itself (no transport).
    #[default]
    Local,
    /// A Linux device over SSH (OpenSSH client: keys, known hosts and config honoured).
    Ssh,
    /// An Android device over adb (push / shell / pull).
    Adb,
}

impl DeviceKind {
    pub fn word(self) -> &'static str {
        match self {
            DeviceKind::Local => "local",
            DeviceKind::Ssh => "ssh",
            DeviceKind::Adb => "adb",
        }
    }
}

/// The `[device]` table (also recorded in a session's meta.json, so that `aipc resume` and
/// `aipc rerun` use the device the session ran on).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    #[serde(default)]
    pub kind: DeviceKind,
    /// A short name for the status bar and the report (default: `user@host:port` or the serial).
    pub name: Option<String>,
    /// ssh: the host name or address (or a `Host` alias of ~/.ssh/config).
    pub host: Option<String>,
    /// ssh: the login (default: ssh's own choice).
    pub user: Option<String>,
    /// ssh: the port (default: ssh's own choice, usually 22).
    pub port: Option<u16>,
    /// ssh: the private key (`~/` is expanded).
    pub identity_file: Option<String>,
    /// ssh: the known-hosts file the host key is checked against (default: ssh's own). Host key
    /// checking is always strict: an unknown or changed host key fails the connection.
    pub known_hosts: Option<String>,
    /// adb: the device serial (`adb -s`); default: the only device attached.
    pub serial: Option<String>,
    /// The folder on the device under which each session gets its own folder (removed at the
    /// end). Default: `/tmp/aipc` (ssh), `/data/local/tmp/aipc` (adb).
    pub work_dir: Option<String>,
    /// The command that runs a Python script on the device, with the target's runtime
    /// installed there (e.g. `/opt/venv/bin/python3`, `taskset f0 python3`). Default `python3`.
    pub runner: Option<String>,
    /// Environment set for the runner on the device.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The `ssh` or `adb` program on the build host (default: from PATH).
    pub program: Option<String>,
    /// Seconds to wait for a connection.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_s: u64,
    /// Seconds one job (push, run, pull) may take before it is stopped.
    #[serde(default = "default_job_timeout")]
    pub job_timeout_s: u64,
    /// How many times a step that lost its connection is tried again before the session ends
    /// (exit 3).
    #[serde(default = "default_retries")]
    pub retries: u32,
}

fn default_connect_timeout() -> u64 {
    10
}
fn default_job_timeout() -> u64 {
    900
}
fn default_retries() -> u32 {
    2
}

/// A `[device]` table that cannot be used, with where it is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}{}: [device] {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct DeviceConfigError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

#[derive(Deserialize)]
struct FileWithDevice {
    device: Option<toml::Spanned<toml::Table>>,
}

impl DeviceConfig {
    /// The `[device]` table of a TOML text (`file` names it in errors); `None` when absent.
    pub fn from_toml(text: &str, file: &str) -> Result<Option<DeviceConfig>, DeviceConfigError> {
        let err = |line: Option<usize>, message: String| DeviceConfigError {
            file: file.to_string(),
            line,
            message,
        };
        let parsed: FileWithDevice = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| crate::evidence::line_of(text, s.start));
            err(line, e.message().to_string())
        })?;
        let Some(table) = parsed.device else {
            return Ok(None);
        };
        let line = Some(crate::evidence::line_of(text, table.span().start));
        let config: DeviceConfig = table
            .into_inner()
            .try_into()
            .map_err(|e: toml::de::Error| err(line, e.message().to_string()))?;
        config.check().map_err(|m| err(line, m))?;
        Ok(Some(config))
    }

    /// The `[device]` table of a file; `None` when the file has none.
    pub fn from_file(path: &Path) -> Result<Option<DeviceConfig>, DeviceConfigError> {
        let file = path.display().to_string();
        let bytes =
            crate::safe_read::read(path, crate::safe_read::WORKSPACE_FILE).map_err(|e| {
                DeviceConfigError {
                    file: file.clone(),
                    line: None,
                    message: format!("cannot be read: {e}"),
                }
            })?;
        DeviceConfig::from_toml(&String::from_utf8_lossy(&bytes), &file)
    }

    /// The `[device]` table of a `--device <file>` flag: the file must have one.
    pub fn from_flag(path: &Path) -> Result<DeviceConfig, String> {
        match DeviceConfig::from_file(path) {
            Ok(Some(config)) => Ok(config),
            Ok(None) => Err(format!(
                "--device {}: the file has no [device] table (docs/device.md)",
                path.display()
            )),
            Err(e) => Err(format!("--device: {e}")),
        }
    }

    /// The project's `[device]` table (`aipc.toml`), `None` when it has none or no aipc.toml.
    pub fn from_project(project: &Path) -> Result<Option<DeviceConfig>, DeviceConfigError> {
        let path = project.join("aipc.toml");
        if !path.is_file() {
            return Ok(None);
        }
        DeviceConfig::from_file(&path)
    }

    fn check(&self) -> Result<(), String> {
        let word = |s: &Option<String>| s.as_deref().is_some_and(|v| !v.trim().is_empty());
        match self.kind {
            DeviceKind::Ssh if !word(&self.host) => {
                return Err(
                    "kind = \"ssh\" needs `host` (a name, an address or a ~/.ssh/config alias)"
                        .into(),
                )
            }
            DeviceKind::Local => {
                for (key, set) in [
                    ("host", self.host.is_some()),
                    ("serial", self.serial.is_some()),
                    ("identity_file", self.identity_file.is_some()),
                ] {
                    if set {
                        return Err(format!(
                            "`{key}` is set but kind is \"local\": set kind = \"ssh\" or \"adb\", or remove `{key}`"
                        ));
                    }
                }
            }
            _ => {}
        }
        if let Some(dir) = &self.work_dir {
            if !dir.starts_with('/') || dir.contains("..") || dir.trim_end_matches('/').is_empty() {
                return Err(format!(
                    "work_dir = \"{dir}\" must be an absolute folder on the device, not `/`, without `..`"
                ));
            }
            if dir.contains(|c: char| c == '\'' || c.is_control()) {
                return Err(format!(
                    "work_dir = \"{dir}\" must not contain quotes or control characters"
                ));
            }
        }
        for name in self.env.keys() {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "env key `{name}` is not a variable name (letters, digits, `_`)"
                ));
            }
        }
        if self.job_timeout_s == 0 || self.connect_timeout_s == 0 {
            return Err("job_timeout_s and connect_timeout_s must be at least 1".into());
        }
        if self.retries > 10 {
            return Err(format!("retries = {} is more than 10", self.retries));
        }
        Ok(())
    }

    /// Runs on the build host (no transport).
    pub fn is_local(&self) -> bool {
        self.kind == DeviceKind::Local
    }

    /// The device's name for the status bar, the log and the report.
    pub fn describe(&self) -> String {
        if let Some(name) = &self.name {
            return format!("{name} ({})", self.kind.word());
        }
        match self.kind {
            DeviceKind::Local => "local (the build host)".to_string(),
            DeviceKind::Ssh => format!("ssh {}", self.ssh_destination_shown()),
            DeviceKind::Adb => format!(
                "adb {}",
                self.serial
                    .as_deref()
                    .unwrap_or("(the only device attached)")
            ),
        }
    }

    fn ssh_destination_shown(&self) -> String {
        let host = self.host.as_deref().unwrap_or("?");
        let user = self
            .user
            .as_deref()
            .map(|u| format!("{u}@"))
            .unwrap_or_default();
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{user}{host}{port}")
    }

    /// The device folder sessions live under.
    pub fn work_dir(&self) -> String {
        let default = match self.kind {
            DeviceKind::Adb => "/data/local/tmp/aipc",
            _ => "/tmp/aipc",
        };
        self.work_dir
            .as_deref()
            .unwrap_or(default)
            .trim_end_matches('/')
            .to_string()
    }

    /// The runner command (a Python interpreter on the device).
    pub fn runner(&self) -> &str {
        self.runner.as_deref().unwrap_or("python3")
    }

    /// The identity file with `~/` expanded.
    pub fn identity_path(&self) -> Option<PathBuf> {
        self.identity_file.as_deref().map(expand_home)
    }

    /// The known-hosts file with `~/` expanded.
    pub fn known_hosts_path(&self) -> Option<PathBuf> {
        self.known_hosts.as_deref().map(expand_home)
    }
}

fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_table_is_none_and_a_full_ssh_table_reads() {
        assert_eq!(
            DeviceConfig::from_toml("[project]\nmodel = \"m:f\"\n", "aipc.toml").unwrap(),
            None
        );
        let text = "[project]\nx = 1\n\n[device]\nkind = \"ssh\"\nhost = \"board\"\nuser = \"u\"\nport = 2222\nidentity_file = \"~/.ssh/id\"\nrunner = \"/opt/v/bin/python3\"\nenv = { OMP_NUM_THREADS = \"4\" }\n";
        let d = DeviceConfig::from_toml(text, "aipc.toml").unwrap().unwrap();
        assert_eq!(d.kind, DeviceKind::Ssh);
        assert_eq!(d.describe(), "ssh u@board:2222");
        assert_eq!(d.work_dir(), "/tmp/aipc");
        assert_eq!(d.runner(), "/opt/v/bin/python3");
        assert_eq!(d.retries, 2);
        assert!(d.identity_path().unwrap().ends_with(".ssh/id"));
    }

    #[test]
    fn bad_tables_name_the_file_line_and_the_fix() {
        let e = DeviceConfig::from_toml("a = 1\n[device]\nkind = \"ssh\"\n", "p/aipc.toml")
            .unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.to_string()
                .starts_with("p/aipc.toml:2: [device] kind = \"ssh\" needs `host`"),
            "{e}"
        );
        let e = DeviceConfig::from_toml("[device]\nkind = \"ssh\"\nhots = \"x\"\n", "aipc.toml")
            .unwrap_err();
        assert!(e.message.contains("unknown field `hots`"), "{e}");
        let e = DeviceConfig::from_toml("[device]\nkind = \"usb\"\n", "aipc.toml").unwrap_err();
        assert!(e.message.contains("usb"), "{e}");
        let e = DeviceConfig::from_toml("[device]\nhost = \"b\"\n", "aipc.toml").unwrap_err();
        assert!(e.message.contains("kind is \"local\""), "{e}");
        let e = DeviceConfig::from_toml(
            "[device]\nkind = \"adb\"\nwork_dir = \"tmp/x\"\n",
            "aipc.toml",
        )
        .unwrap_err();
        assert!(e.message.contains("absolute"), "{e}");
        let e = DeviceConfig::from_toml(
            "[device]\nkind = \"adb\"\nenv = { \"A B\" = \"1\" }\n",
            "aipc.toml",
        )
        .unwrap_err();
        assert!(e.message.contains("not a variable name"), "{e}");
        let e = DeviceConfig::from_toml("[device\n", "aipc.toml").unwrap_err();
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn adb_defaults() {
        let d = DeviceConfig::from_toml("[device]\nkind = \"adb\"\n", "aipc.toml")
            .unwrap()
            .unwrap();
        assert_eq!(d.work_dir(), "/data/local/tmp/aipc");
        assert_eq!(d.describe(), "adb (the only device attached)");
        let d = DeviceConfig::from_toml(
            "[device]\nkind = \"adb\"\nserial = \"R58M\"\nname = \"phone\"\n",
            "aipc.toml",
        )
        .unwrap()
        .unwrap();
        assert_eq!(d.describe(), "phone (adb)");
    }
}
