//! Shared helpers for the engine's integration tests: a copy of the tiny-mlp example in a
//! throwaway git repository, an engine wired to the repository's own data directory and a
//! scripted model, and a fingerprint of everything the user owns.

#![allow(dead_code)]

pub mod flow_signatures;
pub mod tmux;

use aipc::contract::Contract;
use aipc::engine::{Engine, EngineOptions, EngineSetup, RunOutcome};
use aipc::evidence::Classifier;
use aipc::model::scripted::ScriptedBackend;
use aipc::prompts::Prompts;
use aipc::protocol::{Command, Event, EventEnvelope};
use aipc::session;
use aipc::skills::SkillSet;
use aipc::toolbox::Toolbox;
use aipc::toolchain::Toolchain;
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

/// A fresh copy of `examples/<example>` under `dir`, deployed in batch onto `target` by the
/// `aipc` binary with the scripted model `tests/data/scripts/<example>.<target>.jsonl`, the
/// target's venv as it is (`--no-toolchain-setup`), `extra` flags and `env` added. Returns the
/// project folder and the process's output.
pub fn run_scripted_example(
    dir: &Path,
    example: &str,
    target: &str,
    extra: &[std::ffi::OsString],
    env: &[(&str, String)],
) -> (PathBuf, std::process::Output) {
    let project = dir.join(example);
    std::fs::create_dir(&project).expect("project dir");
    copy_example(example, &project);
    let script = data_dir()
        .join("tests/data/scripts")
        .join(format!("{example}.{target}.jsonl"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_aipc"))
        .arg("--data-dir")
        .arg(data_dir())
        .arg("run")
        .arg(&project)
        .args(["--batch", "--no-toolchain-setup", "--target", target])
        .args(extra)
        .arg("--model")
        .arg(format!("scripted:{}", script.display()))
        .envs(env.iter().map(|(k, v)| (k.to_string(), v.clone())))
        .output()
        .expect("run aipc");
    (project, out)
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
    engine_for(
        project,
        &data_dir().join("toolbox"),
        "python-reference",
        replies,
        options,
    )
}

/// An engine over `project` with `target` from `toolbox` (its contract, signature table,
/// toolbox manifest and toolchain) and scripted `replies`; prompts and skills from the
/// repository.
pub fn engine_for(
    project: &Path,
    toolbox: &Path,
    target: &str,
    replies: &str,
    options: EngineOptions,
) -> Harness {
    let setup = setup_for(project, toolbox, target, options);
    start(setup, replies)
}

/// The setup [`engine_for`] starts, for tests that change it first.
pub fn setup_for(
    project: &Path,
    toolbox: &Path,
    target: &str,
    options: EngineOptions,
) -> EngineSetup {
    let data = data_dir();
    let targets = toolbox.join("targets");
    let contract = Contract::load(&targets, Some(target), project).unwrap();
    let toolchain = Toolchain::locate(toolbox, target);
    EngineSetup {
        session_id: session::new_session_id(),
        project: project.to_path_buf(),
        classifier: Classifier::load(&targets.join(target).join("signatures.toml")).unwrap(),
        toolbox: Toolbox::load(&toolchain.target_dir).unwrap(),
        toolchain,
        contract,
        skills: SkillSet::load_dir(&data.join("skills")).unwrap(),
        prompts: Prompts::load(&data.join("prompts")).unwrap(),
        options,
    }
}

/// Start an engine from `setup` with scripted `replies`.
pub fn start(setup: EngineSetup, replies: &str) -> Harness {
    let replies_path = setup
        .project
        .parent()
        .unwrap()
        .join(format!("replies-{}.jsonl", session::new_session_id()));
    std::fs::write(&replies_path, replies).unwrap();
    let model = ScriptedBackend::load(&replies_path).unwrap();
    let (commands, rx) = mpsc::unbounded_channel();
    let session_id = setup.session_id.clone();
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

/// A throwaway toolbox with one target, `tt`, whose helper scripts need nothing but python3
/// (no requirements.txt, so no venv): `make` writes `build/x.bin` and prints a JSON result,
/// `broken` fails like a data-dependent torch.export guard, `hidden` is in the manifest but no
/// stage names it. Stage `prepare` (checks first) checks the environment its commands see;
/// stage `build` needs `build/x.bin`. Returns the toolbox folder.
pub fn toolbox_fixture(root: &Path) -> PathBuf {
    let toolbox = root.join("toolbox");
    let target = toolbox.join("targets/tt");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::create_dir_all(toolbox.join("lib")).unwrap();
    let write = |path: &Path, text: &str| std::fs::write(path, text).unwrap();
    write(
        &toolbox.join("lib/aipc_probe.py"),
        "VALUE = 'from-toolbox-lib'\n",
    );
    write(
        &target.join("contract.toml"),
        r#"target = "tt"
artifacts = ["build/**"]

[defaults]
attempts = 2
turns_per_attempt = 4
run_timeout_s = 30

[defaults.tools]
read_file = "allow"
edit_file = "allow"
run = "allow"

[[stage]]
name = "prepare"
goal = "Make sure the environment is right."
checks_first = true
[[stage.check]]
name = "environment"
command = "python3 \"$AIPC_TARGET_DIR/envcheck.py\""
gates = ["target_dir_ok == 1", "toolbox_ok == 1", "pythonpath_ok == 1", "qnn_empty == 1", "unbuffered == 1"]

[[stage]]
name = "build"
goal = "Build build/x.bin with the make tool."
[stage.tools]
make = "allow"
broken = "allow"
[[stage.check]]
name = "artifact exists"
files = ["build/x.bin"]
"#,
    );
    write(
        &target.join("signatures.toml"),
        r#"[[signature]]
id = "torch.export.data_dependent_guard"
class = "data-dependent-control-flow"
regex = 'Could not guard on data-dependent expression .*\(in (?P<file>[\w./]+):(?P<line>\d+)\)'
fixes = ['fix_data_dependent_branch {"file": "model.py"}', "load_skill export-data-dependent-control-flow"]
"#,
    );
    write(
        &target.join("toolbox.toml"),
        r#"[[tool]]
name = "make"
script = "make.py"
description = "Write build/x.bin (size bytes) and print a JSON result."
timeout_s = 20
[tool.args]
type = "object"
properties.size = { type = "integer", minimum = 1, maximum = 64, description = "bytes to write" }
required = []

[[tool]]
name = "broken"
script = "broken.py"
description = "Always fails like a data-dependent torch.export guard."

[[tool]]
name = "hidden"
script = "make.py"
description = "Named by no stage: never offered."
"#,
    );
    write(
        &target.join("make.py"),
        r#"import argparse, json, os
import aipc_probe  # from $AIPC_TOOLBOX/lib on PYTHONPATH
parser = argparse.ArgumentParser()
parser.add_argument("--args-json", default="{}")
args = json.loads(parser.parse_args().args_json)
size = int(args.get("size", 3))
print(f"making {size} bytes", flush=True)
os.makedirs("build", exist_ok=True)
with open("build/x.bin", "wb") as f:
    f.write(b"x" * size)
print("aipc-warning: opset drift: requested opset 13, artifact has opset 18")
print(json.dumps({"ok": True, "artifact": "build/x.bin", "size": size, "lib": aipc_probe.VALUE}))
"#,
    );
    write(
        &target.join("broken.py"),
        r#"import json, sys
print("tracing the model", flush=True)
for i in range(30):
    print(f"  frame {i}", file=sys.stderr)
print("torch._dynamo.exc.UserError: Could not guard on data-dependent expression u0 > 0 (in model.py:23)", file=sys.stderr, flush=True)
print(json.dumps({"ok": False, "error": "UserError: Could not guard on data-dependent expression", "stage_hint": "export"}))
sys.exit(1)
"#,
    );
    write(
        &target.join("envcheck.py"),
        r#"import json, os
target_dir = os.environ.get("AIPC_TARGET_DIR", "")
toolbox = os.environ.get("AIPC_TOOLBOX", "")
print(json.dumps({
    "target_dir_ok": int(os.path.isabs(target_dir) and target_dir.endswith("targets/tt") and os.path.isfile(os.path.join(target_dir, "toolbox.toml"))),
    "toolbox_ok": int(os.path.isabs(toolbox) and os.path.isdir(os.path.join(toolbox, "targets"))),
    "pythonpath_ok": int(os.environ.get("PYTHONPATH", "").split(":")[0] == os.path.join(toolbox, "lib")),
    "qnn_empty": int(os.environ.get("QNN_SDK_ROOT", "unset") == ""),
    "unbuffered": int(os.environ.get("PYTHONUNBUFFERED") == "1"),
}))
"#,
    );
    toolbox
}

/// A committed git repository holding `files` (path, content).
pub fn git_repo_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
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
    dir
}

/// Processes whose command line holds `marker` (pid: command line), from `/proc`.
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if text.contains(marker) {
                found.push(format!("{name}: {text}"));
            }
        }
    }
    found
}

/// The agent stages of the decoder-LLM flow's contract (docs/llm.md), between env and report.
pub const LLM_STAGES: [&str; 6] = [
    "reference",
    "export",
    "prefill",
    "decode",
    "quantize",
    "speed",
];
