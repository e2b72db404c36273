//! `aipc rerun <session>`: re-execute a recorded session deterministically and report where it
//! first behaves differently.
//!
//! The re-run is a new session (own id, branch and worktree, log recorded as usual) that starts
//! at the recording's base commit, runs under the recorded contract with the current toolchain
//! (data directory, toolbox scripts, installed packages), and has the recorded model outputs as
//! its model ([`crate::model::replay`]). It runs in batch mode: the engineer's recorded actions
//! (hints, approvals, takeovers, rollbacks) are not replayed, so a recording that has them
//! usually diverges at the first one (the report says how many there are). [`start`] starts the
//! engine; the command line runs it (in the TUI on a terminal: `crate::cli`); afterwards
//! [`Comparison::compare`] compares both streams ([`compare`]) and [`report_text`] shows the
//! first divergence with both sides.
//! `--until <seq|stage>` stops the re-run after that event or stage and leaves its worktree in
//! that state for bisecting a toolchain change; the comparison then covers what ran.
//!
//! Exit codes: 0 nothing diverged, 6 ([`exit::DIVERGED`]) something did; 2, 3, 5 as for `run`
//! when the re-run cannot start.

pub mod compare;
pub mod normalize;

use crate::engine::origin::Until;
use crate::engine::{exit, Engine, Guard};
use crate::model::recorded_replies::ReplayBackend;
use crate::protocol::{Command, Event};
use crate::sandbox::SandboxMode;
use crate::session::read_meta;
use crate::session::{new_session_id, resolve_session, Recording, SessionPaths};
use crate::setup::{self, ExitError};
use compare::{comparable, describe, first_divergence, CompareOptions, Divergence, Side};
use normalize::Normalizer;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tokio::sync::mpsc;

/// What `aipc rerun` was asked.
pub struct RerunArgs {
    pub session: String,
    pub project: PathBuf,
    /// Re-run in this project folder instead of the recorded one (a shipped recording whose
    /// project is a copy elsewhere). When its repository lacks the recorded base commit, the
    /// re-run starts from a snapshot of it, which must have the recorded base tree.
    pub from: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    /// Stop after this seq (a number) or stage (a name).
    pub until: Option<String>,
    pub compare: CompareOptions,
    /// `--sandbox`: overrides the recorded contract's mode.
    pub sandbox: Option<SandboxMode>,
}

/// The outcome of a re-run, as `--json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct RerunResult {
    pub recorded_session: String,
    pub rerun_session: String,
    pub rerun_dir: PathBuf,
    pub worktree: PathBuf,
    /// Where the re-run was stopped (`--until`), if it was.
    pub stopped_after: Option<u64>,
    pub compared: usize,
    pub recorded_human_actions: usize,
    pub divergence: Option<Divergence>,
}

/// A re-run's engine, ready for [`Engine::run`], and what steers it; after the run,
/// [`Comparison::compare`] finds the first divergence.
pub struct ReadyRerun {
    pub engine: Engine,
    /// The engine's command channel (pause, abort …; it asks nothing, it runs in batch mode).
    pub commands: mpsc::UnboundedSender<Command>,
    /// The project folder the re-run runs in.
    pub project: PathBuf,
    pub comparison: Comparison,
}

/// What the comparison after the re-run needs: the recording and how the re-run started.
pub struct Comparison {
    recording: Recording,
    /// The recorded session's folder.
    recorded_dir: PathBuf,
    old_worktree: String,
    pub recorded_session: String,
    pub rerun_session: String,
    /// The commit the recorded session started from.
    pub base_commit: String,
    worktree: PathBuf,
    until: Option<Until>,
    /// The re-run started from a snapshot whose files are not the recorded ones.
    base_divergence: Option<Divergence>,
    compare: CompareOptions,
}

