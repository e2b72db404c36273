//! Integration tests of Agent Skills loading, checking and rendering.

use aipc::skills::*;
use std::path::Path;

fn write_skill(root: &Path, folder: &str, text: &str) {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

fn valid(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Export a PyTorch model to ONNX. Use when export fails.\n---\n\n# {name}\n\nRun the script.\n"
    )
}

/// Load `text` as skill folder `folder` and return the error message.
fn load_err(folder: &str, text: &str) -> (String, SkillError) {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), folder, text);
    let err = SkillSet::load_dir(root.path()).unwrap_err();
    let prefix = root
        .path()
        .join(folder)
        .join("SKILL.md")
        .display()
        .to_string();
    let msg = err.to_string();
    assert!(msg.starts_with(&prefix), "{msg}");
    (msg[prefix.len()..].to_string(), err)
}

#[test]
fn valid_skill_with_bundled_files() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "onnx-export", &valid("onnx-export"));
    let dir = root.path().join("onnx-export");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::create_dir_all(dir.join("references/ops")).unwrap();
    std::fs::create_dir_all(dir.join("other")).unwrap();
    std::fs::write(dir.join("scripts/export.py"), "print()").unwrap();
    std::fs::write(dir.join("references/ops/list.md"), "ops").unwrap();
    std::fs::write(dir.join("other/ignored.txt"), "x").unwrap();
    // A hidden folder and a plain file are not skills; a missing dir is an empty set.
    std::fs::create_dir_all(root.path().join(".cache/x")).unwrap();
    std::fs::write(root.path().join("README.md"), "skills").unwrap();

    let set = SkillSet::load_dir(root.path()).unwrap();
    assert_eq!(set.names(), vec!["onnx-export"]);
    let s = set.get("onnx-export").unwrap();
    assert_eq!(s.name, "onnx-export");
    assert!(s.description.starts_with("Export a PyTorch model"));
    assert_eq!(s.body, "# onnx-export\n\nRun the script.");
    assert_eq!(s.dir, dir);
    assert_eq!(s.files, vec!["references/ops/list.md", "scripts/export.py"]);

    assert!(SkillSet::load_dir(&root.path().join("missing"))
        .unwrap()
        .is_empty());
}

#[test]
fn name_folder_mismatch() {
    let (msg, err) = load_err("onnx-export", &valid("onnx-exporter"));
    assert_eq!(&msg[..3], ":2:", "{msg}");
    assert!(
        msg.contains("does not match its folder `onnx-export`"),
        "{msg}"
    );
    assert!(matches!(err, SkillError::Invalid { line: 2, .. }));
}

#[test]
fn invalid_name_characters() {
    let (msg, _) = load_err("Onnx_Export", &valid("Onnx_Export"));
    assert!(msg.starts_with(":2:") && msg.contains("lowercase"), "{msg}");
}

#[test]
fn missing_description() {
    let (msg, _) = load_err("demo", "---\nname: demo\n---\nbody\n");
    assert!(msg.starts_with(":3:"), "{msg}");
    assert!(msg.contains("missing or empty `description`"), "{msg}");
    let (msg, _) = load_err("demo", "---\nname: demo\ndescription: \"  \"\n---\nbody\n");
    assert!(msg.starts_with(":3:") && msg.contains("empty"), "{msg}");
}

#[test]
fn description_too_long() {
    let long = "d".repeat(1025);
    let (msg, _) = load_err(
        "demo",
        &format!("---\nname: demo\ndescription: {long}\n---\n"),
    );
    assert!(msg.starts_with(":3:"), "{msg}");
    assert!(msg.contains("1025 characters, the limit is 1024"), "{msg}");
    // Exactly the limit is fine.
    let root = tempfile::tempdir().unwrap();
    let ok = "d".repeat(1024);
    write_skill(
        root.path(),
        "demo",
        &format!("---\nname: demo\ndescription: {ok}\n---\n"),
    );
    assert!(SkillSet::load_dir(root.path()).is_ok());
}

#[test]
fn unknown_key() {
    let (msg, _) = load_err(
        "demo",
        "---\nname: demo\ndescription: d\nversion: 2\nlicense: MIT\n---\n",
    );
    assert!(msg.starts_with(":4:"), "{msg}");
    assert!(msg.contains("unknown front-matter key `version`"), "{msg}");
    assert!(msg.contains("metadata"), "{msg}");
}

#[test]
fn no_front_matter() {
    let (msg, _) = load_err("demo", "# Demo\n\nname: demo\n");
    assert!(msg.starts_with(":1:"), "{msg}");
    assert!(msg.contains("no front matter"), "{msg}");
}

