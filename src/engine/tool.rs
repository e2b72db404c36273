//! One interface for every tool the model may call: the built-in tools ([`crate::tools`]) and
//! the target's toolbox scripts ([`crate::toolbox`]) resolve to a [`Tool`], which the call
//! pipeline runs the same way. Also which tools exist (a contract naming an unknown one is
//! refused before a session starts) and which a stage offers.

use crate::contract::{Contract, StageSpec};
use crate::evidence::{Classifier, Failure};
use crate::protocol::Policy;
use crate::toolbox::{Toolbox, ToolboxTool};
use crate::tools::{self, ToolContext, ToolResult, ToolSpec};

use super::StartError;

/// Tools that exist in every stage whatever the contract says: the model must be able to end
/// a stage.
const ALWAYS_OFFERED: &[&str] = &["finish_stage"];

/// A tool the model named, resolved.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tool<'a> {
    /// A built-in tool (file tools, `run`, `load_skill`, control tools), by name.
    Builtin(&'a str),
    /// A script from the target's toolbox manifest.
    Toolbox(&'a ToolboxTool),
}

/// What a toolbox script's failure needs classified: the signature table and whether the
/// session classifies at all (a control arm does not).
pub(crate) struct Classify<'a> {
    pub(crate) classifier: &'a Classifier,
    pub(crate) classified: bool,
    /// The Python of the target's toolchain.
    pub(crate) python: &'a str,
}

/// One call's outcome as the pipeline observes it.
pub(crate) struct ToolRun {
    pub(crate) result: ToolResult,
    /// A failed toolbox script's failure and the fixes its signature lists.
    pub(crate) failure: Option<(Failure, Vec<String>)>,
    /// The calls a successful toolbox script's result names next (its `next_calls`).
    pub(crate) next_calls: Vec<String>,
}

impl<'a> Tool<'a> {
    /// The toolbox's tool of that name, else the built-in one (an unknown name runs as a
    /// built-in and fails with a suggestion).
    pub(crate) fn resolve(name: &'a str, toolbox: &'a Toolbox) -> Tool<'a> {
        match toolbox.get(name) {
            Some(tool) => Tool::Toolbox(tool),
            None => Tool::Builtin(name),
        }
    }

    /// A toolbox script edits files behind the engine's back (a codemod) and writes the build
    /// outputs: the worktree is compared before and after, and artifacts recorded after it.
    pub(crate) fn is_script(&self) -> bool {
        matches!(self, Tool::Toolbox(_))
    }

    /// Run it.
    pub(crate) async fn run(
        &self,
        args: &serde_json::Value,
        ctx: &ToolContext<'_>,
        classify: &Classify<'_>,
    ) -> ToolRun {
        match self {
            Tool::Builtin(name) => ToolRun {
                result: tools::execute(name, args, ctx).await,
                failure: None,
                next_calls: Vec::new(),
            },
            Tool::Toolbox(tool) => {
                let failed = std::sync::Mutex::new(None);
                let on_failure = |failure: &Failure| {
                    let evidence = classify.classifier.classify(failure, classify.classified);
                    if let Ok(mut slot) = failed.lock() {
                        *slot = Some((failure.clone(), evidence.candidate_fixes.clone()));
                    }
                    evidence
                };
                let script =
                    crate::toolbox::execute_script(tool, args, ctx, classify.python, &on_failure)
                        .await;
                ToolRun {
                    result: script.result,
                    failure: failed.into_inner().unwrap_or_else(|p| p.into_inner()),
                    next_calls: script.next_calls,
                }
            }
        }
    }
}

/// How the contract lets a stage use `tool` (a tool it does not name is denied).
pub(crate) fn policy(stage: &StageSpec, tool: &str) -> Policy {
    if ALWAYS_OFFERED.contains(&tool) {
        return Policy::Allow;
    }
    stage.tools.get(tool).copied().unwrap_or(Policy::Deny)
}

