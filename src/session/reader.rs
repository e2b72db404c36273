//! Reading `events.jsonl`: strict about everything except a torn last line.
//!
//! Rules:
//! - A last line with no trailing newline that does not parse is a *torn tail* (the writer
//!   crashed mid-line): it is tolerated and reported in [`ReadLog::torn_tail`].
//! - Any other line that does not parse (including a last line that does end in a newline) is
//!   corruption: an error naming the line and how many events before it read fine.
//! - `seq` must run 0, 1, 2, … without gaps or repeats; otherwise an error naming the line.
//! - An empty file holds zero events.
//! - Only a regular file is read, of at most [`safe_read::EVENT_LOG`] bytes, and no line may be
//!   longer than [`safe_read::EVENT_LINE`]: a FIFO or `/dev/zero` is an error, not a hang.

use super::error::SessionError;
use crate::protocol::{EventEnvelope, EVENT_FORMAT_VERSION, MIN_EVENT_FORMAT_VERSION};
use crate::safe_read;
use std::path::Path;

/// A partial last line: what a crash in the middle of a write leaves behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TornTail {
    /// 1-based line number of the partial line.
    pub line: usize,
    /// Byte offset where the partial line starts (the length to truncate the file to).
    pub offset: u64,
    /// Length of the partial line in bytes.
    pub bytes: usize,
}

/// The events of a log, and the torn tail if there was one.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadLog {
    pub events: Vec<EventEnvelope>,
    pub torn_tail: Option<TornTail>,
}

/// Read and check a whole event log. See the module documentation for the rules.
pub fn read_events(path: &Path) -> Result<ReadLog, SessionError> {
    let bytes = read_log(path)?;
    let scan = scan(path, &bytes);
    match scan.error {
        Some(err) => Err(err),
        None => Ok(ReadLog {
            events: scan.events,
            torn_tail: scan.torn_tail,
        }),
    }
}

/// The bytes of the log at `path`: a regular file of at most [`safe_read::EVENT_LOG`] bytes.
pub(crate) fn read_log(path: &Path) -> Result<Vec<u8>, SessionError> {
    Ok(safe_read::read(path, safe_read::EVENT_LOG)?)
}

/// The result of scanning a log: what read fine up to the first problem, and the problem.
pub(crate) struct Scan {
    /// The events before the first problem (all of them when there is none).
    pub events: Vec<EventEnvelope>,
    pub torn_tail: Option<TornTail>,
    /// Corruption or a seq gap; scanning stopped there.
    pub error: Option<SessionError>,
    /// The last line is a complete event but lacks its newline.
    pub missing_newline: bool,
}

/// Scan the bytes of a log read from `path` (the path is only used in errors).
pub(crate) fn scan(path: &Path, bytes: &[u8]) -> Scan {
    let mut out = Scan {
        events: Vec::new(),
        torn_tail: None,
        error: None,
        missing_newline: false,
    };
    let mut offset = 0usize;
    let mut line_no = 0usize;
    while offset < bytes.len() {
        line_no += 1;
        let rest = &bytes[offset..];
        let (line, terminated) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        if line.len() as u64 > safe_read::EVENT_LINE.bytes {
            out.error = Some(SessionError::LineTooLong {
                path: path.to_path_buf(),
                line: line_no,
                bytes: line.len(),
                cap: safe_read::EVENT_LINE.bytes,
                good: out.events.len(),
            });
            return out;
        }
        match parse_line(line) {
            Ok(env) => {
                let expected = out.events.len() as u64;
                if env.seq != expected {
                    out.error = Some(SessionError::SeqGap {
                        path: path.to_path_buf(),
                        line: line_no,
                        expected,
                        found: env.seq,
                    });
                    return out;
                }
                out.events.push(env);
                out.missing_newline = !terminated;
            }
            Err(_) if !terminated => {
                out.torn_tail = Some(TornTail {
                    line: line_no,
                    offset: offset as u64,
                    bytes: line.len(),
                });
            }
            Err(source) => {
                out.error = Some(match unknown_kind(line, &source) {
                    Some(kind) => SessionError::UnknownEvent {
                        path: path.to_path_buf(),
                        line: line_no,
                        good: out.events.len(),
                        kind,
                        oldest: MIN_EVENT_FORMAT_VERSION,
                        newest: EVENT_FORMAT_VERSION,
                    },
                    None => SessionError::Corrupt {
                        path: path.to_path_buf(),
                        line: line_no,
                        good: out.events.len(),
                        source,
                    },
                });
                return out;
            }
        }
        offset += line.len() + usize::from(terminated);
    }
    out
}

/// Parse one line. The writer puts `seq` and `ts_ms` first; for such a line the event is
/// parsed on its own and the two numbers are read off the prefix, which avoids the buffering
/// `#[serde(flatten)]` costs (about half the time of a whole log). Any other line takes the
/// general path.
/// An event of an older format is upgraded ([`crate::protocol::Event::upgrade`]).
pub fn parse_line(line: &[u8]) -> Result<EventEnvelope, serde_json::Error> {
    let mut envelope = parse_envelope(line)?;
    envelope.event.upgrade();
    Ok(envelope)
}

