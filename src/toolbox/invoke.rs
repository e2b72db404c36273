//! Running one toolbox call: arguments coerced and checked against the tool's schema, then
//! `python <script> --args-json '<args>'` in the workspace root with the session's environment
//! and the tool's timeout, output streamed line by line, the process group killed on timeout or
//! cancellation ([`crate::tools::process`]), and the outcome turned into an observation.

use super::observation::{observe, ScriptRun};
use super::ToolboxTool;
use crate::evidence::Failure;
use crate::protocol::{Evidence, OutputStream};
use crate::tools::schema::{coerce, signature};
use crate::tools::text::{bound, OBSERVATION_LIMIT};
use crate::tools::{run_command, shell_quote as quote, CommandSpec, ToolContext, ToolResult};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

/// A toolbox call's outcome: the result the model is told, and the calls a successful
/// script's JSON result names next (its `next_calls` field, e.g. the `set_project_option` that
/// records what an analysis chose), in the exact-call form of a signature's fixes.
pub struct ScriptResult {
    pub result: ToolResult,
    pub next_calls: Vec<String>,
}

/// Run `tool` with `args`. `python` is the interpreter (the target venv's, or `python3`);
/// `classify` reduces a failure to evidence. Never panics; every problem is an `ok: false`
/// result whose observation says what to do.
pub async fn execute(
    tool: &ToolboxTool,
    args: &Value,
    ctx: &ToolContext<'_>,
    python: &str,
    classify: &(dyn Fn(&Failure) -> Evidence + Send + Sync),
) -> ToolResult {
    execute_script(tool, args, ctx, python, classify)
        .await
        .result
}

/// [`execute`], with the calls a successful result names next.
pub async fn execute_script(
    tool: &ToolboxTool,
    args: &Value,
    ctx: &ToolContext<'_>,
    python: &str,
    classify: &(dyn Fn(&Failure) -> Evidence + Send + Sync),
) -> ScriptResult {
    let failed = |observation: String| ScriptResult {
        result: ToolResult::failure(observation),
        next_calls: Vec::new(),
    };
    let args = coerce(args, &tool.schema);
    if let Err(problem) = check_args(&args, &tool.schema) {
        return failed(format!(
            "invalid arguments for `{}`: {problem}. Expected arguments: {}",
            tool.name,
            signature(&tool.name, &tool.schema)
        ));
    }
    let command = format!(
        "{} {} --args-json {}",
        quote(python),
        quote(&tool.script.display().to_string()),
        quote(&args.to_string())
    );
    let timeout = tool
        .timeout_s
        .map_or(ctx.run_timeout, |s| Duration::from_secs(s.max(1)));
    let log = Mutex::new(String::new());
    let on_line = |stream: OutputStream, line: &str| {
        (ctx.on_output)(stream, line);
        if let Ok(mut log) = log.lock() {
            log.push_str(line);
            log.push('\n');
        }
    };
    let spec = CommandSpec {
        command: &command,
        cwd: ctx.workspace.root(),
        env: ctx.env,
        env_remove: ctx.env_remove,
        timeout,
        sandbox: ctx.sandbox,
        spill: ctx.spill.clone(),
    };
    let outcome = match run_command(&spec, &ctx.cancel, &on_line).await {
        Ok(outcome) => outcome,
        Err(e) => {
            return failed(format!(
                "could not start `{}` with {python}: {e}",
                tool.script.display()
            ))
        }
    };
    let log = log.into_inner().unwrap_or_else(|p| p.into_inner());
    let (ok, observation) = observe(
        &ScriptRun {
            tool: &tool.name,
            outcome: &outcome,
            log: &log,
            timeout,
        },
        classify,
    );
    let observation = bound(&observation, OBSERVATION_LIMIT);
    let mut result = if ok {
        ToolResult::success(observation)
    } else {
        ToolResult::failure(observation)
    };
    result.exit_code = outcome.exit_code;
    let next_calls = if ok {
        next_calls(&outcome.stdout)
    } else {
        Vec::new()
    };
    ScriptResult { result, next_calls }
}

/// At most this many next calls are taken from one result (a script's output is untrusted).
const MAX_NEXT_CALLS: usize = 4;
/// A next call longer than this is ignored.
const MAX_NEXT_CALL_CHARS: usize = 2000;

/// The `next_calls` strings of the JSON result line in `stdout` (none when absent or not a
/// list of strings; overlong entries are dropped).
fn next_calls(stdout: &str) -> Vec<String> {
    let Some(result) = crate::contract::parse_metrics_line(stdout) else {
        return Vec::new();
    };
    result
        .get("next_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|call| call.len() <= MAX_NEXT_CALL_CHARS)
        .take(MAX_NEXT_CALLS)
        .map(str::to_string)
        .collect()
}

/// Check `args` against an object schema: required keys, unknown keys (when
/// `additionalProperties` is false), and each property's type, `enum`, `minimum`, `maximum`.
pub fn check_args(args: &Value, schema: &Value) -> Result<(), String> {
    let Some(map) = args.as_object() else {
        return Err(format!("the arguments must be a JSON object, got {args}"));
    };
    let empty = serde_json::Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        let missing: Vec<&str> = required
            .iter()
            .filter_map(Value::as_str)
            .filter(|r| !map.contains_key(*r))
            .collect();
        if !missing.is_empty() {
            return Err(format!("missing {}", missing.join(", ")));
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (key, value) in map {
        let Some(prop) = props.get(key) else {
            if closed {
                return Err(format!("unknown argument `{key}`"));
            }
            continue;
        };
        if let Some(kind) = prop.get("type") {
            let kinds: Vec<&str> = match kind {
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                other => other.as_str().into_iter().collect(),
            };
            if !kinds.iter().any(|k| has_type(value, k)) {
                return Err(format!(
                    "`{key}` must be {}, got {value}",
                    kinds.join(" or ")
                ));
            }
        }
        if let Some(options) = prop.get("enum").and_then(Value::as_array) {
            if !options.contains(value) {
                let shown: Vec<String> = options.iter().map(Value::to_string).collect();
                return Err(format!("`{key}` must be one of {}", shown.join(", ")));
            }
        }
        if let Some(number) = value.as_f64() {
            if let Some(min) = prop.get("minimum").and_then(Value::as_f64) {
                if number < min {
                    return Err(format!("`{key}` must be at least {min}, got {number}"));
                }
            }
            if let Some(max) = prop.get("maximum").and_then(Value::as_f64) {
                if number > max {
                    return Err(format!("`{key}` must be at most {max}, got {number}"));
                }
            }
        }
    }
    Ok(())
}

fn has_type(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_checked_against_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "opset": {"type": "integer", "minimum": 13, "maximum": 23},
                "mode": {"type": "string", "enum": ["int8", "none"]},
            },
            "required": ["opset"],
            "additionalProperties": false,
        });
        assert!(check_args(&json!({"opset": 18}), &schema).is_ok());
        assert!(check_args(&json!({"opset": 18, "mode": "int8"}), &schema).is_ok());
        let err = |args| check_args(&args, &schema).unwrap_err();
        assert_eq!(err(json!({})), "missing opset");
        assert!(err(json!({"opset": 9})).contains("at least 13"));
        assert!(err(json!({"opset": "x"})).contains("must be integer"));
        assert!(err(json!({"opset": 18, "mode": "fp16"})).contains("one of"));
        assert!(err(json!({"opset": 18, "extra": 1})).contains("unknown argument `extra`"));
        assert!(err(json!([1])).contains("JSON object"));
    }
}
