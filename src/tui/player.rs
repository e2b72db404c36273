//! The replay controller: plays a [`Recording`] into a [`TuiState`] — the same reducer and so
//! the same views as a live run; the recording is just another producer of the event stream.
//! No terminal, no clock and no engine here: the runner ([`super::player_loop`]) tells it how
//! much real time passed ([`Replay::tick`]) and what the engineer asked ([`ReplayCommand`]).
//!
//! - **Position**: how many events are applied (`0..=len`); the event shown last is the one
//!   before the position.
//! - **Playing** waits the recorded gap between two events divided by the speed (0.25× … 64×),
//!   each gap cut to [`MAX_WAIT_MS`] of recorded time so idle minutes do not stall the demo;
//!   **instant** applies [`INSTANT_BATCH`] events per tick until the end.
//! - **Steps and jumps** (one event, the next/previous stage start, checkpoint, tool call or
//!   failure of the [`RecordingIndex`], the start, the end) pause playback and land just after
//!   the event jumped to, so the screen shows it.
//! - **Going back** restores the nearest earlier [`Snapshot`] (one every `interval` events,
//!   taken in one pass when the replay opens) and re-applies the events after it, so a seek
//!   anywhere costs at most one snapshot restore plus `interval` events — whatever the
//!   session's length. Snapshots are cheap (the transcript and lists are shared until
//!   changed, the log only hides lines); their interval grows with the session so that there
//!   are at most [`MAX_SNAPSHOTS`].

use super::logbuf::LogBuf;
use super::state::{Snapshot, TuiState};
use super::views::timeline::{Timeline, TimelineMark};
use crate::session::{Mark, Recording, RecordingIndex};
use std::sync::Arc;

/// The speeds `+` and `-` step through (then instant).
pub const SPEEDS: [f64; 9] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
/// The longest wait between two events, in recorded milliseconds (2 s at 1×).
pub const MAX_WAIT_MS: u64 = 2_000;
/// Events applied per tick at instant speed.
pub const INSTANT_BATCH: usize = 2_000;
/// Events applied per tick at most at any timed speed (a burst of events recorded in the same
/// millisecond still leaves room for frames and keys).
pub const MAX_PER_TICK: usize = 5_000;
/// At most this many snapshots are kept …
pub const MAX_SNAPSHOTS: usize = 64;
/// … and at least this many events lie between two (short sessions).
pub const MIN_SNAPSHOT_INTERVAL: usize = 256;
/// Real time one tick accounts for at most (a suspended terminal does not fast-forward).
const MAX_TICK_MS: f64 = 250.0;

/// How fast the recording plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// `SPEEDS[i]` times the recorded pace.
    Times(usize),
    /// No waits: as fast as events can be applied.
    Instant,
}

impl Speed {
    /// 1×.
    pub const NORMAL: Speed = Speed::Times(2);

    /// `0.25`, `1`, `16x`, `16×`, `instant`.
    pub fn parse(text: &str) -> Result<Speed, String> {
        let trimmed = text.trim().trim_end_matches(['x', 'X', '×']);
        if text.trim().eq_ignore_ascii_case("instant") {
            return Ok(Speed::Instant);
        }
        let valid = || {
            let mut all: Vec<String> = SPEEDS.iter().map(|s| format!("{s}")).collect();
            all.push("instant".to_string());
            all.join(", ")
        };
        let factor: f64 = trimmed
            .parse()
            .map_err(|_| format!("`{text}` is not a speed (one of {})", valid()))?;
        SPEEDS
            .iter()
            .position(|s| (s - factor).abs() < 1e-9)
            .map(Speed::Times)
            .ok_or_else(|| format!("speed {text} is not offered (one of {})", valid()))
    }

    /// The factor on the recorded pace (`None`: instant).
    pub fn factor(self) -> Option<f64> {
        match self {
            Speed::Times(i) => SPEEDS.get(i).copied(),
            Speed::Instant => None,
        }
    }

    /// One step faster: after 64× comes instant, which stays.
    pub fn faster(self) -> Speed {
        match self {
            Speed::Times(i) if i + 1 < SPEEDS.len() => Speed::Times(i + 1),
            _ => Speed::Instant,
        }
    }

