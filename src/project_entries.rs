//! The deeper check of aipc.toml's `module:function` entries, before any toolchain is set up:
//! each module file must parse and bind the function at its top level. It runs the host's
//! `python3` on an embedded script (`project_entries.py`) that only parses with `ast` — nothing is
//! imported, so it needs neither torch nor the project's dependencies. [`crate::project_table`]
//! checks keys, types and that each module file exists; this catches the hook that cannot import
//! (a syntax error, with its file:line) or names a function the module does not have (the
//! aipc.toml line), which otherwise surfaces only after a 6 GB toolchain install.

use crate::project_table::{keys, TableProblem};
use serde::Deserialize;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const SCRIPT: &str = include_str!("project_entries.py");
/// The check parses a few small files; past this it is abandoned (a hung interpreter).
const TIMEOUT: Duration = Duration::from_secs(30);

/// One problem the script found: `file` is `aipc.toml` (a function the module lacks) or the
/// module's file, relative to the project (it does not parse).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct EntryProblem {
    pub key: String,
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl EntryProblem {
    /// As [`crate::project_table::validate`] reports problems of aipc.toml itself; a module's
    /// syntax error keeps its own file in the message.
    pub(crate) fn to_table_problem(&self) -> TableProblem {
        if self.file == "aipc.toml" {
            TableProblem {
                line: Some(self.line),
                message: self.message.clone(),
            }
        } else {
            TableProblem {
                line: None,
                message: format!("{}:{}: {}", self.file, self.line, self.message),
            }
        }
    }
}

/// The `module:function` entries of the `[project]` table in `text`, with their lines.
fn entries(text: &str) -> Vec<(String, String, usize)> {
    let Ok(doc) = toml_edit::ImDocument::parse(text) else {
        return Vec::new();
    };
    let Some(table) = doc.get("project").and_then(|t| t.as_table_like()) else {
        return Vec::new();
    };
    table
        .iter()
        .filter(|(key, _)| keys().get(*key).is_some_and(|spec| spec.entry))
        .filter_map(|(key, item)| {
            let entry = item.as_str()?;
            entry.contains(':').then(|| {
                let line = item
                    .span()
                    .map_or(0, |s| crate::evidence::line_of(text, s.start));
                (key.to_string(), entry.to_string(), line)
            })
        })
        .collect()
}

/// Check the entries of `text` (an aipc.toml) against the modules in `project_dir`. `Err` when
/// the check itself could not run (no python3, a timeout): the caller goes on without it, since
/// the toolbox's `env` check imports the entries for real later.
pub(crate) fn check(text: &str, project_dir: &Path) -> Result<Vec<EntryProblem>, String> {
    let entries = entries(text);
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let list = serde_json::to_string(&entries).map_err(|e| e.to_string())?;
    let mut child = Command::new("python3")
        .arg("-I")
        .arg("-c")
        .arg(SCRIPT)
        .arg(project_dir)
        .arg(list)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3 could not be started: {e}"))?;
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "python3 did not finish within {} s",
                    TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "the entry check failed: {}",
            stderr.lines().last().unwrap_or("no output")
        ));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("the entry check printed no problem list: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const TOML: &str = "target = \"onnxruntime-cpu\"\n[project]\nmodel = \"nets.zoo:build\"\nexample_inputs = \"data:example\"\neval_data = \"data:evaluation\"\n";

    #[test]
    fn bound_functions_pass_whatever_binds_them() {
        let dir = project(&[
            ("nets/__init__.py", ""),
            ("nets/zoo.py", "from .blocks import make as build\n"),
            (
                "data.py",
                "import torch\ntry:\n    def example():\n        pass\nexcept ImportError:\n    example = None\nevaluation = lambda: None\n",
            ),
        ]);
        assert_eq!(check(TOML, dir.path()).unwrap(), Vec::new());
    }

    #[test]
    fn an_attribute_path_needs_its_first_name_bound_at_top_level() {
        let toml = "target = \"onnxruntime-cpu\"\n[project]\nmodel = \"nets.zoo:Zoo.build\"\nexample_inputs = \"data:SCALER.example\"\n";
        let dir = project(&[
            ("nets/__init__.py", ""),
            (
                "nets/zoo.py",
                "class Zoo:\n    @staticmethod\n    def build():\n        pass\n",
            ),
            ("data.py", "class Scaler:\n    pass\n"),
        ]);
        let problems = check(toml, dir.path()).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            (problems[0].key.as_str(), problems[0].line),
            ("example_inputs", 4)
        );
        assert!(
            problems[0].message.contains("data.py defines no `SCALER`"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn a_missing_function_names_the_aipc_toml_line_and_a_close_name() {
        let dir = project(&[
            ("nets/__init__.py", ""),
            ("nets/zoo.py", "def build():\n    pass\n"),
            (
                "data.py",
                "def example():\n    pass\n\ndef evaluate():\n    pass\n",
            ),
        ]);
        let problems = check(TOML, dir.path()).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!(
            (p.key.as_str(), p.file.as_str(), p.line),
            ("eval_data", "aipc.toml", 5)
        );
        assert!(
            p.message.contains("data.py defines no `evaluation`"),
            "{}",
            p.message
        );
        assert!(
            p.message.contains("did you mean `evaluate`?"),
            "{}",
            p.message
        );
    }

    #[test]
    fn a_module_that_does_not_parse_names_its_own_line() {
        let dir = project(&[
            ("nets/__init__.py", ""),
            ("nets/zoo.py", "def build():\n    return (\n"),
            ("data.py", "def example(): pass\ndef evaluation(): pass\n"),
        ]);
        let problems = check(TOML, dir.path()).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = problems[0].to_table_problem();
        assert_eq!(p.line, None);
        assert!(
            p.message.starts_with("nets/zoo.py:2: does not parse"),
            "{}",
            p.message
        );
    }
}
