//! Names the session puts into the repository: its branch, checkpoint tags and worktree, and the
//! validation of session ids and stage names that go into them.

use super::error::CheckpointError;

/// Whether `s` is safe as one ref path component: letters, digits, `.`, `_`, `-`; not starting
/// with `.` or `-`; no `..`; not ending in `.lock` or `.`.
fn is_component(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !s.starts_with('.')
        && !s.starts_with('-')
        && !s.ends_with('.')
        && !s.ends_with(".lock")
        && !s.contains("..")
}

/// Check a session id.
pub(crate) fn validate_session_id(id: &str) -> Result<(), CheckpointError> {
    if is_component(id) {
        Ok(())
    } else {
        Err(CheckpointError::InvalidSessionId { id: id.to_string() })
    }
}

/// Check a stage name.
pub(crate) fn validate_stage(stage: &str) -> Result<(), CheckpointError> {
    if is_component(stage) {
        Ok(())
    } else {
        Err(CheckpointError::InvalidStageName {
            stage: stage.to_string(),
        })
    }
}

/// `aipc/<id>`.
pub(crate) fn branch_name(id: &str) -> String {
    format!("aipc/{id}")
}

/// `refs/heads/aipc/<id>`.
pub(crate) fn branch_ref(id: &str) -> String {
    format!("refs/heads/aipc/{id}")
}

/// `aipc/<id>/<stage>`.
pub(crate) fn tag_name(id: &str, stage: &str) -> String {
    format!("aipc/{id}/{stage}")
}

/// `refs/tags/aipc/<id>/` — the prefix of every checkpoint tag of a session.
pub(crate) fn tag_ref_prefix(id: &str) -> String {
    format!("refs/tags/aipc/{id}/")
}

/// `aipc-<id>`: the name of the worktree's admin dir under `.git/worktrees/`.
pub(crate) fn worktree_name(id: &str) -> String {
    format!("aipc-{id}")
}

/// The file in the worktree's admin dir that records the session's base commit.
pub(crate) const BASE_FILE: &str = "aipc-base";

/// The directory (in the project, and in every walk) that belongs to aipc.
pub(crate) const AIPC_DIR: &str = ".aipc";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_ids_and_rejects_ref_breakers() {
        for ok in ["20240101-1200-ab12", "s1", "a.b_c-d"] {
            assert!(validate_session_id(ok).is_ok(), "{ok}");
            assert!(git2::Reference::is_valid_name(&branch_ref(ok)));
        }
        for bad in [
            "", ".x", "-x", "a..b", "a/b", "a b", "x.lock", "x.", "a~1", "a:b",
        ] {
            assert!(validate_session_id(bad).is_err(), "{bad:?}");
            assert!(validate_stage(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn names_have_the_documented_shape() {
        assert_eq!(branch_name("s"), "aipc/s");
        assert_eq!(tag_name("s", "export"), "aipc/s/export");
        assert!(format!("refs/tags/{}", tag_name("s", "export")).starts_with(&tag_ref_prefix("s")));
        assert_eq!(worktree_name("s"), "aipc-s");
    }
}
