//! The one line `.aipc/` in the repository's `info/exclude`, so session worktrees and records
//! inside the project never show up in the user's `git status`.

use super::error::{CheckpointError, IoContext};
use std::path::Path;

const LINE: &str = ".aipc/";

/// Add `.aipc/` to `<commondir>/info/exclude` unless a line already excludes it.
pub(crate) fn ensure_excluded(commondir: &Path) -> Result<(), CheckpointError> {
    let info = commondir.join("info");
    let file = info.join("exclude");
    let current = match std::fs::read_to_string(&file) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).io_ctx("read", &file),
    };
    if current
        .lines()
        .any(|l| matches!(l.trim(), ".aipc/" | ".aipc"))
    {
        return Ok(());
    }
    std::fs::create_dir_all(&info).io_ctx("create directory", &info)?;
    let mut next = current;
    if !next.is_empty() && !next.ends_with('\n') {
        next.push('\n');
    }
    next.push_str(LINE);
    next.push('\n');
    std::fs::write(&file, next).io_ctx("write", &file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_once_and_keeps_existing_lines() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("info")).unwrap();
        std::fs::write(d.path().join("info/exclude"), "# comment\n*.tmp").unwrap();
        ensure_excluded(d.path()).unwrap();
        ensure_excluded(d.path()).unwrap();
        let s = std::fs::read_to_string(d.path().join("info/exclude")).unwrap();
        assert_eq!(s, "# comment\n*.tmp\n.aipc/\n");
    }

    #[test]
    fn creates_info_dir_when_missing() {
        let d = tempfile::tempdir().unwrap();
        ensure_excluded(d.path()).unwrap();
        let s = std::fs::read_to_string(d.path().join("info/exclude")).unwrap();
        assert_eq!(s, ".aipc/\n");
    }
}
