//! The model thread: one OS thread owns the llama.cpp model, its context and the llguidance
//! token environment for their whole life; jobs come in over a channel, token deltas and the
//! result go back over the job's own channel. Nothing here blocks the tokio side.
//!
//! Per job: render the prompt, build its tokens (appending to the previous turn's tokens when
//! the text extends it), keep the longest common prefix in the KV cache, decode only the new
//! suffix, then sample under the llguidance constraint until the JSON is complete.

use super::format::PromptFormat;
use crate::model::{Message, ModelError};
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc as std_mpsc, Arc, OnceLock};
use std::time::Instant;
use tokio::sync::mpsc;

/// Tokens decoded per `llama_decode` call during prefill.
const N_BATCH: usize = 512;

/// Gemma's `<start_of_turn>`: a base model sometimes opens a new turn instead of ending.
const GEMMA_START_OF_TURN: i32 = 105;

/// What the worker is configured with.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub model_path: PathBuf,
    pub prompts_dir: PathBuf,
    pub context_size: u32,
    pub threads: u32,
    pub seed: u32,
    pub temperature: f32,
    /// Keep the common token prefix in the KV cache between turns.
    pub reuse_kv: bool,
}

/// What the worker reports once the model is loaded.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub context_size: u32,
    pub chat_template: bool,
    pub load_ms: u64,
    pub constraint_setup_ms: u64,
}

/// A request to the worker.
pub enum Job {
    Complete {
        messages: Vec<Message>,
        /// The reply's JSON schema; `None` decodes unconstrained (benchmarks).
        schema: Option<serde_json::Value>,
        max_tokens: u32,
        events: mpsc::UnboundedSender<WorkerEvent>,
        cancel: Arc<AtomicBool>,
    },
    /// Drop the KV cache and the remembered tokens (benchmarks: a cold turn).
    Reset,
    /// Raw speed, measured like llama-bench: decode `prompt_tokens` tokens of `text` from an
    /// empty cache, then `decode_tokens` single-token decodes (no sampling, as llama-bench's tg).
    Speed {
        text: String,
        prompt_tokens: u32,
        decode_tokens: u32,
        reply: std_mpsc::Sender<Result<SpeedStats, ModelError>>,
    },
    Shutdown,
}

/// Accounting for one reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplyStats {
    pub text: String,
    pub prompt_tokens: u64,
    /// Prompt tokens served from the KV cache.
    pub reused_tokens: u64,
    /// Prompt tokens decoded for this turn.
    pub evaluated_tokens: u64,
    pub completion_tokens: u64,
    pub prefill_ms: u64,
    pub decode_ms: u64,
}

/// Raw prompt and decode timings (see [`Job::Speed`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedStats {
    pub prompt_tokens: u64,
    pub prefill_ms: f64,
    pub decode_tokens: u64,
    pub decode_ms: f64,
}

pub enum WorkerEvent {
    Delta(String),
    Done(ReplyStats),
    Failed(ModelError),
}

/// The process-wide llama.cpp backend (it may be initialised only once per process).
fn backend() -> Result<&'static LlamaBackend, ModelError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // Before anything logs: llama.cpp would otherwise write over the terminal.
            llama_cpp_2::send_logs_to_tracing(
                llama_cpp_2::LogOptions::default().with_logs_enabled(false),
            );
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| ModelError::Setup(format!("llama.cpp backend: {e}")))
}

/// Start the model thread; returns once the model is loaded (or failed to load).
pub fn spawn(
    config: WorkerConfig,
) -> Result<(std_mpsc::Sender<Job>, Loaded, std::thread::JoinHandle<()>), ModelError> {
    let (jobs, job_rx) = std_mpsc::channel::<Job>();
    let (ready_tx, ready_rx) = std_mpsc::channel::<Result<Loaded, ModelError>>();
    let handle = std::thread::Builder::new()
        .name("aipc-model".to_string())
        .spawn(move || run(config, job_rx, ready_tx))
        .map_err(|e| ModelError::Setup(format!("cannot start the model thread: {e}")))?;
    match ready_rx.recv() {
        Ok(Ok(loaded)) => Ok((jobs, loaded, handle)),
        Ok(Err(e)) => {
            let _ = handle.join();
            Err(e)
        }
        Err(_) => {
            let _ = handle.join();
            Err(ModelError::Setup(
                "the model thread ended while loading the model".to_string(),
            ))
        }
    }
}

