//! The UI loop: takes events from a source, keys and mouse from the terminal, commands out to
//! the engine, and draws — at most one frame per [`FRAME`] (≤ 60 per second), however fast
//! events arrive. Events are applied in slices of [`INGEST_SLICE`] so input stays responsive
//! while a command prints a million lines; the engine never waits for any of this.

use super::app::App;
use super::source::{EventSource, Poll, SourceItem};
use super::state::TuiState;
use super::takeover::{self, Program};
use super::terminal::Term;
use super::views;
use crate::protocol::Command;
use anyhow::Context as _;
use crossterm::event::{self, Event as TermEvent};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// How long events are applied before input and drawing get a turn.
pub const INGEST_SLICE: Duration = Duration::from_millis(8);
/// How long the loop sleeps in input polling when nothing happens.
const IDLE_WAIT: Duration = Duration::from_millis(50);

/// Milliseconds since the Unix epoch (the clock event timestamps use).
pub fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

/// Apply what the source has, for at most `budget`. Returns (anything applied, more waiting,
/// source closed).
pub fn ingest(
    source: &mut dyn EventSource,
    state: &mut TuiState,
    budget: Duration,
) -> (bool, bool, bool) {
    let until = Instant::now() + budget;
    let mut applied = false;
    let mut n = 0u32;
    loop {
        match source.poll() {
            Poll::Item(SourceItem::Event(envelope)) => state.apply(&envelope),
            Poll::Item(SourceItem::Missed(count)) => state.note_missed(count),
            Poll::Idle => return (applied, false, false),
            Poll::Closed => return (applied, false, true),
        }
        applied = true;
        n += 1;
        if n.is_multiple_of(256) && Instant::now() >= until {
            return (applied, true, false);
        }
    }
}

/// Run until the engineer quits, or `stop` is set (a signal ended the session). `send`
/// delivers a command to the engine (false: it is gone).
pub fn run(
    term: &mut Term,
    source: &mut dyn EventSource,
    state: &mut TuiState,
    app: &mut App,
    send: &mut dyn FnMut(Command) -> bool,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    let mut last_second = 0u64;
    let mut closed = false;
    loop {
        let (applied, more, now_closed) = if closed {
            (false, false, true)
        } else {
            ingest(source, state, INGEST_SLICE)
        };
        if now_closed && !closed {
            closed = true;
            app.engine_gone = true;
            if state.finished.is_none() {
                app.flash = Some("the engine stopped without finishing the session".to_string());
            }
        }
        dirty |= applied;
        dirty |= app.poll_stage_diffs();
        app.after_events(state);
        if let Some(program) = app.takeover_ready(state) {
            let worktree = state
                .session
                .as_ref()
                .map(|s| s.worktree.clone())
                .unwrap_or_default();
            let result = hand_over(term, &program, Path::new(&worktree))?;
            app.takeover_done(&result);
            dirty = true;
        }
        for command in app.take_commands() {
            if !send(command) {
                app.flash = Some("the engine no longer takes commands".to_string());
            }
        }
        if app.quit || stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let second = wall_ms() / 1000;
        if second != last_second {
            last_second = second;
            dirty = true;
        }
        let since_draw = last_draw.map(|t| t.elapsed()).unwrap_or(FRAME);
        if dirty && since_draw >= FRAME {
            app.prepare(state);
            let mut info = views::DrawInfo::default();
            term.terminal()
                .draw(|frame| info = views::draw(frame, state, app, wall_ms()))
                .context("cannot draw")?;
            app.areas = info.areas;
            app.transcript_back = app.transcript_back.min(info.transcript_max_back);
            last_draw = Some(Instant::now());
            dirty = false;
        }
        let wait = if more {
            Duration::ZERO
        } else if dirty {
            FRAME.saturating_sub(last_draw.map(|t| t.elapsed()).unwrap_or(FRAME))
        } else {
            IDLE_WAIT
        };
        if event::poll(wait).context("cannot read the terminal")? {
            loop {
                match event::read().context("cannot read the terminal")? {
                    TermEvent::Key(key) => app.on_key(&key, state),
                    TermEvent::Mouse(mouse) => app.on_mouse(&mouse, state),
                    // A resize is redrawn at the new size (ratatui resizes on draw); focus
                    // changes and pastes need nothing.
                    _ => {}
                }
                dirty = true;
                if !event::poll(Duration::ZERO).context("cannot read the terminal")? {
                    break;
                }
            }
        }
    }
}

/// Suspend the TUI, run the engineer's program in the worktree, and come back; returns what
/// to tell the engineer.
fn hand_over(term: &mut Term, program: &Program, worktree: &Path) -> anyhow::Result<String> {
    term.suspend().context("cannot give the terminal back")?;
    println!(
        "\naipc: the engine is paused and the worktree is yours:\n  {}\nRunning {}. Exit it to hand back to the model.\n",
        worktree.display(),
        program.describe()
    );
    let result = match takeover::run(program, worktree) {
        Ok(status) if status.success() => "back from the takeover".to_string(),
        Ok(status) => format!("the takeover program ended with {status}"),
        Err(e) => format!("cannot run {}: {e}", program.describe()),
    };
    term.resume().context("cannot take the terminal back")?;
    Ok(result)
}
