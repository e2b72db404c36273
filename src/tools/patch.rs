//! `apply_patch`: apply a unified diff that may touch several files, all or nothing.
//!
//! The patch is split into per-file sections (`--- a/x` / `+++ b/x`, `/dev/null` for creation
//! and deletion; `diff --git`, `index` and other preamble lines are skipped). Hunk headers are
//! repaired before `diffy` sees them: wrong line counts (a small model's usual mistake) are
//! recounted, stray blank lines at a hunk's end dropped, and a bare `@@` accepted. Every file is
//! patched in memory first; only when all hunks of all files apply is anything written.

use super::confine::Workspace;
use super::matching::closest;
use super::text::clip_line;
use super::write::{read_existing, write_with_diff};
use super::{ToolContext, ToolError, ToolResult};
use crate::protocol::FileDiff;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;

pub const DESCRIPTION: &str = "Apply a unified diff (as made by `git diff` or `diff -u`) that \
may change several files: `--- a/path` and `+++ b/path` headers, then `@@ -l,n +l,n @@` hunks \
with context lines. Use `--- /dev/null` to create a file and `+++ /dev/null` to delete one. \
Either every file is changed or none is.";

/// Arguments of `apply_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The unified diff text.
    pub patch: String,
}

/// One file's section of the patch.
#[derive(Debug)]
struct FileSection {
    /// `None` for `/dev/null`.
    old: Option<String>,
    new: Option<String>,
    hunks: Vec<RawHunk>,
}

#[derive(Debug)]
struct RawHunk {
    /// 1-based line of the `@@` header in the patch.
    patch_line: usize,
    header: String,
    /// Stated `(start, len)` of the old and new side, when the header had them.
    old: Option<(usize, usize)>,
    new: Option<(usize, usize)>,
    body: Vec<String>,
}

impl RawHunk {
    fn counts(&self) -> (usize, usize) {
        let (mut old, mut new) = (0, 0);
        for line in &self.body {
            match line.as_bytes().first() {
                Some(b'-') => old += 1,
                Some(b'+') => new += 1,
                Some(b'\\') => {}
                _ => {
                    old += 1;
                    new += 1;
                }
            }
        }
        (old, new)
    }

    /// The stated counts are met (or there were none), so a file header may follow.
    fn satisfied(&self) -> bool {
        match (self.old, self.new) {
            (Some((_, ol)), Some((_, nl))) => {
                let (o, n) = self.counts();
                o >= ol && n >= nl
            }
            _ => true,
        }
    }

    fn stated_counts(&self) -> Option<(usize, usize)> {
        Some((self.old?.1, self.new?.1))
    }

    /// Make the body agree with a header: drop trailing blank lines until the stated counts
    /// match; when they cannot be met, the blank tail is dropped and the counts recomputed
    /// (fewer trailing context lines change nothing about what the hunk does).
    fn settle(&mut self) {
        let is_blank = |l: &String| l.trim_end_matches(['\n', '\r']).is_empty();
        while self.stated_counts() != Some(self.counts()) && self.body.last().is_some_and(is_blank)
        {
            self.body.pop();
        }
    }
}

pub async fn run(args: ApplyPatchArgs, ctx: &ToolContext<'_>) -> ToolResult {
    let sections = match split(&args.patch) {
        Ok(sections) => sections,
        Err(message) => return ToolResult::failure(format!("apply_patch failed: {message}")),
    };
    let plan = match plan(ctx.workspace, sections) {
        Ok(plan) => plan,
        Err(message) => {
            return ToolResult::failure(format!(
                "apply_patch failed, nothing was changed: {message}"
            ))
        }
    };
    match commit(&plan) {
        Ok(diffs) => {
            let mut observation = format!("applied patch: {} files changed\n", diffs.len());
            for diff in &diffs {
                let note = match plan.iter().find(|p| p.shown == diff.path) {
                    Some(p) if p.original.is_none() => " (created)",
                    Some(p) if p.result.is_none() => " (deleted)",
                    _ => "",
                };
                observation.push_str(&format!(
                    "  {}{note} +{} -{}\n",
                    diff.path, diff.added, diff.removed
                ));
            }
            if diffs.is_empty() {
                observation = "the patch applied but changed nothing".into();
            }
            let mut result = ToolResult::success(observation);
            result.diffs = diffs;
            result
        }
        Err(message) => ToolResult::failure(format!("apply_patch failed: {message}")),
    }
}