/// The built-in tools that change files in the worktree.
/// (`set_project_option` is not one: it changes only aipc.toml's `[project]` table, and a stage
/// that does not name it denies it, which must not make `run` read-only.)
const FILE_EDIT_TOOLS: &[&str] = &["write_file", "edit_file", "apply_patch"];

/// True when the stage's policy denies any file-editing tool: then `run` may not edit files
/// either ([`super::call`] gives it a read-only worktree).
pub(crate) fn denies_file_edits(stage: &StageSpec) -> bool {
    FILE_EDIT_TOOLS
        .iter()
        .any(|tool| policy(stage, tool) == Policy::Deny)
}

/// The stage's tools the model may call (denied ones are not offered): the target's toolbox
/// tools the stage names, in manifest order — the stage's own actions, listed first because a
/// small model favours what it reads first — then the built-in ones. `load_skill` only when
/// the stage offers skills, its `name` constrained to them (a small model otherwise writes a
/// path or a check command there, and spends its turns on the refusals).
pub(crate) fn offered(stage: &StageSpec, toolbox: &Toolbox, skills: &[String]) -> Vec<ToolSpec> {
    toolbox
        .specs()
        .into_iter()
        .chain(tools::builtin_specs())
        .filter(|spec: &ToolSpec| {
            policy(stage, &spec.name) != Policy::Deny
                && (spec.name != "load_skill" || !skills.is_empty())
        })
        .map(|mut spec| {
            if spec.name == "load_skill" {
                if let Some(name) = spec.schema.pointer_mut("/properties/name") {
                    name["enum"] = serde_json::json!(skills);
                }
            }
            spec
        })
        .collect()
}

/// Every tool a contract names must exist: a built-in tool or one of the target's toolbox
/// tools. The contract loader cannot check this (it does not know the manifest); the CLI calls
/// it before setting up a toolchain, and [`super::Engine::start`] again.
pub fn validate_tools(contract: &Contract, toolbox: &Toolbox) -> Result<(), StartError> {
    let mut known: Vec<&str> = tools::builtin_names();
    known.extend(toolbox.names());
    for stage in &contract.stages {
        for tool in stage.tools.keys() {
            if known.contains(&tool.as_str()) {
                continue;
            }
            let suggestion = closest_name(tool, &known)
                .map(|n| format!("did you mean `{n}`? "))
                .unwrap_or_default();
            let manifest = match &toolbox.file {
                Some(file) => format!("the built-in tools and {}", file.display()),
                None => format!(
                    "the built-in tools (target \"{}\" has no toolbox.toml)",
                    contract.target
                ),
            };
            return Err(StartError::Contract(format!(
                "{}: stage \"{}\": key \"tools.{tool}\": unknown tool (not in {manifest})\n  \
                 hint: {suggestion}known tools: {}",
                contract
                    .sources
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" + "),
                stage.name,
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// The known name nearest to `name`, when near enough to be a typo.
fn closest_name<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (similar::TextDiff::from_chars(name, k).ratio(), *k))
        .filter(|(ratio, _)| *ratio >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage(tools: &[&str]) -> StageSpec {
        StageSpec {
            name: "export".into(),
            tools: tools
                .iter()
                .map(|t| (t.to_string(), Policy::Allow))
                .collect(),
            ..StageSpec::default()
        }
    }

    #[test]
    fn load_skill_takes_only_the_stages_skills() {
        let stage = stage(&["load_skill", "read_file"]);
        let skills = vec!["llm-deployment".to_string(), "latency-tuning".to_string()];
        let offered = offered(&stage, &Toolbox::default(), &skills);
        let load = offered.iter().find(|s| s.name == "load_skill").unwrap();
        assert_eq!(
            load.schema.pointer("/properties/name/enum"),
            Some(&serde_json::json!(["llm-deployment", "latency-tuning"]))
        );
        // No skills: no load_skill at all.
        let offered = super::offered(&stage, &Toolbox::default(), &[]);
        assert!(offered.iter().all(|s| s.name != "load_skill"));
        assert!(offered.iter().any(|s| s.name == "read_file"));
    }
}
