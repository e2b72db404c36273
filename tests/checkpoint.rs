//! Integration tests of `aipc::checkpoint`: throwaway user repositories in temp dirs, sessions
//! created on them, and byte-for-byte checks that the user's checkout is never touched.

use aipc::checkpoint::{CheckpointError, SessionRepo};
use git2::{ConfigLevel, IndexAddOption, Oid, Repository, RepositoryInitOptions, Signature};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

/// Keep libgit2 away from the machine's global and system git config.
fn isolate_git_config() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let empty = std::env::temp_dir().join("aipc-checkpoint-tests-empty-config");
        fs::create_dir_all(&empty).unwrap();
        for level in [
            ConfigLevel::System,
            ConfigLevel::XDG,
            ConfigLevel::Global,
            ConfigLevel::ProgramData,
        ] {
            // SAFETY: runs once, before any test of this binary uses libgit2 (all go through here).
            unsafe { git2::opts::set_search_path(level, &empty).unwrap() };
        }
    });
}

fn write(path: &Path, content: &str) {
    if let Some(p) = path.parent() {
        fs::create_dir_all(p).unwrap();
    }
    fs::write(path, content).unwrap();
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// A user repository on branch `main` with `files` committed.
fn user_repo(root: &Path, files: &[(&str, &str)]) -> Repository {
    isolate_git_config();
    let mut opts = RepositoryInitOptions::new();
    opts.initial_head("main");
    let repo = Repository::init_opts(root, &opts).unwrap();
    for (p, c) in files {
        write(&root.join(p), c);
    }
    commit_index(&repo, "initial");
    repo
}

/// `git add -A && git commit` through the user's index.
fn commit_index(repo: &Repository, message: &str) -> Oid {
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"].iter(), IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = Signature::now("user", "user@example.com").unwrap();
    let parents: Vec<git2::Commit> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parents: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .unwrap()
}

/// Every file under `root` except `.aipc/` and `.git/`, as path → bytes (symlinks: their target).
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn go(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            if name == ".aipc" || name == ".git" {
                continue;
            }
            let path = e.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                let t = fs::read_link(&path).unwrap();
                out.insert(
                    format!("{rel} -> link"),
                    t.to_string_lossy().as_bytes().to_vec(),
                );
            } else if ft.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                go(root, &path, out);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    go(root, root, &mut out);
    out
}

