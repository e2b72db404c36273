//! Shared helpers for the engine's integration tests: a copy of the tiny-mlp example in a
//! throwaway git repository, an engine wired to the repository's own data directory and a
//! scripted model, and a fingerprint of everything the user owns.

#![allow(dead_code)]

use aipc::contract::Contract;
use aipc::engine::{Engine, EngineOptions, EngineSetup, RunOutcome};
use aipc::evidence::Classifier;
use aipc::model::scripted::ScriptedBackend;
use aipc::prompts::Prompts;
use aipc::protocol::{Command, Event, EventEnvelope};
use aipc::session;
use aipc::skills::SkillSet;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tokio::sync::mpsc;

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copy `examples/<name>` into `dest` (without build outputs).
pub fn copy_example(name: &str, dest: &Path) {
    let src = data_dir().join("examples").join(name);
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        let file_name = entry.file_name();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dest.join(&file_name)).unwrap();
        }
    }
}

/// A git repository holding the tiny-mlp example, committed, plus an uncommitted edit and an
/// untracked file, as a real working tree has.
pub fn git_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_example("tiny-mlp", dir.path());
    let repo = git2::Repository::init(dir.path()).unwrap();
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("user", "user@example.com").unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "the user's project", &tree, &[])
        .unwrap();
    std::fs::write(dir.path().join("NOTES.md"), "untracked notes\n").unwrap();
    let readme = dir.path().join("README.md");
    let mut text = std::fs::read_to_string(&readme).unwrap();
    text.push_str("\nAn uncommitted line.\n");
    std::fs::write(&readme, text).unwrap();
    dir
}

/// A plain folder (no git) holding the tiny-mlp example.
pub fn plain_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_example("tiny-mlp", dir.path());
    dir
}

/// sha256 of every file under `root` except the session folder `.aipc/`, plus the refs that
/// are the user's: HEAD and its branch.
pub fn fingerprint(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            // Objects, refs and worktree admin files are where a session may write.
            if rel == ".aipc"
                || rel.starts_with(".git/objects")
                || rel.starts_with(".git/refs")
                || rel.starts_with(".git/worktrees")
                || rel == ".git/info"
                || rel == ".git/logs"
            {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(rel, format!("{:x}", Sha256::digest(&bytes)));
            }
        }
    }
    if let Ok(repo) = git2::Repository::open(root) {
        if let Ok(head) = repo.head() {
            out.insert(
                "HEAD->".to_string(),
                format!("{:?} {:?}", head.name(), head.target()),
            );
        }
        let branches: Vec<String> = repo
            .branches(Some(git2::BranchType::Local))
            .unwrap()
            .map(|b| b.unwrap().0.name().unwrap().unwrap().to_string())
            .filter(|name| !name.starts_with("aipc/"))
            .collect();
        out.insert("branches".to_string(), branches.join(","));
    }
    out
}

pub struct Harness {
    pub engine: Engine,
    pub commands: mpsc::UnboundedSender<Command>,
    pub session_id: String,
}

/// An engine over `project` with the python-reference target and scripted `replies`.
pub fn engine(project: &Path, replies: &str, options: EngineOptions) -> Harness {
    let data = data_dir();
    let targets = data.join("toolbox/targets");
    let contract = Contract::load(&targets, Some("python-reference"), project).unwrap();
    let replies_path = project
        .parent()
        .unwrap()
        .join(format!("replies-{}.jsonl", session::new_session_id()));
    std::fs::write(&replies_path, replies).unwrap();
    let model = ScriptedBackend::load(&replies_path).unwrap();
    let (commands, rx) = mpsc::unbounded_channel();
    let session_id = session::new_session_id();
    let setup = EngineSetup {
        session_id: session_id.clone(),
        project: project.to_path_buf(),
        classifier: Classifier::load(&targets.join("python-reference/signatures.toml")).unwrap(),
        target_dir: targets.join("python-reference"),
        contract,
        skills: SkillSet::load_dir(&data.join("skills")).unwrap(),
        prompts: Prompts::load(&data.join("prompts")).unwrap(),
        options,
    };
    let engine = Engine::start(setup, Box::new(model), rx).unwrap();
    Harness {
        engine,
        commands,
        session_id,
    }
}

pub fn batch() -> EngineOptions {
    EngineOptions::default()
}

pub fn interactive() -> EngineOptions {
    EngineOptions {
        batch: false,
        ..EngineOptions::default()
    }
}

/// Run to the end and read the session's log back.
pub async fn run(harness: Harness) -> (RunOutcome, Vec<EventEnvelope>) {
    let outcome = harness.engine.run().await;
    let log = session::read_events(&outcome.session_dir.join("events.jsonl")).unwrap();
    (outcome, log.events)
}

pub fn kinds(events: &[EventEnvelope]) -> Vec<&'static str> {
    events.iter().map(|e| e.event.kind()).collect()
}

pub fn find(events: &[EventEnvelope], pred: impl Fn(&Event) -> bool) -> Vec<&Event> {
    events
        .iter()
        .map(|e| &e.event)
        .filter(|e| pred(e))
        .collect()
}

pub fn report_json(outcome: &RunOutcome) -> serde_json::Value {
    let text = std::fs::read_to_string(outcome.report_json.as_ref().unwrap()).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The tool calls of the demo script, reusable piece by piece.
pub mod calls {
    pub const EXPORT: &str = r#"{"tool": "run", "args": {"command": "python3 export.py"}}"#;
    pub const FINISH: &str = r#"{"tool": "finish_stage", "args": {"summary": "done"}}"#;
    pub const TO_SIGMOID: &str = r#"{"tool": "edit_file", "args": {"path": "export.py", "search": "{\"op\": \"relu\"}", "replace": "{\"op\": \"sigmoid\"}"}}"#;
    pub const SIGMOID_TO_TANH: &str = r#"{"tool": "edit_file", "args": {"path": "export.py", "search": "{\"op\": \"sigmoid\"}", "replace": "{\"op\": \"tanh\"}"}}"#;
    pub const SIGMOID_TO_RELU: &str = r#"{"tool": "edit_file", "args": {"path": "export.py", "search": "{\"op\": \"sigmoid\"}", "replace": "{\"op\": \"relu\"}"}}"#;
    pub const RELU_TO_TANH: &str = r#"{"tool": "edit_file", "args": {"path": "export.py", "search": "{\"op\": \"relu\"}", "replace": "{\"op\": \"tanh\"}"}}"#;

    pub fn script(lines: &[&str]) -> String {
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }
}
