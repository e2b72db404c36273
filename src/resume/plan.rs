//! Where an interrupted session continues: the [`ResumePoint`] computed from its log.
//!
//! The restore point is the last place the engine's state is fully known from the log and the
//! git history together: the last stage that passed *and* was tagged (`checkpoint_made`
//! followed by `stage_passed`), a stage the engineer skipped, a rollback to a checkpoint, or
//! the start of the session. Work after it (the interrupted stage) is done again: a stage has
//! no state worth keeping halfway — its attempt's conversation dies with the process, and its
//! checks must run again on the files they judge.
//!
//! Rules, in the order the log is read (work an earlier resume discarded is skipped):
//! - `checkpoint_made` + `stage_passed` of stage *i*: stages `..=i` are done, files are at the
//!   checkpoint's commit, the summary that later prompts show is the argument of the stage's
//!   successful `finish_stage` call ("checks only" for a stage without model work).
//! - `stage_skipped` of stage *i*: done as "skipped by the engineer", files at the last commit
//!   recorded before it.
//! - `rolled_back` to stage *i*'s tag: stages after *i* are undone, files at the tag's commit.
//! - Hints still to deliver: those that no model request of the kept history carried (a hint
//!   given while checks ran, or during the interrupted stage), and not cleared by a rollback.
//! - Counters (request ids, call ids, tokens, wall time, step mode) come from the whole log,
//!   discarded work included: ids must stay unique and budgets count all work. Artifact hashes
//!   come from the kept history only, so the redone stage records its outputs like an
//!   uninterrupted run does.
//!
//! A session that ended `deployed` or `failed` is finished; one that ended `aborted` (Ctrl-C,
//! `rerun --until`) or `error` (a dead model server, a git failure) can be resumed like a
//! killed one.

use crate::engine::origin::ResumePoint;
use crate::protocol::{Event, Outcome};
use crate::session::show::wall_time_ms;
use crate::session::Recording;
use std::collections::HashMap;

/// What `aipc resume` will do.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// The session ended for good; nothing to resume.
    Finished { outcome: Outcome, exit_code: i32 },
    /// Continue from `point`.
    Resume {
        point: ResumePoint,
        /// Model replies the kept stages used: a positional model (scripted, replay) continues
        /// after them.
        replies_kept: usize,
    },
}

/// A log that cannot be resumed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PlanError(String);

/// Compute where `recording` continues.
pub fn plan(recording: &Recording) -> Result<Plan, PlanError> {
    if let Some((outcome, exit_code)) = recording.finished() {
        if matches!(outcome, Outcome::Deployed | Outcome::Failed) {
            return Ok(Plan::Finished { outcome, exit_code });
        }
    }
    let Some(first) = recording.events().first() else {
        return Ok(Plan::Resume {
            point: ResumePoint {
                never_started: true,
                ..ResumePoint::default()
            },
            replies_kept: 0,
        });
    };
    let Event::SessionStarted {
        stages,
        base_commit,
        ..
    } = &first.event
    else {
        return Err(PlanError(format!(
            "the log starts with `{}` (seq {}), not `session_started`; it is not a session log \
             aipc can resume",
            first.event.kind(),
            first.seq
        )));
    };
    let point = restore_point(recording, stages, base_commit, first.seq)?;
    let mut resume = ResumePoint {
        completed: point.completed,
        next_stage: point.next_stage,
        checkpoint: point.checkpoint,
        commit: point.commit,
        from_seq: point.seq,
        elapsed_ms: wall_time_ms(recording.events()),
        ..ResumePoint::default()
    };
    let mut pending_hints: Vec<String> = Vec::new();
    for (pos, env) in recording.events().iter().enumerate() {
        let thrown_away = recording.is_discarded(pos) || env.seq > point.seq;
        match &env.event {
            Event::HintAdded { text } => pending_hints.push(text.clone()),
            Event::ModelRequest { request_id, .. } => {
                resume.next_request = resume.next_request.max(request_id + 1);
                if !thrown_away {
                    // Delivered to a conversation whose stage is kept.
                    pending_hints.clear();
                }
            }
            Event::RolledBack { .. } if !thrown_away => pending_hints.clear(),
            Event::ToolCallProposed { call_id, .. } => {
                if let Some(n) = call_id.rsplit('.').next().and_then(|n| n.parse().ok()) {
                    resume.next_call = resume.next_call.max(n);
                }
            }
            Event::ModelResponse {
                prompt_tokens,
                completion_tokens,
                ..
            } => resume.tokens_used += prompt_tokens + completion_tokens,
            // As the kept history recorded them: the redone stage records its outputs again,
            // as an uninterrupted run would.
            Event::ArtifactRecorded { path, sha256, .. } if !thrown_away => {
                resume.artifact_hashes.insert(path.clone(), sha256.clone());
            }
            Event::StepMode { on } => resume.step_mode = *on,
            _ => {}
        }
    }
    resume.hints = pending_hints;
    let replies_kept = recording
        .effective()
        .filter(|e| e.seq <= point.seq && matches!(e.event, Event::ModelResponse { .. }))
        .count();
    Ok(Plan::Resume {
        point: resume,
        replies_kept,
    })
}

