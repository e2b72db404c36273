//! The stage state machine: a stage goes from its (optional) checks-first run through
//! attempts — the model's work, an attempt commit, the checks — to passed, failed, skipped,
//! rolled back or aborted. A stage none of whose checks applies to the project (their `when`)
//! is skipped before any of that. Each [`Step`] is one transition; [`StageRun`] is everything that
//! carries from one attempt to the next (the attempt counter, its budget, the last evidence
//! and its signature for no-progress detection). Budgets that run out escalate: batch fails
//! the stage, an engineer may retry, take over, roll back, skip or abort.

use super::checks::{self, CheckRunner};
use super::control::Interrupt;
use super::{attempt::AttemptEnd, exit, Engine, Stop};
use crate::contract::StageSpec;
use crate::protocol::{
    BudgetKind, Command, Decider, EngineerAction, Event, Evidence, Outcome, PauseCause,
};
use std::time::Instant;

/// How a stage ended, for the stage loop.
pub(super) enum StageEnd {
    /// Its checks passed; the summary is what later stages' prompts say about it.
    Passed(String),
    Skipped,
    /// No check of the stage applies to the project as it is (the checks' `when`): why.
    NotApplicable(String),
    Failed {
        exit_code: i32,
    },
    /// Go back to this checkpoint tag.
    Rollback(String),
    Aborted,
    Model(String),
    Engine(String),
}

/// What carries from one attempt of a stage to the next.
struct StageRun {
    index: usize,
    started: Instant,
    /// The attempt being worked on (0: the checks-first run).
    attempt: u32,
    max_attempts: u32,
    /// The last failure's evidence: attempt n+1 repairs it.
    evidence: Option<Evidence>,
    /// The last failure's signature: the same one twice in a row is no progress.
    last_signature: Option<String>,
}

/// One transition of the stage state machine.
enum Step {
    /// Run the checks alone before any model turn (attempt 0).
    ChecksFirst,
    /// Start the next attempt (or find the attempts used up).
    NextAttempt,
    /// The attempt's work is done: commit it and let the checks decide.
    Check {
        summary: String,
    },
    /// A budget ran out: escalate.
    Exhausted {
        budget: BudgetKind,
        detail: String,
    },
    End(StageEnd),
}

impl Engine {
    pub(super) async fn run_stages(&mut self, first_stage: usize) -> (Outcome, i32) {
        let mut index = first_stage;
        while index < self.setup.contract.stages.len() {
            // An abort between stages (or `rerun --until` tripping) ends here, cleanly.
            if self.control.aborted() {
                return (Outcome::Aborted, exit::ABORTED);
            }
            let stage = self.setup.contract.stages[index].clone();
            let end = self.run_stage(index, &stage).await;
            if let Some(error) = self.bus.log_error() {
                self.bus.emit(Event::EngineError {
                    message: format!("the session log cannot be written: {error}"),
                });
                return (Outcome::Error, exit::ENVIRONMENT);
            }
            match end {
                StageEnd::Passed(summary) => {
                    self.done.truncate(index);
                    self.done.push((stage.name.clone(), summary));
                    index += 1;
                }
                StageEnd::Skipped => {
                    self.bus.emit(Event::StageSkipped {
                        stage: stage.name.clone(),
                        by: Decider::Human,
                        reason: String::new(),
                    });
                    self.done.truncate(index);
                    self.done
                        .push((stage.name.clone(), "skipped by the engineer".to_string()));
                    index += 1;
                }
                StageEnd::NotApplicable(reason) => {
                    self.bus.emit(Event::StageSkipped {
                        stage: stage.name.clone(),
                        by: Decider::Policy,
                        reason: reason.clone(),
                    });
                    self.done.truncate(index);
                    self.done
                        .push((stage.name.clone(), format!("skipped: {reason}")));
                    index += 1;
                }
                StageEnd::Rollback(tag) => match self.rollback(&tag) {
                    Ok(next) => index = next,
                    Err(message) => {
                        self.bus.emit(Event::EngineError { message });
                        return (Outcome::Error, exit::ENVIRONMENT);
                    }
                },
                StageEnd::Failed { exit_code, .. } => return (Outcome::Failed, exit_code),
                StageEnd::Aborted => return (Outcome::Aborted, exit::ABORTED),
                StageEnd::Model(message) => {
                    self.bus.emit(Event::EngineError {
                        message: format!("model backend: {message}"),
                    });
                    return (Outcome::Error, exit::MODEL);
                }
                StageEnd::Engine(message) => {
                    self.bus.emit(Event::EngineError { message });
                    return (Outcome::Error, exit::ENVIRONMENT);
                }
            }
        }
        (Outcome::Deployed, exit::DEPLOYED)
    }

