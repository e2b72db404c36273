//! The replay's timeline, above the status bar: play/pause and speed, the position (events
//! applied of all), the recorded time there of the session's, the stage, and a bar with the
//! stage starts (`┃`) and failures (`✘`) along it and the position (`●`). Under it (when the
//! terminal has the rows) a line of the replay keys, taken from the key table.

use super::text::{clock, fit};
use crate::tui::keys::{key_label, Action, Context};
use crate::tui::player::{MarkKind, ReplayCommand};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::sync::Arc;

/// A place on the bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineMark {
    /// Position of the event in the recording.
    pub pos: usize,
    /// A failure (else a stage start).
    pub failure: bool,
}

/// What the timeline shows (made by the replay controller).
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Events applied.
    pub position: usize,
    pub total: usize,
    /// The seq of the event shown last.
    pub seq: Option<u64>,
    /// Recorded time from the first event to the position.
    pub elapsed_ms: u64,
    /// Recorded time from the first event to the last.
    pub total_ms: u64,
    pub speed: String,
    pub playing: bool,
    /// The stage the event shown last belongs to.
    pub stage: Option<String>,
    pub marks: Arc<Vec<TimelineMark>>,
}

/// Rows the timeline takes on a terminal `height` rows high: the bar, and the keys when there
/// is room.
pub fn rows(height: u16) -> u16 {
    if height >= 16 {
        2
    } else {
        1
    }
}

fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

pub fn draw(frame: &mut Frame, area: Rect, timeline: &Timeline) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let width = area.width as usize;
    let (icon, word, color) = if timeline.playing {
        ("▶", "playing", Color::Green)
    } else {
        ("‖", "paused", Color::Yellow)
    };
    let badge = format!(" {icon} {word} {} ", timeline.speed);
    // (text, priority): the lowest priorities go first when the row is narrow.
    let mut segments: Vec<(String, u8)> = vec![
        (format!("{}/{}", timeline.position, timeline.total), 4),
        (
            format!(
                "{} / {}",
                clock(timeline.elapsed_ms),
                clock(timeline.total_ms)
            ),
            3,
        ),
    ];
    if let Some(stage) = &timeline.stage {
        segments.push((fit(stage, 18), 1));
    }
    if let Some(seq) = timeline.seq {
        segments.push((format!("seq {seq}"), 2));
    }
    const MIN_BAR: usize = 12;
    let badge_width = badge.chars().count();
    let used = |kept: &[bool], segments: &[(String, u8)]| -> usize {
        badge_width
            + segments
                .iter()
                .zip(kept)
                .filter(|(_, k)| **k)
                .map(|((t, _), _)| t.chars().count() + 3)
                .sum::<usize>()
            + 1
    };
    let mut kept = vec![true; segments.len()];
    let mut order: Vec<usize> = (0..segments.len()).collect();
    order.sort_by_key(|&i| segments[i].1);
    for i in order {
        if used(&kept, &segments) + MIN_BAR <= width {
            break;
        }
        kept[i] = false;
    }
    let bar_width = width.saturating_sub(used(&kept, &segments));
    let mut spans = vec![Span::styled(
        badge,
        Style::default()
            .fg(Color::Black)
            .bg(color)
            .add_modifier(Modifier::BOLD),
    )];
    for ((text, _), keep) in segments.into_iter().zip(&kept) {
        if *keep {
            spans.push(Span::styled(" │ ", dim()));
            spans.push(Span::raw(text));
        }
    }
    spans.push(Span::raw(" "));
    spans.extend(bar(timeline, bar_width));
    let mut lines = vec![Line::from(spans)];
    if area.height >= 2 {
        lines.push(Line::styled(fit(&key_hints(), width), dim()));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The bar, `width` cells: played, the position, to play; marks on top.
fn bar(timeline: &Timeline, width: usize) -> Vec<Span<'static>> {
    if width == 0 {
        return Vec::new();
    }
    let total = timeline.total.max(1);
    let cell_of = |pos: usize| (pos.min(total) * (width - 1)) / total;
    let head = cell_of(timeline.position);
    // 0: nothing, 1: a stage start, 2: a failure.
    let mut marks = vec![0u8; width];
    for mark in timeline.marks.iter() {
        let cell = cell_of(mark.pos);
        let kind = if mark.failure { 2 } else { 1 };
        marks[cell] = marks[cell].max(kind);
    }
    let played = Style::default().fg(Color::Cyan);
    let to_play = dim();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_style = played;
    let flush = |spans: &mut Vec<Span<'static>>, run: &mut String, style: Style| {
        if !run.is_empty() {
            spans.push(Span::styled(std::mem::take(run), style));
        }
    };
    for (cell, mark) in marks.iter().enumerate() {
        let (text, style) = if cell == head {
            (
                "●",
                Style::default()
                    .fg(Color::White)
                    .add_modifier(Modifier::BOLD),
            )
        } else if *mark == 2 {
            ("✘", Style::default().fg(Color::Red))
        } else if *mark == 1 {
            ("┃", if cell < head { played } else { to_play })
        } else if cell < head {
            ("━", played)
        } else {
            ("─", to_play)
        };
        if style != run_style {
            flush(&mut spans, &mut run, run_style);
            run_style = style;
        }
        run.push_str(text);
    }
    flush(&mut spans, &mut run, run_style);
    spans
}

/// `space play/pause · +/- speed · …`, from the key table.
pub fn key_hints() -> String {
    let label = |command: ReplayCommand| key_label(Action::Replay(command), Context::Replay);
    let pair = |next: ReplayCommand, prev: ReplayCommand, text: &str| {
        format!("{}/{} {text}", label(next), label(prev))
    };
    use MarkKind as M;
    use ReplayCommand as R;
    [
        format!("{} play/pause", label(R::PlayPause)),
        pair(R::Faster, R::Slower, "speed"),
        pair(R::StepBack, R::StepForward, "step"),
        pair(R::Prev(M::Stage), R::Next(M::Stage), "stage"),
        pair(R::Next(M::Failure), R::Prev(M::Failure), "failure"),
        pair(R::Next(M::ToolCall), R::Prev(M::ToolCall), "call"),
        pair(R::Next(M::Checkpoint), R::Prev(M::Checkpoint), "checkpoint"),
        format!("{} instant", label(R::Instant)),
        pair(R::Start, R::End, "start/end"),
        format!("{} help", key_label(Action::Help, Context::Global)),
        format!("{} quit", key_label(Action::Quit, Context::Replay)),
    ]
    .join(" · ")
}
