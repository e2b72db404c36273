//! `run`: a shell command in the workspace root, its output streamed line by line to the
//! engine, the model told the exit status and the last lines.

use super::process::{run_command, CommandSpec};
use super::text::{clip_line, OBSERVATION_LIMIT};
use super::{ToolContext, ToolResult};
use crate::protocol::OutputStream;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

pub const DESCRIPTION: &str = "Run a shell command (sh -c) in the workspace root, without \
stdin. You are told the exit code and the last lines of output (stdout and stderr together). \
Long-running commands are killed at the timeout.";

/// Longest command the tool-call constraint lets the model write (a longer one belongs in a
/// script). Unbounded, the 270M model
/// ran a command into a repetition (`(opset 18): run (opset 18): run …`) until the reply's token
/// limit cut it, and the reply was no JSON at all; bounded, the constraint closes the string.
pub const MAX_COMMAND_CHARS: u32 = 300;

const TAIL_LINES: usize = 60;
const MAX_LINE_CHARS: usize = 300;

/// Arguments of `run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunArgs {
    /// The shell command, e.g. `python export.py --out model.onnx`.
    #[schemars(length(min = 1, max = "MAX_COMMAND_CHARS"))]
    pub command: String,
    /// Seconds before the command is killed (default: the stage's timeout).
    #[schemars(range(min = 1, max = 86400))]
    pub timeout_s: Option<u64>,
}

/// The last lines seen, and how many there were.
#[derive(Default)]
struct Tail {
    lines: VecDeque<String>,
    total: usize,
}

pub async fn run(args: RunArgs, ctx: &ToolContext<'_>) -> ToolResult {
    if args.command.trim().is_empty() {
        return ToolResult::failure("command must not be empty");
    }
    let timeout = args
        .timeout_s
        .map_or(ctx.run_timeout, |s| Duration::from_secs(s.max(1)));
    // `QNN_SDK_ROOT` is cleared unless the engine's environment sets it explicitly.
    let mut env = vec![("QNN_SDK_ROOT".to_string(), String::new())];
    env.extend(ctx.env.iter().cloned());
    let tail = Mutex::new(Tail::default());
    let on_line = |stream: OutputStream, line: &str| {
        (ctx.on_output)(stream, line);
        if let Ok(mut tail) = tail.lock() {
            tail.total += 1;
            tail.lines.push_back(clip_line(line, MAX_LINE_CHARS));
            if tail.lines.len() > TAIL_LINES {
                tail.lines.pop_front();
            }
        }
    };
    let spec = CommandSpec {
        command: &args.command,
        cwd: ctx.workspace.root(),
        env: &env,
        env_remove: ctx.env_remove,
        timeout,
        sandbox: ctx.sandbox,
        spill: ctx.spill.clone(),
    };
    let outcome = match run_command(&spec, &ctx.cancel, &on_line).await {
        Ok(outcome) => outcome,
        Err(e) => return ToolResult::failure(format!("could not start the command: {e}")),
    };
    let tail = tail
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let secs = outcome.duration.as_secs_f64();
    let mut observation = if outcome.timed_out {
        format!(
            "timed out after {}s; the command and its children were killed\n",
            timeout.as_secs()
        )
    } else if outcome.cancelled {
        "cancelled; the command and its children were killed\n".to_string()
    } else if let Some(code) = outcome.exit_code {
        format!("exit code {code} ({secs:.1}s)\n")
    } else {
        format!(
            "killed by signal {} ({secs:.1}s)\n",
            outcome.signal.unwrap_or_default()
        )
    };
    observation.push_str(&render_tail(&tail, OBSERVATION_LIMIT - 200));
    let mut result = if outcome.success() {
        ToolResult::success(observation)
    } else {
        ToolResult::failure(observation)
    };
    result.exit_code = outcome.exit_code;
    result
}

/// The tail lines that fit in `budget` bytes, with a note on what was left out.
fn render_tail(tail: &Tail, budget: usize) -> String {
    if tail.total == 0 {
        return "(no output)\n".into();
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut used = 0;
    for line in tail.lines.iter().rev() {
        if used + line.len() + 1 > budget && !kept.is_empty() {
            break;
        }
        used += line.len() + 1;
        kept.push(line);
    }
    kept.reverse();
    let dropped = tail.total - kept.len();
    let mut out = if dropped > 0 {
        format!(
            "output (last {} lines; {dropped} earlier lines not shown, the full log is in the \
             event stream):\n",
            kept.len()
        )
    } else {
        "output:\n".to_string()
    };
    for line in kept {
        out.push_str(line);
        out.push('\n');
    }
    out
}