struct Point {
    seq: u64,
    commit: String,
    checkpoint: Option<String>,
    next_stage: usize,
    completed: Vec<(String, String)>,
}

fn restore_point(
    recording: &Recording,
    stages: &[String],
    base_commit: &str,
    start_seq: u64,
) -> Result<Point, PlanError> {
    let index_of = |stage: &str| {
        stages.iter().position(|s| s == stage).ok_or_else(|| {
            PlanError(format!(
                "the log names stage \"{stage}\", which is not among the session's stages ({})",
                stages.join(", ")
            ))
        })
    };
    let mut point = Point {
        seq: start_seq,
        commit: base_commit.to_string(),
        checkpoint: None,
        next_stage: 0,
        completed: Vec::new(),
    };
    let mut last_commit = base_commit.to_string();
    let mut tagged: Option<(String, String, String)> = None;
    let mut summary = String::new();
    let mut asked_model = false;
    let mut calls: HashMap<&str, (&str, &serde_json::Value)> = HashMap::new();
    for env in recording.effective() {
        match &env.event {
            Event::StageStarted { .. } | Event::AttemptStarted { .. } => {
                summary = "checks only".to_string();
                asked_model = false;
            }
            Event::ModelRequest { .. } if !asked_model => {
                asked_model = true;
                summary.clear();
            }
            Event::ToolCallProposed {
                call_id,
                tool,
                args,
                ..
            } => {
                calls.insert(call_id, (tool, args));
            }
            Event::ToolCallEdited { call_id, args } => {
                if let Some(call) = calls.get_mut(call_id.as_str()) {
                    call.1 = args;
                }
            }
            Event::ToolCallFinished {
                call_id, ok: true, ..
            } => {
                if let Some((tool, args)) = calls.get(call_id.as_str()) {
                    if *tool == "finish_stage" {
                        summary = args
                            .get("summary")
                            .and_then(|s| s.as_str())
                            .unwrap_or_default()
                            .to_string();
                    }
                }
            }
            Event::AttemptCommitted { commit, .. } => last_commit.clone_from(commit),
            Event::CheckpointMade { stage, commit, tag } => {
                last_commit.clone_from(commit);
                tagged = Some((stage.clone(), tag.clone(), commit.clone()));
            }
            Event::StagePassed { stage, .. } => {
                // Without its checkpoint (killed between the two) the stage is done again.
                if let Some((tagged_stage, tag, commit)) = tagged.take() {
                    if &tagged_stage == stage {
                        let index = index_of(stage)?;
                        point.completed.truncate(index);
                        point.completed.push((stage.clone(), summary.clone()));
                        point.seq = env.seq;
                        point.commit = commit;
                        point.checkpoint = Some(tag);
                        point.next_stage = index + 1;
                    }
                }
            }
            Event::StageSkipped { stage, reason, .. } => {
                let index = index_of(stage)?;
                point.completed.truncate(index);
                let summary = if reason.is_empty() {
                    "skipped by the engineer".to_string()
                } else {
                    format!("skipped: {reason}")
                };
                point.completed.push((stage.clone(), summary));
                point.seq = env.seq;
                point.commit.clone_from(&last_commit);
                point.checkpoint = None;
                point.next_stage = index + 1;
            }
            Event::RolledBack {
                stage,
                to_tag,
                commit,
                ..
            } => {
                let index = index_of(stage)?;
                last_commit.clone_from(commit);
                point.completed.truncate(index + 1);
                point.seq = env.seq;
                point.commit.clone_from(commit);
                point.checkpoint = Some(to_tag.clone());
                point.next_stage = index + 1;
            }
            Event::SessionResumed { commit, .. } => last_commit.clone_from(commit),
            _ => {}
        }
    }
    Ok(point)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::EventEnvelope;

    struct Log(Vec<EventEnvelope>);

    impl Log {
        fn push(&mut self, event: Event) -> u64 {
            let seq = self.0.len() as u64;
            self.0.push(EventEnvelope {
                seq,
                ts_ms: 1_000 + seq,
                event,
            });
            seq
        }
    }

    fn started() -> Event {
        Event::SessionStarted {
            session_id: "s".into(),
            project: "/p".into(),
            target: "t".into(),
            model: "m".into(),
            worktree: "/p/w".into(),
            branch: "aipc/s".into(),
            base_commit: "base".into(),
            batch: true,
            stages: vec!["env".into(), "export".into(), "validate".into()],
            context_size: 0,
            token_budget: 0,
            wall_time_s: 0,
        }
    }

    fn pass(log: &mut Log, stage: &str, commit: &str) -> u64 {
        log.push(Event::CheckpointMade {
            stage: stage.into(),
            commit: commit.into(),
            tag: format!("aipc/s/{stage}"),
        });
        log.push(Event::StagePassed {
            stage: stage.into(),
            attempts: 1,
            duration_ms: 1,
        })
    }

    fn stage(log: &mut Log, name: &str, index: usize) {
        log.push(Event::StageStarted {
            stage: name.into(),
            index,
            goal: String::new(),
            max_attempts: 3,
        });
        log.push(Event::AttemptStarted {
            stage: name.into(),
            attempt: 1,
            max_attempts: 3,
        });
    }

    fn turn(log: &mut Log, request_id: u64, call: &str, tool: &str, args: serde_json::Value) {
        log.push(Event::ModelRequest {
            request_id,
            stage: "x".into(),
            new_messages: vec![],
            total_messages: 2,
            tools: vec![],
        });
        log.push(Event::ModelResponse {
            request_id,
            text: "{}".into(),
            prompt_tokens: 100,
            completion_tokens: 10,
            cached_tokens: 0,
            duration_ms: 1,
        });
        log.push(Event::ToolCallProposed {
            call_id: call.into(),
            tool: tool.into(),
            args,
            thought: None,
            policy: crate::protocol::Policy::Allow,
        });
        log.push(Event::ToolCallFinished {
            call_id: call.into(),
            ok: true,
            status: crate::protocol::CallStatus::Ok,
            observation: String::new(),
            exit_code: None,
            duration_ms: 0,
        });
    }

    fn resume_point(log: Log) -> (ResumePoint, usize) {
        match plan(&Recording::from_events(log.0, None)).unwrap() {
            Plan::Resume {
                point,
                replies_kept,
            } => (point, replies_kept),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn interrupted_in_the_third_stage_resumes_after_the_second_checkpoint() {
        let mut log = Log(Vec::new());
        log.push(started());
        stage(&mut log, "env", 0);
        pass(&mut log, "env", "c-env");
        stage(&mut log, "export", 1);
        turn(&mut log, 0, "export.1", "run", serde_json::json!({}));
        turn(
            &mut log,
            1,
            "export.2",
            "finish_stage",
            serde_json::json!({"summary": "exported"}),
        );
        log.push(Event::HintAdded {
            text: "mind the activation".into(),
        });
        let passed = pass(&mut log, "export", "c-export");
        stage(&mut log, "validate", 2);
        turn(
            &mut log,
            2,
            "validate.3",
            "read_file",
            serde_json::json!({}),
        );
        log.push(Event::HintAdded {
            text: "tanh".into(),
        });
        turn(&mut log, 3, "validate.4", "run", serde_json::json!({}));
        let (point, replies) = resume_point(log);
        assert_eq!(point.from_seq, passed);
        assert_eq!(point.next_stage, 2);
        assert_eq!(point.commit, "c-export");
        assert_eq!(point.checkpoint.as_deref(), Some("aipc/s/export"));
        assert_eq!(
            point.completed,
            vec![
                ("env".to_string(), "checks only".to_string()),
                ("export".to_string(), "exported".to_string())
            ]
        );
        // Both hints: the first no kept request carried, the second went to discarded work.
        assert_eq!(point.hints, vec!["mind the activation", "tanh"]);
        assert_eq!((point.next_request, point.next_call), (4, 4));
        assert_eq!(point.tokens_used, 440);
        assert_eq!(replies, 2);
        assert!(!point.never_started);
    }

    #[test]
    fn a_checkpoint_without_its_stage_passed_is_done_again() {
        let mut log = Log(Vec::new());
        log.push(started());
        stage(&mut log, "env", 0);
        log.push(Event::CheckpointMade {
            stage: "env".into(),
            commit: "c-env".into(),
            tag: "aipc/s/env".into(),
        });
        let (point, _) = resume_point(log);
        assert_eq!((point.next_stage, point.from_seq), (0, 0));
        assert_eq!(point.commit, "base");
        assert!(point.checkpoint.is_none());
    }

    #[test]
    fn a_second_resume_skips_the_discarded_work() {
        let mut log = Log(Vec::new());
        log.push(started());
        stage(&mut log, "env", 0);
        let env_passed = pass(&mut log, "env", "c-env");
        stage(&mut log, "export", 1);
        turn(&mut log, 0, "export.1", "run", serde_json::json!({}));
        log.push(Event::SessionResumed {
            from_stage: "export".into(),
            from_seq: env_passed,
            checkpoint: Some("aipc/s/env".into()),
            commit: "c-env".into(),
            previous_head: "wip".into(),
            repaired_bytes: 0,
        });
        stage(&mut log, "export", 1);
        turn(&mut log, 1, "export.2", "run", serde_json::json!({}));
        let (point, replies) = resume_point(log);
        assert_eq!(point.from_seq, env_passed);
        assert_eq!(point.next_stage, 1);
        assert_eq!(replies, 0);
        assert_eq!(point.next_request, 2);
        assert_eq!(point.next_call, 2);
    }

    #[test]
    fn finished_sessions_and_empty_logs() {
        let mut log = Log(Vec::new());
        log.push(started());
        log.push(Event::SessionFinished {
            outcome: Outcome::Deployed,
            exit_code: 0,
            report: None,
            duration_ms: 1,
        });
        assert_eq!(
            plan(&Recording::from_events(log.0, None)).unwrap(),
            Plan::Finished {
                outcome: Outcome::Deployed,
                exit_code: 0
            }
        );
        let (point, _) = resume_point(Log(Vec::new()));
        assert!(point.never_started);
        let mut aborted = Log(Vec::new());
        aborted.push(started());
        aborted.push(Event::SessionFinished {
            outcome: Outcome::Aborted,
            exit_code: 4,
            report: None,
            duration_ms: 1,
        });
        assert_eq!(resume_point(aborted).0.next_stage, 0);
    }
}
