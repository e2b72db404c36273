//! Integration tests of the model's tools: each tool's happy path, the edit and patch failure
//! modes, workspace confinement, and process-group handling of `run`.

use aipc::protocol::OutputStream;
use aipc::sandbox::{Limits, Sandbox, SandboxMode};
use aipc::tools::{
    builtin_specs, execute, run_command, CommandSpec, ToolContext, ToolControl, ToolResult,
    Workspace,
};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

type Lines = Arc<Mutex<Vec<(OutputStream, String)>>>;

struct Harness {
    dir: tempfile::TempDir,
    ws: Workspace,
    lines: Lines,
    env: Vec<(String, String)>,
    /// The strict sandbox the engine gives commands (bubblewrap must be installed).
    sandbox: Sandbox,
}

impl Harness {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let sandbox = Sandbox::new(SandboxMode::Strict, dir.path(), &[], Limits::default())
            .expect("the strict sandbox starts (bubblewrap is installed by .ci/run)");
        Harness {
            dir,
            ws,
            lines: Arc::default(),
            env: Vec::new(),
            sandbox,
        }
    }

    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, content: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    async fn call(&self, name: &str, args: Value) -> ToolResult {
        self.call_with(name, args, CancellationToken::new()).await
    }

    async fn call_with(&self, name: &str, args: Value, cancel: CancellationToken) -> ToolResult {
        let lines = self.lines.clone();
        let on_output = move |s: OutputStream, l: &str| lines.lock().unwrap().push((s, l.into()));
        let skills = |name: &str| -> Result<String, String> {
            match name {
                "onnx-export" => Ok("# ONNX export\nUse opset 17.".into()),
                other => Err(format!("no skill named {other}")),
            }
        };
        let ctx = ToolContext {
            workspace: &self.ws,
            cancel,
            on_output: &on_output,
            load_skill: &skills,
            run_timeout: Duration::from_secs(30),
            env: &self.env,
            env_remove: &[],
            sandbox: &self.sandbox,
            spill: None,
        };
        let result = execute(name, &args, &ctx).await;
        assert!(
            result.observation.len() <= 4100,
            "observation too long: {}",
            result.observation.len()
        );
        result
    }

    fn output(&self) -> Vec<(OutputStream, String)> {
        self.lines.lock().unwrap().clone()
    }
}

/// A snapshot of every file under `dir` (path, content), to prove nothing was written.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let ft = entry.file_type().unwrap();
            let p = entry.path();
            if ft.is_dir() {
                stack.push(p.clone());
                out.push((p.display().to_string(), Vec::new()));
            } else if ft.is_file() {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            } else {
                out.push((p.display().to_string(), b"<symlink>".to_vec()));
            }
        }
    }
    out.sort();
    out
}

// ---------------------------------------------------------------- read / list / search

#[tokio::test]
async fn read_file_numbers_lines_and_says_what_remains() {
    let h = Harness::new();
    let text: String = (1..=250).map(|i| format!("line {i}\n")).collect();
    h.write("src/m.py", &text);
    let r = h.call("read_file", json!({"path": "src/m.py"})).await;
    assert!(r.ok, "{}", r.observation);
    assert!(r.observation.contains("  1\tline 1\n"), "{}", r.observation);
    assert!(r
        .observation
        .contains("more lines; call read_file with offset="));
    let r = h
        .call(
            "read_file",
            json!({"path": "src/m.py", "offset": 240, "limit": 5}),
        )
        .await;
    assert!(r
        .observation
        .starts_with("src/m.py: lines 240-244 of 250\n"));
    assert!(r.observation.contains("244\tline 244\n"));
    assert!(!r.observation.contains("line 245"));
    assert!(r
        .observation
        .contains("[6 more lines; call read_file with offset=245"));
    let r = h
        .call("read_file", json!({"path": "src/m.py", "offset": "249"}))
        .await;
    assert!(r.observation.contains("[end of file]"), "{}", r.observation);
    let r = h
        .call("read_file", json!({"path": "src/m.py", "offset": 999}))
        .await;
    assert!(!r.ok);
    assert!(r.observation.contains("only 250 lines"));
    let r = h.call("read_file", json!({"path": "nope.py"})).await;
    assert!(!r.ok && r.observation.contains("does not exist"));
}

