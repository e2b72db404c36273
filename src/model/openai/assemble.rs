//! Turning streamed chunks into the reply text the engine parses, streaming it as it grows.
//!
//! Schema mode: the `content` deltas are the reply. Tools mode: tool-call deltas are accumulated
//! per `index` (`id` and `name` arrive once, `arguments` fragments are concatenated; a missing
//! `index` continues the latest call unless the delta names a new one) and the first call becomes
//! `{"tool":"<name>","args":<arguments>}`. That text is streamed as it forms — the head once the
//! name is known, then each arguments fragment, then the closing brace — so the deltas always
//! concatenate to the final text.
//!
//! A tools-mode probe can be told to give up once the server has streamed enough plain content
//! without starting a call (a server that ignores `tools` would otherwise talk until
//! `max_tokens`).

use super::wire::{Chunk, Delta, ToolCallDelta};

/// What to take from the chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collect {
    Content,
    ToolCall,
}

/// The assembled answer of one exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    /// The reply text (exactly the concatenation of the deltas sent).
    pub text: String,
    /// Tools mode: whether a named tool call was received.
    pub tool_call: bool,
    /// Tools mode: whether that call's arguments parse as a JSON object.
    pub arguments_valid: bool,
    /// Content the server sent besides (tools mode) or instead of a tool call.
    pub content: String,
    /// Tools mode: reading stopped early because only content came (see
    /// [`Assembler::give_up_after`]).
    pub gave_up: bool,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub finish_reason: Option<String>,
}

#[derive(Debug, Default)]
struct CallParts {
    index: Option<u64>,
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

/// Accumulates chunks; see the module documentation.
#[derive(Debug)]
pub struct Assembler {
    collect: Collect,
    text: String,
    content: String,
    calls: Vec<CallParts>,
    /// Tools mode: whether the head of the first call was sent, and how many bytes of its
    /// arguments were sent.
    head_sent: bool,
    arguments_sent: usize,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    cached_tokens: Option<u64>,
    finish_reason: Option<String>,
    chunks: usize,
    give_up_after: Option<usize>,
}

impl Assembler {
    pub fn new(collect: Collect) -> Self {
        Assembler {
            collect,
            text: String::new(),
            content: String::new(),
            calls: Vec::new(),
            head_sent: false,
            arguments_sent: 0,
            prompt_tokens: None,
            completion_tokens: None,
            cached_tokens: None,
            finish_reason: None,
            chunks: 0,
            give_up_after: None,
        }
    }

    /// Tools mode: stop wanting more once `bytes` of content arrived and no call has started.
    pub fn give_up_after(mut self, bytes: usize) -> Self {
        self.give_up_after = Some(bytes);
        self
    }

    /// Whether reading should stop now (see [`Assembler::give_up_after`]).
    pub fn gave_up(&self) -> bool {
        self.collect == Collect::ToolCall
            && self.calls.is_empty()
            && self
                .give_up_after
                .is_some_and(|limit| self.content.len() >= limit)
    }

    /// Whether any chunk carried something (text, a call, usage or a finish reason).
    pub fn has_anything(&self) -> bool {
        self.chunks > 0
    }

