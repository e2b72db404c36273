//! Server-sent events, decoded in linear time with a cap on one line.
//!
//! Each arriving piece of the body is scanned once for line ends (`\n`, `\r\n` or `\r`, which
//! may be split across pieces); only the unfinished last line is kept between pieces, so a
//! hostile server sending one endless line costs one pass over its bytes, and fails as soon as
//! the line passes the cap instead of being re-scanned on every piece. `data:` lines are joined
//! with `\n` into one event's data, dispatched at the blank line that ends the event; comments
//! (`:`) and the other fields (`event`, `id`, `retry`) are ignored — a chat-completion stream
//! does not need them.

/// Why the stream cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SseError {
    /// One line (or one event's data) grew past the cap before it ended.
    #[error("an event-stream line or event is longer than {cap} bytes")]
    LineTooLong { cap: usize },
}

/// Turns body pieces into the data of complete events; see the module documentation.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    /// The line being received: bytes after the last line end.
    line: Vec<u8>,
    /// The previous piece ended in `\r`: a `\n` opening the next one ends the same line.
    after_cr: bool,
    /// The `data` of the event being assembled (`None` until a `data` field arrives).
    data: Option<Vec<u8>>,
    /// Most bytes one line, or one event's data, may hold.
    cap: usize,
}

impl SseDecoder {
    pub(crate) fn new(cap: usize) -> Self {
        SseDecoder {
            line: Vec::new(),
            after_cr: false,
            data: None,
            cap,
        }
    }

    /// Take the next piece of the body, appending the data of each event it completes to
    /// `events`.
    pub(crate) fn feed(&mut self, piece: &[u8], events: &mut Vec<String>) -> Result<(), SseError> {
        let mut rest = piece;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            let head = &rest[..end];
            if self.line.len() + head.len() > self.cap {
                return Err(SseError::LineTooLong { cap: self.cap });
            }
            if self.line.is_empty() {
                self.take_line(head, events)?;
            } else {
                self.line.extend_from_slice(head);
                let line = std::mem::take(&mut self.line);
                self.take_line(&line, events)?;
            }
            let skip = match (rest[end], rest.get(end + 1)) {
                (b'\r', Some(b'\n')) => 2,
                (b'\r', None) => {
                    self.after_cr = true;
                    1
                }
                _ => 1,
            };
            rest = &rest[end + skip..];
        }
        if self.line.len() + rest.len() > self.cap {
            return Err(SseError::LineTooLong { cap: self.cap });
        }
        self.line.extend_from_slice(rest);
        Ok(())
    }

    /// The body ended: an unfinished last line and event count as finished (lenient towards
    /// servers that close without the final blank line).
    pub(crate) fn finish(&mut self, events: &mut Vec<String>) -> Result<(), SseError> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.take_line(&line, events)?;
        }
        self.take_line(b"", events)
    }

    /// One complete line (without its line end).
    fn take_line(&mut self, line: &[u8], events: &mut Vec<String>) -> Result<(), SseError> {
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                events.push(String::from_utf8_lossy(&data).into_owned());
            }
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            // A comment (keep-alive).
            Some(0) => return Ok(()),
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if field != b"data" {
            return Ok(());
        }
        let data = self.data.get_or_insert_with(Vec::new);
        let separator = usize::from(!data.is_empty());
        if data.len() + separator + value.len() > self.cap {
            return Err(SseError::LineTooLong { cap: self.cap });
        }
        if separator == 1 {
            data.push(b'\n');
        }
        data.extend_from_slice(value);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Feed `pieces` and finish; the events, or the first error.
    fn decode(pieces: &[&[u8]], cap: usize) -> Result<Vec<String>, SseError> {
        let mut decoder = SseDecoder::new(cap);
        let mut events = Vec::new();
        for piece in pieces {
            decoder.feed(piece, &mut events)?;
        }
        decoder.finish(&mut events)?;
        Ok(events)
    }

    #[test]
    fn events_are_data_lines_up_to_a_blank_line() {
        let events = decode(
            &[b": keep-alive\n\ndata: {\"a\":1}\n\nevent: x\nid: 7\ndata:b\ndata:  c\n\n"],
            1024,
        )
        .unwrap();
        assert_eq!(events, ["{\"a\":1}", "b\n c"]);
        // Only blank lines and comments: no event.
        assert!(decode(&[b":\n\n\n"], 1024).unwrap().is_empty());
        // A `data` field without a colon is empty data.
        assert_eq!(decode(&[b"data\n\n"], 1024).unwrap(), [""]);
    }

    #[test]
    fn line_ends_of_every_kind_split_anywhere() {
        let text = b"data: one\r\n\r\ndata: two\r\rdata: three\n\ndata: [DONE]\n\n";
        let whole = decode(&[text], 1024).unwrap();
        assert_eq!(whole, ["one", "two", "three", "[DONE]"]);
        // Every split point, including between `\r` and `\n`.
        for cut in 0..=text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(decode(&[a, b], 1024).unwrap(), whole, "cut at {cut}");
        }
        // Byte by byte, with empty pieces between.
        let pieces: Vec<&[u8]> = text
            .iter()
            .flat_map(|b| [std::slice::from_ref(b), &b""[..]])
            .collect();
        assert_eq!(decode(&pieces, 1024).unwrap(), whole);
    }

    #[test]
    fn an_unfinished_last_event_counts_at_the_end() {
        assert_eq!(decode(&[b"data: [DONE]"], 1024).unwrap(), ["[DONE]"]);
        assert_eq!(decode(&[b"data: x\n"], 1024).unwrap(), ["x"]);
    }

    #[test]
    fn a_line_over_the_cap_fails_as_soon_as_it_passes_it() {
        let cap = 100;
        let long = vec![b'x'; 70];
        let mut decoder = SseDecoder::new(cap);
        let mut events = Vec::new();
        decoder.feed(b"data: ", &mut events).unwrap();
        decoder.feed(&long[..30], &mut events).unwrap();
        assert_eq!(
            decoder.feed(&long, &mut events),
            Err(SseError::LineTooLong { cap })
        );
        // Exactly at the cap is fine, ended in the same piece or later.
        let line = [b"data: ".as_slice(), &[b'y'; 94]].concat();
        assert_eq!(decode(&[&line, b"\n\n"], cap).unwrap(), ["y".repeat(94)]);
        let ended = [line.as_slice(), b"\n\n"].concat();
        assert_eq!(decode(&[&ended], cap).unwrap(), ["y".repeat(94)]);
        let over = [line.as_slice(), b"y\n\n"].concat();
        assert_eq!(decode(&[&over], cap), Err(SseError::LineTooLong { cap }));
        // Many short data lines cannot build an event past the cap either.
        let many = b"data: 0123456789\n".repeat(20);
        assert_eq!(decode(&[&many], cap), Err(SseError::LineTooLong { cap }));
    }

    #[test]
    fn a_huge_line_costs_one_pass() {
        // 4 MB in 8 KiB pieces under an 8 MB cap: with a re-scan per piece this is ~1 GB of
        // scanning; one pass is a few milliseconds. The bound is generous (debug build, shared
        // machine): it only catches quadratic behaviour.
        let piece = vec![b'x'; 8 << 10];
        let mut decoder = SseDecoder::new(8 << 20);
        let mut events = Vec::new();
        let started = Instant::now();
        decoder.feed(b"data: ", &mut events).unwrap();
        for _ in 0..512 {
            decoder.feed(&piece, &mut events).unwrap();
        }
        decoder.feed(b"\n\n", &mut events).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].len(), 512 * piece.len());
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }
}
