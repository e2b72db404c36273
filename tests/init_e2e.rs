//! `aipc init` in a real terminal (tmux): it lists the project's functions that look like the
//! model, asks for what it cannot know (the input shape), takes the defaults on Enter, and writes
//! an aipc.toml and hooks that validate.

mod common;

use common::tmux::{quote, tmux_available, Tmux};
use std::path::Path;

#[test]
fn init_asks_in_a_terminal_and_writes_a_project_that_validates() {
    assert!(
        tmux_available(),
        "tmux is not installed; install it to run the end-to-end tests (.ci/run installs it)"
    );
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("nets")).unwrap();
    std::fs::write(project.path().join("nets/__init__.py"), "").unwrap();
    std::fs::write(
        project.path().join("nets/classifier.py"),
        "import torch\n\n\ndef build_classifier():\n    torch.manual_seed(0)\n    return torch.nn.Linear(16, 4)\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("train.py"),
        "def train_loop():\n    pass\n",
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let exit_file = work.path().join("exit-code");
    let command = format!(
        "{bin} init {project}; echo $? > {exit}",
        bin = quote(Path::new(env!("CARGO_BIN_EXE_aipc"))),
        project = quote(project.path()),
        exit = quote(&exit_file),
    );
    let tmux = Tmux::start(work.path(), "init", 160, 40, &command);

    let screen = tmux.wait_for("the model: a number above");
    assert!(
        screen.contains("1. nets.classifier:build_classifier"),
        "{screen}"
    );
    assert!(
        !screen.contains("train_loop"),
        "not a model function:\n{screen}"
    );
    tmux.press("Enter");
    tmux.wait_for("target (onnxruntime-cpu | executorch-xnnpack)");
    tmux.press("Enter");
    tmux.wait_for("input shape of one sample for nets.classifier:build_classifier");
    tmux.type_text("16");
    tmux.press("Enter");
    tmux.wait_for("ship INT8 (y) or FP32 (n)");
    tmux.press("Enter");
    tmux.wait_for("p50 latency budget in ms");
    tmux.type_text("2.5");
    tmux.press("Enter");
    let screen = tmux.wait_for("ready: aipc run");
    assert!(screen.contains("wrote "), "{screen}");
    tmux.wait_until("the exit code", |_| exit_file.exists());
    let code = std::fs::read_to_string(&exit_file).unwrap();
    assert_eq!(code.trim(), "0");
    let toml = std::fs::read_to_string(project.path().join("aipc.toml")).unwrap();
    assert!(toml.contains("target = \"onnxruntime-cpu\""), "{toml}");
    assert!(
        toml.contains("model = \"nets.classifier:build_classifier\""),
        "{toml}"
    );
    assert!(toml.contains("quantize = \"int8\""), "{toml}");
    assert!(toml.contains("latency_budget_ms = 2.5"), "{toml}");
    let hooks = std::fs::read_to_string(project.path().join("aipc_hooks.py")).unwrap();
    assert!(hooks.contains("INPUT_SHAPE = (16,)"), "{hooks}");
}
