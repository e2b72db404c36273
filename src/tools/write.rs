//! `write_file`, and the one way every tool changes a file: write it (creating parent
//! directories) and report the change as a [`FileDiff`].

use super::{ToolContext, ToolError, ToolResult};
use crate::file_diff::file_diff;
use crate::protocol::FileDiff;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::Path;

pub const DESCRIPTION: &str = "Create a file or replace its whole content (parent directories \
are created). Prefer edit_file for changing part of an existing file.";

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// File path relative to the workspace root.
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

pub async fn run(args: WriteFileArgs, ctx: &ToolContext<'_>) -> ToolResult {
    let path = match ctx.workspace.resolve_for_write(&args.path) {
        Ok(path) => path,
        Err(e) => return e.into(),
    };
    let shown = ctx.workspace.relative(&path);
    let before = match read_existing(&path, &shown) {
        Ok(before) => before,
        Err(e) => return e.into(),
    };
    let created = before.is_none();
    match write_with_diff(
        &path,
        &shown,
        before.as_deref(),
        Some(args.content.as_bytes()),
    ) {
        Ok(None) => ToolResult::success(format!("`{shown}` already has this content; unchanged")),
        Ok(Some(diff)) => {
            let lines = args.content.lines().count();
            let verb = if created { "created" } else { "wrote" };
            let mut result = ToolResult::success(format!(
                "{verb} {shown} ({lines} lines, {} bytes; +{} -{})",
                args.content.len(),
                diff.added,
                diff.removed
            ));
            result.diffs.push(diff);
            result
        }
        Err(e) => e.into(),
    }
}

/// The bytes of the file at `path`, `None` if it does not exist; an error if it is a directory.
pub fn read_existing(path: &Path, shown: &str) -> Result<Option<Vec<u8>>, ToolError> {
    if path.is_dir() {
        return Err(ToolError::InvalidPath {
            path: shown.to_string(),
            reason: "it is a directory".into(),
        });
    }
    // Only a regular file: a FIFO a command left there would block the read forever.
    match crate::safe_read::read(path, crate::safe_read::WORKSPACE_FILE) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(ToolError::unreadable(shown, e)),
    }
}

/// Make the file at `path` hold `after` (`None` deletes it) and return the diff from `before`;
/// `None` when nothing changed.
pub fn write_with_diff(
    path: &Path,
    shown: &str,
    before: Option<&[u8]>,
    after: Option<&[u8]>,
) -> Result<Option<FileDiff>, ToolError> {
    let Some(diff) = file_diff(shown, before, after) else {
        return Ok(None);
    };
    match after {
        Some(bytes) => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| ToolError::io(shown, e))?;
            }
            std::fs::write(path, bytes).map_err(|e| ToolError::io(shown, e))?;
        }
        None => std::fs::remove_file(path).map_err(|e| ToolError::io(shown, e))?,
    }
    Ok(Some(diff))
}
