//! Merging a project's `aipc.toml` layer over a target's `contract.toml` layer, then resolving
//! defaults into the final [`Contract`].
//!
//! Precedence, most specific first: a stage's own key (project patch, then target stage), then
//! `[defaults]` (project, then target), then built-in defaults. Tool policies layer the same
//! way, key by key: target `defaults.tools` < project `defaults.tools` < target `stage.tools` <
//! project `stage.tools`.

use super::error::{stage_ctx, ContractError};
use super::load::{Layer, LayerCheck, LayerStage};
use super::{Budgets, CheckSpec, Contract, SandboxSettings, StageSpec};
use crate::protocol::Policy;
use std::collections::BTreeMap;

/// Built-in `[defaults] attempts`.
pub const DEFAULT_ATTEMPTS: u32 = 3;
/// Built-in `[defaults] turns_per_attempt`.
pub const DEFAULT_TURNS_PER_ATTEMPT: u32 = 12;
/// Built-in `[defaults] run_timeout_s`.
pub const DEFAULT_RUN_TIMEOUT_S: u64 = 600;
/// Built-in `[budgets] total_tokens`.
pub const DEFAULT_TOTAL_TOKENS: u64 = 400_000;
/// Built-in `[budgets] wall_time_s`.
pub const DEFAULT_WALL_TIME_S: u64 = 3600;

/// A stage while layers are merged, with the file and line that last defined or patched it.
struct Work {
    stage: LayerStage,
    file: String,
    line: usize,
    /// Added by the project (not in the target's contract).
    project_only: bool,
}

/// Merge `project` over `target` and resolve every default.
pub(crate) fn merge(target: Layer, project: Option<Layer>) -> Result<Contract, ContractError> {
    let target_name = match &target.target {
        Some(t) => t.value.clone(),
        None => {
            return Err(ContractError::new(&target.file, "missing key")
                .with_key("target")
                .with_hint("a target's contract.toml names its target"));
        }
    };
    let mut stages: Vec<Work> = target
        .stages
        .iter()
        .map(|s| Work {
            stage: s.clone(),
            file: target.file.clone(),
            line: s.line,
            project_only: false,
        })
        .collect();
    let mut artifacts = target.artifacts.clone();
    let mut defaults_tools = target.tools.clone();
    let (mut total_tokens, mut wall_time_s) = (target.total_tokens, target.wall_time_s);
    let (mut attempts, mut turns, mut run_timeout) = (
        target.attempts,
        target.turns_per_attempt,
        target.run_timeout_s,
    );

    if let Some(p) = &project {
        artifacts.extend(p.artifacts.iter().cloned());
        defaults_tools.extend(p.tools.iter().map(|(k, v)| (k.clone(), *v)));
        total_tokens = p.total_tokens.or(total_tokens);
        wall_time_s = p.wall_time_s.or(wall_time_s);
        attempts = p.attempts.or(attempts);
        turns = p.turns_per_attempt.or(turns);
        run_timeout = p.run_timeout_s.or(run_timeout);
        // Where the last stage inserted after a given anchor went, so that several stages
        // inserted after the same anchor keep the project's order.
        let mut last_after: BTreeMap<String, String> = BTreeMap::new();
        for ps in &p.stages {
            if let Some(i) = stages.iter().position(|w| w.stage.name == ps.name) {
                // Project stage names are unique (checked when parsing), so a match is a
                // target stage: patched in place, never moved.
                if let Some(after) = &ps.after {
                    return Err(ContractError::new(
                        &p.file,
                        "`after` only places stages the project adds; this one patches the target's",
                    )
                    .with_line(after.line)
                    .with_context(stage_ctx(&ps.name))
                    .with_key("after")
                    .with_hint("remove `after`: a patch keeps the target stage where it is"));
                }
                patch(&mut stages[i], ps, &p.file);
                continue;
            }
            let pos = match &ps.after {
                None => stages.len(),
                Some(after) => {
                    let anchor = last_after.get(&after.value).unwrap_or(&after.value);
                    match stages.iter().position(|w| &w.stage.name == anchor) {
                        Some(i) => i + 1,
                        None => {
                            let names: Vec<&str> =
                                stages.iter().map(|w| w.stage.name.as_str()).collect();
                            return Err(ContractError::new(
                                &p.file,
                                format!("no stage named \"{}\" to insert after", after.value),
                            )
                            .with_line(after.line)
                            .with_context(stage_ctx(&ps.name))
                            .with_key("after")
                            .with_hint(format!(
                                "stages so far: {}",
                                if names.is_empty() {
                                    "(none)".to_string()
                                } else {
                                    names.join(", ")
                                }
                            )));
                        }
                    }
                }
            };
            if let Some(after) = &ps.after {
                last_after.insert(after.value.clone(), ps.name.clone());
            }
            stages.insert(
                pos,
                Work {
                    stage: ps.clone(),
                    file: p.file.clone(),
                    line: ps.line,
                    project_only: true,
                },
            );
        }
    }

    let attempts = attempts.unwrap_or(DEFAULT_ATTEMPTS);
    let turns = turns.unwrap_or(DEFAULT_TURNS_PER_ATTEMPT);
    let run_timeout = run_timeout.unwrap_or(DEFAULT_RUN_TIMEOUT_S);
    let mut resolved = Vec::with_capacity(stages.len());
    for w in stages {
        resolved.push(resolve_stage(
            w,
            &defaults_tools,
            attempts,
            turns,
            run_timeout,
        )?);
    }
    let mut sources = vec![target.file.clone().into()];
    if let Some(p) = &project {
        sources.push(p.file.clone().into());
    }
    Ok(Contract {
        target: target_name,
        description: target.description.clone().unwrap_or_default(),
        artifacts,
        budgets: Budgets {
            total_tokens: total_tokens.unwrap_or(DEFAULT_TOTAL_TOKENS),
            wall_time_s: wall_time_s.unwrap_or(DEFAULT_WALL_TIME_S),
        },
        stages: resolved,
        sources,
        sandbox: SandboxSettings {
            mode: project
                .as_ref()
                .and_then(|p| p.sandbox.mode)
                .or(target.sandbox.mode),
            memory_mb: project
                .as_ref()
                .and_then(|p| p.sandbox.memory_mb)
                .or(target.sandbox.memory_mb),
        },
    })
}

