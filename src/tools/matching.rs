//! The search/replace matching cascade behind `edit_file`, after aider: an exact match first,
//! then a line-wise match ignoring leading/trailing whitespace (re-indenting the replacement
//! when the indentation shift is consistent), then ignoring all whitespace differences within
//! lines, then the same with line-number prefixes (copied from `read_file`) removed. A search
//! text found more than once is refused; one found nowhere yields the closest lines of the file.

use super::text::{clip_line, line_number_at};
use similar::TextDiff;

/// How a search text was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    /// Line by line, ignoring leading and trailing whitespace.
    TrimmedLines,
    /// Line by line, ignoring all whitespace differences.
    LooseWhitespace,
    /// After removing `read_file` line-number prefixes from search (and replace).
    WithoutLineNumbers,
}

/// A successful replacement.
#[derive(Debug, Clone, PartialEq)]
pub struct Replaced {
    pub content: String,
    pub kind: MatchKind,
    /// 1-based first line of the match.
    pub line: usize,
}

/// The file lines that best resemble a search text that was not found.
#[derive(Debug, Clone, PartialEq)]
pub struct Closest {
    /// 1-based first and last line of the most similar window.
    pub start: usize,
    pub end: usize,
    /// Similarity in 0..=1.
    pub score: f32,
    /// Numbered lines around the window.
    pub excerpt: String,
    /// The first line that differs: (file line number, file text, search text).
    pub first_difference: Option<(usize, String, String)>,
}

/// Why a search text could not be replaced.
#[derive(Debug, Clone, PartialEq)]
pub enum EditFailure {
    EmptySearch,
    /// Found more than once; 1-based line numbers of (up to 20) occurrences.
    Ambiguous {
        count: usize,
        lines: Vec<usize>,
    },
    NotFound {
        closest: Option<Closest>,
    },
}

/// Replace the single occurrence of `search` in `content` with `replace`.
pub fn replace_once(content: &str, search: &str, replace: &str) -> Result<Replaced, EditFailure> {
    if search.trim().is_empty() {
        return Err(EditFailure::EmptySearch);
    }
    match cascade(content, search, replace) {
        Err(EditFailure::NotFound { closest }) => match strip_line_numbers(search) {
            Some(bare) => {
                let bare_replace = strip_line_numbers(replace).unwrap_or(replace.to_string());
                cascade(content, &bare, &bare_replace).map(|r| Replaced {
                    kind: MatchKind::WithoutLineNumbers,
                    ..r
                })
            }
            None => Err(EditFailure::NotFound { closest }),
        },
        other => other,
    }
}

/// Maps a line to the form compared in one step of the cascade.
type Normaliser = fn(&str) -> String;

fn cascade(content: &str, search: &str, replace: &str) -> Result<Replaced, EditFailure> {
    let exact: Vec<usize> = content.match_indices(search).map(|(i, _)| i).collect();
    match exact.len() {
        1 => {
            let at = exact[0];
            let mut replacement = replace.to_string();
            if search.ends_with('\n') && !replacement.is_empty() && !replacement.ends_with('\n') {
                replacement.push('\n');
            }
            let mut out = String::with_capacity(content.len() + replacement.len());
            out.push_str(&content[..at]);
            out.push_str(&replacement);
            out.push_str(&content[at + search.len()..]);
            return Ok(Replaced {
                content: out,
                kind: MatchKind::Exact,
                line: line_number_at(content, at),
            });
        }
        0 => {}
        count => {
            return Err(EditFailure::Ambiguous {
                count,
                lines: exact
                    .iter()
                    .take(20)
                    .map(|i| line_number_at(content, *i))
                    .collect(),
            })
        }
    }

    let file_lines: Vec<&str> = content.split_inclusive('\n').collect();
    let (search_lines, lead, trail) = trimmed_block(search);
    let normalisers: [(MatchKind, Normaliser); 2] = [
        (MatchKind::TrimmedLines, |l| l.trim().to_string()),
        (MatchKind::LooseWhitespace, |l| {
            l.split_whitespace().collect::<Vec<_>>().join(" ")
        }),
    ];
    for (kind, normalise) in normalisers {
        let wanted: Vec<String> = search_lines.iter().map(|l| normalise(l)).collect();
        let normal_file: Vec<String> = file_lines.iter().map(|l| normalise(l)).collect();
        let starts: Vec<usize> = (0..file_lines.len())
            .filter(|&j| {
                j + wanted.len() <= normal_file.len()
                    && normal_file[j..j + wanted.len()] == wanted[..]
            })
            .collect();
        match starts.len() {
            0 => continue,
            1 => {
                let start = starts[0];
                let matched = &file_lines[start..start + wanted.len()];
                let block = replacement_block(matched, &search_lines, replace, lead, trail);
                let mut out: String = file_lines[..start].concat();
                out.push_str(&block);
                out.push_str(&file_lines[start + wanted.len()..].concat());
                return Ok(Replaced {
                    content: out,
                    kind,
                    line: start + 1,
                });
            }
            count => {
                return Err(EditFailure::Ambiguous {
                    count,
                    lines: starts.iter().take(20).map(|s| s + 1).collect(),
                })
            }
        }
    }
    Err(EditFailure::NotFound {
        closest: closest(&file_lines, &search_lines),
    })
}