fn run(
    config: WorkerConfig,
    jobs: std_mpsc::Receiver<Job>,
    ready: std_mpsc::Sender<Result<Loaded, ModelError>>,
) {
    let started = Instant::now();
    let loaded = (|| {
        let backend = backend()?;
        let model =
            LlamaModel::load_from_file(backend, &config.model_path, &LlamaModelParams::default())
                .map_err(|e| {
                ModelError::Setup(format!(
                    "{}: llama.cpp cannot load it: {e}",
                    config.model_path.display()
                ))
            })?;
        let context_size = config.context_size.min(model.n_ctx_train()).max(256);
        let threads = i32::try_from(config.threads.max(1)).unwrap_or(1);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(context_size))
            .with_n_batch(N_BATCH as u32)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let format = PromptFormat::for_model(&model, &config.prompts_dir)?;
        Ok::<_, ModelError>((model, params, context_size, format))
    })();
    let (model, params, context_size, format) = match loaded {
        Ok(parts) => parts,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let load_ms = started.elapsed().as_millis() as u64;
    let backend = match backend() {
        Ok(backend) => backend,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let ctx = match model.new_context(backend, params) {
        Ok(ctx) => ctx,
        Err(e) => {
            let _ = ready.send(Err(ModelError::Setup(format!(
                "cannot create a llama.cpp context of {context_size} tokens: {e}"
            ))));
            return;
        }
    };
    let constraint_started = Instant::now();
    // Built once per model: it walks the whole 262k-token vocabulary.
    let factory =
        match llguidance::ParserFactory::new_simple(&LlamaSampler::llguidance_tok_env(&model)) {
            Ok(factory) => factory,
            Err(e) => {
                let _ = ready.send(Err(ModelError::Setup(format!(
                    "llguidance cannot index this model's vocabulary: {e}"
                ))));
                return;
            }
        };
    let constraint_setup_ms = constraint_started.elapsed().as_millis() as u64;
    let _ = ready.send(Ok(Loaded {
        context_size,
        chat_template: format.is_chat_template(),
        load_ms,
        constraint_setup_ms,
    }));
    let mut session = Session {
        model: &model,
        ctx,
        batch: LlamaBatch::new(N_BATCH, 1),
        format,
        factory,
        config,
        cached_tokens: Vec::new(),
        cached_text: String::new(),
        context_size,
    };
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Complete {
                messages,
                schema,
                max_tokens,
                events,
                cancel,
            } => {
                let result =
                    session.complete(&messages, schema.as_ref(), max_tokens, &events, &cancel);
                if result.is_err() {
                    // The cache may hold half a turn; start clean next time.
                    session.reset();
                }
                let _ = events.send(match result {
                    Ok(stats) => WorkerEvent::Done(stats),
                    Err(e) => WorkerEvent::Failed(e),
                });
            }
            Job::Reset => session.reset(),
            Job::Speed {
                text,
                prompt_tokens,
                decode_tokens,
                reply,
            } => {
                let result = session.speed(&text, prompt_tokens, decode_tokens);
                session.reset();
                let _ = reply.send(result);
            }
            Job::Shutdown => break,
        }
    }
}

/// The model's conversation state on its thread.
struct Session<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    batch: LlamaBatch<'static>,
    format: PromptFormat,
    factory: llguidance::ParserFactory,
    config: WorkerConfig,
    /// The tokens whose keys and values are in the cache (sequence 0), in order.
    cached_tokens: Vec<LlamaToken>,
    /// The text those tokens stand for.
    cached_text: String,
    context_size: u32,
}

