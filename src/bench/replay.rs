//! `aipc bench replay`, the replay controller's part: opening a recorded session in the
//! TUI's replay controller (every event applied once, snapshots taken) and random seeks and
//! steps back through it. The synthetic session and the log's own figures come from
//! [`crate::session::synth`].

use crate::session::Recording;
use crate::tui::logbuf::{LogBuf, DEFAULT_MEMORY_CAP};
use crate::tui::player::{Replay, ReplayCommand, Speed};
use serde::Serialize;
use std::time::Instant;

/// The figures of seeking through the controller (`aipc bench replay`).
#[derive(Debug, Clone, Serialize)]
pub struct SeekBench {
    /// Building the controller: apply every event once, taking the snapshots.
    pub open_ms: f64,
    pub snapshots: usize,
    pub snapshot_interval: usize,
    pub seeks: usize,
    /// Seek to a random position (forwards or backwards), the state rebuilt.
    pub seek_avg_ms: f64,
    pub seek_max_ms: f64,
    /// One step back from a random position (the slowest direction).
    pub step_back_avg_ms: f64,
    pub step_back_max_ms: f64,
}

/// Build a controller over `recording` and time `seeks` random seeks and steps back.
pub fn bench_seeks(recording: Recording, seeks: usize) -> SeekBench {
    let started = Instant::now();
    let mut replay = Replay::new(
        recording,
        LogBuf::new(None, DEFAULT_MEMORY_CAP),
        Speed::NORMAL,
        true,
    );
    let open_ms = ms(started);
    let len = replay.len();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        // xorshift64: the same targets every run, so runs compare.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % (len as u64 + 1)) as usize
    };
    let (mut seek_total, mut seek_max) = (0.0f64, 0.0f64);
    let (mut back_total, mut back_max) = (0.0f64, 0.0f64);
    for _ in 0..seeks {
        let target = next();
        let started = Instant::now();
        replay.seek(target);
        let took = ms(started);
        seek_total += took;
        seek_max = seek_max.max(took);
        let started = Instant::now();
        replay.command(ReplayCommand::StepBack);
        let took = ms(started);
        back_total += took;
        back_max = back_max.max(took);
    }
    let avg = |total: f64| if seeks > 0 { total / seeks as f64 } else { 0.0 };
    SeekBench {
        open_ms,
        snapshots: replay.snapshot_count(),
        snapshot_interval: replay.snapshot_interval(),
        seeks,
        seek_avg_ms: avg(seek_total),
        seek_max_ms: seek_max,
        step_back_avg_ms: avg(back_total),
        step_back_max_ms: back_max,
    }
}

impl SeekBench {
    pub fn to_text(&self) -> String {
        let verdict = |ok: bool| if ok { "ok" } else { "OVER TARGET" };
        let target = crate::session::synth::TARGET_SEEK_MS;
        format!(
            "replay controller: open (apply all, {} snapshots every {} events): {:.1} ms\n\
             controller seek ({} random, state rebuilt): avg {:.2} ms, max {:.2} ms   target <= {:.0} ms: {}\n\
             controller step back:                       avg {:.2} ms, max {:.2} ms   target <= {:.0} ms: {}\n",
            self.snapshots,
            self.snapshot_interval,
            self.open_ms,
            self.seeks,
            self.seek_avg_ms,
            self.seek_max_ms,
            target,
            verdict(self.seek_max_ms <= target),
            self.step_back_avg_ms,
            self.step_back_max_ms,
            target,
            verdict(self.step_back_max_ms <= target),
        )
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}
