//! The seam between where events come from and the live UI loop. The loop only sees
//! [`EventSource::poll`]: the live engine ([`LiveSource`]). A
//! recorded session is played by [`super::player::Replay`] instead, which feeds the same
//! reducer but also goes back (a source only goes forward).
//!
//! The live source forwards the engine's broadcast on a thread of its own into an unbounded
//! queue, so the engine never waits for the UI. If the broadcast drops events anyway (a
//! consumer that fell [`crate::engine::bus::BROADCAST_CAPACITY`] events behind), the forwarder
//! reads the missing sequence numbers back from the session's `events.jsonl` — the bus writes
//! every event there before broadcasting it — and only reports events as missed when the log
//! does not have them either. That is also how a resumed session's history reaches the TUI
//! (the engine's stream starts where the resume continues); the work the resume threw away is
//! left out of it ([`without_discarded`]).

use crate::protocol::{Event, EventEnvelope};
use crate::session::LogTail;
use std::path::PathBuf;
use std::sync::mpsc;
use tokio::sync::broadcast::{self, error::RecvError};

/// What a source yields. (Moved once per event: boxing the envelope would only add an
/// allocation per log line.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum SourceItem {
    Event(EventEnvelope),
    /// This many events were lost.
    Missed(u64),
}

#[allow(clippy::large_enum_variant)]
pub enum Poll {
    Item(SourceItem),
    /// Nothing now; maybe later.
    Idle,
    /// Nothing ever again.
    Closed,
}

pub trait EventSource {
    fn poll(&mut self) -> Poll;
}

/// Events from the running engine.
pub struct LiveSource {
    rx: mpsc::Receiver<SourceItem>,
}

impl LiveSource {
    /// Start forwarding `events`; `log` is the session's `events.jsonl`, for gaps.
    pub fn spawn(mut events: broadcast::Receiver<EventEnvelope>, log: PathBuf) -> LiveSource {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("aipc-tui-events".to_string())
            .spawn(move || {
                let mut tail = LogTail::new(log);
                let mut expected = 0u64;
                loop {
                    match events.blocking_recv() {
                        Ok(envelope) => {
                            if envelope.seq > expected {
                                let found = tail.read_range(expected, envelope.seq);
                                let missing = envelope.seq - expected - found.len() as u64;
                                for event in without_discarded(found, &envelope) {
                                    if tx.send(SourceItem::Event(event)).is_err() {
                                        return;
                                    }
                                }
                                if missing > 0 && tx.send(SourceItem::Missed(missing)).is_err() {
                                    return;
                                }
                            }
                            if envelope.seq >= expected {
                                expected = envelope.seq + 1;
                                if tx.send(SourceItem::Event(envelope)).is_err() {
                                    return;
                                }
                            }
                        }
                        // The next event received fills the gap from the log.
                        Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => return,
                    }
                }
            })
            .map(|_| ())
            .unwrap_or_else(|e| eprintln!("aipc: cannot start the event thread: {e}"));
        LiveSource { rx }
    }
}

impl EventSource for LiveSource {
    fn poll(&mut self) -> Poll {
        match self.rx.try_recv() {
            Ok(item) => Poll::Item(item),
            Err(mpsc::TryRecvError::Empty) => Poll::Idle,
            Err(mpsc::TryRecvError::Disconnected) => Poll::Closed,
        }
    }
}

/// The events of `found` (read back from the log, before `next`) without the work a resume
/// threw away: those between a `session_resumed` event and the event it resumed from, as
/// [`crate::session::Recording::effective`] has them. Among them is the `session_finished` of
/// an aborted run, which would show the resumed session as ended.
fn without_discarded(found: Vec<EventEnvelope>, next: &EventEnvelope) -> Vec<EventEnvelope> {
    let resumes: Vec<(u64, u64)> = found
        .iter()
        .chain(std::iter::once(next))
        .filter_map(|e| match &e.event {
            Event::SessionResumed { from_seq, .. } => Some((*from_seq, e.seq)),
            _ => None,
        })
        .collect();
    if resumes.is_empty() {
        return found;
    }
    found
        .into_iter()
        .filter(|e| {
            !resumes
                .iter()
                .any(|(from, at)| *from < e.seq && e.seq < *at)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::Write;

    fn envelope(seq: u64) -> EventEnvelope {
        EventEnvelope {
            seq,
            ts_ms: seq,
            event: Event::HintAdded {
                text: format!("hint {seq}"),
            },
        }
    }

    #[test]
    fn a_lagging_live_source_fills_the_gap_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let (sender, receiver) = broadcast::channel(4);
        let mut file = File::create(&path).unwrap();
        // 20 events: all in the log, only the last 4 still in the channel.
        for seq in 0..20 {
            writeln!(file, "{}", serde_json::to_string(&envelope(seq)).unwrap()).unwrap();
            let _ = sender.send(envelope(seq));
        }
        drop(sender);
        let mut source = LiveSource::spawn(receiver, path);
        let mut seqs = Vec::new();
        loop {
            match source.poll() {
                Poll::Item(SourceItem::Event(e)) => seqs.push(e.seq),
                Poll::Item(SourceItem::Missed(n)) => panic!("missed {n}"),
                Poll::Idle => std::thread::yield_now(),
                Poll::Closed => break,
            }
        }
        assert_eq!(seqs, (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn a_resumed_sessions_history_leaves_out_the_discarded_work() {
        let resumed = |seq: u64, from_seq: u64| EventEnvelope {
            seq,
            ts_ms: seq,
            event: Event::SessionResumed {
                from_stage: "export".to_string(),
                from_seq,
                checkpoint: None,
                commit: String::new(),
                previous_head: String::new(),
                repaired_bytes: 0,
            },
        };
        // Resumed once at 6 (from 2), the log holds 0..10; this resume continues from 7.
        let mut found: Vec<EventEnvelope> = (0..10).map(envelope).collect();
        found[6] = resumed(6, 2);
        let seqs = |v: Vec<EventEnvelope>| v.iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(
            seqs(without_discarded(found.clone(), &resumed(10, 7))),
            vec![0, 1, 2, 6, 7]
        );
        // A gap in a live run (no resume in sight) is forwarded as it is.
        let plain: Vec<EventEnvelope> = (0..5).map(envelope).collect();
        assert_eq!(
            seqs(without_discarded(plain, &envelope(5))),
            vec![0, 1, 2, 3, 4]
        );
    }
}
