//! The transcript pane: the model's turns (streaming text while a reply arrives), each tool
//! call with its arguments, policy decision and result, checks, evidence, the engineer's
//! actions and hints — newest at the bottom, following unless scrolled back.

use super::text::{count, wrap};
use crate::protocol::{BudgetKind, Policy};
use crate::tui::ansi;
use crate::tui::cells::{CallCell, Cell, Decision, Level};
use crate::tui::state::{seconds, TuiState};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Longest argument text shown for a call (the session log has all of it).
const ARGS_MAX_CHARS: usize = 600;

fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

fn level_style(level: Level) -> Style {
    match level {
        Level::Info => dim(),
        Level::Success => Style::default().fg(Color::Green),
        Level::Warning => Style::default().fg(Color::Yellow),
        Level::Error => Style::default().fg(Color::Red),
    }
}

/// Draw into `inner` (inside the pane's border), `back` lines scrolled back from the bottom.
/// Returns how far back one can scroll.
pub fn draw(frame: &mut Frame, inner: Rect, state: &TuiState, back: usize) -> usize {
    let width = inner.width as usize;
    let height = inner.height as usize;
    let want = height + back;
    let mut tail: Vec<Line<'static>> = Vec::new();
    if let Some((_, text)) = &state.model.streaming {
        tail.extend(streaming_lines(text, width));
    }
    let mut collected: Vec<Vec<Line<'static>>> = vec![tail];
    let mut total = collected[0].len();
    for cell in state.transcript.cells().iter().rev() {
        if total >= want {
            break;
        }
        let lines = cell_lines(cell, width);
        total += lines.len();
        collected.push(lines);
    }
    let all_known = total < want;
    let mut lines: Vec<Line<'static>> = Vec::with_capacity(total);
    if all_known && state.transcript.dropped() > 0 {
        lines.push(Line::styled(
            format!(
                "[{} older entries are in the session log]",
                state.transcript.dropped()
            ),
            dim(),
        ));
    }
    for group in collected.into_iter().rev() {
        lines.extend(group);
    }
    let max_back = lines.len().saturating_sub(height);
    let back = back.min(max_back);
    let end = lines.len() - back;
    let start = end.saturating_sub(height);
    let visible: Vec<Line<'static>> = lines.drain(start..end).collect();
    frame.render_widget(Paragraph::new(visible), inner);
    if all_known {
        max_back
    } else {
        usize::MAX
    }
}

fn streaming_lines(text: &str, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        "model … streaming",
        Style::default().fg(Color::Magenta),
    )];
    let text = ansi::escape_text(text, 2);
    // The last few lines of what has arrived so far.
    let tail: Vec<&str> = text.lines().collect();
    for line in tail.iter().skip(tail.len().saturating_sub(6)) {
        lines.extend(wrap(
            Line::styled(
                format!("  {line}"),
                Style::default()
                    .fg(Color::Magenta)
                    .add_modifier(Modifier::DIM),
            ),
            width,
            2,
        ));
    }
    lines
}

/// The lines of one cell at `width`.
pub fn cell_lines(cell: &Cell, width: usize) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut push = |line: Line<'static>, indent: usize| out.extend(wrap(line, width, indent));
    match cell {
        Cell::Stage { index, name, goal } => {
            push(Line::raw(""), 0);
            push(
                Line::styled(
                    format!("━━ stage {} · {name}", index + 1),
                    Style::default()
                        .fg(Color::Cyan)
                        .add_modifier(Modifier::BOLD),
                ),
                3,
            );
            let goal: Vec<&str> = goal.split_whitespace().collect();
            if !goal.is_empty() {
                push(Line::styled(format!("   {}", goal.join(" ")), dim()), 3);
            }
        }
        Cell::Attempt {
            stage,
            attempt,
            max_attempts,
        } => {
            let style = if *attempt > 1 {
                Style::default().fg(Color::Yellow)
            } else {
                dim()
            };
            push(
                Line::styled(
                    format!("── {stage} attempt {attempt}/{max_attempts}"),
                    style,
                ),
                3,
            );
        }
        Cell::Model {
            request_id,
            prompt_tokens,
            completion_tokens,
            duration_ms,
        } => {
            let rate = if *duration_ms > 0 {
                format!(
                    " · {:.1} tok/s",
                    *completion_tokens as f64 * 1000.0 / *duration_ms as f64
                )
            } else {
                String::new()
            };
            push(
                Line::from(vec![
                    Span::styled("model", Style::default().fg(Color::Magenta)),
                    Span::styled(
                        format!(
                            " #{request_id} · {} in, {} out · {}{rate}",
                            count(*prompt_tokens),
                            count(*completion_tokens),
                            seconds(*duration_ms)
                        ),
                        dim(),
                    ),
                ]),
                2,
            );
        }
        Cell::InvalidReply { error, text } => {
            push(
                Line::styled(
                    format!(
                        "  ✘ the reply is not a valid call: {}",
                        ansi::escape_text(error, 2)
                    ),
                    Style::default().fg(Color::Red),
                ),
                4,
            );
            for line in text.lines().take(3) {
                push(
                    Line::styled(format!("    {}", ansi::escape_text(line, 2)), dim()),
                    4,
                );
            }
        }
        Cell::Call(call) => call_lines(call, &mut push),
        Cell::Check {
            name,
            passed,
            skipped,
            detail,
        } => {
            if *skipped {
                push(
                    Line::styled(
                        format!("  check – {name}: {detail}"),
                        Style::default().fg(Color::DarkGray),
                    ),
                    4,
                );
            } else if *passed {
                push(
                    Line::styled(
                        format!("  check ✔ {name}"),
                        Style::default().fg(Color::Green),
                    ),
                    4,
                );
            } else {
                push(
                    Line::styled(
                        format!("  check ✘ {name}: {detail}"),
                        Style::default().fg(Color::Red),
                    ),
                    4,
                );
            }
        }
        Cell::Evidence { signature, class } => {
            let class = class
                .as_ref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default();
            push(
                Line::styled(
                    format!(
                        "  evidence: {}{class} — 4 shows it, E jumps to it in the log",
                        ansi::escape_text(signature, 2)
                    ),
                    Style::default().fg(Color::Yellow),
                ),
                4,
            );
        }
        Cell::Budget { budget, detail } => {
            let style = if *budget == BudgetKind::Turns {
                Style::default().fg(Color::Yellow)
            } else {
                Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)
            };
            push(
                Line::styled(
                    format!("! {} budget exhausted: {detail}", budget_word(*budget)),
                    style,
                ),
                2,
            );
        }
        Cell::Human {
            action,
            detail,
            files,
        } => {
            let detail = if detail.is_empty() {
                String::new()
            } else {
                format!(" {}", ansi::escape_text(detail, 2))
            };
            push(
                Line::styled(
                    format!("engineer: {}{detail}", action.replace('_', " ")),
                    Style::default()
                        .fg(Color::Blue)
                        .add_modifier(Modifier::BOLD),
                ),
                2,
            );
            for (path, added, removed) in files {
                push(
                    Line::styled(
                        format!("  changed {path} (+{added} -{removed})"),
                        Style::default().fg(Color::Blue),
                    ),
                    4,
                );
            }
        }
        Cell::Hint { text } => push(
            Line::styled(
                format!("hint: {}", ansi::escape_text(text, 2)),
                Style::default().fg(Color::Blue),
            ),
            2,
        ),
        Cell::Note { level, text } => push(Line::styled(text.clone(), level_style(*level)), 2),
    }
    out
}

