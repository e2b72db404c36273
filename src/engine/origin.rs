//! Sessions that do not start from a snapshot of the user's tree: [`Engine::resume`] continues
//! a recorded session from its last checkpoint (same id, same log, same branch and worktree),
//! [`Engine::start_at`] starts a new session at a given base commit (`aipc rerun`), and
//! [`Engine::stop_after`] makes a run stop after a given event or stage (`rerun --until`).
//!
//! What a resume restores, given as a [`ResumePoint`] (computed from the log by
//! [`crate::resume`]):
//! - **files**: the interrupted work is committed (so it stays reachable as `previous_head`),
//!   then branch and worktree are reset hard to the checkpoint's commit (the base commit when
//!   no stage had passed). Stale git lock files of the killed process are removed first.
//! - **conversation**: every stage attempt opens a fresh conversation whose only memory of
//!   earlier stages is their one-line summaries, so the state of a stage boundary is exactly
//!   the list of completed stages with their summaries, plus the engineer's hints that no model
//!   turn of a kept stage had received yet (they are delivered again, rendered as before).
//! - **counters**: model request ids, call ids and tokens continue where the log ends (ids stay
//!   unique over the session; the token budget counts discarded work too); the wall-time budget
//!   counts the time already spent; artifact hashes are those of the kept history, so the
//!   redone stage records its outputs as an uninterrupted run would; step mode is as it was.
//!
//! The log is appended to: a torn last line is cut off, then `session_resumed` (carrying the
//! seq of the restored point) starts the continuation.

use super::bus::TripPredicate;
use super::{Engine, EngineSetup, StartError};
use crate::checkpoint::cleanup::{clear_stale_locks, remove_session_refs};
use crate::checkpoint::SessionRepo;
use crate::model::ModelBackend;
use crate::protocol::{Command, Event, EVENT_FORMAT_VERSION};
use crate::session::{read_meta, EventLog, Meta, SessionPaths};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Where a continued session picks up; see the module documentation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResumePoint {
    /// Stages done (passed or skipped) before the restored point, in stage order, with the
    /// summary the prompts of later stages show.
    pub completed: Vec<(String, String)>,
    /// Index of the stage to run next (the contract's stage count when only the end was
    /// missing).
    pub next_stage: usize,
    /// The checkpoint tag of the restored point, if it is one.
    pub checkpoint: Option<String>,
    /// The commit to reset branch and worktree to.
    pub commit: String,
    /// The seq of the last event whose state is restored.
    pub from_seq: u64,
    pub next_request: u64,
    pub next_call: u64,
    pub tokens_used: u64,
    /// Wall time the session has already used, over all its runs.
    pub elapsed_ms: u64,
    /// Artifact path → sha256 as last recorded.
    pub artifact_hashes: BTreeMap<String, String>,
    /// Hints to deliver with the next model turn.
    pub hints: Vec<String>,
    pub step_mode: bool,
    /// The log holds no `session_started`: the process died while setting up. The branch and
    /// worktree are made again (what exists of them is removed) and the start is announced.
    pub never_started: bool,
}

/// Where a run stops early (`aipc rerun --until`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Until {
    /// After the event with this seq (or the first one after it).
    Seq(u64),
    /// After this stage passed, failed or was skipped.
    Stage(String),
}

/// How the engine's session came to be.
pub(super) enum Origin {
    /// A new session from a snapshot of the user's tree.
    New,
    /// A new session at an existing commit (`None`: a snapshot of the project, as for
    /// [`Origin::New`]), with extra facts for `meta.json`.
    At {
        base: Option<String>,
        extra: BTreeMap<String, String>,
    },
    /// A recorded session, continued.
    Resume(ResumePoint),
}

/// What [`Engine::run`] does differently for a resumed session.
pub(super) struct Continuation {
    /// Emit `session_started` first (the recorded log has none).
    pub announce_start: bool,
    /// The `session_resumed` event.
    pub resumed: Event,
    pub next_stage: usize,
}

