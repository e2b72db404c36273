//! [`Recording`]: a recorded session opened for reading — its meta, its events, an index of the
//! places a viewer jumps to (stage starts, checkpoints, tool calls, failures, human actions,
//! resumes) and seeking by `seq`.
//!
//! It is the one event source of everything that looks back at a session: the Markdown
//! transcript (`aipc replay --batch`, `aipc sessions export`), the interactive replay views,
//! `aipc rerun` (the recorded model outputs and the stream to compare with) and `aipc resume`
//! (the state to restore). Opening reads and checks the whole log once (a torn last line is
//! tolerated, anything else that does not parse is an error naming the line); after that every
//! query is in memory: `seek` is a binary search, the index lists are sorted by position.
//!
//! A resumed session holds events of work that was thrown away: everything between a
//! `session_resumed` event's `from_seq` and the event itself. They stay in the log (it is
//! append-only) and in [`Recording::events`]; [`Recording::is_discarded`] and
//! [`Recording::effective`] leave them out for consumers that want the history as it counts.

use super::error::SessionError;
use super::meta::{read_meta, Meta};
use super::paths::SessionPaths;
use super::reader::{read_events, TornTail};
use crate::protocol::{Event, EventEnvelope, Outcome};

/// One place in the recording worth jumping to.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub seq: u64,
    /// Position in [`Recording::events`].
    pub pos: usize,
    /// A short description, e.g. the stage name, the tag, `export.3 run`, `check failed: …`.
    pub label: String,
}

/// Where the stages, checkpoints, tool calls, failures, human actions and resumes are. Each list
/// is in log order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordingIndex {
    pub stage_starts: Vec<Mark>,
    pub checkpoints: Vec<Mark>,
    pub tool_calls: Vec<Mark>,
    /// Failed checks and tool calls, invalid replies, exhausted budgets, failed stages, engine
    /// errors.
    pub failures: Vec<Mark>,
    pub human_actions: Vec<Mark>,
    pub resumes: Vec<Mark>,
}

impl RecordingIndex {
    /// The first mark of `marks` after position `pos`.
    pub fn next_after(marks: &[Mark], pos: usize) -> Option<&Mark> {
        let i = marks.partition_point(|m| m.pos <= pos);
        marks.get(i)
    }

    /// The last mark of `marks` before position `pos`.
    pub fn prev_before(marks: &[Mark], pos: usize) -> Option<&Mark> {
        let i = marks.partition_point(|m| m.pos < pos);
        i.checked_sub(1).and_then(|i| marks.get(i))
    }

    /// The last mark of `marks` at or before position `pos` (e.g. the stage an event is in).
    pub fn at_or_before(marks: &[Mark], pos: usize) -> Option<&Mark> {
        let i = marks.partition_point(|m| m.pos <= pos);
        i.checked_sub(1).and_then(|i| marks.get(i))
    }
}

/// A recorded session, read and indexed.
#[derive(Debug, Clone)]
pub struct Recording {
    paths: Option<SessionPaths>,
    meta: Option<Meta>,
    events: Vec<EventEnvelope>,
    torn_tail: Option<TornTail>,
    index: RecordingIndex,
    /// Per position: the event belongs to work a later resume threw away.
    discarded: Vec<bool>,
}

impl Recording {
    /// Open the session stored at `paths`: `meta.json` (checked for a format version this
    /// build reads; a missing one is tolerated, the log alone is enough) and `events.jsonl`.
    pub fn open(paths: &SessionPaths) -> Result<Recording, SessionError> {
        let meta = if paths.meta.exists() {
            Some(read_meta(&paths.meta)?)
        } else {
            None
        };
        if !paths.events.exists() {
            return Err(SessionError::NoLog {
                path: paths.dir.clone(),
            });
        }
        let log = read_events(&paths.events)?;
        let mut recording = Recording::from_events(log.events, meta);
        recording.paths = Some(paths.clone());
        recording.torn_tail = log.torn_tail;
        Ok(recording)
    }