#[test]
fn body_too_long() {
    let body = "line\n".repeat(501);
    let (msg, _) = load_err(
        "demo",
        &format!("---\nname: demo\ndescription: d\n---\n{body}"),
    );
    // The front matter takes lines 1-4; the 501st body line is file line 505.
    assert!(msg.starts_with(":505:"), "{msg}");
    assert!(msg.contains("501 lines, the limit is 500"), "{msg}");
    assert!(msg.contains("references/"), "{msg}");
}

#[test]
fn merge_later_wins_and_render_for_model() {
    let builtin = tempfile::tempdir().unwrap();
    write_skill(builtin.path(), "onnx-export", &valid("onnx-export"));
    write_skill(builtin.path(), "rknn-quantize", &valid("rknn-quantize"));
    let project = tempfile::tempdir().unwrap();
    write_skill(
        project.path(),
        "onnx-export",
        "---\nname: onnx-export\ndescription: Project version.\n---\nUse opset 17.\n",
    );
    let ref_dir = project.path().join("onnx-export/references");
    std::fs::create_dir_all(&ref_dir).unwrap();
    std::fs::write(ref_dir.join("opsets.md"), "17").unwrap();

    let mut set = SkillSet::load_dir(builtin.path()).unwrap();
    set.merge(SkillSet::load_dir(project.path()).unwrap());
    assert_eq!(set.names(), vec!["onnx-export", "rknn-quantize"]);
    assert_eq!(
        set.get("onnx-export").unwrap().description,
        "Project version."
    );

    let text = set.render_for_model("onnx-export").unwrap();
    assert!(text.contains("Use opset 17."), "{text}");
    assert!(text.contains("- references/opsets.md"), "{text}");
    assert!(text.contains(&project.path().join("onnx-export").display().to_string()));
    let plain = set.render_for_model("rknn-quantize").unwrap();
    assert!(plain.contains("Run the script.") && !plain.contains("Bundled files"));

    let err = set.render_for_model("tensorrt").unwrap_err();
    assert!(err.contains("unknown skill `tensorrt`"), "{err}");
    assert!(err.contains("onnx-export, rknn-quantize"), "{err}");
    assert!(SkillSet::default().render_for_model("x").is_err());
}

/// A skill folder that is broken in a way the loader used to skip without a word: the error
/// names the `SKILL.md` and says what is wrong.
#[test]
fn a_broken_skill_folder_is_an_error_naming_its_file() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "good", &valid("good"));
    let folder = root.path().join("broken");
    let skill_md = folder.join("SKILL.md");
    std::fs::create_dir_all(&folder).unwrap();

    // No SKILL.md at all.
    let err = SkillSet::load_dir(root.path()).unwrap_err();
    assert!(matches!(err, SkillError::Missing { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("{}: missing", skill_md.display())),
        "{msg}"
    );
    assert!(msg.contains("add it, or move the folder out"), "{msg}");

    // SKILL.md is a folder, or a FIFO (which must not block the load).
    std::fs::create_dir(&skill_md).unwrap();
    let err = SkillSet::load_dir(root.path()).unwrap_err();
    assert!(matches!(err, SkillError::Unreadable(_)), "{err}");
    assert!(err.to_string().contains("it is a directory"), "{err}");
    std::fs::remove_dir(&skill_md).unwrap();
    nix::unistd::mkfifo(&skill_md, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let path = root.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(SkillSet::load_dir(&path).map(|s| s.len()));
    });
    let err = rx
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("loading a FIFO SKILL.md blocked")
        .unwrap_err();
    assert!(
        err.to_string().contains(&skill_md.display().to_string()),
        "{err}"
    );
    assert!(err.to_string().contains("FIFO"), "{err}");
    std::fs::remove_file(&skill_md).unwrap();

    // Too large.
    std::fs::write(&skill_md, "x".repeat(2 << 20)).unwrap();
    let err = SkillSet::load_dir(root.path()).unwrap_err();
    assert!(err.to_string().contains("over the limit"), "{err}");

    // Bad front matter.
    std::fs::write(&skill_md, "no front matter\n").unwrap();
    let err = SkillSet::load_dir(root.path()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}:1:", skill_md.display())),
        "{err}"
    );

    // A broken symlink in place of a skill folder.
    std::fs::remove_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink(root.path().join("nowhere"), &folder).unwrap();
    let err = SkillSet::load_dir(root.path()).unwrap_err();
    assert!(
        err.to_string().contains(&folder.display().to_string()),
        "{err}"
    );

    // Fixed: the good skill loads.
    std::fs::remove_file(&folder).unwrap();
    assert_eq!(
        SkillSet::load_dir(root.path()).unwrap().names(),
        vec!["good"]
    );
}

/// Every folder of the shipped `skills/` is a valid skill.
#[test]
fn the_shipped_skills_all_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
    let folders = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    let set = SkillSet::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(set.len(), folders);
    assert!(folders > 0);
}
