//! How much of a server's answer is read: the caps on bodies and event-stream lines, and a body
//! reader that stops at a cap. A server that never stops sending (or sends one endless line, or
//! a 300 MB error page) costs at most a cap's worth of memory and reading, never the whole body;
//! dropping the response once the cap is reached closes the connection.

use futures_util::StreamExt;

/// Most bytes one event-stream line (or one event's data) may hold. A chat-completion chunk is
/// a few hundred bytes; a line this long is a broken server or not an event stream at all.
pub(crate) const MAX_SSE_LINE: usize = 1 << 20;

/// Most body bytes one streamed answer may take, events and keep-alives included: far beyond
/// any reply the engine asks for (`max_tokens` is a few thousand tokens, ~200 bytes of event per
/// token), so a stream this long is a server that does not stop.
pub(crate) const MAX_STREAMED_REPLY: usize = 16 << 20;

/// Most bytes of a non-streamed (whole JSON) answer.
pub(crate) const MAX_JSON_REPLY: usize = 8 << 20;

/// Most bytes read of an error body (HTTP 4xx/5xx) for its message; the rest is not read and
/// the connection is dropped.
pub(crate) const MAX_ERROR_BODY: usize = 64 << 10;

/// Most bytes read of the `/models` list.
pub(crate) const MAX_MODELS_BODY: usize = 1 << 20;

/// A body read up to a cap.
#[derive(Debug)]
pub(crate) struct Capped {
    /// At most the cap's worth of the body's first bytes.
    pub(crate) bytes: Vec<u8>,
    /// How the reading ended.
    pub(crate) end: BodyEnd,
}

/// How reading a capped body ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyEnd {
    /// The whole body was read.
    Complete,
    /// The body is longer than the cap; the rest was not read.
    Cut,
    /// The connection broke (the reason).
    Broken(String),
}

/// Read `response`'s body up to `cap` bytes, then drop the response (closing the connection
/// when the body goes on).
pub(crate) async fn read_capped(response: reqwest::Response, cap: usize) -> Capped {
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(piece) = stream.next().await {
        let piece = match piece {
            Ok(piece) => piece,
            Err(e) => {
                return Capped {
                    bytes,
                    end: BodyEnd::Broken(super::transport::describe(&e)),
                }
            }
        };
        let room = cap - bytes.len();
        if piece.len() > room {
            bytes.extend_from_slice(&piece[..room]);
            return Capped {
                bytes,
                end: BodyEnd::Cut,
            };
        }
        bytes.extend_from_slice(&piece);
        // A large body arrives in many pieces that may all be ready at once: let a timeout or
        // a cancellation waiting on this task take its turn.
        tokio::task::coop::consume_budget().await;
    }
    Capped {
        bytes,
        end: BodyEnd::Complete,
    }
}

/// A byte count for messages: `1 MiB`, `64 KiB`, `200 bytes`.
pub(crate) fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_well() {
        assert_eq!(size(MAX_SSE_LINE), "1 MiB");
        assert_eq!(size(MAX_STREAMED_REPLY), "16 MiB");
        assert_eq!(size(MAX_ERROR_BODY), "64 KiB");
        assert_eq!(size(1536), "1536 bytes");
        assert_eq!(size(200), "200 bytes");
    }
}
