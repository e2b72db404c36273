//! File diffs for events and the record: unified text made with `similar`, with counts.

use crate::protocol::FileDiff;
use similar::{ChangeTag, TextDiff};

/// Diff two versions of a file. `None` means the file did not exist on that side.
/// Returns `None` when both sides are equal. Binary content (not UTF-8) yields an empty
/// `unified` text with a note instead of hunks.
pub fn file_diff(path: &str, before: Option<&[u8]>, after: Option<&[u8]>) -> Option<FileDiff> {
    if before == after {
        return None;
    }
    let old_name = if before.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".to_string()
    };
    let new_name = if after.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".to_string()
    };
    let (old, new) = match (
        std::str::from_utf8(before.unwrap_or_default()),
        std::str::from_utf8(after.unwrap_or_default()),
    ) {
        (Ok(o), Ok(n)) => (o, n),
        _ => {
            return Some(FileDiff {
                path: path.to_string(),
                unified: format!("Binary files {old_name} and {new_name} differ\n"),
                added: 0,
                removed: 0,
            })
        }
    };
    let diff = TextDiff::from_lines(old, new);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let unified = diff
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .to_string();
    Some(FileDiff {
        path: path.to_string(),
        unified,
        added,
        removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_changed_lines_and_names_sides() {
        let d = file_diff("m.py", Some(b"a\nb\nc\n"), Some(b"a\nB\nc\nd\n")).unwrap();
        assert_eq!((d.added, d.removed), (2, 1));
        assert!(d.unified.starts_with("--- a/m.py\n+++ b/m.py\n"));
        assert!(d.unified.contains("-b\n+B\n"));
    }

    #[test]
    fn new_file_diffs_against_dev_null_and_equal_is_none() {
        let d = file_diff("n.txt", None, Some(b"x\n")).unwrap();
        assert!(d.unified.starts_with("--- /dev/null\n+++ b/n.txt"));
        assert!(file_diff("same", Some(b"x"), Some(b"x")).is_none());
    }
}
