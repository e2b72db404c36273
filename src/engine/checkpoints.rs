//! The session's git side as the stage loop uses it: an attempt's work committed, the build
//! outputs it left recorded with their hashes, and a rollback to a stage's checkpoint (files
//! and the conversation state the checkpoint keeps). Files a commit had to leave out (names git
//! cannot store) are recorded and told to the model; they never fail the commit.

use super::Engine;
use crate::checkpoint::LeftOut;
use crate::protocol::{Event, NotCommitted};

impl Engine {
    pub(super) fn commit_attempt(&mut self, stage: &str, attempt: u32) -> Result<(), String> {
        let outcome = self
            .repo
            .commit_all(&format!("aipc: {stage} attempt {attempt}"))
            .map_err(|e| format!("git commit of {stage} attempt {attempt}: {e}"))?;
        if let Some(info) = outcome.commit {
            self.bus.emit(Event::AttemptCommitted {
                stage: stage.to_string(),
                attempt,
                commit: info.commit,
                files_changed: info.files_changed,
            });
        }
        self.report_left_out(stage, outcome.left_out);
        Ok(())
    }

    /// Files a commit left out: a `files_not_committed` event, and a note for the model's next
    /// turn saying which and why (a command made them; no tool writes such a name).
    fn report_left_out(&mut self, stage: &str, left_out: Vec<LeftOut>) {
        if left_out.is_empty() {
            return;
        }
        let files: Vec<NotCommitted> = left_out
            .into_iter()
            .map(|l| NotCommitted {
                path: l.path,
                reason: l.reason,
            })
            .collect();
        let mut note = String::from(
            "These files are not in the session's commits, because git cannot store their \
             names; checkpoints, rollbacks and resumes do not keep them:\n",
        );
        for file in &files {
            note.push_str(&format!("- `{}`: {}\n", file.path, file.reason));
        }
        note.push_str(
            "If the work needs them, give them ordinary names (never `.git` in any spelling).",
        );
        self.pending_notes.push(note);
        self.bus.emit(Event::FilesNotCommitted {
            stage: stage.to_string(),
            files,
        });
    }

    pub(super) fn record_artifacts(&mut self, stage: &str) {
        let artifacts = match self.repo.artifacts() {
            Ok(artifacts) => artifacts,
            Err(e) => {
                self.bus.emit(Event::EngineError {
                    message: format!("cannot hash build outputs: {e}"),
                });
                return;
            }
        };
        for artifact in artifacts {
            if self.artifact_hashes.get(&artifact.path) == Some(&artifact.sha256) {
                continue;
            }
            self.artifact_hashes
                .insert(artifact.path.clone(), artifact.sha256.clone());
            self.bus.emit(Event::ArtifactRecorded {
                stage: stage.to_string(),
                path: artifact.path,
                sha256: artifact.sha256,
                bytes: artifact.bytes,
            });
        }
    }

    /// Restore files and conversation state to a stage's checkpoint; returns the index of the
    /// stage to run next.
    pub(super) fn rollback(&mut self, tag: &str) -> Result<usize, String> {
        let prefix = format!("aipc/{}/", self.setup.session_id);
        let stage_name = tag.strip_prefix(&prefix).unwrap_or(tag);
        let index = self
            .setup
            .contract
            .stages
            .iter()
            .position(|s| s.name == stage_name)
            .ok_or_else(|| format!("rollback: no stage checkpoint named {tag}"))?;
        let full_tag = format!("{prefix}{stage_name}");
        if let Err(e) = self
            .repo
            .commit_all("aipc: work in progress before rollback")
        {
            return Err(format!("git commit before rollback: {e}"));
        }
        let info = self
            .repo
            .rollback_to(&full_tag)
            .map_err(|e| format!("rollback to {full_tag}: {e}"))?;
        self.done.truncate(index + 1);
        self.pending_notes.clear();
        self.bus.emit(Event::RolledBack {
            stage: stage_name.to_string(),
            to_tag: full_tag,
            commit: info.commit,
            previous_head: info.previous_head,
        });
        Ok(index + 1)
    }
}
