//! Reading a completion response into an [`Assembler`]: server-sent events up to `[DONE]`, or a
//! whole JSON completion from a server that ignored `stream`. Whatever the body holds, the outcome
//! is an answer or an error message that quotes the start of the body — never a panic. Reading is
//! bounded ([`super::limits`]): the event stream is decoded in one pass with a cap on one line,
//! the streamed answer and the JSON answer each have a cap, and the read loop lets a timeout or a
//! cancellation in even when the server's bytes are always ready.

use super::assemble::{Assembled, Assembler};
use super::limits::{read_capped, size, BodyEnd, MAX_JSON_REPLY, MAX_SSE_LINE, MAX_STREAMED_REPLY};
use super::sse::SseDecoder;
use super::wire::{clip, error_message, Chunk};
use futures_util::{Stream, StreamExt};
use std::fmt::Display;

/// How much of a body an error message quotes.
const QUOTE_BYTES: usize = 200;

/// Read `response` into `assembler`, sending reply text to `on_delta` as it arrives.
pub(crate) async fn read_answer(
    response: reqwest::Response,
    assembler: Assembler,
    on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
) -> Result<Assembled, String> {
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("application/json") {
        return read_json(response, assembler, on_delta).await;
    }
    read_events(
        response.bytes_stream(),
        assembler,
        on_delta,
        StreamCaps::DEFAULT,
    )
    .await
}

/// The caps on one event stream (tests shrink them).
#[derive(Debug, Clone, Copy)]
struct StreamCaps {
    /// One line, or one event's data.
    line: usize,
    /// The whole body.
    reply: usize,
}

impl StreamCaps {
    const DEFAULT: StreamCaps = StreamCaps {
        line: MAX_SSE_LINE,
        reply: MAX_STREAMED_REPLY,
    };
}

/// Read an event stream (the body's pieces) up to `[DONE]`, its end, or a cap.
async fn read_events<S, B, E>(
    mut pieces: S,
    mut assembler: Assembler,
    on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    caps: StreamCaps,
) -> Result<Assembled, String>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: Display,
{
    let mut decoder = SseDecoder::new(caps.line);
    let mut prefix: Vec<u8> = Vec::new();
    let mut received = 0usize;
    let mut events: Vec<String> = Vec::new();
    let mut done = false;
    let mut broken: Option<String> = None;
    let line_too_long = |prefix: &[u8]| {
        format!(
            "the answer stream has a line longer than {} (the cap on one event-stream line); the \
             server is broken or this is not a chat-completion endpoint — check the server; it \
             began: {}",
            size(caps.line),
            quote(prefix)
        )
    };
    'read: loop {
        let ended = match pieces.next().await {
            Some(Ok(piece)) => {
                let piece = piece.as_ref();
                received = received.saturating_add(piece.len());
                let room = QUOTE_BYTES.saturating_sub(prefix.len());
                prefix.extend_from_slice(&piece[..room.min(piece.len())]);
                if received > caps.reply {
                    return Err(format!(
                        "the streamed answer passed {} (the cap on one answer) without ending; \
                         the server does not stop — check or restart it; it began: {}",
                        size(caps.reply),
                        quote(&prefix)
                    ));
                }
                decoder
                    .feed(piece, &mut events)
                    .map_err(|_| line_too_long(&prefix))?;
                false
            }
            Some(Err(e)) => {
                broken = Some(e.to_string());
                true
            }
            None => {
                decoder
                    .finish(&mut events)
                    .map_err(|_| line_too_long(&prefix))?;
                true
            }
        };
        for data in events.drain(..) {
            if take_event(&data, &mut assembler, on_delta)? {
                // Dropping the stream closes the connection, which stops a streaming server.
                done = true;
                break 'read;
            }
        }
        if ended {
            break;
        }
        // Pieces that are always ready (a fast server, a full buffer) would keep this loop from
        // ever yielding: let the request timeout and the engine's cancellation take their turn.
        tokio::task::coop::consume_budget().await;
    }
    drop(pieces);
    let quoted = quote(&prefix);
    if let Some(reason) = broken {
        if !done {
            return Err(format!(
                "the answer stream broke off ({reason}); it began: {quoted}"
            ));
        }
    }
    if !done && !assembler.has_anything() {
        return Err(format!(
            "the answer is not a chat-completion event stream (no JSON `data:` chunks, no \
             [DONE]); it began: {quoted}"
        ));
    }
    Ok(assembler.finish(on_delta))
}

