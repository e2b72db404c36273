//! Unified diffs (the `FileDiff::unified` text the engine records) as coloured lines: file
//! headers bold, hunk headers cyan, removals red, additions green, a line-number gutter, and
//! word-level highlights (with `similar`'s inline diff) on lines that were changed rather than
//! added or removed. Control bytes in the diffed text are shown escaped.

use super::ansi;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

/// Above this many lines in a removed/added block, or this many bytes in a line, changed lines
/// are not word-diffed (the cost grows with the product of the sides).
const INLINE_MAX_LINES: usize = 400;
const INLINE_MAX_LINE_BYTES: usize = 2_000;

/// Render a unified diff. The gutter shows the old line number for removals and the new one
/// for everything else.
pub fn render(unified: &str) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let lines: Vec<&str> = unified.lines().collect();
    let (mut old_no, mut new_no) = (0usize, 0usize);
    // Lines left in the current hunk on each side (from its header); `None` when the header
    // gave no counts, and then `-`/`+` lines are content unless they look like file headers.
    let mut left: Option<(usize, usize)> = Some((0, 0));
    let in_hunk = |left: Option<(usize, usize)>, line: &str| match left {
        Some((old, new)) => old > 0 || new > 0,
        None => !(line.starts_with("--- ") || line.starts_with("+++ ") || line.starts_with("@@")),
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !in_hunk(left, line) {
            if line.starts_with("@@") {
                left = hunk_header(line).map(|(old, old_count, new, new_count)| {
                    (old_no, new_no) = (old, new);
                    (old_count, new_count)
                });
                out.push(plain(line, Style::default().fg(Color::Cyan)));
            } else if line.starts_with("--- ") || line.starts_with("+++ ") {
                out.push(plain(line, Style::default().add_modifier(Modifier::BOLD)));
            } else if line.starts_with("Binary files") {
                out.push(plain(line, Style::default().fg(Color::Yellow)));
            } else if line.starts_with('\\') {
                out.push(plain(line, Style::default().add_modifier(Modifier::DIM)));
            } else {
                out.push(plain(line, Style::default()));
            }
            i += 1;
            continue;
        }
        if line.starts_with('-') || line.starts_with('+') {
            let content = |i: usize, sign: char| {
                i < lines.len() && lines[i].starts_with(sign) && in_hunk(left, lines[i])
            };
            let removed_start = i;
            while content(i, '-') {
                i += 1;
            }
            let added_start = i;
            while content(i, '+') {
                i += 1;
            }
            let removed: Vec<&str> = lines[removed_start..added_start]
                .iter()
                .map(|l| &l[1..])
                .collect();
            let added: Vec<&str> = lines[added_start..i].iter().map(|l| &l[1..]).collect();
            if let Some((old, new)) = left.as_mut() {
                *old = old.saturating_sub(removed.len());
                *new = new.saturating_sub(added.len());
            }
            block(&removed, &added, &mut old_no, &mut new_no, &mut out);
        } else if let Some(text) = line.strip_prefix(' ').or((line.is_empty()).then_some("")) {
            out.push(numbered(
                new_no,
                ' ',
                vec![(false, text.to_string())],
                Style::default(),
            ));
            old_no += 1;
            new_no += 1;
            if let Some((old, new)) = left.as_mut() {
                *old = old.saturating_sub(1);
                *new = new.saturating_sub(1);
            }
            i += 1;
        } else if line.starts_with('\\') {
            out.push(plain(line, Style::default().add_modifier(Modifier::DIM)));
            i += 1;
        } else {
            // Not diff content: the hunk header lied; show the line and leave the hunk.
            out.push(plain(line, Style::default()));
            left = Some((0, 0));
            i += 1;
        }
    }
    out
}

