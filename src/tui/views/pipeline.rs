//! The stage pipeline: each stage with its state, attempts against the budget (`2/5`), elapsed
//! time and a ⚑ once it has a checkpoint — as a list in the sidebar, or as a one-line strip on
//! a narrow terminal.

use super::text::{clock, fit};
use crate::tui::state::{StageStatus, StageView, TuiState};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

pub fn icon(status: StageStatus) -> (&'static str, Style) {
    match status {
        StageStatus::Pending => ("·", Style::default().add_modifier(Modifier::DIM)),
        StageStatus::Running => (
            "▶",
            Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
        ),
        StageStatus::Passed => ("✔", Style::default().fg(Color::Green)),
        StageStatus::Failed => ("✘", Style::default().fg(Color::Red)),
        StageStatus::Escalated => (
            "!",
            Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
        ),
        StageStatus::Skipped => ("↷", Style::default().fg(Color::Yellow)),
    }
}

/// How long the stage has run (or ran).
pub fn elapsed(stage: &StageView, now_ms: u64) -> Option<u64> {
    stage
        .duration_ms
        .or_else(|| stage.started_ms.map(|s| now_ms.saturating_sub(s)))
}

pub fn draw_list(frame: &mut Frame, area: Rect, state: &TuiState, now_ms: u64) {
    let block = Block::bordered().title(" Stages ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    // icon, space, name, space, attempts (5), space, time (5), flag (2)
    let name_width = width.saturating_sub(16).max(4);
    let lines: Vec<Line> = state
        .stages
        .iter()
        .map(|stage| {
            let (mark, style) = icon(stage.status);
            let attempts = if stage.max_attempts > 0 {
                format!("{}/{}", stage.attempt, stage.max_attempts)
            } else {
                String::new()
            };
            let time = elapsed(stage, now_ms).map(clock).unwrap_or_default();
            let name_style = if stage.status == StageStatus::Running {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            Line::from(vec![
                Span::styled(format!("{mark} "), style),
                Span::styled(
                    format!("{:<name_width$}", fit(&stage.name, name_width)),
                    name_style,
                ),
                Span::raw(format!(" {attempts:>5} ")),
                Span::styled(
                    format!("{time:>5}"),
                    Style::default().add_modifier(Modifier::DIM),
                ),
                Span::styled(
                    if stage.checkpoint.is_some() {
                        " ⚑"
                    } else {
                        "  "
                    },
                    Style::default().fg(Color::Green),
                ),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

pub fn draw_strip(frame: &mut Frame, area: Rect, state: &TuiState) {
    let mut spans = Vec::new();
    for (i, stage) in state.stages.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(
                " → ",
                Style::default().add_modifier(Modifier::DIM),
            ));
        }
        let (mark, style) = icon(stage.status);
        spans.push(Span::styled(mark, style));
        spans.push(Span::raw(stage.name.clone()));
        if stage.status == StageStatus::Running || stage.status == StageStatus::Escalated {
            spans.push(Span::raw(format!(
                " {}/{}",
                stage.attempt, stage.max_attempts
            )));
        }
        if stage.checkpoint.is_some() {
            spans.push(Span::styled("⚑", Style::default().fg(Color::Green)));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