/// The lines of `text` without leading and trailing blank lines, and how many of each there
/// were.
fn trimmed_block(text: &str) -> (Vec<&str>, usize, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let lead = lines.iter().take_while(|l| l.trim().is_empty()).count();
    let trail = lines[lead..]
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    (lines[lead..lines.len() - trail].to_vec(), lead, trail)
}

/// The text replacing `matched` file lines: `replace`'s lines (minus the blank lines that
/// mirrored the search's stripped ones), re-indented when the search's indentation differs
/// from the file's by one consistent prefix, with the file's line endings.
fn replacement_block(
    matched: &[&str],
    search_lines: &[&str],
    replace: &str,
    lead: usize,
    trail: usize,
) -> String {
    let mut lines: Vec<&str> = replace.lines().collect();
    let blank_lead = lines
        .iter()
        .take(lead)
        .take_while(|l| l.trim().is_empty())
        .count();
    lines.drain(..blank_lead);
    let blank_trail = lines
        .iter()
        .rev()
        .take(trail)
        .take_while(|l| l.trim().is_empty())
        .count();
    lines.truncate(lines.len() - blank_trail);

    let shift = indentation_shift(matched, search_lines);
    let eol = if matched.first().is_some_and(|l| l.ends_with("\r\n")) {
        "\r\n"
    } else {
        "\n"
    };
    let ends_with_eol = matched.last().is_none_or(|l| l.ends_with('\n'));
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match &shift {
            Some((from, to)) if !line.trim().is_empty() => match line.strip_prefix(from.as_str()) {
                Some(rest) => {
                    out.push_str(to);
                    out.push_str(rest);
                }
                None => out.push_str(line),
            },
            _ => out.push_str(line),
        }
        if index + 1 < lines.len() || ends_with_eol {
            out.push_str(eol);
        }
    }
    out
}

/// `(search indent, file indent)` when every non-blank matched line is the search line with
/// its leading `search indent` replaced by `file indent`.
fn indentation_shift(matched: &[&str], search_lines: &[&str]) -> Option<(String, String)> {
    let indent = |l: &str| l[..l.len() - l.trim_start().len()].to_string();
    let (first_file, first_search) = matched
        .iter()
        .zip(search_lines)
        .find(|(f, _)| !f.trim().is_empty())?;
    let (from, to) = (indent(first_search), indent(first_file));
    if from == to {
        return None;
    }
    let consistent = matched
        .iter()
        .zip(search_lines)
        .filter(|(f, _)| !f.trim().is_empty())
        .all(|(f, s)| {
            s.strip_prefix(from.as_str())
                .is_some_and(|rest| indent(f) == format!("{to}{}", indent(rest)))
        });
    consistent.then_some((from, to))
}

/// `text` without `read_file`-style line-number prefixes (`  12\t`, `12| `, `12: `), when every
/// non-blank line has one.
fn strip_line_numbers(text: &str) -> Option<String> {
    let prefix = |line: &str| -> Option<usize> {
        let body = line.trim_start();
        let digits = body.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let after = &body[digits..];
        let sep = ["\t", "| ", "|", ": "]
            .iter()
            .find(|s| after.starts_with(**s))?;
        Some(line.len() - after.len() + sep.len())
    };
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.push_str(line);
            continue;
        }
        out.push_str(&line[prefix(line)?..]);
    }
    Some(out)
}

const CHEAP_COMPARISON_ABOVE: usize = 150_000;
const EXCERPT_CONTEXT: usize = 2;
const EXCERPT_MAX_LINES: usize = 40;