/// One event's data into the assembler; `Ok(true)` when reading should stop (`[DONE]`, or the
/// assembler gave up).
fn take_event(
    data: &str,
    assembler: &mut Assembler,
    on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
) -> Result<bool, String> {
    let data = data.trim();
    if data.is_empty() {
        return Ok(false);
    }
    if data == "[DONE]" {
        return Ok(true);
    }
    // Events that are not JSON chunks are skipped; if nothing usable arrives, the caller's error
    // quotes the body.
    let Ok(chunk) = serde_json::from_str::<Chunk>(data) else {
        return Ok(false);
    };
    if let Some(error) = &chunk.error {
        return Err(format!(
            "the server reported an error mid-answer: {}",
            error_message(&serde_json::json!({ "error": error }).to_string())
        ));
    }
    assembler.push(chunk, on_delta);
    Ok(assembler.gave_up())
}

/// A whole (non-streamed) JSON completion.
async fn read_json(
    response: reqwest::Response,
    mut assembler: Assembler,
    on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
) -> Result<Assembled, String> {
    let body = read_capped(response, MAX_JSON_REPLY).await;
    match body.end {
        BodyEnd::Complete => {}
        BodyEnd::Cut => {
            return Err(format!(
                "the answer is larger than {} (the cap on a whole JSON answer); the server is \
                 broken or this is not a chat-completion endpoint — check the server; it began: {}",
                size(MAX_JSON_REPLY),
                quote(&body.bytes)
            ))
        }
        BodyEnd::Broken(reason) => return Err(format!("the answer broke off: {reason}")),
    }
    let body = body.bytes;
    let chunk = match serde_json::from_slice::<Chunk>(&body) {
        Ok(chunk) if chunk.error.is_some() => {
            return Err(format!(
                "the server reported an error: {}",
                error_message(&String::from_utf8_lossy(&body))
            ))
        }
        Ok(chunk) if !chunk.choices.is_empty() => chunk,
        _ => {
            return Err(format!(
                "the answer is neither an event stream nor a chat completion; it began: {}",
                quote(&body)
            ))
        }
    };
    assembler.push(chunk, on_delta);
    Ok(assembler.finish(on_delta))
}

/// The first bytes of a body as quoted text.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(QUOTE_BYTES)]);
    format!("{:?}", clip(&text, QUOTE_BYTES))
}

#[cfg(test)]
mod tests {
    use super::super::assemble::Collect;
    use super::*;
    use futures_util::stream;
    use std::convert::Infallible;
    use std::time::{Duration, Instant};

    async fn read(
        pieces: Vec<&'static [u8]>,
        caps: StreamCaps,
    ) -> (Result<Assembled, String>, String) {
        let mut streamed = String::new();
        let result = read_events(
            stream::iter(pieces.into_iter().map(Ok::<_, Infallible>)),
            Assembler::new(Collect::Content),
            &mut |d: &str| streamed.push_str(d),
            caps,
        )
        .await;
        (result, streamed)
    }

    #[tokio::test]
    async fn a_stream_in_awkward_pieces_is_assembled() {
        let (result, streamed) = read(
            vec![
                &b"data: {\"choices\":[{\"delta\":{\"con"[..],
                b"tent\":\"he\"}}]}\r",
                b"\n\r\n: keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"llo\"}}]}\n",
                b"\ndata: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"late\"}}]}\n\n",
            ],
            StreamCaps::DEFAULT,
        )
        .await;
        assert_eq!(result.unwrap().text, "hello");
        assert_eq!(streamed, "hello");
    }

    #[tokio::test]
    async fn the_caps_are_errors_that_name_them() {
        let caps = StreamCaps {
            line: 64,
            reply: 256,
        };
        let (result, _) = read(vec![&b"data: "[..], &[b'x'; 100]], caps).await;
        let err = result.unwrap_err();
        assert!(err.contains("line longer than 64 bytes"), "{err}");
        assert!(err.contains("xxxx"), "{err}");
        let (result, _) = read(vec![&b": keep-alive\n\n"[..]; 40], caps).await;
        let err = result.unwrap_err();
        assert!(err.contains("passed 256 bytes"), "{err}");
        assert!(err.contains("without ending"), "{err}");
    }

    #[tokio::test]
    async fn pieces_that_are_always_ready_still_let_a_timeout_in() {
        // A stream that never returns `Pending`: without yielding, the timeout around the read
        // (and the engine's cancellation) could never run.
        let endless = stream::repeat(Ok::<_, Infallible>(&b": keep-alive\n\n"[..]));
        let caps = StreamCaps {
            line: MAX_SSE_LINE,
            reply: usize::MAX,
        };
        let started = Instant::now();
        let mut sink = |_: &str| {};
        let outcome = tokio::time::timeout(
            Duration::from_millis(200),
            read_events(endless, Assembler::new(Collect::Content), &mut sink, caps),
        )
        .await;
        assert!(outcome.is_err(), "the timeout fired");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }
}
