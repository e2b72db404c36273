//! The status bar: the mode (auto / step / paused / taken over / escalated, or how the session
//! ended), the model, tokens per second, context used of its size, budgets (tokens, attempts,
//! wall time), and key hints for what can be done now — or the last message for the engineer.
//! Segments drop from the right when the terminal is narrow.

use super::text::{clock, count, fit};
use crate::protocol::{Outcome, PauseCause};
use crate::tui::app::App;
use crate::tui::keys::{key_label, Action, Context};
use crate::tui::state::TuiState;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// The model as the status bar names it: a file's name without its folder.
fn short_model(model: &str) -> String {
    if model.starts_with("http://") || model.starts_with("https://") {
        return model.to_string();
    }
    let (kind, path) = match model.split_once(':') {
        Some((kind, path)) if !kind.contains('/') => (format!("{kind}:"), path),
        _ => (String::new(), model),
    };
    let name = path.rsplit('/').next().unwrap_or(path);
    format!("{kind}{name}")
}

/// The mode word and its colour.
pub fn mode(state: &TuiState) -> (&'static str, Color) {
    if let Some(finished) = &state.finished {
        return match finished.outcome {
            Outcome::Deployed => ("DEPLOYED", Color::Green),
            Outcome::Failed => ("FAILED", Color::Red),
            Outcome::Aborted => ("ABORTED", Color::Yellow),
            Outcome::Error => ("ERROR", Color::Red),
        };
    }
    if state.view.taken_over {
        ("TAKEN OVER", Color::Magenta)
    } else if state.escalation.is_some() {
        ("ESCALATED", Color::Red)
    } else if state.view.paused.is_some() {
        ("PAUSED", Color::Yellow)
    } else if state.view.step_mode {
        ("STEP", Color::Yellow)
    } else {
        ("AUTO", Color::Green)
    }
}

fn hints(state: &TuiState, app: &App) -> String {
    let hint = |action: Action, context: Context, text: &str| {
        format!("{} {text}", key_label(action, context))
    };
    let mut parts: Vec<String> = Vec::new();
    if app.read_only || state.finished.is_some() {
        parts.push(hint(Action::Quit, Context::Global, "quit"));
    } else if state.approval.is_some() {
        parts.push(hint(Action::Approve, Context::Approval, "approve"));
        parts.push(hint(Action::Reject, Context::Approval, "reject"));
        parts.push(hint(Action::EditArgs, Context::Approval, "edit"));
    } else if state.escalation.is_some() {
        parts.push(hint(Action::Retry, Context::Escalation, "retry"));
        parts.push(hint(Action::Takeover, Context::Escalation, "take over"));
        parts.push(hint(Action::Skip, Context::Escalation, "skip"));
    } else if matches!(state.view.paused, Some((PauseCause::Question, _))) {
        parts.push(hint(Action::Hint, Context::Global, "answer the model"));
        parts.push(hint(Action::Takeover, Context::Global, "take over"));
    } else {
        let pause = if state.view.paused.is_some() {
            "resume"
        } else {
            "pause"
        };
        parts.push(hint(Action::PauseResume, Context::Global, pause));
        parts.push(hint(Action::StepToggle, Context::Global, "step"));
        parts.push(hint(Action::Hint, Context::Global, "hint"));
        parts.push(hint(Action::Takeover, Context::Global, "take over"));
    }
    parts.push(hint(Action::Help, Context::Global, "help"));
    parts.join(" · ")
}

pub fn draw(frame: &mut Frame, area: Rect, state: &TuiState, app: &App, now_ms: u64) {
    let width = area.width as usize;
    let (word, color) = mode(state);
    let badge = if app.read_only {
        format!(" REPLAY {word} ")
    } else {
        format!(" {word} ")
    };
    let mut spans = vec![Span::styled(
        badge.clone(),
        Style::default()
            .fg(Color::Black)
            .bg(color)
            .add_modifier(Modifier::BOLD),
    )];
    let mut used = badge.chars().count();
    let sep = Style::default().add_modifier(Modifier::DIM);
    // (text, priority): when the bar is too narrow, the lowest priorities go first.
    let mut segments: Vec<(String, u8)> = Vec::new();
    if let Some(session) = &state.session {
        segments.push((fit(&short_model(&session.model), 22), 1));
    }
    // Where run, accuracy and performance execute, when it is not the build host.
    if let Some(policy) = state.view.policy.as_ref().filter(|p| !p.device.is_empty()) {
        let name = policy
            .device
            .split(" (python")
            .next()
            .unwrap_or(&policy.device);
        segments.push((fit(&format!("on {name}"), 28), 5));
    }
    if let Some(rate) = state.model.last_tokens_per_s {
        segments.push((format!("{rate:.1} tok/s"), 4));
    }
    let context_size = state.session.as_ref().map(|s| s.context_size).unwrap_or(0);
    if state.model.requests > 0 {
        let text = if context_size > 0 {
            format!(
                "ctx {}/{}",
                count(state.model.context_used),
                count(u64::from(context_size))
            )
        } else {
            format!("ctx {}", count(state.model.context_used))
        };
        segments.push((text, 3));
    }
    if state.view.limits.tokens > 0 {
        segments.push((
            format!(
                "{} tokens left",
                count(
                    state
                        .view
                        .limits
                        .tokens
                        .saturating_sub(state.view.tokens_used())
                )
            ),
            2,
        ));
    }
    if let Some(stage) = state.current_stage() {
        if stage.max_attempts > 0 {
            segments.push((
                format!("attempt {}/{}", stage.attempt, stage.max_attempts),
                6,
            ));
        }
    }
    if let Some(session) = &state.session {
        let elapsed = match &state.finished {
            Some(finished) => finished.duration_ms,
            None => now_ms.saturating_sub(session.started_ms),
        };
        let text = if state.view.limits.wall_time_s > 0 {
            format!(
                "{} / {}",
                clock(elapsed),
                clock(state.view.limits.wall_time_s * 1000)
            )
        } else {
            clock(elapsed)
        };
        segments.push((text, 5));
    }
    let tail = match &app.flash {
        Some(flash) => (flash.clone(), Style::default().fg(Color::Yellow)),
        None => (
            hints(state, app),
            Style::default().add_modifier(Modifier::DIM),
        ),
    };
    // Keep room for the start of the hints; drop low-priority segments until the rest fits.
    let room = width.saturating_sub(used + 24);
    let mut kept: Vec<bool> = vec![true; segments.len()];
    let total = |kept: &[bool]| -> usize {
        segments
            .iter()
            .zip(kept)
            .filter(|(_, k)| **k)
            .map(|((t, _), _)| t.chars().count() + 3)
            .sum()
    };
    let mut order: Vec<usize> = (0..segments.len()).collect();
    order.sort_by_key(|&i| segments[i].1);
    for i in order {
        if total(&kept) <= room {
            break;
        }
        kept[i] = false;
    }
    for ((segment, _), keep) in segments.into_iter().zip(kept) {
        if keep {
            used += segment.chars().count() + 3;
            spans.push(Span::styled(" │ ", sep));
            spans.push(Span::raw(segment));
        }
    }
    if used + 4 < width {
        spans.push(Span::styled(" │ ", sep));
        spans.push(Span::styled(fit(&tail.0, width - used - 3), tail.1));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
