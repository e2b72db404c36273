//! Text helpers the views share: display width, wrapping styled lines to a width, cutting
//! and horizontally scrolling them.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Columns `c` takes on a terminal.
pub fn char_width(c: char) -> usize {
    let mut buf = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width()
}

/// Wrap `line` at `width` columns, at a space when there is one in the line, else anywhere;
/// continuation lines start with `indent` spaces.
pub fn wrap(line: Line<'static>, width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    if line.width() <= width {
        return vec![line];
    }
    let indent = indent.min(width / 2);
    let cells: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|span| span.content.chars().map(move |c| (c, span.style)))
        .collect();
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut current: Vec<(char, Style)> = Vec::new();
    let mut used = 0usize;
    // Where the last space of the current line is, after its indent.
    let mut space: Option<usize> = None;
    let mut line_start = 0usize;
    for (c, style) in cells {
        let w = char_width(c);
        if used + w > width && current.len() > line_start {
            let carry: Vec<(char, Style)> = match space {
                Some(at) if c != ' ' => {
                    let carry = current.split_off(at + 1);
                    current.pop();
                    carry
                }
                _ => Vec::new(),
            };
            out.push(spans_of(std::mem::take(&mut current)));
            current.extend(std::iter::repeat_n((' ', Style::default()), indent));
            line_start = indent;
            used = indent + carry.iter().map(|(c, _)| char_width(*c)).sum::<usize>();
            current.extend(carry);
            space = None;
            if c == ' ' {
                continue;
            }
        }
        if c == ' ' && current.len() > line_start {
            space = Some(current.len());
        }
        current.push((c, style));
        used += w;
    }
    if current.len() > line_start {
        out.push(spans_of(current));
    }
    out
}

/// Characters with styles back into spans.
fn spans_of(cells: Vec<(char, Style)>) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style: Option<Style> = None;
    for (c, s) in cells {
        if style.is_some_and(|current| current != s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(s);
        text.push(c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
    Line::from(spans)
}

/// `text` cut to `width` columns, with `…` when cut.
pub fn fit(text: &str, width: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    let total: usize = text.chars().map(char_width).sum();
    if total <= width {
        return text.to_string();
    }
    for c in text.chars() {
        let w = char_width(c);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// `line` without its first `columns` columns.
pub fn skip_columns(line: Line<'static>, columns: usize) -> Line<'static> {
    if columns == 0 {
        return line;
    }
    let mut skipped = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        if skipped >= columns {
            spans.push(span);
            continue;
        }
        let mut kept = String::new();
        for c in span.content.chars() {
            if skipped >= columns {
                kept.push(c);
            } else {
                skipped += char_width(c);
            }
        }
        if !kept.is_empty() {
            spans.push(Span::styled(kept, span.style));
        }
    }
    Line::from(spans)
}

/// `12345` → `12.3k`, `1234567` → `1.2M`.
pub fn count(n: u64) -> String {
    if n < 1_000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", n as f64 / 1_000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}

/// Milliseconds as `m:ss` or `h:mm:ss`.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn wraps_keep_styles_and_indent() {
        let line = Line::from(vec![Span::raw("abc "), Span::raw("defghij")]);
        let lines = wrap(line, 5, 2);
        let texts: Vec<String> = lines.iter().map(text).collect();
        assert_eq!(texts, vec!["abc", "  def", "  ghi", "  j"]);
        let line = Line::from("the quick brown fox jumps");
        let texts: Vec<String> = wrap(line, 10, 2).iter().map(text).collect();
        assert_eq!(texts, vec!["the quick", "  brown", "  fox", "  jumps"]);
        assert_eq!(fit("validate", 5), "vali…");
        assert_eq!(fit("wide漢字", 6), "wide…");
        assert_eq!(text(&skip_columns(Line::from("abcdef"), 2)), "cdef");
        assert_eq!(count(12_345), "12.3k");
        assert_eq!(clock(3_723_000), "1:02:03");
    }
}
