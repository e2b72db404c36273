//! [`App`]: the UI's own state — which pane has focus, scroll positions, the open overlay, the
//! takeover in progress — and the translation of keys and mouse into [`Command`]s for the
//! engine. No terminal and no engine logic: the runner feeds it input and events, takes the
//! commands it queued, and draws. With `read_only` (replay) no command is ever queued; in a
//! replay ([`App::for_replay`]) the replay keys queue [`ReplayCommand`]s for the controller
//! instead, and [`App::replay`] is what the timeline bar shows.

use super::keys::{self, Action, Context};
use super::player::ReplayCommand;
use super::prompt::{Edit, Input, InputPurpose, Pick, PickItem, Picker, PickerPurpose};
use super::stage_diffs::{Range, StageDiffWorker};
use super::state::TuiState;
use super::takeover::{self, Program};
use super::views::diff::{self, DiffKey};
use super::views::layout::{Areas, Pane};
use super::views::timeline::Timeline;
use crate::protocol::{Command, FileDiff};
use crossterm::event::{KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::text::Line;
use std::path::Path;

/// What the engineer confirms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirm {
    Abort,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help,
    Confirm(Confirm),
    Input(Input),
    Picker(Picker),
}

/// The log pane's position: following the end, or scrolled to `top`.
#[derive(Debug, Clone, PartialEq)]
pub struct LogView {
    pub follow: bool,
    pub top: u64,
    pub left: usize,
    pub search: Option<String>,
    pub matched: Option<u64>,
}

/// The diff pane: which change (`None`: the newest), per change or the whole stage.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffView {
    pub selected: Option<usize>,
    pub stage_mode: bool,
    pub scroll: usize,
}

/// Where a takeover is.
#[derive(Debug, Clone, PartialEq)]
pub enum TakeoverPhase {
    Idle,
    /// `TakeoverBegin` sent; the program starts once the engine has stopped.
    Requested(Program),
}

pub use super::stage_diffs::StageDiffs;

pub struct App {
    pub read_only: bool,
    pub focus: Pane,
    pub overlay: Option<Overlay>,
    pub log: LogView,
    /// Transcript lines scrolled back from the bottom.
    pub transcript_back: usize,
    pub diff: DiffView,
    pub gates_scroll: usize,
    pub flash: Option<String>,
    pub quit: bool,
    pub quit_when_finished: bool,
    /// The event source closed: no session end will come, and no command is taken.
    pub engine_gone: bool,
    pub takeover: TakeoverPhase,
    pub areas: Areas,
    /// Stage diffs, computed off the UI thread (a live session; `None` in a replay).
    stage_diffs: Option<StageDiffWorker>,
    /// The diff pane's rendered content (rendering a big diff every frame would be slow).
    pub diff_cache: Option<(DiffKey, String, Vec<Line<'static>>)>,
    outbox: Vec<Command>,
    /// A replay: where it is (the timeline bar). `None` in a live session.
    pub replay: Option<Timeline>,
    replay_outbox: Vec<ReplayCommand>,
}

impl App {
    pub fn new(read_only: bool) -> Self {
        App {
            read_only,
            focus: Pane::Transcript,
            overlay: None,
            log: LogView {
                follow: true,
                top: 0,
                left: 0,
                search: None,
                matched: None,
            },
            transcript_back: 0,
            diff: DiffView::default(),
            gates_scroll: 0,
            flash: None,
            quit: false,
            quit_when_finished: false,
            engine_gone: false,
            takeover: TakeoverPhase::Idle,
            areas: Areas::default(),
            stage_diffs: None,
            diff_cache: None,
            outbox: Vec::new(),
            replay: None,
            replay_outbox: Vec::new(),
        }
    }

    /// The app of a replay: read-only, with the replay keys and the timeline bar.
    pub fn for_replay(timeline: Timeline) -> Self {
        let mut app = App::new(true);
        app.replay = Some(timeline);
        app
    }

    /// The replay commands queued since the last call.
    pub fn take_replay_commands(&mut self) -> Vec<ReplayCommand> {
        std::mem::take(&mut self.replay_outbox)
    }

    /// Where stage diffs come from (git in a live session); they are computed on a worker
    /// thread.
    pub fn with_stage_diffs(mut self, source: StageDiffs) -> Self {
        self.stage_diffs = Some(StageDiffWorker::spawn(source));
        self
    }

    /// The diff of a commit range, once computed (`None`: still computing).
    pub fn stage_diff(&self, range: &Range) -> Option<Result<&[FileDiff], &str>> {
        match &self.stage_diffs {
            Some(worker) => worker
                .get(range)
                .map(|result| result.as_deref().map_err(String::as_str)),
            None => Some(Err("stage diffs are not available here")),
        }
    }

