//! The engine setup of a session: the [`EngineSetup`] assembled from the data directory and the
//! project — [`new_session`] for `aipc run`, [`recorded_session`] for a recorded one (`aipc
//! resume` continues it, `aipc rerun` re-executes it). A failure carries the exit code it maps
//! to ([`ExitError`]).
//!
//! A recorded session runs under the contract it recorded in `meta.json` (what it ran under);
//! only when that cannot be read is it loaded again from the target and the project's
//! `aipc.toml`. Its check commands that name a target script renamed since (the manifest's
//! `renamed` table) run the script under its new name. The prompts, skills, signature table and
//! the target's toolbox come from the current data directory: they are the toolchain under test
//! in a re-run. The options that shape what the model is offered (skills, classified evidence)
//! are the recorded ones.

use crate::contract::Contract;
use crate::datadir;
use crate::engine::{exit, EngineOptions, EngineSetup, Guard};
use crate::evidence::Classifier;
use crate::prompts::Prompts;
use crate::protocol::Event;
use crate::session::Recording;
use crate::skills::SkillSet;
use crate::toolbox::Toolbox;
use crate::toolchain::Toolchain;
use std::path::{Path, PathBuf};

/// A failure that ends the command, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ExitError {
    pub code: i32,
    pub message: String,
}

impl ExitError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        ExitError {
            code,
            message: message.into(),
        }
    }
}

/// The setup of a new session of `project` (a folder) under `target` (default: the project's
/// `aipc.toml`), from the data directory `data`; its tools are checked against the toolbox.
pub fn new_session(
    data: &Path,
    project: &Path,
    target: Option<&str>,
    session_id: String,
    options: EngineOptions,
) -> Result<EngineSetup, ExitError> {
    if !project.is_dir() {
        return Err(ExitError::new(
            exit::USAGE,
            format!("project {} is not a folder", project.display()),
        ));
    }
    let contract = Contract::load(&data.join("toolbox/targets"), target, project)
        .map_err(|e| ExitError::new(exit::USAGE, e.to_string()))?;
    let setup = assemble(data, project, contract, session_id, options)?;
    crate::engine::validate_tools(&setup.contract, &setup.toolbox)
        .map_err(|e| ExitError::new(e.exit_code(), e.to_string()))?;
    check_project_table(project, &setup.toolbox)?;
    Ok(setup)
}

/// A target with toolbox scripts reads the project's `[project]` table (model entry, inputs,
/// options): check it statically now, before a toolchain is set up (minutes, gigabytes) for a
/// project whose first check would fail on a missing key. Every problem is listed with its
/// `aipc.toml:line`.
fn check_project_table(project: &Path, toolbox: &Toolbox) -> Result<(), ExitError> {
    if toolbox.specs().is_empty() {
        return Ok(());
    }
    let path = project.join("aipc.toml");
    let text = match crate::safe_read::read(&path, crate::safe_read::WORKSPACE_FILE) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.is_not_found() => String::new(),
        Err(e) => {
            return Err(ExitError::new(
                exit::USAGE,
                format!("{}: {e}", path.display()),
            ))
        }
    };
    let mut problems = crate::project_table::validate(&text, project);
    if problems.is_empty() {
        // The entries' modules parse and bind their functions (python3's ast, nothing imported).
        // When the check cannot run (no python3) the toolbox's env check still imports them.
        problems = crate::project_entries::check(&text, project)
            .unwrap_or_default()
            .iter()
            .map(crate::project_entries::EntryProblem::to_table_problem)
            .collect();
    }
    if problems.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = problems
        .iter()
        .map(|p| match p.line {
            Some(line) => format!("  {}:{line}: {}", path.display(), p.message),
            None => format!("  {}: {}", path.display(), p.message),
        })
        .collect();
    Err(ExitError::new(
        exit::USAGE,
        format!(
            "the project's [project] table cannot be used by this target's toolbox (docs/toolbox.md):\n{}",
            lines.join("\n")
        ),
    ))
}

/// What a recorded session's engine is started from.
pub struct RecordedSetup {
    pub setup: EngineSetup,
    /// The project folder the session belongs to.
    pub project: PathBuf,
    /// The data directory in use.
    pub data_dir: PathBuf,
}

