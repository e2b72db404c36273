//! Drawing: the whole screen from [`TuiState`] and [`App`], one file per view. Drawing never
//! changes either; it returns where things went ([`DrawInfo`]) for the app to keep.

pub mod diff;
pub mod gates;
pub mod layout;
pub mod log;
pub mod overlay;
pub mod pipeline;
pub mod status;
pub mod text;
pub mod timeline;
pub mod transcript;

use crate::tui::app::{App, Overlay};
use crate::tui::state::TuiState;
use layout::{Areas, Pane};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// What drawing found out: the layout, and how far the transcript can scroll back.
#[derive(Debug, Clone, Default)]
pub struct DrawInfo {
    pub areas: Areas,
    pub transcript_max_back: usize,
}

/// Draw the screen. `now_ms` is the clock for elapsed times (fixed in tests, the event time in
/// a replay).
pub fn draw(frame: &mut Frame, state: &TuiState, app: &App, now_ms: u64) -> DrawInfo {
    let area = frame.area();
    let timeline_rows = app
        .replay
        .as_ref()
        .map_or(0, |_| timeline::rows(area.height));
    let mut areas = Areas::compute(area, app.focus, state.stages.len(), timeline_rows);
    let input = match &app.overlay {
        Some(Overlay::Input(input)) => Some(input),
        _ => None,
    };
    // A prompt, an approval or an escalation sits under the panes, which shrink for it.
    let bottom = overlay::bottom_box(state, input, app.read_only, areas.main.width).map(|b| {
        let height = b.height().min(areas.main.height.saturating_sub(3)).max(3);
        let rect = overlay::bottom(areas.main, height);
        for (_, pane) in areas.panes.iter_mut() {
            if pane.bottom() > rect.y && pane.y < rect.y {
                pane.height = rect.y - pane.y;
            }
        }
        (b, rect)
    });
    let mut info = DrawInfo {
        areas: areas.clone(),
        transcript_max_back: 0,
    };
    if area.width < 10 || area.height < 3 {
        frame.render_widget(Paragraph::new("aipc: the terminal is too small"), area);
        return info;
    }
    if let Some(rect) = areas.stages {
        pipeline::draw_list(frame, rect, state, now_ms);
    }
    if let Some(rect) = areas.strip {
        pipeline::draw_strip(frame, rect, state);
    }
    if let Some(rect) = areas.gates_side {
        let block = Block::bordered().title(" Gates ");
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        gates::draw(frame, inner, state, true, 0);
    }
    if let Some(rect) = areas.tabs {
        draw_tabs(frame, rect, app.focus, state);
    }
    for (pane, rect) in &areas.panes {
        let focused = *pane == app.focus && areas.panes.len() > 1;
        let (title, lines) = match pane {
            Pane::Log => (log::title(state, app), None),
            Pane::Diff => {
                let (_, title, lines) = match &app.diff_cache {
                    Some(cached) if cached.0 == diff::key(state, app) => cached.clone(),
                    _ => diff::content(state, app),
                };
                (title, Some(lines))
            }
            Pane::Transcript => (transcript_title(state, app), None),
            Pane::Gates => ("Gates and evidence".to_string(), None),
        };
        let border = if focused {
            Style::default().fg(Color::Cyan)
        } else {
            Style::default()
        };
        let block = Block::bordered().border_style(border).title(Span::styled(
            format!(
                " {} ",
                text::fit(&title, rect.width.saturating_sub(4) as usize)
            ),
            if focused {
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            },
        ));
        let inner = block.inner(*rect);
        frame.render_widget(block, *rect);
        match pane {
            Pane::Transcript => {
                info.transcript_max_back =
                    transcript::draw(frame, inner, state, app.transcript_back);
            }
            Pane::Log => log::draw(frame, inner, state, app),
            Pane::Diff => diff::draw(frame, inner, &lines.unwrap_or_default(), app.diff.scroll),
            Pane::Gates => gates::draw(frame, inner, state, false, app.gates_scroll),
        }
    }
    status::draw(frame, areas.status, state, app, now_ms);
    if let (Some(rect), Some(replay)) = (areas.timeline, &app.replay) {
        timeline::draw(frame, rect, replay);
    }
    if let Some((b, rect)) = bottom {
        b.draw(frame, rect);
    }
    match &app.overlay {
        Some(Overlay::Help) => overlay::draw_help(frame, area, app.replay.is_some()),
        Some(Overlay::Confirm(_)) => overlay::draw_confirm(frame, area),
        Some(Overlay::Picker(picker)) => overlay::draw_picker(frame, area, picker),
        Some(Overlay::Input(_)) | None => {}
    }
    info.areas = areas;
    info
}

fn transcript_title(state: &TuiState, app: &App) -> String {
    let mut title = "Transcript".to_string();
    if let Some(session) = &state.session {
        title.push_str(&format!(" · {} · {}", session.target, session.id));
    }
    if app.transcript_back > 0 {
        title.push_str(" · scrolled back (End follows)");
    }
    title
}

fn draw_tabs(frame: &mut Frame, area: Rect, focus: Pane, state: &TuiState) {
    let mut spans = Vec::new();
    for pane in Pane::ALL {
        let mut label = format!(" {} {} ", pane.index() + 1, pane.title());
        if pane == Pane::Diff && !state.diffs.is_empty() {
            label = format!(" 3 Diff ({}) ", state.diffs.len());
        }
        let style = if pane == focus {
            Style::default()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::DIM)
        };
        spans.push(Span::styled(label, style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
