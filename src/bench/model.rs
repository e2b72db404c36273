//! `aipc bench model`: how fast the in-process backend runs a GGUF on this machine, measured
//! against itself and (given a `llama-bench` binary) against llama.cpp's own benchmark on the
//! same file and threads, all in the same run so the ratios hold on a noisy shared machine.
//!
//! The reference is, by default, the llama-bench that `scripts/build-llama-server.sh` builds
//! from the same llama.cpp tree and CPU flags as the in-process library
//! ([`same_version_llama_bench`]). Both are measured in paired rounds (llama-bench, then ours,
//! `repetitions` times) and the reported ratio is the median of the rounds' ratios: on a shared
//! machine whose speed drifts by tens of percent within minutes, only measurements taken at the
//! same moment compare.
//!
//! Figures: prompt processing (tokens/s, cold cache), decode unconstrained and under the
//! tool-call constraint (tokens/s), and the prefill ratio of a later turn with KV reuse (tokens
//! evaluated ÷ tokens new in that turn; 1.0 is ideal) next to the same turn without reuse.

use crate::conversation::{call_schema, OfferedTool};
use crate::model::llama::LlamaCppBackend;
use crate::model::{Message, ModelError, ModelOptions, ModelRequest, Role};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    pub model: PathBuf,
    pub prompts_dir: PathBuf,
    pub threads: u32,
    /// Tokens of the synthetic prompt (llama-bench's `-p`).
    pub prompt_tokens: u32,
    /// Tokens to decode (llama-bench's `-n`).
    pub decode_tokens: u32,
    /// Repetitions; the median is reported.
    pub repetitions: u32,
    pub llama_bench: Option<PathBuf>,
}

/// The figures, as printed with `--json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BenchReport {
    pub model: String,
    pub threads: u32,
    pub prompt_tps: f64,
    pub decode_tps: f64,
    /// Decode inside a real turn (prompt format, sampling, text pieces), unconstrained.
    pub turn_decode_tps: f64,
    /// The same turn under the tool-call constraint.
    pub constrained_decode_tps: f64,
    /// constrained ÷ unconstrained decode speed, both in a real turn.
    pub constrained_ratio: f64,
    /// Later turn with KV reuse: tokens evaluated ÷ tokens new.
    pub turn_prefill_ratio: f64,
    /// The same turn without reuse: tokens evaluated ÷ tokens new.
    pub turn_prefill_ratio_without_reuse: f64,
    /// This binary: version, commit, profile, target CPU.
    pub build: String,
    /// The llama-bench compared against, and how it was built (its BUILD file).
    pub llama_bench: Option<String>,
    pub llama_bench_build: Option<String>,
    pub llama_bench_prompt_tps: Option<f64>,
    pub llama_bench_decode_tps: Option<f64>,
    /// ours ÷ llama-bench: the median of the paired rounds' ratios.
    pub prompt_vs_llama_bench: Option<f64>,
    pub decode_vs_llama_bench: Option<f64>,
    /// Each paired round's ratio (the spread behind the medians).
    pub prompt_ratios: Vec<f64>,
    pub decode_ratios: Vec<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("llama-bench: {0}")]
    LlamaBench(String),
}