/// The window of file lines most similar to `search_lines`.
pub fn closest(file_lines: &[&str], search_lines: &[&str]) -> Option<Closest> {
    let (m, n) = (file_lines.len(), search_lines.len());
    if m == 0 || n == 0 {
        return None;
    }
    let window = n.min(m);
    let cheap = m * n > CHEAP_COMPARISON_ABOVE;
    let (mut best_start, mut best_score) = (0, -1.0f32);
    for start in 0..=m - window {
        let total: f32 = (0..window)
            .map(|i| line_similarity(file_lines[start + i], search_lines[i], cheap))
            .sum();
        let score = total / n as f32;
        if score > best_score {
            (best_start, best_score) = (start, score);
        }
    }
    let from = best_start.saturating_sub(EXCERPT_CONTEXT);
    let to = (best_start + window + EXCERPT_CONTEXT)
        .min(m)
        .min(from + EXCERPT_MAX_LINES);
    let width = to.to_string().len();
    let excerpt = (from..to)
        .map(|i| {
            format!(
                "{:>width$}\t{}\n",
                i + 1,
                clip_line(file_lines[i].trim_end_matches(['\n', '\r']), 200)
            )
        })
        .collect();
    let first_difference = (0..window)
        .find(|&i| file_lines[best_start + i].trim() != search_lines[i].trim())
        .map(|i| {
            (
                best_start + i + 1,
                clip_line(
                    file_lines[best_start + i].trim_end_matches(['\n', '\r']),
                    200,
                ),
                clip_line(search_lines[i], 200),
            )
        });
    Some(Closest {
        start: best_start + 1,
        end: best_start + window,
        score: best_score.max(0.0),
        excerpt,
        first_difference,
    })
}

fn line_similarity(a: &str, b: &str, cheap: bool) -> f32 {
    let (a, b) = (a.trim(), b.trim());
    if a == b {
        return 1.0;
    }
    if cheap || a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let clip = |s: &str| {
        let mut end = s.len().min(200);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s[..end].to_string()
    };
    TextDiff::from_chars(clip(a).as_str(), clip(b).as_str()).ratio()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_match_replaces_once() {
        let r = replace_once("a\nb\nc\n", "b\n", "B\n").unwrap();
        assert_eq!(r.content, "a\nB\nc\n");
        assert_eq!((r.kind, r.line), (MatchKind::Exact, 2));
        // A replacement missing the search's final newline gets it back.
        let r = replace_once("a\nb\nc\n", "b\n", "X").unwrap();
        assert_eq!(r.content, "a\nX\nc\n");
    }

    #[test]
    fn whitespace_insensitive_match_reindents() {
        let file = "class M:\n    def f(self):\n        return 1\n\nx = 2\n";
        let search = "def f(self):\n    return 1\n";
        let replace = "def f(self):\n    y = 1\n    return y\n";
        let r = replace_once(file, search, replace).unwrap();
        assert_eq!(r.kind, MatchKind::TrimmedLines);
        assert_eq!(
            r.content,
            "class M:\n    def f(self):\n        y = 1\n        return y\n\nx = 2\n"
        );
    }

    #[test]
    fn inconsistent_indent_replaces_lines_verbatim() {
        let file = "if a:\n  x = 1\n      y = 2\nz\n";
        let r = replace_once(file, "x = 1\ny = 2", "w = 3").unwrap();
        assert_eq!(r.content, "if a:\nw = 3\nz\n");
    }

    #[test]
    fn loose_whitespace_and_crlf() {
        let file = "a  =  1\r\nb = 2\r\n";
        let r = replace_once(file, "a = 1\n", "a = 10\n").unwrap();
        assert_eq!(r.kind, MatchKind::LooseWhitespace);
        assert_eq!(r.content, "a = 10\r\nb = 2\r\n");
    }

    #[test]
    fn line_number_prefixes_are_forgiven() {
        let file = "x = 1\ny = 2\nz = 3\n";
        let r = replace_once(file, "2\ty = 2\n3\tz = 3\n", "2\ty = 20\n").unwrap();
        assert_eq!(r.kind, MatchKind::WithoutLineNumbers);
        assert_eq!(r.content, "x = 1\ny = 20\n");
    }

    #[test]
    fn ambiguous_and_empty() {
        let err = replace_once("x\ny\nx\n", "x", "z").unwrap_err();
        assert_eq!(
            err,
            EditFailure::Ambiguous {
                count: 2,
                lines: vec![1, 3]
            }
        );
        assert_eq!(replace_once("x", " \n", "y"), Err(EditFailure::EmptySearch));
    }

    #[test]
    fn not_found_points_at_the_closest_lines() {
        let file: String = (1..=50).map(|i| format!("line number {i}\n")).collect();
        let file = file.replace("line number 30\n", "    output = model(inputs)\n");
        let err = replace_once(&file, "line number 29\noutput = model(input)\n", "x").unwrap_err();
        let EditFailure::NotFound { closest: Some(c) } = err else {
            panic!("{err:?}")
        };
        assert_eq!((c.start, c.end), (29, 30));
        assert!(c.excerpt.contains("30\t    output = model(inputs)"));
        assert_eq!(c.first_difference.unwrap().0, 30);
        assert!(c.score > 0.8);
    }

    #[test]
    fn deletion_with_empty_replace() {
        let r = replace_once("a\n  b\nc", "b", "").unwrap();
        assert_eq!(r.content, "a\n  \nc");
        let r = replace_once("a\n  b\n  c\nd", "b\nc\n", "").unwrap();
        assert_eq!(r.content, "a\nd");
    }
}
