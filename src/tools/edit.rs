//! `edit_file`: replace one block of a file, found by the [`matching`](super::matching)
//! cascade, and return the diff. A miss shows the closest lines so the model can retry.
//!
//! One search/replace pair per call (no `edits` list): every field stays required, which keeps
//! the schema easy for a small model and for grammar-constrained decoding. Several changes are
//! several calls, or one `apply_patch`.

use super::matching::{replace_once, EditFailure, MatchKind};
use super::write::{read_existing, write_with_diff};
use super::{ToolContext, ToolResult};
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Replace one block of text in an existing file. `search` must \
match exactly one place in the file: copy the lines from read_file (without the line numbers) \
and include enough surrounding lines to make it unique. Whitespace differences at line ends \
and indentation are tolerated. An empty `replace` deletes the block.";

/// Arguments of `edit_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// File path relative to the workspace root.
    pub path: String,
    /// The exact text to find (one or more whole lines, as they are in the file).
    pub search: String,
    /// The text to put in its place.
    pub replace: String,
}

const DIFF_SHOWN: usize = 2000;

pub async fn run(args: EditFileArgs, ctx: &ToolContext<'_>) -> ToolResult {
    let path = match ctx.workspace.resolve_for_write(&args.path) {
        Ok(path) => path,
        Err(e) => return e.into(),
    };
    let shown = ctx.workspace.relative(&path);
    let before = match read_existing(&path, &shown) {
        Ok(Some(before)) => before,
        Ok(None) => {
            return ToolResult::failure(format!(
                "`{shown}` does not exist; use write_file to create a new file"
            ))
        }
        Err(e) => return e.into(),
    };
    let Ok(content) = String::from_utf8(before.clone()) else {
        return ToolResult::failure(format!("`{shown}` is not a UTF-8 text file"));
    };
    let replaced = match replace_once(&content, &args.search, &args.replace) {
        Ok(replaced) => replaced,
        Err(failure) => return ToolResult::failure(explain(&shown, failure)),
    };
    match write_with_diff(
        &path,
        &shown,
        Some(&before),
        Some(replaced.content.as_bytes()),
    ) {
        Ok(None) => ToolResult::failure(format!(
            "the replacement is identical to the matched text; `{shown}` is unchanged"
        )),
        Ok(Some(diff)) => {
            let how = match replaced.kind {
                MatchKind::Exact => "",
                MatchKind::TrimmedLines | MatchKind::LooseWhitespace => {
                    " (matched ignoring whitespace differences)"
                }
                MatchKind::WithoutLineNumbers => " (matched after removing line-number prefixes)",
            };
            let mut observation = format!(
                "edited {shown} at line {}{how}: +{} -{}\n",
                replaced.line, diff.added, diff.removed
            );
            observation.push_str(&super::text::bound(&diff.unified, DIFF_SHOWN));
            let mut result = ToolResult::success(observation);
            result.diffs.push(diff);
            result
        }
        Err(e) => e.into(),
    }
}

fn explain(shown: &str, failure: EditFailure) -> String {
    match failure {
        EditFailure::EmptySearch => {
            "`search` is empty; give the exact lines to replace (use write_file to write a whole \
             file)"
                .to_string()
        }
        EditFailure::Ambiguous { count, lines } => {
            let at: Vec<String> = lines.iter().map(usize::to_string).collect();
            format!(
                "the search text occurs {count} times in {shown} (at lines {}); include more \
                 surrounding lines so it matches exactly one place. Nothing was changed.",
                at.join(", ")
            )
        }
        EditFailure::NotFound { closest: None } => format!(
            "the search text was not found in {shown} (the file is empty). Nothing was changed."
        ),
        EditFailure::NotFound {
            closest: Some(closest),
        } => {
            let mut text = format!(
                "the search text was not found in {shown}. Nothing was changed.\nThe most \
                 similar lines are {}-{} ({:.0}% similar):\n{}",
                closest.start,
                closest.end,
                closest.score * 100.0,
                closest.excerpt
            );
            if let Some((line, in_file, in_search)) = closest.first_difference {
                text.push_str(&format!(
                    "First difference: line {line} of the file is `{}` but your search has `{}`.\n",
                    in_file.trim(),
                    in_search.trim()
                ));
            }
            text.push_str(
                "Copy the lines exactly as they are in the file (without the line numbers) and \
                 retry, or read_file that region first.",
            );
            text
        }
    }
}