/// The reset a resume made.
pub(super) struct Reset {
    commit: String,
    previous_head: String,
    repaired_bytes: u64,
}

impl Engine {
    /// A new session like [`Engine::start`], but its branch starts at `base` (a commit of the
    /// project's repository; `None`: a snapshot of the working tree, as `start` takes).
    /// `extra` goes into `meta.json` (e.g. which session this re-runs).
    pub fn start_at(
        setup: EngineSetup,
        model: Box<dyn ModelBackend>,
        commands: mpsc::UnboundedReceiver<Command>,
        base: Option<&str>,
        extra: BTreeMap<String, String>,
    ) -> Result<Engine, StartError> {
        Self::open_session(
            setup,
            model,
            commands,
            Origin::At {
                base: base.map(str::to_string),
                extra,
            },
        )
    }

    /// Continue the recorded session `setup.session_id` from `point`; see the module
    /// documentation for what is restored.
    pub fn resume(
        setup: EngineSetup,
        model: Box<dyn ModelBackend>,
        commands: mpsc::UnboundedReceiver<Command>,
        point: ResumePoint,
    ) -> Result<Engine, StartError> {
        Self::open_session(setup, model, commands, Origin::Resume(point))
    }

    /// Stop the run right after `until`: the engine aborts at its next decision point (no
    /// further model turn, tool call or check starts; one that is running is cancelled) and
    /// the session ends `aborted` with its report, leaving the worktree as it is.
    pub fn stop_after(&self, until: Until) {
        let hit: TripPredicate = match until {
            Until::Seq(n) => Box::new(move |e| e.seq >= n),
            Until::Stage(name) => Box::new(move |e| match &e.event {
                Event::StagePassed { stage, .. }
                | Event::StageFailed { stage, .. }
                | Event::StageSkipped { stage, .. } => *stage == name,
                _ => false,
            }),
        };
        self.bus.trip_when(hit, self.control.cancel.clone());
    }

    /// The session's worktree.
    pub fn worktree(&self) -> &Path {
        self.repo.worktree()
    }
}

fn env_error(what: &str) -> impl FnOnce(String) -> StartError + '_ {
    move |e| StartError::Environment(format!("{what}: {e}"))
}

/// The log, the branch and worktree, and (for a resume) the reset that was made.
pub(super) fn open_log_and_repo(
    origin: &Origin,
    project: &Path,
    paths: &SessionPaths,
    setup: &EngineSetup,
) -> Result<(EventLog, SessionRepo, Option<Reset>), StartError> {
    let id = &setup.session_id;
    let globs = &setup.contract.artifacts;
    let create_log = || {
        EventLog::create(&paths.events)
            .map_err(|e| env_error("cannot create the session log")(e.to_string()))
    };
    match origin {
        Origin::New => {
            let log = create_log()?;
            let repo = SessionRepo::create(project, id, &paths.worktree, globs)
                .map_err(|e| env_error("git")(e.to_string()))?;
            Ok((log, repo, None))
        }
        Origin::At { base, .. } => {
            let log = create_log()?;
            let repo = match base {
                Some(base) => SessionRepo::create_at(project, id, &paths.worktree, globs, base),
                None => SessionRepo::create(project, id, &paths.worktree, globs),
            }
            .map_err(|e| env_error("git")(e.to_string()))?;
            Ok((log, repo, None))
        }
        Origin::Resume(point) => {
            let log = if paths.events.exists() {
                EventLog::open_append(&paths.events)
                    .map_err(|e| env_error("cannot continue the session log")(e.to_string()))?
            } else {
                create_log()?
            };
            let repaired_bytes = log.repaired().map_or(0, |t| t.bytes as u64);
            let repo = match SessionRepo::open(project, id, &paths.worktree, globs) {
                Ok(repo) => repo,
                Err(_) if point.never_started => {
                    // Setting up was interrupted: start the branch and worktree again.
                    remove_session_refs(project, id)
                        .map_err(|e| env_error("git")(e.to_string()))?;
                    if paths.worktree.exists() {
                        std::fs::remove_dir_all(&paths.worktree).map_err(|e| {
                            env_error("cannot remove the half-made worktree")(e.to_string())
                        })?;
                    }
                    SessionRepo::create(project, id, &paths.worktree, globs)
                        .map_err(|e| env_error("git")(e.to_string()))?
                }
                Err(e) => {
                    return Err(StartError::Environment(format!(
                        "cannot reopen the worktree of session {id}: {e}; this session cannot \
                         be resumed (`aipc rerun` starts it again from its base commit)"
                    )))
                }
            };
            clear_stale_locks(repo.worktree(), id).map_err(|e| env_error("git")(e.to_string()))?;
            if point.never_started {
                let base = repo.base_commit();
                let reset = Reset {
                    commit: base.clone(),
                    previous_head: base,
                    repaired_bytes,
                };
                return Ok((log, repo, Some(reset)));
            }
            repo.commit_all("aipc: interrupted work, kept before resuming")
                .map_err(|e| env_error("git commit of the interrupted work")(e.to_string()))?;
            let info = repo
                .reset_to(&point.commit)
                .map_err(|e| env_error("git reset to the last checkpoint")(e.to_string()))?;
            let reset = Reset {
                commit: info.commit,
                previous_head: info.previous_head,
                repaired_bytes,
            };
            Ok((log, repo, Some(reset)))
        }
    }
}

