//! The toolchain log pane: every line of every command and check with its ANSI colours, a
//! `━━` header before each command and a `──` footer after it, stderr marked in the gutter, the
//! search match and the evidence's error line marked; follows the end until scrolled up.

use super::text::{count, skip_columns};
use crate::tui::ansi;
use crate::tui::app::App;
use crate::tui::logbuf::LineKind;
use crate::tui::state::TuiState;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// The pane title: position and mode.
pub fn title(state: &TuiState, app: &App) -> String {
    let total = state.log.len();
    let mut title = if app.log.follow {
        format!("Log · following · {} lines", count(total))
    } else {
        let top = app.log_top(state);
        format!("Log · line {} of {} · G follows", top + 1, count(total))
    };
    if let Some(search) = &app.log.search {
        title.push_str(&format!(" · /{search}"));
    }
    if state.log.evicted_lines() > 0 {
        title.push_str(&format!(" · {} spilled", count(state.log.evicted_lines())));
    }
    // Spilling stopped (disk full, no permission): older lines are only in the session log.
    if let Some(error) = state.log.spill_error() {
        title.push_str(&format!(" · spill file failed ({error}): see events.jsonl"));
    }
    title
}

pub fn draw(frame: &mut Frame, inner: Rect, state: &TuiState, app: &App) {
    let height = inner.height as usize;
    let top = app.log_top(state);
    let anchor = state.evidence.as_ref().and_then(|e| e.anchor);
    let lines: Vec<Line<'static>> = state
        .log
        .lines(top, height)
        .into_iter()
        .enumerate()
        .map(|(i, (text, meta))| {
            let index = top + i as u64;
            let (gutter, gutter_style) = if Some(index) == app.log.matched {
                (
                    "▶",
                    Style::default()
                        .fg(Color::Yellow)
                        .add_modifier(Modifier::BOLD),
                )
            } else if Some(index) == anchor {
                (
                    "●",
                    Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                )
            } else if meta.kind == LineKind::Stderr {
                (
                    "▎",
                    Style::default().fg(Color::Red).add_modifier(Modifier::DIM),
                )
            } else {
                (" ", Style::default())
            };
            let base = match meta.kind {
                LineKind::Header => Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
                LineKind::Footer => {
                    if text.contains("FAILED")
                        || (text.contains("exit ") && !text.contains("exit 0 "))
                    {
                        Style::default().fg(Color::Red)
                    } else {
                        Style::default().add_modifier(Modifier::DIM)
                    }
                }
                LineKind::Stdout | LineKind::Stderr => Style::default(),
            };
            let body = skip_columns(ansi::parse_line(&text, base), app.log.left);
            let mut spans = vec![Span::styled(gutter, gutter_style)];
            spans.extend(body.spans);
            Line::from(spans)
        })
        .collect();
    if lines.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "no command output yet",
                Style::default().add_modifier(Modifier::DIM),
            )),
            inner,
        );
        return;
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