/// Run every measurement.
pub async fn run(
    config: &BenchConfig,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchReport, BenchError> {
    let options = ModelOptions {
        context_size: (config.prompt_tokens + config.decode_tokens + 1024).max(4096),
        threads: Some(config.threads),
        ..ModelOptions::default()
    };
    progress("loading the model");
    let mut model = LlamaCppBackend::load(&config.model, &config.prompts_dir, &options, true)?;
    let filler = filler_text(config.prompt_tokens as usize);
    // The first run warms up (graph allocation, page faults), as llama-bench's warm-up does.
    model.speed(&filler, config.prompt_tokens, config.decode_tokens)?;

    // Paired rounds: llama-bench (one repetition after its own warm-up), then ours, round after
    // round, so that both see the same moment of a shared machine; the ratio is the median of
    // the rounds' ratios.
    progress("prompt processing and decode (fixed token counts, like llama-bench), paired rounds");
    let mut prompt_rates = Vec::new();
    let mut decode_rates = Vec::new();
    let mut reference_rates = Vec::new();
    for round in 0..config.repetitions {
        if let Some(binary) = &config.llama_bench {
            progress(&format!(
                "round {}/{}: llama-bench on the same file and threads",
                round + 1,
                config.repetitions
            ));
            reference_rates.push(llama_bench(binary, config)?);
        }
        let speed = model.speed(&filler, config.prompt_tokens, config.decode_tokens)?;
        prompt_rates.push(speed.prompt_tokens as f64 / (speed.prefill_ms / 1000.0));
        decode_rates.push(speed.decode_tokens as f64 / (speed.decode_ms / 1000.0));
    }
    let paired = |ours: &[f64], pick: fn(&(f64, f64)) -> f64| -> Vec<f64> {
        ours.iter()
            .zip(&reference_rates)
            .map(|(o, r)| o / pick(r))
            .collect()
    };
    let prompt_ratios = paired(&prompt_rates, |r| r.0);
    let decode_ratios = paired(&decode_rates, |r| r.1);
    let prompt_vs_llama_bench =
        (!prompt_ratios.is_empty()).then(|| median(&mut prompt_ratios.clone()));
    let decode_vs_llama_bench =
        (!decode_ratios.is_empty()).then(|| median(&mut decode_ratios.clone()));
    let reference = (!reference_rates.is_empty()).then(|| {
        let mut prompts: Vec<f64> = reference_rates.iter().map(|r| r.0).collect();
        let mut decodes: Vec<f64> = reference_rates.iter().map(|r| r.1).collect();
        (median(&mut prompts), median(&mut decodes))
    });

    progress("decode in a real turn, unconstrained");
    let mut turn_rates = Vec::new();
    for _ in 0..config.repetitions {
        model.reset();
        let request = plain_request(&filler, config.decode_tokens);
        let stats = model.generate(&request, None, &mut |_| {}).await?;
        turn_rates.push(rate(stats.completion_tokens, stats.decode_ms));
    }

    progress("decode under the tool-call constraint");
    let schema = bench_call_schema();
    let mut constrained_rates = Vec::new();
    for _ in 0..config.repetitions {
        model.reset();
        let request = tool_request(&filler, config.decode_tokens);
        let stats = model
            .generate(&request, Some(schema.clone()), &mut |_| {})
            .await?;
        constrained_rates.push(rate(stats.completion_tokens, stats.decode_ms));
    }

    progress("a later turn, with and without KV reuse");
    let with_reuse = turn_ratio(&mut model, &filler, &schema).await?;
    drop(model);
    let mut fresh = LlamaCppBackend::load(&config.model, &config.prompts_dir, &options, false)?;
    let without_reuse = turn_ratio(&mut fresh, &filler, &schema).await?;

    let prompt_tps = median(&mut prompt_rates);
    let decode_tps = median(&mut decode_rates);
    let turn_decode_tps = median(&mut turn_rates);
    let constrained_decode_tps = median(&mut constrained_rates);
    let (llama_bench_prompt_tps, llama_bench_decode_tps) = match reference {
        Some((p, d)) => (Some(p), Some(d)),
        None => (None, None),
    };
    let llama_bench_build = config.llama_bench.as_ref().and_then(|binary| {
        let build_file = binary.parent()?.parent()?.join("BUILD");
        std::fs::read_to_string(build_file)
            .ok()
            .map(|text| text.lines().collect::<Vec<_>>().join("; "))
    });
    Ok(BenchReport {
        build: crate::build_info::one_line(),
        llama_bench: config.llama_bench.as_ref().map(|p| p.display().to_string()),
        llama_bench_build,
        model: config.model.display().to_string(),
        threads: config.threads,
        prompt_tps,
        decode_tps,
        turn_decode_tps,
        constrained_decode_tps,
        constrained_ratio: constrained_decode_tps / turn_decode_tps,
        turn_prefill_ratio: with_reuse,
        turn_prefill_ratio_without_reuse: without_reuse,
        prompt_vs_llama_bench,
        decode_vs_llama_bench,
        prompt_ratios,
        decode_ratios,
        llama_bench_prompt_tps,
        llama_bench_decode_tps,
    })
}

/// Where `scripts/build-llama-server.sh` installs the llama-bench built from the same llama.cpp
/// tree (llama-cpp-sys-2's) and target CPU as this binary.
pub fn same_version_llama_bench() -> PathBuf {
    crate::model::store::cache_dir()
        .join("llama.cpp")
        .join(format!(
            "llama-cpp-sys-2-{}-{}",
            crate::build_info::LLAMA_CPP_SYS,
            crate::build_info::TARGET_CPU
        ))
        .join("bin/llama-bench")
}

impl BenchReport {
    /// The human-readable table.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{}\nmodel {} on {} threads\n",
            self.build, self.model, self.threads
        );
        if let Some(binary) = &self.llama_bench {
            out.push_str(&format!(
                "reference {binary} ({})\n",
                self.llama_bench_build.as_deref().unwrap_or("build unknown")
            ));
        }
        let vs = |ours: f64, theirs: Option<f64>, ratio: Option<f64>| {
            match (theirs, ratio) {
            (Some(t), Some(r)) => format!(
                "{ours:>8.1} tok/s   llama-bench {t:>8.1} tok/s   ratio {r:.2} (median of paired rounds)"
            ),
            _ => format!("{ours:>8.1} tok/s"),
        }
        };
        out.push_str(&format!(
            "prompt processing    {}\n",
            vs(
                self.prompt_tps,
                self.llama_bench_prompt_tps,
                self.prompt_vs_llama_bench
            )
        ));
        out.push_str(&format!(
            "decode               {}\n",
            vs(
                self.decode_tps,
                self.llama_bench_decode_tps,
                self.decode_vs_llama_bench
            )
        ));
        out.push_str(&format!(
            "turn decode          {:>8.1} tok/s   constrained {:.1} tok/s   ratio {:.2}\n",
            self.turn_decode_tps, self.constrained_decode_tps, self.constrained_ratio
        ));
        out.push_str(&format!(
            "later turn prefill   {:.2} tokens evaluated per new token with KV reuse ({:.2} without)\n",
            self.turn_prefill_ratio, self.turn_prefill_ratio_without_reuse
        ));
        out
    }
}