    /// Take the diff worker's answers; true when one arrived (the frame is to be drawn again).
    pub fn poll_stage_diffs(&mut self) -> bool {
        let Some(worker) = &mut self.stage_diffs else {
            return false;
        };
        let arrived = worker.collect();
        if arrived.is_empty() {
            return false;
        }
        // The diff pane showed "computing…" for it: render it again.
        if let Some((DiffKey::Stage(from, to), _, _)) = &self.diff_cache {
            if arrived.iter().any(|(f, t)| f == from && t == to) {
                self.diff_cache = None;
            }
        }
        true
    }

    /// Wait until the stage diffs asked for are computed (tests).
    #[cfg(test)]
    pub fn settle_stage_diffs(&mut self) {
        if let Some(worker) = &mut self.stage_diffs {
            worker.settle(std::time::Duration::from_secs(30));
        }
        self.diff_cache = None;
    }

    /// The commands queued since the last call.
    pub fn take_commands(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.outbox)
    }

    /// After events were applied: quit when asked to once the session ended.
    pub fn after_events(&mut self, state: &TuiState) {
        if state.finished.is_some() {
            if self.quit_when_finished {
                self.quit = true;
            }
            if matches!(self.overlay, Some(Overlay::Confirm(_))) {
                self.overlay = None;
            }
        }
    }

    /// The program to start now: a takeover was requested and the engine has stopped for it.
    pub fn takeover_ready(&mut self, state: &TuiState) -> Option<Program> {
        match &self.takeover {
            TakeoverPhase::Requested(program) if state.view.taken_over => {
                let program = program.clone();
                self.takeover = TakeoverPhase::Idle;
                Some(program)
            }
            TakeoverPhase::Requested(_) if state.finished.is_some() => {
                self.takeover = TakeoverPhase::Idle;
                None
            }
            _ => None,
        }
    }

    /// The takeover program ended: ask for the hand-back note.
    pub fn takeover_done(&mut self, result: &str) {
        self.flash = Some(result.to_string());
        self.overlay = Some(Overlay::Input(Input::new(InputPurpose::HandbackNote, "")));
    }

    /// Which key contexts apply now, most specific first.
    pub fn contexts(&self, state: &TuiState) -> Vec<Context> {
        let mut contexts = Vec::new();
        if self.replay.is_some() {
            contexts.push(Context::Replay);
        }
        if state.approval.is_some() && !self.read_only {
            contexts.push(Context::Approval);
        }
        if state.escalation.is_some() && !self.read_only {
            contexts.push(Context::Escalation);
        }
        contexts.push(Context::Global);
        contexts
    }

    pub fn on_key(&mut self, key: &KeyEvent, state: &TuiState) {
        if key.kind == crossterm::event::KeyEventKind::Release {
            return;
        }
        self.flash = None;
        if let Some(overlay) = self.overlay.take() {
            self.overlay_key(overlay, key, state);
            return;
        }
        if let Some(action) = keys::action_for(key, &self.contexts(state)) {
            self.act(action, state);
        }
    }

    pub fn on_mouse(&mut self, mouse: &MouseEvent, state: &TuiState) {
        let delta: i64 = match mouse.kind {
            MouseEventKind::ScrollUp => -3,
            MouseEventKind::ScrollDown => 3,
            _ => return,
        };
        if let Some(pane) = self.areas.pane_at(mouse.column, mouse.row) {
            self.scroll(pane, delta, state);
        }
    }

