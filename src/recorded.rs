//! Running the engine for a recorded session (`aipc resume`, `aipc rerun`): the
//! [`EngineSetup`] rebuilt from the recording and the data directory, and the drive loop (batch
//! progress printer on stderr, Ctrl-C aborts).
//!
//! The contract is the one the session recorded in `meta.json` (what it ran under); only when
//! that cannot be read is it loaded again from the target and the project's `aipc.toml`. Its
//! check commands that name a target script renamed since (the manifest's `renamed` table) run
//! the script under its new name. The
//! prompts, skills, signature table and the target's toolbox come from the current data
//! directory: they are the toolchain under test in a re-run. The options that shape what the
//! model is offered (skills, classified evidence) are the recorded ones.

use crate::contract::Contract;
use crate::engine::{exit, Engine, EngineOptions, EngineSetup, RunOutcome};
use crate::evidence::Classifier;
use crate::prompts::Prompts;
use crate::protocol::{Command, Event};
use crate::session::{Recording, SessionPaths};
use crate::skills::SkillSet;
use crate::{datadir, printer};
use std::path::{Path, PathBuf};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

/// A failure to prepare, with the exit code it maps to.
#[derive(Debug)]
pub struct Prepare {
    pub code: i32,
    pub message: String,
}

impl Prepare {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Prepare {
            code,
            message: message.into(),
        }
    }
}

/// What a recorded session's engine is started from.
pub struct RecordedSetup {
    pub setup: EngineSetup,
    /// The project folder the session belongs to.
    pub project: PathBuf,
    /// The data directory in use.
    pub data_dir: PathBuf,
}

/// The project a session folder belongs to: `<project>/.aipc/sessions/<id>` → `<project>`,
/// else the project recorded in meta.json / `session_started`.
pub fn project_of(recording: &Recording) -> Option<PathBuf> {
    if let Some(paths) = recording.paths() {
        let sessions = paths.dir.parent()?;
        let aipc = sessions.parent()?;
        if sessions.file_name().is_some_and(|n| n == "sessions")
            && aipc.file_name().is_some_and(|n| n == ".aipc")
        {
            if let Some(project) = aipc.parent() {
                return Some(project.to_path_buf());
            }
        }
    }
    if let Some(meta) = recording.meta() {
        return Some(PathBuf::from(&meta.project));
    }
    match recording.started().map(|e| &e.event) {
        Some(Event::SessionStarted { project, .. }) => Some(PathBuf::from(project)),
        _ => None,
    }
}

