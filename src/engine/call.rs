//! The call pipeline: one tool call the model proposed goes through
//! **decide** (the contract's policy, the engineer, or batch mode) → **dispatch** (the
//! [`Tool`] runs in the worktree; output, file changes and its end are events) →
//! **observe** (repeat detection, narrowing of the next turn's choices, the observation the
//! model reads, and what a control tool asks of the engine).
//!
//! Every proposed call ends with exactly one `tool_call_finished`, whether it ran, was
//! rejected or was cancelled.

use super::human::Decision;
use super::narrowing;
use super::tool::{self, Classify, Tool, ToolRun};
use super::{Engine, Stop};
use crate::contract::StageSpec;
use crate::conversation::ToolCall;
use crate::protocol::{BudgetKind, CallStatus, Decider, Event, PauseCause, Policy};
use crate::tools::{ToolContext, ToolControl};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::control::Interrupt;

/// What the attempt does after a call.
pub(super) enum CallResult {
    /// Tell the model this and go on.
    Observation(String),
    /// The model ended the stage with this summary: the checks decide.
    Finish(String),
}

/// How a call was decided.
enum Verdict {
    /// Run it with these arguments.
    Run(serde_json::Value),
    /// It does not run; the model is told this.
    Rejected(String),
}

impl Engine {
    /// Propose, decide, dispatch and observe one call; the observation (or the stage's end)
    /// comes back.
    pub(super) async fn run_call(
        &mut self,
        stage: &StageSpec,
        call_id: &str,
        call: ToolCall,
        policy: Policy,
    ) -> Result<CallResult, Stop> {
        self.bus.emit(Event::ToolCallProposed {
            call_id: call_id.to_string(),
            tool: call.tool.clone(),
            args: call.args.clone(),
            thought: call.thought.clone(),
            policy,
        });
        let args = match self.decide(call_id, &call, policy).await {
            Ok(Verdict::Run(args)) => args,
            Ok(Verdict::Rejected(observation)) => {
                self.end_unrun_call(call_id, CallStatus::Rejected, &observation);
                return Ok(CallResult::Observation(observation));
            }
            Err(stop) => {
                self.end_unrun_call(call_id, CallStatus::Cancelled, "cancelled before it ran");
                return Err(stop);
            }
        };
        // A cancelled turn never runs its call.
        if let Err(stop) = self.poll_point().await {
            self.end_unrun_call(call_id, CallStatus::Cancelled, "cancelled before it ran");
            return Err(stop);
        }
        let is_script = self.setup.toolbox.get(&call.tool).is_some();
        // A script edits files behind the engine's back: compare the worktree before and
        // after to know whether it changed the project (build outputs are artifacts and do
        // not count).
        let worktree_before = is_script
            .then(|| self.repo.uncommitted_diffs().ok())
            .flatten();
        let run = self.dispatch(stage, call_id, &call.tool, &args).await;
        if is_script {
            // Toolbox scripts write the build outputs; record them as they appear.
            self.record_artifacts(&stage.name);
        }
        if self.control.aborted() {
            return Err(Interrupt::Abort.into());
        }
        let changed_files = !run.result.diffs.is_empty()
            || worktree_before.is_some_and(|before| {
                self.repo
                    .uncommitted_diffs()
                    .is_ok_and(|after| after != before)
            });
        self.observe(&call.tool, &args, is_script, changed_files, run)
            .await
    }

