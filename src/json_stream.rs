//! `aipc run --json`: the session's events as JSON Lines on stdout, one `EventEnvelope` per
//! line, exactly as the session log stores them — a consumer of the event stream like the batch
//! printer. Nothing is lost when the consumer falls behind the broadcast: the bus writes the log
//! before it broadcasts, so missed events are read back from `events.jsonl` and written in
//! order, and the stream has no gaps in `seq`.

use crate::protocol::EventEnvelope;
use crate::session::LogTail;
use std::io::Write;
use std::path::PathBuf;
use tokio::sync::broadcast::{self, error::RecvError};

/// Write every event of the session from `first_seq` on to `out` as one JSON line, until the
/// stream closes. `log` is the session's `events.jsonl`, read back to fill any gap: events sent
/// before this receiver subscribed, or missed after a lag.
pub async fn stream_events(
    mut events: broadcast::Receiver<EventEnvelope>,
    log: PathBuf,
    first_seq: u64,
    mut out: impl Write,
) {
    let mut tail = LogTail::new(log);
    let mut next_seq = first_seq;
    let mut lagged = false;
    loop {
        match events.recv().await {
            Ok(envelope) => {
                if envelope.seq < next_seq {
                    continue;
                }
                if envelope.seq > next_seq {
                    fill_gap(&mut tail, next_seq, envelope.seq, &mut out);
                }
                write_line(&envelope, &mut out);
                next_seq = envelope.seq + 1;
                lagged = false;
            }
            Err(RecvError::Lagged(_)) => lagged = true,
            Err(RecvError::Closed) => break,
        }
    }
    if lagged {
        fill_gap(&mut tail, next_seq, u64::MAX, &mut out);
    }
    let _ = out.flush();
}

/// Write the logged events with `from <= seq < until`.
fn fill_gap(tail: &mut LogTail, from: u64, until: u64, out: &mut impl Write) {
    for envelope in tail.read_range(from, until) {
        write_line(&envelope, out);
    }
}

fn write_line(envelope: &EventEnvelope, out: &mut impl Write) {
    match serde_json::to_string(envelope) {
        // A closed stdout must not stop the engine; the log has everything.
        Ok(line) => {
            let _ = writeln!(out, "{line}");
        }
        Err(e) => eprintln!(
            "aipc: event {} could not be written as JSON: {e}",
            envelope.seq
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Event;

    fn hint(seq: u64) -> EventEnvelope {
        EventEnvelope {
            seq,
            ts_ms: 1_000 + seq,
            event: Event::HintAdded {
                text: format!("hint {seq}"),
            },
        }
    }

    /// A consumer that fell behind a 2-slot channel still writes every event, in order, from
    /// the log, each line exactly the logged JSON.
    #[tokio::test]
    async fn a_lagging_stream_fills_its_gap_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("events.jsonl");
        let all: Vec<EventEnvelope> = (0..7).map(hint).collect();
        let logged: Vec<String> = all
            .iter()
            .map(|e| serde_json::to_string(e).unwrap())
            .collect();
        std::fs::write(&log, logged.join("\n") + "\n").unwrap();
        let (sender, receiver) = broadcast::channel(2);
        sender.send(all[0].clone()).unwrap();
        let mut out = Vec::new();
        let consumer = {
            let log = log.clone();
            async move {
                stream_events(receiver, log, 0, &mut out).await;
                out
            }
        };
        let producer = async move {
            for envelope in &all[1..] {
                sender.send(envelope.clone()).unwrap();
            }
            drop(sender);
        };
        // The producer runs first: the consumer finds itself lagged behind.
        let ((), out) = tokio::join!(producer, consumer);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, logged.iter().map(String::as_str).collect::<Vec<_>>());
    }
}
