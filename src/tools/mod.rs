//! The tools a model calls while it deploys a project: reading, listing, searching and editing
//! files in the workspace, running commands, loading skills, and the two control tools that end
//! a stage or ask a human.
//!
//! The engine shows the model [`builtin_specs`] and feeds each call to [`execute`], which never
//! panics: unknown tools and bad arguments come back as `ok: false` results whose observation
//! says what was expected. Every path goes through [`Workspace`] confinement; every file change
//! comes back as a [`FileDiff`].
//!
//! File map (one concern each): [`confine`] (paths), [`process`] (running commands),
//! `schema` (argument schemas), `text` (bounding output), and one file per tool family:
//! `read`, `list`, `search`, `edit` (with `matching`), `write`, `patch`, `project_option`,
//! `run`, `skill`, `control`.

pub mod confine;
mod control;
mod edit;
pub mod error;
mod list;
mod matching;
mod patch;
pub mod process;
pub(crate) mod project_option;
mod read;
pub(crate) mod run;
pub(crate) mod schema;
mod search;
mod skill;
pub(crate) mod text;
mod write;

pub use confine::Workspace;
pub use error::ToolError;
pub use process::{
    run_command, shell_quote, CommandOutcome, CommandSpec, HEAD_BYTES, HEAD_LINES, MAX_LINE_BYTES,
    OUTPUT_CAP_BYTES, SPILL_CAP_BYTES, TAIL_BYTES, TAIL_LINES,
};

use crate::protocol::{FileDiff, OutputStream};
use serde::de::DeserializeOwned;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How `list_dir` and `search` walk the workspace: hidden files included, the project's
/// `.gitignore` and `info/exclude` honoured (not the user's global ignores, so results do not
/// depend on the machine), `.git` skipped, in name order so observations reproduce.
pub(crate) fn workspace_walker(dir: &std::path::Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(dir);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b));
    builder
}

/// A tool as the model sees it. Names and descriptions are owned so that tools declared in a
/// target's toolbox manifest are first-class next to the built-in ones.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object (compact: no `$schema`, `title`, `format`).
    pub schema: serde_json::Value,
}

/// What a control tool asks the engine to do after the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolControl {
    /// The model believes the stage's goal is met; the engine runs the stage checks.
    FinishStage { summary: String },
    /// The model needs a human's answer.
    AskHuman { question: String },
}

/// The outcome of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub ok: bool,
    /// What the model is told; bounded (about 4000 characters, more for skills), and a
    /// truncation says so.
    pub observation: String,
    /// Files the call changed.
    pub diffs: Vec<FileDiff>,
    /// The exit code of `run`.
    pub exit_code: Option<i32>,
    pub control: Option<ToolControl>,
}

impl ToolResult {
    /// A successful call that changed nothing.
    pub fn success(observation: impl Into<String>) -> Self {
        ToolResult {
            ok: true,
            observation: observation.into(),
            diffs: Vec::new(),
            exit_code: None,
            control: None,
        }
    }

    /// A failed call; the observation says why.
    pub fn failure(observation: impl Into<String>) -> Self {
        ToolResult {
            ok: false,
            ..ToolResult::success(observation)
        }
    }
}

impl From<ToolError> for ToolResult {
    fn from(error: ToolError) -> Self {
        ToolResult::failure(error.to_string())
    }
}

/// What a tool call may use.
pub struct ToolContext<'a> {
    pub workspace: &'a Workspace,
    pub cancel: CancellationToken,
    /// Called once per output line of `run`.
    pub on_output: &'a (dyn Fn(OutputStream, &str) + Send + Sync),
    /// Skill name to its body, or an error text.
    pub load_skill: &'a (dyn Fn(&str) -> Result<String, String> + Send + Sync),
    /// Timeout of `run` when the call gives none.
    pub run_timeout: Duration,
    /// Extra environment for commands.
    pub env: &'a [(String, String)],
    /// Variables removed from the inherited environment of commands.
    pub env_remove: &'a [String],
    /// Where `run` and toolbox commands run: the session's sandbox for this stage.
    pub sandbox: &'a crate::sandbox::Sandbox,
    /// Where a command's output beyond the streamed head is kept.
    pub spill: Option<std::path::PathBuf>,
}

struct ToolDef {
    name: &'static str,
    description: &'static str,
    schema: fn() -> serde_json::Value,
}

const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "read_file",
        description: read::DESCRIPTION,
        schema: schema::schema_of::<read::ReadFileArgs>,
    },
    ToolDef {
        name: "list_dir",
        description: list::DESCRIPTION,
        schema: schema::schema_of::<list::ListDirArgs>,
    },
    ToolDef {
        name: "search",
        description: search::DESCRIPTION,
        schema: schema::schema_of::<search::SearchArgs>,
    },
    ToolDef {
        name: "edit_file",
        description: edit::DESCRIPTION,
        schema: schema::schema_of::<edit::EditFileArgs>,
    },
    ToolDef {
        name: "write_file",
        description: write::DESCRIPTION,
        schema: schema::schema_of::<write::WriteFileArgs>,
    },
    ToolDef {
        name: "apply_patch",
        description: patch::DESCRIPTION,
        schema: schema::schema_of::<patch::ApplyPatchArgs>,
    },
    ToolDef {
        name: "set_project_option",
        description: project_option::DESCRIPTION,
        schema: project_option::schema,
    },
    ToolDef {
        name: "run",
        description: run::DESCRIPTION,
        schema: schema::schema_of::<run::RunArgs>,
    },
    ToolDef {
        name: "load_skill",
        description: skill::DESCRIPTION,
        schema: schema::schema_of::<skill::LoadSkillArgs>,
    },
    ToolDef {
        name: "finish_stage",
        description: control::FINISH_DESCRIPTION,
        schema: schema::schema_of::<control::FinishStageArgs>,
    },
    ToolDef {
        name: "ask_human",
        description: control::ASK_DESCRIPTION,
        schema: schema::schema_of::<control::AskHumanArgs>,
    },
];

