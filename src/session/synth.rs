//! Synthetic sessions of any size, and the replay benchmark over them (`aipc bench replay`).
//!
//! The generator writes a session folder whose events have the mix of a real one: per model
//! turn a request, streamed deltas, the reply, a tool call with its policy decision, output
//! lines and observation, sometimes a file diff; per attempt checks with output and gates,
//! evidence on failure, a commit; per stage a checkpoint. The benchmark then measures what a
//! viewer does: open the session (read, parse, check, index), render the whole transcript, and
//! seek (jump to a seq, find its stage, take a screenful of events).

use super::error::SessionError;
use super::markdown::{render_markdown, TranscriptOptions};
use super::meta::{write_meta, Meta};
use super::paths::SessionPaths;
use super::recording::{Recording, RecordingIndex};
use crate::protocol::{
    CallStatus, Decider, Event, EventEnvelope, Evidence, FileDiff, GateResult, Outcome,
    OutputStream, Policy, EVENT_FORMAT_VERSION,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Write a synthetic session of exactly `events` events into `dir` (created; must not hold a
/// log yet).
pub fn write_synthetic_session(dir: &Path, events: usize) -> Result<SessionPaths, SessionError> {
    let paths = SessionPaths::from_dir(dir);
    std::fs::create_dir_all(dir).map_err(|e| SessionError::io("create the folder", dir, e))?;
    write_meta(
        &paths.meta,
        &Meta {
            format_version: EVENT_FORMAT_VERSION,
            session_id: "synthetic".to_string(),
            created: super::now_rfc3339(),
            project: dir.display().to_string(),
            target: "synthetic".to_string(),
            model: "synthetic".to_string(),
            batch: true,
            aipc_version: env!("CARGO_PKG_VERSION").to_string(),
            contract: serde_json::Value::Null,
            extra: BTreeMap::new(),
        },
    )?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&paths.events)
        .map_err(|e| SessionError::io("create", &paths.events, e))?;
    let mut out = std::io::BufWriter::new(file);
    let mut seq = 0u64;
    let mut emit = |event: Event| -> Result<bool, SessionError> {
        if seq as usize >= events {
            return Ok(false);
        }
        let env = EventEnvelope {
            seq,
            ts_ms: 1_800_000_000_000 + seq * 7,
            event,
        };
        serde_json::to_writer(&mut out, &env).map_err(|source| SessionError::Encode {
            path: paths.events.clone(),
            source,
        })?;
        out.write_all(b"\n")
            .map_err(|e| SessionError::io("write to", &paths.events, e))?;
        seq += 1;
        Ok(true)
    };
    generate(events, &mut emit)?;
    out.flush()
        .map_err(|e| SessionError::io("write to", &paths.events, e))?;
    Ok(paths)
}

/// Feed `emit` a plausible session until it returns false (it has had enough events).
fn generate(
    total: usize,
    emit: &mut dyn FnMut(Event) -> Result<bool, SessionError>,
) -> Result<(), SessionError> {
    // Enough stages that the session fills `total` events at ~60 events per attempt.
    let stages: Vec<String> = (0..(total / 2_000).max(3))
        .map(|i| format!("stage{i}"))
        .collect();
    let per_stage = total / stages.len() + 1;
    if !emit(Event::SessionStarted {
        session_id: "synthetic".into(),
        project: "/work/project".into(),
        target: "synthetic".into(),
        model: "synthetic".into(),
        worktree: "/work/project/.aipc/sessions/synthetic/worktree".into(),
        branch: "aipc/synthetic".into(),
        base_commit: "0".repeat(40),
        batch: true,
        stages: stages.clone(),
        context_size: 0,
        token_budget: 0,
        wall_time_s: 0,
    })? {
        return Ok(());
    }
    let observation =
        "line of tool output with some numbers 0.123 and a path src/model.py\n".repeat(5);
    let mut request_id = 0u64;
    let mut call = 0u64;
    let emitted = std::cell::Cell::new(1usize);
    let count = |ok: bool| {
        emitted.set(emitted.get() + usize::from(ok));
        ok
    };
    for (index, stage) in stages.iter().enumerate() {
        let stage_end = ((index + 1) * per_stage).min(total.saturating_sub(1));
        if !count(emit(Event::StageStarted {
            stage: stage.clone(),
            index,
            goal: "Export the model and make the artifact agree with the eager model.".into(),
            max_attempts: 1000,
        })?) {
            return Ok(());
        }
        let mut attempt = 0u32;
        while emitted.get() < stage_end {
            attempt += 1;
            count(emit(Event::AttemptStarted {
                stage: stage.clone(),
                attempt,
                max_attempts: 1000,
            })?);
            for turn in 0..4 {
                call += 1;
                let call_id = format!("{stage}.{call}");
                let reply = format!(
                    "{{\"thought\":\"turn {turn}\",\"tool\":\"run\",\"args\":{{\"command\":\"python3 export.py\"}}}}"
                );
                let mut events = vec![Event::ModelRequest {
                    request_id,
                    stage: stage.clone(),
                    new_messages: vec![("tool".into(), observation.clone())],
                    total_messages: 4 + turn * 2,
                    tools: vec!["read_file".into(), "run".into(), "finish_stage".into()],
                }];
                for piece in reply.as_bytes().chunks(16) {
                    events.push(Event::ModelDelta {
                        request_id,
                        text: String::from_utf8_lossy(piece).into_owned(),
                    });
                }
                events.push(Event::ModelResponse {
                    request_id,
                    text: reply.clone(),
                    prompt_tokens: 1500,
                    completion_tokens: 30,
                    cached_tokens: 1200,
                    duration_ms: 800,
                });
                events.push(Event::ToolCallProposed {
                    call_id: call_id.clone(),
                    tool: "run".into(),
                    args: serde_json::json!({"command": "python3 export.py"}),
                    thought: Some(format!("turn {turn}")),
                    policy: Policy::Allow,
                });
                events.push(Event::ToolCallApproved {
                    call_id: call_id.clone(),
                    by: Decider::Policy,
                });
                events.push(Event::ToolCallStarted {
                    call_id: call_id.clone(),
                    tool: "run".into(),
                });
                for line in observation.lines() {
                    events.push(Event::ToolOutput {
                        call_id: call_id.clone(),
                        stream: OutputStream::Stdout,
                        line: line.to_string(),
                    });
                }
                if turn == 1 {
                    events.push(Event::FileChanged {
                        call_id: Some(call_id.clone()),
                        diff: FileDiff {
                            path: "export.py".into(),
                            unified: "--- a/export.py\n+++ b/export.py\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n".into(),
                            added: 1,
                            removed: 1,
                        },
                    });
                }
                events.push(Event::ToolCallFinished {
                    call_id,
                    ok: true,
                    status: CallStatus::Ok,
                    observation: observation.clone(),
                    exit_code: Some(0),
                    duration_ms: 150,
                });
                request_id += 1;
                for event in events {
                    if !count(emit(event)?) {
                        return Ok(());
                    }
                }
            }
            let check_id = format!("{stage}.a{attempt}.c1");
            let passed = emitted.get() + 40 >= stage_end;
            let mut events = vec![Event::CheckStarted {
                check_id: check_id.clone(),
                stage: stage.clone(),
                name: "artifact matches eager".into(),
                command: Some("python3 compare.py build/model.json".into()),
            }];
            for line in observation.lines() {
                events.push(Event::CheckOutput {
                    check_id: check_id.clone(),
                    stream: OutputStream::Stdout,
                    line: line.to_string(),
                });
            }
            let cosine = if passed { 0.9999 } else { 0.93 };
            events.push(Event::CheckResult {
                check_id,
                passed,
                exit_code: Some(0),
                detail: if passed {
                    String::new()
                } else {
                    "gates failed: cosine >= 0.99 (measured 0.93)".into()
                },
                metrics: BTreeMap::from([("cosine".to_string(), cosine)]),
                gates: vec![GateResult {
                    expr: "cosine >= 0.99".into(),
                    measured: Some(cosine),
                    passed,
                }],
                duration_ms: 300,
                skipped: None,
            });
            if passed {
                events.push(Event::CheckpointMade {
                    stage: stage.clone(),
                    commit: "1".repeat(40),
                    tag: format!("aipc/synthetic/{stage}"),
                });
                events.push(Event::StagePassed {
                    stage: stage.clone(),
                    attempts: attempt,
                    duration_ms: 60_000,
                });
            } else {
                events.push(Event::EvidenceCollected {
                    stage: stage.clone(),
                    attempt,
                    evidence: Evidence {
                        signature: "gate:cosine".into(),
                        failed_check: "artifact matches eager".into(),
                        excerpt: observation.clone(),
                        ..Evidence::default()
                    },
                });
            }
            for event in events {
                if !count(emit(event)?) {
                    return Ok(());
                }
            }
            if passed {
                break;
            }
        }
    }
    emit(Event::SessionFinished {
        outcome: Outcome::Deployed,
        exit_code: 0,
        report: None,
        duration_ms: total as u64 * 7,
    })?;
    Ok(())
}

/// The figures of one replay benchmark run.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayBench {
    pub events: usize,
    pub log_bytes: u64,
    pub write_ms: f64,
    /// Read, parse, check and index the log (and meta.json).
    pub open_ms: f64,
    /// Render the whole Markdown transcript.
    pub render_ms: f64,
    pub transcript_bytes: usize,
    pub seeks: usize,
    /// One seek: find the seq, its stage, and collect a screenful (60) of events from there.
    pub seek_avg_ms: f64,
    pub seek_max_ms: f64,
}

