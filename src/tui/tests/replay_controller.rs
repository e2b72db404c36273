//! The replay controller: going anywhere gives the state that applying the events from the
//! start gives (backwards through snapshots, forwards, across a spilled log); jumps land just
//! after their marks; speeds step within their bounds; timed playback waits the recorded gaps
//! (cut at the cap) and instant plays to the end.

use super::fixtures::*;
use crate::protocol::{Event, EventEnvelope, OutputStream};
use crate::session::Recording;
use crate::tui::cells::Cell;
use crate::tui::logbuf::{LogBuf, DEFAULT_MEMORY_CAP};
use crate::tui::player::{
    MarkKind, Replay, ReplayCommand, Speed, INSTANT_BATCH, MAX_WAIT_MS, SPEEDS,
};
use crate::tui::state::TuiState;

fn memory_log() -> LogBuf {
    LogBuf::new(None, DEFAULT_MEMORY_CAP)
}

fn replay_of(events: &[EventEnvelope], interval: usize) -> Replay {
    Replay::with_interval(
        Recording::from_events(events.to_vec(), None),
        memory_log(),
        Speed::NORMAL,
        true,
        interval,
    )
}

fn applied(events: &[EventEnvelope]) -> TuiState {
    let mut state = TuiState::new(memory_log());
    for envelope in events {
        state.apply(envelope);
    }
    state
}

/// Everything the views read, as text (the log line by line).
fn fingerprint(state: &TuiState) -> String {
    let log: Vec<String> = (0..state.log.len())
        .map(|i| {
            state
                .log
                .line(i)
                .map(|(text, meta)| format!("{meta:?} {text}"))
                .unwrap_or_default()
        })
        .collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?} {} {} {} {}\n{:?}\n{:?}\n{:?} {} {}\n{}",
        state.session,
        state.stages,
        state.current,
        state.transcript.cells(),
        state.transcript.dropped(),
        state.origins,
        state.diffs,
        state.checks,
        state.evidence,
        state.escalation,
        state.approval,
        state.view.paused,
        state.view.step_mode,
        state.view.taken_over,
        state.view.tokens_used(),
        state.view.limits.tokens,
        state.model,
        state.finished,
        state.view.errors,
        state.last_seq.unwrap_or(u64::MAX),
        state.last_ts,
        log.join("\n")
    )
}

#[test]
fn every_position_backwards_and_at_random_equals_applying_from_the_start() {
    let s = replayed();
    let events = &s.events;
    let mut replay = replay_of(events, 7);
    assert_eq!(replay.snapshot_count(), events.len() / 7 + 1);
    replay.seek(events.len());
    assert_eq!(
        fingerprint(replay.state()),
        fingerprint(&applied(events)),
        "at the end"
    );
    // Step back one event at a time, all the way to the start.
    for pos in (0..events.len()).rev() {
        replay.command(ReplayCommand::StepBack);
        assert_eq!(replay.position(), pos);
        assert_eq!(
            fingerprint(replay.state()),
            fingerprint(&applied(&events[..pos])),
            "stepped back to {pos}"
        );
    }
    assert_eq!(
        replay.command(ReplayCommand::StepBack).as_deref(),
        Some("at the start of the recording")
    );
    // Jump around (forwards past snapshots, backwards into the middle of an interval).
    let mut target = 5usize;
    for _ in 0..40 {
        target = (target * 37 + 11) % (events.len() + 1);
        replay.seek(target);
        assert_eq!(
            fingerprint(replay.state()),
            fingerprint(&applied(&events[..target])),
            "seek to {target}"
        );
    }
    // Playing on from a restored state gives the same end (the private parts too).
    replay.seek(3);
    replay.set_speed(Speed::Instant);
    replay.set_playing(true);
    while replay.tick(16.0) {}
    assert_eq!(fingerprint(replay.state()), fingerprint(&applied(events)));
}

#[test]
fn a_spilled_log_is_rebuilt_line_for_line_going_back_and_forth() {
    let mut s = replayed();
    // A command printing 30,000 lines: with a 256 KiB cap most of them go to the spill file.
    let call = "validate.9";
    s.push(Event::ToolCallStarted {
        call_id: call.into(),
        tool: "run".into(),
    });
    for i in 0..30_000 {
        s.push(Event::ToolOutput {
            call_id: call.into(),
            stream: OutputStream::Stdout,
            line: format!("build line {i} of the long command"),
        });
    }
    let events = &s.events;
    let dir = tempfile::tempdir().unwrap();
    let log = LogBuf::new(Some(dir.path().join("spill.txt")), 256 * 1024);
    let mut replay = Replay::with_interval(
        Recording::from_events(events.clone(), None),
        log,
        Speed::NORMAL,
        true,
        5_000,
    );
    for target in [events.len(), 12_345, 29_000, 100, events.len(), 20_000] {
        replay.seek(target);
        let expected = applied(&events[..target]);
        let log = &replay.state().log;
        assert_eq!(log.len(), expected.log.len(), "at {target}");
        for line in [0, 50, 4_095, 4_096, 9_000, 19_000, 29_999] {
            if line < expected.log.len() {
                assert_eq!(log.line(line), expected.log.line(line), "{target}: {line}");
            }
        }
        assert!(log.evicted_lines() > 0 || target < 10_000, "it spilled");
        assert!(
            log.can_show(30_000),
            "playing forward again took the kept lines, cut none"
        );
    }
}

