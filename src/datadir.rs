//! Where aipc finds its data: `prompts/`, `skills/` and `toolbox/` (target contracts, signature
//! tables, helper scripts, lock files). Order: `--data-dir`, `$AIPC_DATA_DIR`, the folders above
//! the running binary (a source checkout's `target/…/aipc`, or an install prefix's
//! `share/aipc`), and last the copy embedded in the binary by `build.rs`, extracted once into
//! `<cache>/data/<version>-<hash>/`. So `cargo install --path .` gives a binary that works from
//! any folder, and a binary never reads the source tree it was built from (which may be gone,
//! or newer than the binary).

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The data folders, as one tar archive (made by `build.rs`).
static EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/data.tar"));

/// A marker written last into an extracted copy: its presence means the copy is complete.
const COMPLETE_MARKER: &str = ".aipc-data-complete";

/// Where the data directory in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataSource {
    /// `--data-dir` (clap also fills it from `$AIPC_DATA_DIR`).
    Flag,
    /// `$AIPC_DATA_DIR`.
    Environment,
    /// A folder above the binary (a checkout, or `<prefix>/share/aipc`).
    BesideBinary,
    /// The copy embedded in the binary, extracted under the cache.
    Embedded,
}

impl DataSource {
    /// How `aipc doctor` names it.
    pub fn describe(self) -> &'static str {
        match self {
            DataSource::Flag => "--data-dir or AIPC_DATA_DIR",
            DataSource::Environment => "AIPC_DATA_DIR",
            DataSource::BesideBinary => "beside the binary",
            DataSource::Embedded => "embedded in the binary",
        }
    }
}

/// The data folders a complete installation has.
pub fn is_data_dir(dir: &Path) -> bool {
    dir.join("toolbox/targets").is_dir() && dir.join("prompts").is_dir()
}

/// Find the data directory, or say what is wrong.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, String> {
    locate_with_source(explicit).map(|(dir, _)| dir)
}

/// [`locate`], also saying where the folder came from.
pub fn locate_with_source(explicit: Option<&Path>) -> Result<(PathBuf, DataSource), String> {
    if let Some(dir) = explicit {
        return if is_data_dir(dir) {
            Ok((dir.to_path_buf(), DataSource::Flag))
        } else {
            Err(format!(
                "{} is not an aipc data directory (it needs toolbox/targets/ and prompts/); fix \
                 --data-dir or AIPC_DATA_DIR, or unset it to use the copy embedded in the binary",
                dir.display()
            ))
        };
    }
    if let Some(dir) = std::env::var_os("AIPC_DATA_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        // Set on purpose: a wrong value is an error, not a reason to use another folder.
        return if is_data_dir(&dir) {
            Ok((dir, DataSource::Environment))
        } else {
            Err(format!(
                "AIPC_DATA_DIR={} is not an aipc data directory (it needs toolbox/targets/ and \
                 prompts/); fix or unset it",
                dir.display()
            ))
        };
    }
    if let Ok(exe) = std::env::current_exe() {
        for ancestor in exe.ancestors().skip(1) {
            for candidate in [ancestor.to_path_buf(), ancestor.join("share/aipc")] {
                if is_data_dir(&candidate) {
                    return Ok((candidate, DataSource::BesideBinary));
                }
            }
        }
    }
    let root = crate::model::store::cache_dir().join("data");
    extract_embedded(&root).map(|dir| (dir, DataSource::Embedded))
}

/// Extract the embedded data folders into `<root>/<version>-<hash>/` unless a complete copy is
/// already there, and return that folder. Concurrent callers each extract into a private
/// folder and rename it into place; the first rename wins and the others use its copy.
pub fn extract_embedded(root: &Path) -> Result<PathBuf, String> {
    extract_archive(EMBEDDED, root)
}

fn extract_archive(archive: &[u8], root: &Path) -> Result<PathBuf, String> {
    let hash = Sha256::digest(archive);
    let short: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let dir = root.join(format!("{}-{short}", crate::build_info::VERSION));
    if dir.join(COMPLETE_MARKER).is_file() {
        return Ok(dir);
    }
    let failed = |what: &str, path: &Path, e: &dyn std::fmt::Display| {
        format!(
            "cannot extract the embedded data folders: {what} {}: {e}; make the cache \
             writable (or set AIPC_CACHE_DIR), or pass --data-dir <a checkout of aipc>",
            path.display()
        )
    };
    std::fs::create_dir_all(root).map_err(|e| failed("creating", root, &e))?;
    let staging = tempfile::Builder::new()
        .prefix(".extracting-")
        .tempdir_in(root)
        .map_err(|e| failed("creating a folder in", root, &e))?;
    tar::Archive::new(archive)
        .unpack(staging.path())
        .map_err(|e| failed("unpacking into", staging.path(), &e))?;
    let marker = staging.path().join(COMPLETE_MARKER);
    std::fs::write(&marker, format!("{}\n", crate::build_info::one_line()))
        .map_err(|e| failed("writing", &marker, &e))?;
    let staged = staging.keep();
    match std::fs::rename(&staged, &dir) {
        Ok(()) => Ok(dir),
        Err(_) if dir.join(COMPLETE_MARKER).is_file() => {
            // Another process got there first: its copy is the same bytes.
            let _ = std::fs::remove_dir_all(&staged);
            Ok(dir)
        }
        Err(first) => {
            // An incomplete leftover (a crash before the marker): replace it.
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::rename(&staged, &dir).map_err(|_| {
                let _ = std::fs::remove_dir_all(&staged);
                failed("moving the copy to", &dir, &first)
            })?;
            Ok(dir)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_copy_is_a_complete_data_directory_with_executable_scripts() {
        let root = tempfile::tempdir().unwrap();
        let dir = extract_embedded(root.path()).unwrap();
        assert!(is_data_dir(&dir), "{}", dir.display());
        assert!(dir.join("skills").is_dir());
        assert!(dir
            .join("toolbox/targets/onnxruntime-cpu/contract.toml")
            .is_file());
        assert!(!dir
            .join("toolbox/targets/onnxruntime-cpu/__pycache__")
            .exists());
        // Extracting again reuses the copy.
        assert_eq!(extract_embedded(root.path()).unwrap(), dir);
    }

    #[test]
    fn an_incomplete_leftover_is_replaced() {
        let root = tempfile::tempdir().unwrap();
        let dir = extract_embedded(root.path()).unwrap();
        std::fs::remove_file(dir.join(COMPLETE_MARKER)).unwrap();
        std::fs::remove_dir_all(dir.join("prompts")).unwrap();
        let again = extract_embedded(root.path()).unwrap();
        assert_eq!(again, dir);
        assert!(is_data_dir(&again));
        let leftovers: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[test]
    fn an_unwritable_cache_is_a_clear_error() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let error = extract_embedded(&file.path().join("data")).unwrap_err();
        assert!(error.contains("AIPC_CACHE_DIR"), "{error}");
    }
}