    /// One stage, as a state machine: attempts until the checks pass or a budget ends it.
    async fn run_stage(&mut self, index: usize, stage: &StageSpec) -> StageEnd {
        self.bus.emit(Event::StageStarted {
            stage: stage.name.clone(),
            index,
            goal: stage.goal.clone(),
            max_attempts: stage.attempts,
        });
        let project = crate::contract::project_table(self.workspace.root());
        if let Some(reason) = stage.skip_reason(project.as_ref()) {
            return StageEnd::NotApplicable(reason);
        }
        self.tool_failure = None;
        let mut run = StageRun {
            index,
            started: Instant::now(),
            attempt: 0,
            max_attempts: stage.attempts,
            evidence: None,
            last_signature: None,
        };
        let mut step = if stage.agent && stage.checks_first {
            Step::ChecksFirst
        } else {
            Step::NextAttempt
        };
        loop {
            step = match step {
                Step::ChecksFirst => self.checks_first(&mut run, stage).await,
                Step::NextAttempt => self.next_attempt(&mut run, stage).await,
                Step::Check { summary } => self.check_attempt(&mut run, stage, summary).await,
                Step::Exhausted { budget, detail } => {
                    self.exhausted(&mut run, stage, budget, detail).await
                }
                Step::End(end) => return end,
            };
        }
    }

    /// Attempt 0: the checks alone, before any model turn. It uses none of the stage's
    /// attempts; a failure becomes the evidence of attempt 1, a repair attempt.
    async fn checks_first(&mut self, run: &mut StageRun, stage: &StageSpec) -> Step {
        self.bus.emit(Event::AttemptStarted {
            stage: stage.name.clone(),
            attempt: 0,
            max_attempts: run.max_attempts,
        });
        let outcome = self.run_checks(stage, 0).await;
        if let Some(message) = self.device_failure() {
            return Step::End(StageEnd::Engine(message));
        }
        if outcome.cancelled || self.control.aborted() {
            return Step::End(StageEnd::Aborted);
        }
        if outcome.passed {
            return Step::End(self.pass_stage(
                stage,
                0,
                run.started,
                "its checks passed before any model turn".to_string(),
            ));
        }
        let found = self.collect_evidence(stage, 0, outcome.failure.unwrap_or_default());
        run.last_signature = Some(found.signature.clone());
        run.evidence = Some(found);
        Step::NextAttempt
    }

    /// Start the next attempt and do its work: the model's turns (an agent stage) or nothing
    /// but a decision point (a checks-only stage).
    async fn next_attempt(&mut self, run: &mut StageRun, stage: &StageSpec) -> Step {
        run.attempt += 1;
        if run.attempt > run.max_attempts {
            return Step::Exhausted {
                budget: BudgetKind::Attempts,
                detail: format!(
                    "{} attempts used and the checks still fail",
                    run.max_attempts
                ),
            };
        }
        self.tool_failure = None;
        self.bus.emit(Event::AttemptStarted {
            stage: stage.name.clone(),
            attempt: run.attempt,
            max_attempts: run.max_attempts,
        });
        let work = if stage.agent {
            self.agent_attempt(
                run.index,
                stage,
                run.attempt,
                run.max_attempts,
                run.evidence.as_ref(),
            )
            .await
            .map(Some)
        } else {
            self.poll_point().await.map(|()| None)
        };
        let turns_exhausted = |detail: String| Event::BudgetExhausted {
            stage: Some(stage.name.clone()),
            budget: BudgetKind::Turns,
            detail,
        };
        let summary = match work {
            Ok(Some(AttemptEnd::Finished(summary))) => summary,
            Ok(Some(AttemptEnd::TurnsExhausted)) => {
                self.bus.emit(turns_exhausted(format!(
                    "{} turns without finish_stage; running the checks anyway",
                    stage.turns_per_attempt
                )));
                String::new()
            }
            Ok(Some(AttemptEnd::Looping(times))) => {
                self.bus.emit(turns_exhausted(format!(
                    "the same call with the same result {} times in a row; running the checks",
                    times + 1
                )));
                String::new()
            }
            Ok(None) => "checks only".to_string(),
            Err(Stop::Escalate { budget, detail }) => return Step::Exhausted { budget, detail },
            Err(stop) => {
                return match self.stop_to_end(stop) {
                    Ok(retry) => {
                        // The engineer retries the stage: a fresh budget from here.
                        run.max_attempts = run.attempt + retry;
                        run.evidence = None;
                        run.last_signature = None;
                        Step::NextAttempt
                    }
                    Err(end) => Step::End(end),
                };
            }
        };
        Step::Check { summary }
    }

