//! `list_dir`: a bounded tree of a directory, honouring `.gitignore` and skipping `.git`.

use super::text::OBSERVATION_LIMIT;
use super::{ToolContext, ToolResult};
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;

pub const DESCRIPTION: &str = "List a directory as an indented tree (directories end with `/`). \
Files ignored by .gitignore and the .git directory are not shown.";

const DEFAULT_DEPTH: usize = 2;
const MAX_DEPTH: usize = 8;
const MAX_ENTRIES: usize = 400;
/// Entries are still counted up to this many after the output is full.
const COUNT_LIMIT: usize = 20_000;

/// Arguments of `list_dir`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirArgs {
    /// Directory relative to the workspace root (default `.`, the root).
    pub path: Option<String>,
    /// How many levels deep to list (default 2; 1 lists only the directory's own entries).
    pub depth: Option<usize>,
}

pub async fn run(args: ListDirArgs, ctx: &ToolContext<'_>) -> ToolResult {
    let rel = args.path.unwrap_or_else(|| ".".into());
    let dir = match ctx.workspace.resolve(&rel) {
        Ok(dir) => dir,
        Err(e) => return e.into(),
    };
    let shown = ctx.workspace.relative(&dir);
    if !dir.is_dir() {
        return ToolResult::failure(format!(
            "`{shown}` is a file, not a directory; use read_file to read it"
        ));
    }
    let depth = args.depth.unwrap_or(DEFAULT_DEPTH).clamp(1, MAX_DEPTH);
    match tokio::task::spawn_blocking(move || list(dir, depth)).await {
        Ok(tree) => ToolResult::success(format!("{shown}/ (depth {depth}):\n{tree}")),
        Err(e) => ToolResult::failure(format!("listing failed: {e}")),
    }
}

fn list(dir: PathBuf, depth: usize) -> String {
    let walker = super::workspace_walker(&dir).max_depth(Some(depth)).build();
    let budget = OBSERVATION_LIMIT - 300;
    let (mut out, mut shown, mut total) = (String::new(), 0usize, 0usize);
    for entry in walker {
        let Ok(entry) = entry else { continue };
        if entry.depth() == 0 {
            continue;
        }
        total += 1;
        if total > COUNT_LIMIT {
            break;
        }
        if shown >= MAX_ENTRIES || out.len() > budget {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let kind = entry.file_type();
        let suffix = match kind {
            Some(t) if t.is_dir() => "/",
            Some(t) if t.is_symlink() => "@",
            _ => "",
        };
        out.push_str(&"  ".repeat(entry.depth() - 1));
        out.push_str(&name);
        out.push_str(suffix);
        out.push('\n');
        shown += 1;
    }
    if total == 0 {
        out.push_str("(empty)\n");
    } else if total > shown {
        let more = if total > COUNT_LIMIT {
            format!("more than {}", COUNT_LIMIT - shown)
        } else {
            (total - shown).to_string()
        };
        out.push_str(&format!(
            "[{more} more entries not shown; list a subdirectory or use a smaller depth]\n"
        ));
    }
    out
}