fn call_lines(call: &CallCell, push: &mut impl FnMut(Line<'static>, usize)) {
    if let Some(thought) = call.thought.as_ref().filter(|t| !t.trim().is_empty()) {
        push(
            Line::styled(
                format!("  “{}”", ansi::escape_text(thought.trim(), 2)),
                Style::default()
                    .fg(Color::Magenta)
                    .add_modifier(Modifier::ITALIC),
            ),
            3,
        );
    }
    push(
        Line::from(vec![
            Span::raw("  → "),
            Span::styled(call.call_id.clone(), dim()),
            Span::raw(" "),
            Span::styled(
                call.tool.clone(),
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(" "),
            Span::raw(args_text(&call.tool, &call.args)),
        ]),
        6,
    );
    let policy = match call.policy {
        Policy::Allow => "allow",
        Policy::Ask => "ask",
        Policy::Deny => "deny",
    };
    let edited = if call.edited {
        " · arguments edited by the engineer"
    } else {
        ""
    };
    let (text, style) = match &call.decision {
        Decision::Proposed => (
            format!("policy {policy} · waiting for a verdict{edited}"),
            Style::default().fg(Color::Yellow),
        ),
        Decision::Approved { by } => (format!("policy {policy} · approved by {by}{edited}"), dim()),
        Decision::Rejected { by, reason } => (
            format!("policy {policy} · rejected by {by}: {reason}"),
            Style::default().fg(Color::Red),
        ),
    };
    push(Line::styled(format!("    {text}"), style), 6);
    if call.running {
        push(
            Line::styled("    … running", Style::default().fg(Color::Cyan)),
            6,
        );
    }
    if let Some(result) = &call.result {
        let code = result
            .exit_code
            .map(|c| format!("exit {c} · "))
            .unwrap_or_default();
        let (mark, style) = if result.ok {
            ("✔", Style::default().fg(Color::Green))
        } else {
            ("✘", Style::default().fg(Color::Red))
        };
        push(
            Line::styled(
                format!(
                    "    {mark} {code}{} · {}",
                    seconds(result.duration_ms),
                    ansi::escape_text(&result.summary, 2)
                ),
                style,
            ),
            6,
        );
    }
    for (path, added, removed) in &call.files {
        push(
            Line::styled(format!("    changed {path} (+{added} -{removed})"), dim()),
            6,
        );
    }
}

/// A call's arguments in one line: the command of `run`, compact JSON otherwise.
pub fn args_text(tool: &str, args: &serde_json::Value) -> String {
    let text = match (tool, args.get("command").and_then(|c| c.as_str())) {
        ("run", Some(command)) => command.to_string(),
        _ => args.to_string(),
    };
    let text = ansi::escape_text(&text, 2);
    if text.chars().count() > ARGS_MAX_CHARS {
        let cut: String = text.chars().take(ARGS_MAX_CHARS).collect();
        format!("{cut} …")
    } else {
        text.into_owned()
    }
}

pub fn budget_word(budget: BudgetKind) -> &'static str {
    match budget {
        BudgetKind::Attempts => "attempt",
        BudgetKind::Turns => "turn",
        BudgetKind::Tokens => "token",
        BudgetKind::WallTime => "wall-time",
        BudgetKind::NoProgress => "no-progress",
        BudgetKind::HumanNeeded => "human",
    }
}