fn parse_envelope(line: &[u8]) -> Result<EventEnvelope, serde_json::Error> {
    if let Some((seq, ts_ms)) = envelope_prefix(line) {
        if let Ok(event) = serde_json::from_slice::<crate::protocol::Event>(line) {
            return Ok(EventEnvelope { seq, ts_ms, event });
        }
    }
    serde_json::from_slice::<EventEnvelope>(line)
}

/// `seq` and `ts_ms` of a line starting `{"seq":<n>,"ts_ms":<n>,` exactly, as written.
fn envelope_prefix(line: &[u8]) -> Option<(u64, u64)> {
    let rest = line.strip_prefix(b"{\"seq\":")?;
    let (seq, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(b",\"ts_ms\":")?;
    let (ts_ms, rest) = leading_number(rest)?;
    rest.starts_with(b",").then_some((seq, ts_ms))
}

fn leading_number(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 {
        return None;
    }
    let text = std::str::from_utf8(&bytes[..digits]).ok()?;
    Some((text.parse().ok()?, &bytes[digits..]))
}

/// The `type` of a well-formed JSON line whose event kind this build does not know (a log
/// from a newer aipc), as opposed to a corrupted line.
fn unknown_kind(line: &[u8], error: &serde_json::Error) -> Option<String> {
    if !error.to_string().contains("unknown variant") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    value.get("type")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const E0: &str = r#"{"seq":0,"ts_ms":1,"type":"resumed"}"#;
    const E1: &str = r#"{"seq":1,"ts_ms":2,"type":"paused","reason":"x"}"#;

    fn run(text: &str) -> Scan {
        scan(Path::new("events.jsonl"), text.as_bytes())
    }

    #[test]
    fn empty_is_zero_events() {
        let s = run("");
        assert!(s.events.is_empty() && s.torn_tail.is_none() && s.error.is_none());
    }

    #[test]
    fn torn_tail_offsets() {
        let text = format!("{E0}\n{E1}\n{{\"seq\":2,\"ts");
        let s = run(&text);
        assert!(s.error.is_none());
        assert_eq!(s.events.len(), 2);
        let torn = s.torn_tail.unwrap();
        assert_eq!(torn.line, 3);
        assert_eq!(torn.offset as usize, E0.len() + E1.len() + 2);
        assert_eq!(torn.bytes, "{\"seq\":2,\"ts".len());
    }

    #[test]
    fn complete_last_line_without_newline_is_an_event() {
        let s = run(&format!("{E0}\n{E1}"));
        assert_eq!(s.events.len(), 2);
        assert!(s.missing_newline && s.torn_tail.is_none());
    }

    #[test]
    fn garbage_last_line_with_newline_is_corruption() {
        let s = run(&format!("{E0}\nnot json\n"));
        let err = s.error.unwrap().to_string();
        assert!(err.starts_with("events.jsonl:2: "), "{err}");
        assert!(err.contains("(1 events before it read fine)"), "{err}");
    }

    #[test]
    fn an_unknown_event_kind_says_upgrade() {
        let s = run(&format!(
            "{E0}\n{{\"seq\":1,\"ts_ms\":2,\"type\":\"warp_drive\"}}\n"
        ));
        let err = s.error.unwrap().to_string();
        assert!(
            err.starts_with("events.jsonl:2: unknown event type \"warp_drive\""),
            "{err}"
        );
        assert!(err.contains("upgrade aipc"), "{err}");
    }

    #[test]
    fn the_fast_path_agrees_with_the_general_one() {
        for line in [
            E0.to_string(),
            E1.to_string(),
            r#"{"ts_ms":2,"seq":1,"type":"paused","reason":"x"}"#.to_string(),
            r#"{"seq":3,"ts_ms":4,"type":"hint_added","text":"a \"seq\":9"}"#.to_string(),
        ] {
            let fast = parse_line(line.as_bytes()).unwrap();
            let general: EventEnvelope = serde_json::from_str(&line).unwrap();
            assert_eq!(fast, general, "{line}");
        }
        assert!(parse_line(br#"{"seq":1,"ts_ms":2,"type":"nope"}"#).is_err());
        assert!(parse_line(br#"{"seq":1,"ts_ms":2}"#).is_err());
    }

    #[test]
    fn a_line_longer_than_any_event_is_an_error() {
        let long = format!(
            "{E0}\n{{\"seq\":1,\"ts_ms\":2,\"type\":\"hint_added\",\"text\":\"{}\"}}\n",
            "x".repeat(safe_read::EVENT_LINE.bytes as usize)
        );
        let s = run(&long);
        assert_eq!(s.events.len(), 1);
        let err = s.error.unwrap().to_string();
        assert!(err.starts_with("events.jsonl:2: the line is "), "{err}");
        assert!(err.contains("(1 events before it read fine)"), "{err}");
    }

    #[test]
    fn a_fifo_or_a_device_is_an_error_not_a_hang() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("events.jsonl");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let err = read_events(&fifo).unwrap_err();
        assert!(matches!(err, SessionError::Unreadable(_)), "{err}");
        assert!(err.to_string().contains("FIFO"), "{err}");
        let err = read_events(Path::new("/dev/zero")).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
    }

    #[test]
    fn repeat_is_a_seq_error() {
        let s = run(&format!("{E0}\n{E0}\n"));
        let err = s.error.unwrap().to_string();
        assert!(
            err.contains("events.jsonl:2: event seq 0, expected 1"),
            "{err}"
        );
    }
}