/// A block of removed lines followed by added lines; pairs are word-diffed when small enough.
fn block(
    removed: &[&str],
    added: &[&str],
    old_no: &mut usize,
    new_no: &mut usize,
    out: &mut Vec<Line<'static>>,
) {
    let red = Style::default().fg(Color::Red);
    let green = Style::default().fg(Color::Green);
    let inline = !removed.is_empty()
        && !added.is_empty()
        && removed.len() <= INLINE_MAX_LINES
        && added.len() <= INLINE_MAX_LINES
        && removed
            .iter()
            .chain(added)
            .all(|l| l.len() <= INLINE_MAX_LINE_BYTES);
    if !inline {
        for text in removed {
            out.push(numbered(*old_no, '-', vec![(false, text.to_string())], red));
            *old_no += 1;
        }
        for text in added {
            out.push(numbered(
                *new_no,
                '+',
                vec![(false, text.to_string())],
                green,
            ));
            *new_no += 1;
        }
        return;
    }
    let old_text = join(removed);
    let new_text = join(added);
    let diff = TextDiff::from_lines(&old_text, &new_text);
    let mut removed_lines = Vec::new();
    let mut added_lines = Vec::new();
    for op in diff.ops() {
        for change in diff.iter_inline_changes(op) {
            let parts: Vec<(bool, String)> = change
                .iter_strings_lossy()
                .map(|(emph, s)| (emph, s.trim_end_matches('\n').to_string()))
                .collect();
            match change.tag() {
                ChangeTag::Delete => removed_lines.push(parts),
                ChangeTag::Insert => added_lines.push(parts),
                // Equal lines inside a -/+ block cannot happen in a valid diff; keep them on
                // both sides if they do.
                ChangeTag::Equal => {
                    removed_lines.push(parts.clone());
                    added_lines.push(parts);
                }
            }
        }
    }
    for parts in removed_lines {
        out.push(numbered(*old_no, '-', parts, red));
        *old_no += 1;
    }
    for parts in added_lines {
        out.push(numbered(*new_no, '+', parts, green));
        *new_no += 1;
    }
}

fn join(lines: &[&str]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// `  12 -text`, emphasised parts reversed.
fn numbered(number: usize, sign: char, parts: Vec<(bool, String)>, style: Style) -> Line<'static> {
    let gutter = if number == 0 {
        "     ".to_string()
    } else {
        format!("{number:>4} ")
    };
    let mut spans = vec![
        Span::styled(gutter, Style::default().add_modifier(Modifier::DIM)),
        Span::styled(sign.to_string(), style),
    ];
    let emphasised = parts.iter().any(|(e, _)| *e) && parts.iter().any(|(e, _)| !*e);
    for (emph, text) in parts {
        let text = ansi::escape_text(&text, 4).into_owned();
        if text.is_empty() {
            continue;
        }
        let style = if emph && emphasised {
            style.add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            style
        };
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

fn plain(line: &str, style: Style) -> Line<'static> {
    Line::from(Span::styled(ansi::escape_text(line, 4).into_owned(), style))
}

/// `@@ -12,5 +12,6 @@` → (12, 5, 12, 6); a missing count is 1.
fn hunk_header(header: &str) -> Option<(usize, usize, usize, usize)> {
    let mut parts = header.split_whitespace().skip(1);
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let range = |s: &str| -> Option<(usize, usize)> {
        let mut it = s.split(',');
        let start = it.next()?.parse().ok()?;
        let count = match it.next() {
            Some(n) => n.parse().ok()?,
            None => 1,
        };
        Some((start, count))
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some((old_start, old_count, new_start, new_count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn changed_lines_get_word_highlights_and_numbers() {
        let diff = crate::file_diff::file_diff(
            "export.py",
            Some(b"a\n        {\"op\": \"relu\"},\nc\n"),
            Some(b"a\n        {\"op\": \"tanh\"},\nc\nd\n"),
        )
        .unwrap();
        let lines = render(&diff.unified);
        let texts: Vec<String> = lines.iter().map(text).collect();
        assert_eq!(texts[0], "--- a/export.py");
        assert!(texts[2].starts_with("@@"));
        assert_eq!(texts[4], "   2 -        {\"op\": \"relu\"},");
        assert_eq!(texts[5], "   2 +        {\"op\": \"tanh\"},");
        let emphasised: Vec<String> = lines[5]
            .spans
            .iter()
            .filter(|s| s.style.add_modifier.contains(Modifier::REVERSED))
            .map(|s| s.content.to_string())
            .collect();
        // Words are whitespace-separated: the changed word is the whole `"tanh"},`.
        assert_eq!(emphasised, vec!["\"tanh\"},".to_string()]);
        assert_eq!(texts[7], "   4 +d");
        // A pure addition has no emphasis.
        assert!(lines[7]
            .spans
            .iter()
            .all(|s| !s.style.add_modifier.contains(Modifier::REVERSED)));
    }

    #[test]
    fn binary_and_odd_text_never_panic() {
        let lines = render("Binary files a/x and b/x differ\n");
        assert_eq!(text(&lines[0]), "Binary files a/x and b/x differ");
        let lines = render("@@ garbage @@\n-\u{0}x\n+\u{1b}[31my\n\\ No newline at end of file\n");
        assert_eq!(text(&lines[1]), "     -\\x00x");
        assert_eq!(text(&lines[2]), "     +\\x1b[31my");
        let _ = render("---\n+++\n@@ -a,b +c,d @@\n+\n-\n");
        // A removed line that looks like a file header is still content inside a hunk.
        let lines = render("--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- comment\n x\n");
        assert_eq!(text(&lines[3]), "   1 --- comment");
    }
}