/// The user's checkout: working tree files plus HEAD, index, branch refs and config bytes.
fn fingerprint(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = files(root);
    for f in ["HEAD", "index", "config", "refs/heads/main", "packed-refs"] {
        let p = root.join(".git").join(f);
        out.insert(format!(".git/{f}"), fs::read(&p).unwrap_or_default());
    }
    out
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .output()
        .expect("the git CLI runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn globs() -> Vec<String> {
    vec!["*.onnx".into(), "*.pte".into(), "*.bin".into()]
}

fn session_dir(project: &Path, id: &str) -> PathBuf {
    project.join(".aipc/sessions").join(id).join("worktree")
}

fn tempdir() -> (tempfile::TempDir, PathBuf) {
    isolate_git_config();
    let d = tempfile::tempdir().unwrap();
    let p = d.path().canonicalize().unwrap();
    (d, p)
}

/// First-parent messages from `rev` down.
fn log(repo: &Repository, rev: &str) -> Vec<String> {
    let mut c = repo.revparse_single(rev).unwrap().peel_to_commit().unwrap();
    let mut out = vec![c.message().unwrap().to_string()];
    while let Ok(p) = c.parent(0) {
        out.push(p.message().unwrap().to_string());
        c = p;
    }
    out
}

#[test]
fn dirty_git_project_is_never_touched() {
    let (_d, root) = tempdir();
    let repo = user_repo(
        &root,
        &[
            ("src/model.py", "v1\n"),
            ("README.md", "readme 1\n"),
            (".gitignore", "*.log\n"),
        ],
    );
    let user_head = repo.head().unwrap().target().unwrap();
    // Dirty: a modified file, a staged change then changed again, an untracked and an ignored file.
    write(&root.join("src/model.py"), "v1 dirty\n");
    write(&root.join("README.md"), "readme 2\n");
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("README.md")).unwrap();
    index.write().unwrap();
    write(&root.join("README.md"), "readme 3\n");
    write(&root.join("notes.txt"), "untracked\n");
    write(&root.join("debug.log"), "ignored\n");
    write(&root.join(".git/info/exclude"), "# user line\n");
    let before = fingerprint(&root);

    let wt = session_dir(&root, "s1");
    let s = SessionRepo::create(&root, "s1", &wt, &globs()).unwrap();
    assert_eq!(s.branch(), "aipc/s1");
    assert_eq!(s.worktree(), wt.as_path());
    assert_eq!(s.project_dir(), wt);
    assert_eq!(s.head().unwrap(), s.base_commit());

    // The base is a snapshot commit on top of the user's HEAD with the dirty content.
    let base = repo
        .find_commit(Oid::from_str(&s.base_commit()).unwrap())
        .unwrap();
    assert_ne!(base.id(), user_head);
    assert_eq!(base.message(), Some("aipc: snapshot of the working tree"));
    assert_eq!(base.parent_id(0).unwrap(), user_head);
    assert_eq!(base.author().name(), Some("aipc"));
    assert_eq!(read(&wt.join("src/model.py")), "v1 dirty\n");
    assert_eq!(read(&wt.join("README.md")), "readme 3\n");
    assert_eq!(read(&wt.join("notes.txt")), "untracked\n");
    assert!(!wt.join("debug.log").exists());

    // Attempts, checkpoints, a rollback, a re-done stage.
    write(&wt.join("src/export.py"), "export\n");
    write(&wt.join("model.onnx"), "onnx bytes");
    let c1 = s.commit_all("attempt 1").unwrap().commit.unwrap();
    assert_eq!(c1.files_changed, 1);
    let (tag, at) = s.tag_checkpoint("export").unwrap();
    assert_eq!(
        (tag.as_str(), at.as_str()),
        ("aipc/s1/export", c1.commit.as_str())
    );
    write(&wt.join("src/model.py"), "v2\n");
    let c2 = s.commit_all("attempt 2").unwrap().commit.unwrap();
    s.tag_checkpoint("quantize").unwrap();
    let rb = s.rollback_to("aipc/s1/export").unwrap();
    assert_eq!(rb.previous_head, c2.commit);
    assert_eq!(rb.commit, c1.commit);
    assert_eq!(read(&wt.join("src/model.py")), "v1 dirty\n");
    write(&wt.join("src/model.py"), "v3\n");
    let c3 = s.commit_all("attempt 3").unwrap().commit.unwrap();
    let (_, redone) = s.tag_checkpoint("quantize").unwrap();
    assert_eq!(redone, c3.commit);

    // The user's checkout is byte-identical, save the one exclude line.
    let mut after = fingerprint(&root);
    assert_eq!(
        read(&root.join(".git/info/exclude")),
        "# user line\n.aipc/\n"
    );
    assert_eq!(repo.head().unwrap().name(), Some("refs/heads/main"));
    assert_eq!(repo.head().unwrap().target(), Some(user_head));
    after.retain(|k, _| !k.starts_with(".aipc"));
    assert_eq!(before, after);
    assert!(git(&root, &["status", "--porcelain"])
        .lines()
        .all(|l| !l.contains(".aipc")));

    // The session's branch shows the history; tags sit on it.
    assert_eq!(
        log(&repo, "refs/heads/aipc/s1"),
        vec![
            "attempt 3",
            "attempt 1",
            "aipc: snapshot of the working tree",
            "initial"
        ]
    );
    assert_eq!(
        s.checkpoints().unwrap(),
        vec![
            ("aipc/s1/export".to_string(), c1.commit.clone()),
            ("aipc/s1/quantize".to_string(), c3.commit.clone()),
        ]
    );
    let tag_commit = repo
        .find_reference("refs/tags/aipc/s1/export")
        .unwrap()
        .target()
        .unwrap();
    assert_eq!(tag_commit.to_string(), c1.commit);
}

