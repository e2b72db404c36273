//! The deployment contract: which stages run, with which tools and policies, under which checks
//! and budgets.
//!
//! Two files make a contract: the target's default `toolbox/targets/<target>/contract.toml`,
//! and the project's optional `aipc.toml`, merged over it. The full reference is
//! `docs/contract.md`; in short:
//!
//! ```toml
//! target = "onnxruntime-cpu"              # required in a target's contract.toml
//! description = "..."                     # target only
//! artifacts = ["*.onnx", "*.onnx.data"]   # globs; the project's list is appended
//! [budgets]                               # whole session
//! total_tokens = 400000
//! wall_time_s = 3600
//! [sandbox]                               # how commands run (docs/sandbox.md)
//! mode = "strict"                         # or "workspace-write" (network on); never "off"
//! memory_mb = 16384                       # per command (default: 3/4 of memory)
//! [defaults]                              # per stage, unless the stage says otherwise
//! attempts = 3                            # first try counts as attempt 1
//! turns_per_attempt = 12
//! run_timeout_s = 600                     # `run` tool and default check timeout
//! [defaults.tools]                        # tool -> "allow" | "ask" | "deny"
//! read_file = "allow"
//!
//! [[stage]]
//! name = "export"                         # letters, digits, `_`, `-`
//! goal = "Export the model to ONNX"       # required when agent = true
//! skills = ["export-data-dependent-control-flow"]
//! agent = true                            # false: checks only
//! checks_first = true                     # run the checks before any model turn
//! main_tool = "export"                    # the tool whose output the checks test
//! attempts = 4
//! turns_per_attempt = 8
//! run_timeout_s = 300
//! after = "setup"                         # aipc.toml only: where a new stage goes
//! [stage.tools]
//! apply_patch = "deny"
//! [[stage.check]]
//! name = "export runs"
//! command = "python export.py"
//! expect_exit = 0
//! files = ["model.onnx"]                  # globs, relative to the project dir
//! gates = ["cosine >= 0.99"]              # over the last JSON-object line of stdout
//! timeout_s = 300                         # default: the stage's run_timeout_s
//! when = 'quantize != "none"'             # applies only while aipc.toml [project] says so
//! ```
//!
//! A project's `aipc.toml` may also hold a free-form `[project]` table, read by the toolbox
//! scripts (docs/toolbox.md) and otherwise ignored here.
//!
//! In `aipc.toml`, a `[[stage]]` whose name matches a target stage patches it (given fields
//! replace, `tools` merge key by key, checks replace by name or are appended); a new name is
//! inserted after the stage its `after` names, or appended.
//!
//! Files: `load.rs` parses one file into a located layer, `merge.rs` layers and resolves,
//! `gate.rs` parses and evaluates gates, `error.rs` is the located error.

mod condition;
mod error;
mod gate;
mod load;
mod merge;

pub use condition::{Condition, ConditionError, ConditionOp};
pub use error::{ContractError, ErrorInfo};
pub use gate::{flatten_metrics, lookup_metric, parse_metrics_line, CmpOp, Gate, GateError};
pub use merge::{
    DEFAULT_ATTEMPTS, DEFAULT_RUN_TIMEOUT_S, DEFAULT_TOTAL_TOKENS, DEFAULT_TURNS_PER_ATTEMPT,
    DEFAULT_WALL_TIME_S,
};

use crate::protocol::Policy;
use crate::safe_read;
use load::{Layer, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The project's contract file name, in the project directory.
pub const PROJECT_FILE: &str = "aipc.toml";
/// A target's contract file name, in `<targets_dir>/<target>/`.
pub const TARGET_FILE: &str = "contract.toml";

/// A resolved contract: every default applied, every stage in run order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    pub target: String,
    pub description: String,
    /// Build-output globs: never committed, hashed into the session log.
    pub artifacts: Vec<String>,
    pub budgets: Budgets,
    pub stages: Vec<StageSpec>,
    /// The files it was built from: the target's contract, then the project's `aipc.toml`.
    pub sources: Vec<PathBuf>,
    /// `[sandbox]`: how commands are confined (the project's setting wins over the target's).
    #[serde(default)]
    pub sandbox: SandboxSettings,
}

/// `[sandbox]` of a contract.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSettings {
    /// `strict` or `workspace-write` (never `off`); `None`: the default, strict.
    #[serde(default)]
    pub mode: Option<crate::sandbox::SandboxMode>,
    /// Address-space limit of each command's processes, MiB (default: 3/4 of memory).
    #[serde(default)]
    pub memory_mb: Option<u64>,
}

