//! What is drawn over the panes: the approval box (a call waits for a verdict), the escalation
//! box (a stage ran out of budget: why, the last evidence, and the ways on), text prompts,
//! pickers, the abort confirmation and the `?` help generated from the key table.

use super::text::{fit, wrap};
use super::transcript::budget_word;
use crate::tui::ansi;
use crate::tui::keys::{effective, Binding, Context, Key};
use crate::tui::prompt::{Input, Picker};
use crate::tui::state::{Approval, Escalation, TuiState};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

/// A `width` × `height` rectangle centred in `area` (clipped to it).
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// A rectangle of `height` rows at the bottom of `area`.
pub fn bottom(area: Rect, height: u16) -> Rect {
    let height = height.min(area.height);
    Rect {
        x: area.x,
        y: area.y + area.height - height,
        width: area.width,
        height,
    }
}

fn boxed(frame: &mut Frame, rect: Rect, title: String, color: Color, lines: Vec<Line<'static>>) {
    frame.render_widget(Clear, rect);
    let block = Block::bordered()
        .title(Span::styled(
            title,
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ))
        .border_style(Style::default().fg(color));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    frame.render_widget(Paragraph::new(lines), inner);
}

fn keys_line(keys: &[(&str, &str)]) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, (key, text)) in keys.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", dim()));
        }
        spans.push(Span::styled(
            key.to_string(),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::raw(format!(" {text}")));
    }
    Line::from(spans)
}

/// A box drawn at the bottom of the main area; the panes above it shrink to make room.
pub struct BottomBox {
    pub title: String,
    pub color: Color,
    pub lines: Vec<Line<'static>>,
    /// The keys, always shown last, whatever the height.
    pub keys: Vec<Line<'static>>,
}

impl BottomBox {
    /// Rows it wants, borders included.
    pub fn height(&self) -> u16 {
        (self.lines.len() + self.keys.len()) as u16 + 2
    }

    /// Draw into `rect`; when it is too short, the last body lines give way to the keys.
    pub fn draw(mut self, frame: &mut Frame, rect: Rect) {
        let rows = rect.height.saturating_sub(2) as usize;
        let room = rows.saturating_sub(self.keys.len());
        if self.lines.len() > room {
            self.lines.truncate(room.saturating_sub(1));
            self.lines.push(Line::styled("…", dim()));
        }
        self.lines.extend(self.keys);
        boxed(frame, rect, self.title, self.color, self.lines);
    }
}

/// The bottom box now, if any: a text prompt, else a call waiting for approval, else an
/// escalation.
pub fn bottom_box(
    state: &TuiState,
    input: Option<&Input>,
    read_only: bool,
    width: u16,
) -> Option<BottomBox> {
    let width = width.saturating_sub(2) as usize;
    if let Some(input) = input {
        return Some(input_box(input, width));
    }
    if read_only {
        return None;
    }
    if let Some(approval) = &state.approval {
        return Some(approval_box(approval, state, width));
    }
    state
        .escalation
        .as_ref()
        .map(|escalation| escalation_box(escalation, state, width))
}

fn approval_box(approval: &Approval, state: &TuiState, width: usize) -> BottomBox {
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(thought) = approval.thought.as_ref().filter(|t| !t.trim().is_empty()) {
        lines.extend(wrap(
            Line::styled(
                format!("“{}”", ansi::escape_text(thought.trim(), 2)),
                Style::default()
                    .fg(Color::Magenta)
                    .add_modifier(Modifier::ITALIC),
            ),
            width,
            1,
        ));
    }
    let pretty = serde_json::to_string_pretty(&approval.args).unwrap_or_default();
    let arg_lines: Vec<&str> = pretty.lines().collect();
    for line in arg_lines.iter().take(8) {
        lines.extend(wrap(
            Line::raw(ansi::escape_text(line, 2).into_owned()),
            width,
            4,
        ));
    }
    if arg_lines.len() > 8 {
        lines.push(Line::styled(
            format!("… {} more lines", arg_lines.len() - 8),
            dim(),
        ));
    }

    let why = if approval.policy == crate::protocol::Policy::Ask {
        "the contract asks for approval"
    } else if state.view.step_mode {
        "step mode"
    } else {
        "approval"
    };
    BottomBox {
        title: format!(
            " {} {} waits for you ({why}) ",
            approval.call_id, approval.tool
        ),
        color: Color::Yellow,
        lines,
        keys: wrap(
            keys_line(&[
                ("y", "approve"),
                ("n", "reject with a reason"),
                ("e", "edit the arguments"),
                ("t", "take over"),
            ]),
            width,
            2,
        ),
    }
}

