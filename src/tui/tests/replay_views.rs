//! The replay in the views, driven by its keys: paused mid-session, after a jump to a failure,
//! at the end, with the help overlay, and on a narrow 60×20 terminal — each an insta snapshot
//! of a `TestBackend` with the timeline bar over the status bar.

use super::fixtures::*;
use crate::session::Recording;
use crate::tui::app::{App, Overlay};
use crate::tui::logbuf::{LogBuf, DEFAULT_MEMORY_CAP};
use crate::tui::player::{Replay, Speed};
use crate::tui::views::layout::Pane;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// The replayed session, paused at the start, and its app.
fn open() -> (Replay, App) {
    let s = replayed();
    let replay = Replay::new(
        Recording::from_events(s.events, None),
        LogBuf::new(None, DEFAULT_MEMORY_CAP),
        Speed::Times(6),
        true,
    );
    let app = App::for_replay(replay.timeline());
    (replay, app)
}

/// Press `code` the way the replay loop handles it: keys to commands to the controller.
fn press(replay: &mut Replay, app: &mut App, code: KeyCode) {
    let mods = match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
        _ => KeyModifiers::NONE,
    };
    app.on_key(&KeyEvent::new(code, mods), replay.state());
    for command in app.take_replay_commands() {
        if let Some(message) = replay.command(command) {
            app.flash = Some(message);
        }
    }
    app.replay = Some(replay.timeline());
}

fn screen(replay: &Replay, app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
    render(replay.state(), app, width, height, replay.now_ms())
}

#[test]
fn paused_mid_session() {
    let (mut replay, mut app) = open();
    // Into the validate stage: the second stage start is export's, the third validate's.
    for _ in 0..3 {
        press(&mut replay, &mut app, KeyCode::Char(']'));
    }
    for _ in 0..8 {
        press(&mut replay, &mut app, KeyCode::Char('.'));
    }
    assert!(!replay.is_playing());
    app.flash = None;
    let terminal = screen(&replay, &mut app, 120, 32);
    insta::assert_snapshot!("replay_paused_mid_session", terminal.backend());
}

#[test]
fn after_a_jump_to_a_failure() {
    let (mut replay, mut app) = open();
    press(&mut replay, &mut app, KeyCode::Char(' '));
    assert!(replay.is_playing());
    press(&mut replay, &mut app, KeyCode::Char('f'));
    press(&mut replay, &mut app, KeyCode::Char('f'));
    assert!(!replay.is_playing(), "a jump pauses");
    let flash = app.flash.clone().unwrap_or_default();
    assert!(
        flash.starts_with("failure 2/2: validate.4 run failed (exit 1)"),
        "{flash}"
    );
    let terminal = screen(&replay, &mut app, 120, 32);
    insta::assert_snapshot!("replay_after_jump_to_failure", terminal.backend());
    // Log pane: the failed command's output is there.
    press(&mut replay, &mut app, KeyCode::Char('2'));
    assert_eq!(app.focus, Pane::Log);
    let text = format!("{:?}", screen(&replay, &mut app, 120, 32).backend());
    assert!(text.contains("FileNotFoundError: check_model.py"), "{text}");
}

#[test]
fn at_the_end() {
    let (mut replay, mut app) = open();
    press(&mut replay, &mut app, KeyCode::End);
    assert!(replay.at_end());
    let terminal = screen(&replay, &mut app, 120, 32);
    insta::assert_snapshot!("replay_at_end", terminal.backend());
}

#[test]
fn help_overlay_lists_the_replay_keys_first() {
    let (mut replay, mut app) = open();
    press(&mut replay, &mut app, KeyCode::Char('f'));
    press(&mut replay, &mut app, KeyCode::Char('?'));
    assert!(matches!(app.overlay, Some(Overlay::Help)));
    let terminal = screen(&replay, &mut app, 80, 24);
    insta::assert_snapshot!("replay_help_80x24", terminal.backend());
    // Any key closes it and does nothing else.
    press(&mut replay, &mut app, KeyCode::Char('f'));
    assert!(app.overlay.is_none());
}

#[test]
fn narrow_terminal() {
    let (mut replay, mut app) = open();
    press(&mut replay, &mut app, KeyCode::Char('f'));
    press(&mut replay, &mut app, KeyCode::Char('+'));
    app.flash = None;
    let terminal = screen(&replay, &mut app, 60, 20);
    insta::assert_snapshot!("replay_narrow_60x20", terminal.backend());
}

#[test]
fn engine_keys_do_nothing_in_a_replay_and_q_quits() {
    let (mut replay, mut app) = open();
    press(&mut replay, &mut app, KeyCode::Char('f'));
    for c in ['h', 'r', 'b', 's', 'y', 'n', 'e'] {
        press(&mut replay, &mut app, KeyCode::Char(c));
        assert!(app.overlay.is_none(), "{c}");
    }
    assert!(app.take_commands().is_empty());
    press(&mut replay, &mut app, KeyCode::Char('q'));
    assert!(app.quit);
}
