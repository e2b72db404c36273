//! Build script of aipc: embeds the data folders (`prompts/`, `skills/`, `toolbox/`) into the
//! binary as one tar archive, so that an installed `aipc` works from any folder (see
//! `src/datadir.rs`, which extracts it on first use), and records the build details that
//! `aipc --version` prints: git commit, profile, target CPU and the llama.cpp crate version.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folders a data directory holds (`src/datadir.rs` checks the same).
const DATA_FOLDERS: [&str; 3] = ["prompts", "skills", "toolbox"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    embed_data(&manifest, &out.join("data.tar"));
    build_details(&manifest);
}

/// Write every file under the data folders (but Python caches) into `archive`, sorted by path
/// with fixed times and owners, so the same tree gives the same bytes (the extraction folder
/// is named after their hash).
fn embed_data(manifest: &Path, archive: &Path) {
    let mut files = Vec::new();
    for folder in DATA_FOLDERS {
        // A directory: cargo re-runs this script when anything below it changes.
        println!("cargo:rerun-if-changed={folder}");
        collect(&manifest.join(folder), &mut files);
    }
    files.sort();
    let file = std::fs::File::create(archive).expect("OUT_DIR is writable");
    let mut builder = tar::Builder::new(file);
    for path in files {
        let relative = path
            .strip_prefix(manifest)
            .expect("collected under the manifest dir");
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let executable = is_executable(&path);
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(if executable { 0o755 } else { 0o644 });
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder
            .append_data(&mut header, relative, data.as_slice())
            .unwrap_or_else(|e| panic!("archiving {}: {e}", path.display()));
    }
    builder.finish().expect("the archive is written");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!(
            "{} is missing: the data folders are part of the source tree",
            dir.display()
        );
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "__pycache__" || name.ends_with(".pyc") || name.starts_with(".#") {
            continue;
        }
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect(&path, files),
            Ok(kind) if kind.is_file() => files.push(path),
            _ => {}
        }
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    false
}

/// `AIPC_BUILD_*` environment variables for `env!` in `src/build_info.rs`.
fn build_details(manifest: &Path) {
    let git = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(manifest)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|commit| !commit.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    // A new commit or checkout changes the commit printed (a plain `.git` folder only; a
    // source tarball has none and prints "unknown").
    for tracked in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        if manifest.join(tracked).exists() {
            println!("cargo:rerun-if-changed={tracked}");
        }
    }
    println!("cargo:rustc-env=AIPC_BUILD_GIT={git}");

    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".to_string());
    println!("cargo:rustc-env=AIPC_BUILD_PROFILE={profile}");

    // The target CPU given to rustc (and by llama-cpp-sys-2 to llama.cpp), from .cargo/config.toml
    // or RUSTFLAGS; without one, rustc's generic baseline for the architecture.
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let target_cpu = rustflags
        .split('\x1f')
        .find_map(|flag| flag.split("target-cpu=").nth(1))
        .unwrap_or("generic")
        .to_string();
    println!("cargo:rustc-env=AIPC_BUILD_TARGET_CPU={target_cpu}");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    println!("cargo:rustc-env=AIPC_BUILD_TARGET_ARCH={arch}");

    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string(manifest.join("Cargo.lock")).unwrap_or_default();
    let llama = locked_version(&lock, "llama-cpp-sys-2").unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=AIPC_BUILD_LLAMA_CPP_SYS={llama}");
}

/// The version Cargo.lock pins for `package`.
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let name_line = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name_line {
            let version = lines.next()?.trim();
            return version
                .strip_prefix("version = \"")
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string);
        }
    }
    None
}