    fn act(&mut self, action: Action, state: &TuiState) {
        match action {
            Action::PauseResume => {
                let command = if state.view.paused.is_some() {
                    Command::Resume
                } else {
                    Command::Pause
                };
                self.send(state, command);
            }
            Action::StepToggle => self.send(
                state,
                Command::StepMode {
                    on: !state.view.step_mode,
                },
            ),
            Action::Approve => {
                if let Some(approval) = &state.approval {
                    let call_id = approval.call_id.clone();
                    self.send(state, Command::Approve { call_id });
                }
            }
            Action::Reject => {
                if let Some(approval) = &state.approval {
                    let call_id = approval.call_id.clone();
                    self.prompt(state, InputPurpose::RejectReason { call_id }, "");
                }
            }
            Action::EditArgs => {
                if let Some(approval) = &state.approval {
                    let call_id = approval.call_id.clone();
                    let args = approval.args.to_string();
                    self.prompt(state, InputPurpose::EditArgs { call_id }, &args);
                }
            }
            Action::Hint => self.prompt(state, InputPurpose::Hint, ""),
            Action::Takeover => self.open_takeover(state),
            Action::Retry => {
                let attempts = state
                    .current_stage()
                    .map(|s| s.max_attempts.max(1))
                    .unwrap_or(1);
                self.prompt(state, InputPurpose::RetryAttempts, &attempts.to_string());
            }
            Action::Rollback => self.open_rollback(state),
            Action::Skip => self.send(state, Command::SkipStage),
            Action::Quit => {
                if self.read_only || state.finished.is_some() || self.engine_gone {
                    self.quit = true;
                } else {
                    self.overlay = Some(Overlay::Confirm(Confirm::Abort));
                }
            }
            Action::Help => self.overlay = Some(Overlay::Help),
            Action::FocusNext => self.focus = self.focus.next(),
            Action::FocusPrev => self.focus = self.focus.prev(),
            Action::FocusTranscript => self.focus = Pane::Transcript,
            Action::FocusLog => self.focus = Pane::Log,
            Action::FocusDiff => self.focus = Pane::Diff,
            Action::FocusGates => self.focus = Pane::Gates,
            Action::ScrollUp => self.scroll(self.focus, -1, state),
            Action::ScrollDown => self.scroll(self.focus, 1, state),
            Action::PageUp => {
                let page = self.page(self.focus);
                self.scroll(self.focus, -page, state)
            }
            Action::PageDown => {
                let page = self.page(self.focus);
                self.scroll(self.focus, page, state)
            }
            Action::Top => self.scroll(self.focus, i64::MIN / 2, state),
            Action::Bottom => self.scroll(self.focus, i64::MAX / 2, state),
            Action::Left => self.log.left = self.log.left.saturating_sub(8),
            Action::Right => self.log.left += 8,
            Action::Search => {
                self.overlay = Some(Overlay::Input(Input::new(InputPurpose::Search, "")))
            }
            Action::SearchNext => self.search_step(state, true),
            Action::SearchPrev => self.search_step(state, false),
            Action::FirstError => match state.evidence.as_ref().and_then(|e| e.anchor) {
                Some(line) => self.show_log_line(line, state),
                None => self.flash = Some("no failure with evidence yet".to_string()),
            },
            Action::Follow => {
                self.log.follow = !self.log.follow;
                if !self.log.follow {
                    self.log.top = self.log_top(state);
                }
            }
            Action::DiffPrev | Action::DiffNext => {
                let count = state.diffs.len();
                if count > 0 {
                    let current = self.diff.selected.unwrap_or(count - 1);
                    let next = if action == Action::DiffNext {
                        (current + 1).min(count - 1)
                    } else {
                        current.saturating_sub(1)
                    };
                    // The newest change again means following new ones.
                    self.diff.selected = (next + 1 < count).then_some(next);
                    self.diff.scroll = 0;
                }
                self.focus = Pane::Diff;
            }
            Action::DiffMode => {
                self.diff.stage_mode = !self.diff.stage_mode;
                self.diff.scroll = 0;
                self.focus = Pane::Diff;
            }
            Action::Replay(command) => {
                if self.replay.is_some() {
                    self.replay_outbox.push(command);
                }
            }
        }
    }

    fn overlay_key(&mut self, overlay: Overlay, key: &KeyEvent, state: &TuiState) {
        match overlay {
            Overlay::Help => {}
            Overlay::Confirm(Confirm::Abort) => {
                let ctrl_c = key.code == crossterm::event::KeyCode::Char('c')
                    && key.modifiers.contains(KeyModifiers::CONTROL);
                match key.code {
                    crossterm::event::KeyCode::Char('y') | crossterm::event::KeyCode::Enter => {
                        self.abort(state)
                    }
                    _ if ctrl_c => self.abort(state),
                    _ => {}
                }
            }
            Overlay::Input(mut input) => match input.key(key) {
                Edit::Changed => self.overlay = Some(Overlay::Input(input)),
                Edit::Cancel => {
                    if input.purpose == InputPurpose::HandbackNote {
                        self.send(state, Command::TakeoverEnd { note: None });
                    }
                }
                Edit::Submit => {
                    if let Err(message) = self.submit(&input, state) {
                        input.error = Some(message);
                        self.overlay = Some(Overlay::Input(input));
                    }
                }
            },
            Overlay::Picker(mut picker) => match picker.key(key) {
                Edit::Changed => self.overlay = Some(Overlay::Picker(picker)),
                Edit::Cancel => {}
                Edit::Submit => {
                    let Some(item) = picker.chosen().cloned() else {
                        self.overlay = Some(Overlay::Picker(picker));
                        return;
                    };
                    match item.value {
                        Pick::Tag(tag) => self.send(state, Command::RollbackTo { tag }),
                        Pick::Shell => self.request_takeover(state, Program::Shell),
                        Pick::File(path) => self.request_takeover(state, Program::Editor(path)),
                    }
                }
            },
        }
    }