    /// Commit the attempt and let the checks decide; a failure becomes the next attempt's
    /// evidence, or ends the stage's budget when it repeats the last one.
    async fn check_attempt(
        &mut self,
        run: &mut StageRun,
        stage: &StageSpec,
        summary: String,
    ) -> Step {
        if let Err(message) = self.commit_attempt(&stage.name, run.attempt) {
            return Step::End(StageEnd::Engine(message));
        }
        let outcome = self.run_checks(stage, run.attempt).await;
        if let Some(message) = self.device_failure() {
            return Step::End(StageEnd::Engine(message));
        }
        if outcome.cancelled || self.control.aborted() {
            return Step::End(StageEnd::Aborted);
        }
        if outcome.passed {
            return Step::End(self.pass_stage(stage, run.attempt, run.started, summary));
        }
        let found = self.collect_evidence(stage, run.attempt, outcome.failure.unwrap_or_default());
        // The same failure again ends the stage, unless the evidence still names a repair this
        // stage has not made (the attempts budget still bounds it).
        let repeated = run.last_signature.as_deref() == Some(found.signature.as_str());
        let next = if repeated && !self.narrowing.untried(&found.candidate_fixes) {
            Step::Exhausted {
                budget: BudgetKind::NoProgress,
                detail: format!(
                    "the same failure twice in a row ({}): repairing is not making progress",
                    found.signature
                ),
            }
        } else if !stage.agent {
            Step::Exhausted {
                budget: BudgetKind::Attempts,
                detail: format!(
                    "this stage has no model work to repair it: {}",
                    found.failed_check
                ),
            }
        } else {
            Step::NextAttempt
        };
        run.last_signature = Some(found.signature.clone());
        run.evidence = Some(found);
        next
    }

    /// A budget ran out: say so and escalate. A retry gives the stage more attempts.
    async fn exhausted(
        &mut self,
        run: &mut StageRun,
        stage: &StageSpec,
        budget: BudgetKind,
        detail: String,
    ) -> Step {
        self.bus.emit(Event::BudgetExhausted {
            stage: Some(stage.name.clone()),
            budget,
            detail: detail.clone(),
        });
        match self.escalate(stage, budget, &detail, run.attempt).await {
            Ok(extra) => {
                if budget == BudgetKind::Attempts {
                    // That attempt number was never started; the retry takes it.
                    run.attempt -= 1;
                }
                run.max_attempts = run.attempt + extra;
                run.last_signature = None;
                Step::NextAttempt
            }
            Err(end) => Step::End(end),
        }
    }

    /// The device failure a command met (its connection still lost after the retries), as the
    /// message that ends the session (exit 3): the device is needed to judge the stage.
    pub(super) fn device_failure(&self) -> Option<String> {
        let failure = self.device.as_ref()?.take_failure()?;
        Some(format!(
            "{failure}. The session stops here: the stage cannot be judged without the device. \
             Check the device and the connection, then continue with `aipc resume`."
        ))
    }

    /// Run the stage's checks as attempt `attempt` (0: checks first) and record the build
    /// outputs they left.
    async fn run_checks(&mut self, stage: &StageSpec, attempt: u32) -> checks::ChecksOutcome {
        let outcome = CheckRunner {
            bus: &self.bus,
            dir: self.workspace.root(),
            logs: &self.paths.logs,
            env: &self.env,
            env_remove: &self.env_remove,
            cancel: &self.control.cancel,
            sandbox: &self.sandbox,
            seal: &self.seal,
        }
        .run_all(&stage.name, attempt, &stage.checks)
        .await;
        self.record_artifacts(&stage.name);
        outcome
    }

    /// The checks passed: tag the checkpoint and say so.
    fn pass_stage(
        &mut self,
        stage: &StageSpec,
        attempts: u32,
        started: Instant,
        summary: String,
    ) -> StageEnd {
        match self.repo.tag_checkpoint(&stage.name) {
            Ok((tag, commit)) => {
                self.bus.emit(Event::CheckpointMade {
                    stage: stage.name.clone(),
                    commit,
                    tag,
                });
                self.bus.emit(Event::StagePassed {
                    stage: stage.name.clone(),
                    attempts,
                    duration_ms: started.elapsed().as_millis() as u64,
                });
                StageEnd::Passed(summary)
            }
            Err(e) => StageEnd::Engine(format!("git tag: {e}")),
        }
    }

