//! Listing a project's sessions for `aipc sessions`: one summary per session folder, and the
//! plain-text table that shows them.
//!
//! A session whose `meta.json` or `events.jsonl` cannot be read is still listed, with what
//! could be read and the problem in [`SessionSummary::problem`].

use super::error::SessionError;
use super::id::rfc3339_from_ms;
use super::meta::read_meta;
use super::paths::SessionPaths;
use super::reader::{read_log, scan};
use crate::protocol::{Event, Outcome};
use std::path::{Path, PathBuf};

/// What `aipc sessions` shows about one session (`--json`: one object per session).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SessionSummary {
    /// The folder name.
    pub id: String,
    pub dir: PathBuf,
    /// RFC 3339 UTC from `meta.json` (or the first event's time); empty when unknown.
    pub created: String,
    pub target: String,
    pub model: String,
    /// From the `session_finished` event; `None` while running or when interrupted.
    pub outcome: Option<Outcome>,
    /// Count of `stage_passed` events.
    pub stages_passed: usize,
    /// Length of the `session_started` event's `stages`.
    pub stages_total: usize,
    /// Events that read fine.
    pub events: usize,
    /// The kind of the last event that read fine, e.g. `check_result`.
    pub last_event: Option<String>,
    /// What could not be read (unreadable meta, corrupt log, torn tail), if anything.
    pub problem: Option<String>,
}

/// The sessions of `project`, newest first (ids start with their UTC start time). A missing
/// sessions folder means no sessions. Only failing to list the folder itself is an error.
pub fn list_sessions(project: &Path) -> Result<Vec<SessionSummary>, SessionError> {
    let root = SessionPaths::sessions_root(project);
    let entries = match std::fs::read_dir(&root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SessionError::io("list", &root, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SessionError::io("list", &root, e))?;
        if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            out.push(summarize(&entry.path()));
        }
    }
    out.sort_by(|a, b| b.id.cmp(&a.id));
    Ok(out)
}

/// Summarize one session folder with whatever can be read from it.
fn summarize(dir: &Path) -> SessionSummary {
    let paths = SessionPaths::from_dir(dir);
    let mut s = SessionSummary {
        id: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        dir: dir.to_path_buf(),
        created: String::new(),
        target: String::new(),
        model: String::new(),
        outcome: None,
        stages_passed: 0,
        stages_total: 0,
        events: 0,
        last_event: None,
        problem: None,
    };
    let mut problems = Vec::new();
    let meta_ok = match read_meta(&paths.meta) {
        Ok(meta) => {
            s.created = meta.created;
            s.target = meta.target;
            s.model = meta.model;
            true
        }
        Err(e) => {
            problems.push(e.to_string());
            false
        }
    };
    match read_log(&paths.events) {
        Ok(bytes) => {
            let found = scan(&paths.events, &bytes);
            for env in &found.events {
                match &env.event {
                    Event::SessionStarted {
                        target,
                        model,
                        stages,
                        ..
                    } => {
                        s.stages_total = stages.len();
                        if !meta_ok {
                            s.target.clone_from(target);
                            s.model.clone_from(model);
                            s.created = rfc3339_from_ms(env.ts_ms);
                        }
                    }
                    Event::StagePassed { .. } => s.stages_passed += 1,
                    Event::SessionFinished { outcome, .. } => s.outcome = Some(*outcome),
                    _ => {}
                }
            }
            s.events = found.events.len();
            s.last_event = found.events.last().map(|e| e.event.kind().to_string());
            if let Some(err) = found.error {
                problems.push(err.to_string());
            }
            if let Some(torn) = found.torn_tail {
                problems.push(format!(
                    "{}:{}: torn last line ({} bytes), truncated on resume",
                    paths.events.display(),
                    torn.line,
                    torn.bytes
                ));
            }
        }
        Err(e) => problems.push(e.to_string()),
    }
    if !problems.is_empty() {
        s.problem = Some(problems.join("; "));
    }
    s
}

/// The plain-text table `aipc sessions` prints: one row per session, columns aligned, and the
/// problems of unreadable sessions listed under the table.
pub fn format_sessions_table(sessions: &[SessionSummary]) -> String {
    if sessions.is_empty() {
        return "no sessions\n".to_string();
    }
    let header = [
        "ID", "CREATED", "TARGET", "MODEL", "OUTCOME", "STAGES", "EVENTS", "LAST",
    ]
    .map(String::from);
    let mut rows = vec![header.to_vec()];
    for s in sessions {
        let outcome = match s.outcome {
            Some(Outcome::Deployed) => "deployed",
            Some(Outcome::Failed) => "failed",
            Some(Outcome::Aborted) => "aborted",
            Some(Outcome::Error) => "error",
            None => "unfinished",
        };
        let or_dash = |v: &str| {
            if v.is_empty() {
                "-".to_string()
            } else {
                v.to_string()
            }
        };
        rows.push(vec![
            s.id.clone(),
            or_dash(&s.created),
            or_dash(&s.target),
            or_dash(&s.model),
            outcome.to_string(),
            format!("{}/{}", s.stages_passed, s.stages_total),
            s.events.to_string(),
            or_dash(s.last_event.as_deref().unwrap_or("")),
        ]);
    }
    let mut widths = vec![0usize; header.len()];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', w - cell.chars().count()));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for s in sessions {
        if let Some(problem) = &s.problem {
            out.push_str(&format!("{}: {problem}\n", s.id));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(id: &str, outcome: Option<Outcome>) -> SessionSummary {
        SessionSummary {
            id: id.into(),
            dir: PathBuf::from(id),
            created: "2026-11-29T19:30:12Z".into(),
            target: "rk3588".into(),
            model: "qwen".into(),
            outcome,
            stages_passed: 2,
            stages_total: 3,
            events: 40,
            last_event: Some("session_finished".into()),
            problem: None,
        }
    }

    #[test]
    fn table_aligns_columns() {
        let mut broken = summary("20261129-000000-0001", None);
        broken.target = String::new();
        broken.problem = Some("meta.json: bad".into());
        let table = format_sessions_table(&[
            summary("20261130-000000-aaaa", Some(Outcome::Deployed)),
            broken,
        ]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].starts_with("ID  "));
        let col = lines[0].find("OUTCOME").unwrap();
        assert_eq!(&lines[1][col..col + 8], "deployed");
        assert_eq!(&lines[2][col..col + 10], "unfinished");
        assert!(lines[1].contains("2/3"));
        assert!(!lines[2].contains("rk3588") && lines[2].contains(" - "));
        assert_eq!(lines[3], "20261129-000000-0001: meta.json: bad");
    }

    #[test]
    fn empty_table() {
        assert_eq!(format_sessions_table(&[]), "no sessions\n");
    }
}
