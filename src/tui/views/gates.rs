//! The gates pane: the checks of the attempt whose checks ran last, each gate with its
//! threshold and measured value (`cosine 0.9991 ≥ 0.999 ✔`), and the evidence of the last
//! failure — signature, class, extracted facts, candidate fixes and the log excerpt.

use super::text::{fit, wrap};
use crate::protocol::GateResult;
use crate::tui::ansi;
use crate::tui::state::{seconds, CheckStatus, TuiState};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

/// `cosine >= 0.999` measured 0.9991 → (`cosine`, `0.9991 ≥ 0.999`).
pub fn gate_text(gate: &GateResult) -> (String, String) {
    let measured = gate.measured.map(number).unwrap_or_else(|| "—".to_string());
    let parts: Vec<&str> = gate.expr.split_whitespace().collect();
    let symbol = |op: &str| match op {
        ">=" => Some("≥"),
        "<=" => Some("≤"),
        "==" => Some("="),
        "!=" => Some("≠"),
        ">" => Some(">"),
        "<" => Some("<"),
        _ => None,
    };
    match parts.as_slice() {
        [metric, op, rest @ ..] if symbol(op).is_some() && !rest.is_empty() => (
            metric.to_string(),
            format!("{measured} {} {}", symbol(op).unwrap_or(op), rest.join(" ")),
        ),
        _ => (gate.expr.clone(), measured),
    }
}

/// A measured value: 4 decimals, scientific when tiny or huge.
pub fn number(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-3..1e6).contains(&a) {
        format!("{v:.4}")
    } else {
        format!("{v:.2e}")
    }
}

pub fn lines(state: &TuiState, width: usize, compact: bool) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut push = |line: Line<'static>, indent: usize| out.extend(wrap(line, width, indent));
    match &state.checks {
        None => push(Line::styled("no checks have run yet", dim()), 0),
        Some(view) => {
            push(
                Line::styled(
                    format!("{} · attempt {}", view.stage, view.attempt),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                0,
            );
            for check in &view.checks {
                if compact {
                    compact_check(check, width, &mut push);
                    continue;
                }
                let (mark, style) = match check.status {
                    CheckStatus::Running => ("…", Style::default().fg(Color::Cyan)),
                    CheckStatus::Passed => ("✔", Style::default().fg(Color::Green)),
                    CheckStatus::Failed => ("✘", Style::default().fg(Color::Red)),
                    CheckStatus::Skipped => ("–", dim()),
                };
                let timing = if check.status == CheckStatus::Running {
                    String::new()
                } else {
                    format!(" · {}", seconds(check.duration_ms))
                };
                push(
                    Line::from(vec![
                        Span::styled(format!("{mark} "), style),
                        Span::raw(check.name.clone()),
                        Span::styled(timing, dim()),
                    ]),
                    2,
                );
                if let Some(command) = &check.command {
                    push(
                        Line::styled(format!("    $ {}", ansi::escape_text(command, 2)), dim()),
                        6,
                    );
                }
                let metric_width = check
                    .gates
                    .iter()
                    .map(|g| gate_text(g).0.chars().count())
                    .max()
                    .unwrap_or(0)
                    .min(24);
                for gate in &check.gates {
                    let (metric, comparison) = gate_text(gate);
                    let (mark, style) = if gate.passed {
                        ("✔", Style::default().fg(Color::Green))
                    } else {
                        ("✘", Style::default().fg(Color::Red))
                    };
                    push(
                        Line::from(vec![
                            Span::raw(format!("    {metric:<metric_width$} ")),
                            Span::styled(format!("{comparison} {mark}"), style),
                        ]),
                        6,
                    );
                }
                if check.status == CheckStatus::Skipped {
                    push(
                        Line::styled(
                            format!("    {}", ansi::escape_text(&check.detail, 2)),
                            dim(),
                        ),
                        6,
                    );
                }
                if check.status == CheckStatus::Failed && check.gates.iter().all(|g| g.passed) {
                    push(
                        Line::styled(
                            format!("    {}", ansi::escape_text(&check.detail, 2)),
                            Style::default().fg(Color::Red),
                        ),
                        6,
                    );
                }
            }
        }
    }
    let Some(view) = &state.evidence else {
        return out;
    };
    let evidence = &view.evidence;
    let label = |name: &str| Span::styled(format!("  {name:<10} "), dim());
    if compact {
        push(Line::raw(""), 0);
        push(
            Line::styled(
                fit(&format!("last failure: {}", evidence.signature), width),
                Style::default().fg(Color::Yellow),
            ),
            0,
        );
        return out;
    }
    push(Line::raw(""), 0);
    push(
        Line::styled(
            format!("Last failure · {} attempt {}", view.stage, view.attempt),
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ),
        0,
    );
    push(
        Line::from(vec![
            label("signature"),
            Span::raw(ansi::escape_text(&evidence.signature, 2).into_owned()),
        ]),
        13,
    );
    if let Some(class) = &evidence.class {
        push(
            Line::from(vec![label("class"), Span::raw(class.clone())]),
            13,
        );
    }
    push(
        Line::from(vec![
            label("check"),
            Span::raw(ansi::escape_text(&evidence.failed_check, 2).into_owned()),
        ]),
        13,
    );
    if let Some(code) = evidence.exit_code {
        push(
            Line::from(vec![label("exit code"), Span::raw(code.to_string())]),
            13,
        );
    }
    for (i, (name, value)) in evidence.facts.iter().enumerate() {
        let head = if i == 0 { "facts" } else { "" };
        push(
            Line::from(vec![
                label(head),
                Span::styled(format!("{name} = "), dim()),
                Span::raw(ansi::escape_text(value, 2).into_owned()),
            ]),
            13,
        );
    }
    for (i, fix) in evidence.candidate_fixes.iter().enumerate() {
        let head = if i == 0 { "fixes" } else { "" };
        push(
            Line::from(vec![
                label(head),
                Span::styled(fix.clone(), Style::default().fg(Color::Cyan)),
            ]),
            13,
        );
    }
    if !evidence.excerpt.trim().is_empty() {
        push(
            Line::from(vec![
                label("excerpt"),
                Span::styled("(E jumps to the error in the log)", dim()),
            ]),
            13,
        );
        let excerpt: Vec<&str> = evidence.excerpt.lines().collect();
        for line in excerpt.iter().skip(excerpt.len().saturating_sub(12)) {
            let mut spans = vec![Span::raw("    ")];
            spans.extend(ansi::parse_line(line, dim()).spans);
            push(Line::from(spans), 4);
        }
    }
    out
}

