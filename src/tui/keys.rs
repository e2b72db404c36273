//! Keys are data: one table ([`BINDINGS`]) maps key presses to [`Action`]s per [`Context`],
//! and the `?` help overlay and the status bar's key hints are generated from the same table,
//! so what is shown is what is handled.
//!
//! Contexts are tried in order (a replay's keys, an approval prompt, then an escalation, then the
//! global keys); the first binding that matches wins, so `n` rejects a call while one waits for
//! approval and finds the next search match otherwise, and `]` jumps to the next stage in a
//! replay and shows the next change in the diff pane otherwise (`}` does that in both). Text prompts, pickers and confirmations read their
//! keys themselves (see `app.rs`).

use super::player::{MarkKind, ReplayCommand};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    PauseResume,
    StepToggle,
    Approve,
    Reject,
    EditArgs,
    Hint,
    Takeover,
    Retry,
    Rollback,
    Skip,
    Quit,
    Help,
    FocusNext,
    FocusPrev,
    FocusTranscript,
    FocusLog,
    FocusDiff,
    FocusGates,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Left,
    Right,
    Search,
    SearchNext,
    SearchPrev,
    FirstError,
    Follow,
    DiffPrev,
    DiffNext,
    DiffMode,
    /// Replay only: play, speed, steps and jumps.
    Replay(ReplayCommand),
}

impl Action {
    /// Whether the action asks the engine for something (none of these does anything in a
    /// replay, so its help leaves them out).
    pub fn commands_engine(self) -> bool {
        matches!(
            self,
            Action::PauseResume
                | Action::StepToggle
                | Action::Approve
                | Action::Reject
                | Action::EditArgs
                | Action::Hint
                | Action::Takeover
                | Action::Retry
                | Action::Rollback
                | Action::Skip
        )
    }
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// A recorded session plays (`aipc replay`).
    Replay,
    /// A tool call waits for approval.
    Approval,
    /// A stage ran out of budget and waits for the engineer.
    Escalation,
    /// Always.
    Global,
}

impl Context {
    pub fn title(self) -> &'static str {
        match self {
            Context::Replay => "Replay",
            Context::Approval => "When a call waits for approval",
            Context::Escalation => "When a stage is escalated",
            Context::Global => "Always",
        }
    }
}

/// A key with the modifiers it needs (Shift is implied by an upper-case character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

const fn key(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::NONE,
    }
}

const fn code(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

impl Key {
    /// Does this key event press this key?
    pub fn matches(&self, event: &KeyEvent) -> bool {
        let wanted = self.mods & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        let got = event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        self.code == event.code && wanted == got
    }

    /// How the help overlay writes it.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Up => "↑".to_string(),
            KeyCode::Down => "↓".to_string(),
            KeyCode::Left => "←".to_string(),
            KeyCode::Right => "→".to_string(),
            KeyCode::PageUp => "PgUp".to_string(),
            KeyCode::PageDown => "PgDn".to_string(),
            KeyCode::Home => "Home".to_string(),
            KeyCode::End => "End".to_string(),
            KeyCode::Tab => "Tab".to_string(),
            KeyCode::BackTab => "S-Tab".to_string(),
            KeyCode::Enter => "Enter".to_string(),
            KeyCode::Esc => "Esc".to_string(),
            other => format!("{other:?}"),
        };
        if self.mods.contains(KeyModifiers::CONTROL) {
            format!("Ctrl-{}", base.to_uppercase())
        } else {
            base
        }
    }
}

pub struct Binding {
    pub keys: &'static [Key],
    pub action: Action,
    pub context: Context,
    pub help: &'static str,
}

const fn bind(
    keys: &'static [Key],
    action: Action,
    context: Context,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        action,
        context,
        help,
    }
}

use Action as A;
use Context as C;

use MarkKind as M;
use ReplayCommand as R;

