//! `aipc sessions show <id>`: one session on a page — its meta, how it ended, per stage the
//! outcome, attempts, model turns, tool calls, tokens and time, the checkpoints and artifacts.
//! The per-stage figures are the session report's ([`Report::from_events`]), folded over the
//! events as they count (the discarded work of interrupted stages left out; it is counted
//! separately).

use super::recording::Recording;
use crate::protocol::{Event, EventEnvelope, Outcome};
use crate::report::Report;
use std::fmt::Write as _;

/// The summary of `recording` as data (`aipc sessions show --json`): the session's report,
/// computed from its events as `render_summary` does.
pub fn summary_json(recording: &Recording) -> serde_json::Value {
    let effective: Vec<EventEnvelope> = recording.effective().cloned().collect();
    let finished = recording.finished();
    let report = Report::from_events(
        &effective,
        finished.map(|(o, _)| o).unwrap_or(Outcome::Aborted),
        wall_time_ms(recording.events()),
    );
    let mut value = serde_json::to_value(&report).unwrap_or_default();
    value["finished"] = serde_json::Value::Bool(finished.is_some());
    value
}

/// Render the summary of `recording` as plain text.
pub fn render_summary(recording: &Recording) -> String {
    let effective: Vec<EventEnvelope> = recording.effective().cloned().collect();
    let finished = recording.finished();
    let wall_ms = wall_time_ms(recording.events());
    let report = Report::from_events(
        &effective,
        finished.map(|(o, _)| o).unwrap_or(Outcome::Aborted),
        wall_ms,
    );
    let mut out = String::new();
    let _ = writeln!(out, "session {}", recording.session_id());
    if let Some(paths) = recording.paths() {
        let _ = writeln!(out, "  folder:    {}", paths.dir.display());
    }
    if let Some(meta) = recording.meta() {
        let _ = writeln!(out, "  created:   {}", meta.created);
        let _ = writeln!(out, "  project:   {}", meta.project);
        let _ = writeln!(out, "  target:    {}", meta.target);
        let _ = writeln!(out, "  model:     {}", meta.model);
        let _ = writeln!(
            out,
            "  mode:      {}",
            if meta.batch { "batch" } else { "interactive" }
        );
        let _ = writeln!(
            out,
            "  format:    version {} (aipc {})",
            meta.format_version, meta.aipc_version
        );
    } else {
        let _ = writeln!(out, "  meta.json: missing (facts below come from the log)");
    }
    if !report.branch.is_empty() {
        let _ = writeln!(
            out,
            "  branch:    {} from {}",
            report.branch,
            short(&report.base_commit)
        );
    }
    let status = match finished {
        Some((outcome, code)) => format!("{} (exit {code})", outcome.word()),
        None => "unfinished (interrupted or still running; `aipc resume` continues it)".into(),
    };
    let _ = writeln!(out, "  outcome:   {status}");
    let resumes = recording.index().resumes.len();
    let discarded = (0..recording.len())
        .filter(|&p| recording.is_discarded(p))
        .count();
    if resumes > 0 {
        let _ = writeln!(
            out,
            "  resumed:   {resumes} time(s); {discarded} events of interrupted work discarded"
        );
    }
    let _ = writeln!(
        out,
        "  events:    {}{}",
        recording.len(),
        recording
            .torn_tail()
            .map(|t| format!(" (+ a torn last line of {} bytes)", t.bytes))
            .unwrap_or_default()
    );
    let _ = writeln!(out, "  wall time: {}", seconds(wall_ms));
    let _ = writeln!(
        out,
        "  model:     {} turns ({} invalid), {} prompt + {} completion tokens, {} in the model",
        report.model_turns,
        report.invalid_replies,
        report.prompt_tokens,
        report.completion_tokens,
        seconds(report.model_time_ms)
    );
    let _ = writeln!(
        out,
        "  tools:     {} calls; human interventions: {}",
        report.tool_calls, report.human_interventions
    );
    let mut rows = vec![[
        "STAGE",
        "STATUS",
        "ATTEMPTS",
        "TURNS",
        "CALLS",
        "TOKENS",
        "TIME",
        "CHECKPOINT",
    ]
    .map(String::from)
    .to_vec()];
    for s in &report.stages {
        rows.push(vec![
            s.name.clone(),
            s.status.word().to_string(),
            s.attempts.to_string(),
            s.model_turns.to_string(),
            s.tool_calls.to_string(),
            s.tokens.to_string(),
            seconds(s.duration_ms),
            s.checkpoint.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    let _ = writeln!(out);
    out.push_str(&table(&rows, "  "));
    if !report.artifacts.is_empty() {
        let _ = writeln!(out, "\nartifacts:");
        for a in &report.artifacts {
            let _ = writeln!(
                out,
                "  {} ({} bytes, sha256 {}) from {}",
                a.path,
                a.bytes,
                a.sha256.get(..16).unwrap_or(&a.sha256),
                a.stage
            );
        }
    }
    if let Some(paths) = recording.paths() {
        let mut files = Vec::new();
        for (name, path) in [
            ("report", &paths.report_md),
            ("worktree", &paths.worktree),
            ("logs", &paths.logs),
        ] {
            if path.exists() {
                files.push(format!("  {name}: {}", path.display()));
            }
        }
        if !files.is_empty() {
            let _ = writeln!(out, "\nfiles:\n{}", files.join("\n"));
        }
    }
    if !report.errors.is_empty() {
        let _ = writeln!(out, "\nerrors:");
        for e in &report.errors {
            let _ = writeln!(out, "  {e}");
        }
    }
    out
}

/// Wall time over the run segments (a resumed session: the time before each interruption plus
/// the time after each resume, not the gaps between).
pub fn wall_time_ms(events: &[EventEnvelope]) -> u64 {
    let mut total = 0;
    let mut segment_start: Option<u64> = None;
    let mut last = 0u64;
    for env in events {
        let starts_segment = matches!(
            env.event,
            Event::SessionStarted { .. } | Event::SessionResumed { .. }
        );
        if starts_segment || segment_start.is_none() {
            if let Some(start) = segment_start {
                total += last.saturating_sub(start);
            }
            segment_start = Some(env.ts_ms);
        }
        last = env.ts_ms;
    }
    if let Some(start) = segment_start {
        total += last.saturating_sub(start);
    }
    total
}

/// Plain-text columns, left-aligned, two spaces apart.
fn table(rows: &[Vec<String>], indent: &str) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let mut widths = vec![0usize; columns];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = indent.to_string();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', w - cell.chars().count()));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(seq: u64, ts_ms: u64, event: Event) -> EventEnvelope {
        EventEnvelope { seq, ts_ms, event }
    }

    #[test]
    fn wall_time_skips_the_gap_before_a_resume() {
        let resumed = Event::SessionResumed {
            from_stage: "a".into(),
            from_seq: 0,
            checkpoint: None,
            commit: String::new(),
            previous_head: String::new(),
            repaired_bytes: 0,
        };
        let events = vec![
            env(0, 1_000, Event::Resumed),
            env(1, 3_000, Event::Resumed),
            env(2, 100_000, resumed),
            env(3, 100_500, Event::Resumed),
        ];
        assert_eq!(wall_time_ms(&events), 2_500);
    }
}
