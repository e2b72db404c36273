//! `aipc replay` in the terminal: the loop around the [`Replay`] controller. Each turn it tells
//! the controller how much time passed (it applies what is due), hands it the replay keys the
//! [`App`] queued, and draws the same views as a live run plus the timeline — at most one
//! frame per [`FRAME`], and a few times a second while playing so the clock moves. It sleeps in
//! input polling until the next event is due or a key comes.

use super::app::App;
use super::live::FRAME;
use super::logbuf::{LogBuf, DEFAULT_MEMORY_CAP};
use super::player::{Replay, Speed};
use super::terminal::Term;
use super::views;
use crate::session::Recording;
use anyhow::Context as _;
use crossterm::event::{self, Event as TermEvent};
use std::time::{Duration, Instant};

/// The longest sleep in input polling.
const IDLE_WAIT: Duration = Duration::from_millis(100);
/// While playing, the timeline is redrawn at least this often (its clock moves).
const PLAYING_REDRAW: Duration = Duration::from_millis(250);

/// How the replay starts.
#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    pub speed: Speed,
    pub paused: bool,
}

/// Play `recording` in the terminal until the engineer quits.
pub fn run_replay(recording: Recording, options: ReplayOptions) -> anyhow::Result<()> {
    // A long session's log spills to a temporary file (never into the recorded session).
    let spill = std::env::temp_dir().join(format!(
        "aipc-replay-{}-{}",
        std::process::id(),
        super::LOG_SPILL_FILE
    ));
    let log = LogBuf::new(Some(spill.clone()), DEFAULT_MEMORY_CAP);
    let mut replay = Replay::new(recording, log, options.speed, options.paused);
    let mut app = App::for_replay(replay.timeline());
    let result = Term::enter().and_then(|mut term| run(&mut term, &mut replay, &mut app));
    let _ = std::fs::remove_file(&spill);
    result
}

/// The loop: until the engineer quits.
pub fn run(term: &mut Term, replay: &mut Replay, app: &mut App) -> anyhow::Result<()> {
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    let mut last_tick = Instant::now();
    loop {
        let now = Instant::now();
        let elapsed_ms = now.duration_since(last_tick).as_secs_f64() * 1000.0;
        last_tick = now;
        dirty |= replay.tick(elapsed_ms);
        for command in app.take_replay_commands() {
            if let Some(message) = replay.command(command) {
                app.flash = Some(message);
            }
            dirty = true;
        }
        if app.quit {
            return Ok(());
        }
        let since_draw = last_draw.map(|t| t.elapsed()).unwrap_or(FRAME);
        if replay.is_playing() && since_draw >= PLAYING_REDRAW {
            dirty = true;
        }
        if dirty && since_draw >= FRAME {
            app.replay = Some(replay.timeline());
            let state = replay.state();
            app.prepare(state);
            let mut info = views::DrawInfo::default();
            let now_ms = replay.now_ms();
            term.terminal()
                .draw(|frame| info = views::draw(frame, state, app, now_ms))
                .context("cannot draw")?;
            app.areas = info.areas;
            app.transcript_back = app.transcript_back.min(info.transcript_max_back);
            last_draw = Some(Instant::now());
            dirty = false;
        }
        let wait = if dirty {
            FRAME.saturating_sub(last_draw.map(|t| t.elapsed()).unwrap_or(FRAME))
        } else {
            let next = replay
                .until_next_ms()
                .map(|ms| Duration::from_secs_f64(ms.max(0.0) / 1000.0))
                .unwrap_or(IDLE_WAIT);
            let redraw = if replay.is_playing() {
                PLAYING_REDRAW
            } else {
                IDLE_WAIT
            };
            next.min(redraw).min(IDLE_WAIT)
        };
        if event::poll(wait).context("cannot read the terminal")? {
            loop {
                match event::read().context("cannot read the terminal")? {
                    TermEvent::Key(key) => app.on_key(&key, replay.state()),
                    TermEvent::Mouse(mouse) => app.on_mouse(&mouse, replay.state()),
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
