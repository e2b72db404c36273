//! The live status line of a batch run on a terminal: stage, attempt, model turn, decode speed,
//! what is running and the elapsed time, redrawn once a second on stderr — also during a long
//! model turn or a toolchain step that prints nothing. Folded from the event stream; the batch
//! printer clears it before each progress line and redraws it after.

use crate::protocol::Event;
use std::time::{Duration, Instant};

/// What the line shows, updated by [`StatusLine::apply`].
#[derive(Debug, Clone)]
pub struct StatusLine {
    started: Instant,
    stage: Option<String>,
    attempt: Option<(u32, u32)>,
    turns: u32,
    /// Decode tokens/s of the last finished turn.
    tokens_per_s: Option<f64>,
    /// Deltas (≈ tokens) streamed in the current turn, and when it began.
    live_turn: Option<(u64, Instant)>,
    /// The running command or tool, and when it began.
    activity: Option<(String, Instant)>,
}

impl StatusLine {
    pub fn new() -> StatusLine {
        StatusLine {
            started: Instant::now(),
            stage: None,
            attempt: None,
            turns: 0,
            tokens_per_s: None,
            live_turn: None,
            activity: None,
        }
    }

    /// Fold one event in.
    pub fn apply(&mut self, event: &Event) {
        let now = Instant::now();
        match event {
            Event::StageStarted { stage, .. } => {
                self.stage = Some(stage.clone());
                self.attempt = None;
            }
            Event::AttemptStarted {
                attempt,
                max_attempts,
                ..
            } => self.attempt = Some((*attempt, *max_attempts)),
            Event::ModelRequest { .. } => {
                self.turns += 1;
                self.live_turn = Some((0, now));
                self.activity = Some(("model turn".to_string(), now));
            }
            Event::ModelDelta { .. } => {
                if let Some((deltas, _)) = &mut self.live_turn {
                    *deltas += 1;
                }
            }
            Event::ModelResponse {
                completion_tokens,
                duration_ms,
                ..
            } => {
                if *duration_ms > 0 {
                    self.tokens_per_s =
                        Some(*completion_tokens as f64 * 1000.0 / *duration_ms as f64);
                }
                self.live_turn = None;
                self.activity = None;
            }
            Event::ToolCallStarted { tool, .. } => {
                self.activity = Some((tool.clone(), now));
            }
            Event::CheckStarted { name, .. } => {
                self.activity = Some((format!("check {name}"), now));
            }
            Event::ToolCallFinished { .. } | Event::CheckResult { .. } => self.activity = None,
            // Nothing the line shows.
            Event::SessionStarted { .. }
            | Event::SessionPolicy { .. }
            | Event::Compacted { .. }
            | Event::ModelInvalidCall { .. }
            | Event::ToolCallProposed { .. }
            | Event::ToolCallApproved { .. }
            | Event::ToolCallRejected { .. }
            | Event::ToolCallEdited { .. }
            | Event::ToolOutput { .. }
            | Event::FileChanged { .. }
            | Event::CheckOutput { .. }
            | Event::EvidenceCollected { .. }
            | Event::AttemptCommitted { .. }
            | Event::ArtifactRecorded { .. }
            | Event::FilesNotCommitted { .. }
            | Event::CheckpointMade { .. }
            | Event::StagePassed { .. }
            | Event::StageFailed { .. }
            | Event::StageSkipped { .. }
            | Event::BudgetExhausted { .. }
            | Event::BudgetRaised { .. }
            | Event::Paused { .. }
            | Event::Resumed
            | Event::StepMode { .. }
            | Event::HintAdded { .. }
            | Event::HumanAction { .. }
            | Event::RolledBack { .. }
            | Event::EngineError { .. }
            | Event::SessionResumed { .. }
            | Event::SessionFinished { .. } => {}
        }
    }

    /// The line, at most `width` characters.
    pub fn render(&self, width: usize) -> String {
        let now = Instant::now();
        let mut parts = vec![format!("⏱ {}", clock(now - self.started))];
        if let Some(stage) = &self.stage {
            parts.push(match self.attempt {
                Some((a, max)) => format!("{stage} attempt {a}/{max}"),
                None => stage.clone(),
            });
        }
        parts.push(format!("turn {}", self.turns));
        let rate = match &self.live_turn {
            Some((deltas, since)) if now - *since > Duration::from_millis(500) => {
                Some(*deltas as f64 / (now - *since).as_secs_f64())
            }
            _ => self.tokens_per_s,
        };
        if let Some(rate) = rate {
            parts.push(format!("{rate:.1} tok/s"));
        }
        if let Some((what, since)) = &self.activity {
            parts.push(format!("{what} {}", clock(now - *since)));
        }
        let line = parts.join(" · ");
        line.chars().take(width.max(10)).collect()
    }
}

impl Default for StatusLine {
    fn default() -> Self {
        StatusLine::new()
    }
}

fn clock(elapsed: Duration) -> String {
    let s = elapsed.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_stage_attempt_turns_speed_and_activity() {
        let mut line = StatusLine::new();
        line.apply(&Event::StageStarted {
            stage: "export".into(),
            index: 1,
            goal: "g".into(),
            max_attempts: 3,
        });
        line.apply(&Event::AttemptStarted {
            stage: "export".into(),
            attempt: 2,
            max_attempts: 3,
        });
        line.apply(&Event::ToolCallStarted {
            call_id: "c1".into(),
            tool: "export".into(),
        });
        let text = line.render(200);
        assert!(text.starts_with("⏱ 0:00"), "{text}");
        assert!(text.contains("export attempt 2/3"), "{text}");
        assert!(text.contains("turn 0"), "{text}");
        assert!(text.contains("· export 0:00"), "{text}");
        assert!(line.render(12).chars().count() <= 12);
    }
}
