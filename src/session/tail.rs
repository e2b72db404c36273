//! [`LogTail`]: reading ranges of events back from a session's growing `events.jsonl` — how a
//! live consumer that fell behind the broadcast (the TUI, `run --json`) gets what it missed.
//! The bus writes every event to the log before broadcasting it.

use super::reader::parse_line;
use crate::protocol::EventEnvelope;
use serde::Deserialize;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::PathBuf;

/// Reads ranges of events back from a growing `events.jsonl`, remembering where it got to.
pub struct LogTail {
    path: PathBuf,
    offset: u64,
}

#[derive(Deserialize)]
struct SeqOnly {
    seq: u64,
}

impl LogTail {
    pub fn new(path: PathBuf) -> Self {
        LogTail { path, offset: 0 }
    }

    /// The events with `from <= seq < to` that the log holds (complete lines only).
    pub fn read_range(&mut self, from: u64, to: u64) -> Vec<EventEnvelope> {
        let mut found = Vec::new();
        // Only a regular file: a FIFO put in the log's place must not block the reader.
        let Ok((mut file, _)) = crate::safe_read::open_regular(&self.path) else {
            return found;
        };
        if file.seek(SeekFrom::Start(self.offset)).is_err() {
            return found;
        }
        let mut reader = BufReader::new(file);
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if !line.ends_with('\n') {
                        break;
                    }
                    let seq = serde_json::from_str::<SeqOnly>(&line).map(|s| s.seq);
                    match seq {
                        Ok(seq) if seq >= to => break,
                        Ok(seq) if seq >= from => {
                            if let Ok(event) = parse_line(line.as_bytes()) {
                                found.push(event);
                            }
                        }
                        _ => {}
                    }
                    self.offset += n as u64;
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Event;
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
    fn log_tail_reads_ranges_in_order_and_ignores_a_torn_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let mut file = std::fs::File::create(&path).unwrap();
        for seq in 0..10 {
            writeln!(file, "{}", serde_json::to_string(&envelope(seq)).unwrap()).unwrap();
        }
        write!(file, "{{\"seq\":10,\"ts_").unwrap();
        let mut tail = LogTail::new(path);
        let seqs = |v: Vec<EventEnvelope>| v.iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(tail.read_range(2, 5)), vec![2, 3, 4]);
        assert_eq!(seqs(tail.read_range(5, 7)), vec![5, 6]);
        assert_eq!(seqs(tail.read_range(8, 20)), vec![8, 9]);
    }
}
