//! `aipc doctor`: what a deployment needs, checked for real, each item "ok", "not ready" (with
//! the one command that fixes it) or a note. Needed: the data folders, python3 with venv and
//! pip, the default model, and the toolchain of every target that has one (or only of
//! `--target`). Exit 0 when everything needed is ready, 3 otherwise; `--json` prints one object.

use crate::contract::available_targets;
use crate::model::{gguf, store};
use crate::prompts::Prompts;
use crate::skills::SkillSet;
use crate::toolchain::{list_targets, probe, Toolchain, VenvState};
use crate::{build_info, datadir};
use serde::Serialize;
use std::path::Path;
use std::process::{Command, Stdio};

/// The verdict on one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Ok,
    /// Needed and missing or broken: `fix` says what to run.
    NotReady,
}

/// One checked item.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: String,
    pub status: Status,
    pub detail: String,
    /// The command (or action) that makes it ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Everything `aipc doctor` found.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    pub ready: bool,
    pub build: String,
    pub checks: Vec<Check>,
}

impl Diagnosis {
    /// The text form: one line per item, the fix below a item that is not ready.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", self.build);
        for check in &self.checks {
            let mark = match check.status {
                Status::Ok => "ok       ",
                Status::NotReady => "NOT READY",
            };
            out.push_str(&format!("{mark} {}: {}\n", check.name, check.detail));
            if let Some(fix) = &check.fix {
                out.push_str(&format!("          fix: {fix}\n"));
            }
        }
        let missing = self
            .checks
            .iter()
            .filter(|c| c.status == Status::NotReady)
            .count();
        if missing == 0 {
            out.push_str("ready: everything a deployment needs is here\n");
        } else {
            out.push_str(&format!(
                "not ready: {missing} item(s) above; run each fix, then `aipc doctor` again\n"
            ));
        }
        out
    }
}

fn check(name: &str, status: Status, detail: impl Into<String>, fix: Option<String>) -> Check {
    Check {
        name: name.to_string(),
        status,
        detail: detail.into(),
        fix,
    }
}

/// Check everything; `only_target` limits the toolchain checks to one target.
pub fn diagnose(data_dir: Option<&Path>, only_target: Option<&str>) -> Diagnosis {
    let mut checks = vec![cpu_check()];
    python_checks(&mut checks);
    checks.push(sandbox_check());
    match datadir::locate_with_source(data_dir) {
        Ok((dir, source)) => {
            checks.push(check(
                "data directory",
                Status::Ok,
                format!("{} ({})", dir.display(), source.describe()),
                None,
            ));
            data_checks(&dir, only_target, &mut checks);
        }
        Err(message) => checks.push(check(
            "data directory",
            Status::NotReady,
            message,
            Some(
                "pass --data-dir <folder with prompts/, skills/, toolbox/> or unset AIPC_DATA_DIR"
                    .into(),
            ),
        )),
    }
    checks.push(model_check());
    let ready = checks.iter().all(|c| c.status != Status::NotReady);
    Diagnosis {
        ready,
        build: build_info::one_line(),
        checks,
    }
}

/// The device of a `[device]` table answers, its runner starts, and which runtimes it imports
/// (docs/device.md).
pub fn device_check(config: &crate::device::DeviceConfig) -> Check {
    use crate::device::job::JobRunner;
    let name = format!("device {}", config.describe());
    if config.is_local() {
        return check(&name, Status::Ok, "executions run on the build host", None);
    }
    let here = std::env::current_dir().unwrap_or_default();
    let runner = JobRunner::new(
        crate::device::transport::open(config),
        config.clone(),
        &format!("doctor-{}", std::process::id()),
        here,
    );
    let fix = Some(
        "check host/serial, keys and known_hosts, and `runner` in [device] (docs/device.md)"
            .to_string(),
    );
    let result = runner
        .probe()
        .and_then(|python| Ok((python, runner.runtimes()?)));
    runner.clean_up();
    match result {
        Ok((python, runtimes)) => check(
            &name,
            Status::Ok,
            format!(
                "reachable; {} is python {python}; {runtimes}",
                config.runner()
            ),
            None,
        ),
        Err(crate::device::job::JobError::Device {
            step,
            attempts,
            message,
            ..
        }) => check(
            &name,
            Status::NotReady,
            format!("step `{step}` failed after {attempts} attempt(s): {message}"),
            fix,
        ),
        Err(e) => check(&name, Status::NotReady, e.to_string(), fix),
    }
}

