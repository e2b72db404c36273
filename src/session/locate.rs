//! Finding a session from what the user typed on the command line: a session folder, its
//! `events.jsonl`, a session id of the project, or an unambiguous part of one (`7f3a`,
//! `20261129-1930`), or `last` for the newest session.

use super::error::SessionError;
use super::paths::SessionPaths;
use std::path::Path;

/// The session `arg` names, looked up among the sessions of `project` unless it is a path.
/// The folder is made absolute, so paths recorded from it stay valid in another directory.
pub fn resolve_session(arg: &str, project: &Path) -> Result<SessionPaths, SessionError> {
    resolve(arg, project).map(|paths| match paths.dir.canonicalize() {
        Ok(dir) => SessionPaths::from_dir(&dir),
        Err(_) => paths,
    })
}

fn resolve(arg: &str, project: &Path) -> Result<SessionPaths, SessionError> {
    let as_path = Path::new(arg);
    if as_path.is_file() && as_path.file_name().is_some_and(|n| n == "events.jsonl") {
        let dir = as_path.parent().unwrap_or(Path::new("."));
        return Ok(SessionPaths::from_dir(dir));
    }
    if as_path.is_dir()
        && (as_path.join("events.jsonl").exists() || as_path.join("meta.json").exists())
    {
        return Ok(SessionPaths::from_dir(as_path));
    }
    let root = SessionPaths::sessions_root(project);
    let mut ids: Vec<String> = match std::fs::read_dir(&root) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(SessionError::io("list", &root, e)),
    };
    ids.sort();
    if arg == "last" {
        if let Some(id) = ids.last() {
            return Ok(SessionPaths::from_dir(&root.join(id)));
        }
    }
    if ids.iter().any(|id| id == arg) {
        return Ok(SessionPaths::from_dir(&root.join(arg)));
    }
    let matching: Vec<&String> = ids.iter().filter(|id| id.contains(arg)).collect();
    match matching.as_slice() {
        [one] => Ok(SessionPaths::from_dir(&root.join(one))),
        [] => Err(SessionError::NotFound {
            arg: arg.to_string(),
            root,
            known: summarize_ids(&ids),
        }),
        many => Err(SessionError::Ambiguous {
            arg: arg.to_string(),
            matches: many
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

fn summarize_ids(ids: &[String]) -> String {
    match ids.len() {
        0 => "none".to_string(),
        n if n <= 5 => ids.join(", "),
        n => format!("{} … ({n} in all)", ids[n - 5..].join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_id_part_path_and_last() {
        let project = tempfile::tempdir().unwrap();
        let root = SessionPaths::sessions_root(project.path());
        for id in ["20261129-193012-7f3a", "20261130-080000-0b1c"] {
            std::fs::create_dir_all(root.join(id)).unwrap();
            std::fs::write(root.join(id).join("events.jsonl"), "").unwrap();
        }
        let p = project.path();
        let root = root.canonicalize().unwrap();
        let dir = |id: &str| root.join(id);
        assert_eq!(
            resolve_session("7f3a", p).unwrap().dir,
            dir("20261129-193012-7f3a")
        );
        assert_eq!(
            resolve_session("last", p).unwrap().dir,
            dir("20261130-080000-0b1c")
        );
        let by_path = dir("20261129-193012-7f3a");
        assert_eq!(
            resolve_session(by_path.to_str().unwrap(), Path::new("/nowhere"))
                .unwrap()
                .dir,
            by_path
        );
        let events = by_path.join("events.jsonl");
        assert_eq!(
            resolve_session(events.to_str().unwrap(), Path::new("/nowhere"))
                .unwrap()
                .dir,
            by_path
        );
        let err = resolve_session("2026", p).unwrap_err().to_string();
        assert!(err.contains("matches 2 sessions"), "{err}");
        let err = resolve_session("nope", p).unwrap_err().to_string();
        assert!(err.contains("20261129-193012-7f3a"), "{err}");
    }
}