/// Prepare the re-run: open the recording, rebuild its setup with the recorded model outputs
/// as the model, and start the engine at the recorded base commit (a new session).
pub fn start(args: &RerunArgs) -> Result<ReadyRerun, ExitError> {
    let paths = resolve_session(&args.session, &args.project)
        .map_err(|e| ExitError::new(exit::USAGE, e.to_string()))?;
    let recording =
        Recording::open(&paths).map_err(|e| ExitError::new(exit::USAGE, e.to_string()))?;
    let Some(Event::SessionStarted {
        base_commit,
        worktree: old_worktree,
        ..
    }) = recording.started().map(|e| e.event.clone())
    else {
        return Err(ExitError::new(
            exit::USAGE,
            format!(
                "{}: the session never started (no `session_started` event); there is nothing \
                 to re-run",
                paths.events.display()
            ),
        ));
    };
    let old_id = recording.session_id();
    let new_id = new_session_id();
    let prepared = setup::recorded_session(
        &recording,
        new_id.clone(),
        args.data_dir.as_deref(),
        args.from.as_deref(),
        true,
        // A re-run reproduces the recorded calls: the ones the recording ran after an
        // approval run again (recorded as `approve_all`).
        Guard {
            sandbox: args.sandbox,
            approve_all: true,
        },
    )?;
    let until = match &args.until {
        None => None,
        Some(text) => Some(parse_until(text, &prepared.setup.contract.stages)?),
    };
    let model = Box::new(ReplayBackend::from_recording(&recording));
    let (commands, rx) = mpsc::unbounded_channel();
    let extra = BTreeMap::from([("rerun_of".to_string(), old_id.clone())]);
    let base = if crate::checkpoint::has_commit(&prepared.project, &base_commit) {
        Some(base_commit.as_str())
    } else if args.from.is_some() {
        None
    } else {
        return Err(ExitError::new(
            exit::USAGE,
            format!(
                "the base commit {base_commit} of session {old_id} is not in the repository of \
                 {}; pass `--from <project>` with a copy of the project as the session started",
                prepared.project.display()
            ),
        ));
    };
    let engine = Engine::start_at(prepared.setup, model, rx, base, extra)
        .map_err(|e| ExitError::new(e.exit_code(), e.to_string()))?;
    let base_divergence = if base.is_none() {
        base_tree_divergence(&recording, engine.session_dir())
    } else {
        None
    };
    if base_divergence.is_some() {
        // A different starting tree makes everything after it meaningless: stop at once.
        engine.stop_after(Until::Seq(0));
    } else if let Some(until) = &until {
        engine.stop_after(until.clone());
    }
    let worktree = engine.worktree().to_path_buf();
    Ok(ReadyRerun {
        engine,
        commands,
        project: prepared.project,
        comparison: Comparison {
            recording,
            recorded_dir: paths.dir,
            old_worktree,
            recorded_session: old_id,
            rerun_session: new_id,
            base_commit,
            worktree,
            until,
            base_divergence,
            compare: args.compare.clone(),
        },
    })
}

impl Comparison {
    /// Compare the re-run (its session folder `rerun_dir`, after the engine ended) with the
    /// recording.
    pub fn compare(self, rerun_dir: &Path) -> Result<RerunResult, ExitError> {
        let new_paths = SessionPaths::from_dir(rerun_dir);
        let rerun = Recording::open(&new_paths).map_err(|e| {
            ExitError::new(
                exit::ENVIRONMENT,
                format!("cannot read the re-run's log: {e}"),
            )
        })?;
        let normalizer = Normalizer::new(&[
            (&self.old_worktree, "<worktree>"),
            (&self.worktree.display().to_string(), "<worktree>"),
            (&self.recorded_dir.display().to_string(), "<session-dir>"),
            (&new_paths.dir.display().to_string(), "<session-dir>"),
            (&self.recorded_session, "<session>"),
            (&self.rerun_session, "<session>"),
        ]);
        let recorded_items = comparable(self.recording.effective(), &normalizer, &self.compare);
        let rerun_items = comparable(rerun.effective(), &normalizer, &self.compare);
        let stopped_after = self.until.as_ref().and_then(|u| tripped_at(&rerun, u));
        let limit = stopped_after.map(|seq| rerun_items.iter().filter(|i| i.seq <= seq).count());
        let divergence = self
            .base_divergence
            .or_else(|| first_divergence(&recorded_items, &rerun_items, limit, &self.compare));
        Ok(RerunResult {
            recorded_human_actions: self.recording.index().human_actions.len(),
            recorded_session: self.recorded_session,
            rerun_session: self.rerun_session,
            rerun_dir: new_paths.dir.clone(),
            worktree: self.worktree,
            stopped_after,
            compared: limit.unwrap_or(rerun_items.len()),
            divergence,
        })
    }
}