fn escalation_box(escalation: &Escalation, state: &TuiState, width: usize) -> BottomBox {
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut push = |line: Line<'static>, indent: usize| lines.extend(wrap(line, width, indent));
    push(
        Line::styled(
            format!(
                "{} budget exhausted: {}",
                budget_word(escalation.budget),
                ansi::escape_text(&escalation.detail, 2)
            ),
            Style::default().fg(Color::Red),
        ),
        2,
    );
    if let Some(view) = &state.evidence {
        let e = &view.evidence;
        push(
            Line::from(vec![
                Span::styled(
                    format!("last evidence ({} attempt {}): ", view.stage, view.attempt),
                    dim(),
                ),
                Span::raw(ansi::escape_text(&e.failed_check, 2).into_owned()),
            ]),
            2,
        );
        push(
            Line::from(vec![
                Span::styled("  signature ", dim()),
                Span::raw(ansi::escape_text(&e.signature, 2).into_owned()),
            ]),
            12,
        );
        if !e.facts.is_empty() {
            let facts: Vec<String> = e.facts.iter().map(|(k, v)| format!("{k}={v}")).collect();
            push(
                Line::from(vec![
                    Span::styled("  facts     ", dim()),
                    Span::raw(facts.join(", ")),
                ]),
                12,
            );
        }
        if !e.candidate_fixes.is_empty() {
            push(
                Line::from(vec![
                    Span::styled("  fixes     ", dim()),
                    Span::styled(
                        e.candidate_fixes.join(", "),
                        Style::default().fg(Color::Cyan),
                    ),
                ]),
                12,
            );
        }
        for line in e
            .excerpt
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let line = fit(&ansi::plain(line), width.saturating_sub(4));
            push(Line::styled(format!("  │ {line}"), dim()), 4);
        }
    }
    let stage = escalation
        .stage
        .clone()
        .unwrap_or_else(|| "the session".to_string());
    BottomBox {
        title: format!(" {stage} needs you "),
        color: Color::Red,
        lines,
        keys: wrap(
            keys_line(&[
                ("r", "retry with more attempts"),
                ("t", "take over"),
                ("b", "roll back"),
                ("S", "skip the stage"),
                ("q", "abort"),
            ]),
            width,
            2,
        ),
    }
}

fn input_box(input: &Input, width: usize) -> BottomBox {
    let chars: Vec<char> = input.text.chars().collect();
    // Keep the cursor in view on long text.
    let start = input.cursor.saturating_sub(width.saturating_sub(2));
    let before: String = chars[start.min(chars.len())..input.cursor.min(chars.len())]
        .iter()
        .collect();
    let at: String = chars
        .get(input.cursor)
        .map(|c| c.to_string())
        .unwrap_or_else(|| " ".to_string());
    let after: String = chars.iter().skip(input.cursor + 1).collect();
    let lines = vec![Line::from(vec![
        Span::raw(ansi::escape_text(&before, 1).into_owned()),
        Span::styled(at, Style::default().add_modifier(Modifier::REVERSED)),
        Span::raw(ansi::escape_text(&after, 1).into_owned()),
    ])];
    let keys = match &input.error {
        Some(error) => Line::styled(fit(error, width), Style::default().fg(Color::Red)),
        None => Line::styled("Enter to send · Esc to cancel", dim()),
    };
    BottomBox {
        title: format!(" {} ", input.purpose.title()),
        color: Color::Cyan,
        lines,
        keys: vec![keys],
    }
}

