//! The GGUF reader and the model store against the real default model (Gemma 3 270M Q4_K_M in
//! the model cache; these tests fail, not skip, when it is missing: run `aipc model fetch`),
//! and `aipc model info` / `aipc model list` through the real binary.

use aipc::model::gguf::{read_info, GgufError};
use aipc::model::store::{default_model_path, DEFAULT_MODEL_BYTES, DEFAULT_MODEL_FILE};
use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

/// The fetched default model, or a failure saying how to get it.
fn real_model() -> PathBuf {
    let path = default_model_path();
    assert!(
        path.is_file(),
        "the default model is not at {}: run `aipc model fetch` (these tests read its metadata)",
        path.display()
    );
    path
}

fn aipc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_aipc"))
}

#[test]
fn the_default_model_reads_as_gemma3_270m_q4_k_m() {
    let path = real_model();
    let started = std::time::Instant::now();
    let info = read_info(&path).unwrap();
    assert!(
        started.elapsed().as_secs() < 10,
        "reading the metadata took {:?}",
        started.elapsed()
    );
    assert_eq!(info.file_size, DEFAULT_MODEL_BYTES);
    assert_eq!(info.version, 3);
    assert_eq!(info.architecture.as_deref(), Some("gemma3"));
    assert_eq!(info.context_length, Some(32768));
    assert_eq!(info.quantization, "Q4_K_M");
    assert!(!info.has_chat_template);
    assert_eq!(info.vocab_size, Some(262_144));
    assert_eq!(info.parameters, 268_098_176);
    assert_eq!(info.tensor_count, 236);
    assert_eq!(info.metadata["general.file_type"], "15");
    assert_eq!(info.metadata["tokenizer.ggml.tokens"], "[string; 262144]");
}

#[test]
fn a_text_file_is_not_gguf() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.gguf");
    std::fs::write(&path, "these are notes, not a model\n").unwrap();
    let e = read_info(&path).unwrap_err();
    assert!(matches!(e, GgufError::NotGguf { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!("{}: not a GGUF file (starts with \"thes\")", path.display())
    );
}

#[test]
fn the_first_10_mb_of_the_default_model_are_a_truncated_gguf() {
    let source = real_model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DEFAULT_MODEL_FILE);
    let mut head = Vec::new();
    std::fs::File::open(&source)
        .unwrap()
        .take(10_000_000)
        .read_to_end(&mut head)
        .unwrap();
    std::fs::write(&path, &head).unwrap();
    let e = read_info(&path).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, GgufError::TruncatedData { .. }), "{text}");
    assert!(
        text.starts_with(&format!("{}: truncated GGUF", path.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("ends at byte 10000000 of {DEFAULT_MODEL_BYTES}")),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");
}

#[test]
fn model_info_prints_the_facts_and_exits_0() {
    let out = aipc()
        .args(["model", "info"])
        .arg(real_model())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for fact in [
        "architecture: gemma3\n",
        "parameters: 268.1 M",
        "quantization: Q4_K_M\n",
        "context length: 32768\n",
        "vocabulary: 262144 tokens\n",
        "chat template: none",
        "file size: 253.1 MB",
    ] {
        assert!(stdout.contains(fact), "{fact:?} missing from:\n{stdout}");
    }
}

#[test]
fn model_info_on_a_bad_file_is_one_line_and_exits_5() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("x.gguf");
    std::fs::write(&text, "hello").unwrap();
    for path in [text, dir.path().join("absent.gguf")] {
        let out = aipc().args(["model", "info"]).arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(&path.display().to_string()), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn model_list_reads_the_cache_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = aipc()
        .args(["model", "list"])
        .env("AIPC_CACHE_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("no models in"), "{stdout}");
    assert!(stdout.contains("aipc model fetch"), "{stdout}");

    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::write(models.join("broken.gguf"), "GGUF").unwrap();
    let out = aipc()
        .args(["model", "list"])
        .env("AIPC_CACHE_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("broken.gguf: truncated GGUF"), "{stdout}");
}
