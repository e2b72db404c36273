//! Small text helpers shared by the tools: bounding observations and clipping long lines.

/// The usual bound on an observation, in bytes.
pub const OBSERVATION_LIMIT: usize = 4000;

/// `text` if it fits in `max` bytes, else its head and tail with a note saying how much of the
/// middle was cut.
pub fn bound(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(80);
    let head_end = floor_boundary(text, keep / 3);
    let tail_start = ceil_boundary(text, text.len() - (keep - keep / 3));
    let cut = tail_start.saturating_sub(head_end);
    format!(
        "{}\n[... {cut} characters truncated ...]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// `line` clipped to about `max` bytes, marking the cut.
pub fn clip_line(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    let end = floor_boundary(line, max);
    format!("{}… [{} more chars]", &line[..end], line.len() - end)
}

/// 1-based line number of byte offset `index` in `text`.
pub fn line_number_at(text: &str, index: usize) -> usize {
    text[..floor_boundary(text, index)].matches('\n').count() + 1
}

fn floor_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_keeps_head_and_tail_and_says_so() {
        let text: String = (0..2000).map(|i| format!("{i}\n")).collect();
        let out = bound(&text, 1000);
        assert!(out.len() <= 1000);
        assert!(out.starts_with("0\n1\n"));
        assert!(out.ends_with("1999\n"));
        assert!(out.contains("characters truncated"));
        assert_eq!(bound("short", 1000), "short");
    }

    #[test]
    fn clip_respects_char_boundaries() {
        let s = "é".repeat(100);
        let c = clip_line(&s, 11);
        assert!(c.starts_with("ééééé…"));
        assert_eq!(line_number_at("a\nb\nc", 4), 3);
    }
}
