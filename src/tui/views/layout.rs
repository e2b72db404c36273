//! Where each pane goes for a terminal size. Three shapes:
//! - wide (≥ 140 × 30): stages and gates on the left, the transcript in the middle, log over
//!   diff on the right — everything at once;
//! - medium (≥ 80 columns): stages and compact gates on the left, one pane with tabs on the right;
//! - narrow (below 80 columns, e.g. 60 × 20): a one-line stage strip, tabs, one pane.
//!
//! The status bar is always the last line; a replay's timeline sits right above it. [`Areas`]
//! is kept by the app for mouse hit-testing and page sizes.

use ratatui::layout::{Constraint, Layout, Rect};

/// The four scrollable panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Transcript,
    Log,
    Diff,
    Gates,
}

impl Pane {
    pub const ALL: [Pane; 4] = [Pane::Transcript, Pane::Log, Pane::Diff, Pane::Gates];

    pub fn next(self) -> Pane {
        Pane::ALL[(self.index() + 1) % 4]
    }

    pub fn prev(self) -> Pane {
        Pane::ALL[(self.index() + 3) % 4]
    }

    pub fn index(self) -> usize {
        match self {
            Pane::Transcript => 0,
            Pane::Log => 1,
            Pane::Diff => 2,
            Pane::Gates => 3,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Pane::Transcript => "Transcript",
            Pane::Log => "Log",
            Pane::Diff => "Diff",
            Pane::Gates => "Gates",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Areas {
    /// The stage list (medium and wide).
    pub stages: Option<Rect>,
    /// The one-line stage strip (narrow).
    pub strip: Option<Rect>,
    /// Compact gates under the stages (medium).
    pub gates_side: Option<Rect>,
    /// The tab bar (medium and narrow).
    pub tabs: Option<Rect>,
    /// The panes shown, with their rectangles (borders included).
    pub panes: Vec<(Pane, Rect)>,
    /// Where prompts and the approval box are anchored.
    pub main: Rect,
    /// A replay's timeline (its rows above the status bar).
    pub timeline: Option<Rect>,
    pub status: Rect,
}

impl Areas {
    /// Lay out `area` with `focus` as the pane shown when only one fits, and `timeline_rows`
    /// rows for a replay's timeline (0: none).
    pub fn compute(area: Rect, focus: Pane, stage_count: usize, timeline_rows: u16) -> Areas {
        let [body, timeline, status] = Layout::vertical([
            Constraint::Fill(1),
            Constraint::Length(timeline_rows),
            Constraint::Length(1),
        ])
        .areas(area);
        let stage_rows = (stage_count as u16 + 2).clamp(3, (body.height / 2).max(3));
        let mut areas = Areas {
            status,
            main: body,
            timeline: (timeline_rows > 0 && timeline.height > 0).then_some(timeline),
            ..Areas::default()
        };
        if area.width >= 140 && area.height >= 30 {
            let [side, middle, right] = Layout::horizontal([
                Constraint::Length(34),
                Constraint::Fill(1),
                Constraint::Fill(1),
            ])
            .areas(body);
            let [stages, gates] =
                Layout::vertical([Constraint::Length(stage_rows), Constraint::Fill(1)]).areas(side);
            let [log, diff] =
                Layout::vertical([Constraint::Percentage(60), Constraint::Fill(1)]).areas(right);
            areas.stages = Some(stages);
            areas.panes = vec![
                (Pane::Transcript, middle),
                (Pane::Log, log),
                (Pane::Diff, diff),
                (Pane::Gates, gates),
            ];
            areas.main = Rect {
                x: middle.x,
                y: middle.y,
                width: middle.width + right.width,
                height: middle.height,
            };
        } else if area.width >= 80 {
            let [side, main] =
                Layout::horizontal([Constraint::Length(28), Constraint::Fill(1)]).areas(body);
            let [stages, gates] =
                Layout::vertical([Constraint::Length(stage_rows), Constraint::Fill(1)]).areas(side);
            let [tabs, pane] =
                Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(main);
            areas.stages = Some(stages);
            areas.gates_side = (gates.height >= 3).then_some(gates);
            areas.tabs = Some(tabs);
            areas.panes = vec![(focus, pane)];
            areas.main = main;
        } else {
            let [strip, tabs, pane] = Layout::vertical([
                Constraint::Length(1),
                Constraint::Length(1),
                Constraint::Fill(1),
            ])
            .areas(body);
            areas.strip = Some(strip);
            areas.tabs = Some(tabs);
            areas.panes = vec![(focus, pane)];
            areas.main = pane;
        }
        areas
    }

    /// The rectangle of `pane`, if shown.
    pub fn pane(&self, pane: Pane) -> Option<Rect> {
        self.panes.iter().find(|(p, _)| *p == pane).map(|(_, r)| *r)
    }

    /// Rows inside `pane`'s border (the main area's when it is not shown).
    pub fn inner_height(&self, pane: Pane) -> u16 {
        self.pane(pane)
            .unwrap_or(self.main)
            .height
            .saturating_sub(2)
    }

    /// The pane under a mouse position.
    pub fn pane_at(&self, column: u16, row: u16) -> Option<Pane> {
        let inside = |r: &Rect| {
            column >= r.x && column < r.x + r.width && row >= r.y && row < r.y + r.height
        };
        self.panes
            .iter()
            .find(|(_, r)| inside(r))
            .map(|(p, _)| *p)
            .or_else(|| self.gates_side.filter(inside).map(|_| Pane::Gates))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_by_size_and_every_area_fits() {
        for (w, h) in [
            (200, 50),
            (140, 30),
            (120, 40),
            (80, 24),
            (60, 20),
            (20, 5),
            (1, 1),
        ] {
            let area = Rect::new(0, 0, w, h);
            let areas = Areas::compute(area, Pane::Log, 3, 0);
            for (_, r) in &areas.panes {
                assert!(r.right() <= w && r.bottom() <= h, "{w}x{h}: {r:?}");
            }
            assert_eq!(areas.status.y, h - 1);
        }
        assert_eq!(
            Areas::compute(Rect::new(0, 0, 160, 40), Pane::Log, 3, 0)
                .panes
                .len(),
            4
        );
        let medium = Areas::compute(Rect::new(0, 0, 80, 24), Pane::Log, 3, 0);
        assert_eq!(medium.panes.len(), 1);
        assert_eq!(medium.pane_at(40, 10), Some(Pane::Log));
        assert!(Areas::compute(Rect::new(0, 0, 60, 20), Pane::Diff, 3, 0)
            .strip
            .is_some());
        let replay = Areas::compute(Rect::new(0, 0, 60, 20), Pane::Diff, 3, 2);
        assert_eq!(replay.timeline, Some(Rect::new(0, 17, 60, 2)));
        assert_eq!(replay.status.y, 19);
        assert!(replay.panes.iter().all(|(_, r)| r.bottom() <= 17));
    }
}