/// Session-wide budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Budgets {
    pub total_tokens: u64,
    pub wall_time_s: u64,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            total_tokens: DEFAULT_TOTAL_TOKENS,
            wall_time_s: DEFAULT_WALL_TIME_S,
        }
    }
}

/// One stage, resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageSpec {
    pub name: String,
    /// What the model is to achieve; empty only when `agent` is false.
    pub goal: String,
    /// false: no model turns, the checks alone decide (e.g. an environment stage).
    pub agent: bool,
    /// Run the checks before any model turn: when they pass, the stage passes with no model
    /// call; when they fail, attempt 1 starts as a repair attempt with their evidence.
    #[serde(default)]
    pub checks_first: bool,
    /// The tool whose output the checks test (e.g. `export`): once it succeeds only
    /// `finish_stage` is offered, and a successful codemod's observation names it
    /// ([`crate::engine::narrowing`]).
    #[serde(default)]
    pub main_tool: Option<String>,
    pub skills: Vec<String>,
    /// Tool -> policy, `[defaults.tools]` merged with the stage's `tools`.
    pub tools: BTreeMap<String, Policy>,
    pub checks: Vec<CheckSpec>,
    /// Attempts, the first try included (≥ 1).
    pub attempts: u32,
    pub turns_per_attempt: u32,
    /// Default timeout of the `run` tool in this stage.
    pub run_timeout_s: u64,
}

impl Default for StageSpec {
    fn default() -> Self {
        StageSpec {
            name: String::new(),
            goal: String::new(),
            agent: true,
            checks_first: false,
            main_tool: None,
            skills: Vec::new(),
            tools: BTreeMap::new(),
            checks: Vec::new(),
            attempts: DEFAULT_ATTEMPTS,
            turns_per_attempt: DEFAULT_TURNS_PER_ATTEMPT,
            run_timeout_s: DEFAULT_RUN_TIMEOUT_S,
        }
    }
}

/// One check of a stage, resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckSpec {
    pub name: String,
    /// Shell command run in the project dir; `None`: only `files` are checked.
    pub command: Option<String>,
    pub expect_exit: i32,
    /// Paths or globs, relative to the project dir, that must exist afterwards.
    pub files: Vec<String>,
    /// Over the JSON object the command prints as its last stdout line.
    pub gates: Vec<Gate>,
    pub timeout_s: u64,
    /// The check applies only while this holds on the project's `[project]` table, read when
    /// the check is about to run ([`CheckSpec::skip_reason`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Condition>,
}

impl Default for CheckSpec {
    fn default() -> Self {
        CheckSpec {
            name: String::new(),
            command: None,
            expect_exit: 0,
            files: Vec::new(),
            gates: Vec::new(),
            timeout_s: DEFAULT_RUN_TIMEOUT_S,
            when: None,
        }
    }
}

impl Contract {
    /// Load `<targets_dir>/<target>/contract.toml` and merge `<project>/aipc.toml` over it.
    ///
    /// `targets_dir` = `<data>/toolbox/targets`; `project` = the project dir (its `aipc.toml`
    /// is optional). `target`: from the CLI; `None` → the project's `target` key; neither → error.
    pub fn load(
        targets_dir: &Path,
        target: Option<&str>,
        project: &Path,
    ) -> Result<Contract, ContractError> {
        let project_path = project.join(PROJECT_FILE);
        let project_name = project_path.display().to_string();
        let project_layer = match safe_read::read_to_string(&project_path, safe_read::CONTRACT) {
            Ok(text) => Some(Layer::parse(&project_name, &text, Role::Project)?),
            Err(e) if e.is_not_found() => None,
            Err(e) => {
                return Err(ContractError::new(
                    &project_name,
                    format!("cannot read: {}", e.problem),
                ))
            }
        };
        let available = || {
            let names = available_targets(targets_dir);
            if names.is_empty() {
                format!("no targets found in {}", targets_dir.display())
            } else {
                format!("available targets: {}", names.join(", "))
            }
        };
        // The name, and where it came from (for errors): the CLI, or the project's key.
        let (name, from_project_line) = match (target, &project_layer) {
            (Some(t), _) => (t.to_string(), None),
            (None, Some(p)) => match &p.target {
                Some(t) => (t.value.clone(), Some(t.line)),
                None => {
                    return Err(ContractError::new(&project_name, "no target given")
                        .with_key("target")
                        .with_hint(format!(
                            "pass --target <name> or set `target = \"…\"` in {PROJECT_FILE}; {}",
                            available()
                        )))
                }
            },
            (None, None) => {
                return Err(ContractError::new(
                    &project_name,
                    "no target given, and there is no project contract",
                )
                .with_hint(format!(
                    "pass --target <name> or create {PROJECT_FILE} with `target = \"…\"`; {}",
                    available()
                )))
            }
        };
        let contract_path = targets_dir.join(&name).join(TARGET_FILE);
        let contract_name = contract_path.display().to_string();
        let not_found = |message: String| {
            let e = match from_project_line {
                Some(line) => ContractError::new(&project_name, message)
                    .with_line(line)
                    .with_key("target"),
                None => ContractError::new(&contract_name, message),
            };
            e.with_hint(available())
        };
        let plain = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.contains(['/', '\\'])
            && !name.contains(char::is_whitespace);
        if !plain {
            return Err(not_found(format!("\"{name}\" is not a target name")));
        }
        let text = match safe_read::read_to_string(&contract_path, safe_read::CONTRACT) {
            Ok(t) => t,
            Err(e) if e.is_not_found() => {
                let msg = if targets_dir.join(&name).is_dir() {
                    format!("target \"{name}\" has no {TARGET_FILE}")
                } else {
                    format!("unknown target \"{name}\"")
                };
                return Err(not_found(msg));
            }
            Err(e) => {
                return Err(ContractError::new(
                    &contract_name,
                    format!("cannot read: {}", e.problem),
                ))
            }
        };
        let target_layer = Layer::parse(&contract_name, &text, Role::Target)?;
        if let Some(t) = &target_layer.target {
            if t.value != name {
                return Err(ContractError::new(
                    &contract_name,
                    format!(
                        "declares target \"{}\" but is the contract of target \"{name}\"",
                        t.value
                    ),
                )
                .with_line(t.line)
                .with_key("target")
                .with_hint(format!("set `target = \"{name}\"`")));
            }
        }
        let mut contract = merge::merge(target_layer, project_layer)?;
        contract.sources = vec![contract_path];
        if project_path.is_file() {
            contract.sources.push(project_path);
        }
        Ok(contract)
    }

