//! Toolchain output as it would look in a terminal: ANSI SGR sequences (colours, bold, …) become
//! ratatui styles, and every byte that is not printable text is shown escaped, never dropped.
//!
//! Rules, applied per log line:
//! - `ESC [ … m` (SGR) changes the style of the text after it; other CSI sequences (cursor
//!   movement, erase) and OSC sequences (window titles, hyperlinks) are removed: a log pane has
//!   no cursor to move.
//! - A carriage return inside a line (progress bars) keeps only what a terminal would finally
//!   show: the text after the last `\r`.
//! - A tab becomes spaces to the next multiple of 8 columns.
//! - Any other control character (C0, DEL, C1) is shown as `\xNN` / `\u{NN}`, and a U+FFFD
//!   replacement character (bytes that were not UTF-8, decoded lossily upstream) as `\u{fffd}`,
//!   all in the [`escaped`] style, so a binary line is visible as what it is.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::borrow::Cow;

/// The style escaped bytes are shown in.
pub fn escaped() -> Style {
    Style::default()
        .fg(Color::Magenta)
        .add_modifier(Modifier::DIM)
}

/// Parse one log line into styled spans on top of `base`.
pub fn parse_line(text: &str, base: Style) -> Line<'static> {
    let text = after_last_cr(text);
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut style = base;
    let mut current = String::new();
    let mut column = 0usize;
    let mut chars = text.chars().peekable();
    let flush = |current: &mut String, spans: &mut Vec<Span<'static>>, style: Style| {
        if !current.is_empty() {
            spans.push(Span::styled(std::mem::take(current), style));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    let mut params = String::new();
                    let mut final_byte = None;
                    for p in chars.by_ref() {
                        if ('\x40'..='\x7e').contains(&p) {
                            final_byte = Some(p);
                            break;
                        }
                        params.push(p);
                    }
                    if final_byte == Some('m') {
                        flush(&mut current, &mut spans, style);
                        style = apply_sgr(style, base, &params);
                    }
                }
                Some(']') => {
                    // OSC: up to BEL or ESC \.
                    chars.next();
                    while let Some(p) = chars.next() {
                        if p == '\x07' {
                            break;
                        }
                        if p == '\x1b' {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                            }
                            break;
                        }
                    }
                }
                Some(_) => {
                    // A two-byte escape (ESC 7, ESC =, …): nothing to show.
                    chars.next();
                }
                None => {
                    flush(&mut current, &mut spans, style);
                    spans.push(Span::styled("\\x1b", escaped()));
                    column += 4;
                }
            },
            '\t' => {
                let spaces = 8 - column % 8;
                current.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            c if needs_escape(c) => {
                flush(&mut current, &mut spans, style);
                let shown = escape_char(c);
                column += shown.len();
                spans.push(Span::styled(shown, escaped()));
            }
            c => {
                current.push(c);
                column += 1;
            }
        }
    }
    flush(&mut current, &mut spans, style);
    Line::from(spans)
}

/// The line without escape sequences (for search and plain display); escaped bytes are shown
/// the way [`parse_line`] shows them.
pub fn plain(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c == '\r' || c == '\t' || needs_escape(c) || c == '\x1b')
    {
        return Cow::Borrowed(text);
    }
    let line = parse_line(text, Style::default());
    Cow::Owned(line.spans.iter().map(|s| s.content.as_ref()).collect())
}

/// The text without escape sequences, cheaply (for searching a million lines): no styles are
/// built and other control characters stay as they are.
pub fn strip(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for p in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&p) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(p) = chars.next() {
                    if p == '\x07' || (p == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// Show control characters of text that is not a terminal stream (diffs, arguments, model
/// text) escaped; tabs become `tab` spaces.
pub fn escape_text(text: &str, tab: usize) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c == '\t' || c == '\x1b' || needs_escape(c))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.extend(std::iter::repeat_n(' ', tab)),
            '\x1b' => out.push_str("\\x1b"),
            c if needs_escape(c) => out.push_str(&escape_char(c)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\x1b' && c != '\t') || c == '\u{fffd}'
}

fn escape_char(c: char) -> String {
    let code = c as u32;
    if code < 0x80 {
        format!("\\x{code:02x}")
    } else {
        format!("\\u{{{code:x}}}")
    }
}

/// What a terminal shows of a line with carriage returns: the text after the last one that
/// is followed by something.
fn after_last_cr(text: &str) -> &str {
    let trimmed = text.trim_end_matches('\r');
    match trimmed.rfind('\r') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    }
}

