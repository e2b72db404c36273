//! One attempt of a stage: a fresh conversation (the stage prompt, the evidence of the last
//! failure when it is a repair), then model turns — each one request, one reply parsed as a
//! tool call, one call through the pipeline ([`super::call`]) — until the model finishes the
//! stage, repeats itself, or the turn budget ends. When the conversation outgrows the
//! model's context, older tool outputs are folded.

use super::call::CallResult;
use super::control::Interrupt;
use super::{narrowing, tool, Engine, Stop};
use crate::contract::StageSpec;
use crate::conversation::{self, Conversation, OfferedTool};
use crate::model::{ModelError, ModelRequest, Role};
use crate::protocol::{Event, Evidence};
use std::sync::Arc;

/// How an attempt's model work ended (the checks run after each).
pub(super) enum AttemptEnd {
    /// The model called `finish_stage` with this summary.
    Finished(String),
    TurnsExhausted,
    /// The model made the same call with the same result several times in a row.
    Looping(u32),
}

/// Identical calls with identical results in a row after which the attempt ends and the checks
/// run (a small model's loop; the checks decide whether the work is done).
const MAX_REPEATED_CALLS: u32 = 2;

impl Engine {
    /// One attempt of agent turns, ending at `finish_stage` or the turn budget.
    pub(super) async fn agent_attempt(
        &mut self,
        index: usize,
        stage: &StageSpec,
        attempt: u32,
        max_attempts: u32,
        evidence: Option<&Evidence>,
    ) -> Result<AttemptEnd, Stop> {
        // Each attempt opens a fresh conversation: repeats count within it only.
        self.last_call = None;
        self.repeated_calls = 0;
        // A retry of the stage keeps the named calls its earlier attempts made.
        self.narrowing = if attempt > 1 {
            self.narrowing.next_attempt(stage.main_tool.as_deref())
        } else {
            narrowing::Narrowing::new(stage.main_tool.as_deref())
        };
        if let Some(evidence) = evidence {
            self.narrowing.saw_evidence();
            let made = self.narrowing.follow_evidence(&evidence.candidate_fixes);
            if !made.is_empty() {
                let calls: Vec<String> = made
                    .iter()
                    .map(|c| format!("{} {}", c.tool, c.args))
                    .collect();
                self.pending_notes.push(format!(
                    "Made in an earlier attempt of this stage, and its checks still failed: {}. \
                     Choose another repair.",
                    calls.join("; ")
                ));
            }
        }
        let offered: Vec<OfferedTool> =
            tool::offered(stage, &self.setup.toolbox, &self.offered_skills(stage))
                .into_iter()
                .map(OfferedTool::from)
                .collect();
        let mut conversation =
            self.open_conversation(index, stage, &offered, attempt, max_attempts, evidence)?;
        let mut sent = 0;
        for _ in 0..stage.turns_per_attempt {
            self.poll_point().await?;
            for note in std::mem::take(&mut self.pending_notes) {
                conversation.push(Role::User, note);
            }
            if let Err(exhausted) = self.budgets.check() {
                return Err(Stop::Escalate {
                    budget: exhausted.budget,
                    detail: exhausted.detail,
                });
            }
            let request_id = self.next_request;
            self.next_request += 1;
            // The constraint offers this turn's choices; the prompt still lists the stage's.
            let offered_now = if self.setup.options.narrow_choices {
                self.narrowing.offered(&offered)
            } else {
                offered.clone()
            };
            // A tool named by the evidence with two argument sets is offered twice.
            let mut names: Vec<String> = Vec::new();
            for tool in &offered_now {
                if !names.contains(&tool.name) {
                    names.push(tool.name.clone());
                }
            }
            let call_schema = conversation::call_schema(&offered_now);
            self.bus.emit(Event::ModelRequest {
                request_id,
                stage: stage.name.clone(),
                new_messages: conversation.messages[sent..]
                    .iter()
                    .map(|m| (m.role.as_str().to_string(), m.content.clone()))
                    .collect(),
                total_messages: conversation.messages.len(),
                tools: names.clone(),
            });
            sent = conversation.messages.len();
            let max_reply_tokens = self.setup.options.max_reply_tokens;
            let request = ModelRequest {
                messages: conversation.messages.clone(),
                call_schema,
                max_tokens: max_reply_tokens,
            };
            let bus = Arc::clone(&self.bus);
            let mut on_delta = move |text: &str| {
                bus.emit(Event::ModelDelta {
                    request_id,
                    text: text.to_string(),
                })
            };
            let reply = match self
                .ask_model(request_id, &mut conversation, request, &mut on_delta)
                .await
            {
                Ok(reply) => reply,
                Err(ModelError::Cancelled) => return Err(Interrupt::Abort.into()),
                Err(e) => return Err(Stop::Model(e.to_string())),
            };
            self.budgets
                .spend_tokens(reply.prompt_tokens + reply.completion_tokens);
            self.bus.emit(Event::ModelResponse {
                request_id,
                text: reply.text.clone(),
                prompt_tokens: reply.prompt_tokens,
                completion_tokens: reply.completion_tokens,
                cached_tokens: reply.cached_tokens,
                duration_ms: reply.duration_ms,
            });
            conversation.push(Role::Assistant, reply.text.clone());
            sent += 1;
            let call = match conversation::parse_reply(&reply.text, &names) {
                Ok(call) => call,
                Err(error) => {
                    let error = if reply.completion_tokens >= u64::from(max_reply_tokens) {
                        format!(
                            "your reply was cut at the reply limit ({max_reply_tokens} tokens) \
                             before it closed: write a short call (a thought of one sentence, \
                             only the arguments you need, lists of a few items). {error}"
                        )
                    } else {
                        error
                    };
                    self.bus.emit(Event::ModelInvalidCall {
                        request_id,
                        error: error.clone(),
                    });
                    conversation.push(Role::Tool, format!("[invalid call]\n{error}"));
                    continue;
                }
            };
            // Unique over the session, even when a stage runs again after a retry or rollback.
            self.next_call += 1;
            let call_id = format!("{}.{}", stage.name, self.next_call);
            let policy = tool::policy(stage, &call.tool);
            let result = self.run_call(stage, &call_id, call, policy).await?;
            if let Some(message) = self.device_failure() {
                return Err(Stop::Engine(message));
            }
            match result {
                CallResult::Observation(text) => conversation.push(Role::Tool, text),
                CallResult::Finish(summary) => return Ok(AttemptEnd::Finished(summary)),
            }
            if self.repeated_calls >= MAX_REPEATED_CALLS {
                return Ok(AttemptEnd::Looping(self.repeated_calls));
            }
        }
        Ok(AttemptEnd::TurnsExhausted)
    }