/// Apply a project entry to the target stage of the same name.
fn patch(w: &mut Work, ps: &LayerStage, file: &str) {
    let s = &mut w.stage;
    if ps.goal.is_some() {
        s.goal.clone_from(&ps.goal);
    }
    if ps.skills.is_some() {
        s.skills.clone_from(&ps.skills);
    }
    s.agent = ps.agent.or(s.agent);
    s.checks_first = ps.checks_first.or(s.checks_first);
    if ps.main_tool.is_some() {
        s.main_tool.clone_from(&ps.main_tool);
    }
    s.attempts = ps.attempts.or(s.attempts);
    s.turns_per_attempt = ps.turns_per_attempt.or(s.turns_per_attempt);
    s.run_timeout_s = ps.run_timeout_s.or(s.run_timeout_s);
    s.tools
        .extend(ps.tools.iter().map(|(k, v)| (k.clone(), *v)));
    for c in &ps.checks {
        match s.checks.iter_mut().find(|old| old.name == c.name) {
            Some(old) => *old = c.clone(),
            None => s.checks.push(c.clone()),
        }
    }
    w.file = file.to_string();
    w.line = ps.line;
}

fn resolve_stage(
    w: Work,
    defaults_tools: &BTreeMap<String, Policy>,
    attempts: u32,
    turns: u32,
    run_timeout: u64,
) -> Result<StageSpec, ContractError> {
    let s = w.stage;
    let agent = s.agent.unwrap_or(true);
    let goal = s.goal.unwrap_or_default();
    let err = |msg: &str| {
        ContractError::new(&w.file, msg)
            .with_line(w.line)
            .with_context(stage_ctx(&s.name))
    };
    if agent && goal.trim().is_empty() {
        let msg = if w.project_only {
            "a stage the project adds needs a goal (agent = true)"
        } else {
            "an agent stage needs a goal"
        };
        return Err(err(msg).with_key("goal").with_hint(
            "write `goal = \"…\"` telling the model what to achieve, or set `agent = false` for a checks-only stage",
        ));
    }
    if !agent && s.checks.is_empty() {
        return Err(
            err("a stage with `agent = false` and no checks does nothing")
                .with_key("check")
                .with_hint("add a [[stage.check]], or remove `agent = false`"),
        );
    }
    let checks_first = s.checks_first.unwrap_or(false);
    if checks_first && s.checks.is_empty() {
        return Err(err(
            "`checks_first = true` needs checks: with none the stage would pass unchecked",
        )
        .with_key("checks_first")
        .with_hint("add a [[stage.check]], or remove `checks_first`"));
    }
    let run_timeout_s = s.run_timeout_s.unwrap_or(run_timeout);
    let mut tools = defaults_tools.clone();
    tools.extend(s.tools);
    if let Some(main) = &s.main_tool {
        if tools.get(main).is_none_or(|p| *p == Policy::Deny) {
            return Err(err(&format!(
                "`main_tool = \"{main}\"` is not a tool this stage allows"
            ))
            .with_key("main_tool")
            .with_hint("name a tool of [stage.tools], or remove `main_tool`"));
        }
    }
    Ok(StageSpec {
        checks: s
            .checks
            .into_iter()
            .map(|c| resolve_check(c, run_timeout_s))
            .collect(),
        name: s.name,
        goal,
        agent,
        checks_first,
        main_tool: s.main_tool,
        skills: s.skills.unwrap_or_default(),
        tools,
        attempts: s.attempts.unwrap_or(attempts),
        turns_per_attempt: s.turns_per_attempt.unwrap_or(turns),
        run_timeout_s,
    })
}

fn resolve_check(c: LayerCheck, run_timeout_s: u64) -> CheckSpec {
    CheckSpec {
        name: c.name,
        command: c.command,
        expect_exit: c.expect_exit,
        files: c.files,
        gates: c.gates,
        timeout_s: c.timeout_s.unwrap_or(run_timeout_s),
        when: c.when,
    }
}
