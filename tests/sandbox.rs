//! The command sandbox from outside, with the real bubblewrap: what a command may and may not
//! touch (files outside the worktree, the user's `.git`, the toolbox, the session log, the
//! network, secrets), what it may spend (output, memory, file size, time), and that nothing it
//! starts outlives it. Bubblewrap must be installed (`.ci/run` installs it): without it these
//! tests fail, they do not skip.

mod common;

use aipc::protocol::OutputStream;
use aipc::sandbox::{Limits, Sandbox, SandboxMode};
use aipc::tools::{run_command, CommandOutcome, CommandSpec, HEAD_LINES, TAIL_LINES};
use common::processes_with;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A project as a session sees it: the user's checkout with its `.git`, the session folder with
/// its log, the worktree inside it (whose `.git` is a link file), and a toolbox beside it.
struct Layout {
    _root: tempfile::TempDir,
    project: PathBuf,
    worktree: PathBuf,
    toolbox: PathBuf,
    events: PathBuf,
}

impl Layout {
    fn new() -> Layout {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        let session = project.join(".aipc/sessions/s1");
        let worktree = session.join("worktree");
        let toolbox = root.path().join("toolbox/targets/t");
        for dir in [&worktree, &toolbox, &project.join(".git/hooks")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(project.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(project.join("model.py"), "user's file\n").unwrap();
        std::fs::write(
            worktree.join(".git"),
            "gitdir: ../../../.git/worktrees/s1\n",
        )
        .unwrap();
        std::fs::write(worktree.join("model.py"), "session copy\n").unwrap();
        std::fs::write(toolbox.join("compare.py"), "print('{\"cosine\": 0.5}')\n").unwrap();
        let events = session.join("events.jsonl");
        std::fs::write(&events, "{}\n").unwrap();
        Layout {
            project,
            worktree,
            toolbox,
            events,
            _root: root,
        }
    }

    fn sandbox(&self, mode: SandboxMode, limits: Limits) -> Sandbox {
        Sandbox::new(
            mode,
            &self.worktree,
            &[self.project.clone(), self.toolbox.clone()],
            limits,
        )
        .expect("bubblewrap starts (install it: apt-get install bubblewrap)")
    }
}

struct Ran {
    outcome: CommandOutcome,
    lines: Vec<(OutputStream, String)>,
    elapsed: Duration,
}

async fn run_in(
    sandbox: &Sandbox,
    cwd: &Path,
    command: &str,
    env: &[(String, String)],
    timeout: Duration,
    spill: Option<PathBuf>,
) -> Ran {
    let lines = Mutex::new(Vec::new());
    let on_line = |s: OutputStream, l: &str| lines.lock().unwrap().push((s, l.to_string()));
    let started = Instant::now();
    let outcome = run_command(
        &CommandSpec {
            command,
            cwd,
            env,
            env_remove: &[],
            timeout,
            sandbox,
            spill,
        },
        &CancellationToken::new(),
        &on_line,
    )
    .await
    .unwrap();
    Ran {
        outcome,
        lines: lines.into_inner().unwrap(),
        elapsed: started.elapsed(),
    }
}

/// No process whose command line holds `marker` is left within 3 s.
fn assert_gone_soon(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while !processes_with(marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(marker), Vec::<String>::new());
}

async fn run(layout: &Layout, sandbox: &Sandbox, command: &str) -> Ran {
    run_in(
        sandbox,
        &layout.worktree,
        command,
        &[],
        Duration::from_secs(30),
        None,
    )
    .await
}

#[tokio::test]
async fn the_worktree_is_writable_and_nothing_else_is() {
    let l = Layout::new();
    let sandbox = l.sandbox(SandboxMode::Strict, Limits::default());
    let ok = run(
        &l,
        &sandbox,
        "echo new > made.txt && echo more >> model.py && mkdir -p build && touch build/a.bin",
    )
    .await;
    assert!(ok.outcome.success(), "{:?}", ok.outcome);
    assert!(l.worktree.join("made.txt").exists());

    let project = l.project.display().to_string();
    let attempts = [
        format!("echo x >> {project}/model.py"),
        format!("rm {project}/model.py"),
        format!("echo '[core] hooksPath = /tmp/h' >> {project}/.git/config"),
        format!("touch {project}/.git/hooks/pre-commit"),
        format!("echo forged > {}/compare.py", l.toolbox.display()),
        format!("echo '{{}}' >> {}", l.events.display()),
        "echo 'gitdir: /elsewhere' > .git".to_string(),
        "touch /root/aipc-sandbox-probe".to_string(),
        "touch /etc/aipc-sandbox-probe".to_string(),
        "touch /var/tmp/aipc-sandbox-probe".to_string(),
        "touch ../escaped.txt".to_string(),
    ];
    for attempt in &attempts {
        let ran = run(&l, &sandbox, attempt).await;
        assert!(!ran.outcome.success(), "`{attempt}` succeeded");
    }
    assert_eq!(
        std::fs::read_to_string(l.project.join("model.py")).unwrap(),
        "user's file\n"
    );
    assert_eq!(
        std::fs::read_to_string(l.project.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!l.project.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(l.toolbox.join("compare.py")).unwrap(),
        "print('{\"cosine\": 0.5}')\n"
    );
    assert_eq!(std::fs::read_to_string(&l.events).unwrap(), "{}\n");
    assert!(std::fs::read_to_string(l.worktree.join(".git"))
        .unwrap()
        .starts_with("gitdir: ../"));
    assert!(!Path::new("/root/aipc-sandbox-probe").exists());
    assert!(!l.worktree.parent().unwrap().join("escaped.txt").exists());
}

#[tokio::test]
async fn tmp_is_private_and_the_toolbox_under_tmp_stays_readable() {
    let l = Layout::new();
    let sandbox = l.sandbox(SandboxMode::Strict, Limits::default());
    let marker = format!("aipc-private-{}", std::process::id());
    let ran = run(
        &l,
        &sandbox,
        &format!(
            "echo in > /tmp/{marker} && cat /tmp/{marker} && cat {}/compare.py",
            l.toolbox.display()
        ),
    )
    .await;
    assert!(ran.outcome.success(), "{:?}", ran.outcome);
    assert!(ran.outcome.stdout.contains("cosine"));
    assert!(!Path::new(&format!("/tmp/{marker}")).exists());
}

#[tokio::test]
async fn secrets_do_not_reach_commands_and_toolchain_variables_do() {
    let l = Layout::new();
    let sandbox = l.sandbox(SandboxMode::Strict, Limits::default());
    let env: Vec<(String, String)> = [
        ("AIPC_API_KEY", "sk-secret-1"),
        ("OPENAI_API_KEY", "sk-secret-2"),
        ("AWS_SECRET_ACCESS_KEY", "sk-secret-3"),
        ("GITHUB_TOKEN", "sk-secret-4"),
        ("AIPC_TARGET_DIR", "/t"),
        ("PYTHONPATH", "/lib"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let ran = run_in(
        &sandbox,
        &l.worktree,
        "env",
        &env,
        Duration::from_secs(10),
        None,
    )
    .await;
    assert!(ran.outcome.success());
    assert!(
        !ran.outcome.stdout.contains("sk-secret"),
        "{}",
        ran.outcome.stdout
    );
    assert!(ran.outcome.stdout.contains("AIPC_TARGET_DIR=/t"));
    assert!(ran.outcome.stdout.contains("PYTHONPATH=/lib"));
    assert!(ran.outcome.stdout.contains("TMPDIR=/tmp"));
}

#[tokio::test]
async fn strict_has_no_network_and_workspace_write_has() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let l = Layout::new();
    let connect = format!(
        "python3 -c 'import socket; s = socket.create_connection((\"127.0.0.1\", {port}), timeout=3); print(\"connected\")'"
    );
    let strict = l.sandbox(SandboxMode::Strict, Limits::default());
    let ran = run(&l, &strict, &connect).await;
    assert!(!ran.outcome.success(), "{:?}", ran.outcome);
    let open = l.sandbox(SandboxMode::WorkspaceWrite, Limits::default());
    let ran = run(&l, &open, &connect).await;
    assert!(ran.outcome.success(), "{:?}", ran.outcome);
    drop(listener);
}

#[tokio::test]
async fn escaped_children_die_with_the_command() {
    let l = Layout::new();
    let sandbox = l.sandbox(SandboxMode::Strict, Limits::default());
    let marker = format!("4{}7", std::process::id());
    // `setsid` leaves the process group, the double fork leaves the parent; both hold no pipe.
    let command = format!(
        "setsid sleep {marker} >/dev/null 2>&1 < /dev/null & (sleep {marker} >/dev/null 2>&1 &) ; nohup sleep {marker} >/dev/null 2>&1 & echo started"
    );
    let ran = run(&l, &sandbox, &command).await;
    assert!(ran.outcome.success(), "{:?}", ran.outcome);
    // The PID namespace ends with the command's main process.
    assert_gone_soon(&format!("sleep {marker}"));
}

#[tokio::test]
async fn a_flood_of_output_is_bounded_and_the_timeout_holds() {
    let l = Layout::new();
    let sandbox = l.sandbox(SandboxMode::Strict, Limits::default());
    let spill = l.project.join(".aipc/sessions/s1/logs/c1.out");
    let ran = run_in(
        &sandbox,
        &l.worktree,
        "yes 'a line of output that repeats'",
        &[],
        Duration::from_secs(3),
        Some(spill.clone()),
    )
    .await;
    assert!(ran.outcome.timed_out);
    // A bound, not a speed claim: the timeout holds while output floods (timeout + 1 s).
    assert!(
        ran.elapsed < Duration::from_secs(4),
        "took {:?}",
        ran.elapsed
    );
    assert!(
        ran.lines.len() as u64 <= HEAD_LINES + TAIL_LINES as u64 + 1,
        "{} lines delivered",
        ran.lines.len()
    );
    assert!(ran.outcome.held_back_lines > 0);
    let note = ran
        .lines
        .iter()
        .find(|(_, l)| l.contains("were not streamed"))
        .expect("the held-back output is announced");
    assert!(note.1.contains(&spill.display().to_string()), "{}", note.1);
    let spilled = std::fs::metadata(&spill).unwrap().len();
    assert!(spilled > 0 && spilled <= aipc::tools::SPILL_CAP_BYTES + 64 * 1024);
    assert!(ran.outcome.stdout.len() <= aipc::tools::OUTPUT_CAP_BYTES + 64);
}

#[tokio::test]
async fn memory_and_file_size_limits_hold() {
    let l = Layout::new();
    let limits = Limits {
        memory_bytes: Some(512 << 20),
        file_bytes: 1 << 20,
        open_files: 256,
        max_pids: 512,
    };
    let sandbox = l.sandbox(SandboxMode::Strict, limits);
    let ran = run(
        &l,
        &sandbox,
        "python3 -c 'b = bytearray(1 << 30); print(\"allocated\")'",
    )
    .await;
    assert!(!ran.outcome.success());
    assert!(!ran.outcome.stdout.contains("allocated"));
    assert!(
        ran.outcome.stderr.contains("MemoryError"),
        "{}",
        ran.outcome.stderr
    );
    let ran = run(&l, &sandbox, "head -c 3000000 /dev/zero > big.bin").await;
    assert!(!ran.outcome.success());
    let size = std::fs::metadata(l.worktree.join("big.bin")).map_or(0, |m| m.len());
    assert!(size <= 1 << 20, "{size}");
}

#[tokio::test]
async fn a_read_only_worktree_keeps_build_writable() {
    let l = Layout::new();
    let sandbox = l
        .sandbox(SandboxMode::Strict, Limits::default())
        .with_read_only_workspace();
    let ran = run(&l, &sandbox, "sed -i s/session/forged/ model.py").await;
    assert!(!ran.outcome.success());
    assert_eq!(
        std::fs::read_to_string(l.worktree.join("model.py")).unwrap(),
        "session copy\n"
    );
    let ran = run(&l, &sandbox, "echo artifact > build/model.onnx").await;
    assert!(ran.outcome.success(), "{:?}", ran.outcome);
}

#[tokio::test]
async fn cancellation_ends_a_sandboxed_command_quickly() {
    let l = Layout::new();
    let sandbox = l.sandbox(SandboxMode::Strict, Limits::default());
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let out = run_command(
        &CommandSpec {
            command: "trap '' TERM; sleep 60",
            cwd: &l.worktree,
            env: &[],
            env_remove: &[],
            timeout: Duration::from_secs(60),
            sandbox: &sandbox,
            spill: None,
        },
        &cancel,
        &|_, _| {},
    )
    .await
    .unwrap();
    assert!(out.cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn one_endless_line_is_bounded_too() {
    let l = Layout::new();
    let sandbox = l.sandbox(SandboxMode::Strict, Limits::default());
    let ran = run_in(
        &sandbox,
        &l.worktree,
        "head -c 20000000 /dev/zero | tr '\\0' a",
        &[],
        Duration::from_secs(30),
        None,
    )
    .await;
    assert!(ran.outcome.success(), "{:?}", ran.outcome);
    let delivered: usize = ran.lines.iter().map(|(_, l)| l.len() + 1).sum();
    let bound = aipc::tools::HEAD_BYTES
        + aipc::tools::TAIL_BYTES
        + 2 * aipc::tools::MAX_LINE_BYTES as u64
        + 4096;
    assert!(delivered as u64 <= bound, "{delivered} bytes delivered");
    assert!(ran.outcome.held_back_bytes > 19_000_000);
}

#[tokio::test]
async fn a_fork_bomb_is_bounded_and_cleaned_up() {
    let l = Layout::new();
    let limits = Limits {
        max_pids: 256,
        ..Limits::default()
    };
    let sandbox = l.sandbox(SandboxMode::Strict, limits);
    let marker = format!("bomb-{}", std::process::id());
    let ran = run_in(
        &sandbox,
        &l.worktree,
        &format!(": {marker}; f() {{ f | f & }}; f; sleep 30"),
        &[],
        Duration::from_secs(4),
        None,
    )
    .await;
    assert!(ran.outcome.timed_out || !ran.outcome.success());
    // A bound, not a speed claim: the timeout holds while the bomb forks.
    assert!(
        ran.elapsed < Duration::from_secs(6),
        "took {:?}",
        ran.elapsed
    );
    assert_gone_soon(&marker);
}

#[tokio::test]
async fn escaped_children_die_even_without_the_sandbox() {
    let l = Layout::new();
    let sandbox = Sandbox::off(&l.worktree);
    let marker = format!("5{}3", std::process::id());
    let ran = run(
        &l,
        &sandbox,
        &format!("setsid sleep {marker} >/dev/null 2>&1 < /dev/null & (sleep {marker} >/dev/null 2>&1 &); echo started"),
    )
    .await;
    assert!(ran.outcome.success(), "{:?}", ran.outcome);
    assert_gone_soon(&format!("sleep {marker}"));
}
