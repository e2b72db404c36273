//! The Markdown transcript of a recorded session: what `aipc replay --batch` prints and
//! `aipc sessions export --format md` writes.
//!
//! One pass over the events, in log order: the session's facts, then per stage and attempt the
//! model turns (thought and tool call), the policy decisions, the tool results (bounded), the
//! file diffs, the checks with their gates and metrics, the evidence, commits, artifacts and
//! checkpoints, the engineer's actions, resumes, and the outcome. Every entry starts with the
//! event's `seq` in brackets, so a line of the transcript leads back to its line in the log (and
//! to `aipc rerun --until <seq>`). Streams of output lines and model deltas are not repeated:
//! the tool's observation and the check's result carry what matters, the log keeps the rest.

use super::recording::Recording;
use super::view::SessionView;
use crate::protocol::{CallStatus, Event, EventEnvelope, FileDiff, GateResult};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How much of the long texts a transcript shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptOptions {
    /// Lines of a tool's observation.
    pub observation_lines: usize,
    /// Lines of one file diff.
    pub diff_lines: usize,
    /// Lines of an evidence excerpt.
    pub excerpt_lines: usize,
    /// Show the messages each model request added (system prompt, task, notes), bounded like
    /// observations; off by default (they repeat the stage goal and the observations).
    pub prompts: bool,
}

impl Default for TranscriptOptions {
    fn default() -> Self {
        TranscriptOptions {
            observation_lines: 20,
            diff_lines: 120,
            excerpt_lines: 15,
            prompts: false,
        }
    }
}

/// Longest line kept in a bounded block; longer ones are cut with an ellipsis.
const MAX_LINE_CHARS: usize = 400;

/// Render the whole recording as Markdown.
pub fn render_markdown(recording: &Recording, options: &TranscriptOptions) -> String {
    let mut r = Renderer {
        out: String::with_capacity(recording.len() * 96 + 1024),
        options,
        view: SessionView::default(),
        stage_count: 0,
    };
    r.header(recording);
    for env in recording.events() {
        r.event(env);
    }
    if recording.finished().is_none() {
        let last = recording
            .events()
            .last()
            .map(|e| format!("{} (`{}`)", e.seq, e.event.kind()))
            .unwrap_or_else(|| "none".to_string());
        let _ = writeln!(
            r.out,
            "\n## Outcome\n\n**unfinished**: the log ends at event {last}; `aipc resume` \
             continues the session from its last checkpoint."
        );
    }
    r.out
}

struct Renderer<'a> {
    out: String,
    options: &'a TranscriptOptions,
    /// The events so far, folded: what a call or check id names, its output lines.
    view: SessionView,
    stage_count: usize,
}