    /// A recording of events held in memory (tests, benchmarks, a live session's events).
    pub fn from_events(events: Vec<EventEnvelope>, meta: Option<Meta>) -> Recording {
        let index = build_index(&events);
        let discarded = discarded_positions(&events);
        Recording {
            paths: None,
            meta,
            events,
            torn_tail: None,
            index,
            discarded,
        }
    }

    /// Where the session is stored (`None` for an in-memory recording).
    pub fn paths(&self) -> Option<&SessionPaths> {
        self.paths.as_ref()
    }

    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Every event in log order.
    pub fn events(&self) -> &[EventEnvelope] {
        &self.events
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The partial last line the reader skipped, if the writer was killed mid-line.
    pub fn torn_tail(&self) -> Option<TornTail> {
        self.torn_tail
    }

    pub fn index(&self) -> &RecordingIndex {
        &self.index
    }

    /// The session id: from meta.json, else from `session_started`, else the folder name.
    pub fn session_id(&self) -> String {
        if let Some(meta) = &self.meta {
            return meta.session_id.clone();
        }
        if let Some(Event::SessionStarted { session_id, .. }) = self.started().map(|e| &e.event) {
            return session_id.clone();
        }
        self.paths
            .as_ref()
            .and_then(|p| p.dir.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The `session_started` event.
    pub fn started(&self) -> Option<&EventEnvelope> {
        self.events
            .iter()
            .find(|e| matches!(e.event, Event::SessionStarted { .. }))
    }

    /// How the session ended: the last `session_finished` that no later resume continued.
    pub fn finished(&self) -> Option<(Outcome, i32)> {
        for env in self.events.iter().rev() {
            match &env.event {
                Event::SessionFinished {
                    outcome, exit_code, ..
                } => return Some((*outcome, *exit_code)),
                Event::SessionResumed { .. } => return None,
                _ => {}
            }
        }
        None
    }

    /// The position of the event numbered `seq`, if there is one.
    pub fn position(&self, seq: u64) -> Option<usize> {
        let pos = self.seek(seq);
        (self.events.get(pos)?.seq == seq).then_some(pos)
    }

    /// The position of the first event whose seq is `seq` or later (`len()` past the end).
    pub fn seek(&self, seq: u64) -> usize {
        self.events.partition_point(|e| e.seq < seq)
    }

    /// Milliseconds between the event at `pos` and the next one (0 at the end): the pause a
    /// real-time playback makes after it.
    pub fn gap_ms(&self, pos: usize) -> u64 {
        match (self.events.get(pos), self.events.get(pos + 1)) {
            (Some(a), Some(b)) => b.ts_ms.saturating_sub(a.ts_ms),
            _ => 0,
        }
    }

    /// Whether the event at `pos` belongs to work a later `aipc resume` threw away.
    pub fn is_discarded(&self, pos: usize) -> bool {
        self.discarded.get(pos).copied().unwrap_or(false)
    }

    /// The events as they count: without the discarded work of interrupted stages.
    pub fn effective(&self) -> impl Iterator<Item = &EventEnvelope> {
        self.events
            .iter()
            .enumerate()
            .filter(|(pos, _)| !self.is_discarded(*pos))
            .map(|(_, e)| e)
    }
}

/// Mark the events between each `session_resumed` and the event it resumed from.
fn discarded_positions(events: &[EventEnvelope]) -> Vec<bool> {
    let mut discarded = vec![false; events.len()];
    for (pos, env) in events.iter().enumerate() {
        if let Event::SessionResumed { from_seq, .. } = &env.event {
            let start = events.partition_point(|e| e.seq <= *from_seq);
            for flag in discarded.iter_mut().take(pos).skip(start) {
                *flag = true;
            }
        }
    }
    discarded
}

fn build_index(events: &[EventEnvelope]) -> RecordingIndex {
    let mut index = RecordingIndex::default();
    let mut tools: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for (pos, env) in events.iter().enumerate() {
        let mark = |label: String| Mark {
            seq: env.seq,
            pos,
            label,
        };
        match &env.event {
            Event::StageStarted { stage, .. } => index.stage_starts.push(mark(stage.clone())),
            Event::CheckpointMade { tag, .. } => index.checkpoints.push(mark(tag.clone())),
            Event::ToolCallProposed { call_id, tool, .. } => {
                tools.insert(call_id, tool);
                index.tool_calls.push(mark(format!("{call_id} {tool}")));
            }
            Event::ToolCallFinished {
                ok: false,
                call_id,
                exit_code,
                ..
            } => {
                let tool = tools.get(call_id.as_str()).copied().unwrap_or("call");
                let code = exit_code
                    .map(|c| format!(" (exit {c})"))
                    .unwrap_or_default();
                index
                    .failures
                    .push(mark(format!("{call_id} {tool} failed{code}")));
            }
            Event::CheckResult {
                passed: false,
                detail,
                ..
            } => index
                .failures
                .push(mark(format!("check failed: {}", first_line(detail)))),
            Event::ModelInvalidCall { request_id, .. } => index
                .failures
                .push(mark(format!("invalid reply to request {request_id}"))),
            Event::BudgetExhausted { budget, .. } => index
                .failures
                .push(mark(format!("budget exhausted: {budget:?}"))),
            Event::StageFailed { stage, .. } => {
                index.failures.push(mark(format!("stage {stage} failed")))
            }
            Event::EngineError { message } => index
                .failures
                .push(mark(format!("error: {}", first_line(message)))),
            Event::HumanAction { action, .. } => {
                index.human_actions.push(mark(action.word().to_string()))
            }
            Event::HintAdded { .. } => index.human_actions.push(mark("hint".to_string())),
            Event::SessionResumed { from_stage, .. } => {
                index.resumes.push(mark(format!("resumed at {from_stage}")))
            }
            _ => {}
        }
    }
    index
}

fn first_line(text: &str) -> String {
    crate::conversation::clip(text.lines().next().unwrap_or_default(), 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(seq: u64, event: Event) -> EventEnvelope {
        EventEnvelope {
            seq,
            ts_ms: 1000 + seq * 10,
            event,
        }
    }

    fn stage(name: &str) -> Event {
        Event::StageStarted {
            stage: name.into(),
            index: 0,
            goal: String::new(),
            max_attempts: 1,
        }
    }

    fn resumed(from_seq: u64) -> Event {
        Event::SessionResumed {
            from_stage: "b".into(),
            from_seq,
            checkpoint: None,
            commit: String::new(),
            previous_head: String::new(),
            repaired_bytes: 0,
        }
    }

    #[test]
    fn seek_index_and_discarded_work() {
        let events = vec![
            env(0, stage("a")),
            env(
                1,
                Event::StagePassed {
                    stage: "a".into(),
                    attempts: 1,
                    duration_ms: 1,
                },
            ),
            env(2, stage("b")),
            env(
                3,
                Event::Paused {
                    reason: "x".into(),
                    cause: crate::protocol::PauseCause::Engineer,
                },
            ),
            env(4, resumed(1)),
            env(5, stage("b")),
            env(6, Event::Resumed),
            env(7, resumed(1)),
            env(8, stage("b")),
        ];
        let r = Recording::from_events(events, None);
        assert_eq!(r.seek(3), 3);
        assert_eq!(r.seek(99), r.len());
        assert_eq!(r.position(8), Some(8));
        assert_eq!(r.gap_ms(0), 10);
        let starts = &r.index().stage_starts;
        assert_eq!(starts.len(), 4);
        assert_eq!(
            RecordingIndex::at_or_before(starts, 6).map(|m| m.pos),
            Some(5)
        );
        assert_eq!(
            RecordingIndex::next_after(starts, 2).map(|m| m.pos),
            Some(5)
        );
        assert_eq!(
            RecordingIndex::prev_before(starts, 2).map(|m| m.pos),
            Some(0)
        );
        let kept: Vec<u64> = r.effective().map(|e| e.seq).collect();
        assert_eq!(kept, vec![0, 1, 7, 8]);
        assert_eq!(r.index().resumes.len(), 2);
        assert!(r.finished().is_none());
    }
}