/// The command sandbox starts here (docs/sandbox.md): probed in a throwaway folder.
fn sandbox_check() -> Check {
    let probe = tempfile::tempdir()
        .map_err(|e| e.to_string())
        .and_then(|dir| {
            crate::sandbox::Sandbox::new(
                crate::sandbox::SandboxMode::Strict,
                dir.path(),
                &[],
                crate::sandbox::Limits::default(),
            )
            .map(|s| s.version().to_string())
            .map_err(|e| e.to_string())
        });
    match probe {
        Ok(version) => check(
            "sandbox",
            Status::Ok,
            format!("{version}, strict mode starts"),
            None,
        ),
        Err(message) => check(
            "sandbox",
            Status::NotReady,
            message,
            Some("apt-get install bubblewrap".into()),
        ),
    }
}

/// The CPU, and what of it this build uses (a note: a binary that runs got this far).
fn cpu_check() -> Check {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let mut extras = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            extras.push("AVX-512");
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            extras.push("AVX2");
        }
    }
    let has = if extras.is_empty() {
        String::new()
    } else {
        format!(" ({})", extras.join(", "))
    };
    check(
        "cpu",
        Status::Ok,
        format!(
            "{model}{has}; this build targets {} (see docs/portable-builds.md)",
            build_info::TARGET_CPU
        ),
        None,
    )
}

fn python_checks(checks: &mut Vec<Check>) {
    let install = "apt-get install -y python3 python3-venv python3-pip".to_string();
    let python = Command::new("python3")
        .arg("--version")
        .stdin(Stdio::null())
        .output();
    match python {
        Ok(out) if out.status.success() => {
            let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
            checks.push(check("python3", Status::Ok, version, None));
        }
        _ => {
            checks.push(check(
                "python3",
                Status::NotReady,
                "`python3` not found on PATH (the toolbox scripts and toolchain setup need it)",
                Some(install),
            ));
            return;
        }
    }
    let venv_pip = Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("python3")
            .args(["-m", "pip", "--version"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    checks.push(if venv_pip {
        check("python3 venv + pip", Status::Ok, "present", None)
    } else {
        check(
            "python3 venv + pip",
            Status::NotReady,
            "python3 lacks its venv module or pip (toolchain setup and `aipc model fetch` need them)",
            Some(install),
        )
    });
}

/// Data folders parse; every target's toolchain (or only `only_target`'s) is ready.
fn data_checks(dir: &Path, only_target: Option<&str>, checks: &mut Vec<Check>) {
    let targets = available_targets(&dir.join("toolbox/targets"));
    checks.push(if targets.is_empty() {
        check(
            "targets",
            Status::NotReady,
            format!("none in {}", dir.join("toolbox/targets").display()),
            Some("pass --data-dir <a complete aipc data folder>".into()),
        )
    } else {
        check("targets", Status::Ok, targets.join(", "), None)
    });
    checks.push(match Prompts::load(&dir.join("prompts")) {
        Ok(_) => check("prompts", Status::Ok, "all templates parse", None),
        Err(e) => check(
            "prompts",
            Status::NotReady,
            e.to_string(),
            Some("fix the template named above".into()),
        ),
    });
    checks.push(match SkillSet::load_dir(&dir.join("skills")) {
        Ok(skills) => check("skills", Status::Ok, skills.names().join(", "), None),
        Err(e) => check(
            "skills",
            Status::NotReady,
            e.to_string(),
            Some("fix the SKILL.md named above".into()),
        ),
    });
    let toolbox = dir.join("toolbox");
    let all = list_targets(&toolbox.join("targets"));
    if let Some(target) = only_target {
        if !all.iter().any(|t| t == target) {
            checks.push(check(
                &format!("toolchain {target}"),
                Status::NotReady,
                format!("no such target; available: {}", all.join(", ")),
                Some("pass one of the targets above to --target".into()),
            ));
            return;
        }
    }
    for target in all
        .iter()
        .filter(|t| only_target.is_none_or(|only| only == t.as_str()))
    {
        checks.push(toolchain_check(&Toolchain::locate(&toolbox, target)));
    }
    // The Qualcomm SDK is needed only by the qairt targets: not ready when one was asked for.
    if all.iter().any(|t| t.starts_with("qairt")) {
        let asked = only_target.filter(|t| t.starts_with("qairt"));
        if asked.is_some() || only_target.is_none() {
            checks.push(qairt_sdk_check(asked));
        }
    }
}

/// One QAIRT flow's tools (in `bin/<host>`) and the backends it loads (in `lib/<host>`);
/// docs/qairt.md. Keep in step with toolbox/targets/qairt-qnn/env.py.
struct QairtFlow {
    target: &'static str,
    tools: &'static [&'static str],
    backends: &'static [&'static str],
}

