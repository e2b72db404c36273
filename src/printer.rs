//! The batch printer: one readable progress line per event of interest, on stderr, and on a
//! terminal a live status line under them. A consumer of the event stream like any other; when
//! it falls behind it says how many events it missed (they are all in the session log).

use crate::conversation::clip;
use crate::protocol::{CallStatus, Decider, Event, EventEnvelope};
use crate::status_line::StatusLine;
use std::io::Write;
use tokio::sync::broadcast::{self, error::RecvError};

/// Print events from `events` to `out` until the stream closes. `verbose` adds command output
/// lines and model text; with `live_status` (stderr is a terminal), a status line
/// ([`StatusLine`]) under the progress lines, redrawn every second.
pub async fn print_events_with_status(
    mut events: broadcast::Receiver<EventEnvelope>,
    mut out: impl Write,
    verbose: bool,
    live_status: bool,
) {
    let mut status = StatusLine::new();
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let width = || {
        crossterm::terminal::size()
            .map(|(w, _)| usize::from(w).saturating_sub(1))
            .unwrap_or(100)
    };
    // A closed stderr must not stop the engine; the log has everything.
    loop {
        tokio::select! {
            received = events.recv() => match received {
                Ok(envelope) => {
                    status.apply(&envelope.event);
                    if let Some(line) = describe(&envelope.event, verbose) {
                        if live_status {
                            let _ = write!(out, "\r\x1b[2K");
                        }
                        let _ = writeln!(out, "{line}");
                        if live_status {
                            let _ = write!(out, "{}", status.render(width()));
                            let _ = out.flush();
                        }
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    let _ = writeln!(out, "  … {missed} events not shown (see the session log)");
                }
                Err(RecvError::Closed) => break,
            },
            _ = tick.tick(), if live_status => {
                let _ = write!(out, "\r\x1b[2K{}", status.render(width()));
                let _ = out.flush();
            }
        }
    }
    if live_status {
        let _ = write!(out, "\r\x1b[2K");
    }
    let _ = out.flush();
}

/// The progress line for one event, or `None` for events batch output leaves out.
pub fn describe(event: &Event, verbose: bool) -> Option<String> {
    Some(match event {
        Event::SessionStarted {
            session_id,
            target,
            model,
            stages,
            worktree,
            ..
        } => format!(
            "aipc session {session_id}: target {target}, model {model}, stages {}\n  worktree {worktree}",
            stages.join(" → ")
        ),
        Event::SessionPolicy {
            sandbox,
            sandbox_chosen_by,
            sandbox_detail,
            approve_all,
            device,
            ..
        } => format!(
            "  sandbox {}({sandbox_chosen_by}): {sandbox_detail}\n  `ask` calls: {}{}",
            if sandbox == "off" { "OFF " } else { "" },
            if *approve_all {
                "approved without an engineer (--approve-all)"
            } else {
                "denied without an engineer (batch)"
            },
            if device.is_empty() {
                String::new()
            } else {
                format!("\n  device {device}")
            }
        ),
        Event::StageStarted { stage, index, .. } => format!("[{}] stage {stage}", index + 1),
        Event::AttemptStarted {
            stage,
            attempt: 0,
            ..
        } => format!("  {stage}: checks first, before any model turn"),
        Event::AttemptStarted {
            stage,
            attempt,
            max_attempts,
        } => format!("  {stage}: attempt {attempt}/{max_attempts}"),
        Event::ModelResponse {
            text,
            completion_tokens,
            duration_ms,
            ..
        } if verbose => format!(
            "    model ({completion_tokens} tokens, {duration_ms} ms): {}",
            clip(text, 160)
        ),
        Event::Compacted {
            folded,
            chars_before,
            chars_after,
            ..
        } => format!(
            "    context full: folded {folded} older tool outputs ({chars_before} → {chars_after} chars)"
        ),
        Event::ModelInvalidCall { error, .. } => {
            format!("    model reply was not a valid call: {}", clip(error, 160))
        }
        Event::ToolCallProposed {
            call_id, tool, args, ..
        } => format!("    {call_id} {tool} {}", clip(&args.to_string(), 120)),
        Event::ToolCallRejected { reason, by, .. } => format!("      rejected by {by}: {reason}"),
        // An automatic approval of an `ask` call is said out loud, as a denial is.
        Event::ToolCallApproved {
            call_id,
            by: Decider::Batch,
        } => format!("      {call_id} approved without an engineer (--approve-all)"),
        Event::ToolOutput { line, .. } if verbose => format!("      | {line}"),
        Event::CheckOutput { line, .. } if verbose => format!("      | {line}"),
        // The rejection was printed.
        Event::ToolCallFinished {
            status: CallStatus::Rejected,
            ..
        } => return None,
        Event::ToolCallFinished {
            status,
            exit_code,
            observation,
            ..
        } => {
            let code = exit_code.map(|c| format!(" (exit {c})")).unwrap_or_default();
            let first = observation.lines().next().unwrap_or_default();
            format!("      {status}{code}: {}", clip(first, 120))
        }
        Event::FileChanged { diff, .. } => {
            format!("      changed {} (+{} -{})", diff.path, diff.added, diff.removed)
        }
        Event::CheckStarted { name, command, .. } => match command {
            Some(command) => format!("  check {name}: {}", clip(command, 100)),
            None => format!("  check {name}"),
        },
        Event::CheckResult {
            skipped: Some(reason),
            ..
        } => format!("    skipped: {reason}"),
        Event::CheckResult {
            passed,
            detail,
            gates,
            ..
        } => {
            let gates: Vec<String> = gates
                .iter()
                .map(|g| {
                    let measured = g.measured.map(|v| format!("{v:.4}")).unwrap_or("-".into());
                    format!("{} [{}] {}", g.expr, measured, if g.passed { "ok" } else { "NOT MET" })
                })
                .collect();
            let gates = if gates.is_empty() {
                String::new()
            } else {
                format!(" — {}", gates.join(", "))
            };
            if *passed {
                format!("    passed{gates}")
            } else {
                // The detail already names the gates that were not met.
                format!("    FAILED: {detail}")
            }
        }
        Event::EvidenceCollected { evidence, .. } => format!(
            "    evidence: {}{}",
            clip(&evidence.signature, 120),
            evidence
                .class
                .as_ref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default()
        ),
        Event::AttemptCommitted {
            attempt,
            commit,
            files_changed,
            ..
        } => format!(
            "    committed attempt {attempt}: {} ({files_changed} files)",
            commit.get(..10).unwrap_or(commit)
        ),
        Event::ArtifactRecorded {
            path, sha256, bytes, ..
        } => format!(
            "    artifact {path} ({bytes} bytes, sha256 {})",
            sha256.get(..12).unwrap_or(sha256)
        ),
        Event::FilesNotCommitted { files, .. } => format!(
            "    not committed (git cannot store these names): {}",
            clip(
                &files
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                160
            )
        ),
        Event::CheckpointMade { tag, .. } => format!("  checkpoint {tag}"),
        Event::StagePassed {
            stage,
            attempts: 0,
            duration_ms,
        } => format!(
            "  ✔ {stage} passed on its checks, no model call needed, in {:.1} s",
            *duration_ms as f64 / 1000.0
        ),
        Event::StagePassed {
            stage,
            attempts,
            duration_ms,
        } => format!(
            "  ✔ {stage} passed after {attempts} attempt(s) in {:.1} s",
            *duration_ms as f64 / 1000.0
        ),
        Event::StageFailed { stage, reason, .. } => format!("  ✘ {stage} failed: {reason}"),
        Event::StageSkipped { stage, by, reason } if reason.is_empty() => {
            format!("  {stage} skipped by {by}")
        }
        Event::StageSkipped { stage, reason, .. } => format!("  {stage} skipped: {reason}"),
        Event::BudgetExhausted { budget, detail, .. } => {
            format!("  budget exhausted ({budget:?}): {detail}")
        }
        Event::BudgetRaised { budget, limit } => {
            format!("  budget raised ({budget:?}): the limit is now {limit}")
        }
        Event::Paused { reason, .. } => format!("  paused: {reason}"),
        Event::Resumed => "  resumed".to_string(),
        Event::StepMode { on } => format!("  step mode {}", if *on { "on" } else { "off" }),
        Event::HintAdded { text } => format!("  hint: {text}"),
        Event::HumanAction { action, detail, .. } => format!("  engineer: {action} {detail}"),
        Event::RolledBack { to_tag, .. } => format!("  rolled back to {to_tag}"),
        Event::EngineError { message } => format!("error: {message}"),
        Event::SessionResumed {
            from_stage,
            from_seq,
            checkpoint,
            ..
        } => format!(
            "session resumed from {} (event {from_seq}); next stage: {}",
            checkpoint.as_deref().unwrap_or("the base commit"),
            if from_stage.is_empty() { "none, finishing" } else { from_stage }
        ),
        Event::SessionFinished {
            outcome,
            exit_code,
            duration_ms,
            ..
        } => format!(
            "session {} (exit {exit_code}) in {:.1} s",
            outcome.word(),
            *duration_ms as f64 / 1000.0
        ),
        Event::ModelRequest { .. }
        | Event::ModelDelta { .. }
        | Event::ModelResponse { .. }
        | Event::ToolCallApproved { .. }
        | Event::ToolCallEdited { .. }
        | Event::ToolCallStarted { .. }
        | Event::ToolOutput { .. }
        | Event::CheckOutput { .. } => return None,
    })
}
