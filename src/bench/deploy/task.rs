//! DeployBench tasks: one folder per task under `tests/deploybench/tasks/<name>/` with a
//! `task.toml` naming the project to deploy, the target, and what a success is.
//!
//! ```toml
//! description = "Clean CNN on digits, FP32 + INT8"
//! project = "examples/digits-cnn"      # relative to the aipc data dir; or "project" (inside the task)
//! target = "onnxruntime-cpu"
//! covers = ["clean", "cnn"]            # free-form labels for the table
//! overlay = "overlay"                  # optional: files copied over the project copy (e.g. aipc.toml)
//! [expect]
//! stages = ["export", "inspect"]       # optional: stages that must pass; default: the whole deployment
//! ```
//!
//! The expectation only says what counts as success; whether it happened is read from the
//! session's own report (checks on artifacts built in that run), never from the task.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A task as loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub name: String,
    pub description: String,
    /// The project folder to copy for each run.
    pub project: PathBuf,
    pub target: String,
    pub covers: Vec<String>,
    /// Folder whose files are copied over the project copy.
    pub overlay: Option<PathBuf>,
    /// Stages that must pass; empty: the session must end `deployed`.
    pub expect_stages: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTask {
    #[serde(default)]
    description: String,
    project: String,
    target: String,
    #[serde(default)]
    covers: Vec<String>,
    overlay: Option<String>,
    #[serde(default)]
    expect: RawExpect,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    #[serde(default)]
    stages: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("no tasks in {dir} match {pattern:?}")]
    NoneMatch { dir: String, pattern: String },
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// Load every task under `tasks_dir` whose name matches `pattern` (a glob; `*` for all), in
/// name order. `data_dir` resolves `project` paths that are not inside the task folder.
pub fn load_tasks(
    tasks_dir: &Path,
    data_dir: &Path,
    pattern: &str,
) -> Result<Vec<Task>, TaskError> {
    let matcher = globset::Glob::new(pattern)
        .map_err(|e| TaskError::Invalid {
            path: pattern.to_string(),
            message: format!("bad --tasks glob: {e}"),
        })?
        .compile_matcher();
    let entries = std::fs::read_dir(tasks_dir).map_err(|source| TaskError::Io {
        path: tasks_dir.display().to_string(),
        source,
    })?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("task.toml").is_file())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| matcher.is_match(n))
        })
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        return Err(TaskError::NoneMatch {
            dir: tasks_dir.display().to_string(),
            pattern: pattern.to_string(),
        });
    }
    dirs.iter().map(|d| load_task(d, data_dir)).collect()
}

/// Load one task folder.
pub fn load_task(dir: &Path, data_dir: &Path) -> Result<Task, TaskError> {
    let path = dir.join("task.toml");
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|source| TaskError::Io {
        path: shown.clone(),
        source,
    })?;
    let raw: RawTask = toml::from_str(&text).map_err(|e| TaskError::Invalid {
        path: shown.clone(),
        message: match e.span() {
            Some(span) => format!(
                "line {}: {}",
                text[..span.start.min(text.len())].matches('\n').count() + 1,
                e.message()
            ),
            None => e.message().to_string(),
        },
    })?;
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let in_task = dir.join(&raw.project);
    let project = if in_task.is_dir() {
        in_task
    } else {
        data_dir.join(&raw.project)
    };
    if !project.is_dir() {
        return Err(TaskError::Invalid {
            path: shown,
            message: format!(
                "project {:?} is neither a folder in the task nor in {}",
                raw.project,
                data_dir.display()
            ),
        });
    }
    let overlay = match raw.overlay {
        Some(o) => {
            let p = dir.join(&o);
            if !p.is_dir() {
                return Err(TaskError::Invalid {
                    path: shown,
                    message: format!("overlay {o:?} is not a folder in the task"),
                });
            }
            Some(p)
        }
        None => None,
    };
    Ok(Task {
        name,
        description: raw.description,
        project,
        target: raw.target,
        covers: raw.covers,
        overlay,
        expect_stages: raw.expect.stages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn loads_tasks_in_name_order_with_glob() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir_all(data.join("examples/a")).unwrap();
        let tasks = tmp.path().join("tasks");
        write(
            &tasks.join("b-task/task.toml"),
            "project = \"examples/a\"\ntarget = \"t\"\n",
        );
        write(
            &tasks.join("a-task/task.toml"),
            "project = \"examples/a\"\ntarget = \"t\"\n[expect]\nstages = [\"export\"]\n",
        );
        let all = load_tasks(&tasks, &data, "*").unwrap();
        assert_eq!(
            all.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["a-task", "b-task"]
        );
        assert_eq!(all[0].expect_stages, ["export"]);
        let some = load_tasks(&tasks, &data, "b-*").unwrap();
        assert_eq!(some.len(), 1);
        assert!(matches!(
            load_tasks(&tasks, &data, "zzz"),
            Err(TaskError::NoneMatch { .. })
        ));
    }

    #[test]
    fn bad_task_names_file_and_line() {
        let tmp = tempfile::tempdir().unwrap();
        let tasks = tmp.path().join("tasks");
        write(
            &tasks.join("x/task.toml"),
            "project = \"p\"\ntarget = \"t\"\ntargte = 3\n",
        );
        std::fs::create_dir_all(tasks.join("x/p")).unwrap();
        let err = load_task(&tasks.join("x"), tmp.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("task.toml") && err.contains("line 3"), "{err}");
        write(
            &tasks.join("y/task.toml"),
            "project = \"nope\"\ntarget = \"t\"\n",
        );
        let err = load_task(&tasks.join("y"), tmp.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("neither a folder"), "{err}");
    }
}