    /// Reduce a failed check to evidence and record it.
    fn collect_evidence(
        &mut self,
        stage: &StageSpec,
        attempt: u32,
        failure: crate::evidence::Failure,
    ) -> Evidence {
        let classified = self.setup.options.classified_evidence;
        let mut found = self.setup.classifier.classify(&failure, classified);
        // The checks found no artifact (or failed otherwise unclassified) after a toolbox call
        // failed in this attempt: that call's failure is the cause, and its signature (e.g.
        // export.data_dependent_guard) is what the model must repair.
        if found.class.is_none() {
            if let Some((tool, tool_failure)) = self.tool_failure.take() {
                let cause = self.setup.classifier.classify(&tool_failure, classified);
                if cause.class.is_some() {
                    found = Evidence {
                        failed_check: format!(
                            "{} (after `{tool}` failed in this attempt)",
                            found.failed_check
                        ),
                        ..cause
                    };
                }
            }
        }
        self.bus.emit(Event::EvidenceCollected {
            stage: stage.name.clone(),
            attempt,
            evidence: found.clone(),
        });
        found
    }

    /// A budget ran out. Batch: the stage fails. Interactive: wait for the engineer; `Ok(n)`
    /// grants `n` more attempts.
    async fn escalate(
        &mut self,
        stage: &StageSpec,
        budget: BudgetKind,
        detail: &str,
        attempt: u32,
    ) -> Result<u32, StageEnd> {
        let exit_code = if stage.agent {
            exit::STAGE_FAILED
        } else {
            exit::ENVIRONMENT
        };
        let attempts_used = if budget == BudgetKind::Attempts {
            attempt - 1
        } else {
            attempt
        };
        if self.setup.options.batch {
            self.bus.emit(Event::StageFailed {
                stage: stage.name.clone(),
                attempts: attempts_used,
                reason: detail.to_string(),
            });
            return Err(StageEnd::Failed { exit_code });
        }
        self.bus.emit(Event::Paused {
            reason: format!(
                "stage {} needs you: {detail} (retry, take over, roll back, skip or abort)",
                stage.name
            ),
            cause: PauseCause::Escalation,
        });
        loop {
            let Some(command) = self.control.next().await else {
                self.bus.emit(Event::StageFailed {
                    stage: stage.name.clone(),
                    attempts: attempts_used,
                    reason: format!("{detail}; no engineer is connected"),
                });
                return Err(StageEnd::Failed { exit_code });
            };
            match command {
                Command::Resume => {
                    self.human(EngineerAction::Retry, "resume after escalation");
                    self.bus.emit(Event::Resumed);
                    self.raise_budget(budget);
                    return Ok(stage.attempts);
                }
                other => match self.apply_command(other).await {
                    Ok(()) => {}
                    Err(stop) => {
                        return match self.stop_to_end(stop) {
                            Ok(extra) => {
                                self.bus.emit(Event::Resumed);
                                self.raise_budget(budget);
                                Ok(extra)
                            }
                            Err(end) => Err(end),
                        };
                    }
                },
            }
        }
    }

    /// Retrying after a global budget ran out gives that budget as much again.
    fn raise_budget(&mut self, budget: BudgetKind) {
        if let Some(raised) = self.budgets.raise(budget) {
            self.bus.emit(raised);
        }
    }

    /// Turn an interruption into how the stage ends; `Ok(n)` means retry with `n` attempts.
    fn stop_to_end(&mut self, stop: Stop) -> Result<u32, StageEnd> {
        match stop {
            Stop::Interrupt(Interrupt::Abort) => Err(StageEnd::Aborted),
            Stop::Interrupt(Interrupt::SkipStage) => Err(StageEnd::Skipped),
            Stop::Interrupt(Interrupt::RollbackTo { tag }) => Err(StageEnd::Rollback(tag)),
            Stop::Interrupt(Interrupt::RetryStage { extra_attempts }) => {
                Ok(extra_attempts.unwrap_or(1).max(1))
            }
            Stop::Model(message) => Err(StageEnd::Model(message)),
            Stop::Engine(message) => Err(StageEnd::Engine(message)),
            Stop::Escalate { .. } => Err(StageEnd::Failed {
                exit_code: exit::STAGE_FAILED,
            }),
        }
    }
}