/// Apply one SGR parameter list (`1;31`, `38;5;208`, `38:2:255:0:0`, empty = reset).
fn apply_sgr(mut style: Style, base: Style, params: &str) -> Style {
    let codes: Vec<u16> = params
        .split([';', ':'])
        .map(|p| p.parse::<u16>().unwrap_or(0))
        .collect();
    let mut i = 0;
    while i < codes.len() {
        let code = codes[i];
        match code {
            0 => style = base,
            1 => style = style.add_modifier(Modifier::BOLD),
            2 => style = style.add_modifier(Modifier::DIM),
            3 => style = style.add_modifier(Modifier::ITALIC),
            4 => style = style.add_modifier(Modifier::UNDERLINED),
            5 | 6 => style = style.add_modifier(Modifier::SLOW_BLINK),
            7 => style = style.add_modifier(Modifier::REVERSED),
            8 => style = style.add_modifier(Modifier::HIDDEN),
            9 => style = style.add_modifier(Modifier::CROSSED_OUT),
            21 | 22 => style = style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style = style.remove_modifier(Modifier::ITALIC),
            24 => style = style.remove_modifier(Modifier::UNDERLINED),
            25 => style = style.remove_modifier(Modifier::SLOW_BLINK),
            27 => style = style.remove_modifier(Modifier::REVERSED),
            28 => style = style.remove_modifier(Modifier::HIDDEN),
            29 => style = style.remove_modifier(Modifier::CROSSED_OUT),
            30..=37 => style = style.fg(basic(code - 30)),
            39 => style.fg = base.fg,
            40..=47 => style = style.bg(basic(code - 40)),
            49 => style.bg = base.bg,
            90..=97 => style = style.fg(bright(code - 90)),
            100..=107 => style = style.bg(bright(code - 100)),
            38 | 48 => {
                let (color, used) = extended(&codes[i + 1..]);
                if let Some(color) = color {
                    style = if code == 38 {
                        style.fg(color)
                    } else {
                        style.bg(color)
                    };
                }
                i += used;
            }
            _ => {}
        }
        i += 1;
    }
    style
}

/// `5;n` (256 colours) or `2;r;g;b` (true colour); returns the colour and how many codes it took.
fn extended(rest: &[u16]) -> (Option<Color>, usize) {
    match rest {
        [5, n, ..] => (Some(Color::Indexed((*n).min(255) as u8)), 2),
        [2, r, g, b, ..] => (
            Some(Color::Rgb(
                (*r).min(255) as u8,
                (*g).min(255) as u8,
                (*b).min(255) as u8,
            )),
            4,
        ),
        _ => (None, rest.len()),
    }
}

fn basic(n: u16) -> Color {
    match n {
        0 => Color::Black,
        1 => Color::Red,
        2 => Color::Green,
        3 => Color::Yellow,
        4 => Color::Blue,
        5 => Color::Magenta,
        6 => Color::Cyan,
        _ => Color::Gray,
    }
}

fn bright(n: u16) -> Color {
    match n {
        0 => Color::DarkGray,
        1 => Color::LightRed,
        2 => Color::LightGreen,
        3 => Color::LightYellow,
        4 => Color::LightBlue,
        5 => Color::LightMagenta,
        6 => Color::LightCyan,
        _ => Color::White,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn sgr_colours_become_styles_and_reset_returns_to_base() {
        let line = parse_line("ok \x1b[1;31mERROR\x1b[0m done", Style::default());
        assert_eq!(text(&line), "ok ERROR done");
        assert_eq!(line.spans[1].content, "ERROR");
        assert_eq!(line.spans[1].style.fg, Some(Color::Red));
        assert!(line.spans[1].style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(line.spans[2].style, Style::default());
    }

    #[test]
    fn extended_colours_and_cursor_sequences() {
        let line = parse_line(
            "\x1b[38;5;208mA\x1b[48;2;1;2;3mB\x1b[2K\x1b]0;title\x07C",
            Style::default(),
        );
        assert_eq!(text(&line), "ABC");
        assert_eq!(line.spans[0].style.fg, Some(Color::Indexed(208)));
        assert_eq!(line.spans[1].style.bg, Some(Color::Rgb(1, 2, 3)));
    }

    #[test]
    fn control_bytes_and_replacement_chars_are_escaped_not_dropped() {
        let line = parse_line("a\0b\x07c\u{fffd}d\x1b", Style::default());
        assert_eq!(text(&line), "a\\x00b\\x07c\\u{fffd}d\\x1b");
        assert_eq!(plain("x\u{7f}y"), "x\\x7fy");
        assert_eq!(escape_text("\x1b[1m\tz", 2), "\\x1b[1m  z");
    }

    #[test]
    fn strip_removes_sequences_only() {
        assert_eq!(strip("\x1b[1;31mERROR\x1b[0m: x\x1b]0;t\x07!"), "ERROR: x!");
        assert!(matches!(strip("plain\ttext"), Cow::Borrowed(_)));
    }

    #[test]
    fn carriage_returns_keep_the_final_text_and_tabs_expand() {
        assert_eq!(plain("10%\r50%\r100%"), "100%");
        assert_eq!(plain("done\r"), "done");
        assert_eq!(plain("ab\tc"), "ab      c");
        assert!(matches!(plain("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn malformed_sequences_never_panic() {
        for input in [
            "\x1b[",
            "\x1b[38;5",
            "\x1b[38;2;999;1",
            "\x1b]no end",
            "\x1b[99999m",
        ] {
            let _ = parse_line(input, Style::default());
        }
    }
}