#[test]
fn jumps_land_just_after_their_marks_and_say_where() {
    let s = replayed();
    let mut replay = replay_of(&s.events, 7);
    let index = replay.recording().index().clone();
    assert_eq!(index.failures.len(), 2, "{:?}", index.failures);
    assert_eq!(index.stage_starts.len(), 3);

    let message = replay.command(ReplayCommand::Next(MarkKind::Failure));
    assert_eq!(replay.position(), index.failures[0].pos + 1);
    assert_eq!(
        message.as_deref(),
        Some(format!("failure 1/2: {}", index.failures[0].label).as_str())
    );
    assert!(
        matches!(
            replay.state().transcript.cells().back(),
            Some(Cell::Check { passed: false, .. })
        ),
        "the failed check is shown"
    );
    replay.command(ReplayCommand::Next(MarkKind::Failure));
    assert_eq!(replay.position(), index.failures[1].pos + 1);
    assert!(index.failures[1]
        .label
        .contains("validate.4 run failed (exit 1)"));
    let before = replay.position();
    assert_eq!(
        replay
            .command(ReplayCommand::Next(MarkKind::Failure))
            .as_deref(),
        Some("no failure after this point")
    );
    assert_eq!(replay.position(), before, "no mark: no move");
    replay.command(ReplayCommand::Prev(MarkKind::Failure));
    assert_eq!(replay.position(), index.failures[0].pos + 1);

    // Stages: from the start, each start in turn; back from inside a stage to the one before.
    replay.command(ReplayCommand::Start);
    assert_eq!(replay.position(), 0);
    for mark in &index.stage_starts {
        replay.command(ReplayCommand::Next(MarkKind::Stage));
        assert_eq!(replay.position(), mark.pos + 1);
        assert_eq!(
            replay.timeline().stage.as_deref(),
            Some(mark.label.as_str())
        );
    }
    replay.command(ReplayCommand::Prev(MarkKind::Stage));
    assert_eq!(replay.position(), index.stage_starts[1].pos + 1);

    for (kind, marks) in [
        (MarkKind::Checkpoint, &index.checkpoints),
        (MarkKind::ToolCall, &index.tool_calls),
    ] {
        replay.command(ReplayCommand::Start);
        for mark in marks {
            replay.command(ReplayCommand::Next(kind));
            assert_eq!(replay.position(), mark.pos + 1, "{kind:?}");
        }
        replay.command(ReplayCommand::End);
        assert_eq!(replay.position(), s.events.len());
        replay.command(ReplayCommand::Prev(kind));
        assert_eq!(
            replay.position(),
            marks.last().unwrap().pos + 1,
            "{kind:?} back from the end"
        );
    }
    // Jumps pause playback.
    replay.set_playing(true);
    replay.command(ReplayCommand::Prev(MarkKind::ToolCall));
    assert!(!replay.is_playing());
}

#[test]
fn speeds_step_within_their_bounds_and_parse() {
    let slowest = Speed::Times(0);
    assert_eq!(slowest.slower(), slowest);
    assert_eq!(slowest.label(), "0.25×");
    let mut speed = slowest;
    let mut labels = vec![speed.label()];
    while speed != Speed::Instant {
        speed = speed.faster();
        labels.push(speed.label());
    }
    assert_eq!(
        labels,
        ["0.25×", "0.5×", "1×", "2×", "4×", "8×", "16×", "32×", "64×", "instant"]
    );
    assert_eq!(Speed::Instant.faster(), Speed::Instant);
    assert_eq!(Speed::Instant.slower(), Speed::Times(SPEEDS.len() - 1));
    assert_eq!(Speed::parse("16"), Ok(Speed::Times(6)));
    assert_eq!(Speed::parse("16x"), Ok(Speed::Times(6)));
    assert_eq!(Speed::parse("0.25×"), Ok(Speed::Times(0)));
    assert_eq!(Speed::parse("Instant"), Ok(Speed::Instant));
    assert_eq!(Speed::parse("1"), Ok(Speed::NORMAL));
    assert!(Speed::parse("3").unwrap_err().contains("0.25, 0.5, 1"));
    assert!(Speed::parse("fast").is_err());

    // The keys: `i` toggles instant and back to the speed before it.
    let s = replayed();
    let mut replay = replay_of(&s.events, 7);
    replay.command(ReplayCommand::Faster);
    replay.command(ReplayCommand::Faster);
    assert_eq!(replay.speed(), Speed::Times(4));
    replay.command(ReplayCommand::Instant);
    assert_eq!(replay.speed(), Speed::Instant);
    assert!(replay.is_playing(), "instant plays");
    replay.command(ReplayCommand::Instant);
    assert_eq!(replay.speed(), Speed::Times(4));
}

