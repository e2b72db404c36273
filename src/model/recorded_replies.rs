//! A model that answers with the replies a recorded session got, in order: the model of
//! `aipc rerun` (and of `--model replay:<session folder>`).
//!
//! Each recorded turn is played back as it happened: the same streamed deltas (so the re-run's
//! event numbering matches the recording's while nothing diverges), the same reply text and
//! token counts, and a context overflow first where the recording compacted the conversation.
//! The turns come from the events as they count: work a resume discarded is left out. A re-run
//! that asks for more turns than were recorded gets an error naming the count — a divergence.

use super::{ModelBackend, ModelError, ModelInfo, ModelReply, ModelRequest};
use crate::protocol::{Event, EventEnvelope};
use crate::session::{Recording, SessionPaths};
use async_trait::async_trait;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// One recorded model turn.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedTurn {
    pub request_id: u64,
    pub deltas: Vec<String>,
    pub text: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    /// Context overflows the backend reported before this reply (each one compacted).
    pub overflows: usize,
}

pub struct ReplayBackend {
    name: String,
    turns: Vec<RecordedTurn>,
    next: usize,
    /// Overflows still to report for the next turn.
    pending_overflows: Option<usize>,
}

impl ReplayBackend {
    /// The turns of the session stored in `dir`.
    pub fn open(dir: &Path) -> Result<Self, ModelError> {
        let recording = Recording::open(&SessionPaths::from_dir(dir))
            .map_err(|e| ModelError::Setup(format!("cannot open the recording to replay: {e}")))?;
        Ok(Self::from_recording(&recording))
    }

    /// The turns of `recording` (without discarded work).
    pub fn from_recording(recording: &Recording) -> Self {
        let name = match recording.paths() {
            Some(paths) => format!("replay:{}", paths.dir.display()),
            None => format!("replay:{}", recording.session_id()),
        };
        Self::from_events(name, recording.effective())
    }

    /// The turns among `events`, in the order their replies were recorded.
    pub fn from_events<'a>(name: String, events: impl Iterator<Item = &'a EventEnvelope>) -> Self {
        let mut open: HashMap<u64, RecordedTurn> = HashMap::new();
        let mut turns = Vec::new();
        for env in events {
            match &env.event {
                Event::ModelDelta { request_id, text } => {
                    open.entry(*request_id)
                        .or_insert_with(|| empty_turn(*request_id))
                        .deltas
                        .push(text.clone());
                }
                Event::Compacted { request_id, .. } => {
                    open.entry(*request_id)
                        .or_insert_with(|| empty_turn(*request_id))
                        .overflows += 1;
                }
                Event::ModelResponse {
                    request_id,
                    text,
                    prompt_tokens,
                    completion_tokens,
                    cached_tokens,
                    ..
                } => {
                    let mut turn = open
                        .remove(request_id)
                        .unwrap_or_else(|| empty_turn(*request_id));
                    turn.text.clone_from(text);
                    turn.prompt_tokens = *prompt_tokens;
                    turn.completion_tokens = *completion_tokens;
                    turn.cached_tokens = *cached_tokens;
                    turns.push(turn);
                }
                _ => {}
            }
        }
        ReplayBackend {
            name,
            turns,
            next: 0,
            pending_overflows: None,
        }
    }

    /// Start at turn `n` (a resumed session has already had the first `n`).
    pub fn skip(&mut self, n: usize) {
        self.next = n.min(self.turns.len());
        self.pending_overflows = None;
    }

    /// How many turns were played.
    pub fn used(&self) -> usize {
        self.next
    }

    /// How many turns the recording holds.
    pub fn len(&self) -> usize {
        self.turns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

fn empty_turn(request_id: u64) -> RecordedTurn {
    RecordedTurn {
        request_id,
        deltas: Vec::new(),
        text: String::new(),
        prompt_tokens: 0,
        completion_tokens: 0,
        cached_tokens: 0,
        overflows: 0,
    }
}

#[async_trait]
impl ModelBackend for ReplayBackend {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: self.name.clone(),
            context_size: 0,
        }
    }

    async fn complete(
        &mut self,
        _request: &ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let Some(turn) = self.turns.get(self.next) else {
            return Err(ModelError::Backend(format!(
                "replay: the recording holds {} model replies and this run asks for reply {}: \
                 the run took a path the recording did not",
                self.turns.len(),
                self.next + 1
            )));
        };
        let pending = self.pending_overflows.get_or_insert(turn.overflows);
        if *pending > 0 {
            *pending -= 1;
            return Err(ModelError::ContextOverflow {
                prompt_tokens: turn.prompt_tokens,
                max_reply: 0,
                context: 0,
            });
        }
        let turn = turn.clone();
        self.next += 1;
        self.pending_overflows = None;
        for delta in &turn.deltas {
            on_delta(delta);
        }
        Ok(ModelReply {
            text: turn.text,
            prompt_tokens: turn.prompt_tokens,
            completion_tokens: turn.completion_tokens,
            cached_tokens: turn.cached_tokens,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(seq: u64, event: Event) -> EventEnvelope {
        EventEnvelope {
            seq,
            ts_ms: seq,
            event,
        }
    }

    fn response(request_id: u64, text: &str) -> Event {
        Event::ModelResponse {
            request_id,
            text: text.into(),
            prompt_tokens: 10,
            completion_tokens: 2,
            cached_tokens: 0,
            duration_ms: 5,
        }
    }

    fn request() -> ModelRequest {
        ModelRequest {
            messages: vec![],
            call_schema: serde_json::json!({}),
            max_tokens: 8,
        }
    }

    #[tokio::test]
    async fn plays_deltas_overflows_and_replies_then_runs_out() {
        let events = [
            env(
                0,
                Event::ModelDelta {
                    request_id: 0,
                    text: "ab".into(),
                },
            ),
            env(
                1,
                Event::ModelDelta {
                    request_id: 0,
                    text: "c".into(),
                },
            ),
            env(2, response(0, "abc")),
            env(
                3,
                Event::Compacted {
                    request_id: 1,
                    folded: 2,
                    chars_before: 10,
                    chars_after: 5,
                },
            ),
            env(4, response(1, "second")),
        ];
        let mut model = ReplayBackend::from_events("replay:test".into(), events.iter());
        assert_eq!(model.len(), 2);
        let mut deltas = Vec::new();
        let first = model
            .complete(&request(), &mut |d| deltas.push(d.to_string()))
            .await
            .unwrap();
        assert_eq!(first.text, "abc");
        assert_eq!(deltas, vec!["ab", "c"]);
        let overflow = model.complete(&request(), &mut |_| {}).await.unwrap_err();
        assert!(matches!(overflow, ModelError::ContextOverflow { .. }));
        let second = model.complete(&request(), &mut |_| {}).await.unwrap();
        assert_eq!(second.text, "second");
        let err = model.complete(&request(), &mut |_| {}).await.unwrap_err();
        assert!(err.to_string().contains("holds 2 model replies"), "{err}");
        model.skip(1);
        assert_eq!(model.used(), 1);
    }
}