/// Every key binding.
pub const BINDINGS: &[Binding] = &[
    bind(
        &[key(' ')],
        A::Replay(R::PlayPause),
        C::Replay,
        "play / pause",
    ),
    bind(
        &[key('+'), key('=')],
        A::Replay(R::Faster),
        C::Replay,
        "faster (… 64×, instant)",
    ),
    bind(
        &[key('-')],
        A::Replay(R::Slower),
        C::Replay,
        "slower (… 0.25×)",
    ),
    bind(
        &[key('i')],
        A::Replay(R::Instant),
        C::Replay,
        "instant on / off",
    ),
    bind(
        &[key('.')],
        A::Replay(R::StepForward),
        C::Replay,
        "step one event forward",
    ),
    bind(
        &[key(',')],
        A::Replay(R::StepBack),
        C::Replay,
        "step one event back",
    ),
    bind(
        &[key(']')],
        A::Replay(R::Next(M::Stage)),
        C::Replay,
        "next stage start",
    ),
    bind(
        &[key('[')],
        A::Replay(R::Prev(M::Stage)),
        C::Replay,
        "previous stage start",
    ),
    bind(
        &[key('c')],
        A::Replay(R::Next(M::Checkpoint)),
        C::Replay,
        "next checkpoint",
    ),
    bind(
        &[key('C')],
        A::Replay(R::Prev(M::Checkpoint)),
        C::Replay,
        "previous checkpoint",
    ),
    bind(
        &[key('t')],
        A::Replay(R::Next(M::ToolCall)),
        C::Replay,
        "next tool call",
    ),
    bind(
        &[key('T')],
        A::Replay(R::Prev(M::ToolCall)),
        C::Replay,
        "previous tool call",
    ),
    bind(
        &[key('f')],
        A::Replay(R::Next(M::Failure)),
        C::Replay,
        "next failure",
    ),
    bind(
        &[key('F')],
        A::Replay(R::Prev(M::Failure)),
        C::Replay,
        "previous failure",
    ),
    bind(
        &[code(KeyCode::Home)],
        A::Replay(R::Start),
        C::Replay,
        "to the start",
    ),
    bind(
        &[code(KeyCode::End)],
        A::Replay(R::End),
        C::Replay,
        "to the end",
    ),
    bind(
        &[key('q'), ctrl('c')],
        A::Quit,
        C::Replay,
        "quit the replay",
    ),
    bind(&[key('y')], A::Approve, C::Approval, "approve the call"),
    bind(
        &[key('n')],
        A::Reject,
        C::Approval,
        "reject it, with a reason",
    ),
    bind(
        &[key('e')],
        A::EditArgs,
        C::Approval,
        "edit the arguments, run it",
    ),
    bind(
        &[key('r')],
        A::Retry,
        C::Escalation,
        "retry with a bigger budget",
    ),
    bind(&[key('t')], A::Takeover, C::Escalation, "take over"),
    bind(
        &[key('b')],
        A::Rollback,
        C::Escalation,
        "roll back to a checkpoint",
    ),
    bind(&[key('S')], A::Skip, C::Escalation, "skip the stage"),
    bind(&[key('q')], A::Quit, C::Escalation, "abort the session"),
    bind(&[key(' ')], A::PauseResume, C::Global, "pause / resume"),
    bind(
        &[key('s')],
        A::StepToggle,
        C::Global,
        "step: approve every call",
    ),
    bind(&[key('h')], A::Hint, C::Global, "hint for the next turn"),
    bind(
        &[key('t')],
        A::Takeover,
        C::Global,
        "take over: $SHELL/$EDITOR",
    ),
    bind(&[key('r')], A::Retry, C::Global, "retry the stage"),
    bind(
        &[key('b')],
        A::Rollback,
        C::Global,
        "roll back to a checkpoint",
    ),
    bind(
        &[key('q'), ctrl('c')],
        A::Quit,
        C::Global,
        "abort (asks) / quit at end",
    ),
    bind(&[key('?')], A::Help, C::Global, "this help"),
    bind(&[code(KeyCode::Tab)], A::FocusNext, C::Global, "next pane"),
    bind(
        &[code(KeyCode::BackTab)],
        A::FocusPrev,
        C::Global,
        "previous pane",
    ),
    bind(&[key('1')], A::FocusTranscript, C::Global, "transcript"),
    bind(&[key('2')], A::FocusLog, C::Global, "toolchain log"),
    bind(&[key('3')], A::FocusDiff, C::Global, "diffs"),
    bind(&[key('4')], A::FocusGates, C::Global, "gates and evidence"),
    bind(
        &[code(KeyCode::Up), key('k')],
        A::ScrollUp,
        C::Global,
        "scroll up",
    ),
    bind(
        &[code(KeyCode::Down), key('j')],
        A::ScrollDown,
        C::Global,
        "scroll down",
    ),
    bind(
        &[code(KeyCode::PageUp), ctrl('b')],
        A::PageUp,
        C::Global,
        "page up",
    ),
    bind(
        &[code(KeyCode::PageDown), ctrl('f')],
        A::PageDown,
        C::Global,
        "page down",
    ),
    bind(&[code(KeyCode::Home), key('g')], A::Top, C::Global, "top"),
    bind(
        &[code(KeyCode::End), key('G')],
        A::Bottom,
        C::Global,
        "bottom (log: follow)",
    ),
    bind(
        &[code(KeyCode::Left)],
        A::Left,
        C::Global,
        "log: scroll left",
    ),
    bind(
        &[code(KeyCode::Right)],
        A::Right,
        C::Global,
        "log: scroll right",
    ),
    bind(&[key('/')], A::Search, C::Global, "log: search"),
    bind(&[key('n')], A::SearchNext, C::Global, "log: next match"),
    bind(&[key('N')], A::SearchPrev, C::Global, "log: previous match"),
    bind(
        &[key('E')],
        A::FirstError,
        C::Global,
        "log: the evidence's error",
    ),
    bind(&[key('f')], A::Follow, C::Global, "log: follow on / off"),
    bind(
        &[key('['), key('{')],
        A::DiffPrev,
        C::Global,
        "diff: previous change",
    ),
    bind(
        &[key(']'), key('}')],
        A::DiffNext,
        C::Global,
        "diff: next change",
    ),
    bind(
        &[key('c'), key('d')],
        A::DiffMode,
        C::Global,
        "diff: change / whole stage",
    ),
];