    /// One step slower: instant goes to 64×, 0.25× stays.
    pub fn slower(self) -> Speed {
        match self {
            Speed::Instant => Speed::Times(SPEEDS.len() - 1),
            Speed::Times(i) => Speed::Times(i.saturating_sub(1)),
        }
    }

    /// `0.25×`, `1×`, `instant`.
    pub fn label(self) -> String {
        match self.factor() {
            Some(f) => format!("{f}×"),
            None => "instant".to_string(),
        }
    }
}

/// The places one jumps between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    Stage,
    Checkpoint,
    ToolCall,
    Failure,
}

impl MarkKind {
    fn word(self) -> &'static str {
        match self {
            MarkKind::Stage => "stage",
            MarkKind::Checkpoint => "checkpoint",
            MarkKind::ToolCall => "tool call",
            MarkKind::Failure => "failure",
        }
    }

    fn marks(self, index: &RecordingIndex) -> &[Mark] {
        match self {
            MarkKind::Stage => &index.stage_starts,
            MarkKind::Checkpoint => &index.checkpoints,
            MarkKind::ToolCall => &index.tool_calls,
            MarkKind::Failure => &index.failures,
        }
    }
}

/// What the engineer asks of the replay (the replay keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayCommand {
    PlayPause,
    Faster,
    Slower,
    /// Instant speed, or back to the speed before it.
    Instant,
    StepForward,
    StepBack,
    Next(MarkKind),
    Prev(MarkKind),
    Start,
    End,
}

pub struct Replay {
    recording: Recording,
    state: TuiState,
    /// Events applied.
    pos: usize,
    playing: bool,
    speed: Speed,
    /// The timed speed `Instant` toggles back to.
    timed: Speed,
    /// Recorded milliseconds played since the last event was applied.
    credit_ms: f64,
    /// `snapshots[k]`: the state after `k * interval` events.
    snapshots: Vec<Snapshot>,
    interval: usize,
    /// Stage starts and failures, for the timeline bar.
    bar_marks: Arc<Vec<TimelineMark>>,
}

impl Replay {
    /// Open `recording` for playing: one pass over all events takes the snapshots (this is
    /// where a long session's time goes), then the replay stands at the start, playing unless
    /// `paused`. `log` is the state's log buffer (with a spill file for long sessions).
    pub fn new(recording: Recording, log: LogBuf, speed: Speed, paused: bool) -> Replay {
        let interval = recording
            .len()
            .div_ceil(MAX_SNAPSHOTS)
            .max(MIN_SNAPSHOT_INTERVAL);
        Replay::with_interval(recording, log, speed, paused, interval)
    }

    /// [`Replay::new`] with a snapshot every `interval` events (tests use short ones).
    pub fn with_interval(
        recording: Recording,
        log: LogBuf,
        speed: Speed,
        paused: bool,
        interval: usize,
    ) -> Replay {
        let len = recording.len();
        let interval = interval.max(1);
        let mut state = TuiState::new(log);
        let mut snapshots = Vec::with_capacity(len / interval + 1);
        for (pos, envelope) in recording.events().iter().enumerate() {
            if pos.is_multiple_of(interval) {
                snapshots.push(state.snapshot());
            }
            state.apply(envelope);
        }
        if len.is_multiple_of(interval) {
            snapshots.push(state.snapshot());
        }
        let bar_marks = Arc::new(bar_marks(recording.index()));
        let timed = if speed == Speed::Instant {
            Speed::NORMAL
        } else {
            speed
        };
        let mut replay = Replay {
            recording,
            state,
            pos: len,
            playing: !paused,
            speed,
            timed,
            credit_ms: 0.0,
            snapshots,
            interval,
            bar_marks,
        };
        replay.seek(0);
        replay
    }

    pub fn state(&self) -> &TuiState {
        &self.state
    }

    #[cfg(test)]
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Events applied.
    #[cfg(test)]
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn len(&self) -> usize {
        self.recording.len()
    }

    pub fn is_playing(&self) -> bool {
        self.playing
    }

    #[cfg(test)]
    pub fn speed(&self) -> Speed {
        self.speed
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.len()
    }