#[test]
fn clean_git_project_bases_on_head_even_with_tracked_ignored_files() {
    let (_d, root) = tempdir();
    let repo = user_repo(&root, &[("a.py", "a\n"), ("weights.bin", "w")]);
    // Tracked, then ignored: still part of the tree, so the working tree is clean.
    write(&root.join(".gitignore"), "*.bin\n");
    commit_index(&repo, "ignore bins");
    let head = repo.head().unwrap().target().unwrap();
    let s = SessionRepo::create(&root, "clean", &session_dir(&root, "clean"), &globs()).unwrap();
    assert_eq!(s.base_commit(), head.to_string());
    assert_eq!(s.head().unwrap(), head.to_string());
    assert_eq!(read(&s.worktree().join("weights.bin")), "w");
    assert_eq!(s.commit_all("nothing").unwrap().commit, None);
}

#[test]
fn unborn_head_gets_a_root_snapshot() {
    let (_d, root) = tempdir();
    Repository::init(&root).unwrap();
    write(&root.join("m.py"), "m\n");
    let s = SessionRepo::create(&root, "u", &session_dir(&root, "u"), &globs()).unwrap();
    let repo = Repository::open(&root).unwrap();
    let base = repo
        .find_commit(Oid::from_str(&s.base_commit()).unwrap())
        .unwrap();
    assert_eq!(base.parent_count(), 0);
    assert_eq!(read(&s.worktree().join("m.py")), "m\n");
    assert!(repo.head().is_err(), "the user's HEAD stays unborn");
}

#[test]
fn non_git_project_works_and_only_aipc_appears() {
    let (_d, root) = tempdir();
    write(&root.join("train.py"), "train\n");
    write(&root.join("data/x.csv"), "1,2\n");
    write(&root.join("old.onnx"), "an existing artifact");
    let before = files(&root);
    let wt = session_dir(&root, "p1");
    let s = SessionRepo::create(&root, "p1", &wt, &globs()).unwrap();
    assert_eq!(s.project_dir(), wt);
    assert!(root.join(".aipc/repo.git/HEAD").exists());
    assert!(!root.join(".git").exists());
    assert_eq!(read(&wt.join("data/x.csv")), "1,2\n");
    assert!(
        !wt.join("old.onnx").exists(),
        "artifacts are not snapshotted"
    );
    let bare = Repository::open_bare(root.join(".aipc/repo.git")).unwrap();
    let base = bare
        .find_commit(Oid::from_str(&s.base_commit()).unwrap())
        .unwrap();
    assert_eq!(base.parent_count(), 0);

    write(&wt.join("train.py"), "train v2\n");
    let c = s.commit_all("attempt").unwrap().commit.unwrap();
    assert_eq!(c.diffs.len(), 1);
    s.tag_checkpoint("export").unwrap();
    let reopened = SessionRepo::open(&root, "p1", &wt, &globs()).unwrap();
    assert_eq!(reopened.base_commit(), s.base_commit());
    assert_eq!(reopened.head().unwrap(), c.commit);
    assert_eq!(files(&root), before);
    let top: Vec<_> = fs::read_dir(root.join(".aipc"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(top, vec!["repo.git", "sessions"]);
}

#[test]
fn artifacts_are_listed_not_committed() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("m.py", "m\n")]);
    let s = SessionRepo::create(&root, "a", &session_dir(&root, "a"), &globs()).unwrap();
    let wt = s.worktree().to_path_buf();
    write(&wt.join("model.onnx"), "onnx-bytes");
    write(&wt.join("out/model.pte"), "pte");
    write(&wt.join("m.py"), "m2\n");
    let c = s.commit_all("export").unwrap().commit.unwrap();
    assert_eq!(c.files_changed, 1);
    assert_eq!(c.diffs[0].path, "m.py");
    let repo = Repository::open(&wt).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("model.onnx")).is_err());
    assert!(tree.get_path(Path::new("out/model.pte")).is_err());
    let arts = s.artifacts().unwrap();
    let got: Vec<_> = arts
        .iter()
        .map(|a| (a.path.as_str(), a.sha256.clone(), a.bytes))
        .collect();
    assert_eq!(
        got,
        vec![
            ("model.onnx", sha256_hex(b"onnx-bytes"), 10),
            ("out/model.pte", sha256_hex(b"pte"), 3),
        ]
    );
    // Only artifacts changed: nothing to commit; git sees only the artifacts as untracked.
    write(&wt.join("model.onnx"), "onnx-bytes v2");
    assert_eq!(s.commit_all("again").unwrap().commit, None);
    let mut status: Vec<String> = git(&wt, &["status", "--porcelain"])
        .lines()
        .map(String::from)
        .collect();
    status.sort();
    assert_eq!(status, vec!["?? model.onnx", "?? out/"]);
}