#[tokio::test]
async fn read_file_of_a_big_file_stays_bounded() {
    let h = Harness::new();
    let text: String = (1..=500)
        .map(|i| format!("{i} {}\n", "x".repeat(100)))
        .collect();
    h.write("big.txt", &text);
    let r = h.call("read_file", json!({"path": "big.txt"})).await;
    assert!(r.ok);
    assert!(r.observation.len() <= 4000);
    assert!(r
        .observation
        .contains("more lines; call read_file with offset="));
}

#[tokio::test]
async fn list_dir_respects_gitignore_and_marks_dirs() {
    let h = Harness::new();
    h.write(".gitignore", "build/\n*.log\n");
    h.write("src/model.py", "");
    h.write("src/deep/er/x.py", "");
    h.write("build/out.bin", "");
    h.write("run.log", "");
    h.write("README.md", "");
    let r = h.call("list_dir", json!({})).await;
    assert!(r.ok, "{}", r.observation);
    let o = &r.observation;
    assert!(o.contains("\nsrc/\n  deep/\n  model.py\n"), "{o}");
    assert!(o.contains("README.md"));
    assert!(o.contains(".gitignore"));
    assert!(!o.contains("build"), "{o}");
    assert!(!o.contains("run.log"), "{o}");
    assert!(!o.contains(".git/"), "{o}");
    assert!(
        !o.contains("er/"),
        "depth 2 must not show a third level: {o}"
    );
    let r = h.call("list_dir", json!({"path": "src", "depth": 5})).await;
    assert!(
        r.observation
            .contains("\ndeep/\n  er/\n    x.py\nmodel.py\n"),
        "{}",
        r.observation
    );
    let r = h.call("list_dir", json!({"path": "../"})).await;
    assert!(!r.ok);
}

#[tokio::test]
async fn list_dir_is_bounded() {
    let h = Harness::new();
    for i in 0..600 {
        h.write(&format!("many/file_{i:04}.txt"), "");
    }
    let r = h.call("list_dir", json!({"path": "many"})).await;
    assert!(r.ok);
    assert!(r.observation.len() <= 4000);
    assert!(
        r.observation.contains("more entries not shown"),
        "{}",
        r.observation
    );
}

#[tokio::test]
async fn search_reports_file_line_text_and_honours_glob() {
    let h = Harness::new();
    h.write(".gitignore", "ignored/\n");
    h.write(
        "src/a.py",
        "import torch\n\ndef forward(x):\n    return x\n",
    );
    h.write("src/b.txt", "def forward in text\n");
    h.write("ignored/c.py", "def forward(y):\n");
    let r = h.call("search", json!({"pattern": "def forward"})).await;
    assert!(r.ok, "{}", r.observation);
    assert!(
        r.observation.contains("src/a.py:3: def forward(x):"),
        "{}",
        r.observation
    );
    assert!(r.observation.contains("src/b.txt:1:"));
    assert!(!r.observation.contains("ignored/"));
    let r = h
        .call("search", json!({"pattern": "forward", "glob": "*.py"}))
        .await;
    assert!(r.observation.contains("src/a.py:3:"));
    assert!(!r.observation.contains("b.txt"), "{}", r.observation);
    let r = h
        .call("search", json!({"pattern": "forward(", "path": "src"}))
        .await;
    assert!(r.ok);
    assert!(
        r.observation.contains("not a valid regex"),
        "{}",
        r.observation
    );
    assert!(r.observation.contains("src/a.py:3:"));
    let r = h.call("search", json!({"pattern": "zzz_nothing"})).await;
    assert!(r.ok && r.observation.contains("no matches"));
}

