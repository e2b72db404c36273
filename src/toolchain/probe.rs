//! What one venv holds, read with one short `python -c` (package metadata only: nothing is
//! imported, so even torch answers in well under a second): the versions of the packages that
//! matter, and the full list of installed distributions that the venv's stamp is a hash of.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The packages `aipc doctor` reports, after `python` itself.
pub const PACKAGES: &[&str] = &["torch", "onnx", "onnxruntime", "executorch"];
/// How long the probe may take before it is killed.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

const SCRIPT: &str = r#"
import json, sys
from importlib import metadata
out = {"python": "%d.%d.%d" % tuple(sys.version_info[:3])}
for name in sys.argv[1:]:
    try:
        out[name] = metadata.version(name)
    except Exception:
        out[name] = None
print(json.dumps(out))
"#;

/// `(name, version)` for python and each of [`PACKAGES`]; `None` when the package is absent.
pub type Versions = Vec<(String, Option<String>)>;

/// Ask `python` (a venv's interpreter) for the versions; `Err` says why it could not answer.
pub fn versions(python: &Path) -> Result<Versions, String> {
    parse(&run_script(python, SCRIPT, PACKAGES)?)
}

const INSTALLED_SCRIPT: &str = r#"
from importlib import metadata
names = set()
for dist in metadata.distributions():
    name = (dist.metadata["Name"] or "").lower().replace("_", "-")
    if name:
        names.add("%s==%s" % (name, dist.version))
print("\n".join(sorted(names)))
"#;

/// Every distribution installed in `python`'s environment, as sorted `name==version` lines
/// (names lower-cased, `_` as `-`): what the venv actually holds, for its stamp.
pub fn installed(python: &Path) -> Result<Vec<String>, String> {
    let stdout = run_script(python, INSTALLED_SCRIPT, &[])?;
    Ok(stdout
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

/// Run `python -I -c script args…` with [`PROBE_TIMEOUT`]; its stdout, or why it failed.
fn run_script(python: &Path, script: &str, args: &[&str]) -> Result<String, String> {
    let mut child = Command::new(python)
        .arg("-I")
        .arg("-c")
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < PROBE_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} did not answer within {} s",
                    python.display(),
                    PROBE_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Err(format!("waiting for {}: {e}", python.display())),
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("reading {}: {e}", python.display()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().last().unwrap_or("no output");
        return Err(format!("{} failed: {last}", python.display()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn parse(stdout: &str) -> Result<Versions, String> {
    let value: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("unexpected probe output ({e}): {}", stdout.trim()))?;
    let version = |name: &str| value.get(name).and_then(|v| v.as_str()).map(str::to_string);
    let mut out = vec![("python".to_string(), version("python"))];
    out.extend(PACKAGES.iter().map(|p| (p.to_string(), version(p))));
    Ok(out)
}

/// `python 3.11.7, torch 2.15.0, onnx absent, …`.
pub fn describe(versions: &Versions) -> String {
    versions
        .iter()
        .map(|(name, v)| format!("{name} {}", v.as_deref().unwrap_or("absent")))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_packages_are_none_not_errors() {
        let v = parse(r#"{"python": "3.11.7", "torch": "2.15.0", "onnx": null}"#).unwrap();
        assert_eq!(
            describe(&v),
            "python 3.11.7, torch 2.15.0, onnx absent, onnxruntime absent, executorch absent"
        );
        assert!(parse("Traceback").is_err());
    }

    #[test]
    fn the_ambient_python_answers() {
        let Ok(python) = which_python3() else { return };
        let v = versions(&python).unwrap();
        assert_eq!(v[0].0, "python");
        assert!(
            v[0].1.as_deref().is_some_and(|s| s.starts_with('3')),
            "{v:?}"
        );
    }

    fn which_python3() -> Result<std::path::PathBuf, ()> {
        std::env::var_os("PATH")
            .and_then(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join("python3"))
                    .find(|c| c.is_file())
            })
            .ok_or(())
    }
}