#[test]
fn deletion_is_committed_and_nothing_changed_is_none() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("keep.py", "k\n"), ("gone.py", "g1\ng2\n")]);
    let s = SessionRepo::create(&root, "d", &session_dir(&root, "d"), &globs()).unwrap();
    assert_eq!(s.commit_all("nothing yet").unwrap().commit, None);
    fs::remove_file(s.worktree().join("gone.py")).unwrap();
    let c = s.commit_all("delete").unwrap().commit.unwrap();
    assert_eq!(c.files_changed, 1);
    assert_eq!(c.diffs[0].path, "gone.py");
    assert_eq!((c.diffs[0].added, c.diffs[0].removed), (0, 2));
    assert!(c.diffs[0].unified.contains("+++ /dev/null"));
    let repo = Repository::open(s.worktree()).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("gone.py")).is_err());
    assert!(tree.get_path(Path::new("keep.py")).is_ok());
    assert_eq!(s.commit_all("still nothing").unwrap().commit, None);
    assert_eq!(git(s.worktree(), &["status", "--porcelain"]), "");
}

#[test]
fn rollback_restores_content_and_removes_later_files() {
    let (_d, root) = tempdir();
    let user = user_repo(&root, &[("a.py", "a1\n"), (".gitignore", "*.log\n")]);
    let s = SessionRepo::create(&root, "r", &session_dir(&root, "r"), &globs()).unwrap();
    let wt = s.worktree().to_path_buf();
    write(&wt.join("a.py"), "a2\n");
    s.commit_all("stage 1").unwrap().commit.unwrap();
    let (tag, at) = s.tag_checkpoint("one").unwrap();
    write(&wt.join("a.py"), "a3\n");
    write(&wt.join("new/b.py"), "b\n");
    let later = s.commit_all("stage 2").unwrap().commit.unwrap();
    write(&wt.join("model.onnx"), "artifact");
    write(&wt.join("run.log"), "ignored");

    let rb = s.rollback_to(&tag).unwrap();
    assert_eq!(rb.commit, at);
    assert_eq!(rb.previous_head, later.commit);
    assert_eq!(s.head().unwrap(), at);
    let branch = user.find_reference("refs/heads/aipc/r").unwrap();
    assert_eq!(branch.target().unwrap().to_string(), at);
    assert_eq!(read(&wt.join("a.py")), "a2\n");
    assert!(!wt.join("new/b.py").exists());
    assert_eq!(read(&wt.join("model.onnx")), "artifact");
    assert_eq!(read(&wt.join("run.log")), "ignored");
    assert_eq!(git(&wt, &["status", "--porcelain"]), "?? model.onnx\n");
    // The stage name alone also names the checkpoint; unknown tags list the known ones.
    assert_eq!(s.rollback_to("one").unwrap().commit, at);
    let e = s.rollback_to("nope").unwrap_err();
    assert!(matches!(e, CheckpointError::UnknownCheckpoint { .. }));
    assert!(e.to_string().contains("aipc/r/one"), "{e}");
}