/// Bound on a skill body's observation: skills are instructions and are read whole.
const SKILL_OBSERVATION_LIMIT: usize = 16_000;

fn to_spec(def: &ToolDef) -> ToolSpec {
    ToolSpec {
        name: def.name.to_string(),
        description: def.description.to_string(),
        schema: (def.schema)(),
    }
}

/// All built-in tools, in a stable order.
pub fn builtin_specs() -> Vec<ToolSpec> {
    TOOLS.iter().map(to_spec).collect()
}

/// The names of the built-in tools, in the same order.
pub fn builtin_names() -> Vec<&'static str> {
    TOOLS.iter().map(|d| d.name).collect()
}

/// The built-in tool called `name`.
pub fn spec(name: &str) -> Option<ToolSpec> {
    TOOLS.iter().find(|d| d.name == name).map(to_spec)
}

/// Run tool `name` with `args`. Never panics: an unknown tool, bad arguments, or an internal
/// failure yields `ok: false` with an observation the model can act on.
pub async fn execute(name: &str, args: &serde_json::Value, ctx: &ToolContext<'_>) -> ToolResult {
    let Some(def) = TOOLS.iter().find(|d| d.name == name) else {
        return unknown_tool(name);
    };
    let schema = (def.schema)();
    let args = schema::coerce(args, &schema);
    let call = dispatch(def.name, &schema, args, ctx);
    let mut result = match (CatchUnwind {
        inner: Box::pin(call),
    })
    .await
    {
        Ok(result) => result,
        Err(()) => ToolResult::failure(format!(
            "internal error: tool `{name}` crashed; nothing more is known. Try another approach."
        )),
    };
    let limit = if def.name == "load_skill" {
        SKILL_OBSERVATION_LIMIT
    } else {
        text::OBSERVATION_LIMIT
    };
    result.observation = text::bound(&result.observation, limit);
    result
}

async fn dispatch(
    name: &'static str,
    schema: &serde_json::Value,
    args: serde_json::Value,
    ctx: &ToolContext<'_>,
) -> ToolResult {
    macro_rules! call {
        ($run:path) => {
            match parse(name, schema, args) {
                Ok(parsed) => $run(parsed, ctx).await,
                Err(failure) => failure,
            }
        };
    }
    match name {
        "read_file" => call!(read::run),
        "list_dir" => call!(list::run),
        "search" => call!(search::run),
        "edit_file" => call!(edit::run),
        "write_file" => call!(write::run),
        "apply_patch" => call!(patch::run),
        "set_project_option" => call!(project_option::run),
        "run" => call!(run::run),
        "load_skill" => call!(skill::run),
        "finish_stage" => call!(control::finish),
        "ask_human" => call!(control::ask),
        _ => unknown_tool(name),
    }
}

fn parse<T: DeserializeOwned>(
    name: &str,
    schema: &serde_json::Value,
    args: serde_json::Value,
) -> Result<T, ToolResult> {
    serde_json::from_value(args).map_err(|e| {
        ToolResult::failure(format!(
            "invalid arguments for `{name}`: {e}. Expected arguments: {}",
            schema::signature(name, schema)
        ))
    })
}

fn unknown_tool(name: &str) -> ToolResult {
    let names: Vec<&str> = TOOLS.iter().map(|d| d.name).collect();
    let closest = names
        .iter()
        .map(|n| (similar::TextDiff::from_chars(name, n).ratio(), n))
        .filter(|(ratio, _)| *ratio >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| format!(" Did you mean `{n}`?"))
        .unwrap_or_default();
    ToolResult::failure(format!(
        "unknown tool `{name}`.{closest} Available tools: {}",
        names.join(", ")
    ))
}

/// Turns a panic while polling the tool into `Err(())`.
struct CatchUnwind<F> {
    inner: Pin<Box<F>>,
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_complete_and_ordered() {
        let specs = builtin_specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "read_file",
                "list_dir",
                "search",
                "edit_file",
                "write_file",
                "apply_patch",
                "set_project_option",
                "run",
                "load_skill",
                "finish_stage",
                "ask_human"
            ]
        );
        for s in builtin_specs() {
            assert_eq!(s.schema["type"], "object", "{}", s.name);
            assert_eq!(s.schema["additionalProperties"], false, "{}", s.name);
            assert!(!s.description.is_empty());
        }
        assert!(spec("run").is_some());
        assert!(spec("nope").is_none());
    }

    #[test]
    fn unknown_tool_suggests_the_closest() {
        let r = unknown_tool("read_fil");
        assert!(!r.ok);
        assert!(r.observation.contains("Did you mean `read_file`?"));
    }
}
