//! Where each file of a session lives: `<project>/.aipc/sessions/<id>/…`.

use std::path::{Path, PathBuf};

/// The files and folders of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPaths {
    /// `<project>/.aipc/sessions/<id>/`
    pub dir: PathBuf,
    /// `events.jsonl`: one `EventEnvelope` JSON per line.
    pub events: PathBuf,
    /// `meta.json`
    pub meta: PathBuf,
    /// `report.md`
    pub report_md: PathBuf,
    /// `report.json`
    pub report_json: PathBuf,
    /// `worktree/`: the session's git worktree (made by the git layer).
    pub worktree: PathBuf,
    /// `logs/`: full command logs.
    pub logs: PathBuf,
}

impl SessionPaths {
    /// The paths of session `id` of `project`.
    pub fn new(project: &Path, id: &str) -> Self {
        Self::from_dir(&Self::sessions_root(project).join(id))
    }

    /// The paths of the session stored in `dir`.
    pub fn from_dir(dir: &Path) -> Self {
        SessionPaths {
            dir: dir.to_path_buf(),
            events: dir.join("events.jsonl"),
            meta: dir.join("meta.json"),
            report_md: dir.join("report.md"),
            report_json: dir.join("report.json"),
            worktree: dir.join("worktree"),
            logs: dir.join("logs"),
        }
    }

    /// `<project>/.aipc/sessions`, the folder holding every session of a project.
    pub fn sessions_root(project: &Path) -> PathBuf {
        project.join(".aipc").join("sessions")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let p = SessionPaths::new(Path::new("/proj"), "20261129-193012-7f3a");
        assert_eq!(
            p.dir,
            PathBuf::from("/proj/.aipc/sessions/20261129-193012-7f3a")
        );
        assert_eq!(p.events, p.dir.join("events.jsonl"));
        assert_eq!(p.meta, p.dir.join("meta.json"));
        assert_eq!(p.report_md, p.dir.join("report.md"));
        assert_eq!(p.report_json, p.dir.join("report.json"));
        assert_eq!(p.worktree, p.dir.join("worktree"));
        assert_eq!(p.logs, p.dir.join("logs"));
        assert_eq!(SessionPaths::from_dir(&p.dir), p);
    }
}
