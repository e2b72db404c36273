//! `aipc rerun <session>`: re-execute a recorded session deterministically and report where it
//! first behaves differently.
//!
//! The re-run is a new session (own id, branch and worktree, log recorded as usual) that starts
//! at the recording's base commit, runs under the recorded contract with the current toolchain
//! (data directory, toolbox scripts, installed packages), and has the recorded model outputs as
//! its model ([`crate::model::replay`]). It runs in batch mode: the engineer's recorded actions
//! (hints, approvals, takeovers, rollbacks) are not replayed, so a recording that has them
//! usually diverges at the first one (the report says how many there are). Afterwards both
//! streams are compared ([`compare`]) and the first divergence is printed with both sides.
//! `--until <seq|stage>` stops the re-run after that event or stage and leaves its worktree in
//! that state for bisecting a toolchain change; the comparison then covers what ran.
//!
//! Exit codes: 0 nothing diverged, 6 ([`exit::DIVERGED`]) something did; 2, 3, 5 as for `run`
//! when the re-run cannot start.

pub mod compare;
pub mod normalize;

use crate::engine::resume::Until;
use crate::engine::{exit, Engine};
use crate::model::replay::ReplayBackend;
use crate::protocol::Event;
use crate::recorded::{self, Drive, Prepare};
use crate::session::read_meta;
use crate::session::{new_session_id, resolve_session, Recording, SessionPaths};
use compare::{comparable, describe, first_divergence, CompareOptions, Divergence, Side};
use normalize::Normalizer;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    /// Print the result as one JSON object on stdout.
    pub json: bool,
    /// Print the re-run's progress on stderr.
    pub progress: bool,
    pub verbose: bool,
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

/// Re-run; returns the process exit code.
pub async fn rerun(args: RerunArgs) -> i32 {
    match run(&args).await {
        Ok(result) => {
            if args.json {
                match serde_json::to_string(&result) {
                    Ok(text) => println!("{text}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return exit::ENVIRONMENT;
                    }
                }
            } else {
                print!("{}", report_text(&result));
            }
            if result.divergence.is_some() {
                exit::DIVERGED
            } else {
                0
            }
        }
        Err(fail) => {
            eprintln!("error: {}", fail.message);
            fail.code
        }
    }
}

async fn run(args: &RerunArgs) -> Result<RerunResult, Prepare> {
    let paths = resolve_session(&args.session, &args.project)
        .map_err(|e| Prepare::new(exit::USAGE, e.to_string()))?;
    let recording =
        Recording::open(&paths).map_err(|e| Prepare::new(exit::USAGE, e.to_string()))?;
    let Some(Event::SessionStarted {
        base_commit,
        worktree: old_worktree,
        ..
    }) = recording.started().map(|e| e.event.clone())
    else {
        return Err(Prepare::new(
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
    let prepared = recorded::setup_for(
        &recording,
        new_id.clone(),
        args.data_dir.as_deref(),
        args.from.as_deref(),
        true,
    )?;
    let until = match &args.until {
        None => None,
        Some(text) => Some(parse_until(text, &prepared.setup.contract.stages)?),
    };
    let model = Box::new(ReplayBackend::from_recording(&recording));
    let (commands, rx) = recorded::command_channel();
    let extra = BTreeMap::from([("rerun_of".to_string(), old_id.clone())]);
    let base = if crate::checkpoint::has_commit(&prepared.project, &base_commit) {
        Some(base_commit.as_str())
    } else if args.from.is_some() {
        None
    } else {
        return Err(Prepare::new(
            exit::USAGE,
            format!(
                "the base commit {base_commit} of session {old_id} is not in the repository of \
                 {}; pass `--from <project>` with a copy of the project as the session started",
                prepared.project.display()
            ),
        ));
    };
    let engine = Engine::start_at(prepared.setup, model, rx, base, extra)
        .map_err(|e| Prepare::new(e.exit_code(), e.to_string()))?;
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
    if args.progress {
        eprintln!("re-running session {old_id} as {new_id} from {base_commit}");
    }
    let outcome = recorded::drive(
        engine,
        commands,
        &Drive {
            progress: args.progress,
            verbose: args.verbose,
            console: false,
        },
    )
    .await;
    let new_paths = SessionPaths::from_dir(&outcome.session_dir);
    let rerun = Recording::open(&new_paths).map_err(|e| {
        Prepare::new(
            exit::ENVIRONMENT,
            format!("cannot read the re-run's log: {e}"),
        )
    })?;
    let normalizer = Normalizer::new(&[
        (&old_worktree, "<worktree>"),
        (&worktree.display().to_string(), "<worktree>"),
        (&paths.dir.display().to_string(), "<session-dir>"),
        (&new_paths.dir.display().to_string(), "<session-dir>"),
        (&old_id, "<session>"),
        (&new_id, "<session>"),
    ]);
    let recorded_items = comparable(recording.effective(), &normalizer, &args.compare);
    let rerun_items = comparable(rerun.effective(), &normalizer, &args.compare);
    let stopped_after = until.as_ref().and_then(|u| tripped_at(&rerun, u));
    let limit = stopped_after.map(|seq| rerun_items.iter().filter(|i| i.seq <= seq).count());
    let divergence = base_divergence
        .or_else(|| first_divergence(&recorded_items, &rerun_items, limit, &args.compare));
    Ok(RerunResult {
        recorded_session: old_id,
        rerun_session: new_id,
        rerun_dir: new_paths.dir.clone(),
        worktree,
        stopped_after,
        compared: limit.unwrap_or(rerun_items.len()),
        recorded_human_actions: recording.index().human_actions.len(),
        divergence,
    })
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
fn parse_until(text: &str, stages: &[crate::contract::StageSpec]) -> Result<Until, Prepare> {
    if let Ok(seq) = text.parse::<u64>() {
        return Ok(Until::Seq(seq));
    }
    if stages.iter().any(|s| s.name == text) {
        return Ok(Until::Stage(text.to_string()));
    }
    Err(Prepare::new(
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
