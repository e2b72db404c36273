//! `aipc resume <session>`: continue an interrupted session (killed, crashed, machine
//! rebooted, aborted, or ended by a model or git error) from its last checkpoint, in the same
//! log, branch and worktree, until it ends.
//!
//! Steps: read the log (a torn last line is tolerated, then cut off); decide where to continue
//! ([`plan`]); stop processes the dead run left behind ([`leftovers`]); open the model — the
//! recorded one unless `--model` says otherwise; a scripted or replayed model continues after
//! the replies the kept stages used, so a deterministic script gives the redone stage exactly
//! the replies the interrupted attempt had; reset the worktree to the checkpoint and restore the
//! engine's state ([`crate::engine::resume`]). [`start`] does all of that and hands back the
//! engine; the command line runs it (TUI, printer or console: `crate::cli`), the remaining
//! stages appending to the log.
//!
//! A session that already ended `deployed` or `failed` is not run again: `resume` says so and
//! exits with the recorded exit code (so a script's `aipc resume` reports the session's real
//! outcome).

pub mod leftovers;
pub mod plan;

use crate::engine::{exit, Engine, Guard};
use crate::model::recorded_replies::ReplayBackend;
use crate::model::scripted::ScriptedBackend;
use crate::model::{open_backend, store, ModelBackend, ModelOptions};
use crate::protocol::{Command, Event};
use crate::session::{resolve_session, Recording};
use crate::setup::{self, ExitError};
use plan::Plan;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long processes of the dead run get to finish on their own before they are killed.
const LEFTOVER_GRACE: Duration = Duration::from_secs(3);

/// What `aipc resume` was asked.
pub struct ResumeArgs {
    pub session: String,
    pub project: PathBuf,
    pub data_dir: Option<PathBuf>,
    /// Override the recorded model.
    pub model: Option<String>,
    pub model_options: ModelOptions,
    /// Zero-human mode: the engine asks nothing.
    pub batch: bool,
    /// `--sandbox`, `--approve-all`.
    pub guard: Guard,
}

/// What there is to run after [`start`].
pub enum Resumed {
    /// The session had already ended `deployed` or `failed`: nothing to run; its recorded
    /// exit code.
    Finished { exit_code: i32 },
    /// The engine, restored at the checkpoint, about to run the remaining stages.
    Ready(Box<ReadyEngine>),
}

/// A resumed session's engine, ready for [`Engine::run`], and what steers it.
pub struct ReadyEngine {
    pub engine: Engine,
    /// The engine's command channel (pause, approve, abort …).
    pub commands: mpsc::UnboundedSender<Command>,
    pub session_id: String,
    /// The project folder the session belongs to.
    pub project: PathBuf,
}

/// Prepare the resume: check the session, stop what the dead run left behind, open the model
/// and restore the engine at the checkpoint (progress notes on stderr).
pub fn start(args: ResumeArgs) -> Result<Resumed, ExitError> {
    let paths = resolve_session(&args.session, &args.project)
        .map_err(|e| ExitError::new(exit::USAGE, e.to_string()))?;
    let recording =
        Recording::open(&paths).map_err(|e| ExitError::new(exit::USAGE, e.to_string()))?;
    let id = recording.session_id();
    let running = leftovers::lasting_holders(&paths.events, leftovers::HOLDER_PATIENCE);
    if !running.is_empty() {
        return Err(ExitError::new(
            exit::USAGE,
            format!(
                "session {id} is running (process {running:?} has its log open); it can be \
                 resumed once that process has ended"
            ),
        ));
    }
    let (point, replies_kept) = match plan::plan(&recording)
        .map_err(|e| ExitError::new(exit::USAGE, format!("{}: {e}", paths.events.display())))?
    {
        Plan::Finished { outcome, exit_code } => {
            eprintln!(
                "session {id} already finished: {} (exit {exit_code}); nothing to resume",
                outcome.word()
            );
            return Ok(Resumed::Finished { exit_code });
        }
        Plan::Resume {
            point,
            replies_kept,
        } => (point, replies_kept),
    };
    let prepared = setup::recorded_session(
        &recording,
        id.clone(),
        args.data_dir.as_deref(),
        None,
        args.batch,
        args.guard,
    )?;
    let model = open_model(&recording, &args, &prepared.data_dir, replies_kept)?;
    let killed = leftovers::stop(&paths.dir, LEFTOVER_GRACE);
    if !killed.is_empty() {
        eprintln!(
            "stopped {} process(es) the interrupted run left in the worktree: {:?}",
            killed.len(),
            killed
        );
    }
    if let Some(torn) = recording.torn_tail() {
        eprintln!(
            "the log ends in a torn line ({} bytes at line {}); it is cut off",
            torn.bytes, torn.line
        );
    }
    let next = prepared
        .setup
        .contract
        .stages
        .get(point.next_stage)
        .map_or("none (only the end was missing)".to_string(), |s| {
            s.name.clone()
        });
    eprintln!(
        "resuming session {id} from {} (event {}); next stage: {next}",
        point
            .checkpoint
            .as_deref()
            .unwrap_or(if point.never_started {
                "the start (it was interrupted while setting up)"
            } else {
                "the base commit"
            }),
        point.from_seq
    );
    let (commands, rx) = mpsc::unbounded_channel();
    let engine = Engine::resume(prepared.setup, model, rx, point)
        .map_err(|e| ExitError::new(e.exit_code(), e.to_string()))?;
    Ok(Resumed::Ready(Box::new(ReadyEngine {
        engine,
        commands,
        session_id: id,
        project: prepared.project,
    })))
}

