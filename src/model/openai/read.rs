//! Reading a completion response into an [`Assembler`]: server-sent events up to `[DONE]`, or a
//! whole JSON completion from a server that ignored `stream`. Whatever the body holds, the outcome
//! is an answer or an error message that quotes the start of the body — never a panic.

use super::assemble::{Assembled, Assembler};
use super::wire::{clip, error_message, Chunk};
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use std::sync::{Arc, Mutex};

/// How much of a body an error message quotes.
const QUOTE_BYTES: usize = 200;
/// Largest non-streamed body read.
const MAX_JSON_BODY: usize = 8 << 20;

/// Read `response` into `assembler`, sending reply text to `on_delta` as it arrives.
pub async fn read_answer(
    response: reqwest::Response,
    mut assembler: Assembler,
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

    let prefix: Arc<Mutex<Vec<u8>>> = Arc::new(Mutex::new(Vec::new()));
    let recorder = Arc::clone(&prefix);
    let bytes = response.bytes_stream().map(move |piece| {
        if let (Ok(bytes), Ok(mut seen)) = (&piece, recorder.lock()) {
            let room = QUOTE_BYTES.saturating_sub(seen.len());
            seen.extend_from_slice(&bytes[..room.min(bytes.len())]);
        }
        piece
    });
    let mut events = bytes.eventsource();
    let mut done = false;
    let mut broken: Option<String> = None;
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                broken = Some(e.to_string());
                break;
            }
        };
        let data = event.data.trim();
        if data.is_empty() {
            continue;
        }
        if data == "[DONE]" {
            done = true;
            break;
        }
        // Events that are not JSON chunks are skipped; if nothing usable arrives, the error
        // below quotes the body.
        let Ok(chunk) = serde_json::from_str::<Chunk>(data) else {
            continue;
        };
        if let Some(error) = &chunk.error {
            return Err(format!(
                "the server reported an error mid-answer: {}",
                error_message(&serde_json::json!({ "error": error }).to_string())
            ));
        }
        assembler.push(chunk, on_delta);
        if assembler.gave_up() {
            // Dropping the stream closes the connection, which stops a streaming server.
            done = true;
            break;
        }
    }
    drop(events);
    let quoted = quote(&prefix.lock().map(|p| p.clone()).unwrap_or_default());
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

/// A whole (non-streamed) JSON completion.
async fn read_json(
    response: reqwest::Response,
    mut assembler: Assembler,
    on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
) -> Result<Assembled, String> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(piece) = stream.next().await {
        let piece = piece.map_err(|e| format!("the answer broke off: {e}"))?;
        body.extend_from_slice(&piece);
        if body.len() > MAX_JSON_BODY {
            return Err(format!(
                "the answer is larger than {} MiB; it began: {}",
                MAX_JSON_BODY >> 20,
                quote(&body)
            ));
        }
    }
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