    /// The contract's policy, the engineer (interactive, for `ask` calls or in step mode), or
    /// batch mode decides whether the call runs.
    async fn decide(
        &mut self,
        call_id: &str,
        call: &ToolCall,
        policy: Policy,
    ) -> Result<Verdict, Stop> {
        let needs_human = policy == Policy::Ask || self.control.step_mode;
        if policy == Policy::Deny {
            return Ok(self.reject_unasked(
                call_id,
                call,
                "the contract denies this tool in this stage",
                Decider::Policy,
            ));
        }
        if needs_human && !self.setup.options.batch {
            return Ok(match self.await_decision(call_id).await? {
                Decision::Approve(edited) => Verdict::Run(edited.unwrap_or(call.args.clone())),
                Decision::Reject(reason) => {
                    Verdict::Rejected(format!("[{} rejected by the engineer] {reason}", call.tool))
                }
            });
        }
        if needs_human && !self.setup.options.approve_all {
            // Nobody is there to ask: an `ask` call is denied, never silently allowed.
            return Ok(self.reject_unasked(
                call_id,
                call,
                "the contract asks an engineer to approve this tool, and this batch run has none \
                 (`--approve-all` approves such calls)",
                Decider::Batch,
            ));
        }
        self.bus.emit(Event::ToolCallApproved {
            call_id: call_id.to_string(),
            by: if needs_human {
                Decider::Batch
            } else {
                Decider::Policy
            },
        });
        Ok(Verdict::Run(call.args.clone()))
    }

    /// A call rejected without an engineer (`by` the policy, or batch mode), recorded with
    /// `reason`, which the model is told.
    fn reject_unasked(&self, call_id: &str, call: &ToolCall, reason: &str, by: Decider) -> Verdict {
        self.bus.emit(Event::ToolCallRejected {
            call_id: call_id.to_string(),
            reason: reason.to_string(),
            by,
        });
        Verdict::Rejected(format!("[{} rejected] {reason}", call.tool))
    }

    /// The end of a call that never ran.
    fn end_unrun_call(&self, call_id: &str, status: CallStatus, observation: &str) {
        self.bus.emit(Event::ToolCallFinished {
            call_id: call_id.to_string(),
            ok: false,
            status,
            observation: observation.to_string(),
            exit_code: None,
            duration_ms: 0,
        });
    }

    /// Run the tool in the worktree, streaming its output and changes as events, and end the
    /// call.
    async fn dispatch(
        &mut self,
        stage: &StageSpec,
        call_id: &str,
        tool_name: &str,
        args: &serde_json::Value,
    ) -> ToolRun {
        self.bus.emit(Event::ToolCallStarted {
            call_id: call_id.to_string(),
            tool: tool_name.to_string(),
        });
        let started = Instant::now();
        let bus = Arc::clone(&self.bus);
        let output_id = call_id.to_string();
        let on_output = move |stream, line: &str| {
            bus.emit(Event::ToolOutput {
                call_id: output_id.clone(),
                stream,
                line: line.to_string(),
            })
        };
        let offered_skills = self.offered_skills(stage);
        let skills = &self.setup.skills;
        let load_skill = |name: &str| {
            if offered_skills.iter().any(|s| s == name) {
                skills.render_for_model(name)
            } else {
                Err(format!(
                    "skill \"{name}\" is not offered in this stage; offered: {}",
                    if offered_skills.is_empty() {
                        "none".to_string()
                    } else {
                        offered_skills.join(", ")
                    }
                ))
            }
        };
        // A stage that denies a file-editing tool denies the same effect through `run`: its
        // commands see the worktree read-only (except the build outputs).
        let sandbox = if tool_name == "run" && tool::denies_file_edits(stage) {
            self.sandbox.with_read_only_workspace()
        } else {
            self.sandbox.clone()
        };
        let ctx = ToolContext {
            workspace: &self.workspace,
            cancel: self.control.cancel.clone(),
            on_output: &on_output,
            load_skill: &load_skill,
            run_timeout: Duration::from_secs(stage.run_timeout_s),
            env: &self.env,
            env_remove: &self.env_remove,
            sandbox: &sandbox,
            spill: Some(self.paths.logs.join(format!("{call_id}.out"))),
        };
        let python = self.setup.toolchain.python();
        let classify = Classify {
            classifier: &self.setup.classifier,
            classified: self.setup.options.classified_evidence,
            python: &python,
        };
        let tool = Tool::resolve(tool_name, &self.setup.toolbox);
        let run = tool.run(args, &ctx, &classify).await;
        if tool.is_script() {
            // The last failure of a script stays the stage's suspect cause until the same
            // script succeeds.
            if run.result.ok {
                if self
                    .tool_failure
                    .as_ref()
                    .is_some_and(|(failed, _)| *failed == tool_name)
                {
                    self.tool_failure = None;
                }
            } else if let Some((failure, _)) = &run.failure {
                self.tool_failure = Some((tool_name.to_string(), failure.clone()));
            }
        }
        for diff in &run.result.diffs {
            self.bus.emit(Event::FileChanged {
                call_id: Some(call_id.to_string()),
                diff: diff.clone(),
            });
        }
        let status = match (run.result.ok, self.control.aborted()) {
            (true, _) => CallStatus::Ok,
            (false, true) => CallStatus::Cancelled,
            (false, false) => CallStatus::Failed,
        };
        self.bus.emit(Event::ToolCallFinished {
            call_id: call_id.to_string(),
            ok: run.result.ok,
            status,
            observation: run.result.observation.clone(),
            exit_code: run.result.exit_code,
            duration_ms: started.elapsed().as_millis() as u64,
        });
        run
    }

