//! Crash safety: the real binary deploys the tiny-mlp example with the scripted demo model, is
//! killed with SIGKILL at random moments, and `aipc resume` must always finish the deployment.
//!
//! Per kill: the deployment ends `deployed` (exit 0); every checkpoint tag that existed before
//! the kill still exists, and the ones the log had recorded still point at the same commits;
//! the log reads back strictly (every line parses, seqs run without gaps); the user's project
//! is untouched. Some resumes are themselves killed (a resume of a resume), and some logs get a
//! torn last line appended before resuming (what a crash in the middle of a write leaves).
//!
//! The scripted model is positional; a resumed session skips the replies the kept stages used
//! and gives the redone stage the same replies the interrupted attempt had, so every resumed
//! run must end exactly like an uninterrupted one.
//!
//! `AIPC_CRASH_KILLS` (default 50) sets the number of kills, `AIPC_CRASH_SEED` the seed of the
//! delays (xorshift64). Delays are uniform over the duration of an uninterrupted run, measured
//! first; every tenth falls in the first 150 ms (process start, session setup). 50 kills take
//! about 3 to 4 minutes on two busy cores.

mod common;

use aipc::protocol::{Event, Outcome};
use aipc::session::{read_events, Recording, SessionPaths};
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A private link to the binary under test: a rebuild of the shared target folder while this
/// long test runs must not swap the binary under it.
fn binary(dir: &Path) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_BIN_EXE_aipc"));
    let dst = dir.join("aipc");
    if std::fs::hard_link(&src, &dst).is_err() {
        std::fs::copy(&src, &dst).unwrap();
    }
    dst
}

fn demo_model() -> String {
    format!(
        "scripted:{}",
        data_dir().join("examples/scripts/tiny-mlp.jsonl").display()
    )
}

fn spawn_run(bin: &Path, project: &Path) -> Child {
    Command::new(bin)
        .env("AIPC_DATA_DIR", data_dir())
        .args(["run", "--batch", "--target", "python-reference", "--model"])
        .arg(demo_model())
        .arg(project)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn spawn_resume(bin: &Path, session: &Path, output: bool) -> Child {
    let (out, err) = if output {
        (Stdio::piped(), Stdio::piped())
    } else {
        (Stdio::null(), Stdio::null())
    };
    let mut command = Command::new(bin);
    command.env("AIPC_DATA_DIR", data_dir()).arg("resume");
    // Killed before meta.json was written, the session does not know its model yet: resume
    // asks for --model (see the test below), and the engineer gives it.
    if !session.join("meta.json").exists() {
        command.args(["--model", &demo_model()]);
    }
    command
        .arg(session)
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap()
}

/// xorshift64: the same delays for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| {
            let v = v.trim();
            match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => v.parse().ok(),
            }
        })
        .unwrap_or(default)
}

/// Let `child` run for `delay`, then SIGKILL it (if it is still running). Whether it was
/// still running.
fn kill_after(child: &mut Child, delay: Duration) -> bool {
    let deadline = Instant::now() + delay;
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2).min(deadline - Instant::now()));
    }
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    running
}