/// The action for `event` in the first of `contexts` that binds it.
pub fn action_for(event: &KeyEvent, contexts: &[Context]) -> Option<Action> {
    contexts.iter().find_map(|context| {
        BINDINGS
            .iter()
            .filter(|b| b.context == *context)
            .find(|b| b.keys.iter().any(|k| k.matches(event)))
            .map(|b| b.action)
    })
}

/// The bindings of `context` as they apply with `shadowing` tried first: the keys a binding
/// of `shadowing` takes are left out, and so is a binding left with no key.
pub fn effective(
    context: Context,
    shadowing: Option<Context>,
) -> Vec<(Vec<Key>, &'static Binding)> {
    BINDINGS
        .iter()
        .filter(|b| b.context == context)
        .filter_map(|b| {
            let keys: Vec<Key> = b
                .keys
                .iter()
                .filter(|k| {
                    shadowing.is_none_or(|over| {
                        !BINDINGS
                            .iter()
                            .any(|o| o.context == over && o.keys.contains(k))
                    })
                })
                .copied()
                .collect();
            (!keys.is_empty()).then_some((keys, b))
        })
        .collect()
}

/// The first key bound to `action` in `context`, for hints.
pub fn key_label(action: Action, context: Context) -> String {
    BINDINGS
        .iter()
        .find(|b| b.action == action && b.context == context)
        .and_then(|b| b.keys.first())
        .map(Key::label)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn contexts_are_tried_in_order() {
        let n = press(KeyCode::Char('n'), KeyModifiers::NONE);
        assert_eq!(action_for(&n, &[C::Approval, C::Global]), Some(A::Reject));
        assert_eq!(action_for(&n, &[C::Global]), Some(A::SearchNext));
        let big_n = press(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert_eq!(action_for(&big_n, &[C::Global]), Some(A::SearchPrev));
        let ctrl_c = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&ctrl_c, &[C::Global]), Some(A::Quit));
        let c = press(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(action_for(&c, &[C::Global]), Some(A::DiffMode));
    }

    #[test]
    fn replay_keys_come_first_and_leave_the_others_reachable() {
        let contexts = [C::Replay, C::Global];
        let press_char = |c: char| press(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(
            action_for(&press_char(']'), &contexts),
            Some(A::Replay(R::Next(M::Stage)))
        );
        assert_eq!(action_for(&press_char('}'), &contexts), Some(A::DiffNext));
        assert_eq!(action_for(&press_char('d'), &contexts), Some(A::DiffMode));
        assert_eq!(
            action_for(&press(KeyCode::Char('F'), KeyModifiers::SHIFT), &contexts),
            Some(A::Replay(R::Prev(M::Failure)))
        );
        assert_eq!(action_for(&press_char('G'), &contexts), Some(A::Bottom));
        assert_eq!(
            action_for(&press_char(']'), &[C::Global]),
            Some(A::DiffNext)
        );
        let global = effective(C::Global, Some(C::Replay));
        let shown = |action: Action| global.iter().find(|(_, b)| b.action == action);
        assert!(shown(A::Follow).is_none(), "f is the replay's failure key");
        let (keys, _) = shown(A::DiffNext).unwrap();
        assert_eq!(keys, &vec![key('}')]);
        let (keys, _) = shown(A::Top).unwrap();
        assert_eq!(keys, &vec![key('g')]);
    }

    #[test]
    fn help_texts_fit_two_columns_at_80() {
        for binding in BINDINGS {
            assert!(binding.help.chars().count() <= 26, "{}", binding.help);
        }
    }

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b in &BINDINGS[i + 1..] {
                if a.context == b.context {
                    for k in a.keys {
                        assert!(!b.keys.contains(k), "{} bound twice", k.label());
                    }
                }
            }
        }
    }
}
