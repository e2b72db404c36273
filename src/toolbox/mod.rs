//! The toolbox tools of a target: helper scripts declared in
//! `toolbox/targets/<target>/toolbox.toml` (format: docs/toolbox.md) that the model calls like
//! built-in tools.
//!
//! A stage offers a toolbox tool when its tool policy map names it (`[stage.tools] export =
//! "allow"`); the call then goes through the same policy, approval, step mode and edit-call as
//! any other, and runs as `python <script> --args-json '<args>'` in the project dir with the
//! toolchain environment (see [`crate::toolchain::env`]).
//!
//! Files: [`manifest`] loads and validates the manifest, [`invoke`] runs a call, and
//! [`observation`] turns its output into what the model is told (the final JSON line on
//! success, classified evidence on failure).

pub mod invoke;
pub mod manifest;
pub mod observation;

pub use invoke::{execute, execute_script, ScriptResult};
pub use manifest::ManifestError;

use crate::contract::Contract;
use crate::tools::ToolSpec;
use std::path::{Path, PathBuf};

/// The manifest's file name, in the target's folder.
pub const MANIFEST_FILE: &str = "toolbox.toml";

/// One toolbox tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolboxTool {
    /// The name the model calls (`[a-z][a-z0-9_]*`, distinct from every built-in tool).
    pub name: String,
    pub description: String,
    /// The script (absolute).
    pub script: PathBuf,
    /// Seconds before the script is killed; `None`: the stage's `run_timeout_s`.
    pub timeout_s: Option<u64>,
    /// JSON schema of the arguments object (an object schema, `additionalProperties: false`
    /// unless the manifest says otherwise).
    pub schema: serde_json::Value,
}

impl ToolboxTool {
    /// The tool as the model sees it.
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            schema: self.schema.clone(),
        }
    }
}

/// A target's toolbox tools, in manifest order (empty when the target has no manifest).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Toolbox {
    /// The manifest it was loaded from.
    pub file: Option<PathBuf>,
    pub tools: Vec<ToolboxTool>,
    /// Scripts renamed since sessions were recorded, `(old, new)` file names in the target's
    /// folder (the manifest's `renamed` table).
    pub renamed: Vec<(String, String)>,
}

impl Toolbox {
    /// Load `<target_dir>/toolbox.toml`; a missing file is an empty toolbox.
    pub fn load(target_dir: &Path) -> Result<Toolbox, ManifestError> {
        let path = target_dir.join(MANIFEST_FILE);
        let name = path.display().to_string();
        match crate::safe_read::read_to_string(&path, crate::safe_read::CONTRACT) {
            Ok(text) => manifest::parse(&name, &text, target_dir, &crate::tools::builtin_names()),
            Err(e) if e.is_not_found() => Ok(Toolbox::default()),
            Err(e) => Err(ManifestError::new(
                &name,
                format!("cannot read: {}", e.problem),
            )),
        }
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&ToolboxTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The tools' names, in manifest order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }

    /// The tools as the model sees them, in manifest order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(ToolboxTool::spec).collect()
    }

    /// Bring a contract a session recorded (`aipc rerun`, `aipc resume` run under it) up to the
    /// target's current scripts: a check command naming a script the manifest has `renamed`
    /// since, as `$AIPC_TARGET_DIR/<old>` or `${AIPC_TARGET_DIR}/<old>`, names the new file. The
    /// script is the same, so the check is too. Returns how many commands changed.
    pub fn upgrade_recorded_contract(&self, contract: &mut Contract) -> usize {
        let mut changed = 0;
        for stage in &mut contract.stages {
            for check in &mut stage.checks {
                let Some(command) = &check.command else {
                    continue;
                };
                let upgraded = self.upgrade_command(command);
                if upgraded != *command {
                    check.command = Some(upgraded);
                    changed += 1;
                }
            }
        }
        changed
    }

    /// `command` with each renamed script's old path replaced by the new one.
    fn upgrade_command(&self, command: &str) -> String {
        let mut out = command.to_string();
        for (old, new) in &self.renamed {
            for dir in ["$AIPC_TARGET_DIR/", "${AIPC_TARGET_DIR}/"] {
                out = replace_path(&out, &format!("{dir}{old}"), &format!("{dir}{new}"));
            }
        }
        out
    }
}

/// `text` with every `from` that is a whole path (not followed by more of a file name, e.g.
/// `inspect.py` in `inspect.pyc`) replaced by `to`.
fn replace_path(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let after = &rest[at + from.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')));
        out.push_str(&rest[..at]);
        out.push_str(if whole { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{Budgets, CheckSpec, StageSpec};

    fn toolbox() -> Toolbox {
        Toolbox {
            renamed: vec![("inspect.py".into(), "inspect_artifact.py".into())],
            ..Toolbox::default()
        }
    }

    #[test]
    fn a_recorded_check_naming_a_renamed_script_runs_the_new_file() {
        let check = |command: &str| CheckSpec {
            command: Some(command.into()),
            ..CheckSpec::default()
        };
        let mut contract = Contract {
            stages: vec![StageSpec {
                checks: vec![
                    check(r#"python "$AIPC_TARGET_DIR/inspect.py" --artifact build/model.onnx"#),
                    check("python ${AIPC_TARGET_DIR}/inspect.py"),
                    // Not the renamed script: another file, another folder, a longer name.
                    check(r#"python "$AIPC_TARGET_DIR/compare.py""#),
                    check("python inspect.py && python $AIPC_TARGET_DIR/inspect.pyc"),
                ],
                ..StageSpec::default()
            }],
            target: "t".into(),
            description: String::new(),
            artifacts: Vec::new(),
            budgets: Budgets::default(),
            sources: Vec::new(),
            sandbox: Default::default(),
        };
        assert_eq!(toolbox().upgrade_recorded_contract(&mut contract), 2);
        let commands: Vec<_> = contract.stages[0]
            .checks
            .iter()
            .map(|c| c.command.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(
            commands,
            [
                r#"python "$AIPC_TARGET_DIR/inspect_artifact.py" --artifact build/model.onnx"#,
                "python ${AIPC_TARGET_DIR}/inspect_artifact.py",
                r#"python "$AIPC_TARGET_DIR/compare.py""#,
                "python inspect.py && python $AIPC_TARGET_DIR/inspect.pyc",
            ]
        );
        // Nothing left to upgrade: a second pass changes nothing.
        assert_eq!(toolbox().upgrade_recorded_contract(&mut contract), 0);
    }
}
