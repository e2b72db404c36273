//! The engineer's side of a session as the engine handles it: waiting for a verdict on a call,
//! for an answer, while paused or taken over, and applying the commands that arrive at the
//! engine's decision points (before a model turn, before a call, at an escalation).

use super::control::Interrupt;
use super::{Engine, Stop};
use crate::protocol::{BudgetKind, Command, Decider, EngineerAction, Event, PauseCause};

/// The engineer's verdict on a call that waited for approval.
pub(super) enum Decision {
    /// Run it, with these arguments when the engineer edited them.
    Approve(Option<serde_json::Value>),
    Reject(String),
}

impl Engine {
    /// Wait for the engineer's verdict on `call_id`; other commands are applied meanwhile.
    pub(super) async fn await_decision(&mut self, call_id: &str) -> Result<Decision, Stop> {
        loop {
            let Some(command) = self.control.next().await else {
                return Err(Stop::Escalate {
                    budget: BudgetKind::HumanNeeded,
                    detail: format!("call {call_id} needs approval and no engineer is connected"),
                });
            };
            match command {
                Command::Approve { call_id: id } if id == call_id => {
                    self.bus.emit(Event::ToolCallApproved {
                        call_id: id,
                        by: Decider::Human,
                    });
                    return Ok(Decision::Approve(None));
                }
                Command::Reject {
                    call_id: id,
                    reason,
                } if id == call_id => {
                    self.human(EngineerAction::Reject, &format!("{id}: {reason}"));
                    self.bus.emit(Event::ToolCallRejected {
                        call_id: id,
                        reason: reason.clone(),
                        by: Decider::Human,
                    });
                    return Ok(Decision::Reject(reason));
                }
                Command::EditCall { call_id: id, args } if id == call_id => {
                    self.human(EngineerAction::EditCall, &id);
                    self.bus.emit(Event::ToolCallEdited {
                        call_id: id.clone(),
                        args: args.clone(),
                    });
                    self.bus.emit(Event::ToolCallApproved {
                        call_id: id,
                        by: Decider::Human,
                    });
                    return Ok(Decision::Approve(Some(args)));
                }
                other => self.apply_command(other).await?,
            }
        }
    }

    /// Wait for a hint that answers the model's question.
    pub(super) async fn await_answer(&mut self) -> Result<String, Stop> {
        loop {
            match self.control.next().await {
                None => {
                    return Err(Stop::Escalate {
                        budget: BudgetKind::HumanNeeded,
                        detail: "the model asked a question and no engineer is connected"
                            .to_string(),
                    })
                }
                Some(Command::Hint { text }) => {
                    self.human(EngineerAction::Answer, &text);
                    return Ok(text);
                }
                Some(other) => self.apply_command(other).await?,
            }
        }
    }

    /// A decision point: apply queued commands; while paused, wait.
    pub(super) async fn poll_point(&mut self) -> Result<(), Stop> {
        while let Some(command) = self.control.try_next() {
            self.apply_command(command).await?;
        }
        while self.control.paused {
            match self.control.next().await {
                Some(command) => self.apply_command(command).await?,
                None => return Err(Interrupt::Abort.into()),
            }
        }
        if self.control.aborted() {
            return Err(Interrupt::Abort.into());
        }
        Ok(())
    }

    /// Apply one command outside an approval prompt.
    pub(super) async fn apply_command(&mut self, command: Command) -> Result<(), Stop> {
        match command {
            Command::Pause => {
                if !self.control.paused {
                    self.control.paused = true;
                    self.bus.emit(Event::Paused {
                        reason: "paused by the engineer".to_string(),
                        cause: PauseCause::Engineer,
                    });
                }
            }
            Command::Resume => {
                if self.control.paused {
                    self.control.paused = false;
                    self.bus.emit(Event::Resumed);
                }
            }
            Command::StepMode { on } => {
                self.control.step_mode = on;
                self.bus.emit(Event::StepMode { on });
            }
            Command::Hint { text } => self.add_hint(text)?,
            Command::TakeoverBegin => self.takeover().await?,
            // Stale verdicts (the call already ran or was cancelled) and a hand-back without a
            // takeover change nothing.
            Command::Approve { .. }
            | Command::Reject { .. }
            | Command::EditCall { .. }
            | Command::TakeoverEnd { .. } => {}
            Command::RetryStage { extra_attempts } => {
                self.human(EngineerAction::RetryStage, "");
                return Err(Interrupt::RetryStage { extra_attempts }.into());
            }
            Command::SkipStage => {
                self.human(EngineerAction::SkipStage, "");
                return Err(Interrupt::SkipStage.into());
            }
            Command::RollbackTo { tag } => {
                self.human(EngineerAction::Rollback, &tag);
                return Err(Interrupt::RollbackTo { tag }.into());
            }
            Command::Abort => {
                self.human(EngineerAction::Abort, "");
                return Err(Interrupt::Abort.into());
            }
        }
        Ok(())
    }

    /// A note from the engineer for the model's next turn.
    pub(super) fn add_hint(&mut self, text: String) -> Result<(), Stop> {
        self.human(EngineerAction::Hint, &text);
        self.bus.emit(Event::HintAdded { text: text.clone() });
        let note = self
            .setup
            .prompts
            .render("hint.md.j2", minijinja::context! { text => text })
            .map_err(|e| Stop::Engine(e.to_string()))?;
        self.pending_notes.push(note);
        Ok(())
    }

    /// The engineer works in the worktree until they hand back; their change is committed,
    /// recorded with its diff, and shown to the model.
    pub(super) async fn takeover(&mut self) -> Result<(), Stop> {
        self.human(
            EngineerAction::TakeoverBegin,
            &self.repo.worktree().display().to_string(),
        );
        self.bus.emit(Event::Paused {
            reason: "taken over by the engineer".to_string(),
            cause: PauseCause::Takeover,
        });
        let note = loop {
            match self.control.next().await {
                Some(Command::TakeoverEnd { note }) => break note,
                Some(Command::Abort) | None => return Err(Interrupt::Abort.into()),
                Some(Command::Hint { text }) => self.add_hint(text)?,
                // Everything else waits until the engineer hands back.
                Some(other) => self.control.defer(other),
            }
        };
        let diffs = self
            .repo
            .uncommitted_diffs()
            .map_err(|e| Stop::Engine(format!("git diff after takeover: {e}")))?;
        for diff in &diffs {
            self.bus.emit(Event::FileChanged {
                call_id: None,
                diff: diff.clone(),
            });
        }
        if let Err(e) = self
            .repo
            .commit_all("aipc: the engineer's changes (takeover)")
        {
            return Err(Stop::Engine(format!("git commit after takeover: {e}")));
        }
        self.bus.emit(Event::HumanAction {
            action: EngineerAction::TakeoverEnd,
            detail: note.clone().unwrap_or_default(),
            diffs: diffs.clone(),
        });
        let text = self
            .setup
            .prompts
            .render(
                "human_action.md.j2",
                minijinja::context! { note => note, diffs => diffs },
            )
            .map_err(|e| Stop::Engine(e.to_string()))?;
        self.pending_notes.push(text);
        self.bus.emit(Event::Resumed);
        Ok(())
    }

    pub(super) fn human(&self, action: EngineerAction, detail: &str) {
        self.bus.emit(Event::HumanAction {
            action,
            detail: detail.to_string(),
            diffs: Vec::new(),
        });
    }
}