    /// Ask the model; when the conversation no longer fits its context, fold older tool
    /// outputs and ask again (at most twice), recording each compaction.
    async fn ask_model(
        &mut self,
        request_id: u64,
        conversation: &mut Conversation,
        mut request: ModelRequest,
        on_delta: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<crate::model::ModelReply, ModelError> {
        let cancel = self.control.cancel.clone();
        let mut fold_steps = [2usize, 0].into_iter();
        loop {
            let reply = tokio::select! {
                reply = self.model.complete(&request, on_delta) => reply,
                () = cancel.cancelled() => Err(ModelError::Cancelled),
            };
            let Err(ModelError::ContextOverflow { .. }) = &reply else {
                return reply;
            };
            let chars_before = conversation.chars();
            let folded = loop {
                match fold_steps.next() {
                    Some(keep_recent) => {
                        let folded = conversation.compact(keep_recent);
                        if folded > 0 {
                            break folded;
                        }
                    }
                    // Nothing left to fold: the overflow stands.
                    None => return reply,
                }
            };
            self.bus.emit(Event::Compacted {
                request_id,
                folded,
                chars_before,
                chars_after: conversation.chars(),
            });
            request.messages = conversation.messages.clone();
        }
    }

    pub(super) fn open_conversation(
        &self,
        index: usize,
        stage: &StageSpec,
        offered: &[OfferedTool],
        attempt: u32,
        max_attempts: u32,
        evidence: Option<&Evidence>,
    ) -> Result<Conversation, Stop> {
        let skills: Vec<(String, String)> = self
            .offered_skills(stage)
            .iter()
            .filter_map(|name| self.setup.skills.get(name))
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect();
        let previous: Vec<String> = self
            .done
            .iter()
            .take(index)
            .map(|(name, summary)| format!("{name}: {summary}"))
            .collect();
        conversation::open_conversation(
            &self.setup.prompts,
            &conversation::StagePrompt {
                target: &self.setup.contract.target,
                stage,
                stage_index: index,
                stage_count: self.setup.contract.stages.len(),
                tools: offered,
                skills: &skills,
                previous: &previous,
                repair: evidence.map(|evidence| (attempt, max_attempts, evidence)),
            },
        )
        .map_err(|e| Stop::Engine(e.to_string()))
    }

    pub(super) fn offered_skills(&self, stage: &StageSpec) -> Vec<String> {
        if !self.setup.options.offer_skills {
            return Vec::new();
        }
        stage
            .skills
            .iter()
            .filter(|name| self.setup.skills.get(name).is_some())
            .cloned()
            .collect()
    }
}