/// When the re-run started from a fresh snapshot: the divergence if its tree is not the
/// recording's base tree (or the recording does not say what that was).
fn base_tree_divergence(recording: &Recording, rerun_dir: &Path) -> Option<Divergence> {
    let recorded = recording
        .meta()
        .and_then(|m| m.extra.get("base_tree").cloned());
    let rerun = read_meta(&SessionPaths::from_dir(rerun_dir).meta)
        .ok()
        .and_then(|m| m.extra.get("base_tree").cloned());
    if recorded.is_some() && recorded == rerun {
        return None;
    }
    let side = |tree: Option<String>, info: &str| Side {
        seq: 0,
        kind: "session_started".to_string(),
        context: "start".to_string(),
        subject: "the project's files".to_string(),
        value: tree.unwrap_or_else(|| "(not recorded)".to_string()),
        info: Some(info.to_string()),
    };
    Some(Divergence {
        field: "base_tree".to_string(),
        recorded: Some(side(recorded, "the tree the recorded session started from")),
        rerun: Some(side(
            rerun,
            "a snapshot of the --from project; its files differ from the recording's start, \
             so the re-run was stopped (refresh the recording, see sessions/README.md)",
        )),
        text_diff: None,
        agreed: 0,
    })
}

/// A number is a seq; anything else must be a stage of the contract.
fn parse_until(text: &str, stages: &[crate::contract::StageSpec]) -> Result<Until, ExitError> {
    if let Ok(seq) = text.parse::<u64>() {
        return Ok(Until::Seq(seq));
    }
    if stages.iter().any(|s| s.name == text) {
        return Ok(Until::Stage(text.to_string()));
    }
    Err(ExitError::new(
        exit::USAGE,
        format!(
            "--until {text}: neither an event seq nor a stage (stages: {})",
            stages
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// The seq of the event of `rerun` that stopped it, if it got there.
fn tripped_at(rerun: &Recording, until: &Until) -> Option<u64> {
    rerun
        .events()
        .iter()
        .find(|e| match until {
            Until::Seq(n) => e.seq >= *n,
            Until::Stage(name) => match &e.event {
                Event::StagePassed { stage, .. }
                | Event::StageFailed { stage, .. }
                | Event::StageSkipped { stage, .. } => stage == name,
                _ => false,
            },
        })
        .map(|e| e.seq)
}

/// The human-readable result.
pub fn report_text(result: &RerunResult) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "re-run {} of {}: {} comparable events compared\n",
        result.rerun_session, result.recorded_session, result.compared
    ));
    match &result.divergence {
        None => out.push_str("no divergence: the re-run did what the recording did\n"),
        Some(d) => out.push_str(&describe(d)),
    }
    if result.recorded_human_actions > 0 {
        out.push_str(&format!(
            "note: the recording has {} human action(s) (hints, approvals, takeovers, …); a \
             re-run does not replay them\n",
            result.recorded_human_actions
        ));
    }
    out.push_str(&format!("re-run session: {}\n", result.rerun_dir.display()));
    if let Some(seq) = result.stopped_after {
        out.push_str(&format!(
            "stopped after event {seq}; the worktree is left in that state:\n"
        ));
    }
    out.push_str(&format!("{}\n", result.worktree.display()));
    out
}
