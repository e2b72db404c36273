//! `aipc sessions gc`: remove old sessions — the session folder (log, reports, logs, worktree),
//! the worktree's registration in git, the branch `aipc/<id>` and the tags `aipc/<id>/*`.
//! Never anything of the user's: other branches, tags, the working tree and index stay as they
//! are (see [`crate::checkpoint::cleanup`]).
//!
//! Which sessions go: all but the `keep` newest, and of those only the ones older than
//! `older_than` (by their last activity, the modification time of the log), when given. A
//! session whose log a process holds open is running and kept; so is one without a
//! `session_finished` whose log changed in the last [`BUSY_WINDOW`] (where open files cannot be
//! seen). `dry_run` lists what would go and removes nothing.

use super::error::SessionError;
use super::list::{list_sessions, SessionSummary};
use super::paths::SessionPaths;
use crate::checkpoint::cleanup::remove_session_refs;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// An unfinished session whose log changed this recently is treated as running.
pub const BUSY_WINDOW: Duration = Duration::from_secs(300);

/// Which sessions to remove.
#[derive(Debug, Clone, PartialEq)]
pub struct GcPolicy {
    /// Keep this many of the newest sessions whatever their age.
    pub keep: Option<usize>,
    /// Remove only sessions whose last activity is older than this.
    pub older_than: Option<Duration>,
    pub dry_run: bool,
}

/// What happened to one session.
#[derive(Debug, Clone, PartialEq)]
pub struct GcEntry {
    pub id: String,
    /// `deployed`, `failed`, … or `unfinished`.
    pub outcome: String,
    pub bytes: u64,
    pub age: Duration,
    /// What was removed (or would be), e.g. `branch aipc/<id>, 3 tags, worktree`.
    pub removed: String,
    /// Why it was kept instead, or what failed.
    pub note: Option<String>,
}

/// The result of a gc run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GcReport {
    pub removed: Vec<GcEntry>,
    pub kept: Vec<GcEntry>,
    pub failed: Vec<GcEntry>,
}

/// Apply `policy` to the sessions of `project`.
pub fn gc(project: &Path, policy: &GcPolicy) -> Result<GcReport, SessionError> {
    let sessions = list_sessions(project)?;
    let now = SystemTime::now();
    let mut report = GcReport::default();
    for (rank, summary) in sessions.iter().enumerate() {
        let paths = SessionPaths::from_dir(&summary.dir);
        let age = last_activity(&paths)
            .and_then(|t| now.duration_since(t).ok())
            .unwrap_or_default();
        let mut entry = GcEntry {
            id: summary.id.clone(),
            outcome: outcome_word(summary),
            bytes: dir_size(&summary.dir),
            age,
            removed: String::new(),
            note: None,
        };
        let keep_reason = if policy.keep.is_some_and(|k| rank < k) {
            Some("among the newest kept".to_string())
        } else if policy.older_than.is_some_and(|limit| age < limit) {
            Some("not old enough".to_string())
        } else if !crate::resume::leftovers::lasting_holders(
            &paths.events,
            crate::resume::leftovers::HOLDER_PATIENCE,
        )
        .is_empty()
        {
            Some("running: a process has its log open".to_string())
        } else if summary.outcome.is_none() && age < BUSY_WINDOW {
            Some("unfinished and active in the last 5 minutes: it may be running".to_string())
        } else {
            None
        };
        if let Some(reason) = keep_reason {
            entry.note = Some(reason);
            report.kept.push(entry);
            continue;
        }
        if policy.dry_run {
            entry.removed = "session folder, worktree, branch and tags".to_string();
            report.removed.push(entry);
            continue;
        }
        match remove_session(project, &summary.id, &summary.dir) {
            Ok(removed) => {
                entry.removed = removed;
                report.removed.push(entry);
            }
            Err(message) => {
                entry.note = Some(message);
                report.failed.push(entry);
            }
        }
    }
    Ok(report)
}

/// Remove one session's refs, worktree and folder; says what went.
fn remove_session(project: &Path, id: &str, dir: &Path) -> Result<String, String> {
    let refs = remove_session_refs(project, id).map_err(|e| e.to_string())?;
    std::fs::remove_dir_all(dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    let mut parts = vec!["session folder".to_string()];
    if refs.worktree_pruned {
        parts.push("worktree".to_string());
    }
    if let Some(branch) = refs.branch {
        parts.push(format!("branch {branch}"));
    }
    if !refs.tags.is_empty() {
        parts.push(format!("{} tags", refs.tags.len()));
    }
    Ok(parts.join(", "))
}

/// The text `aipc sessions gc` prints.
pub fn format_gc_report(report: &GcReport, dry_run: bool) -> String {
    let mut out = String::new();
    let verb = if dry_run { "would remove" } else { "removed" };
    for e in &report.removed {
        out.push_str(&format!(
            "{verb} {} ({}, {}, {} old): {}\n",
            e.id,
            e.outcome,
            human_bytes(e.bytes),
            human_age(e.age),
            e.removed
        ));
    }
    for e in &report.failed {
        out.push_str(&format!(
            "FAILED to remove {}: {}\n",
            e.id,
            e.note.as_deref().unwrap_or("")
        ));
    }
    for e in &report.kept {
        out.push_str(&format!(
            "kept {} ({}, {} old): {}\n",
            e.id,
            e.outcome,
            human_age(e.age),
            e.note.as_deref().unwrap_or("")
        ));
    }
    let freed: u64 = report.removed.iter().map(|e| e.bytes).sum();
    out.push_str(&format!(
        "{} session(s) {}, {} {}; {} kept\n",
        report.removed.len(),
        if dry_run {
            "would be removed"
        } else {
            "removed"
        },
        human_bytes(freed),
        if dry_run {
            "would be freed (dry run)"
        } else {
            "freed"
        },
        report.kept.len()
    ));
    out
}

fn outcome_word(s: &SessionSummary) -> String {
    s.outcome
        .map(|o| o.word().to_string())
        .unwrap_or_else(|| "unfinished".to_string())
}

fn last_activity(paths: &SessionPaths) -> Option<SystemTime> {
    [&paths.events, &paths.meta, &paths.dir]
        .iter()
        .find_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

/// Bytes of the files under `dir` (symlinks not followed).
fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.1} kB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn human_age(age: Duration) -> String {
    let s = age.as_secs();
    match s {
        s if s >= 86_400 => format!("{} days", s / 86_400),
        s if s >= 3_600 => format!("{} h", s / 3_600),
        s if s >= 60 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ages_read_well() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 << 20), "3.0 MB");
        assert_eq!(human_age(Duration::from_secs(3 * 86_400 + 5)), "3 days");
        assert_eq!(human_age(Duration::from_secs(42)), "42 s");
    }
}
