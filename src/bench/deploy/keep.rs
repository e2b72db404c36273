//! What a DeployBench run leaves for the record (`aipc bench deploy --keep-failed <dir>`): the
//! table (`deploybench.md`, `deploybench.json`) and the session of every run that did not
//! succeed, copied out of the output folder — whose project copies and worktrees are large and
//! temporary — into a results folder, one `sessions/<task>.<arm>.t<trial>/` each, so that
//! `aipc replay` can play a failure after the output folder is gone.

use super::BenchDeployReport;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The files of a session that replay and the report need (not its worktree, not its tool logs).
const SESSION_FILES: &[&str] = &["events.jsonl", "meta.json", "report.json", "report.md"];

/// What [`keep_failed`] copied.
#[derive(Debug, Default, PartialEq)]
pub struct Kept {
    /// The session folders written under the results folder.
    pub sessions: Vec<PathBuf>,
    /// Runs that did not succeed and have no session to keep (the run errored before its
    /// session began), as `<task>.<arm>.t<trial>`.
    pub without_session: Vec<String>,
}

/// Copy the table from `out_dir` and the sessions of `report`'s unsuccessful runs into `dest`
/// (created when missing). A session folder already in `dest` under the same name is replaced.
pub fn keep_failed(report: &BenchDeployReport, out_dir: &Path, dest: &Path) -> Result<Kept> {
    std::fs::create_dir_all(dest)
        .with_context(|| format!("creating the results folder {}", dest.display()))?;
    for table in ["deploybench.md", "deploybench.json"] {
        let from = out_dir.join(table);
        std::fs::copy(&from, dest.join(table))
            .with_context(|| format!("copying {} into {}", from.display(), dest.display()))?;
    }
    let mut kept = Kept::default();
    for run in report.runs.iter().filter(|r| !r.success) {
        let label = format!("{}.{}.t{}", run.task, run.arm, run.trial);
        let session = Path::new(&run.session);
        if run.session.is_empty() || !session.join("events.jsonl").is_file() {
            kept.without_session.push(label);
            continue;
        }
        let target = dest.join("sessions").join(&label);
        if target.exists() {
            std::fs::remove_dir_all(&target)
                .with_context(|| format!("replacing {}", target.display()))?;
        }
        std::fs::create_dir_all(&target)
            .with_context(|| format!("creating {}", target.display()))?;
        for file in SESSION_FILES {
            let from = session.join(file);
            if from.is_file() {
                std::fs::copy(&from, target.join(file))
                    .with_context(|| format!("copying {}", from.display()))?;
            }
        }
        kept.sessions.push(target);
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::deploy::RunRecord;

    fn run(task: &str, trial: u32, success: bool, session: &Path) -> RunRecord {
        RunRecord {
            task: task.into(),
            target: "onnxruntime-cpu".into(),
            arm: "skills".into(),
            trial,
            outcome: if success { "deployed" } else { "failed" }.into(),
            success,
            stage_reached: "export".into(),
            repair_attempts: 0,
            model_turns: 1,
            tokens: 1,
            model_time_s: 0.0,
            toolchain_time_s: 0.0,
            wall_s: 1.0,
            human_interventions: 0,
            exit_code: Some(0),
            session: session.display().to_string(),
            note: String::new(),
            figures: Default::default(),
        }
    }

    fn session(root: &Path, name: &str) -> PathBuf {
        let dir = root.join(name);
        std::fs::create_dir_all(dir.join("worktree")).unwrap();
        for file in SESSION_FILES {
            std::fs::write(dir.join(file), format!("{name} {file}")).unwrap();
        }
        std::fs::write(dir.join("worktree/model.py"), "x").unwrap();
        dir
    }

    #[test]
    fn the_table_and_only_the_failed_sessions_are_kept_without_their_worktrees() {
        let out = tempfile::tempdir().unwrap();
        let dest = tempfile::tempdir().unwrap();
        let dest = dest.path().join("results/skills");
        std::fs::write(out.path().join("deploybench.md"), "| table |").unwrap();
        std::fs::write(out.path().join("deploybench.json"), "{}").unwrap();
        let deployed = session(out.path(), "s1");
        let failed = session(out.path(), "s2");
        let report = BenchDeployReport::new(vec![
            run("cnn-et", 1, true, &deployed),
            run("cnn-et", 2, false, &failed),
            run("cnn-et", 3, false, Path::new("")),
        ]);
        let kept = keep_failed(&report, out.path(), &dest).unwrap();
        let t2 = dest.join("sessions/cnn-et.skills.t2");
        assert_eq!(kept.sessions, vec![t2.clone()]);
        assert_eq!(kept.without_session, vec!["cnn-et.skills.t3".to_string()]);
        assert_eq!(
            std::fs::read_to_string(t2.join("events.jsonl")).unwrap(),
            "s2 events.jsonl"
        );
        assert!(!t2.join("worktree").exists());
        assert!(!dest.join("sessions/cnn-et.skills.t1").exists());
        assert_eq!(
            std::fs::read_to_string(dest.join("deploybench.md")).unwrap(),
            "| table |"
        );
        // Kept again (a re-run into the same folder): replaced, not merged.
        std::fs::write(t2.join("stale.txt"), "old").unwrap();
        keep_failed(&report, out.path(), &dest).unwrap();
        assert!(!t2.join("stale.txt").exists());
    }

    #[test]
    fn a_missing_table_is_an_error_naming_it() {
        let out = tempfile::tempdir().unwrap();
        let dest = tempfile::tempdir().unwrap();
        let report = BenchDeployReport::new(Vec::new());
        let error = keep_failed(&report, out.path(), dest.path()).unwrap_err();
        assert!(format!("{error:#}").contains("deploybench.md"), "{error:#}");
    }
}