    /// Enter in a prompt; `Err` keeps the prompt open with the message.
    fn submit(&mut self, input: &Input, state: &TuiState) -> Result<(), String> {
        let text = input.text.trim();
        match &input.purpose {
            InputPurpose::Hint => {
                if !text.is_empty() {
                    self.send(
                        state,
                        Command::Hint {
                            text: text.to_string(),
                        },
                    );
                }
            }
            InputPurpose::RejectReason { call_id } => {
                self.still_waiting(state, call_id)?;
                let reason = if text.is_empty() {
                    "rejected by the engineer".to_string()
                } else {
                    text.to_string()
                };
                self.send(
                    state,
                    Command::Reject {
                        call_id: call_id.clone(),
                        reason,
                    },
                );
            }
            InputPurpose::EditArgs { call_id } => {
                self.still_waiting(state, call_id)?;
                let args: serde_json::Value =
                    serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
                if !args.is_object() {
                    return Err("the arguments must be a JSON object".to_string());
                }
                self.send(
                    state,
                    Command::EditCall {
                        call_id: call_id.clone(),
                        args,
                    },
                );
            }
            InputPurpose::RetryAttempts => {
                let attempts: u32 =
                    text.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("`{text}` is not a number of attempts (1 or more)")
                    })?;
                self.send(
                    state,
                    Command::RetryStage {
                        extra_attempts: Some(attempts),
                    },
                );
            }
            InputPurpose::Search => {
                if text.is_empty() {
                    self.log.search = None;
                    self.log.matched = None;
                } else {
                    self.log.search = Some(text.to_string());
                    let (from, forward) = if self.log.follow {
                        (state.log.len().saturating_sub(1), false)
                    } else {
                        (self.log.top, true)
                    };
                    self.search_from(state, from, forward);
                }
            }
            InputPurpose::HandbackNote => {
                let note = (!text.is_empty()).then(|| text.to_string());
                self.send(state, Command::TakeoverEnd { note });
            }
        }
        Ok(())
    }

    fn still_waiting(&self, state: &TuiState, call_id: &str) -> Result<(), String> {
        match &state.approval {
            Some(approval) if approval.call_id == call_id => Ok(()),
            _ => Err(format!(
                "{call_id} no longer waits for a verdict (Esc to close)"
            )),
        }
    }

    /// Queue a command, unless commands are disabled (replay, or the session ended).
    fn send(&mut self, state: &TuiState, command: Command) {
        if let Some(reason) = self.commands_disabled(state) {
            self.flash = Some(reason.to_string());
            return;
        }
        self.outbox.push(command);
    }

    fn commands_disabled(&self, state: &TuiState) -> Option<&'static str> {
        if self.read_only {
            Some("read-only: this is a replay")
        } else if state.finished.is_some() {
            Some("the session has ended; q quits")
        } else {
            None
        }
    }

    /// Open a prompt, unless commands are disabled (search is always allowed).
    fn prompt(&mut self, state: &TuiState, purpose: InputPurpose, text: &str) {
        if let Some(reason) = self.commands_disabled(state) {
            self.flash = Some(reason.to_string());
            return;
        }
        self.overlay = Some(Overlay::Input(Input::new(purpose, text)));
    }

    fn abort(&mut self, state: &TuiState) {
        self.send(state, Command::Abort);
        self.quit_when_finished = true;
        self.flash = Some("aborting: the running command is stopped".to_string());
    }

    fn open_rollback(&mut self, state: &TuiState) {
        if let Some(reason) = self.commands_disabled(state) {
            self.flash = Some(reason.to_string());
            return;
        }
        let items: Vec<PickItem> = state
            .checkpoints()
            .into_iter()
            .map(|(stage, tag)| PickItem {
                label: format!("{stage}  ({tag})"),
                value: Pick::Tag(tag),
            })
            .collect();
        if items.is_empty() {
            self.flash = Some("no checkpoint yet: a stage must pass first".to_string());
            return;
        }
        self.overlay = Some(Overlay::Picker(Picker::new(PickerPurpose::Rollback, items)));
    }

    fn open_takeover(&mut self, state: &TuiState) {
        if let Some(reason) = self.commands_disabled(state) {
            self.flash = Some(reason.to_string());
            return;
        }
        if self.takeover != TakeoverPhase::Idle {
            self.flash = Some("a takeover is already waiting for the engine".to_string());
            return;
        }
        let mut items = vec![PickItem {
            label: "a shell ($SHELL) in the worktree".to_string(),
            value: Pick::Shell,
        }];
        if let Some(session) = &state.session {
            items.extend(
                takeover::list_files(Path::new(&session.worktree))
                    .into_iter()
                    .map(|path| PickItem {
                        label: path.display().to_string(),
                        value: Pick::File(path),
                    }),
            );
        }
        self.overlay = Some(Overlay::Picker(Picker::new(PickerPurpose::Takeover, items)));
    }

    fn request_takeover(&mut self, state: &TuiState, program: Program) {
        self.send(state, Command::TakeoverBegin);
        self.takeover = TakeoverPhase::Requested(program);
        self.flash = Some("taking over: waiting for the engine to reach a safe point".to_string());
    }

    /// Scroll `pane` by `delta` lines (negative: up).
    fn scroll(&mut self, pane: Pane, delta: i64, state: &TuiState) {
        let by = |value: usize| -> usize {
            if delta < 0 {
                value.saturating_sub(delta.unsigned_abs() as usize)
            } else {
                value.saturating_add(delta as usize)
            }
        };
        match pane {
            Pane::Transcript => {
                // Back from the bottom: scrolling up goes back.
                self.transcript_back = if delta < 0 {
                    self.transcript_back
                        .saturating_add(delta.unsigned_abs() as usize)
                } else {
                    self.transcript_back.saturating_sub(delta as usize)
                };
            }
            Pane::Log => {
                let height = self.areas.inner_height(Pane::Log).max(1) as u64;
                let last_top = state.log.len().saturating_sub(height);
                let top = self.log_top(state);
                let new_top = if delta < 0 {
                    top.saturating_sub(delta.unsigned_abs())
                } else {
                    top.saturating_add(delta as u64).min(last_top)
                };
                self.log.top = new_top;
                self.log.follow = new_top >= last_top && delta > 0;
            }
            Pane::Diff => self.diff.scroll = by(self.diff.scroll),
            Pane::Gates => self.gates_scroll = by(self.gates_scroll),
        }
    }

    fn page(&self, pane: Pane) -> i64 {
        i64::from(self.areas.inner_height(pane).max(2)) - 1
    }

    /// The log line at the top of the pane now.
    pub fn log_top(&self, state: &TuiState) -> u64 {
        let height = self.areas.inner_height(Pane::Log).max(1) as u64;
        let last_top = state.log.len().saturating_sub(height);
        if self.log.follow {
            last_top
        } else {
            self.log.top.min(last_top)
        }
    }

    fn search_step(&mut self, state: &TuiState, forward: bool) {
        if self.log.search.is_none() {
            self.flash = Some("no search yet: / searches the log".to_string());
            return;
        }
        let from = match (self.log.matched, forward) {
            (Some(line), true) => line + 1,
            (Some(line), false) => match line.checked_sub(1) {
                Some(line) => line,
                None => {
                    self.flash = Some("no earlier match".to_string());
                    return;
                }
            },
            (None, _) => self.log_top(state),
        };
        self.search_from(state, from, forward);
    }

    fn search_from(&mut self, state: &TuiState, from: u64, forward: bool) {
        let Some(needle) = self.log.search.clone() else {
            return;
        };
        match state.log.find(&needle, from, forward) {
            Some(line) => {
                self.log.matched = Some(line);
                self.show_log_line(line, state);
            }
            None => {
                let direction = if forward { "below" } else { "above" };
                self.flash = Some(format!("no match for `{needle}` {direction}"));
            }
        }
    }

    /// Scroll the log so `line` is in view (a third from the top) and focus it.
    fn show_log_line(&mut self, line: u64, state: &TuiState) {
        let height = self.areas.inner_height(Pane::Log).max(1) as u64;
        self.log.follow = false;
        self.log.top = line
            .saturating_sub(height / 3)
            .min(state.log.len().saturating_sub(height));
        self.log.matched = Some(line);
        self.focus = Pane::Log;
    }

    /// Prepare what the diff pane needs before drawing: ask the worker for the stage diff
    /// (once per commit pair) and render the lines (once per change shown).
    pub fn prepare(&mut self, state: &TuiState) {
        self.poll_stage_diffs();
        if self.diff.stage_mode {
            if let (Some(range), Some(worker)) =
                (diff::stage_range(state, self), self.stage_diffs.as_mut())
            {
                worker.get_or_request(&range);
            }
        }
        let key = diff::key(state, self);
        if self.diff_cache.as_ref().is_none_or(|(k, _, _)| *k != key) {
            self.diff_cache = Some(diff::content(state, self));
        }
    }
}