    /// What the call means for the attempt: a repeat, the next turn's choices, the
    /// observation the model reads, and a control tool's request.
    async fn observe(
        &mut self,
        tool: &str,
        args: &serde_json::Value,
        is_script: bool,
        changed_files: bool,
        run: ToolRun,
    ) -> Result<CallResult, Stop> {
        let result = run.result;
        // The same call with the same outcome as the one before: a small model's loop; the
        // observation says so (prompts/observation.md.j2). Compared as a re-run compares it
        // (no timings, no raw log tail: a script's stdout and stderr interleave differently
        // each time) and without digits.
        let observed: String =
            crate::toolbox::observation::mask_result_timings(&result.observation)
                .chars()
                .filter(|c| !c.is_ascii_digit())
                .collect();
        let call_key = format!("{tool} {args} {} {observed}", result.ok);
        let repeated = self.last_call.as_deref() == Some(call_key.as_str());
        self.repeated_calls = if repeated { self.repeated_calls + 1 } else { 0 };
        self.last_call = Some(call_key);
        if result.ok && changed_files {
            // The inputs changed: an earlier toolbox failure no longer explains a failed check.
            self.tool_failure = None;
        }
        let named_next = match (&run.failure, result.ok) {
            (Some((_, fixes)), false) => fixes.as_slice(),
            (_, true) => run.next_calls.as_slice(),
            _ => &[],
        };
        let next_step = self.narrowing.after_call(&narrowing::CallOutcome {
            tool,
            args: &args.to_string(),
            ok: result.ok,
            observed: &observed,
            changed_files,
            toolbox: is_script,
            fixes: named_next,
        });
        let observation = self
            .setup
            .prompts
            .render(
                "observation.md.j2",
                minijinja::context! {
                    tool => tool, ok => result.ok, exit_code => result.exit_code,
                    observation => result.observation, toolbox => is_script,
                    repeated => repeated, next_step => next_step,
                },
            )
            .map_err(|e| Stop::Engine(e.to_string()))?;
        match result.control {
            Some(ToolControl::FinishStage { summary }) => Ok(CallResult::Finish(summary)),
            Some(ToolControl::AskHuman { question }) => {
                if self.setup.options.batch {
                    return Err(Stop::Escalate {
                        budget: BudgetKind::HumanNeeded,
                        detail: format!("the model asks a human, and none is present: {question}"),
                    });
                }
                self.bus.emit(Event::Paused {
                    reason: format!("the model asks: {question} (answer with a hint)"),
                    cause: PauseCause::Question,
                });
                let answer = self.await_answer().await?;
                self.bus.emit(Event::Resumed);
                Ok(CallResult::Observation(format!(
                    "{observation}\nThe engineer answers: {answer}"
                )))
            }
            None => Ok(CallResult::Observation(observation)),
        }
    }
}
