//! `--model policy:first-candidate`: a deterministic stand-in for a model that measures what
//! the signature tables and the narrowing achieve on their own (DeployBench's `no-model` arm).
//!
//! Each turn it reads only the request's call schema and the conversation:
//! - when the turn is narrowed to the calls the evidence names (`finish_stage` is then not
//!   offered), it makes the first one that is not `load_skill` and needs no argument written
//!   (else the first one, with the arguments the evidence binds);
//! - when only one tool besides `finish_stage` can be called (a rebuild after a repair) or only
//!   `finish_stage` is left, it makes that call;
//! - on an open turn, it makes the first offered tool the stage goal names, once per attempt,
//!   when that tool needs no arguments; otherwise it calls `finish_stage` and lets the checks
//!   decide.
//!
//! It never reads skills, never edits a file by itself and never asks a human: whatever it
//! deploys, the tables and the stage goals deployed.

use super::{
    estimate_prompt_tokens, estimate_tokens, ModelBackend, ModelError, ModelInfo, ModelReply,
    ModelRequest, Role,
};
use async_trait::async_trait;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// The `--model` value that selects this backend.
pub const SPEC: &str = "policy:first-candidate";

const FINISH: &str = "finish_stage";
const LOAD_SKILL: &str = "load_skill";

#[derive(Debug, Default)]
pub struct FirstCandidatePolicy;

/// One offered tool: its name and its arguments' schema.
struct Offered {
    name: String,
    args: Value,
}

fn offered(call_schema: &Value) -> Vec<Offered> {
    call_schema
        .get("oneOf")
        .and_then(Value::as_array)
        .map(|branches| {
            branches
                .iter()
                .filter_map(|b| {
                    let props = b.get("properties")?;
                    let name = props.get("tool")?.get("const")?.as_str()?.to_string();
                    let args = props.get("args").cloned().unwrap_or_else(|| json!({}));
                    // A tool offered several times is one branch whose args are the `anyOf` of
                    // each offer (conversation::call_schema): one entry per offer, in order.
                    let each = match args.get("anyOf").and_then(Value::as_array) {
                        Some(alternatives) => alternatives.clone(),
                        None => vec![args],
                    };
                    Some(
                        each.into_iter()
                            .map(|args| Offered {
                                name: name.clone(),
                                args,
                            })
                            .collect::<Vec<_>>(),
                    )
                })
                .flatten()
                .collect()
        })
        .unwrap_or_default()
}

/// The value a fully bound schema accepts (every property a `const` or a bound object), or
/// `None` when the schema leaves a choice.
fn bound_value(schema: &Value) -> Option<Value> {
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    let props = schema.get("properties")?.as_object()?;
    let mut out = Map::new();
    for (key, sub) in props {
        out.insert(key.clone(), bound_value(sub)?);
    }
    Some(Value::Object(out))
}

/// The arguments a partly bound schema fixes (its `const` properties); the free ones are left
/// out.
fn bound_part(schema: &Value) -> Value {
    let props = schema.get("properties").and_then(Value::as_object);
    Value::Object(
        props
            .into_iter()
            .flatten()
            .filter_map(|(key, sub)| Some((key.clone(), bound_value(sub)?)))
            .collect(),
    )
}

/// Whether the tool can be called with `{}`.
fn needs_no_args(schema: &Value) -> bool {
    schema
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|r| r.is_empty())
}

/// The stage goal of the attempt: the text after "Stage goal:" in the latest user message
/// that has one.
fn stage_goal(request: &ModelRequest) -> String {
    request
        .messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .find_map(|m| {
            m.content
                .split_once("Stage goal:")
                .map(|(_, rest)| rest.split("\n\n").next().unwrap_or(rest).to_string())
        })
        .unwrap_or_default()
}

/// The call this policy makes for `request`.
fn decide(request: &ModelRequest) -> (String, Value, &'static str) {
    let tools = offered(&request.call_schema);
    let finish_offered = tools.iter().any(|t| t.name == FINISH);
    let callable: Vec<&Offered> = tools
        .iter()
        .filter(|t| t.name != FINISH && t.name != LOAD_SKILL)
        .collect();
    if !finish_offered {
        // Narrowed to what the evidence names, or to the rebuild after a repair. A call that
        // leaves an argument to write (a function body) is one this policy cannot make, so the
        // first fully bound one goes first; failing that, the first one with its bound part.
        if let Some((first, args)) = callable
            .iter()
            .find_map(|t| bound_value(&t.args).map(|args| (t, args)))
        {
            return (
                first.name.clone(),
                args,
                "the first call the evidence names",
            );
        }
        if let Some(first) = callable.first() {
            return (
                first.name.clone(),
                bound_part(&first.args),
                "the first call the evidence names, with the arguments it binds",
            );
        }
    }
    if callable.is_empty() {
        return (
            FINISH.into(),
            json!({"summary": "no call left"}),
            "only finish_stage is left",
        );
    }
    let turns_so_far = request
        .messages
        .iter()
        .rev()
        .take_while(|m| m.role != Role::System)
        .filter(|m| m.role == Role::Assistant)
        .count();
    if turns_so_far == 0 {
        let goal = stage_goal(request);
        let named = callable
            .iter()
            .filter(|t| needs_no_args(&t.args))
            .filter_map(|t| {
                goal.find(&format!("{} ", t.name))
                    .or_else(|| goal.find(&format!("{},", t.name)))
                    .map(|at| (at, t))
            })
            .min_by_key(|(at, _)| *at);
        if let Some((_, tool)) = named {
            return (
                tool.name.clone(),
                json!({}),
                "the first tool the stage goal names",
            );
        }
    }
    (
        FINISH.into(),
        json!({"summary": "the checks decide"}),
        "nothing named is left: the checks decide",
    )
}