#[test]
fn timed_playback_waits_the_recorded_gaps_cut_at_the_cap() {
    let s = replayed();
    let events = &s.events;
    let mut replay = replay_of(events, 7);
    replay.set_playing(true);
    // The first event is due at once, the next 100 ms (recorded) later.
    assert!(replay.tick(0.0));
    assert_eq!(replay.position(), 1);
    assert_eq!(replay.until_next_ms(), Some(100.0));
    assert!(!replay.tick(60.0));
    assert!(replay.tick(40.0));
    assert_eq!(replay.position(), 2);
    // At 4× a 100 ms gap takes 25 ms.
    replay.set_speed(Speed::Times(4));
    assert_eq!(replay.until_next_ms(), Some(25.0));
    assert!(replay.tick(25.0));
    assert_eq!(replay.position(), 3);
    // The minute of idle time before attempt 2 waits MAX_WAIT_MS at 1×, not a minute.
    let idle = events
        .iter()
        .position(|e| matches!(&e.event, Event::AttemptStarted { attempt: 2, .. }))
        .unwrap();
    replay.seek(idle);
    replay.set_speed(Speed::NORMAL);
    replay.set_playing(true);
    assert_eq!(replay.until_next_ms(), Some(MAX_WAIT_MS as f64));
    for _ in 0..(MAX_WAIT_MS / 250) {
        assert_eq!(replay.position(), idle);
        replay.tick(250.0);
    }
    assert_eq!(replay.position(), idle + 1);
    // Pausing stops the clock.
    replay.command(ReplayCommand::PlayPause);
    assert!(!replay.tick(10_000.0));
    assert_eq!(replay.until_next_ms(), None);
}

#[test]
fn instant_plays_to_the_end_in_batches_and_stops() {
    let mut s = replayed();
    for i in 0..(INSTANT_BATCH + 10) {
        s.push(Event::HintAdded {
            text: format!("hint {i}"),
        });
    }
    let events = &s.events;
    let mut replay = replay_of(events, 500);
    replay.set_speed(Speed::Instant);
    replay.set_playing(true);
    let mut ticks = 0;
    while replay.is_playing() {
        assert!(replay.tick(0.0));
        ticks += 1;
    }
    assert_eq!(ticks, events.len().div_ceil(INSTANT_BATCH));
    assert!(replay.at_end());
    assert_eq!(fingerprint(replay.state()), fingerprint(&applied(events)));
    // Play at the end starts over.
    replay.command(ReplayCommand::PlayPause);
    assert_eq!(replay.position(), 0);
    assert!(replay.is_playing());
}

#[test]
fn an_empty_or_odd_recording_never_panics() {
    let mut replay = replay_of(&[], 7);
    assert_eq!(replay.position(), 0);
    replay.set_playing(true);
    assert!(!replay.tick(1_000.0));
    for command in [
        ReplayCommand::PlayPause,
        ReplayCommand::StepForward,
        ReplayCommand::StepBack,
        ReplayCommand::Next(MarkKind::Failure),
        ReplayCommand::Prev(MarkKind::Stage),
        ReplayCommand::End,
        ReplayCommand::Start,
        ReplayCommand::Instant,
    ] {
        replay.command(command);
    }
    assert_eq!(
        replay
            .command(ReplayCommand::Next(MarkKind::Failure))
            .as_deref(),
        Some("no failure in this recording")
    );
    let timeline = replay.timeline();
    assert_eq!((timeline.position, timeline.total), (0, 0));

    // Time running backwards, gaps in seq, an event for a stage that does not exist.
    let events = vec![
        EventEnvelope {
            seq: 5,
            ts_ms: 9_000,
            event: Event::StageStarted {
                stage: "ghost".into(),
                index: 42,
                goal: String::new(),
                max_attempts: 1,
            },
        },
        EventEnvelope {
            seq: 9,
            ts_ms: 1_000,
            event: Event::Resumed,
        },
    ];
    let mut replay = replay_of(&events, 1);
    replay.set_playing(true);
    replay.tick(0.0);
    replay.tick(0.0);
    assert!(replay.at_end());
    assert_eq!(replay.timeline().seq, Some(9));
    replay.command(ReplayCommand::StepBack);
    assert_eq!(replay.position(), 1);
}