#[test]
fn project_in_a_subdirectory_of_the_repo() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("proj/train.py", "t\n"), ("other/lib.py", "l\n")]);
    write(&root.join("proj/wip.py"), "wip\n");
    let before = fingerprint(&root);
    let project = root.join("proj");
    let wt = session_dir(&project, "sub");
    let s = SessionRepo::create(&project, "sub", &wt, &globs()).unwrap();
    assert_eq!(s.project_dir(), wt.join("proj"));
    assert_eq!(read(&s.project_dir().join("train.py")), "t\n");
    assert_eq!(read(&s.project_dir().join("wip.py")), "wip\n");
    assert_eq!(read(&wt.join("other/lib.py")), "l\n");
    write(&s.project_dir().join("export.py"), "e\n");
    let c = s.commit_all("attempt").unwrap().commit.unwrap();
    assert_eq!(c.diffs[0].path, "proj/export.py");
    let reopened = SessionRepo::open(&project, "sub", &wt, &globs()).unwrap();
    assert_eq!(reopened.project_dir(), wt.join("proj"));
    let mut after = fingerprint(&root);
    after.retain(|k, _| !k.contains(".aipc"));
    assert_eq!(before, after);
    assert!(!git(&root, &["status", "--porcelain"]).contains(".aipc"));
}

#[test]
fn uncommitted_diffs_show_a_human_edit_without_committing() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("m.py", "a\nb\n")]);
    let s = SessionRepo::create(&root, "h", &session_dir(&root, "h"), &globs()).unwrap();
    assert!(s.uncommitted_diffs().unwrap().is_empty());
    let head = s.head().unwrap();
    write(&s.worktree().join("m.py"), "a\nB\n");
    write(&s.worktree().join("x.onnx"), "artifact, not a change");
    let d = s.uncommitted_diffs().unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].path, "m.py");
    assert!(d[0].unified.contains("-b\n+B\n"), "{}", d[0].unified);
    assert_eq!(s.head().unwrap(), head);
    let c = s.commit_all("takeover").unwrap().commit.unwrap();
    assert_eq!(c.diffs, d);
    assert!(s.uncommitted_diffs().unwrap().is_empty());
}

#[test]
fn diff_commits_between_checkpoint_and_head() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("m.py", "1\n")]);
    let s = SessionRepo::create(&root, "dc", &session_dir(&root, "dc"), &globs()).unwrap();
    let (tag, _) = s.tag_checkpoint("base").unwrap();
    write(&s.worktree().join("m.py"), "2\n");
    s.commit_all("x").unwrap().commit.unwrap();
    let d = s.diff_commits(&tag, "HEAD").unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].added, d[0].removed), (1, 1));
    assert!(s
        .diff_commits(&s.head().unwrap(), "HEAD")
        .unwrap()
        .is_empty());
    let e = s.diff_commits("no-such-rev", "HEAD").unwrap_err();
    assert!(e.to_string().contains("no-such-rev"), "{e}");
}

#[cfg(unix)]
#[test]
fn exec_bit_and_symlinks_survive_into_the_worktree() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, root) = tempdir();
    write(&root.join("run.sh"), "#!/bin/sh\n");
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("run.sh", root.join("go")).unwrap();
    user_repo(&root, &[]);
    let s = SessionRepo::create(&root, "x", &session_dir(&root, "x"), &globs()).unwrap();
    let repo = Repository::open(&root).unwrap();
    assert_eq!(
        s.base_commit(),
        repo.head().unwrap().target().unwrap().to_string()
    );
    let wt = s.worktree();
    let mode = fs::metadata(wt.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o100, 0);
    assert_eq!(
        fs::read_link(wt.join("go")).unwrap(),
        PathBuf::from("run.sh")
    );
    fs::set_permissions(wt.join("run.sh"), fs::Permissions::from_mode(0o644)).unwrap();
    let c = s.commit_all("chmod").unwrap().commit.unwrap();
    assert_eq!(c.diffs[0].unified, "old mode 100755\nnew mode 100644\n");
}