fn session_dirs(project: &Path) -> Vec<PathBuf> {
    let root = SessionPaths::sessions_root(project);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// The session's checkpoint tags → commits.
fn tags(project: &Path, id: &str) -> BTreeMap<String, String> {
    let repo = git2::Repository::open(project).unwrap();
    let mut out = BTreeMap::new();
    for r in repo
        .references_glob(&format!("refs/tags/aipc/{id}/*"))
        .unwrap()
    {
        let r = r.unwrap();
        out.insert(
            r.name().unwrap().to_string(),
            r.peel_to_commit().unwrap().id().to_string(),
        );
    }
    out
}

/// Checkpoints the log recorded as made (tag → commit), when it can be read.
fn logged_checkpoints(session: &Path) -> BTreeMap<String, String> {
    let Ok(bytes) = std::fs::read(session.join("events.jsonl")) else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for line in bytes.split(|&b| b == b'\n') {
        if let Ok(env) = serde_json::from_slice::<aipc::protocol::EventEnvelope>(line) {
            if let Event::CheckpointMade { tag, commit, .. } = env.event {
                out.insert(format!("refs/tags/{tag}"), commit);
            }
        }
    }
    out
}

fn events_logged(session: &Path) -> usize {
    std::fs::read(session.join("events.jsonl"))
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

#[test]
fn killed_at_random_moments_resume_always_finishes_the_deployment() {
    let kills = env_u64("AIPC_CRASH_KILLS", 50) as usize;
    let mut rng = Rng(env_u64("AIPC_CRASH_SEED", 0x5eed_c0de_2026).max(1));
    let scratch = tempfile::tempdir().unwrap();
    let bin = binary(scratch.path());
    let started = Instant::now();

    // Uninterrupted runs: how long a run takes (the shorter of two, the other tests of this
    // file may be running alongside the first), and that it deploys.
    let mut run_ms = u64::MAX;
    for _ in 0..2 {
        let baseline = git_project();
        let t0 = Instant::now();
        let status = spawn_run(&bin, baseline.path()).wait().unwrap();
        run_ms = run_ms.min(t0.elapsed().as_millis() as u64);
        assert_eq!(status.code(), Some(0));
    }
    eprintln!("uninterrupted run: {run_ms} ms; {kills} kills, delays uniform in [0, {run_ms}) ms");

    let mut phases: BTreeMap<&str, usize> = BTreeMap::new();
    let mut resumes_killed = 0;
    let mut torn = 0;
    for i in 0..kills {
        let project = git_project();
        let before = fingerprint(project.path());
        // Every tenth kill lands in the first moments, while the session is being set up.
        let window = if i % 10 == 0 { 150.min(run_ms) } else { run_ms };
        let delay = Duration::from_millis(rng.below(window));
        let mut child = spawn_run(&bin, project.path());
        let was_running = kill_after(&mut child, delay);
        let sessions = session_dirs(project.path());
        let Some(session) = sessions.first().cloned() else {
            *phases.entry("before the session existed").or_default() += 1;
            assert_eq!(fingerprint(project.path()), before, "kill {i}");
            continue;
        };
        assert_eq!(sessions.len(), 1, "kill {i}: {sessions:?}");
        let id = session.file_name().unwrap().to_string_lossy().into_owned();
        let logged = events_logged(&session);
        let phase = if !was_running {
            "after the run ended"
        } else if logged == 0 {
            "while setting up"
        } else {
            let text = std::fs::read_to_string(session.join("events.jsonl")).unwrap_or_default();
            if text.contains("\"stage_passed\",\"stage\":\"export\"") {
                "in validate"
            } else if text.contains("\"stage_passed\",\"stage\":\"env\"") {
                "in export"
            } else {
                "in env"
            }
        };
        *phases.entry(phase).or_default() += 1;

        // Sometimes the resume is killed too, then resumed again.
        if i % 3 == 1 {
            let mut again = spawn_resume(&bin, &session, false);
            if kill_after(&mut again, Duration::from_millis(rng.below(run_ms))) {
                resumes_killed += 1;
            }
        }
        // Sometimes the log ends in a torn line, as a crash mid-write leaves it (not after the
        // last event: a finished session is left as it is).
        let finished = std::fs::read_to_string(session.join("events.jsonl"))
            .unwrap_or_default()
            .contains("\"type\":\"session_finished\"");
        if i % 5 == 2 && !finished {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(session.join("events.jsonl"))
                .unwrap();
            f.write_all(b"{\"seq\":99999,\"ts_ms\":1,\"type\":\"tool_out")
                .unwrap();
            torn += 1;
        }

        let tags_before = tags(project.path(), &id);
        let logged_before = logged_checkpoints(&session);
        let out = spawn_resume(&bin, &session, true)
            .wait_with_output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "kill {i} after {delay:?} ({phase}): resume failed:\n{stderr}"
        );

        // The log reads back strictly: every line parses, seqs 0, 1, 2, … (read_events
        // refuses gaps and repeats), nothing torn is left.
        let log =
            read_events(&session.join("events.jsonl")).unwrap_or_else(|e| panic!("kill {i}: {e}"));
        assert!(log.torn_tail.is_none(), "kill {i}");
        assert!(
            log.events.windows(2).all(|w| w[1].seq == w[0].seq + 1),
            "kill {i}"
        );
        let recording = Recording::open(&SessionPaths::from_dir(&session)).unwrap();
        assert_eq!(
            recording.finished(),
            Some((Outcome::Deployed, 0)),
            "kill {i}: {stderr}"
        );

        // No checkpoint made before the kill is lost; the recorded ones did not move.
        let tags_after = tags(project.path(), &id);
        for tag in tags_before.keys() {
            assert!(tags_after.contains_key(tag), "kill {i}: {tag} lost");
        }
        for (tag, commit) in &logged_before {
            assert_eq!(tags_after.get(tag), Some(commit), "kill {i}: {tag} moved");
        }
        assert_eq!(tags_after.len(), 3, "kill {i}: {tags_after:?}");

        // The deployment is the uninterrupted one's: the exporter writes tanh.
        let export = std::fs::read_to_string(session.join("worktree/export.py")).unwrap();
        assert!(
            export.contains("{\"op\": \"tanh\"}"),
            "kill {i} after {delay:?} ({phase}): {}\n{stderr}\n{export}",
            session.display()
        );
        assert_eq!(
            fingerprint(project.path()),
            before,
            "kill {i}: the user's files changed"
        );

        // A resumed session re-runs like an uninterrupted one (once: it costs a run).
        if i == 1 {
            let out = Command::new(&bin)
                .env("AIPC_DATA_DIR", data_dir())
                .args(["rerun", "--quiet"])
                .arg(&session)
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    eprintln!(
        "{kills} kills in {:.1} s: {phases:?}; {resumes_killed} resumes killed too, {torn} torn logs",
        started.elapsed().as_secs_f64()
    );
    assert!(
        phases.get("in validate").copied().unwrap_or(0) > 0 || kills < 10,
        "no kill landed in the last stage: {phases:?}"
    );
}

#[test]
fn resume_of_a_finished_session_says_so_with_its_exit_code() {
    let scratch = tempfile::tempdir().unwrap();
    let bin = binary(scratch.path());
    let project = git_project();
    assert_eq!(
        spawn_run(&bin, project.path()).wait().unwrap().code(),
        Some(0)
    );
    let session = session_dirs(project.path()).remove(0);
    let out = spawn_resume(&bin, &session, true)
        .wait_with_output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("already finished: deployed (exit 0); nothing to resume"),
        "{stderr}"
    );
    // Nothing was appended.
    let before = std::fs::read(session.join("events.jsonl")).unwrap();
    assert!(!String::from_utf8_lossy(&before).contains("session_resumed"));
}

#[test]
fn a_session_killed_while_setting_up_is_set_up_again() {
    let scratch = tempfile::tempdir().unwrap();
    let bin = binary(scratch.path());
    let project = git_project();
    let before = fingerprint(project.path());
    // What a kill during setup can leave: an empty log, no meta.json, the branch, and a
    // worktree registration git cannot read.
    let id = "20261129-120000-dead";
    let session = SessionPaths::new(project.path(), id);
    std::fs::create_dir_all(&session.dir).unwrap();
    std::fs::write(&session.events, "").unwrap();
    let repo = git2::Repository::open(project.path()).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    repo.branch(&format!("aipc/{id}"), &head, false).unwrap();
    let admin = project.path().join(format!(".git/worktrees/aipc-{id}"));
    std::fs::create_dir_all(&admin).unwrap();
    std::fs::write(admin.join("HEAD"), "ref: refs/heads/aipc/x\n").unwrap();

    // The model is not recorded anywhere yet: resume says so.
    let out = Command::new(&bin)
        .env("AIPC_DATA_DIR", data_dir())
        .arg("resume")
        .arg(&session.dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --model"));

    let out = spawn_resume(&bin, &session.dir, true)
        .wait_with_output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let log = read_events(&session.events).unwrap();
    assert!(matches!(log.events[0].event, Event::SessionStarted { .. }));
    assert!(matches!(
        log.events[1].event,
        Event::SessionResumed { from_seq: 0, .. }
    ));
    assert_eq!(
        Recording::open(&session).unwrap().finished(),
        Some((Outcome::Deployed, 0))
    );
    assert!(session.meta.exists());
    assert_eq!(tags(project.path(), id).len(), 3);
    assert_eq!(fingerprint(project.path()), before);
}