/// The model to continue with: `--model`, else the recorded one. Positional models skip the
/// replies the kept stages used.
fn open_model(
    recording: &Recording,
    args: &ResumeArgs,
    data_dir: &Path,
    replies_kept: usize,
) -> Result<Box<dyn ModelBackend>, ExitError> {
    let recorded = recording.meta().map(|m| m.model.clone()).or_else(|| {
        match recording.started().map(|e| &e.event) {
            Some(Event::SessionStarted { model, .. }) => Some(model.clone()),
            _ => None,
        }
    });
    let mut options = args.model_options.clone();
    let spec = match (&args.model, recorded) {
        (Some(spec), _) => spec.clone(),
        (None, Some(name)) => {
            let (spec, model_name) = spec_from_recorded_name(&name).ok_or_else(|| {
                ExitError::new(
                    exit::MODEL,
                    format!(
                        "the recorded model \"{name}\" cannot be opened again; pass --model \
                         (scripted:<file>, <file.gguf> or http://host:port/v1)"
                    ),
                )
            })?;
            if options.model_name.is_none() {
                options.model_name = model_name;
            }
            spec
        }
        (None, None) => {
            return Err(ExitError::new(
                exit::MODEL,
                "the session does not record its model; pass --model",
            ))
        }
    };
    let model_error = |e: crate::model::ModelError| ExitError::new(exit::MODEL, e.to_string());
    if let Some(file) = spec.strip_prefix("scripted:") {
        let mut model = ScriptedBackend::load(Path::new(file)).map_err(model_error)?;
        model.skip(replies_kept);
        return Ok(Box::new(model));
    }
    if let Some(dir) = spec.strip_prefix("replay:") {
        let mut model = ReplayBackend::open(Path::new(dir)).map_err(model_error)?;
        model.skip(replies_kept);
        return Ok(Box::new(model));
    }
    open_backend(&spec, &options, &data_dir.join("prompts")).map_err(model_error)
}

/// Turn a recorded model name back into a `--model` value: `scripted:…` and `replay:…` as
/// they are, `http://host/v1 (model, mode)` into the URL and the model name, a bare `.gguf`
/// file name into its place in the model store.
fn spec_from_recorded_name(name: &str) -> Option<(String, Option<String>)> {
    if name.starts_with("scripted:")
        || name.starts_with("replay:")
        || name == crate::model::policy::SPEC
    {
        return Some((name.to_string(), None));
    }
    if name.starts_with("http://") {
        let (url, rest) = name.split_once(" (").unwrap_or((name, ""));
        // "(model, mode)" names the model; "(mode)" alone does not.
        let model = rest
            .split_once(',')
            .map(|(model, _)| model.trim())
            .filter(|m| !m.is_empty());
        return Some((url.to_string(), model.map(str::to_string)));
    }
    let path = Path::new(name);
    if path.is_file() {
        return Some((name.to_string(), None));
    }
    let stored = store::models_dir().join(name);
    stored
        .is_file()
        .then(|| (stored.display().to_string(), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_names_become_specs() {
        assert_eq!(
            spec_from_recorded_name("scripted:/x/r.jsonl"),
            Some(("scripted:/x/r.jsonl".to_string(), None))
        );
        assert_eq!(
            spec_from_recorded_name("http://127.0.0.1:8080/v1 (qwen3, tools)"),
            Some((
                "http://127.0.0.1:8080/v1".to_string(),
                Some("qwen3".to_string())
            ))
        );
        assert_eq!(
            spec_from_recorded_name("http://h:1/v1 (json_schema)"),
            Some(("http://h:1/v1".to_string(), None))
        );
        assert_eq!(spec_from_recorded_name("surely-not-a-file.gguf"), None);
    }
}