#[test]
fn refuses_duplicates_bad_ids_bare_repos_and_missing_sessions() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("m.py", "m\n")]);
    let wt = session_dir(&root, "dup");
    SessionRepo::create(&root, "dup", &wt, &globs()).unwrap();
    let e = SessionRepo::create(&root, "dup", &session_dir(&root, "dup2"), &globs()).unwrap_err();
    assert!(matches!(e, CheckpointError::SessionExists { .. }), "{e}");
    let e = SessionRepo::create(&root, "a/b", &session_dir(&root, "x"), &globs()).unwrap_err();
    assert!(matches!(e, CheckpointError::InvalidSessionId { .. }), "{e}");
    let e = SessionRepo::create(&root, "g", &session_dir(&root, "g"), &["a[".into()]).unwrap_err();
    assert!(matches!(e, CheckpointError::InvalidGlob { .. }), "{e}");
    let e = SessionRepo::open(&root, "none", &session_dir(&root, "none"), &globs()).unwrap_err();
    assert!(matches!(e, CheckpointError::NoWorktree { .. }), "{e}");
    let s = SessionRepo::open(&root, "dup", &wt, &globs()).unwrap();
    let e = s.tag_checkpoint("bad stage").unwrap_err();
    assert!(matches!(e, CheckpointError::InvalidStageName { .. }), "{e}");

    let (_b, bare) = tempdir();
    Repository::init_bare(&bare).unwrap();
    let inside = bare.join("objects");
    let e = SessionRepo::create(&inside, "b", &session_dir(&inside, "b"), &globs()).unwrap_err();
    assert!(e.to_string().contains("is inside a bare repository"), "{e}");

    let (_o, other) = tempdir();
    user_repo(&other, &[("o.py", "o\n")]);
    let e = SessionRepo::open(&other, "dup", &wt, &globs()).unwrap_err();
    assert!(matches!(e, CheckpointError::ForeignWorktree { .. }), "{e}");
}

#[test]
fn two_sessions_in_one_project_stay_apart() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("m.py", "m\n")]);
    write(&root.join("dirty.py"), "d\n");
    let a = SessionRepo::create(&root, "a", &session_dir(&root, "a"), &globs()).unwrap();
    write(&a.worktree().join("only_a.py"), "a\n");
    a.commit_all("a1").unwrap().commit.unwrap();
    let b = SessionRepo::create(&root, "b", &session_dir(&root, "b"), &globs()).unwrap();
    let repo = Repository::open(&root).unwrap();
    let b_tree = repo
        .find_commit(Oid::from_str(&b.base_commit()).unwrap())
        .unwrap()
        .tree()
        .unwrap();
    let names: Vec<_> = b_tree
        .iter()
        .map(|e| e.name().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        vec!["dirty.py", "m.py"],
        "no .aipc, no other session"
    );
    assert!(!b.worktree().join("only_a.py").exists());
    b.tag_checkpoint("export").unwrap();
    assert!(a.checkpoints().unwrap().is_empty());
    assert_eq!(b.checkpoints().unwrap().len(), 1);
}

/// Names git cannot store (aliases of `.git`, backslashes, control characters).
const GIT_REFUSES: &[&str] = &[
    ".GIT/config",
    ".Git/hooks/pre-commit",
    ".git./x",
    ".git /x",
    "sub/.GiT",
    "sub/.git/config",
    "git~1/config",
    ".git::$INDEX_ALLOCATION/x",
    ".git:stream",
    ".g\u{200c}it/config",
    ".git\u{feff}",
    "a\\b.py",
    "x\u{1}y.py",
];