impl Renderer<'_> {
    fn header(&mut self, recording: &Recording) {
        let out = &mut self.out;
        let _ = writeln!(out, "# aipc session {}\n", recording.session_id());
        if let Some(meta) = recording.meta() {
            let _ = writeln!(out, "- created: {}", meta.created);
            let _ = writeln!(out, "- project: {}", meta.project);
            let _ = writeln!(out, "- target: {}", meta.target);
            let _ = writeln!(out, "- model: {}", meta.model);
            let _ = writeln!(
                out,
                "- mode: {}",
                if meta.batch { "batch" } else { "interactive" }
            );
            let _ = writeln!(
                out,
                "- recorded by aipc {} (session format version {})",
                meta.aipc_version, meta.format_version
            );
        }
        if let Some(Event::SessionStarted {
            branch,
            base_commit,
            stages,
            ..
        }) = recording.started().map(|e| &e.event)
        {
            self.stage_count = stages.len();
            let _ = writeln!(out, "- branch: `{branch}` from `{}`", short(base_commit));
            let _ = writeln!(out, "- stages: {}", stages.join(" → "));
        }
        let _ = write!(out, "- events: {}", recording.len());
        if let Some(torn) = recording.torn_tail() {
            let _ = write!(
                out,
                " (a torn last line of {} bytes at line {} is not shown)",
                torn.bytes, torn.line
            );
        }
        let _ = writeln!(out);
    }

    fn event(&mut self, env: &EventEnvelope) {
        self.view.apply(env);
        let seq = env.seq;
        match &env.event {
            Event::SessionStarted { worktree, .. } => {
                let _ = writeln!(self.out, "- worktree: `{worktree}`");
            }
            Event::SessionPolicy {
                sandbox_detail,
                sandbox_chosen_by,
                approve_all,
                toolbox,
                toolbox_digest,
                device,
                ..
            } => {
                let _ = writeln!(
                    self.out,
                    "- sandbox ({sandbox_chosen_by}): {sandbox_detail} `[{seq}]`\n- `ask` calls in batch: {}\n- toolbox `{toolbox}` sealed, sha256 `{}`",
                    if *approve_all { "approved (--approve-all)" } else { "denied" },
                    &toolbox_digest[..toolbox_digest.len().min(16)]
                );
                if !device.is_empty() {
                    let _ = writeln!(self.out, "- device: {device}");
                }
            }
            Event::StageStarted {
                stage, index, goal, ..
            } => {
                let _ = writeln!(
                    self.out,
                    "\n## Stage {}/{}: {stage} `[{seq}]`\n",
                    index + 1,
                    self.stage_count.max(index + 1)
                );
                for line in goal.lines().filter(|l| !l.trim().is_empty()) {
                    let _ = writeln!(self.out, "> {line}");
                }
            }
            Event::AttemptStarted {
                attempt,
                max_attempts,
                ..
            } => {
                let _ = writeln!(self.out, "\n### Attempt {attempt}/{max_attempts}\n");
            }
            Event::ModelRequest {
                request_id,
                new_messages,
                total_messages,
                ..
            } => {
                let roles: Vec<&str> = new_messages.iter().map(|(r, _)| r.as_str()).collect();
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` request {request_id} to the model: {total_messages} messages \
                     ({} new: {})",
                    new_messages.len(),
                    roles.join(", ")
                );
                if self.options.prompts {
                    for (role, content) in new_messages {
                        let _ = writeln!(self.out, "  - {role}:");
                        self.block(content, "", self.options.observation_lines, "  ");
                    }
                }
            }
            Event::ModelResponse {
                request_id,
                prompt_tokens,
                completion_tokens,
                cached_tokens,
                duration_ms,
                ..
            } => {
                let cached = if *cached_tokens > 0 {
                    format!(" ({cached_tokens} cached)")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` model reply {request_id}: {prompt_tokens} prompt{cached} + \
                     {completion_tokens} completion tokens, {duration_ms} ms"
                );
            }
            Event::ModelDelta { .. } | Event::ToolCallStarted { .. } => {}
            Event::Compacted {
                folded,
                chars_before,
                chars_after,
                ..
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` context full: {folded} older tool outputs folded \
                     ({chars_before} → {chars_after} chars)"
                );
            }
            Event::ModelInvalidCall { request_id, error } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` **invalid reply** to request {request_id}: {}",
                    one_line(error)
                );
            }
            Event::ToolCallProposed {
                call_id,
                tool,
                args,
                thought,
                policy,
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` call `{call_id}` **{tool}** (policy {})",
                    format!("{policy:?}").to_lowercase()
                );
                if let Some(thought) = thought.as_deref().filter(|t| !t.is_empty()) {
                    let _ = writeln!(self.out, "  - thought: *{}*", one_line(thought));
                }
                self.args(args);
            }
            Event::ToolCallApproved { by, .. } => {
                let _ = writeln!(self.out, "  - `[{seq}]` approved by {by}");
            }
            Event::ToolCallRejected { reason, by, .. } => {
                let _ = writeln!(
                    self.out,
                    "  - `[{seq}]` **rejected** by {by}: {}",
                    one_line(reason)
                );
            }
            Event::ToolCallEdited { args, .. } => {
                let _ = writeln!(self.out, "  - `[{seq}]` edited by the engineer to:");
                self.args(args);
            }
            Event::ToolOutput { .. } => {}
            // The rejection said it all.
            Event::ToolCallFinished {
                status: CallStatus::Rejected,
                ..
            } => {}
            Event::ToolCallFinished {
                call_id,
                status,
                observation,
                exit_code,
                duration_ms,
                ..
            } => {
                let status = match status {
                    CallStatus::Ok => "ok",
                    CallStatus::Failed => "**failed**",
                    CallStatus::Rejected | CallStatus::Cancelled => "**cancelled**",
                };
                let code = exit_code.map(|c| format!(", exit {c}")).unwrap_or_default();
                let lines = self.view.calls.get(call_id).map_or(0, |c| c.output_lines);
                let streamed = if lines > 0 {
                    format!(", {lines} output lines in the log")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    self.out,
                    "  - `[{seq}]` result: {status}{code} ({duration_ms} ms{streamed})"
                );
                if !observation.trim().is_empty() {
                    self.block(observation, "", self.options.observation_lines, "    ");
                }
            }
            Event::FileChanged { call_id, diff } => {
                let by = call_id
                    .as_deref()
                    .map(|c| format!(" by `{c}`"))
                    .unwrap_or_else(|| " by the engineer".to_string());
                let _ = writeln!(
                    self.out,
                    "  - `[{seq}]` changed `{}`{by} (+{} -{})",
                    diff.path, diff.added, diff.removed
                );
                self.diff(diff, "    ");
            }
            Event::CheckStarted { name, command, .. } => {
                let command = command
                    .as_deref()
                    .map(|c| format!(": `{}`", one_line(c)))
                    .unwrap_or_default();
                let _ = writeln!(self.out, "- `[{seq}]` check **{name}**{command}");
            }
            Event::CheckOutput { .. } => {}
            Event::CheckResult {
                check_id,
                passed,
                exit_code,
                detail,
                metrics,
                gates,
                duration_ms,
                skipped,
            } => {
                if let Some(reason) = skipped {
                    let _ = writeln!(self.out, "  - `[{seq}]` skipped: {}", one_line(reason));
                } else {
                    let status = if *passed { "passed" } else { "**FAILED**" };
                    let code = exit_code.map(|c| format!("exit {c}, ")).unwrap_or_default();
                    let lines = self.view.checks.get(check_id).map_or(0, |c| c.output_lines);
                    let _ = writeln!(
                        self.out,
                        "  - `[{seq}]` {status} ({code}{duration_ms} ms, {lines} output lines in the log)"
                    );
                    if !detail.is_empty() {
                        let _ = writeln!(self.out, "  - {}", one_line(detail));
                    }
                    self.gates(gates, metrics);
                }
            }
            Event::EvidenceCollected { evidence, .. } => {
                let class = evidence
                    .class
                    .as_deref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default();
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` evidence: `{}`{class}",
                    one_line(&evidence.signature)
                );
                let _ = writeln!(
                    self.out,
                    "  - failed check: {}",
                    one_line(&evidence.failed_check)
                );
                if !evidence.facts.is_empty() {
                    let facts: Vec<String> = evidence
                        .facts
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect();
                    let _ = writeln!(self.out, "  - facts: {}", facts.join(", "));
                }
                if !evidence.candidate_fixes.is_empty() {
                    let _ = writeln!(
                        self.out,
                        "  - candidate fixes: {}",
                        evidence.candidate_fixes.join(", ")
                    );
                }
                if !evidence.excerpt.trim().is_empty() {
                    self.block(&evidence.excerpt, "", self.options.excerpt_lines, "  ");
                }
            }
            Event::AttemptCommitted {
                attempt,
                commit,
                files_changed,
                ..
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` committed attempt {attempt}: `{}` ({files_changed} files)",
                    short(commit)
                );
            }
            Event::ArtifactRecorded {
                path,
                sha256,
                bytes,
                ..
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` artifact `{path}` ({bytes} bytes, sha256 `{}`)",
                    sha256.get(..16).unwrap_or(sha256)
                );
            }
            Event::FilesNotCommitted { files, .. } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` not committed (git cannot store these names):"
                );
                for file in files {
                    let _ = writeln!(self.out, "  - `{}`: {}", file.path, file.reason);
                }
            }
            Event::CheckpointMade { tag, commit, .. } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` checkpoint `{tag}` at `{}`",
                    short(commit)
                );
            }
            Event::StagePassed {
                stage,
                attempts,
                duration_ms,
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` **{stage} passed** after {attempts} attempt(s) in {}",
                    seconds(*duration_ms)
                );
            }
            Event::StageFailed {
                stage,
                attempts,
                reason,
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` **{stage} FAILED** after {attempts} attempt(s): {}",
                    one_line(reason)
                );
            }
            Event::StageSkipped { stage, by, reason } => {
                let why = if reason.is_empty() {
                    format!("by {by}")
                } else {
                    format!("({by}): {}", one_line(reason))
                };
                let _ = writeln!(self.out, "- `[{seq}]` **{stage} skipped** {why}");
            }
            Event::BudgetRaised { budget, limit } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` budget raised ({budget:?}): the limit is now {limit}"
                );
            }
            Event::BudgetExhausted {
                stage,
                budget,
                detail,
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` budget exhausted ({budget:?}{}): {}",
                    stage
                        .as_deref()
                        .map(|s| format!(", stage {s}"))
                        .unwrap_or_default(),
                    one_line(detail)
                );
            }
            Event::Paused { reason, .. } => {
                let _ = writeln!(self.out, "- `[{seq}]` paused: {}", one_line(reason));
            }
            Event::Resumed => {
                let _ = writeln!(self.out, "- `[{seq}]` resumed");
            }
            Event::StepMode { on } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` engineer: step mode {}",
                    if *on { "on" } else { "off" }
                );
            }
            Event::HintAdded { text } => {
                let _ = writeln!(self.out, "- `[{seq}]` engineer: hint: {}", one_line(text));
            }
            Event::HumanAction {
                action,
                detail,
                diffs,
            } => {
                let detail = if detail.is_empty() {
                    String::new()
                } else {
                    format!(": {}", one_line(detail))
                };
                let _ = writeln!(self.out, "- `[{seq}]` engineer: **{action}**{detail}");
                for diff in diffs {
                    let _ = writeln!(
                        self.out,
                        "  - `{}` (+{} -{})",
                        diff.path, diff.added, diff.removed
                    );
                    self.diff(diff, "    ");
                }
            }
            Event::RolledBack {
                to_tag,
                stage: _,
                commit,
                previous_head,
            } => {
                let _ = writeln!(
                    self.out,
                    "- `[{seq}]` rolled back to `{to_tag}` (`{}`; the previous head `{}` stays \
                     reachable)",
                    short(commit),
                    short(previous_head)
                );
            }
            Event::EngineError { message } => {
                let _ = writeln!(self.out, "- `[{seq}]` **error**: {}", one_line(message));
            }
            Event::SessionResumed {
                from_stage,
                from_seq,
                checkpoint,
                commit,
                repaired_bytes,
                ..
            } => {
                let _ = writeln!(self.out, "\n## Resumed `[{seq}]`\n");
                let _ = writeln!(
                    self.out,
                    "- the session was interrupted; `aipc resume` reset the worktree to {} (`{}`)",
                    checkpoint
                        .as_deref()
                        .map(|t| format!("checkpoint `{t}`"))
                        .unwrap_or_else(|| "the base commit".to_string()),
                    short(commit)
                );
                if seq > from_seq + 1 {
                    let _ = writeln!(
                        self.out,
                        "- events {} to {} were the interrupted work, done again below",
                        from_seq + 1,
                        seq - 1
                    );
                }
                if *repaired_bytes > 0 {
                    let _ = writeln!(
                        self.out,
                        "- a torn last line of {repaired_bytes} bytes was cut off the log"
                    );
                }
                let next = if from_stage.is_empty() {
                    "none (every stage had passed)"
                } else {
                    from_stage
                };
                let _ = writeln!(self.out, "- next stage: {next}");
            }
            Event::SessionFinished {
                outcome,
                exit_code,
                report,
                duration_ms,
            } => {
                let _ = writeln!(
                    self.out,
                    "\n## Outcome `[{seq}]`\n\n**{}** (exit {exit_code}) in {}",
                    outcome.word(),
                    seconds(*duration_ms)
                );
                if let Some(report) = report {
                    let _ = writeln!(self.out, "\nreport: `{report}`");
                }
            }
        }
    }

    fn args(&mut self, args: &serde_json::Value) {
        let compact = args.to_string();
        if compact.chars().count() <= 160 && !compact.contains("\\n") {
            let _ = writeln!(self.out, "  - args: `{compact}`");
        } else {
            let pretty = serde_json::to_string_pretty(args).unwrap_or(compact);
            let _ = writeln!(self.out, "  - args:");
            self.block(&pretty, "json", self.options.observation_lines, "    ");
        }
    }

    fn diff(&mut self, diff: &FileDiff, indent: &str) {
        if diff.unified.is_empty() {
            let _ = writeln!(self.out, "{indent}(binary file: no text diff)");
        } else {
            self.block(&diff.unified, "diff", self.options.diff_lines, indent);
        }
    }

    fn gates(&mut self, gates: &[GateResult], metrics: &BTreeMap<String, f64>) {
        if !gates.is_empty() {
            let _ = writeln!(self.out, "\n    | gate | measured | result |");
            let _ = writeln!(self.out, "    |---|---|---|");
            for g in gates {
                let measured = g
                    .measured
                    .map(format_metric)
                    .unwrap_or_else(|| "not printed".to_string());
                let result = if g.passed { "ok" } else { "**not met**" };
                let _ = writeln!(self.out, "    | `{}` | {measured} | {result} |", g.expr);
            }
            let _ = writeln!(self.out);
        }
        if !metrics.is_empty() {
            let list: Vec<String> = metrics
                .iter()
                .map(|(k, v)| format!("{k}={}", format_metric(*v)))
                .collect();
            let _ = writeln!(self.out, "  - metrics: {}", list.join(", "));
        }
    }

    /// A fenced block of at most `max_lines` lines, indented to sit inside a list item.
    fn block(&mut self, text: &str, lang: &str, max_lines: usize, indent: &str) {
        let fence = fence_for(text);
        let _ = writeln!(self.out, "{indent}{fence}{lang}");
        let total = text.lines().count();
        for line in text.lines().take(max_lines) {
            let _ = writeln!(
                self.out,
                "{indent}{}",
                crate::conversation::clip(line, MAX_LINE_CHARS)
            );
        }
        if total > max_lines {
            let _ = writeln!(
                self.out,
                "{indent}… {} more lines in the log",
                total - max_lines
            );
        }
        let _ = writeln!(self.out, "{indent}{fence}");
    }
}

/// A code fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let (mut longest, mut run) = (0usize, 0usize);
    for ch in text.chars() {
        if ch == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat(longest.max(2) + 1)
}

/// The first line of `text`, bounded, with a mark when more lines follow.
fn one_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = crate::conversation::clip(lines.next().unwrap_or_default(), 300);
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}

fn format_metric(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v.abs() >= 1e-3 {
        format!("{v:.4}")
    } else {
        format!("{v:.3e}")
    }
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

    #[test]
    fn fences_outgrow_backticks() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("has ``` inside"), "````");
    }

    #[test]
    fn blocks_are_bounded() {
        let recording = Recording::from_events(Vec::new(), None);
        let options = TranscriptOptions::default();
        let mut r = Renderer {
            out: String::new(),
            options: &options,
            view: SessionView::default(),
            stage_count: 0,
        };
        let text: String = (0..50).map(|i| format!("line {i}\n")).collect();
        r.block(&text, "", 5, "  ");
        assert!(r.out.contains("line 4\n"));
        assert!(!r.out.contains("line 5\n"));
        assert!(r.out.contains("… 45 more lines in the log"));
        assert!(render_markdown(&recording, &options).contains("**unfinished**"));
    }

    #[test]
    fn metrics_format() {
        assert_eq!(format_metric(64.0), "64");
        assert_eq!(format_metric(0.9999), "0.9999");
        assert_eq!(format_metric(1.5e-7), "1.500e-7");
    }
}
