//! The real binary, stopped the hard ways: SIGTERM, SIGHUP and SIGINT while a command runs
//! (the session must end aborted, exit 4, promptly, leaving no process behind), and SIGKILL at
//! random points of a deployment, then `aipc resume` (the session must still deploy).
//! Sessions use the python-reference target and the tiny-mlp example with a scripted model, so
//! they need nothing but python3.

use super::commands::processes_with;
use super::{Options, Rng, Tally};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kill points in a full run, and in `--quick`.
const KILL_POINTS: usize = 50;
const KILL_POINTS_QUICK: usize = 5;

/// A git repository holding the tiny-mlp example, committed.
fn project(options: &Options, root: &Path) -> Result<PathBuf, String> {
    let project = root.join("project");
    std::fs::create_dir_all(&project).map_err(|e| e.to_string())?;
    let example = options.data_dir.join("examples/tiny-mlp");
    for entry in std::fs::read_dir(&example).map_err(|e| format!("{}: {e}", example.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.file_type().map_err(|e| e.to_string())?.is_file() {
            std::fs::copy(entry.path(), project.join(entry.file_name()))
                .map_err(|e| e.to_string())?;
        }
    }
    let repo = git2::Repository::init(&project).map_err(|e| e.to_string())?;
    let mut index = repo.index().map_err(|e| e.to_string())?;
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .map_err(|e| e.to_string())?;
    let tree = repo
        .find_tree(index.write_tree().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let sig = git2::Signature::now("u", "u@example.com").map_err(|e| e.to_string())?;
    repo.commit(Some("HEAD"), &sig, &sig, "project", &tree, &[])
        .map_err(|e| e.to_string())?;
    Ok(project)
}

fn aipc(options: &Options) -> Command {
    let mut command = Command::new(&options.exe);
    command
        .env("AIPC_DATA_DIR", &options.data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

fn start_run(options: &Options, project: &Path, replies: &Path) -> Result<Child, String> {
    aipc(options)
        .args(["run", "--target", "python-reference", "--batch", "--model"])
        .arg(format!("scripted:{}", replies.display()))
        .arg(project)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", options.exe.display()))
}

fn wait_exit(child: &mut Child, limit: Duration) -> Result<Option<i32>, String> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return Ok(status.code());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("did not exit within {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The last event of the project's only session.
fn last_event(project: &Path) -> Option<serde_json::Value> {
    let sessions = project.join(".aipc/sessions");
    let dir = std::fs::read_dir(sessions).ok()?.flatten().next()?.path();
    let text = std::fs::read_to_string(dir.join("events.jsonl")).ok()?;
    serde_json::from_str(text.lines().last()?).ok()
}

/// SIGTERM, SIGHUP and SIGINT while a command and its escaped children run.
pub(crate) fn signals(options: &Options) -> Tally {
    let mut tally = Tally::new("stop signals");
    let mut slowest = 0.0f64;
    for (index, signal) in [Signal::SIGTERM, Signal::SIGHUP, Signal::SIGINT]
        .into_iter()
        .enumerate()
    {
        let verdict = (|| {
            let root = tempfile::tempdir().map_err(|e| e.to_string())?;
            let project = project(options, root.path())?;
            let marker = format!("{}{index}", 8_000_000 + std::process::id());
            let replies = root.path().join("replies.jsonl");
            let call = format!(
                r#"{{"tool": "run", "args": {{"command": "setsid sleep {marker} & (sleep {marker} &); sleep {marker}"}}}}"#
            );
            std::fs::write(&replies, format!("{call}\n")).map_err(|e| e.to_string())?;
            let mut child = start_run(options, &project, &replies)?;
            let deadline = Instant::now() + Duration::from_secs(60);
            while processes_with(&format!("sleep {marker}")).len() < 3 {
                if Instant::now() > deadline {
                    let _ = child.kill();
                    return Err("the command never started".into());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let sent = Instant::now();
            kill(Pid::from_raw(child.id() as i32), signal).map_err(|e| e.to_string())?;
            let code = wait_exit(&mut child, Duration::from_secs(20))?;
            let took = sent.elapsed().as_secs_f64();
            slowest = slowest.max(took);
            if code != Some(4) {
                return Err(format!("exit {code:?}, expected 4"));
            }
            if took > 2.0 {
                return Err(format!("took {took:.2} s (bound 2 s)"));
            }
            let last = last_event(&project).ok_or("no session log")?;
            if last["type"] != "session_finished" || last["outcome"] != "aborted" {
                return Err(format!("the log ends with {last}"));
            }
            std::thread::sleep(Duration::from_millis(300));
            let left = processes_with(&format!("sleep {marker}"));
            if !left.is_empty() {
                return Err(format!("{} processes outlived the session", left.len()));
            }
            Ok(())
        })();
        tally.case(signal.as_str(), verdict);
    }
    tally.note(format!("slowest stop: {slowest:.2} s"));
    tally
}

/// SIGKILL at random points of a deployment, then `aipc resume`: it must deploy.
pub(crate) fn kill_and_resume(options: &Options) -> Tally {
    let mut tally = Tally::new("kill -9 then resume");
    let points = if options.quick {
        KILL_POINTS_QUICK
    } else {
        KILL_POINTS
    };
    let replies = options.data_dir.join("examples/scripts/tiny-mlp.jsonl");
    let mut rng = Rng::new(options.seed ^ 0x5eed);
    // Where the kills landed: before the session existed, during it, after it had ended.
    let (mut before, mut during, mut after) = (0, 0, 0);
    for point in 0..points {
        // Spread over a run's length (about 2 s here), some after its end.
        let delay = Duration::from_millis(30 + rng.below(3000) as u64);
        let verdict = (|| {
            let root = tempfile::tempdir().map_err(|e| e.to_string())?;
            let project = project(options, root.path())?;
            let mut child = start_run(options, &project, &replies)?;
            std::thread::sleep(delay);
            let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
            let _ = wait_exit(&mut child, Duration::from_secs(10))?;
            let folders = std::fs::read_dir(project.join(".aipc/sessions"))
                .map(|dirs| dirs.count())
                .unwrap_or(0);
            if folders == 0 {
                // Killed before the session's folder existed: nothing to resume, nothing lost.
                before += 1;
                return Ok(());
            }
            match last_event(&project) {
                Some(last) if last["type"] == "session_finished" => after += 1,
                _ => during += 1,
            }
            // The model the run was given: a session killed before it recorded one (while being
            // set up) can only be resumed with it (`aipc resume` says "pass --model", exit 5).
            let mut resume = aipc(options)
                .args(["resume", "last", "--batch", "--project"])
                .arg(&project)
                .arg("--model")
                .arg(format!("scripted:{}", replies.display()))
                .spawn()
                .map_err(|e| e.to_string())?;
            let code = wait_exit(&mut resume, Duration::from_secs(120))?;
            if code != Some(0) {
                return Err(format!(
                    "killed after {} ms, resume exited {code:?}",
                    delay.as_millis()
                ));
            }
            let last = last_event(&project).ok_or("no session log")?;
            if last["outcome"] != "deployed" {
                return Err(format!("the log ends with {last}"));
            }
            Ok(())
        })();
        tally.case(
            &format!("kill point {point} ({} ms)", delay.as_millis()),
            verdict,
        );
    }
    tally.note(format!(
        "killed before the session existed {before}, during it {during}, after its end {after}"
    ));
    tally
}