#[async_trait]
impl ModelBackend for FirstCandidatePolicy {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: SPEC.to_string(),
            context_size: 0,
        }
    }

    async fn complete(
        &mut self,
        request: &ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let (tool, args, why) = decide(request);
        let text = json!({"thought": why, "tool": tool, "args": args}).to_string();
        on_delta(&text);
        Ok(ModelReply {
            prompt_tokens: estimate_prompt_tokens(request),
            completion_tokens: estimate_tokens(&text),
            cached_tokens: 0,
            duration_ms: started.elapsed().as_millis() as u64,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{call_schema, OfferedTool};
    use crate::engine::narrowing::bound_schema;
    use crate::model::Message;

    fn tool(name: &str, args: Value) -> OfferedTool {
        OfferedTool {
            name: name.into(),
            description: String::new(),
            args_schema: args,
        }
    }

    fn request(tools: Vec<OfferedTool>, messages: Vec<Message>) -> ModelRequest {
        ModelRequest {
            messages,
            call_schema: call_schema(&tools),
            max_tokens: 64,
        }
    }

    fn open_tools() -> Vec<OfferedTool> {
        vec![
            tool("env", json!({"type": "object", "properties": {}})),
            tool(
                "export",
                json!({"type": "object", "properties": {"opset": {"type": "integer"}}}),
            ),
            tool(
                "read_file",
                json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            ),
            tool(
                FINISH,
                json!({"type": "object", "properties": {"summary": {"type": "string"}}}),
            ),
        ]
    }

    #[test]
    fn a_narrowed_turn_takes_the_first_named_call_with_its_arguments() {
        let tools = vec![
            tool(LOAD_SKILL, bound_schema(&json!({"name": "x"}))),
            tool("quantize", bound_schema(&json!({"drop_outliers": true}))),
            tool("quantize", bound_schema(&json!({"method": "MinMax"}))),
        ];
        let (name, args, _) = decide(&request(tools, vec![]));
        assert_eq!(name, "quantize");
        assert_eq!(args, json!({"drop_outliers": true}));
    }

    #[test]
    fn a_call_that_needs_a_written_argument_goes_after_the_fully_bound_ones() {
        let partly = json!({
            "type": "object",
            "properties": {"file": {"const": "data.py"}, "body": {"type": "string"}},
            "required": ["file", "body"],
        });
        let tools = vec![
            tool("replace_function", partly.clone()),
            tool("quantize", bound_schema(&json!({"drop_outliers": true}))),
        ];
        let (name, args, _) = decide(&request(tools, vec![]));
        assert_eq!(
            (name.as_str(), args),
            ("quantize", json!({"drop_outliers": true}))
        );
        let alone = vec![tool("replace_function", partly)];
        let (name, args, _) = decide(&request(alone, vec![]));
        assert_eq!(
            (name.as_str(), args),
            ("replace_function", json!({"file": "data.py"}))
        );
    }

    #[test]
    fn an_open_first_turn_calls_the_tool_the_goal_names_then_finishes() {
        let goal = Message::new(
            Role::User,
            "Stage goal: The model exports. Call export, then finish_stage.\n\nChecks: env …",
        );
        let system = Message::new(Role::System, "You are aipc.");
        let (name, args, _) = decide(&request(open_tools(), vec![system.clone(), goal.clone()]));
        assert_eq!((name.as_str(), args), ("export", json!({})));
        let after = vec![
            system,
            goal,
            Message::new(Role::Assistant, "{}"),
            Message::new(Role::Tool, "ok"),
        ];
        assert_eq!(decide(&request(open_tools(), after)).0, FINISH);
    }

    #[test]
    fn only_finish_left_or_no_goal_tool_means_finish() {
        let only = vec![tool(FINISH, json!({"type": "object"}))];
        assert_eq!(decide(&request(only, vec![])).0, FINISH);
        let goal = Message::new(Role::User, "Stage goal: Everything runs.");
        assert_eq!(decide(&request(open_tools(), vec![goal])).0, FINISH);
    }

    #[test]
    fn a_rebuild_turn_calls_the_main_tool() {
        let tools = vec![tool(
            "export",
            json!({"type": "object", "properties": {"opset": {"type": "integer"}}}),
        )];
        let (name, args, _) = decide(&request(tools, vec![]));
        assert_eq!((name.as_str(), args), ("export", json!({})));
    }
}