/// Target: open + render of the whole session within this.
pub const TARGET_OPEN_RENDER_MS: f64 = 1_000.0;
/// Target: one seek within this.
pub const TARGET_SEEK_MS: f64 = 100.0;

/// Generate a session of `events` events in `dir`, then measure opening, rendering and seeking.
pub fn bench_replay(dir: &Path, events: usize, seeks: usize) -> Result<ReplayBench, SessionError> {
    let started = Instant::now();
    let paths = write_synthetic_session(dir, events)?;
    let write_ms = ms(started);
    let log_bytes = std::fs::metadata(&paths.events)
        .map(|m| m.len())
        .unwrap_or_default();
    let started = Instant::now();
    let recording = Recording::open(&paths)?;
    let open_ms = ms(started);
    let started = Instant::now();
    let transcript = render_markdown(&recording, &TranscriptOptions::default());
    let render_ms = ms(started);
    let (mut total, mut max) = (0.0f64, 0.0f64);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut checksum = 0usize;
    let last_seq = recording.events().last().map_or(0, |e| e.seq);
    for _ in 0..seeks {
        // xorshift64: a fixed sequence of targets, so runs compare.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let target = state % (last_seq + 1);
        let started = Instant::now();
        let pos = recording.seek(target);
        let stage = RecordingIndex::at_or_before(&recording.index().stage_starts, pos);
        let screen = &recording.events()[pos..(pos + 60).min(recording.len())];
        checksum += screen.len() + stage.map_or(0, |m| m.pos);
        let took = ms(started);
        total += took;
        max = max.max(took);
    }
    // Keep the work observable so it is not optimised away.
    if checksum == usize::MAX {
        eprintln!("{checksum}");
    }
    Ok(ReplayBench {
        events: recording.len(),
        log_bytes,
        write_ms,
        open_ms,
        render_ms,
        transcript_bytes: transcript.len(),
        seeks,
        seek_avg_ms: if seeks > 0 { total / seeks as f64 } else { 0.0 },
        seek_max_ms: max,
    })
}