/// Rebuild the setup of `recording` for session id `session_id` (the recorded one to resume,
/// a new one to re-run), in `project` when given, else in the recorded project.
pub fn recorded_session(
    recording: &Recording,
    session_id: String,
    data_dir: Option<&Path>,
    project: Option<&Path>,
    batch: bool,
    guard: Guard,
) -> Result<RecordedSetup, ExitError> {
    let data = datadir::locate(data_dir).map_err(|m| ExitError::new(exit::ENVIRONMENT, m))?;
    if let Some(p) = project.filter(|p| !p.is_dir()) {
        return Err(ExitError::new(
            exit::USAGE,
            format!("{}: no such project folder", p.display()),
        ));
    }
    let project = project
        .map(Path::to_path_buf)
        .or_else(|| project_of(recording))
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            ExitError::new(
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
    let recorded_contract = recording
        .meta()
        .and_then(|m| serde_json::from_value::<Contract>(m.contract.clone()).ok());
    let contract = match recorded_contract {
        Some(contract) => contract,
        None => {
            let target = recording.meta().map(|m| m.target.clone()).or_else(|| {
                match recording.started().map(|e| &e.event) {
                    Some(Event::SessionStarted { target, .. }) => Some(target.clone()),
                    _ => None,
                }
            });
            Contract::load(&data.join("toolbox/targets"), target.as_deref(), &project)
                .map_err(|e| ExitError::new(exit::USAGE, e.to_string()))?
        }
    };
    let recorded_flag = |key: &str| {
        recording
            .meta()
            .and_then(|m| m.extra.get(key))
            .is_none_or(|v| v != "false")
    };
    // The device the session ran on (`--device` or its aipc.toml then); none recorded: the
    // project's aipc.toml now.
    let device = recording
        .meta()
        .and_then(|m| m.extra.get("device"))
        .filter(|v| !v.is_empty())
        .and_then(|v| serde_json::from_str(v).ok());
    let options = EngineOptions {
        batch,
        offer_skills: recorded_flag("offer_skills"),
        classified_evidence: recorded_flag("classified_evidence"),
        narrow_choices: recorded_flag("narrow_choices"),
        device,
        ..EngineOptions::default()
    }
    .guarded(guard);
    Ok(RecordedSetup {
        setup: assemble(&data, &project, contract, session_id, options)?,
        project,
        data_dir: data,
    })
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

/// The rest of a setup, the same for every session: the skills (the data directory's and the
/// project's), prompts, the target's signature table, toolchain and toolbox.
fn assemble(
    data: &Path,
    project: &Path,
    mut contract: Contract,
    session_id: String,
    mut options: EngineOptions,
) -> Result<EngineSetup, ExitError> {
    let usage = |e: &dyn std::fmt::Display| ExitError::new(exit::USAGE, e.to_string());
    if options.device.is_none() {
        options.device =
            crate::device::DeviceConfig::from_project(project).map_err(|e| usage(&e))?;
    }
    let mut skills = SkillSet::load_dir(&data.join("skills")).map_err(|e| usage(&e))?;
    skills.merge(SkillSet::load_dir(&project.join(".aipc/skills")).map_err(|e| usage(&e))?);
    let prompts = Prompts::load(&data.join("prompts"))
        .map_err(|e| ExitError::new(exit::ENVIRONMENT, e.to_string()))?;
    let classifier = Classifier::load(
        &data
            .join("toolbox/targets")
            .join(&contract.target)
            .join("signatures.toml"),
    )
    .map_err(|e| usage(&e))?;
    let toolchain = Toolchain::locate(&data.join("toolbox"), &contract.target);
    let toolbox = Toolbox::load(&toolchain.target_dir).map_err(|e| usage(&e))?;
    // A recorded contract may name a target script by the file name it had then (a current
    // contract names none of the old names: unchanged).
    toolbox.upgrade_recorded_contract(&mut contract);
    Ok(EngineSetup {
        session_id,
        project: project.to_path_buf(),
        contract,
        skills,
        prompts,
        classifier,
        toolchain,
        toolbox,
        options,
    })
}
