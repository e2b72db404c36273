//! `aipc bench tui`: how fast the TUI takes in log lines and how long a frame takes while a
//! command streams a million of them. Synthetic `tool_output` events go through the same path
//! as live ones — [`live::ingest`] in slices, [`TuiState::apply`] into the spilling log buffer,
//! and a frame drawn at most every [`live::FRAME`] with the log following — into a ratatui
//! `TestBackend`, so the figures measure aipc's work, not a terminal emulator's.
//!
//! Targets (from issue 4): ingest ≥ 200,000 lines/s, p99 frame ≤ 16 ms, log memory ≤ 64 MiB.

use crate::protocol::{Event, EventEnvelope, OutputStream, Policy};
use crate::tui::app::App;
use crate::tui::live::{self, FRAME, INGEST_SLICE};
use crate::tui::logbuf::{LogBuf, DEFAULT_MEMORY_CAP};
use crate::tui::source::{EventSource, Poll, SourceItem};
use crate::tui::state::TuiState;
use crate::tui::views::{self, layout::Pane};
use anyhow::Context as _;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde::Serialize;
use std::time::Instant;

pub const TARGET_LINES_PER_S: f64 = 200_000.0;
pub const TARGET_P99_MS: f64 = 16.0;
pub const TARGET_MEMORY_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct BenchConfig {
    pub lines: u64,
    pub width: u16,
    pub height: u16,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub lines: u64,
    pub width: u16,
    pub height: u16,
    pub seconds: f64,
    /// Lines per second over the whole run, frames included.
    pub lines_per_s: f64,
    /// Lines per second of applying alone (frame time left out).
    pub apply_lines_per_s: f64,
    pub frames: usize,
    pub frame_p50_ms: f64,
    pub frame_p99_ms: f64,
    pub frame_max_ms: f64,
    pub log_memory_bytes: usize,
    pub spilled_bytes: u64,
    /// Searching from the end back to the first line (read from the spill file).
    pub search_to_start_ms: f64,
    /// `debug` or `release`: figures of a debug build are not the product's.
    pub build: String,
}

impl BenchReport {
    pub fn to_text(&self) -> String {
        let mark = |ok: bool| if ok { "✔" } else { "✘" };
        let mib = |b: f64| b / (1024.0 * 1024.0);
        format!(
            "aipc bench tui ({} build): {} log lines through TuiState + views into a {}x{} TestBackend in {:.2} s\n\
             \x20 ingest      {:>12.0} lines/s   (apply alone {:.0} lines/s)   target ≥ {:.0}  {}\n\
             \x20 frames      {:>12} drawn     p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms   target p99 ≤ {:.0} ms  {}\n\
             \x20 log memory  {:>12.1} MiB       target ≤ {:.0} MiB  {}\n\
             \x20 spilled     {:>12.1} MiB to {}\n\
             \x20 search      {:>12.1} ms        from the last line back to the first\n",
            self.build,
            self.lines,
            self.width,
            self.height,
            self.seconds,
            self.lines_per_s,
            self.apply_lines_per_s,
            TARGET_LINES_PER_S,
            mark(self.lines_per_s >= TARGET_LINES_PER_S),
            self.frames,
            self.frame_p50_ms,
            self.frame_p99_ms,
            self.frame_max_ms,
            TARGET_P99_MS,
            mark(self.frame_p99_ms <= TARGET_P99_MS),
            mib(self.log_memory_bytes as f64),
            mib(TARGET_MEMORY_BYTES as f64),
            mark(self.log_memory_bytes <= TARGET_MEMORY_BYTES),
            mib(self.spilled_bytes as f64),
            crate::tui::LOG_SPILL_FILE,
            self.search_to_start_ms,
        )
    }
}

/// Synthetic toolchain output: compiler progress, coloured test results, warnings.
struct Synthetic {
    next: u64,
    lines: u64,
    prologue: std::collections::VecDeque<Event>,
    seq: u64,
}

impl Synthetic {
    fn new(lines: u64) -> Self {
        let prologue = [
            Event::SessionStarted {
                session_id: "bench".into(),
                project: "bench".into(),
                target: "bench".into(),
                model: "scripted".into(),
                worktree: "/nonexistent".into(),
                branch: "aipc/bench".into(),
                base_commit: "0".repeat(40),
                batch: false,
                stages: vec!["build".into()],
                context_size: 8192,
                token_budget: 200_000,
                wall_time_s: 1800,
            },
            Event::StageStarted {
                stage: "build".into(),
                index: 0,
                goal: "Build it.".into(),
                max_attempts: 3,
            },
            Event::AttemptStarted {
                stage: "build".into(),
                attempt: 1,
                max_attempts: 3,
            },
            Event::ToolCallProposed {
                call_id: "build.1".into(),
                tool: "run".into(),
                args: serde_json::json!({"command": "make -j2"}),
                thought: None,
                policy: Policy::Allow,
            },
            Event::ToolCallStarted {
                call_id: "build.1".into(),
                tool: "run".into(),
            },
        ]
        .into_iter()
        .collect();
        Synthetic {
            next: 0,
            lines,
            prologue,
            seq: 0,
        }
    }

