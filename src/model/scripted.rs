//! A model that answers from a file of prepared replies, in order, so the whole engine runs
//! deterministically without a language model (tests, demos, CI).
//!
//! The file is JSON Lines: each non-empty line not starting with `#` is one reply, either a JSON
//! object (the tool call itself, e.g. `{"tool":"run","args":{"command":"make"}}`, sent as its
//! compact JSON text) or a JSON string (sent verbatim, which lets a script contain a malformed
//! reply on purpose). Token counts are estimated; deltas are streamed in small pieces like a
//! real backend's.

use super::{
    estimate_prompt_tokens, estimate_tokens, ModelBackend, ModelError, ModelInfo, ModelReply,
    ModelRequest,
};
use async_trait::async_trait;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub struct ScriptedBackend {
    file: PathBuf,
    replies: Vec<String>,
    next: usize,
}

impl ScriptedBackend {
    /// Load replies from `path`. Errors name the file and line of a reply that is not JSON.
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        let text = crate::safe_read::read_to_string(path, crate::safe_read::SCRIPTED_REPLIES)
            .map_err(|e| ModelError::Setup(format!("the scripted model's replies: {e}")))?;
        Self::parse(path, &text)
    }

    /// Parse replies from `text`; `path` is only used in messages.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ModelError> {
        let mut replies = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
                ModelError::Setup(format!(
                    "{}:{}: a scripted reply must be a JSON object (a tool call) or a JSON string: {e}",
                    path.display(),
                    index + 1
                ))
            })?;
            let reply = match value {
                serde_json::Value::String(raw) => raw,
                serde_json::Value::Object(_) => value.to_string(),
                other => {
                    return Err(ModelError::Setup(format!(
                        "{}:{}: a scripted reply must be a JSON object or string, found {other}",
                        path.display(),
                        index + 1
                    )))
                }
            };
            replies.push(reply);
        }
        Ok(ScriptedBackend {
            file: path.to_path_buf(),
            replies,
            next: 0,
        })
    }

    /// How many replies have been used.
    pub fn used(&self) -> usize {
        self.next
    }

    /// Continue from reply `n` (0-based): a resumed session has already used the first `n`
    /// replies in the stages it keeps. Replies are positional, so this is what makes a resumed
    /// scripted run give the redone stage the replies the interrupted attempt had.
    pub fn skip(&mut self, n: usize) {
        self.next = n.min(self.replies.len());
    }
}

#[async_trait]
impl ModelBackend for ScriptedBackend {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: format!("scripted:{}", self.file.display()),
            context_size: 0,
        }
    }

    async fn complete(
        &mut self,
        request: &ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let Some(text) = self.replies.get(self.next).cloned() else {
            return Err(ModelError::ScriptExhausted {
                request: self.next + 1,
                available: self.replies.len(),
                file: self.file.clone(),
            });
        };
        self.next += 1;
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(16) {
            let piece: String = piece.iter().collect();
            on_delta(&piece);
        }
        let prompt = estimate_prompt_tokens(request);
        Ok(ModelReply {
            prompt_tokens: prompt,
            completion_tokens: estimate_tokens(&text),
            cached_tokens: 0,
            duration_ms: started.elapsed().as_millis() as u64,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ModelRequest {
        ModelRequest {
            messages: vec![],
            call_schema: serde_json::json!({}),
            max_tokens: 64,
        }
    }

    #[tokio::test]
    async fn replies_in_order_streams_deltas_then_runs_out() {
        let script = "# comment\n{\"tool\":\"finish_stage\",\"args\":{\"summary\":\"done\"}}\n\"not json at all\"\n";
        let mut model = ScriptedBackend::parse(Path::new("r.jsonl"), script).unwrap();
        let mut streamed = String::new();
        let first = model
            .complete(&request(), &mut |d| streamed.push_str(d))
            .await
            .unwrap();
        assert_eq!(streamed, first.text);
        assert!(first.text.contains("finish_stage"));
        let second = model.complete(&request(), &mut |_| {}).await.unwrap();
        assert_eq!(second.text, "not json at all");
        let err = model.complete(&request(), &mut |_| {}).await.unwrap_err();
        assert!(
            err.to_string().contains("no reply left for request 3"),
            "{err}"
        );
    }

    #[test]
    fn bad_line_is_named() {
        let err = ScriptedBackend::parse(Path::new("r.jsonl"), "{}\n[1,2]\n")
            .err()
            .unwrap();
        assert!(err.to_string().starts_with("r.jsonl:2:"), "{err}");
    }
}
