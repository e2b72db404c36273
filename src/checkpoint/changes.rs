//! Changes between two flat trees, as [`FileDiff`]s made with [`crate::file_diff::file_diff`].

use super::error::CheckpointError;
use super::scan::read_content;
use super::tree::{Entry, FlatTree, MODE_GITLINK};
use crate::file_diff::file_diff;
use crate::protocol::FileDiff;
use git2::Repository;

/// Paths whose content or mode differ, with the entry on each side (`None`: absent), by path.
pub(crate) fn changed_paths<'a>(
    before: &'a FlatTree,
    after: &'a FlatTree,
) -> Vec<(&'a str, Option<&'a Entry>, Option<&'a Entry>)> {
    let mut out = Vec::new();
    for (path, b) in before {
        match after.get(path) {
            Some(a) if a.same_as(b) => {}
            other => out.push((path.as_str(), Some(b), other)),
        }
    }
    for (path, a) in after {
        if !before.contains_key(path) {
            out.push((path.as_str(), None, Some(a)));
        }
    }
    out.sort_by(|x, y| x.0.cmp(y.0));
    out
}

/// The diffs of every changed path. Content comes from the object database, or from disk for
/// scanned entries whose blob was not stored.
pub(crate) fn diffs(
    repo: &Repository,
    before: &FlatTree,
    after: &FlatTree,
) -> Result<Vec<FileDiff>, CheckpointError> {
    let mut out = Vec::new();
    for (path, b, a) in changed_paths(before, after) {
        let old = b.map(|e| content(repo, e)).transpose()?;
        let new = a.map(|e| content(repo, e)).transpose()?;
        match file_diff(path, old.as_deref(), new.as_deref()) {
            Some(d) => out.push(d),
            None => {
                // Same bytes, different mode (e.g. the executable bit).
                let (om, nm) = (b.map_or(0, |e| e.mode), a.map_or(0, |e| e.mode));
                out.push(FileDiff {
                    path: path.to_string(),
                    unified: format!("old mode {om:o}\nnew mode {nm:o}\n"),
                    added: 0,
                    removed: 0,
                });
            }
        }
    }
    Ok(out)
}

fn content(repo: &Repository, e: &Entry) -> Result<Vec<u8>, CheckpointError> {
    if e.mode == MODE_GITLINK {
        return Ok(format!("Subproject commit {}\n", e.oid).into_bytes());
    }
    if let Ok(blob) = repo.find_blob(e.oid) {
        return Ok(blob.content().to_vec());
    }
    match &e.source {
        Some(path) => read_content(path, e.mode),
        None => Err(CheckpointError::Git {
            action: format!("read blob {}", e.oid),
            source: git2::Error::from_str("object not found"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::tree::{MODE_BLOB, MODE_EXEC};

    fn entry(repo: &Repository, content: &[u8], mode: i32) -> Entry {
        Entry {
            oid: repo.blob(content).unwrap(),
            mode,
            source: None,
        }
    }

    #[test]
    fn reports_added_removed_modified_and_mode_changes() {
        let d = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(d.path()).unwrap();
        let mut before = FlatTree::new();
        let mut after = FlatTree::new();
        before.insert("gone.txt".into(), entry(&repo, b"g\n", MODE_BLOB));
        before.insert("m.py".into(), entry(&repo, b"a\nb\n", MODE_BLOB));
        before.insert("same".into(), entry(&repo, b"s\n", MODE_BLOB));
        before.insert("run.sh".into(), entry(&repo, b"r\n", MODE_BLOB));
        after.insert("m.py".into(), entry(&repo, b"a\nc\n", MODE_BLOB));
        after.insert("new.txt".into(), entry(&repo, b"n\n", MODE_BLOB));
        after.insert("same".into(), entry(&repo, b"s\n", MODE_BLOB));
        after.insert("run.sh".into(), entry(&repo, b"r\n", MODE_EXEC));
        let d = diffs(&repo, &before, &after).unwrap();
        let paths: Vec<_> = d.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["gone.txt", "m.py", "new.txt", "run.sh"]);
        assert!(d[0].unified.contains("+++ /dev/null"));
        assert_eq!((d[1].added, d[1].removed), (1, 1));
        assert!(d[2].unified.starts_with("--- /dev/null"));
        assert_eq!(d[3].unified, "old mode 100644\nnew mode 100755\n");
    }
}
