//! Where aipc finds its data: `prompts/`, `skills/` and `toolbox/` (target contracts, signature
//! tables, helper scripts). Order: `--data-dir`, `$AIPC_DATA_DIR`, the folders above the running
//! binary (a source checkout or an install prefix's `share/aipc`), the source tree it was
//! built from.

use std::path::{Path, PathBuf};

/// The data folders a complete installation has.
pub fn is_data_dir(dir: &Path) -> bool {
    dir.join("toolbox/targets").is_dir() && dir.join("prompts").is_dir()
}

/// Find the data directory, or say where it was looked for.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(dir) = explicit {
        return if is_data_dir(dir) {
            Ok(dir.to_path_buf())
        } else {
            Err(format!(
                "{} is not an aipc data directory (it needs toolbox/targets/ and prompts/)",
                dir.display()
            ))
        };
    }
    let mut tried = Vec::new();
    if let Some(dir) = std::env::var_os("AIPC_DATA_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        if is_data_dir(&dir) {
            return Ok(dir);
        }
        tried.push(dir);
    }
    if let Ok(exe) = std::env::current_exe() {
        for ancestor in exe.ancestors().skip(1) {
            for candidate in [ancestor.to_path_buf(), ancestor.join("share/aipc")] {
                if is_data_dir(&candidate) {
                    return Ok(candidate);
                }
            }
        }
        tried.push(exe);
    }
    let built_from = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if is_data_dir(&built_from) {
        return Ok(built_from);
    }
    tried.push(built_from);
    Err(format!(
        "cannot find the aipc data directory (prompts/, skills/, toolbox/); looked at {}; \
         set AIPC_DATA_DIR or pass --data-dir",
        tried
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}