    /// Build a contract from texts: `(file name for messages, text)` of the target's contract
    /// and, optionally, of the project's `aipc.toml`. The project's `target` key is ignored.
    pub fn from_strs(
        target_src: (&str, &str),
        project_src: Option<(&str, &str)>,
    ) -> Result<Contract, ContractError> {
        let target = Layer::parse(target_src.0, target_src.1, Role::Target)?;
        let project = project_src
            .map(|(name, text)| Layer::parse(name, text, Role::Project))
            .transpose()?;
        merge::merge(target, project)
    }

    /// The stage named `name`.
    pub fn stage(&self, name: &str) -> Option<&StageSpec> {
        self.stages.iter().find(|s| s.name == name)
    }
}

impl CheckSpec {
    /// Why the check does not apply to the project as it is now (its `when` does not hold on
    /// `project`, the `[project]` table), e.g. `quantize = "none" in aipc.toml (applies when
    /// quantize != "none")`; `None` when it applies.
    pub fn skip_reason(&self, project: Option<&toml::Table>) -> Option<String> {
        let when = self.when.as_ref()?;
        (!when.holds(project)).then(|| {
            format!(
                "{} in {PROJECT_FILE} (applies when {when})",
                when.observed(project)
            )
        })
    }
}

impl StageSpec {
    /// Why the whole stage does not apply now: it has checks, and not one of them applies
    /// (every one's `when` fails on `project`). An agent stage with nothing to decide would
    /// otherwise ask the model for work no check reads.
    pub fn skip_reason(&self, project: Option<&toml::Table>) -> Option<String> {
        let reasons: Vec<String> = self
            .checks
            .iter()
            .map(|c| c.skip_reason(project))
            .collect::<Option<Vec<_>>>()?;
        let mut unique: Vec<String> = Vec::new();
        for r in reasons {
            if !unique.contains(&r) {
                unique.push(r);
            }
        }
        (!unique.is_empty()).then(|| format!("no check applies: {}", unique.join("; ")))
    }
}

/// The `[project]` table of `<project>/aipc.toml` as the file is now; `None` when there is no
/// file, it cannot be read or parsed, or it has no `[project]` table (a condition then sees no
/// key set; a file that cannot be read fails the checks that read it, with their own message).
pub fn project_table(project: &Path) -> Option<toml::Table> {
    let text = safe_read::read_to_string(&project.join(PROJECT_FILE), safe_read::CONTRACT).ok()?;
    let mut file: toml::Table = text.parse().ok()?;
    match file.remove("project") {
        Some(toml::Value::Table(t)) => Some(t),
        _ => None,
    }
}

/// Names of the targets under `targets_dir`: subdirectories holding a `contract.toml`, sorted.
pub fn available_targets(targets_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(targets_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join(TARGET_FILE).is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    names
}
