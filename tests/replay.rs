//! The session commands of the real binary: `aipc replay` (Markdown transcript),
//! `aipc sessions show|export|gc`, the errors for corrupt and unsupported logs, and
//! `aipc bench replay` on a small synthetic session.

mod common;

use aipc::session::SessionPaths;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn aipc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_aipc"));
    command.env("AIPC_DATA_DIR", data_dir());
    command
}

fn record(project: &Path) -> PathBuf {
    let model = format!(
        "scripted:{}",
        data_dir().join("examples/scripts/tiny-mlp.jsonl").display()
    );
    let out = aipc()
        .args(["run", "--batch", "--target", "python-reference", "--model"])
        .arg(model)
        .arg(project)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    PathBuf::from(stdout.lines().last().unwrap())
        .parent()
        .unwrap()
        .to_path_buf()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A copy of a session folder (log and meta only) to damage.
fn copy_session(session: &Path, into: &Path) -> PathBuf {
    let dir = into.join("copy");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["events.jsonl", "meta.json"] {
        std::fs::copy(session.join(name), dir.join(name)).unwrap();
    }
    dir
}

#[test]
fn replay_prints_the_transcript_and_show_and_export_agree() {
    let project = git_project();
    let session = record(project.path());
    let id = session.file_name().unwrap().to_string_lossy().into_owned();
    let out = aipc()
        .args(["replay", "--batch", "--project"])
        .arg(project.path())
        .arg(&id[id.len() - 4..])
        .output()
        .unwrap();
    let (md, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for needle in [
        &format!("# aipc session {id}") as &str,
        "## Stage 1/3: env",
        "## Stage 3/3: validate",
        "### Attempt 2/3",
        "thought: *relu is wrong; try sigmoid.*",
        "call `validate.4` **edit_file** (policy allow)",
        "approved by policy",
        "```diff",
        "-        {\"op\": \"relu\"},",
        "**FAILED**",
        "| `cosine >= 0.999` | -0.9005 | **not met** |",
        "evidence: `check:artifact matches eager",
        "**validate passed** after 2 attempt(s)",
        "checkpoint `aipc/",
        "artifact `build/model.json`",
        "## Outcome",
        "**deployed** (exit 0)",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in:\n{md}");
    }
    // Every entry leads back to its line in the log.
    assert!(md.contains("`[0]`") || md.contains("`[1]`"));

    // Without --batch but into a pipe (not a terminal) the same transcript; `last` names the
    // newest session.
    let plain = aipc()
        .args(["replay", "last", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(text(&plain).0, md);
    // The TUI's flags change nothing for a pipe; a speed not offered is a usage error.
    let flagged = aipc()
        .args(["replay", "last", "--speed", "16", "--paused", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(text(&flagged).0, md);
    let bad = aipc()
        .args(["replay", "last", "--speed", "3", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad)
            .1
            .contains("one of 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, instant"),
        "{}",
        text(&bad).1
    );

    let out = aipc()
        .args(["sessions", "show", "last", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    let (show, _) = text(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(show.contains("outcome:   deployed (exit 0)"), "{show}");
    assert!(show.contains("validate  passed  2"), "{show}");
    assert!(show.contains("build/model.json"), "{show}");

    let out = aipc()
        .args(["sessions", "export", "--format", "json"])
        .arg(&session)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines = std::fs::read_to_string(session.join("events.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(value["events"].as_array().unwrap().len(), lines);
    assert_eq!(value["meta"]["session_id"], id.as_str());
    let out = aipc()
        .args(["sessions", "export", "--format", "md"])
        .arg(&session)
        .output()
        .unwrap();
    assert_eq!(
        text(&out).0,
        md,
        "a short session's export is the replay transcript"
    );

    // The plain listing still works, with and without `list`.
    let out = aipc().arg("sessions").arg(project.path()).output().unwrap();
    assert!(text(&out).0.contains(&id));
    let out = aipc()
        .args(["sessions", "list"])
        .arg(project.path())
        .output()
        .unwrap();
    assert!(text(&out).0.contains(&id));
}

#[test]
fn corrupt_torn_and_unsupported_logs_get_clear_messages() {
    let project = git_project();
    let session = record(project.path());
    let scratch = tempfile::tempdir().unwrap();
    let copy = copy_session(&session, scratch.path());
    let events = copy.join("events.jsonl");
    let original = std::fs::read_to_string(&events).unwrap();

    // A torn last line: read fine, and said.
    std::fs::write(&events, format!("{original}{{\"seq\":9999,\"ts_m")).unwrap();
    let out = aipc().arg("replay").arg(&copy).output().unwrap();
    let (md, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(md.contains("a torn last line of"), "{md}");

    // A damaged line in the middle: exit 2 naming the file and line.
    let mut lines: Vec<&str> = original.lines().collect();
    lines[4] = "{\"seq\":4,\"ts_ms\":1,\"type\":\"stage_sta";
    std::fs::write(&events, lines.join("\n") + "\n").unwrap();
    for args in [
        &["replay"][..],
        &["sessions", "show"],
        &["rerun"],
        &["resume"],
    ] {
        let out = aipc().args(args).arg(&copy).output().unwrap();
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{}:5:", events.display())),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("corrupted at this line (4 events before it read fine)"));
    }

    // An event kind from a newer aipc: upgrade.
    lines[4] = "{\"seq\":4,\"ts_ms\":1,\"type\":\"quantum_leap\"}";
    std::fs::write(&events, lines.join("\n") + "\n").unwrap();
    let (_, stderr) = text(&aipc().arg("replay").arg(&copy).output().unwrap());
    assert!(
        stderr.contains("unknown event type \"quantum_leap\"") && stderr.contains("upgrade aipc"),
        "{stderr}"
    );

    // Format versions: newer refused, older refused with what to do, 1 (before resume
    // existed) read.
    std::fs::write(&events, &original).unwrap();
    let meta_path = copy.join("meta.json");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    for (version, code, needle) in [
        (
            99,
            2,
            "session format version 99 is newer than this aipc supports",
        ),
        (
            0,
            2,
            "session format version 0 is older than this aipc reads",
        ),
        (1, 0, ""),
    ] {
        let mut m = meta.clone();
        m["format_version"] = version.into();
        std::fs::write(&meta_path, m.to_string()).unwrap();
        let out = aipc().arg("replay").arg(&copy).output().unwrap();
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(code), "version {version}: {stderr}");
        assert!(stderr.contains(needle), "version {version}: {stderr}");
    }
}

#[test]
fn gc_removes_old_sessions_with_their_worktrees_and_refs_but_nothing_of_the_user() {
    let project = git_project();
    let sessions: Vec<PathBuf> = (0..3).map(|_| record(project.path())).collect();
    let before = fingerprint(project.path());
    let repo = git2::Repository::open(project.path()).unwrap();
    let id = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();

    let out = aipc()
        .args(["sessions", "gc"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "no criteria is a usage error");

    let out = aipc()
        .args(["sessions", "gc", "--keep", "1", "--dry-run"])
        .arg(project.path())
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout.contains(&format!("would remove {}", id(&sessions[0]))),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("kept {}", id(&sessions[2]))),
        "{stdout}"
    );
    assert!(
        sessions.iter().all(|s| s.exists()),
        "a dry run removes nothing"
    );

    let out = aipc()
        .args(["sessions", "gc", "--keep", "1"])
        .arg(project.path())
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("2 session(s) removed"), "{stdout}");
    for gone in &sessions[..2] {
        assert!(!gone.exists());
        let gone = id(gone);
        assert!(repo
            .find_reference(&format!("refs/heads/aipc/{gone}"))
            .is_err());
        assert!(repo
            .references_glob(&format!("refs/tags/aipc/{gone}/*"))
            .unwrap()
            .next()
            .is_none());
        assert!(repo.find_worktree(&format!("aipc-{gone}")).is_err());
    }
    let kept = id(&sessions[2]);
    assert!(sessions[2].join("worktree/export.py").exists());
    assert!(repo
        .find_reference(&format!("refs/heads/aipc/{kept}"))
        .is_ok());
    assert_eq!(repo.worktrees().unwrap().len(), 1);
    assert_eq!(
        fingerprint(project.path()),
        before,
        "the user's files and branches"
    );

    // --older-than: nothing is that old yet.
    let out = aipc()
        .args(["sessions", "gc", "--older-than", "1"])
        .arg(project.path())
        .output()
        .unwrap();
    assert!(text(&out).0.contains("0 session(s) removed"));
    assert!(SessionPaths::sessions_root(project.path())
        .join(&kept)
        .exists());
}

#[test]
fn bench_replay_reports_figures_against_the_targets() {
    let out = aipc()
        .args(["bench", "replay", "--events", "3000", "--seeks", "200"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("replay benchmark: 3000 events"), "{stdout}");
    assert!(stdout.contains("target <= 1000 ms"), "{stdout}");
    assert!(stdout.contains("target <= 100 ms"), "{stdout}");
    assert!(stdout.contains("controller seek (200 random"), "{stdout}");
}

/// Run `aipc args…` and wait at most 20 seconds: a command that hangs fails the test (and is
/// killed) instead of hanging it.
fn run_bounded(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let mut child = aipc()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            return (status.code(), stderr);
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("aipc {args:?} still running after 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A session whose `events.jsonl` (or `meta.json`) is a FIFO, `/dev/zero` or a symlink to it:
/// every command that reads a session exits 2 with a message naming the file, quickly, instead
/// of waiting for a writer forever or reading until memory runs out.
#[test]
fn a_fifo_or_a_device_as_a_session_file_exits_2_without_hanging() {
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().join(".aipc/sessions/20260101-000000-bad0");
    std::fs::create_dir_all(&dir).unwrap();
    let events = dir.join("events.jsonl");
    let meta = dir.join("meta.json");
    let commands: [&[&str]; 5] = [
        &["replay", "--batch"],
        &["sessions", "show"],
        &["sessions", "export"],
        &["rerun"],
        &["resume", "--batch"],
    ];
    type Make = fn(&Path);
    let fifo: Make = |p| nix::unistd::mkfifo(p, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let dev_zero_link: Make = |p| std::os::unix::fs::symlink("/dev/zero", p).unwrap();
    for (what, make, needle) in [
        ("a FIFO", fifo, "FIFO (named pipe), not a regular file"),
        (
            "/dev/zero",
            dev_zero_link,
            "character device, not a regular file",
        ),
    ] {
        for (file, other) in [(&events, &meta), (&meta, &events)] {
            let _ = std::fs::remove_file(&events);
            let _ = std::fs::remove_file(&meta);
            make(file);
            if other == &events {
                std::fs::write(other, "").unwrap();
            }
            for args in commands {
                let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
                all.push(dir.as_os_str());
                let (code, stderr) = run_bounded(&all);
                assert_eq!(code, Some(2), "{what} as {file:?}, {args:?}: {stderr}");
                assert!(
                    stderr.contains(&file.display().to_string()) && stderr.contains(needle),
                    "{what} as {file:?}, {args:?}: {stderr}"
                );
            }
            // Listing the project's sessions says what is wrong with this one, and goes on.
            let (code, stderr) = run_bounded(&[
                "sessions".as_ref(),
                "list".as_ref(),
                project.path().as_os_str(),
            ]);
            assert_eq!(code, Some(0), "{what} as {file:?}, list: {stderr}");
        }
    }
}
