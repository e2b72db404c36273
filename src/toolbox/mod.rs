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

pub use invoke::execute;
pub use manifest::ManifestError;

use crate::tools::ToolSpec;
use std::path::{Path, PathBuf};

/// The manifest's file name, in the target's folder.
pub const MANIFEST_FILE: &str = "toolbox.toml";

/// One toolbox tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolboxTool {
    /// The name the model calls (`[a-z_]+`, distinct from every built-in tool).
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
}

impl Toolbox {
    /// Load `<target_dir>/toolbox.toml`; a missing file is an empty toolbox.
    pub fn load(target_dir: &Path) -> Result<Toolbox, ManifestError> {
        let path = target_dir.join(MANIFEST_FILE);
        let name = path.display().to_string();
        match std::fs::read_to_string(&path) {
            Ok(text) => manifest::parse(&name, &text, target_dir, &crate::tools::builtin_names()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Toolbox::default()),
            Err(e) => Err(ManifestError::new(&name, format!("cannot read: {e}"))),
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
}