/// Rebuild the setup of `recording` for session id `session_id` (the recorded one to resume,
/// a new one to re-run), in `project` when given, else in the recorded project.
pub fn setup_for(
    recording: &Recording,
    session_id: String,
    data_dir: Option<&Path>,
    project: Option<&Path>,
    batch: bool,
) -> Result<RecordedSetup, Prepare> {
    let data = datadir::locate(data_dir).map_err(|m| Prepare::new(exit::ENVIRONMENT, m))?;
    if let Some(p) = project.filter(|p| !p.is_dir()) {
        return Err(Prepare::new(
            exit::USAGE,
            format!("{}: no such project folder", p.display()),
        ));
    }
    let project = project
        .map(Path::to_path_buf)
        .or_else(|| project_of(recording))
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            Prepare::new(
                exit::USAGE,
                format!(
                    "the project of session {} is not found (recorded: {}); pass a session \
                     folder inside its project (`aipc rerun --from <project>` re-runs it in a \
                     copy of the project)",
                    recording.session_id(),
                    recording
                        .meta()
                        .map(|m| m.project.as_str())
                        .unwrap_or("nothing")
                ),
            )
        })?;
    let targets = data.join("toolbox/targets");
    let recorded_contract = recording
        .meta()
        .and_then(|m| serde_json::from_value::<Contract>(m.contract.clone()).ok());
    let mut contract = match recorded_contract {
        Some(contract) => contract,
        None => {
            let target = recording.meta().map(|m| m.target.clone()).or_else(|| {
                match recording.started().map(|e| &e.event) {
                    Some(Event::SessionStarted { target, .. }) => Some(target.clone()),
                    _ => None,
                }
            });
            Contract::load(&targets, target.as_deref(), &project)
                .map_err(|e| Prepare::new(exit::USAGE, e.to_string()))?
        }
    };
    let mut skills = SkillSet::load_dir(&data.join("skills"))
        .map_err(|e| Prepare::new(exit::USAGE, e.to_string()))?;
    let project_skills = SkillSet::load_dir(&project.join(".aipc/skills"))
        .map_err(|e| Prepare::new(exit::USAGE, e.to_string()))?;
    skills.merge(project_skills);
    let prompts = Prompts::load(&data.join("prompts"))
        .map_err(|e| Prepare::new(exit::ENVIRONMENT, e.to_string()))?;
    let classifier = Classifier::load(&targets.join(&contract.target).join("signatures.toml"))
        .map_err(|e| Prepare::new(exit::USAGE, e.to_string()))?;
    let recorded_flag = |key: &str| {
        recording
            .meta()
            .and_then(|m| m.extra.get(key))
            .is_none_or(|v| v != "false")
    };
    let options = EngineOptions {
        batch,
        offer_skills: recorded_flag("offer_skills"),
        classified_evidence: recorded_flag("classified_evidence"),
        ..EngineOptions::default()
    };
    let toolchain = crate::toolchain::Toolchain::locate(&data.join("toolbox"), &contract.target);
    let toolbox = crate::toolbox::Toolbox::load(&toolchain.target_dir)
        .map_err(|e| Prepare::new(exit::USAGE, e.to_string()))?;
    // A recorded contract may name a target script by the file name it had then.
    toolbox.upgrade_recorded_contract(&mut contract);
    Ok(RecordedSetup {
        setup: EngineSetup {
            session_id,
            project: project.clone(),
            contract,
            skills,
            prompts,
            classifier,
            toolchain,
            toolbox,
            options,
        },
        project,
        data_dir: data,
    })
}

/// How to drive a run.
pub struct Drive {
    /// Print progress on stderr.
    pub progress: bool,
    /// Also print command output and model replies.
    pub verbose: bool,
    /// Read the engineer's commands from stdin (interactive mode, until the TUI lands).
    pub console: bool,
}

/// Run `engine` to its end with the batch printer on stderr; Ctrl-C aborts it.
pub async fn drive(
    engine: Engine,
    commands: mpsc::UnboundedSender<Command>,
    how: &Drive,
) -> RunOutcome {
    let printer = how.progress.then(|| {
        tokio::spawn(printer::print_events(
            engine.subscribe(),
            std::io::stderr(),
            how.verbose,
        ))
    });
    let ctrl_c = commands.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = ctrl_c.send(Command::Abort);
        }
    });
    if how.console {
        eprintln!("interactive: type commands (pause, resume, approve <call>, hint <text>, retry, skip, abort …)");
        let console_commands = commands.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match crate::console::parse_line(&line) {
                    Ok(Some(command)) => {
                        if console_commands.send(command).is_err() {
                            break;
                        }
                    }
                    Ok(None) => {}
                    Err(message) => eprintln!("  {message}"),
                }
            }
        });
    }
    drop(commands);
    let outcome = engine.run().await;
    if let Some(printer) = printer {
        let _ = printer.await;
    }
    outcome
}

/// A fresh command channel for an engine nobody steers (batch).
pub fn command_channel() -> (
    mpsc::UnboundedSender<Command>,
    mpsc::UnboundedReceiver<Command>,
) {
    mpsc::unbounded_channel()
}

/// The paths of a recording, or an error for an in-memory one.
pub fn paths_of(recording: &Recording) -> Result<&SessionPaths, Prepare> {
    recording
        .paths()
        .ok_or_else(|| Prepare::new(exit::USAGE, "the recording has no session folder"))
}