/// The `meta.json` to write: `fresh` for a new session (with the extra facts of `At`); for a
/// resume the recorded one, now at this build's format version and with its resume count.
pub(super) fn session_meta(origin: &Origin, paths: &SessionPaths, fresh: Meta) -> Meta {
    match origin {
        Origin::New => fresh,
        Origin::At { extra, .. } => {
            let mut meta = fresh;
            meta.extra.extend(extra.clone());
            meta
        }
        Origin::Resume(_) => {
            let mut meta = read_meta(&paths.meta).unwrap_or(fresh);
            meta.format_version = EVENT_FORMAT_VERSION;
            let resumes = meta
                .extra
                .get("resumes")
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
            meta.extra
                .insert("resumes".to_string(), (resumes + 1).to_string());
            meta
        }
    }
}

/// Put the restored state into a freshly assembled engine.
pub(super) fn restore(
    mut engine: Engine,
    origin: Origin,
    reset: Option<Reset>,
) -> Result<Engine, StartError> {
    let Origin::Resume(point) = origin else {
        return Ok(engine);
    };
    let reset = reset.unwrap_or(Reset {
        commit: point.commit.clone(),
        previous_head: String::new(),
        repaired_bytes: 0,
    });
    for text in &point.hints {
        let note = engine
            .setup
            .prompts
            .render("hint.md.j2", minijinja::context! { text => text })
            .map_err(|e| env_error("cannot render a hint")(e.to_string()))?;
        engine.pending_notes.push(note);
    }
    engine.done = point.completed.clone();
    engine.next_request = point.next_request;
    engine.next_call = point.next_call;
    engine.budgets.tokens_used = point.tokens_used;
    engine.artifact_hashes = point.artifact_hashes.clone();
    engine.control.step_mode = point.step_mode;
    engine.budgets.started = Instant::now()
        .checked_sub(Duration::from_millis(point.elapsed_ms))
        .unwrap_or_else(Instant::now);
    let from_stage = engine
        .setup
        .contract
        .stages
        .get(point.next_stage)
        .map(|s| s.name.clone())
        .unwrap_or_default();
    engine.continuation = Some(Continuation {
        announce_start: point.never_started,
        resumed: Event::SessionResumed {
            from_stage,
            from_seq: point.from_seq,
            checkpoint: point.checkpoint.clone(),
            commit: reset.commit,
            previous_head: reset.previous_head,
            repaired_bytes: reset.repaired_bytes,
        },
        next_stage: point.next_stage,
    });
    Ok(engine)
}
