//! `search`: regex search over the workspace's files (honouring `.gitignore`), as bounded
//! `file:line: text` hits.

use super::text::{clip_line, OBSERVATION_LIMIT};
use super::{ToolContext, ToolResult, Workspace};
use regex::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;

pub const DESCRIPTION: &str = "Search file contents with a regular expression (Rust regex \
syntax, case-sensitive; use (?i) for case-insensitive). Prints `file:line: text` for each \
matching line. Files ignored by .gitignore, binary files and .git are skipped.";

const MAX_HITS: usize = 100;
const MAX_LINE_CHARS: usize = 200;
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Hits are still counted up to this many after the output is full.
const COUNT_LIMIT: usize = 10_000;

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Regular expression to look for in each line, e.g. `def forward` or `torch\.onnx\.export`.
    pub pattern: String,
    /// File or directory to search, relative to the workspace root (default: the whole
    /// workspace).
    pub path: Option<String>,
    /// Only search files matching this glob, e.g. `*.py` or `src/**/*.yaml`.
    pub glob: Option<String>,
}

pub async fn run(args: SearchArgs, ctx: &ToolContext<'_>) -> ToolResult {
    if args.pattern.is_empty() {
        return ToolResult::failure("pattern must not be empty");
    }
    let (regex, note) = match RegexBuilder::new(&args.pattern)
        .size_limit(16 * 1024 * 1024)
        .build()
    {
        Ok(re) => (re, String::new()),
        Err(e) => match Regex::new(&regex::escape(&args.pattern)) {
            Ok(re) => (
                re,
                format!(
                    "note: `{}` is not a valid regex ({}); searched for it as literal text. \
                     Escape special characters like ( [ . * with a backslash for regex use.\n",
                    args.pattern,
                    last_line(&e.to_string())
                ),
            ),
            Err(e) => return ToolResult::failure(format!("invalid pattern: {e}")),
        },
    };
    let rel = args.path.clone().unwrap_or_else(|| ".".into());
    let base = match ctx.workspace.resolve(&rel) {
        Ok(base) => base,
        Err(e) => return e.into(),
    };
    let overrides = match &args.glob {
        Some(glob) if !glob.trim().is_empty() => {
            let mut builder = ignore::overrides::OverrideBuilder::new(&base);
            let built = builder.add(glob.trim()).and_then(|b| b.build());
            match built {
                Ok(o) => Some(o),
                Err(e) => return ToolResult::failure(format!("invalid glob `{glob}`: {e}")),
            }
        }
        _ => None,
    };
    let workspace = ctx.workspace.clone();
    let found =
        tokio::task::spawn_blocking(move || scan(&workspace, base, overrides, &regex)).await;
    let hits = match found {
        Ok(hits) => hits,
        Err(e) => return ToolResult::failure(format!("search failed: {e}")),
    };
    ToolResult::success(format!("{note}{}", render(&args, &hits)))
}

struct Hits {
    lines: Vec<String>,
    total: usize,
    files: usize,
}

fn scan(
    workspace: &Workspace,
    base: PathBuf,
    overrides: Option<ignore::overrides::Override>,
    regex: &Regex,
) -> Hits {
    let mut builder = super::workspace_walker(&base);
    if let Some(overrides) = overrides {
        builder.overrides(overrides);
    }
    let mut hits = Hits {
        lines: Vec::new(),
        total: 0,
        files: 0,
    };
    for entry in builder.build() {
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if entry.metadata().map(|m| m.len()).unwrap_or(0) > MAX_FILE_BYTES {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        if bytes.iter().take(8000).any(|b| *b == 0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let shown = workspace.relative(entry.path());
        let mut in_file = false;
        for (index, line) in text.lines().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            hits.total += 1;
            in_file = true;
            if hits.lines.len() < MAX_HITS {
                hits.lines.push(format!(
                    "{shown}:{}: {}",
                    index + 1,
                    clip_line(line.trim(), MAX_LINE_CHARS)
                ));
            }
            if hits.total >= COUNT_LIMIT {
                break;
            }
        }
        hits.files += usize::from(in_file);
        if hits.total >= COUNT_LIMIT {
            break;
        }
    }
    hits
}

fn render(args: &SearchArgs, hits: &Hits) -> String {
    let scope = match (&args.path, &args.glob) {
        (Some(p), Some(g)) => format!(" in {p} ({g})"),
        (Some(p), None) => format!(" in {p}"),
        (None, Some(g)) => format!(" in {g}"),
        (None, None) => String::new(),
    };
    if hits.total == 0 {
        return format!("no matches for `{}`{scope}\n", args.pattern);
    }
    let total = if hits.total >= COUNT_LIMIT {
        format!("{COUNT_LIMIT}+")
    } else {
        hits.total.to_string()
    };
    let mut out = format!("{total} matching lines in {} files{scope}:\n", hits.files);
    let budget = OBSERVATION_LIMIT - 300;
    let mut shown = 0;
    for line in &hits.lines {
        if out.len() + line.len() + 1 > budget {
            break;
        }
        out.push_str(line);
        out.push('\n');
        shown += 1;
    }
    if shown < hits.total {
        out.push_str(&format!(
            "[showing {shown} of {total}; narrow the pattern, path or glob to see the rest]\n"
        ));
    }
    out
}

fn last_line(text: &str) -> String {
    text.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .trim()
        .to_string()
}