/// Split the patch text into file sections.
fn split(text: &str) -> Result<Vec<FileSection>, String> {
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|l| {
            if l.ends_with('\n') {
                l.to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let mut sections: Vec<FileSection> = Vec::new();
    let mut in_hunk = false;
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let current_hunk = sections.last_mut().and_then(|s| s.hunks.last_mut());
        let satisfied = current_hunk.as_ref().is_none_or(|h| h.satisfied());
        let file_header =
            line.starts_with("--- ") && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ "));
        if file_header && (!in_hunk || satisfied) {
            sections.push(FileSection {
                old: file_name(&line[4..]),
                new: file_name(&lines[i + 1][4..]),
                hunks: Vec::new(),
            });
            in_hunk = false;
            i += 2;
            continue;
        }
        if line.starts_with("@@") {
            let Some(section) = sections.last_mut() else {
                return Err(format!(
                    "the hunk at patch line {} comes before any `--- a/path` / `+++ b/path` \
                     header; every file's hunks need those two header lines first",
                    i + 1
                ));
            };
            let (old, new) = hunk_ranges(line);
            section.hunks.push(RawHunk {
                patch_line: i + 1,
                header: line.trim_end().to_string(),
                old,
                new,
                body: Vec::new(),
            });
            in_hunk = true;
            i += 1;
            continue;
        }
        let body_like = matches!(
            line.as_bytes().first(),
            Some(b' ' | b'+' | b'-' | b'\\' | b'\n' | b'\r')
        );
        match (in_hunk, current_hunk) {
            (true, Some(hunk)) if body_like => hunk.body.push(line.clone()),
            _ => in_hunk = false, // preamble (`diff --git`, `index`, prose, fences): skipped
        }
        i += 1;
    }
    if sections.is_empty() {
        return Err(
            "no file header found: a patch needs `--- a/path` and `+++ b/path` lines \
                    before its `@@` hunks"
                .into(),
        );
    }
    for section in &mut sections {
        for hunk in &mut section.hunks {
            hunk.settle();
        }
        if section.hunks.is_empty() {
            return Err(format!(
                "the section for `{}` has no `@@` hunks",
                section
                    .new
                    .as_deref()
                    .or(section.old.as_deref())
                    .unwrap_or("?")
            ));
        }
    }
    strip_git_prefixes(&mut sections);
    Ok(sections)
}

/// The file name of a `---`/`+++` header (after the marker); `None` for `/dev/null`.
fn file_name(rest: &str) -> Option<String> {
    let name = rest.split('\t').next().unwrap_or(rest).trim();
    let name = name
        .strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or(name);
    (name != "/dev/null" && !name.is_empty()).then(|| name.to_string())
}

/// Drop git's `a/` and `b/` prefixes when the headers use them.
fn strip_git_prefixes(sections: &mut [FileSection]) {
    for section in sections {
        let git_style = section.old.as_deref().is_none_or(|o| o.starts_with("a/"))
            && section.new.as_deref().is_none_or(|n| n.starts_with("b/"));
        if git_style {
            for name in [&mut section.old, &mut section.new].into_iter().flatten() {
                name.drain(..2);
            }
        }
    }
}

/// `(old, new)` `(start, len)` ranges of an `@@ -a,b +c,d @@` header, when present.
type Range = Option<(usize, usize)>;
fn hunk_ranges(header: &str) -> (Range, Range) {
    let inner = header.trim_start_matches('@').trim_start();
    let inner = inner.split("@@").next().unwrap_or("");
    let mut parts = inner.split_whitespace();
    let parse = |part: Option<&str>, sign: char| -> Range {
        let spec = part?.strip_prefix(sign)?;
        match spec.split_once(',') {
            Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
            None => Some((spec.parse().ok()?, 1)),
        }
    };
    let old = parse(parts.next(), '-');
    let new = parse(parts.next(), '+');
    match (old, new) {
        (Some(o), Some(n)) => (Some(o), Some(n)),
        _ => (None, None),
    }
}

/// One file's planned change.
#[derive(Debug)]
struct Planned {
    path: PathBuf,
    shown: String,
    original: Option<Vec<u8>>,
    result: Option<String>,
}

/// Apply every section in memory; any failure names the file and hunk.
fn plan(workspace: &Workspace, sections: Vec<FileSection>) -> Result<Vec<Planned>, String> {
    let mut planned: Vec<Planned> = Vec::new();
    for section in sections {
        let (source, target) = match (&section.old, &section.new) {
            (None, None) => return Err("a file section names /dev/null on both sides".into()),
            (Some(o), None) => (Some(o.clone()), o.clone()),
            (None, Some(n)) => (None, n.clone()),
            (Some(o), Some(n)) => (Some(o.clone()), n.clone()),
        };
        let name = source.clone().unwrap_or_else(|| target.clone());
        let index = slot(workspace, &mut planned, &name)?;
        let base = planned[index].result.clone();
        let base = match (&section.old, base) {
            (None, Some(existing)) if !existing.is_empty() => {
                return Err(format!(
                    "the patch creates `{name}` (from /dev/null), but it already exists"
                ))
            }
            (None, _) => String::new(),
            (Some(_), None) => return Err(format!("`{name}` does not exist")),
            (Some(_), Some(existing)) => existing,
        };
        let patched = apply_hunks(&name, &base, &section.hunks)?;
        match &section.new {
            None => planned[index].result = None,
            Some(_) if target == name => planned[index].result = Some(patched),
            Some(_) => {
                planned[index].result = None;
                let to = slot(workspace, &mut planned, &target)?;
                if planned[to].result.is_some() {
                    return Err(format!(
                        "the patch renames `{name}` onto existing `{target}`"
                    ));
                }
                planned[to].result = Some(patched);
            }
        }
    }
    Ok(planned)
}

/// The index of `name`'s entry in `planned`, reading the file on first use.
fn slot(workspace: &Workspace, planned: &mut Vec<Planned>, name: &str) -> Result<usize, String> {
    let path = workspace
        .resolve_for_write(name)
        .map_err(|e| e.to_string())?;
    if let Some(index) = planned.iter().position(|p| p.path == path) {
        return Ok(index);
    }
    let shown = workspace.relative(&path);
    let original = read_existing(&path, &shown).map_err(|e| e.to_string())?;
    let result = match &original {
        Some(bytes) => Some(
            String::from_utf8(bytes.clone())
                .map_err(|_| format!("`{shown}` is not a UTF-8 text file"))?,
        ),
        None => None,
    };
    planned.push(Planned {
        path,
        shown,
        original,
        result,
    });
    Ok(planned.len() - 1)
}

fn apply_hunks(name: &str, base: &str, hunks: &[RawHunk]) -> Result<String, String> {
    let mut text = String::new();
    let (mut old_end, mut new_end) = (0usize, 0usize);
    for hunk in hunks {
        let (old_len, new_len) = hunk.counts();
        let default_start = |end: usize, len: usize| if len == 0 { end } else { end + 1 };
        let old_start = hunk
            .old
            .map_or(default_start(old_end, old_len), |r| r.0)
            .max(old_end);
        let new_start = hunk
            .new
            .map_or(default_start(new_end, new_len), |r| r.0)
            .max(new_end);
        text.push_str(&format!(
            "@@ -{old_start},{old_len} +{new_start},{new_len} @@\n"
        ));
        hunk.body.iter().for_each(|l| text.push_str(l));
        (old_end, new_end) = (old_start + old_len, new_start + new_len);
    }
    let patch = diffy::Patch::from_str(&text)
        .map_err(|e| format!("`{name}`: the hunks could not be parsed ({e})"))?;
    diffy::apply(base, &patch).map_err(|e| {
        let number = e
            .to_string()
            .rsplit('#')
            .next()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .unwrap_or(1);
        hunk_mismatch(name, base, number, hunks.get(number.saturating_sub(1)))
    })
}

fn hunk_mismatch(name: &str, base: &str, number: usize, hunk: Option<&RawHunk>) -> String {
    let Some(hunk) = hunk else {
        return format!("`{name}`: hunk {number} does not apply");
    };
    let expected: Vec<&str> = hunk
        .body
        .iter()
        .filter(|l| !l.starts_with('+') && !l.starts_with('\\'))
        .map(|l| {
            let l = l.trim_end_matches(['\n', '\r']);
            l.strip_prefix(['-', ' ']).unwrap_or(l)
        })
        .collect();
    let mut message = format!(
        "`{name}`: hunk {number} (`{}` at patch line {}) does not match the file: the context \
         and `-` lines must be exactly as they are in the file.\n",
        hunk.header, hunk.patch_line
    );
    let file_lines: Vec<&str> = base.split_inclusive('\n').collect();
    if let Some(near) = closest(&file_lines, &expected) {
        message.push_str(&format!(
            "The most similar lines of `{name}` are {}-{} ({:.0}% similar):\n{}",
            near.start,
            near.end,
            near.score * 100.0,
            near.excerpt
        ));
        if let Some((line, in_file, in_patch)) = near.first_difference {
            message.push_str(&format!(
                "First difference: line {line} is `{}` but the hunk expects `{}`.\n",
                clip_line(in_file.trim(), 160),
                clip_line(in_patch.trim(), 160)
            ));
        }
    } else {
        message.push_str("The file is empty.\n");
    }
    message.push_str("Fix the hunk (or use edit_file) and retry.");
    message
}

/// Write every planned change; on an I/O failure, restore what was already written.
fn commit(plan: &[Planned]) -> Result<Vec<FileDiff>, String> {
    let mut diffs = Vec::new();
    let mut done: Vec<&Planned> = Vec::new();
    for item in plan {
        let after = item.result.as_deref().map(str::as_bytes);
        match write_with_diff(&item.path, &item.shown, item.original.as_deref(), after) {
            Ok(Some(diff)) => {
                diffs.push(diff);
                done.push(item);
            }
            Ok(None) => {}
            Err(e) => {
                let restored = rollback(&done);
                return Err(format!(
                    "{e}; {}",
                    if restored {
                        "the files already written were restored"
                    } else {
                        "restoring the files already written failed too"
                    }
                ));
            }
        }
    }
    Ok(diffs)
}

fn rollback(done: &[&Planned]) -> bool {
    done.iter().all(|item| {
        let current = item.result.as_deref().map(str::as_bytes);
        restore(item, current).is_ok()
    })
}

fn restore(item: &Planned, current: Option<&[u8]>) -> Result<(), ToolError> {
    write_with_diff(&item.path, &item.shown, current, item.original.as_deref()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_git_style_multi_file_patches() {
        let patch = "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n";
        let s = split(patch).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].old.as_deref(), Some("x.py"));
        assert_eq!(s[0].hunks[0].body.len(), 3);
        assert_eq!(s[1].old, None);
        assert_eq!(s[1].new.as_deref(), Some("new.txt"));
    }

    #[test]
    fn a_deleted_line_starting_with_dashes_stays_in_the_hunk() {
        let patch = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n keep\n";
        let s = split(patch).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].hunks[0].counts(), (2, 2));
    }

    #[test]
    fn wrong_counts_and_bare_headers_are_repaired() {
        let base = "a\nb\nc\nd\n";
        let patch = "--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n b\n-c\n+C\n\n\n";
        let s = split(patch).unwrap();
        assert_eq!(apply_hunks("f", base, &s[0].hunks).unwrap(), "a\nb\nC\nd\n");
        let patch = "--- f\n+++ f\n@@\n-a\n+A\n@@\n-d\n+D\n";
        let s = split(patch).unwrap();
        assert_eq!(apply_hunks("f", base, &s[0].hunks).unwrap(), "A\nb\nc\nD\n");
    }

    #[test]
    fn mismatch_names_the_hunk_and_shows_the_file() {
        let base = "alpha\nbeta\ngamma\n";
        let s = split("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n alpha\n-bita\n+BETA\n").unwrap();
        let err = apply_hunks("f", base, &s[0].hunks).unwrap_err();
        assert!(err.contains("hunk 1"), "{err}");
        assert!(
            err.contains("line 2 is `beta` but the hunk expects `bita`"),
            "{err}"
        );
    }

    #[test]
    fn no_header_is_a_clear_error() {
        let err = split("@@ -1 +1 @@\n-a\n+b\n").unwrap_err();
        assert!(err.contains("header"), "{err}");
        assert!(split("just prose").unwrap_err().contains("no file header"));
    }
}