fn rate(tokens: u64, ms: u64) -> f64 {
    tokens as f64 / (ms.max(1) as f64 / 1000.0)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Deterministic prose of more than `tokens` tokens (cut to size by the caller).
fn filler_text(tokens: usize) -> String {
    const SENTENCE: &str = "The exporter writes each layer of the network to the artifact in order, and the runtime reads them back. ";
    let mut text = String::new();
    while text.len() < tokens * 8 {
        text.push_str(SENTENCE);
    }
    text
}

fn plain_request(text: &str, max_tokens: u32) -> ModelRequest {
    ModelRequest {
        messages: vec![
            Message::new(Role::System, "Continue the text."),
            Message::new(Role::User, text),
        ],
        call_schema: serde_json::Value::Null,
        max_tokens,
    }
}

fn tool_request(text: &str, max_tokens: u32) -> ModelRequest {
    ModelRequest {
        messages: vec![
            Message::new(Role::System, "Reply with one tool call as JSON."),
            Message::new(Role::User, text),
        ],
        call_schema: bench_call_schema(),
        max_tokens,
    }
}

/// A realistic constraint: the engine's own schema over the file tools.
fn bench_call_schema() -> serde_json::Value {
    let tools: Vec<OfferedTool> = ["read_file", "edit_file", "run", "finish_stage"]
        .iter()
        .filter_map(|name| crate::tools::spec(name))
        .map(OfferedTool::from)
        .collect();
    call_schema(&tools)
}

/// Three turns of a conversation; for the third, tokens evaluated ÷ tokens new (the prompt's
/// tokens beyond the previous turn's prompt and reply).
async fn turn_ratio(
    model: &mut LlamaCppBackend,
    filler: &str,
    schema: &serde_json::Value,
) -> Result<f64, ModelError> {
    model.reset();
    let mut request = tool_request(&filler[..filler.len().min(2000)], 96);
    let mut known = 0u64;
    let mut ratio = 0.0;
    for turn in 0..3 {
        let stats = model
            .generate(&request, Some(schema.clone()), &mut |_| {})
            .await?;
        let new_tokens = stats.prompt_tokens.saturating_sub(known).max(1);
        ratio = stats.evaluated_tokens as f64 / new_tokens as f64;
        known = stats.prompt_tokens + stats.completion_tokens;
        request
            .messages
            .push(Message::new(Role::Assistant, stats.text.clone()));
        request.messages.push(Message::new(
            Role::Tool,
            format!(
                "[read_file ok]\nturn {turn}: model.py: lines 1-40 of 40\n{}",
                &filler[..filler.len().min(400)]
            ),
        ));
    }
    Ok(ratio)
}

/// Run llama-bench once (`-r 1`, after its own warm-up run; `-o json`) and return its
/// (prompt, decode) tokens/s.
fn llama_bench(binary: &Path, config: &BenchConfig) -> Result<(f64, f64), BenchError> {
    let output = Command::new(binary)
        .arg("-m")
        .arg(&config.model)
        .args(["-t", &config.threads.to_string()])
        .args(["-p", &config.prompt_tokens.to_string()])
        .args(["-n", &config.decode_tokens.to_string()])
        .args(["-r", "1"])
        .args(["-o", "json"])
        .output()
        .map_err(|e| BenchError::LlamaBench(format!("cannot run {}: {e}", binary.display())))?;
    if !output.status.success() {
        return Err(BenchError::LlamaBench(format!(
            "{} failed ({}): {}",
            binary.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or_default()
        )));
    }
    parse_llama_bench(&String::from_utf8_lossy(&output.stdout))
}

/// llama-bench's JSON: a list of runs, each with `n_prompt`, `n_gen` and `avg_ts`.
pub fn parse_llama_bench(json: &str) -> Result<(f64, f64), BenchError> {
    let runs: Vec<serde_json::Value> = serde_json::from_str(json)
        .map_err(|e| BenchError::LlamaBench(format!("output is not the expected JSON: {e}")))?;
    let mut prompt = None;
    let mut decode = None;
    for run in &runs {
        let n_prompt = run["n_prompt"].as_u64().unwrap_or(0);
        let n_gen = run["n_gen"].as_u64().unwrap_or(0);
        let Some(avg) = run["avg_ts"].as_f64() else {
            continue;
        };
        if n_prompt > 0 && n_gen == 0 {
            prompt = Some(avg);
        } else if n_gen > 0 && n_prompt == 0 {
            decode = Some(avg);
        }
    }
    match (prompt, decode) {
        (Some(p), Some(d)) => Ok((p, d)),
        _ => Err(BenchError::LlamaBench(
            "no prompt and decode runs in its output".to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_llama_bench_json() {
        let json = r#"[{"n_prompt": 512, "n_gen": 0, "avg_ts": 974.2},
                       {"n_prompt": 0, "n_gen": 128, "avg_ts": 95.1}]"#;
        assert_eq!(parse_llama_bench(json).unwrap(), (974.2, 95.1));
        assert!(parse_llama_bench("[]").is_err());
        assert!(parse_llama_bench("garbage").is_err());
    }

    #[test]
    fn median_and_rate() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(rate(100, 500), 200.0);
        assert_eq!(rate(5, 0), 5000.0);
    }
}