/// The file tools refuse every such name before writing anything, say why and what to do, and
/// the session's commits keep working.
#[tokio::test]
async fn file_tools_refuse_names_git_cannot_store_and_write_nothing() {
    use aipc::tools::{execute, ToolContext, Workspace};
    use serde_json::json;
    let (_d, root) = tempdir();
    user_repo(&root, &[("src/model.py", "v1\n")]);
    let wt = session_dir(&root, "names");
    let s = SessionRepo::create(&root, "names", &wt, &globs()).unwrap();
    fs::create_dir_all(wt.join("sub")).unwrap();
    let ws = Workspace::new(&s.project_dir()).unwrap();
    let on_output = |_: aipc::protocol::OutputStream, _: &str| {};
    let skills = |_: &str| -> Result<String, String> { Err("none".into()) };
    let ctx = ToolContext {
        workspace: &ws,
        cancel: tokio_util::sync::CancellationToken::new(),
        on_output: &on_output,
        load_skill: &skills,
        run_timeout: std::time::Duration::from_secs(30),
        env: &[],
        env_remove: &[],
        // File tools run no command: the sandbox is not involved.
        sandbox: &aipc::sandbox::Sandbox::off(&s.project_dir()),
        spill: None,
    };
    let before = files(&wt);
    for name in GIT_REFUSES {
        for (tool, args) in [
            ("write_file", json!({ "path": name, "content": "[core]\n" })),
            (
                "edit_file",
                json!({ "path": name, "search": "a", "replace": "b" }),
            ),
            (
                "apply_patch",
                json!({ "patch": format!("--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+x\n") }),
            ),
        ] {
            let r = execute(tool, &args, &ctx).await;
            assert!(!r.ok, "{tool} {name:?}: {}", r.observation);
            assert!(r.diffs.is_empty(), "{tool} {name:?}");
            let o = &r.observation;
            assert!(
                (o.contains("cannot be written") && o.contains("Choose another name"))
                    || o.contains("inside .git"),
                "{tool} {name:?}: {o}"
            );
        }
    }
    assert_eq!(files(&wt), before, "a refused call wrote something");

    // The session goes on: an ordinary file is written and committed.
    let r = execute(
        "write_file",
        &json!({ "path": "src/export.py", "content": "e\n" }),
        &ctx,
    )
    .await;
    assert!(r.ok, "{}", r.observation);
    let outcome = s.commit_all("attempt").unwrap();
    assert!(outcome.left_out.is_empty(), "{:?}", outcome.left_out);
    assert_eq!(outcome.commit.unwrap().files_changed, 1);
    assert_eq!(git(&wt, &["status", "--porcelain"]), "");
}

/// A command (not a tool) that makes `.GIT/config` and friends in the worktree: the commit
/// leaves them out and lists them instead of failing, and the session can still be reopened
/// (resume), committed, rolled back and read by git.
#[test]
fn commits_leave_out_names_git_cannot_store_instead_of_failing() {
    let (_d, root) = tempdir();
    user_repo(&root, &[("a.py", "a1\n")]);
    let wt = session_dir(&root, "alias");
    let s = SessionRepo::create(&root, "alias", &wt, &globs()).unwrap();
    write(&wt.join("a.py"), "a2\n");
    s.commit_all("stage 1").unwrap().commit.unwrap();
    s.tag_checkpoint("one").unwrap();

    for (path, content) in [
        (".GIT/config", "[core]\n"),
        ("sub/.GiT/x", "x"),
        (".git./x", "x"),
        (".git /x", "x"),
        ("git~1", "x"),
        (".g\u{200c}it", "x"),
    ] {
        write(&wt.join(path), content);
    }
    // Only the aliases changed: no commit, and they are listed.
    let outcome = s.commit_all("only aliases").unwrap();
    assert_eq!(outcome.commit, None);
    let left: Vec<_> = outcome.left_out.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(
        left,
        vec![
            ".GIT",
            ".git ",
            ".git.",
            ".g\u{200c}it",
            "git~1",
            "sub/.GiT"
        ]
    );
    assert!(
        outcome.left_out[0]
            .reason
            .contains("git's own metadata directory"),
        "{:?}",
        outcome.left_out[0]
    );
    // With a real change: committed, the aliases still left out.
    write(&wt.join("b.py"), "b\n");
    let outcome = s.commit_all("attempt").unwrap();
    let c = outcome.commit.unwrap();
    assert_eq!(c.files_changed, 1);
    assert_eq!(outcome.left_out.len(), 6);
    let repo = Repository::open(&wt).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let names: Vec<_> = tree.iter().map(|e| e.name().unwrap().to_string()).collect();
    assert_eq!(names, vec!["a.py", "b.py"]);
    // git itself reads the session's history.
    git(&wt, &["fsck", "--no-dangling"]);
    git(&wt, &["log", "--oneline"]);

    // Reopened, as `aipc resume` does: the interrupted work is committed, then reset.
    let reopened = SessionRepo::open(&root, "alias", &wt, &globs()).unwrap();
    write(&wt.join("c.py"), "c\n");
    let outcome = reopened.commit_all("interrupted work").unwrap();
    assert!(outcome.commit.is_some());
    reopened.rollback_to("one").unwrap();
    assert!(!wt.join("b.py").exists());
    assert!(wt.join(".GIT/config").exists(), "untracked files stay");
    assert!(reopened.uncommitted_diffs().unwrap().is_empty());
}