pub fn draw_picker(frame: &mut Frame, area: Rect, picker: &Picker) {
    let visible = picker.visible();
    let rect = centered(area, 70, (visible.len() as u16 + 4).clamp(5, 16));
    let rows = rect.height.saturating_sub(4) as usize;
    let width = rect.width.saturating_sub(2) as usize;
    let first = picker.selected.saturating_sub(rows.saturating_sub(1));
    let mut lines = vec![Line::from(vec![
        Span::styled("filter: ", dim()),
        Span::raw(picker.filter.clone()),
        Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
    ])];
    for (i, item) in visible.iter().enumerate().skip(first).take(rows) {
        let style = if i == picker.selected {
            Style::default().fg(Color::Black).bg(Color::Cyan)
        } else {
            Style::default()
        };
        lines.push(Line::styled(
            format!(" {}", fit(&item.label, width - 1)),
            style,
        ));
    }
    if visible.is_empty() {
        lines.push(Line::styled(" nothing matches", dim()));
    }
    lines.push(Line::styled(
        "↑↓ choose · type to filter · Enter · Esc",
        dim(),
    ));
    boxed(
        frame,
        rect,
        format!(" {} ", picker.purpose.title()),
        Color::Cyan,
        lines,
    );
}

pub fn draw_confirm(frame: &mut Frame, area: Rect) {
    let lines = vec![
        Line::raw("Abort the session? The running command is killed and no"),
        Line::raw("call of the cancelled turn runs."),
        Line::raw(""),
        keys_line(&[("y", "abort"), ("n", "keep going")]),
    ];
    boxed(
        frame,
        centered(area, 62, 6),
        " Abort ".to_string(),
        Color::Red,
        lines,
    );
}

/// A context's bindings as they apply (see [`effective`]).
type Bindings = Vec<(Vec<Key>, &'static Binding)>;

/// The key help. In a replay: its keys first, then the others that still do something there
/// (no engine commands, no keys the replay took).
pub fn draw_help(frame: &mut Frame, area: Rect, replay: bool) {
    // Two columns fit in 80: 11 for the keys, 26 for the text, a space between.
    let entry_width = 38usize;
    let mut entries: Vec<Line<'static>> = Vec::new();
    let sections: Vec<(Context, Bindings)> = if replay {
        vec![
            (Context::Replay, effective(Context::Replay, None)),
            (
                Context::Global,
                effective(Context::Global, Some(Context::Replay))
                    .into_iter()
                    .filter(|(_, b)| !b.action.commands_engine())
                    .collect(),
            ),
        ]
    } else {
        [Context::Global, Context::Approval, Context::Escalation]
            .into_iter()
            .map(|context| (context, effective(context, None)))
            .collect()
    };
    for (context, bindings) in sections {
        entries.push(Line::styled(
            context.title().to_string(),
            Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        ));
        for (keys, binding) in bindings {
            let keys: Vec<String> = keys.iter().map(|k| k.label()).collect();
            let keys = keys.join("/");
            entries.push(Line::from(vec![
                Span::styled(format!("{keys:>11} "), Style::default().fg(Color::Cyan)),
                Span::raw(fit(binding.help, entry_width - 12)),
            ]));
        }
    }
    entries.push(Line::styled("  the mouse wheel scrolls too", dim()));
    let inner_width = area.width.saturating_sub(2) as usize;
    let columns = (inner_width / entry_width).clamp(1, 3);
    let rows = entries.len().div_ceil(columns);
    let mut lines: Vec<Line<'static>> = Vec::new();
    for row in 0..rows {
        let mut spans: Vec<Span<'static>> = Vec::new();
        for column in 0..columns {
            if let Some(entry) = entries.get(column * rows + row) {
                let text_width = entry.width();
                spans.extend(entry.spans.iter().cloned());
                if column + 1 < columns {
                    spans.push(Span::raw(
                        " ".repeat(entry_width.saturating_sub(text_width)),
                    ));
                }
            }
        }
        lines.push(Line::from(spans));
    }
    let width = (columns * entry_width + 2) as u16;
    let height = rows as u16 + 2;
    boxed(
        frame,
        centered(area, width, height),
        " Keys (any key closes) ".to_string(),
        Color::Cyan,
        lines,
    );
}