/// A check in the sidebar: its name, then one short line per gate.
fn compact_check(
    check: &crate::tui::state::CheckView,
    width: usize,
    push: &mut impl FnMut(Line<'static>, usize),
) {
    let (mark, style) = match check.status {
        CheckStatus::Running => ("…", Style::default().fg(Color::Cyan)),
        CheckStatus::Passed => ("✔", Style::default().fg(Color::Green)),
        CheckStatus::Failed => ("✘", Style::default().fg(Color::Red)),
        CheckStatus::Skipped => ("–", dim()),
    };
    push(
        Line::from(vec![
            Span::styled(format!("{mark} "), style),
            Span::raw(fit(&check.name, width.saturating_sub(2))),
        ]),
        2,
    );
    let rows: Vec<(String, String, bool)> = check
        .gates
        .iter()
        .map(|gate| {
            let (metric, _) = gate_text(gate);
            let measured = gate
                .measured
                .map(short_number)
                .unwrap_or_else(|| "—".to_string());
            let parts: Vec<&str> = gate.expr.split_whitespace().collect();
            let comparison = match parts.as_slice() {
                [_, op, rest @ ..] if !rest.is_empty() => format!(
                    "{measured}{}{}",
                    op.replace(">=", "≥")
                        .replace("<=", "≤")
                        .replace("==", "=")
                        .replace("!=", "≠"),
                    rest.join("")
                ),
                _ => measured,
            };
            (metric, comparison, gate.passed)
        })
        .collect();
    let widest = rows
        .iter()
        .map(|(_, c, _)| c.chars().count())
        .max()
        .unwrap_or(0);
    let metric_width = width.saturating_sub(widest + 5).clamp(3, 14);
    for (metric, comparison, passed) in rows {
        let (mark, style) = if passed {
            ("✔", Style::default().fg(Color::Green))
        } else {
            ("✘", Style::default().fg(Color::Red))
        };
        push(
            Line::from(vec![
                Span::styled(format!("  {mark} "), style),
                Span::raw(format!("{:<metric_width$} ", fit(&metric, metric_width))),
                Span::styled(comparison, style),
            ]),
            4,
        );
    }
}

/// A value in few characters: `0.9312`, `0.82`, `2.1e-7`.
fn short_number(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-3..1e6).contains(&a) {
        let text = format!("{v:.4}");
        let text = text.trim_end_matches('0');
        text.strip_suffix('.').unwrap_or(text).to_string()
    } else {
        format!("{v:.1e}")
    }
}

pub fn draw(frame: &mut Frame, inner: Rect, state: &TuiState, compact: bool, scroll: usize) {
    let all = lines(state, inner.width as usize, compact);
    let start = scroll.min(all.len().saturating_sub(1));
    let visible: Vec<Line<'static>> = all
        .into_iter()
        .skip(start)
        .take(inner.height as usize)
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_read_like_the_contract_with_symbols() {
        let gate = GateResult {
            expr: "cosine >= 0.99".into(),
            measured: Some(0.99912),
            passed: true,
        };
        assert_eq!(gate_text(&gate), ("cosine".into(), "0.9991 ≥ 0.99".into()));
        let gate = GateResult {
            expr: "max_abs_err <= 1e-6".into(),
            measured: Some(2.1e-7),
            passed: true,
        };
        assert_eq!(gate_text(&gate).1, "2.10e-7 ≤ 1e-6");
        let gate = GateResult {
            expr: "weird".into(),
            measured: None,
            passed: false,
        };
        assert_eq!(gate_text(&gate), ("weird".into(), "—".into()));
    }
}