impl ReplayBench {
    /// The figures with their targets, one per line.
    pub fn to_text(&self) -> String {
        let verdict = |ok: bool| if ok { "ok" } else { "OVER TARGET" };
        let open_render = self.open_ms + self.render_ms;
        let build = if cfg!(debug_assertions) {
            "note: a debug build (unoptimised JSON parsing dominates `open`; an optimised \
             build parses about ten times faster)\n"
        } else {
            ""
        };
        build.to_string()
            + &format!(
            "replay benchmark: {} events, log {:.1} MB (written in {:.0} ms)\n\
             open (read, parse, check, index): {:>8.1} ms\n\
             render transcript ({:.1} MB):      {:>8.1} ms\n\
             open + render:                    {:>8.1} ms   target <= {:.0} ms: {}\n\
             seek ({} random, seq -> stage -> 60 events): avg {:.4} ms, max {:.4} ms   target <= {:.0} ms: {}\n",
            self.events,
            self.log_bytes as f64 / 1e6,
            self.write_ms,
            self.open_ms,
            self.transcript_bytes as f64 / 1e6,
            self.render_ms,
            open_render,
            TARGET_OPEN_RENDER_MS,
            verdict(open_render <= TARGET_OPEN_RENDER_MS),
            self.seeks,
            self.seek_avg_ms,
            self.seek_max_ms,
            TARGET_SEEK_MS,
            verdict(self.seek_max_ms <= TARGET_SEEK_MS),
        )
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_session_has_exactly_the_events_asked_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let bench = bench_replay(&dir.path().join("s"), 3_000, 50).unwrap();
        assert_eq!(bench.events, 3_000);
        let recording = Recording::open(&SessionPaths::from_dir(&dir.path().join("s"))).unwrap();
        assert!(recording.index().stage_starts.len() >= 2);
        assert!(!recording.index().checkpoints.is_empty());
        assert!(bench.to_text().contains("target <= 1000 ms"));
    }
}