    /// Take one chunk, sending the new reply text to `on_delta`.
    pub fn push(&mut self, chunk: Chunk, on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send)) {
        let mut meaningful = false;
        if let Some(usage) = chunk.usage {
            meaningful = true;
            self.prompt_tokens = usage.prompt_tokens.or(self.prompt_tokens);
            self.completion_tokens = usage.completion_tokens.or(self.completion_tokens);
            if let Some(cached) = usage.prompt_tokens_details.and_then(|d| d.cached_tokens) {
                self.cached_tokens = Some(cached);
            }
        }
        if let Some(timings) = chunk.timings {
            meaningful = true;
            if let Some(cached) = timings.cache_n {
                self.cached_tokens = Some(cached);
            }
            self.prompt_tokens = self.prompt_tokens.or(timings.prompt_n);
            self.completion_tokens = self.completion_tokens.or(timings.predicted_n);
        }
        // Only the first choice counts (n = 1); servers number it 0 or omit the index.
        let first = chunk.choices.into_iter().find(|choice| {
            choice.index.is_none()
                || choice.index.as_ref().and_then(|i| i.as_u64()) == Some(0)
                || choice.index.as_ref().and_then(|i| i.as_str()) == Some("0")
        });
        if let Some(choice) = first {
            meaningful = true;
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason);
            }
            for delta in [choice.delta, choice.message].into_iter().flatten() {
                self.push_delta(delta, on_delta);
            }
        }
        if meaningful {
            self.chunks += 1;
        }
    }

    fn push_delta(&mut self, delta: Delta, on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send)) {
        if !delta.content.is_empty() {
            self.content.push_str(&delta.content);
            if self.collect == Collect::Content {
                self.emit(&delta.content, on_delta);
            }
        }
        if self.collect == Collect::ToolCall {
            for call in delta.tool_calls {
                self.push_call(call);
            }
            self.flush_call(on_delta);
        }
    }

    fn push_call(&mut self, delta: ToolCallDelta) {
        let (name, arguments) = match delta.function {
            Some(function) => (function.name.filter(|n| !n.is_empty()), function.arguments),
            None => (None, String::new()),
        };
        let id = delta.id.filter(|id| !id.is_empty());
        let position = match delta.index {
            Some(index) => self.calls.iter().position(|c| c.index == Some(index)),
            None => self.calls.len().checked_sub(1).filter(|&last| {
                let call = &self.calls[last];
                let other_id = matches!((&id, &call.id), (Some(a), Some(b)) if a != b);
                let other_name =
                    id.is_none() && matches!((&name, &call.name), (Some(a), Some(b)) if a != b);
                !(other_id || other_name)
            }),
        };
        let call = match position {
            Some(position) => &mut self.calls[position],
            None => {
                self.calls.push(CallParts {
                    index: delta.index,
                    ..CallParts::default()
                });
                let last = self.calls.len() - 1;
                &mut self.calls[last]
            }
        };
        if call.id.is_none() {
            call.id = id;
        }
        if call.name.is_none() {
            call.name = name;
        }
        call.arguments.push_str(&arguments);
    }

    /// Send what is new of the first call: its head once named, then its arguments.
    fn flush_call(&mut self, on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send)) {
        let Some(first) = self.calls.first() else {
            return;
        };
        let Some(name) = &first.name else {
            return;
        };
        let mut out = String::new();
        if !self.head_sent {
            out.push_str("{\"tool\":");
            out.push_str(&serde_json::Value::String(name.clone()).to_string());
            out.push_str(",\"args\":");
            self.head_sent = true;
        }
        if first.arguments.len() > self.arguments_sent {
            out.push_str(&first.arguments[self.arguments_sent..]);
            self.arguments_sent = first.arguments.len();
        }
        if !out.is_empty() {
            self.emit(&out, on_delta);
        }
    }

    fn emit(&mut self, piece: &str, on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send)) {
        self.text.push_str(piece);
        on_delta(piece);
    }

    /// The answer; in tools mode this closes the call's text (empty arguments become `{}`).
    pub fn finish(mut self, on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send)) -> Assembled {
        let gave_up = self.gave_up();
        let mut tool_call = false;
        let mut arguments_valid = false;
        if self.collect == Collect::ToolCall && self.head_sent {
            tool_call = true;
            let arguments = self
                .calls
                .first()
                .map(|c| c.arguments.trim().to_string())
                .unwrap_or_default();
            let mut tail = String::new();
            if arguments.is_empty() {
                tail.push_str("{}");
                arguments_valid = true;
            } else {
                arguments_valid = serde_json::from_str::<serde_json::Value>(&arguments)
                    .map(|v| v.is_object())
                    .unwrap_or(false);
            }
            tail.push('}');
            self.emit(&tail, on_delta);
        }
        Assembled {
            text: self.text,
            tool_call,
            arguments_valid,
            content: self.content,
            gave_up,
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            cached_tokens: self.cached_tokens,
            finish_reason: self.finish_reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(json: &str) -> Chunk {
        serde_json::from_str(json).unwrap()
    }

    fn run(collect: Collect, chunks: &[&str]) -> (Assembled, Vec<String>) {
        let mut deltas = Vec::new();
        let mut sink = |d: &str| deltas.push(d.to_string());
        let mut assembler = Assembler::new(collect);
        for c in chunks {
            assembler.push(chunk(c), &mut sink);
        }
        let assembled = assembler.finish(&mut sink);
        (assembled, deltas)
    }

    #[test]
    fn content_deltas_are_the_reply() {
        let (a, deltas) = run(
            Collect::Content,
            &[
                r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"{\"to"}}]}"#,
                r#"{"choices":[{"index":0,"delta":{"content":"ol\":1}"},"finish_reason":"stop"}]}"#,
                r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4},"timings":{"cache_n":6}}"#,
            ],
        );
        assert_eq!(a.text, r#"{"tool":1}"#);
        assert_eq!(deltas.concat(), a.text);
        assert_eq!(a.prompt_tokens, Some(10));
        assert_eq!(a.completion_tokens, Some(4));
        assert_eq!(a.cached_tokens, Some(6));
        assert_eq!(a.finish_reason.as_deref(), Some("stop"));
    }

    #[test]
    fn tool_call_fragments_by_index_and_without() {
        let (a, deltas) = run(
            Collect::ToolCall,
            &[
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"pa"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"a.py\"}"}}]}}]}"#,
                r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            ],
        );
        assert!(a.tool_call && a.arguments_valid);
        assert_eq!(deltas.concat(), a.text);
        let v: serde_json::Value = serde_json::from_str(&a.text).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"tool": "read_file", "args": {"path": "a.py"}})
        );
    }

    #[test]
    fn arguments_before_the_name_wait_and_empty_arguments_become_an_object() {
        let (a, deltas) = run(
            Collect::ToolCall,
            &[
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"finish"}}]}}]}"#,
            ],
        );
        assert_eq!(a.text, r#"{"tool":"finish","args":{}}"#);
        assert_eq!(deltas.concat(), a.text);
    }

    #[test]
    fn a_second_unindexed_call_does_not_mix_into_the_first() {
        let (a, _) = run(
            Collect::ToolCall,
            &[
                r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{}"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"two","arguments":"{\"x\":1}"}}]}}]}"#,
            ],
        );
        assert_eq!(a.text, r#"{"tool":"one","args":{}}"#);
    }

    #[test]
    fn no_call_leaves_the_content() {
        let (a, deltas) = run(
            Collect::ToolCall,
            &[r#"{"choices":[{"delta":{"content":"I think"}}]}"#],
        );
        assert!(!a.tool_call);
        assert_eq!(a.text, "");
        assert!(deltas.is_empty());
        assert_eq!(a.content, "I think");
        assert!(!a.gave_up);
    }

    #[test]
    fn a_probe_gives_up_on_talk_but_not_on_a_call() {
        let mut sink = |_: &str| {};
        let mut talk = Assembler::new(Collect::ToolCall).give_up_after(10);
        talk.push(
            chunk(r#"{"choices":[{"delta":{"content":"Sure, I will "}}]}"#),
            &mut sink,
        );
        assert!(talk.gave_up());
        assert!(talk.finish(&mut sink).gave_up);
        let mut call = Assembler::new(Collect::ToolCall).give_up_after(10);
        call.push(
            chunk(
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"run"}}]}}]}"#,
            ),
            &mut sink,
        );
        call.push(
            chunk(r#"{"choices":[{"delta":{"content":"Sure, I will "}}]}"#),
            &mut sink,
        );
        assert!(!call.gave_up());
    }
}
