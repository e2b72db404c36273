//! The diff pane: every file change as a coloured unified diff with word-level highlights, one
//! change at a time (`[` / `]`, or `{` / `}`), or (`c` or `d`) the whole stage against the
//! checkpoint it started from, computed from the session's git commits.

use crate::tui::app::App;
use crate::tui::state::{short, TuiState};
use crate::tui::unified_diff;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// What the pane shows, identified for caching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffKey {
    Change(usize),
    Stage(String, String),
    Nothing(String),
}

/// The change shown in per-change mode.
pub fn selected(state: &TuiState, app: &App) -> Option<usize> {
    let count = state.diffs.len();
    (count > 0).then(|| app.diff.selected.unwrap_or(count - 1).min(count - 1))
}

/// The stage the pane is about: the selected change's, else the current one.
fn stage_index(state: &TuiState, app: &App) -> Option<usize> {
    let by_change = selected(state, app)
        .and_then(|i| state.diffs.get(i))
        .and_then(|entry| state.stages.iter().position(|s| s.name == entry.stage));
    by_change.or(state.current)
}

/// (checkpoint commit the stage started from, newest commit of the stage).
pub fn stage_range(state: &TuiState, app: &App) -> Option<(String, String)> {
    let index = stage_index(state, app)?;
    let to = state.stages.get(index)?.last_commit.clone()?;
    let from = state.stages[..index]
        .iter()
        .rev()
        .find_map(|s| s.checkpoint.as_ref().map(|(_, commit)| commit.clone()))
        .or_else(|| state.session.as_ref().map(|s| s.base_commit.clone()))?;
    Some((from, to))
}

/// What the pane would show now, without rendering it.
pub fn key(state: &TuiState, app: &App) -> DiffKey {
    if app.diff.stage_mode {
        return match stage_range(state, app) {
            Some((from, to)) => DiffKey::Stage(from, to),
            None => DiffKey::Nothing(format!("{:?}", stage_index(state, app))),
        };
    }
    match selected(state, app) {
        Some(index) => DiffKey::Change(index),
        None => DiffKey::Nothing(String::new()),
    }
}

/// What to show: its key, the title, and the lines.
pub fn content(state: &TuiState, app: &App) -> (DiffKey, String, Vec<Line<'static>>) {
    if app.diff.stage_mode {
        let key = key(state, app);
        let Some(index) = stage_index(state, app) else {
            return nothing(key, "no stage has started yet");
        };
        let name = state.stages[index].name.clone();
        let Some((from, to)) = stage_range(state, app) else {
            return nothing(
                key,
                &format!("stage {name} has no commit yet (c: per change)"),
            );
        };
        let title = format!(
            "Diff · stage {name} vs its checkpoint · {}..{}",
            short(&from),
            short(&to)
        );
        let lines = match app.stage_diff(&(from.clone(), to.clone())) {
            Some(Ok([])) => vec![dim_line("no file changes")],
            Some(Ok(diffs)) => diffs
                .iter()
                .flat_map(|d| {
                    let mut lines = vec![Line::styled(
                        format!("{} (+{} -{})", d.path, d.added, d.removed),
                        Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                    )];
                    lines.extend(unified_diff::render(&d.unified));
                    lines.push(Line::raw(""));
                    lines
                })
                .collect(),
            Some(Err(message)) => vec![dim_line(&format!("cannot diff the stage: {message}"))],
            None => vec![dim_line("computing…")],
        };
        return (DiffKey::Stage(from, to), title, lines);
    }
    let Some((index, entry)) = selected(state, app).and_then(|i| Some((i, state.diffs.get(i)?)))
    else {
        return nothing(key(state, app), "no file changes yet");
    };
    let title = format!(
        "Diff · change {}/{} · {} (+{} -{}) · {} attempt {} · by {}",
        index + 1,
        state.diffs.len(),
        entry.diff.path,
        entry.diff.added,
        entry.diff.removed,
        entry.stage,
        entry.attempt,
        entry.by
    );
    (
        DiffKey::Change(index),
        title,
        unified_diff::render(&entry.diff.unified),
    )
}

fn nothing(key: DiffKey, message: &str) -> (DiffKey, String, Vec<Line<'static>>) {
    (key, "Diff".to_string(), vec![dim_line(message)])
}

fn dim_line(text: &str) -> Line<'static> {
    Line::styled(
        text.to_string(),
        Style::default().add_modifier(Modifier::DIM),
    )
}

pub fn draw(frame: &mut Frame, inner: Rect, lines: &[Line<'static>], scroll: usize) {
    let start = scroll.min(lines.len().saturating_sub(1));
    let visible: Vec<Line<'static>> = lines
        .iter()
        .skip(start)
        .take(inner.height as usize)
        .cloned()
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}
