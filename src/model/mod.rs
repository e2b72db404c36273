//! The model interface: a [`ModelBackend`] takes messages plus the JSON schema of the tool calls
//! the current stage allows, streams text deltas and returns the whole reply with token counts
//! and timings. Backends: [`llama`] (in-process llama.cpp, the default), [`openai`] (an
//! OpenAI-compatible HTTP server such as llama-server, vLLM or Ollama), [`scripted`]
//! (prepared replies from a file, for tests and demos), [`policy`] (no model: the first call
//! the evidence names, DeployBench's `no-model` arm) and [`replay`] (the replies a recorded
//! session got, for `aipc rerun`). Around them: [`gguf`] reads a GGUF
//! file's metadata without loading it, [`describe`] renders it for people, and [`store`] says
//! where models live and fetches the default one.

pub mod describe;
pub mod gguf;
pub(crate) mod gguf_builder;
pub mod llama;
pub mod openai;
pub mod policy;
pub mod recorded_replies;
pub mod scripted;
pub mod store;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Who said a message.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    /// A tool's observation, answering the assistant's previous call.
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
        }
    }
}

/// One request: the conversation so far and the constraint the reply must satisfy.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub messages: Vec<Message>,
    /// JSON schema of a valid reply (one tool call among the stage's allowed tools).
    pub call_schema: serde_json::Value,
    pub max_tokens: u32,
}

/// The whole reply with its accounting.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelReply {
    pub text: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    pub duration_ms: u64,
}

/// What a backend reports about itself (for the session record and the status bar).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModelInfo {
    /// e.g. `scripted:/path/replies.jsonl`, `gemma-3-270m-q4_k_m.gguf`, `http://127.0.0.1:8080/v1 (qwen)`.
    pub name: String,
    pub context_size: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{0}")]
    Setup(String),
    #[error("the scripted model has no reply left for request {request} (it holds {available}); add replies to {file}")]
    ScriptExhausted {
        request: usize,
        available: usize,
        file: PathBuf,
    },
    #[error("model backend failed: {0}")]
    Backend(String),
    #[error("model request cancelled")]
    Cancelled,
    #[error("the prompt has {prompt_tokens} tokens and the reply may need {max_reply}, more than the context of {context}")]
    ContextOverflow {
        prompt_tokens: u64,
        max_reply: u32,
        context: u32,
    },
}

/// A language model the engine can ask for the next tool call.
#[async_trait]
pub trait ModelBackend: Send {
    fn info(&self) -> ModelInfo;

    /// Answer `request`, calling `on_delta` with each piece of text as it is produced.
    async fn complete(
        &mut self,
        request: &ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ModelReply, ModelError>;
}

/// Rough token count for backends that cannot count (about four characters a token).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// [`estimate_tokens`] over every message of a request.
pub fn estimate_prompt_tokens(request: &ModelRequest) -> u64 {
    request
        .messages
        .iter()
        .map(|m| estimate_tokens(&m.content))
        .sum()
}

/// How to run a model, whatever the backend (the CLI fills it from flags).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelOptions {
    /// Context size in tokens (in-process backend).
    pub context_size: u32,
    /// Threads for decoding (in-process backend); `None` picks the default.
    pub threads: Option<u32>,
    /// Seed for sampling when `temperature > 0`.
    pub seed: u32,
    /// 0 means greedy decoding, so runs reproduce.
    pub temperature: f32,
    /// HTTP backend: the model name to request (servers with one model ignore it).
    pub model_name: Option<String>,
    /// HTTP backend: bearer token, if the server wants one.
    pub api_key: Option<String>,
    /// HTTP backend: how long one request may take before it counts as failed.
    pub request_timeout: std::time::Duration,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            context_size: 8192,
            threads: None,
            seed: 42,
            temperature: 0.0,
            model_name: None,
            api_key: None,
            request_timeout: std::time::Duration::from_secs(300),
        }
    }
}

/// Open the backend a `--model` value names: `scripted:<file>`, `replay:<session folder>`,
/// `policy:first-candidate` (no model: the tables' first named call), an `http://host:port/v1`
/// server (`https://` is refused: this build has no TLS), or a GGUF file run in-process
/// (`prompts_dir` holds the base-model prompt format).
pub fn open_backend(
    spec: &str,
    options: &ModelOptions,
    prompts_dir: &std::path::Path,
) -> Result<Box<dyn ModelBackend>, ModelError> {
    if let Some(dir) = spec.strip_prefix("replay:") {
        return Ok(Box::new(recorded_replies::ReplayBackend::open(
            std::path::Path::new(dir),
        )?));
    }
    if spec == policy::SPEC {
        return Ok(Box::new(policy::FirstCandidatePolicy));
    }
    if let Some(file) = spec.strip_prefix("scripted:") {
        return Ok(Box::new(scripted::ScriptedBackend::load(
            std::path::Path::new(file),
        )?));
    }
    if spec.starts_with("http://") || spec.starts_with("https://") {
        return Ok(Box::new(openai::OpenAiBackend::connect(spec, options)?));
    }
    Ok(Box::new(llama::LlamaCppBackend::load(
        std::path::Path::new(spec),
        prompts_dir,
        options,
        true,
    )?))
}
