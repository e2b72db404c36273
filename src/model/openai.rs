//! The OpenAI-compatible HTTP backend: a model served by llama-server, vLLM, Ollama or anything
//! else that speaks `POST {base}/chat/completions` with server-sent events.
//!
//! Two ways to make the server answer with one tool call ([`CallMode`]): native `tools` with
//! `tool_choice: "required"` (the streamed tool-call deltas are turned back into the engine's
//! reply text `{"tool":..,"args":..}`), or a strict `json_schema` response format over the call
//! schema (the streamed content is the reply). [`CallMode::Auto`], the default, tries tools and
//! switches to the schema for the rest of the session when the server rejects tools or answers
//! without a call (it stops listening after ~100 bytes of plain content, so a server that ignores
//! `tools` costs a few tokens, not `max_tokens`); [`ModelBackend::info`] names the mode in use.
//!
//! [`OpenAiBackend::connect`] does no network I/O: it checks the URL and builds the client. The
//! model name (when `--model-name` is not given) is read from `{base}/models` before the first
//! request, falling back to `"default"`, which single-model servers accept.
//!
//! Only plain `http://` is supported: this build has no TLS (enough for a server on this machine
//! or the local network); `https://` is refused at connect time with a message saying so.
//!
//! Failures: connection refused/reset and HTTP 5xx are retried three times (0.5 s, 1 s, 2 s);
//! HTTP 4xx fails at once with the server's message; each request (the `/models` probe, retries,
//! and the whole streamed answer included) is bounded by `ModelOptions::request_timeout`
//! (`--request-timeout-s`), even when the server keeps sending; a body that is not a completion
//! fails quoting its start. What is read of a server is capped (`limits.rs`: one event-stream
//! line, one answer, an error body), so a broken or hostile server costs bounded memory and
//! time. Cancellation is dropping the future ([`ModelBackend::complete`] in the engine's
//! `select!`): the connection closes at once, and the read loop yields often enough for that to
//! happen even while bytes keep arriving.

mod assemble;
pub(crate) mod limits;
mod read;
pub(crate) mod sse;
mod transport;
mod wire;

pub use wire::CallMode;

use super::{estimate_tokens, ModelBackend, ModelError, ModelInfo, ModelOptions, ModelReply};
use super::{Message, ModelRequest};
use assemble::{Assembled, Assembler, Collect};
use async_trait::async_trait;
use std::time::{Duration, Instant};
use transport::{SendError, Transport};
use wire::Sampling;

/// Longest wait for the `/models` probe.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);
/// Auto mode: plain content (bytes) after which a tools answer without a call is abandoned.
const TOOLS_PROBE_PATIENCE: usize = 100;
/// Longest wait for a TCP connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A model behind an OpenAI-compatible server.
pub struct OpenAiBackend {
    base: String,
    transport: Transport,
    options: ModelOptions,
    /// The model name sent; `None` until known (from the options or `/models`).
    model: Option<String>,
    mode: CallMode,
    /// Auto mode: switched to the schema for good.
    fell_back: bool,
    /// Auto mode: native tools answered with a call at least once.
    tools_worked: bool,
}

/// Check `base_url` (e.g. `http://127.0.0.1:8080/v1`) and prepare a backend; no network I/O.
pub fn connect(base_url: &str, options: &ModelOptions) -> Result<OpenAiBackend, ModelError> {
    OpenAiBackend::connect(base_url, options)
}

impl OpenAiBackend {
    /// See [`connect`].
    pub fn connect(base_url: &str, options: &ModelOptions) -> Result<Self, ModelError> {
        let base = base_url.trim().trim_end_matches('/').to_string();
        let url = reqwest::Url::parse(&base).map_err(|e| {
            ModelError::Setup(format!(
                "--model {base_url}: not a URL ({e}); expected http://host:port/v1"
            ))
        })?;
        match url.scheme() {
            "http" => {}
            "https" => {
                return Err(ModelError::Setup(format!(
                    "--model {base_url}: https needs a TLS-enabled build of aipc, and this build \
                     speaks plain http only (enough for a server on this machine); use http://"
                )))
            }
            other => {
                return Err(ModelError::Setup(format!(
                    "--model {base_url}: unsupported scheme {other}:; expected http://host:port/v1"
                )))
            }
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(ModelError::Setup(format!(
                "--model {base_url}: the URL names no host; expected http://host:port/v1"
            )));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(ModelError::Setup(format!(
                "--model {base_url}: the base URL takes no query or fragment; expected \
                 http://host:port/v1"
            )));
        }
        if options.request_timeout.is_zero() {
            return Err(ModelError::Setup(
                "the request timeout must be longer than 0 s".to_string(),
            ));
        }
        let transport = Transport::new(
            options.api_key.clone(),
            CONNECT_TIMEOUT.min(options.request_timeout),
        )
        .map_err(ModelError::Setup)?;
        Ok(OpenAiBackend {
            base,
            transport,
            options: options.clone(),
            model: options.model_name.clone().filter(|m| !m.is_empty()),
            mode: CallMode::Auto,
            fell_back: false,
            tools_worked: false,
        })
    }

