//! `meta.json`: what a session is (project, target, model, contract, versions), written
//! atomically and checked for a format version this build understands.
//!
//! `format_version` is the session format version, the same number as
//! [`EVENT_FORMAT_VERSION`]: it covers `meta.json` and `events.jsonl` together.

use super::error::SessionError;
use crate::protocol::{EVENT_FORMAT_VERSION, MIN_EVENT_FORMAT_VERSION};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The contents of `meta.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    /// Session format version; [`EVENT_FORMAT_VERSION`] when written by this build.
    pub format_version: u32,
    pub session_id: String,
    /// RFC 3339 UTC, e.g. `2026-11-29T19:30:12Z`.
    pub created: String,
    /// The project folder.
    pub project: String,
    /// The deployment target name.
    pub target: String,
    /// The model backend and name.
    pub model: String,
    /// Zero-human (batch) mode.
    pub batch: bool,
    /// The aipc version that wrote the session.
    pub aipc_version: String,
    /// The contract the session ran under, as loaded.
    #[serde(default)]
    pub contract: serde_json::Value,
    /// Other facts worth keeping, e.g. the libgit2 version.
    #[serde(default)]
    pub extra: BTreeMap<String, String>,
}

/// Write `meta` to `path` atomically: a temporary file beside it, synced, then renamed over
/// `path`. Creates the parent folder when missing.
pub fn write_meta(path: &Path, meta: &Meta) -> Result<(), SessionError> {
    let mut json = serde_json::to_vec_pretty(meta).map_err(|source| SessionError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    json.push(b'\n');
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| SessionError::io("create the folder", parent, e))?;
    }
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = write_synced(&tmp, &json).and_then(|()| {
        std::fs::rename(&tmp, path).map_err(|e| SessionError::io("rename onto", path, e))
    });
    if result.is_err() {
        // Best effort: do not leave a half-written temporary file behind.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), SessionError> {
    let mut file = std::fs::File::create(path).map_err(|e| SessionError::io("create", path, e))?;
    file.write_all(bytes)
        .map_err(|e| SessionError::io("write to", path, e))?;
    file.sync_all()
        .map_err(|e| SessionError::io("sync", path, e))
}

/// Read `meta.json`. A `format_version` newer than [`EVENT_FORMAT_VERSION`], older than
/// [`MIN_EVENT_FORMAT_VERSION`] or missing is refused with an error naming the versions and
/// what to do, before the rest of the file is interpreted.
pub fn read_meta(path: &Path) -> Result<Meta, SessionError> {
    let text = crate::safe_read::read_to_string(path, crate::safe_read::SESSION_FILE)?;
    let invalid = |source: serde_json::Error| SessionError::MetaInvalid {
        path: path.to_path_buf(),
        line: source.line(),
        source,
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(invalid)?;
    let version = value.get("format_version");
    let found = version.and_then(|v| v.as_u64());
    if let Some(found) = found {
        if found > u64::from(EVENT_FORMAT_VERSION) {
            return Err(SessionError::MetaTooNew {
                path: path.to_path_buf(),
                found,
                supported: EVENT_FORMAT_VERSION,
            });
        }
    }
    // A missing version is the format before versions existed; a malformed one stays a
    // parse error below, which names the line.
    if version.is_none() || found.is_some_and(|f| f < u64::from(MIN_EVENT_FORMAT_VERSION)) {
        return Err(SessionError::MetaTooOld {
            path: path.to_path_buf(),
            found: found.unwrap_or(0),
            oldest: MIN_EVENT_FORMAT_VERSION,
            newest: EVENT_FORMAT_VERSION,
        });
    }
    serde_json::from_str(&text).map_err(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Meta {
        Meta {
            format_version: EVENT_FORMAT_VERSION,
            session_id: "20261129-193012-7f3a".into(),
            created: "2026-11-29T19:30:12Z".into(),
            project: "/proj".into(),
            target: "rk3588".into(),
            model: "llama.cpp:qwen".into(),
            batch: true,
            aipc_version: "0.1.0".into(),
            contract: serde_json::json!({"stages": ["export", "quantize"]}),
            extra: BTreeMap::from([("libgit2".to_string(), "1.9.0".to_string())]),
        }
    }

    #[test]
    fn round_trip_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s").join("meta.json");
        write_meta(&path, &sample()).unwrap();
        write_meta(&path, &sample()).unwrap(); // overwrite is fine
        assert_eq!(read_meta(&path).unwrap(), sample());
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("meta.json")]);
    }

    #[test]
    fn newer_version_refused_even_if_shape_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.json");
        std::fs::write(&path, r#"{"format_version": 99, "whatever": true}"#).unwrap();
        let err = read_meta(&path).unwrap_err().to_string();
        assert!(err.contains("99") && err.contains(&format!("version {EVENT_FORMAT_VERSION}")));
        assert!(err.contains("upgrade aipc"), "{err}");
    }

    #[test]
    fn older_and_unversioned_refused_but_version_1_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.json");
        std::fs::write(&path, r#"{"format_version": 0}"#).unwrap();
        let err = read_meta(&path).unwrap_err().to_string();
        assert!(err.contains("version 0 is older"), "{err}");
        assert!(err.contains("aipc sessions gc"), "{err}");
        std::fs::write(&path, r#"{"session_id": "x"}"#).unwrap();
        let err = read_meta(&path).unwrap_err().to_string();
        assert!(err.contains("version 0 is older"), "{err}");
        let mut old = serde_json::to_value(sample()).unwrap();
        old["format_version"] = 1.into();
        std::fs::write(&path, old.to_string()).unwrap();
        assert_eq!(read_meta(&path).unwrap().format_version, 1);
    }

    #[test]
    fn garbage_names_path_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.json");
        std::fs::write(&path, "{\n\"format_version\": 1,\n oops\n}").unwrap();
        let err = read_meta(&path).unwrap_err().to_string();
        assert!(err.contains("meta.json:3:"), "{err}");
    }
}