const QAIRT_FLOWS: &[QairtFlow] = &[
    QairtFlow {
        target: "qairt-qnn",
        tools: &[
            "qnn-onnx-converter",
            "qnn-model-lib-generator",
            "qnn-context-binary-generator",
            "qnn-net-run",
            "qnn-profile-viewer",
        ],
        backends: &["libQnnCpu.so", "libQnnHtp.so"],
    },
    QairtFlow {
        target: "qairt-snpe",
        tools: &[
            "qairt-converter",
            "snpe-dlc-quant",
            "snpe-dlc-info",
            "snpe-net-run",
            "snpe-diagview",
        ],
        backends: &[],
    },
];

/// `$QAIRT_SDK_ROOT` (else `$QNN_SDK_ROOT`): its version and exactly which tools and backends
/// are missing — of the asked-for qairt target's flow, else of every flow. `asked`: a qairt
/// target was asked for, so a gap is not ready; otherwise it is reported as ok with a note (no
/// other target needs the SDK).
fn qairt_sdk_check(asked: Option<&str>) -> Check {
    let needed = asked.is_some();
    let flows: Vec<&QairtFlow> = QAIRT_FLOWS
        .iter()
        .filter(|f| asked.is_none_or(|t| t == f.target))
        .collect();
    let status = if needed { Status::NotReady } else { Status::Ok };
    let root = ["QAIRT_SDK_ROOT", "QNN_SDK_ROOT"].iter().find_map(|name| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| (*name, v))
    });
    let Some((name, root)) = root else {
        return check(
            "QAIRT SDK",
            status,
            "QAIRT_SDK_ROOT is not set (only the qairt-* targets need the Qualcomm AI Runtime SDK)",
            needed.then(|| {
                "install the QAIRT SDK from Qualcomm and `export QAIRT_SDK_ROOT=<its folder>` (docs/qairt.md)"
                    .to_string()
            }),
        );
    };
    let root = Path::new(&root);
    let host = "x86_64-linux-clang";
    let mut missing: Vec<String> = flows
        .iter()
        .flat_map(|f| {
            f.tools
                .iter()
                .map(|t| root.join("bin").join(host).join(t))
                .chain(
                    f.backends
                        .iter()
                        .map(|b| root.join("lib").join(host).join(b)),
                )
        })
        .filter(|p| !p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    let flow_names = flows
        .iter()
        .map(|f| f.target)
        .collect::<Vec<_>>()
        .join(", ");
    if !root.is_dir() {
        missing = vec![format!("{} itself", root.display())];
    }
    let version = std::fs::read_to_string(root.join("version.txt"))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|_| "no version.txt".into());
    if missing.is_empty() {
        check(
            "QAIRT SDK",
            Status::Ok,
            format!(
                "{name}={} ({version}); the tools and backends of {flow_names} for {host} are there",
                root.display()
            ),
            None,
        )
    } else {
        check(
            "QAIRT SDK",
            status,
            format!("{name}={} ({version}) lacks: {}", root.display(), missing.join(", ")),
            needed.then(|| "point QAIRT_SDK_ROOT at a complete QAIRT SDK for x86_64-linux-clang (docs/qairt.md)".to_string()),
        )
    }
}