    fn line(i: u64) -> String {
        match i % 4 {
            0 => format!(
                "[{:3}%] Building CXX object src/kernels/CMakeFiles/ops.dir/conv_{i}.cpp.o",
                i % 100
            ),
            1 => format!(
                "\x1b[32mPASSED\x1b[0m tests/test_export.py::test_layer_{i} \x1b[2m(0.01s)\x1b[0m"
            ),
            2 => format!(
                "warning: unused variable `tmp_{i}` [-Wunused-variable] in src/runtime/graph.cc:{}",
                i % 997
            ),
            _ => format!(
                "INFO:onnxruntime: node /layers.{}/Gemm_{i} assigned to CPUExecutionProvider",
                i % 12
            ),
        }
    }
}

impl EventSource for Synthetic {
    fn poll(&mut self) -> Poll {
        let event = if let Some(event) = self.prologue.pop_front() {
            event
        } else if self.next < self.lines {
            let line = Self::line(self.next);
            self.next += 1;
            Event::ToolOutput {
                call_id: "build.1".into(),
                stream: if self.next.is_multiple_of(10) {
                    OutputStream::Stderr
                } else {
                    OutputStream::Stdout
                },
                line,
            }
        } else {
            return Poll::Closed;
        };
        self.seq += 1;
        Poll::Item(SourceItem::Event(EventEnvelope {
            seq: self.seq - 1,
            ts_ms: 1_764_000_000_000 + self.seq / 1000,
            event,
        }))
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Run the benchmark; the spill file goes to a temporary folder that is removed afterwards.
pub fn run(config: &BenchConfig) -> anyhow::Result<BenchReport> {
    let dir = std::env::temp_dir().join(format!("aipc-bench-tui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let result = run_in(config, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(config: &BenchConfig, dir: &std::path::Path) -> anyhow::Result<BenchReport> {
    let log = LogBuf::new(
        Some(dir.join(crate::tui::LOG_SPILL_FILE)),
        DEFAULT_MEMORY_CAP,
    );
    let mut state = TuiState::new(log);
    let mut app = App::new(false);
    app.focus = Pane::Log;
    let mut terminal = Terminal::new(TestBackend::new(config.width, config.height))
        .context("cannot create the test terminal")?;
    let mut source = Synthetic::new(config.lines);
    let mut frames: Vec<f64> = Vec::new();
    let mut last_draw: Option<Instant> = None;
    let started = Instant::now();
    loop {
        let (_, _, closed) = live::ingest(&mut source, &mut state, INGEST_SLICE);
        let due = last_draw.is_none_or(|t| t.elapsed() >= FRAME);
        if due || closed {
            let frame_start = Instant::now();
            app.prepare(&state);
            let mut info = views::DrawInfo::default();
            terminal
                .draw(|frame| info = views::draw(frame, &state, &app, state.last_ts))
                .context("cannot draw")?;
            app.areas = info.areas;
            frames.push(frame_start.elapsed().as_secs_f64() * 1000.0);
            last_draw = Some(Instant::now());
        }
        if closed {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let frame_total: f64 = frames.iter().sum::<f64>() / 1000.0;
    let search_started = Instant::now();
    let found = state
        .log
        .find("conv_0.cpp.o", state.log.len().saturating_sub(1), false);
    let search_to_start_ms = search_started.elapsed().as_secs_f64() * 1000.0;
    if config.lines > 0 && found.is_none() {
        anyhow::bail!("the first line was not found again: the log buffer lost it");
    }
    let mut sorted = frames.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let lines = config.lines;
    let per_s = |secs: f64| if secs > 0.0 { lines as f64 / secs } else { 0.0 };
    Ok(BenchReport {
        lines,
        width: config.width,
        height: config.height,
        seconds,
        lines_per_s: per_s(seconds),
        apply_lines_per_s: per_s((seconds - frame_total).max(f64::EPSILON)),
        frames: frames.len(),
        frame_p50_ms: percentile(&sorted, 0.50),
        frame_p99_ms: percentile(&sorted, 0.99),
        frame_max_ms: sorted.last().copied().unwrap_or(0.0),
        log_memory_bytes: state.log.memory_bytes(),
        spilled_bytes: state.log.spilled_bytes(),
        search_to_start_ms,
        build: if cfg!(debug_assertions) {
            "debug".to_string()
        } else {
            "release".to_string()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_run_reports_every_figure() {
        let report = run(&BenchConfig {
            lines: 20_000,
            width: 100,
            height: 30,
        })
        .unwrap();
        assert_eq!(report.lines, 20_000);
        assert!(report.frames >= 1);
        assert!(report.log_memory_bytes > 0);
        assert!(report.to_text().contains("lines/s"));
    }
}
