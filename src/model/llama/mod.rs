//! The in-process llama.cpp backend (`llama-cpp-2` with llguidance): the default way aipc runs
//! a model, offline, on the CPU. The model lives on its own thread ([`worker`]); this side
//! forwards requests and streams deltas back without blocking tokio. Replies are constrained to
//! the stage's tool-call schema, so even a 270M base model always emits a valid call.

pub mod format;
pub mod worker;

use super::{ModelBackend, ModelError, ModelInfo, ModelOptions, ModelReply, ModelRequest};
use async_trait::async_trait;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc as std_mpsc, Arc};
use tokio::sync::mpsc;
use worker::{Job, Loaded, ReplyStats, SpeedStats, WorkerConfig, WorkerEvent};

/// Threads to decode with when the caller does not say: every core the process may use.
pub fn default_threads() -> u32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(2)
}

pub struct LlamaCppBackend {
    jobs: std_mpsc::Sender<Job>,
    thread: Option<std::thread::JoinHandle<()>>,
    info: ModelInfo,
    loaded: Loaded,
    /// The last reply's accounting (benchmarks read it).
    last: Option<ReplyStats>,
}

impl LlamaCppBackend {
    /// Load the GGUF at `path` on a new model thread. `prompts_dir` holds the base-model format.
    pub fn load(
        path: &Path,
        prompts_dir: &Path,
        options: &ModelOptions,
        reuse_kv: bool,
    ) -> Result<Self, ModelError> {
        // Read the header first: llama.cpp must never see a file that is not a whole GGUF.
        crate::model::gguf::read_info(path).map_err(|e| ModelError::Setup(e.to_string()))?;
        let config = WorkerConfig {
            model_path: path.to_path_buf(),
            prompts_dir: prompts_dir.to_path_buf(),
            context_size: options.context_size,
            threads: options.threads.unwrap_or_else(default_threads),
            seed: options.seed,
            temperature: options.temperature,
            reuse_kv,
        };
        let (jobs, loaded, thread) = worker::spawn(config)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(LlamaCppBackend {
            jobs,
            thread: Some(thread),
            info: ModelInfo {
                name,
                context_size: loaded.context_size,
            },
            loaded,
            last: None,
        })
    }

    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    pub fn last_stats(&self) -> Option<&ReplyStats> {
        self.last.as_ref()
    }

    /// Forget the KV cache (the next turn is evaluated from scratch).
    pub fn reset(&self) {
        let _ = self.jobs.send(Job::Reset);
    }

    /// Raw prompt-processing and decode speed, measured the way llama-bench does (fixed token
    /// counts, empty cache, no early stop). Blocks the caller's thread until done.
    pub fn speed(
        &self,
        text: &str,
        prompt_tokens: u32,
        decode_tokens: u32,
    ) -> Result<SpeedStats, ModelError> {
        let (reply, result) = std_mpsc::channel();
        self.jobs
            .send(Job::Speed {
                text: text.to_string(),
                prompt_tokens,
                decode_tokens,
                reply,
            })
            .map_err(|_| ModelError::Backend("the model thread has stopped".to_string()))?;
        result.recv().map_err(|_| {
            ModelError::Backend("the model thread ended during a request".to_string())
        })?
    }

    /// One completion; `schema: None` decodes without a constraint (benchmarks).
    pub async fn generate(
        &mut self,
        request: &ModelRequest,
        schema: Option<serde_json::Value>,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ReplyStats, ModelError> {
        let (events, mut event_rx) = mpsc::unbounded_channel();
        let cancel = Arc::new(AtomicBool::new(false));
        // If this future is dropped (the engine cancelled the turn), the worker stops too.
        let _stop_on_drop = CancelOnDrop(cancel.clone());
        self.jobs
            .send(Job::Complete {
                messages: request.messages.clone(),
                schema,
                max_tokens: request.max_tokens,
                events,
                cancel,
            })
            .map_err(|_| ModelError::Backend("the model thread has stopped".to_string()))?;
        while let Some(event) = event_rx.recv().await {
            match event {
                WorkerEvent::Delta(text) => on_delta(&text),
                WorkerEvent::Done(stats) => {
                    self.last = Some(stats.clone());
                    return Ok(stats);
                }
                WorkerEvent::Failed(e) => return Err(e),
            }
        }
        Err(ModelError::Backend(
            "the model thread ended during a request".to_string(),
        ))
    }
}

struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Drop for LlamaCppBackend {
    fn drop(&mut self) {
        let _ = self.jobs.send(Job::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[async_trait]
impl ModelBackend for LlamaCppBackend {
    fn info(&self) -> ModelInfo {
        self.info.clone()
    }

    async fn complete(
        &mut self,
        request: &ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ModelReply, ModelError> {
        let started = std::time::Instant::now();
        let stats = self
            .generate(request, Some(request.call_schema.clone()), on_delta)
            .await?;
        Ok(ModelReply {
            text: stats.text,
            prompt_tokens: stats.prompt_tokens,
            completion_tokens: stats.completion_tokens,
            cached_tokens: stats.reused_tokens,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }
}