/// A target's venv: ready (and still holding what was installed), or the setup command.
fn toolchain_check(toolchain: &Toolchain) -> Check {
    let target = &toolchain.target;
    let name = format!("toolchain {target}");
    let setup = format!("aipc toolchain setup {target}");
    let Some(venv) = &toolchain.venv else {
        return check(
            &name,
            Status::Ok,
            "no venv needed (no requirements.txt; ambient PATH)",
            None,
        );
    };
    match toolchain.state() {
        VenvState::Missing => {
            return check(
                &name,
                Status::NotReady,
                format!("missing ({})", venv.display()),
                Some(setup),
            )
        }
        VenvState::Stale => {
            return check(
                &name,
                Status::NotReady,
                format!(
                    "stale: {} was not installed from the current {}",
                    venv.display(),
                    toolchain.install_source().0.display()
                ),
                Some(setup),
            )
        }
        VenvState::Ready | VenvState::NotNeeded => {}
    }
    let python = venv.join("bin/python");
    let installed = probe::installed(&python);
    let versions = probe::versions(&python);
    match (installed, versions, toolchain.stamp()) {
        (Ok(installed), Ok(versions), Some(stamp)) if stamp.matches(&installed) => check(
            &name,
            Status::Ok,
            format!(
                "ready {} — {} ({} packages as locked)",
                venv.display(),
                probe::describe(&versions),
                installed.len()
            ),
            None,
        ),
        (Ok(installed), _, Some(stamp)) => {
            let changed: Vec<String> = installed
                .iter()
                .filter(|line| !stamp.installed.contains(line))
                .take(3)
                .cloned()
                .collect();
            check(
                &name,
                Status::NotReady,
                format!(
                    "{} was changed after setup (e.g. {})",
                    venv.display(),
                    if changed.is_empty() {
                        "packages removed".to_string()
                    } else {
                        changed.join(", ")
                    }
                ),
                Some(setup + " --force"),
            )
        }
        (Err(message), _, _) | (_, Err(message), _) => check(
            &name,
            Status::NotReady,
            format!("{} is broken: {message}", venv.display()),
            Some(setup + " --force"),
        ),
        (_, _, None) => check(
            &name,
            Status::NotReady,
            format!("{} has no readable stamp", venv.display()),
            Some(setup),
        ),
    }
}

fn model_check() -> Check {
    let path = store::default_model_path();
    match gguf::read_info(&path) {
        Ok(info) if info.file_size == store::DEFAULT_MODEL_BYTES => check(
            "default model",
            Status::Ok,
            format!(
                "{} ({}, {})",
                path.display(),
                info.architecture.as_deref().unwrap_or("?"),
                info.quantization
            ),
            None,
        ),
        Ok(info) => check(
            "default model",
            Status::NotReady,
            format!(
                "{} has {} bytes, not {}",
                path.display(),
                info.file_size,
                store::DEFAULT_MODEL_BYTES
            ),
            Some("aipc model fetch".into()),
        ),
        Err(e) => check(
            "default model",
            Status::NotReady,
            format!("{e} (needed unless `aipc run` gets --model)"),
            Some("aipc model fetch".into()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_each_fix_and_the_verdict() {
        let diagnosis = Diagnosis {
            ready: false,
            build: "aipc test".into(),
            checks: vec![
                check("python3", Status::Ok, "Python 3.11.7", None),
                check(
                    "toolchain x",
                    Status::NotReady,
                    "missing",
                    Some("aipc toolchain setup x".into()),
                ),
            ],
        };
        let text = diagnosis.to_text();
        assert!(text.contains("ok        python3: Python 3.11.7"), "{text}");
        assert!(text.contains("NOT READY toolchain x: missing"), "{text}");
        assert!(text.contains("fix: aipc toolchain setup x"), "{text}");
        assert!(text.contains("not ready: 1 item(s)"), "{text}");
        let json = serde_json::to_value(&diagnosis).unwrap();
        assert_eq!(json["checks"][1]["status"], "not-ready");
        assert_eq!(json["checks"][1]["fix"], "aipc toolchain setup x");
    }
}