#[tokio::test]
async fn search_is_bounded_and_says_so() {
    let h = Harness::new();
    let text: String = (0..300).map(|i| format!("hit {i}\n")).collect();
    h.write("hits.txt", &text);
    let r = h.call("search", json!({"pattern": "hit"})).await;
    assert!(r.observation.starts_with("300 matching lines in 1 files"));
    assert!(r.observation.contains("[showing "), "{}", r.observation);
}

// ---------------------------------------------------------------- edit / write / patch

#[tokio::test]
async fn edit_file_replaces_and_returns_the_diff() {
    let h = Harness::new();
    h.write("m.py", "def f():\n    return 1\n");
    let r = h
        .call(
            "edit_file",
            json!({"path": "m.py", "search": "    return 1\n", "replace": "    return 2\n"}),
        )
        .await;
    assert!(r.ok, "{}", r.observation);
    assert_eq!(h.read("m.py"), "def f():\n    return 2\n");
    assert_eq!(r.diffs.len(), 1);
    assert_eq!(r.diffs[0].path, "m.py");
    assert_eq!((r.diffs[0].added, r.diffs[0].removed), (1, 1));
    assert!(r.diffs[0]
        .unified
        .contains("-    return 1\n+    return 2\n"));
}

#[tokio::test]
async fn edit_file_tolerates_indentation_and_reindents() {
    let h = Harness::new();
    h.write("m.py", "class A:\n    def f(self):\n        return 1\n");
    let r = h
        .call(
            "edit_file",
            json!({"path": "m.py", "search": "def f(self):\n    return 1", "replace": "def f(self):\n    return 2"}),
        )
        .await;
    assert!(r.ok, "{}", r.observation);
    assert_eq!(
        h.read("m.py"),
        "class A:\n    def f(self):\n        return 2\n"
    );
    assert!(r.observation.contains("ignoring whitespace"));
}

#[tokio::test]
async fn edit_file_not_found_shows_the_closest_lines() {
    let h = Harness::new();
    let mut text: String = (1..=40).map(|i| format!("value_{i} = {i}\n")).collect();
    text.push_str("model.eval()\nout = model(dummy_input, opset_version=13)\n");
    h.write("export.py", &text);
    let before = h.read("export.py");
    let r = h
        .call(
            "edit_file",
            json!({"path": "export.py", "search": "model.eval()\nout = model(dummy, opset_version=13)", "replace": "x"}),
        )
        .await;
    assert!(!r.ok);
    let o = &r.observation;
    assert!(o.contains("not found"), "{o}");
    assert!(o.contains("41-42"), "{o}");
    assert!(
        o.contains("42\tout = model(dummy_input, opset_version=13)"),
        "{o}"
    );
    assert!(o.contains("First difference: line 42"), "{o}");
    assert_eq!(h.read("export.py"), before);
    assert!(r.diffs.is_empty());
}

#[tokio::test]
async fn edit_file_ambiguous_asks_for_context() {
    let h = Harness::new();
    h.write("m.py", "x = 1\ny = 2\nx = 1\n");
    let r = h
        .call(
            "edit_file",
            json!({"path": "m.py", "search": "x = 1", "replace": "x = 3"}),
        )
        .await;
    assert!(!r.ok);
    assert!(
        r.observation.contains("occurs 2 times"),
        "{}",
        r.observation
    );
    assert!(r.observation.contains("lines 1, 3"));
    assert!(r.observation.contains("more surrounding lines"));
    assert_eq!(h.read("m.py"), "x = 1\ny = 2\nx = 1\n");
}

#[tokio::test]
async fn edit_file_of_missing_file_points_to_write_file() {
    let h = Harness::new();
    let r = h
        .call(
            "edit_file",
            json!({"path": "new.py", "search": "a", "replace": "b"}),
        )
        .await;
    assert!(!r.ok && r.observation.contains("write_file"));
    assert!(!h.path("new.py").exists());
}

