//! `aipc resume` and `aipc rerun` in a real terminal open the TUI, as `aipc run` does (one drive
//! loop for the three). Inside tmux:
//! - a session of the tiny-mlp example (the scripted demo model; every `run` asks) is aborted in
//!   the TUI at its first approval, then resumed in the same terminal. The resumed TUI shows the
//!   resume, takes the engineer's approvals — the aborted run's end, still in the log, is not
//!   taken for the session's end — and the session ends deployed, exit 0, report path printed;
//! - a batch session is re-run: the re-run plays in the TUI, and when the engineer leaves it
//!   the comparison is printed (no divergence, exit 0).
//!
//! Skipped (with a message) when tmux is not installed.

mod common;

use aipc::engine::exit;
use common::tmux::{quote, tmux_available, Tmux, STEP_TIMEOUT};
use common::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// The text of `file` once a command has written it (the exit code the shell saved).
fn wait_for_file(tmux: &Tmux, file: &Path) -> String {
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(file) {
            if !text.trim().is_empty() {
                return text.trim().to_string();
            }
        }
        assert!(
            started.elapsed() < STEP_TIMEOUT,
            "{} was not written; the screen:\n{}",
            file.display(),
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The call the approval overlay names (`export.1 run`), if one waits.
fn waiting_call(screen: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains(" waits for you"))?;
    let before = &line[..line.find(" waits for you")?];
    let start = before.rfind('┌').map_or(0, |i| i + '┌'.len_utf8());
    Some(before[start..].trim().to_string())
}

#[test]
fn resume_opens_the_tui_and_finishes_an_aborted_session() {
    assert!(
        tmux_available(),
        "tmux is not installed; install it to run the TUI end-to-end test (.ci/run installs it)"
    );
    let project = git_project();
    std::fs::write(
        project.path().join("aipc.toml"),
        "target = \"python-reference\"\n[defaults.tools]\nrun = \"ask\"\n",
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let run_exit = work.path().join("run-exit");
    let resume_exit = work.path().join("resume-exit");
    let script = data_dir().join("examples/scripts/tiny-mlp.jsonl");
    let command = format!(
        "export AIPC_DATA_DIR={data}; {bin} run {project} --model scripted:{script}; \
         echo $? > {run_exit}; {bin} resume last --project {project}; echo $? > {resume_exit}",
        data = quote(&data_dir()),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_aipc"))),
        project = quote(project.path()),
        script = quote(&script),
        run_exit = quote(&run_exit),
        resume_exit = quote(&resume_exit),
    );
    let tmux = Tmux::start(work.path(), "resume", 120, 40, &command);

    // The first `run` waits for the engineer, who aborts the session instead.
    tmux.wait_for("waits for you");
    tmux.type_text("q");
    tmux.wait_for("Abort the session?");
    tmux.type_text("y");
    assert_eq!(wait_for_file(&tmux, &run_exit), exit::ABORTED.to_string());

    // `aipc resume` opens the TUI on the same terminal and continues; approve every `run`.
    tmux.wait_for("resumed at stage");
    loop {
        let screen = tmux.wait_until("an approval or the end", |s| {
            s.contains(" waits for you") || s.contains("DEPLOYED")
        });
        if screen.contains("DEPLOYED") {
            break;
        }
        let call = waiting_call(&screen).expect("the waiting call");
        tmux.type_text("y");
        let waiting = format!("{call} waits for you");
        tmux.wait_until(&format!("{call} approved"), |s| {
            !s.contains(&waiting) || s.contains("the session has ended")
        });
        assert!(
            !tmux.screen().contains("the session has ended"),
            "the resumed session was shown as ended:\n{}",
            tmux.screen()
        );
    }
    tmux.type_text("q");
    assert_eq!(wait_for_file(&tmux, &resume_exit), "0");
    // After the TUI: the outcome, then the report's path.
    let screen = tmux.wait_for("report.md");
    assert!(
        screen.contains("aipc: session deployed (exit 0)"),
        "{screen}"
    );
}

#[test]
fn rerun_plays_in_the_tui_and_prints_the_comparison_after_it() {
    assert!(
        tmux_available(),
        "tmux is not installed; install it to run the TUI end-to-end test (.ci/run installs it)"
    );
    let project = git_project();
    let work = tempfile::tempdir().unwrap();
    let rerun_exit = work.path().join("rerun-exit");
    let script = data_dir().join("examples/scripts/tiny-mlp.jsonl");
    let command = format!(
        "export AIPC_DATA_DIR={data}; {bin} run {project} --batch --target python-reference \
         --model scripted:{script} > /dev/null 2>&1; {bin} rerun last --project {project}; \
         echo $? > {rerun_exit}",
        data = quote(&data_dir()),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_aipc"))),
        project = quote(project.path()),
        script = quote(&script),
        rerun_exit = quote(&rerun_exit),
    );
    let tmux = Tmux::start(work.path(), "rerun", 120, 40, &command);

    // The re-run (it asks nothing) plays to its end in the TUI, which stays until q.
    tmux.wait_for("DEPLOYED");
    tmux.type_text("q");
    assert_eq!(wait_for_file(&tmux, &rerun_exit), "0");
    let screen = tmux.wait_for("no divergence");
    assert!(screen.contains("comparable events compared"), "{screen}");
}
