//! `read_file`: a window of a text file with line numbers, saying how much remains.

use super::text::{clip_line, OBSERVATION_LIMIT};
use super::{ToolContext, ToolError, ToolResult};
use crate::safe_read;
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Read a text file. Shows numbered lines (number, tab, text) and \
says how many lines remain; continue with a larger offset. The numbers are not part of the file.";

const DEFAULT_LIMIT: usize = 200;
const MAX_LINE_CHARS: usize = 400;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// File path relative to the workspace root.
    pub path: String,
    /// First line to show, counting from 1 (default 1).
    pub offset: Option<usize>,
    /// Maximum number of lines to show (default 200).
    pub limit: Option<usize>,
}

pub async fn run(args: ReadFileArgs, ctx: &ToolContext<'_>) -> ToolResult {
    match read(&args, ctx) {
        Ok(result) => result,
        Err(e) => e.into(),
    }
}

fn read(args: &ReadFileArgs, ctx: &ToolContext<'_>) -> Result<ToolResult, ToolError> {
    let path = ctx.workspace.resolve(&args.path)?;
    let shown = ctx.workspace.relative(&path);
    if path.is_dir() {
        return Ok(ToolResult::failure(format!(
            "`{shown}` is a directory; use list_dir to see its contents"
        )));
    }
    let bytes = safe_read::read(&path, safe_read::WORKSPACE_FILE)
        .map_err(|e| ToolError::unreadable(&shown, e))?;
    if bytes.iter().take(8000).any(|b| *b == 0) {
        return Ok(ToolResult::failure(format!(
            "`{shown}` is a binary file ({} bytes); it cannot be shown as text",
            bytes.len()
        )));
    }
    let content = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = content.lines().collect();
    let total = lines.len();
    if total == 0 {
        return Ok(ToolResult::success(format!("`{shown}` is empty")));
    }
    let start = args.offset.unwrap_or(1).max(1);
    if start > total {
        return Ok(ToolResult::failure(format!(
            "`{shown}` has only {total} lines; offset {start} is past the end"
        )));
    }
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let width = total.to_string().len();
    let budget = OBSERVATION_LIMIT - 300;
    let mut body = String::new();
    let mut last = start - 1;
    for (index, line) in lines.iter().enumerate().skip(start - 1).take(limit) {
        let numbered = format!(
            "{:>width$}\t{}\n",
            index + 1,
            clip_line(line, MAX_LINE_CHARS)
        );
        if body.len() + numbered.len() > budget && last >= start {
            break;
        }
        body.push_str(&numbered);
        last = index + 1;
    }
    let mut observation = format!("{shown}: lines {start}-{last} of {total}\n{body}");
    if last < total {
        observation.push_str(&format!(
            "[{} more lines; call read_file with offset={} to continue]\n",
            total - last,
            last + 1
        ));
    } else {
        observation.push_str("[end of file]\n");
    }
    Ok(ToolResult::success(observation))
}