#[tokio::test]
async fn write_file_creates_parents_and_diffs() {
    let h = Harness::new();
    let r = h
        .call(
            "write_file",
            json!({"path": "a/b/c.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert!(r.ok, "{}", r.observation);
    assert_eq!(h.read("a/b/c.txt"), "one\ntwo\n");
    assert!(r.diffs[0]
        .unified
        .starts_with("--- /dev/null\n+++ b/a/b/c.txt"));
    assert_eq!(r.diffs[0].added, 2);
    let r = h
        .call(
            "write_file",
            json!({"path": "a/b/c.txt", "content": "one\nTWO\n"}),
        )
        .await;
    assert!(r.ok);
    assert_eq!((r.diffs[0].added, r.diffs[0].removed), (1, 1));
    let r = h
        .call(
            "write_file",
            json!({"path": "a/b/c.txt", "content": "one\nTWO\n"}),
        )
        .await;
    assert!(r.ok && r.diffs.is_empty() && r.observation.contains("unchanged"));
    let r = h
        .call("write_file", json!({"path": "a", "content": "x"}))
        .await;
    assert!(!r.ok && r.observation.contains("directory"));
}

#[tokio::test]
async fn apply_patch_changes_creates_and_deletes_files() {
    let h = Harness::new();
    h.write("src/m.py", "import torch\n\ndef f(x):\n    return x\n");
    h.write("old.txt", "bye\n");
    let patch = "\
diff --git a/src/m.py b/src/m.py
--- a/src/m.py
+++ b/src/m.py
@@ -2,3 +2,3 @@
 
 def f(x):
-    return x
+    return x * 2
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,2 @@
+# New
+text
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
";
    let r = h.call("apply_patch", json!({ "patch": patch })).await;
    assert!(r.ok, "{}", r.observation);
    assert_eq!(
        h.read("src/m.py"),
        "import torch\n\ndef f(x):\n    return x * 2\n"
    );
    assert_eq!(h.read("docs/new.md"), "# New\ntext\n");
    assert!(!h.path("old.txt").exists());
    assert_eq!(r.diffs.len(), 3);
    assert!(r.observation.contains("docs/new.md (created)"));
    assert!(r.observation.contains("old.txt (deleted)"));
}

#[tokio::test]
async fn apply_patch_is_all_or_nothing() {
    let h = Harness::new();
    h.write("a.py", "a = 1\n");
    h.write("b.py", "b = 1\nc = 2\n");
    let before = snapshot(h.dir.path());
    let patch = "\
--- a/a.py
+++ b/a.py
@@ -1 +1 @@
-a = 1
+a = 2
--- /dev/null
+++ b/created.py
@@ -0,0 +1 @@
+new
--- a/b.py
+++ b/b.py
@@ -1,2 +1,2 @@
 b = 1
-c = 3
+c = 4
";
    let r = h.call("apply_patch", json!({ "patch": patch })).await;
    assert!(!r.ok);
    let o = &r.observation;
    assert!(o.contains("nothing was changed"), "{o}");
    assert!(o.contains("`b.py`: hunk 1"), "{o}");
    assert!(
        o.contains("line 2 is `c = 2` but the hunk expects `c = 3`"),
        "{o}"
    );
    assert_eq!(snapshot(h.dir.path()), before);
    assert!(r.diffs.is_empty());
}

#[tokio::test]
async fn apply_patch_refuses_paths_outside_and_writes_nothing() {
    let h = Harness::new();
    h.write("a.py", "a = 1\n");
    let before = snapshot(h.dir.path());
    let patch = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n";
    let r = h.call("apply_patch", json!({ "patch": patch })).await;
    assert!(!r.ok);
    assert!(
        r.observation.contains("outside the workspace"),
        "{}",
        r.observation
    );
    assert_eq!(snapshot(h.dir.path()), before);
    assert!(!h.dir.path().parent().unwrap().join("escape.txt").exists());
    let patch = "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-[core]\n+[hacked]\n";
    let r = h.call("apply_patch", json!({ "patch": patch })).await;
    assert!(!r.ok && r.observation.contains(".git"));
    assert_eq!(h.read(".git/config"), "[core]\n");
}

// ---------------------------------------------------------------- confinement

#[tokio::test]
async fn confinement_rejects_escapes_and_writes_nothing() {
    let h = Harness::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("target.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), h.path("outdir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("target.txt"), h.path("outfile")).unwrap();
    let inside_before = snapshot(h.dir.path());
    let outside_before = snapshot(outside.path());
    let passwd = std::fs::read("/etc/passwd").ok();

    let escapes = [
        "../x",
        "../../tmp/x",
        "/etc/passwd",
        "outfile",
        "outdir/target.txt",
        "outdir/new.txt",
        "outdir/sub/new.txt",
        "./src/../../x",
        ".git/config",
        ".git/hooks/post-checkout",
    ];
    for path in escapes {
        let calls = [
            ("write_file", json!({"path": path, "content": "pwned\n"})),
            (
                "edit_file",
                json!({"path": path, "search": "outside", "replace": "pwned"}),
            ),
            (
                "apply_patch",
                json!({"patch": format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+pwned\n")}),
            ),
        ];
        for (tool, args) in calls {
            let r = h.call(tool, args).await;
            assert!(!r.ok, "{tool} {path} was accepted: {}", r.observation);
            assert!(r.diffs.is_empty());
            let o = r.observation.to_lowercase();
            assert!(
                o.contains("outside the workspace") || o.contains(".git"),
                "{tool} {path}: unclear refusal: {o}"
            );
        }
    }
    for path in ["../x", "/etc/passwd", "outfile", "outdir/target.txt"] {
        let r = h.call("read_file", json!({ "path": path })).await;
        assert!(!r.ok, "read_file {path} was accepted: {}", r.observation);
        assert!(!r.observation.contains("outside\n1"), "leaked");
    }
    for (tool, args) in [
        ("list_dir", json!({"path": "outdir"})),
        ("search", json!({"pattern": "outside", "path": "outdir"})),
        ("search", json!({"pattern": "root", "path": "/etc"})),
    ] {
        let r = h.call(tool, args.clone()).await;
        assert!(!r.ok, "{tool} {args} was accepted: {}", r.observation);
    }
    assert_eq!(snapshot(h.dir.path()), inside_before);
    assert_eq!(snapshot(outside.path()), outside_before);
    assert_eq!(std::fs::read("/etc/passwd").ok(), passwd);
    assert!(!h.dir.path().parent().unwrap().join("x").exists());
}

#[tokio::test]
async fn absolute_paths_inside_the_root_are_accepted() {
    let h = Harness::new();
    let abs = h.ws.root().join("abs.txt");
    let r = h
        .call(
            "write_file",
            json!({"path": abs.to_string_lossy(), "content": "ok\n"}),
        )
        .await;
    assert!(r.ok, "{}", r.observation);
    assert_eq!(r.diffs[0].path, "abs.txt");
    assert_eq!(h.read("abs.txt"), "ok\n");
}

#[tokio::test]
async fn search_does_not_follow_symlinks_out() {
    let h = Harness::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "TOPSECRET\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), h.path("outdir")).unwrap();
    h.write("in.txt", "nothing\n");
    let r = h.call("search", json!({"pattern": "TOPSECRET"})).await;
    assert!(r.ok);
    assert!(!r.observation.contains("secret.txt"), "{}", r.observation);
}

// ---------------------------------------------------------------- run

/// Processes (not zombies) whose process group is `pgid`.
fn live_members(pgid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let (state, pgrp) = (fields[0], fields[2].parse::<i32>().unwrap_or(-1));
        if pgrp == pgid && state != "Z" && state != "X" {
            found.push(pid);
        }
    }
    found
}

/// Waits briefly for the group to be gone (SIGKILL delivery is asynchronous).
async fn assert_group_gone(pgid: i32) {
    let until = Instant::now() + Duration::from_millis(1500);
    loop {
        let live = live_members(pgid);
        if live.is_empty() {
            return;
        }
        assert!(
            Instant::now() < until,
            "processes of group {pgid} survived: {live:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn first_line_pgid(h: &Harness) -> i32 {
    let out = h.output();
    out.iter()
        .find_map(|(_, l)| l.trim().parse::<i32>().ok())
        .expect("the command printed its pid")
}

#[tokio::test]
async fn run_streams_lines_in_order_and_reports_the_tail() {
    let h = Harness::new();
    let r = h
        .call(
            "run",
            json!({"command": "for i in $(seq 1 100); do echo line $i; done; echo oops >&2; exit 2"}),
        )
        .await;
    assert!(!r.ok);
    assert_eq!(r.exit_code, Some(2));
    let out = h.output();
    let stdout: Vec<&str> = out
        .iter()
        .filter(|(s, _)| *s == OutputStream::Stdout)
        .map(|(_, l)| l.as_str())
        .collect();
    let expected: Vec<String> = (1..=100).map(|i| format!("line {i}")).collect();
    assert_eq!(stdout, expected);
    assert!(out.contains(&(OutputStream::Stderr, "oops".into())));
    let o = &r.observation;
    assert!(o.starts_with("exit code 2"), "{o}");
    assert!(
        o.contains("last 60 lines; 41 earlier lines not shown"),
        "{o}"
    );
    assert!(o.contains("line 100\n"));
    assert!(!o.contains("line 40\n"), "{o}");
}

#[tokio::test]
async fn run_runs_in_the_root_with_env() {
    let mut h = Harness::new();
    h.env = vec![("AIPC_STAGE".into(), "export".into())];
    let r = h
        .call(
            "run",
            json!({"command": "pwd; echo stage=$AIPC_STAGE; echo qnn=[${QNN_SDK_ROOT-unset}]; cat"}),
        )
        .await;
    assert!(r.ok, "{}", r.observation);
    assert_eq!(r.exit_code, Some(0));
    let o = &r.observation;
    assert!(o.contains(&h.ws.root().display().to_string()), "{o}");
    assert!(o.contains("stage=export"));
    assert!(o.contains("qnn=[]"), "{o}");
}

#[tokio::test]
async fn run_timeout_kills_the_whole_group_promptly() {
    let h = Harness::new();
    let started = Instant::now();
    let r = h
        .call(
            "run",
            json!({"command": "echo $$; sleep 100 & sleep 100", "timeout_s": 1}),
        )
        .await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
    assert!(!r.ok);
    assert!(
        r.observation.contains("timed out after 1s"),
        "{}",
        r.observation
    );
    assert_group_gone(first_line_pgid(&h)).await;
}

#[tokio::test]
async fn run_timeout_escalates_to_sigkill() {
    let h = Harness::new();
    let started = Instant::now();
    let r = h
        .call(
            "run",
            json!({"command": "echo $$; trap '' TERM; (trap '' TERM; sleep 100) & sleep 100; sleep 100", "timeout_s": 1}),
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(!r.ok);
    assert_group_gone(first_line_pgid(&h)).await;
}

#[tokio::test]
async fn run_cancellation_kills_the_group() {
    let h = Harness::new();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let r = h
        .call_with(
            "run",
            json!({"command": "echo $$; sleep 100 & sleep 100"}),
            cancel,
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(!r.ok);
    assert!(r.observation.starts_with("cancelled"), "{}", r.observation);
    assert_group_gone(first_line_pgid(&h)).await;
}

#[tokio::test]
async fn run_kills_background_children_after_a_normal_exit() {
    let h = Harness::new();
    let r = h
        .call(
            "run",
            json!({"command": "echo $$; sleep 100 & echo started"}),
        )
        .await;
    assert!(r.ok, "{}", r.observation);
    assert_group_gone(first_line_pgid(&h)).await;
}

#[tokio::test]
async fn run_returns_promptly_when_an_escaped_process_holds_the_pipes() {
    let h = Harness::new();
    let started = Instant::now();
    let r = h
        .call(
            "run",
            json!({"command": "setsid sleep 3 & echo escaped=$!; sleep 0.3; echo done"}),
        )
        .await;
    let elapsed = started.elapsed();
    // Clean up the escaped process ourselves.
    if let Some(pid) = h.output().iter().find_map(|(_, l)| {
        l.strip_prefix("escaped=")
            .and_then(|p| p.parse::<i32>().ok())
    }) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
    }
    assert!(elapsed < Duration::from_millis(1500), "took {elapsed:?}");
    assert!(r.ok);
    assert!(r.observation.contains("done"), "{}", r.observation);
}

#[tokio::test]
async fn run_command_is_usable_directly() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Mutex::new(Vec::new());
    let on_line = |_: OutputStream, l: &str| seen.lock().unwrap().push(l.to_string());
    let out = run_command(
        &CommandSpec {
            command: "printf 'a\\nb\\r\\nc'; exit 0",
            cwd: dir.path(),
            env: &[],
            env_remove: &[],
            timeout: Duration::from_secs(5),
            sandbox: &Sandbox::off(dir.path()),
            spill: None,
        },
        &CancellationToken::new(),
        &on_line,
    )
    .await
    .unwrap();
    assert!(out.success());
    assert_eq!(seen.into_inner().unwrap(), ["a", "b", "c"]);
    assert_eq!(out.stdout, "a\nb\nc\n");
}

// ---------------------------------------------------------------- control, skills, bad args

#[tokio::test]
async fn control_tools_return_control() {
    let h = Harness::new();
    let r = h
        .call("finish_stage", json!({"summary": "exported model.onnx"}))
        .await;
    assert!(r.ok);
    assert_eq!(
        r.control,
        Some(ToolControl::FinishStage {
            summary: "exported model.onnx".into()
        })
    );
    let r = h
        .call("ask_human", json!({"question": "Which opset?"}))
        .await;
    assert_eq!(
        r.control,
        Some(ToolControl::AskHuman {
            question: "Which opset?".into()
        })
    );
    let r = h.call("ask_human", json!({"question": "  "})).await;
    assert!(!r.ok && r.control.is_none());
}

#[tokio::test]
async fn load_skill_passes_body_or_error() {
    let h = Harness::new();
    let r = h.call("load_skill", json!({"name": "onnx-export"})).await;
    assert!(r.ok);
    assert!(r.observation.contains("Use opset 17."));
    let r = h.call("load_skill", json!({"name": "nope"})).await;
    assert!(!r.ok);
    assert!(r.observation.contains("no skill named nope"));
}

#[tokio::test]
async fn bad_arguments_give_a_helpful_observation() {
    let h = Harness::new();
    let r = h
        .call("edit_file", json!({"path": "m.py", "search": "x"}))
        .await;
    assert!(!r.ok);
    let o = &r.observation;
    assert!(o.contains("invalid arguments for `edit_file`"), "{o}");
    assert!(o.contains("missing field `replace`"), "{o}");
    assert!(
        o.contains("edit_file {path: string, replace: string, search: string}"),
        "{o}"
    );
    let r = h
        .call("read_file", json!({"path": "m.py", "lines": 3}))
        .await;
    assert!(
        !r.ok && r.observation.contains("unknown field `lines`"),
        "{}",
        r.observation
    );
    assert!(r.observation.contains("offset?: integer"));
    let r = h.call("read_file", json!({"path": 3})).await;
    assert!(!r.ok && r.observation.contains("invalid type"));
    let r = h.call("read_file", json!([1, 2])).await;
    assert!(!r.ok);
    let r = h.call("rm_rf", json!({})).await;
    assert!(!r.ok && r.observation.contains("unknown tool `rm_rf`"));
    assert!(r.observation.contains("read_file"));
    // Arguments sent as a JSON string are accepted.
    h.write("m.py", "ok\n");
    let r = h
        .call("read_file", Value::String(r#"{"path":"m.py"}"#.into()))
        .await;
    assert!(r.ok, "{}", r.observation);
}

#[test]
fn every_tool_has_a_compact_schema() {
    for spec in builtin_specs() {
        let text = spec.schema.to_string();
        assert!(!text.contains("$schema"), "{}: {text}", spec.name);
        assert!(spec.schema.get("title").is_none(), "{}: {text}", spec.name);
        assert!(spec.schema["properties"].is_object(), "{}", spec.name);
        // set_project_option's enum of [project] keys is the largest, and grows with each flow's
        // keys (the decoder-LLM flow's took it from ~790 to ~910 bytes).
        assert!(
            text.len() < 1000,
            "{} schema is {} bytes",
            spec.name,
            text.len()
        );
    }
}

/// A FIFO in the workspace (a command can make one): reading it, or writing over it, is
/// refused at once instead of blocking the session forever.
#[test]
fn a_fifo_in_the_workspace_is_refused_not_waited_on() {
    let (tx, rx) = std::sync::mpsc::channel();
    // On a thread of its own: a blocking read would block any runtime it ran on, and the
    // test must fail, not hang.
    std::thread::spawn(move || {
        let h = Harness::new();
        nix::unistd::mkfifo(&h.path("pipe"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        for (tool, args) in [
            ("read_file", json!({ "path": "pipe" })),
            ("write_file", json!({ "path": "pipe", "content": "x" })),
            (
                "edit_file",
                json!({ "path": "pipe", "search": "a", "replace": "b" }),
            ),
        ] {
            let r = runtime.block_on(h.call(tool, args));
            let _ = tx.send((tool, r.ok, r.observation));
        }
    });
    for _ in 0..3 {
        let (tool, ok, observation) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("a tool call blocked on a FIFO");
        assert!(!ok, "{tool}: {observation}");
        assert!(
            observation.contains("FIFO (named pipe), not a regular file"),
            "{tool}: {observation}"
        );
    }
}

/// `set_project_option` finds the key in any spelling, keeps every other line, checks the
/// value against the key's type, and refuses without touching the file.
#[tokio::test]
async fn set_project_option_edits_one_key_structurally() {
    let h = Harness::new();
    let original = "target = \"onnxruntime-cpu\"\n[project]\nmodel = \"model:load\"  # loader\nquantize=\"none\"   # FP32 for now\n\n[stages.export]\nmax_attempts = 2\n";
    h.write("aipc.toml", original);
    let r = h
        .call(
            "set_project_option",
            json!({"key": "quantize", "value": "int8"}),
        )
        .await;
    assert!(r.ok, "{}", r.observation);
    assert!(
        r.observation
            .contains("set [project] quantize = \"int8\" in aipc.toml (was \"none\")"),
        "{}",
        r.observation
    );
    assert_eq!(
        h.read("aipc.toml"),
        original.replace("quantize=\"none\"", "quantize=\"int8\"")
    );
    assert_eq!(r.diffs.len(), 1);
    let r = h
        .call("set_project_option", json!({"key": "opset", "value": 17}))
        .await;
    assert!(
        r.ok && r.observation.contains("was not set: default 18"),
        "{}",
        r.observation
    );
    assert!(h.read("aipc.toml").contains("opset = 17"));
    // A number arrives as text (the decoder bounds its length) and is read as the key's type.
    let r = h
        .call("set_project_option", json!({"key": "opset", "value": "16"}))
        .await;
    assert!(r.ok, "{}", r.observation);
    assert!(h.read("aipc.toml").contains("opset = 16"));
    let before = h.read("aipc.toml");
    for (args, says) in [
        (
            json!({"key": "opset", "value": "eighteen"}),
            "must be an integer",
        ),
        (
            json!({"key": "quantise", "value": "int8"}),
            "did you mean `quantize`",
        ),
        (
            json!({"key": "quantize", "value": "fp16"}),
            "expected one of",
        ),
        (
            json!({"key": "input_names", "value": {"a": 1}}),
            "is not a [project] value",
        ),
    ] {
        let r = h.call("set_project_option", args.clone()).await;
        assert!(
            !r.ok && r.observation.contains(says),
            "{args}: {}",
            r.observation
        );
        assert_eq!(h.read("aipc.toml"), before, "{args} changed the file");
    }
    let r = h
        .call("set_project_option", json!({"key": "opset", "value": null}))
        .await;
    assert!(r.ok, "{}", r.observation);
    assert!(!h.read("aipc.toml").contains("opset"));
}