    /// Use `mode` instead of [`CallMode::Auto`].
    pub fn with_mode(mut self, mode: CallMode) -> Self {
        self.mode = mode;
        self.fell_back = false;
        self
    }

    /// The way replies are constrained right now: `Tools` or `Schema` once Auto has settled
    /// (Auto settles on `Tools` after the first call answered natively).
    pub fn effective_mode(&self) -> CallMode {
        match self.mode {
            CallMode::Auto if self.fell_back => CallMode::Schema,
            CallMode::Auto if self.tools_worked => CallMode::Tools,
            mode => mode,
        }
    }

    /// The model name, asking `/models` once when it was not given.
    async fn model_name(&mut self) -> String {
        if let Some(model) = &self.model {
            return model.clone();
        }
        let url = format!("{}/models", self.base);
        let timeout = PROBE_TIMEOUT.min(self.options.request_timeout);
        match self.transport.get_json(&url, timeout).await {
            Ok(body) => {
                let model = body
                    .as_ref()
                    .and_then(wire::first_model_id)
                    .unwrap_or_else(|| "default".to_string());
                self.model = Some(model.clone());
                model
            }
            // Unreachable: the completion request will say so (after its retries); ask again
            // next time.
            Err(_) => "default".to_string(),
        }
    }

    /// POST one completion request and read its answer.
    async fn exchange(
        &self,
        body: &serde_json::Value,
        collect: Collect,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<Assembled, Exchange> {
        let url = format!("{}/chat/completions", self.base);
        let tools = collect == Collect::ToolCall;
        let mut assembler = Assembler::new(collect);
        if tools && self.mode == CallMode::Auto {
            assembler = assembler.give_up_after(TOOLS_PROBE_PATIENCE);
        }
        // A 5xx that complains about tools will not change on retry.
        let final_5xx = move |_status: u16, message: &str| tools && mentions_tools(message);
        let response = self
            .transport
            .post_json(&url, body, &final_5xx)
            .await
            .map_err(Exchange::Send)?;
        read::read_answer(response, assembler, on_delta)
            .await
            .map_err(|message| Exchange::Answer(format!("{url}: {message}")))
    }

    async fn complete_within(
        &mut self,
        request: &ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ModelReply, ModelError> {
        let sampling = Sampling {
            model: self.model_name().await,
            temperature: self.options.temperature,
            seed: self.options.seed,
            max_tokens: request.max_tokens,
        };
        let tools = wire::native_tools(&request.call_schema);
        let try_tools = !tools.is_empty()
            && match self.mode {
                CallMode::Tools => true,
                CallMode::Auto => !self.fell_back,
                CallMode::Schema => false,
            };
        let mut spent = Spent::default();
        if try_tools {
            let body = wire::tools_body(&request.messages, &tools, &sampling);
            match self.exchange(&body, Collect::ToolCall, on_delta).await {
                Ok(answer) if answer.tool_call => {
                    self.tools_worked = true;
                    return Ok(reply(answer, &request.messages, spent));
                }
                Ok(answer) if self.mode == CallMode::Tools => {
                    // No call: hand the text over; the engine explains the mistake to the model.
                    if !answer.content.is_empty() {
                        on_delta(&answer.content);
                    }
                    let mut answer = answer;
                    answer.text = answer.content.clone();
                    return Ok(reply(answer, &request.messages, spent));
                }
                Ok(answer) => {
                    spent.add(&answer, &request.messages);
                    self.fell_back = true;
                }
                Err(Exchange::Send(SendError::Rejected {
                    status, message, ..
                })) if self.mode == CallMode::Auto
                    && matches!(status, 400 | 404 | 422 | 500..=599)
                    && mentions_tools(&message) =>
                {
                    self.fell_back = true;
                }
                Err(e) => return Err(e.into()),
            }
        }
        let body = wire::schema_body(&request.messages, &request.call_schema, &sampling);
        let answer = self
            .exchange(&body, Collect::Content, on_delta)
            .await
            .map_err(ModelError::from)?;
        Ok(reply(answer, &request.messages, spent))
    }
}

#[async_trait]
impl ModelBackend for OpenAiBackend {
    fn info(&self) -> ModelInfo {
        let mode = match self.mode {
            CallMode::Auto if self.fell_back => CallMode::Schema.label(),
            CallMode::Auto if self.tools_worked => "auto: tools",
            mode => mode.label(),
        };
        let name = match &self.model {
            Some(model) => format!("{} ({}, {mode})", self.base, short_model_name(model)),
            None => format!("{} ({mode})", self.base),
        };
        ModelInfo {
            name,
            context_size: 0,
        }
    }

    async fn complete(
        &mut self,
        request: &ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let limit = self.options.request_timeout;
        let base = self.base.clone();
        let outcome = tokio::time::timeout(limit, self.complete_within(request, on_delta)).await;
        let mut reply = outcome.map_err(|_| {
            ModelError::Backend(format!(
                "{base} did not answer within {} (--request-timeout-s, which bounds the whole \
                 request, streamed answer included); raise it if the model is only slow, or \
                 check the server",
                seconds(limit)
            ))
        })??;
        reply.duration_ms = started.elapsed().as_millis() as u64;
        Ok(reply)
    }
}

/// Why one exchange failed.
#[derive(Debug)]
enum Exchange {
    Send(SendError),
    /// The response came but was not a usable answer.
    Answer(String),
}

impl From<Exchange> for ModelError {
    fn from(e: Exchange) -> Self {
        match e {
            Exchange::Send(e) => ModelError::Backend(e.to_string()),
            Exchange::Answer(message) => ModelError::Backend(message),
        }
    }
}

/// Tokens of an abandoned attempt (a tools answer without a call), added to the final reply.
#[derive(Debug, Default, Clone, Copy)]
struct Spent {
    prompt: u64,
    completion: u64,
}

impl Spent {
    fn add(&mut self, answer: &Assembled, messages: &[Message]) {
        let (prompt, completion) = counts(answer, messages);
        self.prompt += prompt;
        self.completion += completion;
    }
}

/// Token counts the server reported, or estimates when it reported none.
fn counts(answer: &Assembled, messages: &[Message]) -> (u64, u64) {
    let prompt = answer
        .prompt_tokens
        .unwrap_or_else(|| messages.iter().map(|m| estimate_tokens(&m.content)).sum());
    let completion = answer.completion_tokens.unwrap_or_else(|| {
        estimate_tokens(if answer.text.is_empty() {
            &answer.content
        } else {
            &answer.text
        })
    });
    (prompt, completion)
}

fn reply(answer: Assembled, messages: &[Message], spent: Spent) -> ModelReply {
    let (prompt, completion) = counts(&answer, messages);
    ModelReply {
        prompt_tokens: prompt + spent.prompt,
        completion_tokens: completion + spent.completion,
        cached_tokens: answer.cached_tokens.unwrap_or(0),
        duration_ms: 0,
        text: answer.text,
    }
}

/// llama-server lists its model by file path; show the file name.
fn short_model_name(model: &str) -> &str {
    if model.starts_with('/') {
        model
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(model)
    } else {
        model
    }
}

/// Whether an error message is about tools (`tools`, `tool_choice`, "tool calls" …).
fn mentions_tools(message: &str) -> bool {
    message.to_ascii_lowercase().contains("tool")
}

/// `2 s`, `0.5 s`.
fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{secs:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_at_connect() {
        let options = ModelOptions::default();
        let backend = connect("http://127.0.0.1:8080/v1/", &options).unwrap();
        assert_eq!(backend.base, "http://127.0.0.1:8080/v1");
        assert_eq!(backend.info().name, "http://127.0.0.1:8080/v1 (auto)");
        let err = connect("https://example.invalid/v1", &options)
            .err()
            .unwrap();
        assert!(err.to_string().contains("TLS"), "{err}");
        assert!(connect("ftp://x/v1", &options).is_err());
        assert!(connect("not a url", &options).is_err());
        let named = ModelOptions {
            model_name: Some("gemma".into()),
            ..ModelOptions::default()
        };
        let backend = connect("http://127.0.0.1:8080/v1", &named)
            .unwrap()
            .with_mode(CallMode::Schema);
        assert_eq!(
            backend.info().name,
            "http://127.0.0.1:8080/v1 (gemma, json_schema)"
        );
    }

    #[test]
    fn seconds_read_well() {
        assert_eq!(seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(short_model_name("/m/gemma.gguf"), "gemma.gguf");
        assert_eq!(short_model_name("Qwen/Qwen3-0.6B"), "Qwen/Qwen3-0.6B");
    }
}