impl Session<'_> {
    fn reset(&mut self) {
        self.ctx.clear_kv_cache();
        self.cached_tokens.clear();
        self.cached_text.clear();
    }

    /// The tokens of `text`: when it extends the cached text, the cached tokens (including the
    /// model's own sampled ids) plus the tokens of the new part; otherwise a fresh tokenization.
    fn tokens_for(&self, text: &str) -> Vec<LlamaToken> {
        let vocab = self.model.vocab();
        if !self.cached_text.is_empty() {
            if let Some(rest) = text.strip_prefix(self.cached_text.as_str()) {
                let mut tokens = self.cached_tokens.clone();
                tokens.extend(vocab.tokenize(rest.as_bytes(), false, true));
                return tokens;
            }
        }
        vocab.tokenize(text.as_bytes(), true, true)
    }

    fn complete(
        &mut self,
        messages: &[Message],
        schema: Option<&serde_json::Value>,
        max_tokens: u32,
        events: &mpsc::UnboundedSender<WorkerEvent>,
        cancel: &AtomicBool,
    ) -> Result<ReplyStats, ModelError> {
        let text = self.format.render(self.model, messages)?;
        let tokens = self.tokens_for(&text);
        let needed = tokens.len() + max_tokens as usize;
        if needed > self.context_size as usize {
            return Err(ModelError::ContextOverflow {
                prompt_tokens: tokens.len() as u64,
                max_reply: max_tokens,
                context: self.context_size,
            });
        }
        let mut sampler = self.sampler(schema)?;

        // Keep the common prefix; decode at least one token so there are fresh logits.
        let common = if self.config.reuse_kv {
            self.cached_tokens
                .iter()
                .zip(&tokens)
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            0
        };
        let mut keep = common.min(tokens.len().saturating_sub(1));
        let removed = self
            .ctx
            .clear_kv_cache_seq(Some(0), Some(keep as u32), None)
            .map_err(|e| ModelError::Backend(format!("KV cache: {e}")))?;
        if !removed {
            self.ctx.clear_kv_cache();
            keep = 0;
        }
        // From here on the cache no longer matches what was remembered.
        self.cached_tokens.truncate(keep);
        self.cached_text.clear();

        let prefill_started = Instant::now();
        self.decode(&tokens[keep..], keep)?;
        let prefill_ms = prefill_started.elapsed().as_millis() as u64;
        self.cached_tokens = tokens.clone();

        let decode_started = Instant::now();
        let vocab = self.model.vocab();
        let mut utf8 = encoding_rs::UTF_8.new_decoder();
        let mut piece = Vec::new();
        let mut reply = String::new();
        let mut generated = 0u64;
        for position in tokens.len()..tokens.len() + max_tokens as usize {
            if cancel.load(Ordering::Relaxed) {
                return Err(ModelError::Cancelled);
            }
            // `sample` accepts the token into the constraint itself; never `accept` again.
            let token = sampler.sample(&self.ctx, self.batch.n_tokens() - 1);
            if vocab.is_eog(token) || token.0 == GEMMA_START_OF_TURN {
                break;
            }
            piece.clear();
            vocab.token_to_piece_into(token, &mut piece, false, None);
            let mut text_piece = String::with_capacity(piece.len() + 4);
            let _ = utf8.decode_to_string(&piece, &mut text_piece, false);
            if !text_piece.is_empty() {
                reply.push_str(&text_piece);
                let _ = events.send(WorkerEvent::Delta(text_piece));
            }
            generated += 1;
            self.decode(&[token], position)?;
            self.cached_tokens.push(token);
        }
        let mut tail = String::new();
        let _ = utf8.decode_to_string(&[], &mut tail, true);
        if !tail.is_empty() {
            reply.push_str(&tail);
            let _ = events.send(WorkerEvent::Delta(tail));
        }
        self.cached_text = format!("{text}{reply}");
        Ok(ReplyStats {
            text: reply,
            prompt_tokens: tokens.len() as u64,
            reused_tokens: keep as u64,
            evaluated_tokens: (tokens.len() - keep) as u64,
            completion_tokens: generated,
            prefill_ms,
            decode_ms: decode_started.elapsed().as_millis() as u64,
        })
    }

    fn speed(
        &mut self,
        text: &str,
        prompt_tokens: u32,
        decode_tokens: u32,
    ) -> Result<SpeedStats, ModelError> {
        self.reset();
        let mut tokens = self.model.vocab().tokenize(text.as_bytes(), true, false);
        tokens.truncate(prompt_tokens as usize);
        if tokens.is_empty() {
            return Err(ModelError::Backend(
                "the speed prompt has no tokens".to_string(),
            ));
        }
        let started = Instant::now();
        self.decode(&tokens, 0)?;
        let prefill_ms = started.elapsed().as_secs_f64() * 1000.0;
        // Like llama-bench's tg test: one token per decode, logits for it, no sampling (the
        // tokens fed are the prompt's again; a real turn's sampling cost is measured apart).
        let started = Instant::now();
        for (step, position) in (tokens.len()..tokens.len() + decode_tokens as usize).enumerate() {
            let token = tokens[step % tokens.len()];
            self.decode(&[token], position)?;
        }
        Ok(SpeedStats {
            prompt_tokens: tokens.len() as u64,
            prefill_ms,
            decode_tokens: u64::from(decode_tokens),
            decode_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    /// Greedy (or seeded sampling), under the JSON-schema constraint when there is one.
    fn sampler(&self, schema: Option<&serde_json::Value>) -> Result<LlamaSampler, ModelError> {
        let mut chain = Vec::new();
        if let Some(schema) = schema {
            let grammar = llguidance::api::TopLevelGrammar::from_json_schema(compact(schema));
            let matcher = llguidance::Matcher::new(self.factory.create_parser(grammar));
            if let Some(error) = matcher.get_error() {
                return Err(ModelError::Backend(format!(
                    "the tool-call schema cannot be turned into a constraint: {error}"
                )));
            }
            chain.push(LlamaSampler::from(matcher));
        }
        if self.config.temperature > 0.0 {
            chain.push(LlamaSampler::temp(self.config.temperature));
            chain.push(LlamaSampler::dist(self.config.seed));
        } else {
            chain.push(LlamaSampler::greedy());
        }
        Ok(LlamaSampler::chain_simple(chain))
    }

    /// Decode `tokens` at positions from `start`, logits for the last one only.
    fn decode(&mut self, tokens: &[LlamaToken], start: usize) -> Result<(), ModelError> {
        let last = tokens.len().saturating_sub(1);
        for (chunk_index, chunk) in tokens.chunks(N_BATCH).enumerate() {
            self.batch.clear();
            for (offset, token) in chunk.iter().enumerate() {
                let index = chunk_index * N_BATCH + offset;
                self.batch
                    .add(*token, (start + index) as i32, &[0], index == last)
                    .map_err(|e| ModelError::Backend(format!("batch: {e}")))?;
            }
            self.ctx
                .decode(&mut self.batch)
                .map_err(|e| ModelError::Backend(format!("llama.cpp decode: {e}")))?;
        }
        Ok(())
    }
}

/// `schema` with llguidance told to allow no whitespace but the one space after `,` and `:`
/// (the layout of the prompt's examples). With JSON's free whitespace a small model that closed
/// a string could emit newlines until `max_tokens` and cut its own call (seen with the 270M
/// model: a thought, then 200 tokens of `\n  `).
fn compact(schema: &serde_json::Value) -> serde_json::Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.entry("x-guidance").or_insert_with(|| {
            serde_json::json!({
                "whitespace_flexible": false,
                "item_separator": ", ",
                "key_separator": ": ",
            })
        });
    }
    schema
}