    /// Events between two snapshots.
    pub fn snapshot_interval(&self) -> usize {
        self.interval
    }

    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
    }

    pub fn set_playing(&mut self, playing: bool) {
        self.playing = playing && !self.at_end();
        self.credit_ms = 0.0;
    }

    pub fn set_speed(&mut self, speed: Speed) {
        self.speed = speed;
        if speed != Speed::Instant {
            self.timed = speed;
        }
    }

    /// Recorded milliseconds to wait before the event at `pos` (none before the first).
    fn wait_ms(&self, pos: usize) -> u64 {
        match pos.checked_sub(1) {
            Some(before) => self.recording.gap_ms(before).min(MAX_WAIT_MS),
            None => 0,
        }
    }

    fn apply_next(&mut self) {
        if let Some(envelope) = self.recording.events().get(self.pos) {
            self.state.apply(envelope);
            self.pos += 1;
        }
    }

    /// `elapsed_ms` of real time passed: play what is due. True when events were applied.
    pub fn tick(&mut self, elapsed_ms: f64) -> bool {
        if !self.playing {
            return false;
        }
        let before = self.pos;
        match self.speed.factor() {
            None => {
                let end = (self.pos + INSTANT_BATCH).min(self.len());
                while self.pos < end {
                    self.apply_next();
                }
            }
            Some(factor) => {
                self.credit_ms += elapsed_ms.clamp(0.0, MAX_TICK_MS) * factor;
                let mut applied = 0;
                while self.pos < self.len() && applied < MAX_PER_TICK {
                    let wait = self.wait_ms(self.pos) as f64;
                    if self.credit_ms < wait {
                        break;
                    }
                    self.credit_ms -= wait;
                    self.apply_next();
                    applied += 1;
                }
            }
        }
        if self.at_end() {
            self.playing = false;
            self.credit_ms = 0.0;
        }
        self.pos > before
    }

    /// Real milliseconds until the next event is due (`None`: nothing will be).
    pub fn until_next_ms(&self) -> Option<f64> {
        if !self.playing || self.at_end() {
            return None;
        }
        match self.speed.factor() {
            None => Some(0.0),
            Some(factor) => {
                let wait = self.wait_ms(self.pos) as f64;
                Some(((wait - self.credit_ms) / factor).max(0.0))
            }
        }
    }

    /// The replay's clock: the time of the event shown last, plus the time played since (for
    /// the elapsed times the views show).
    pub fn now_ms(&self) -> u64 {
        let events = self.recording.events();
        match self.pos.checked_sub(1).and_then(|i| events.get(i)) {
            Some(last) => {
                let played = (self.credit_ms.max(0.0) as u64).min(self.wait_ms(self.pos));
                last.ts_ms + if self.at_end() { 0 } else { played }
            }
            None => events.first().map_or(0, |e| e.ts_ms),
        }
    }

    /// Go to position `target` (clamped to the length): apply forward from here when that is
    /// the shorter way, else restore the nearest earlier snapshot and apply from there.
    /// Playing or paused stays as it was.
    pub fn seek(&mut self, target: usize) {
        let target = target.min(self.len());
        self.credit_ms = 0.0;
        if target == self.pos {
            return;
        }
        let k = (target / self.interval).min(self.snapshots.len().saturating_sub(1));
        let from = k * self.interval;
        if !(from..=target).contains(&self.pos) {
            let restored = self
                .snapshots
                .get(k)
                .is_some_and(|snapshot| self.state.restore(snapshot));
            if restored {
                self.pos = from;
            } else if let Some(first) = self.snapshots.first() {
                // Cannot happen (every snapshot's lines were pushed to this log), but the
                // start is always reachable.
                self.state.restore(first);
                self.pos = 0;
            }
        }
        while self.pos < target {
            self.apply_next();
        }
    }

    /// Do what the engineer asked; a message to show when there is one (where a jump landed,
    /// or why it could not).
    pub fn command(&mut self, command: ReplayCommand) -> Option<String> {
        match command {
            ReplayCommand::PlayPause => {
                if self.playing {
                    self.set_playing(false);
                } else {
                    if self.at_end() {
                        self.seek(0);
                    }
                    self.set_playing(true);
                }
                None
            }
            ReplayCommand::Faster => {
                self.set_speed(self.speed.faster());
                Some(format!("speed {}", self.speed.label()))
            }
            ReplayCommand::Slower => {
                self.set_speed(self.speed.slower());
                Some(format!("speed {}", self.speed.label()))
            }
            ReplayCommand::Instant => {
                if self.speed == Speed::Instant {
                    self.set_speed(self.timed);
                } else {
                    self.set_speed(Speed::Instant);
                    if !self.at_end() {
                        self.set_playing(true);
                    }
                }
                Some(format!("speed {}", self.speed.label()))
            }
            ReplayCommand::StepForward => {
                self.set_playing(false);
                if self.at_end() {
                    return Some("at the end of the recording".to_string());
                }
                self.apply_next();
                None
            }
            ReplayCommand::StepBack => {
                self.set_playing(false);
                if self.pos == 0 {
                    return Some("at the start of the recording".to_string());
                }
                self.seek(self.pos - 1);
                None
            }
            ReplayCommand::Start => {
                self.set_playing(false);
                self.seek(0);
                None
            }
            ReplayCommand::End => {
                self.set_playing(false);
                self.seek(self.len());
                None
            }
            ReplayCommand::Next(kind) => Some(self.jump(kind, true)),
            ReplayCommand::Prev(kind) => Some(self.jump(kind, false)),
        }
    }

    /// The mark of `kind` after (or before) the event shown last, if any: (its number from 1,
    /// the mark).
    pub fn find_mark(&self, kind: MarkKind, forward: bool) -> Option<(usize, &Mark)> {
        let marks = kind.marks(self.recording.index());
        let i = if forward {
            // The first mark at or after the position (the event not yet shown).
            Some(marks.partition_point(|m| m.pos < self.pos))
        } else {
            // The last mark before the event shown last.
            marks
                .partition_point(|m| m.pos + 1 < self.pos)
                .checked_sub(1)
        }?;
        marks.get(i).map(|m| (i + 1, m))
    }

    /// Pause and jump just after the next (previous) mark of `kind`; what to tell the engineer.
    fn jump(&mut self, kind: MarkKind, forward: bool) -> String {
        self.set_playing(false);
        let total = kind.marks(self.recording.index()).len();
        match self.find_mark(kind, forward) {
            Some((number, mark)) => {
                let (pos, text) = (
                    mark.pos,
                    format!("{} {number}/{total}: {}", kind.word(), mark.label),
                );
                self.seek(pos + 1);
                text
            }
            None if total == 0 => format!("no {} in this recording", kind.word()),
            None => format!(
                "no {} {} this point",
                kind.word(),
                if forward { "after" } else { "before" }
            ),
        }
    }

    /// What the timeline bar shows now.
    pub fn timeline(&self) -> Timeline {
        let events = self.recording.events();
        let first = events.first().map_or(0, |e| e.ts_ms);
        let last = events.last().map_or(0, |e| e.ts_ms);
        let stage = RecordingIndex::at_or_before(
            &self.recording.index().stage_starts,
            self.pos.saturating_sub(1),
        )
        .filter(|_| self.pos > 0)
        .map(|m| m.label.clone());
        Timeline {
            position: self.pos,
            total: self.len(),
            seq: self
                .pos
                .checked_sub(1)
                .and_then(|i| events.get(i))
                .map(|e| e.seq),
            elapsed_ms: if self.pos == 0 {
                0
            } else {
                self.now_ms().saturating_sub(first)
            },
            total_ms: last.saturating_sub(first),
            speed: self.speed.label(),
            playing: self.playing,
            stage,
            marks: Arc::clone(&self.bar_marks),
        }
    }
}

/// Stage starts and failures for the bar.
fn bar_marks(index: &RecordingIndex) -> Vec<TimelineMark> {
    let mut marks: Vec<TimelineMark> = index
        .stage_starts
        .iter()
        .map(|m| TimelineMark {
            pos: m.pos,
            failure: false,
        })
        .chain(index.failures.iter().map(|m| TimelineMark {
            pos: m.pos,
            failure: true,
        }))
        .collect();
    marks.sort_by_key(|m| (m.pos, m.failure));
    marks
}
