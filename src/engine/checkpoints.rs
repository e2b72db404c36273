//! The session's git side as the stage loop uses it: an attempt's work committed, the build
//! outputs it left recorded with their hashes, and a rollback to a stage's checkpoint (files
//! and the conversation state the checkpoint keeps).

use super::Engine;
use crate::protocol::Event;

impl Engine {
    pub(super) fn commit_attempt(&mut self, stage: &str, attempt: u32) -> Result<(), String> {
        match self
            .repo
            .commit_all(&format!("aipc: {stage} attempt {attempt}"))
        {
            Ok(Some(info)) => {
                self.bus.emit(Event::AttemptCommitted {
                    stage: stage.to_string(),
                    attempt,
                    commit: info.commit,
                    files_changed: info.files_changed,
                });
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err(format!("git commit of {stage} attempt {attempt}: {e}")),
        }
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
