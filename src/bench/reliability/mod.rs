//! `aipc bench reliability`: the attacks and accidents a session must survive, run for real
//! against this build, with one table at the end — cases, held, failed — per category:
//!
//! - [`files`]: the model's file tools against escapes (`../`, absolute paths, symlinks,
//!   `/proc/self/root`, names that alias `.git`, NUL, long and unicode names);
//! - [`commands`]: `run` commands in the strict sandbox against the user's files and git
//!   state, the toolbox, the session log, secrets, the network, the host's processes; output
//!   floods; hung and escaped children;
//! - [`sessions`]: the real binary killed with SIGKILL at random points then resumed, and
//!   stopped with SIGTERM, SIGHUP and SIGINT;
//! - [`inputs`]: fuzzed contracts, mutated GGUF headers, corrupt and non-regular session logs,
//!   garbage event streams from an HTTP model server.
//!
//! A case *holds* when the promise held (nothing outside the worktree changed, no secret
//! printed, no panic, no hang, the bound kept); every failure is listed by name. `--quick` runs
//! fewer random cases (CI); the fixed cases always run.

mod commands;
mod files;
mod inputs;
mod sessions;

use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Failures listed per category (the count is always complete).
const LISTED_FAILURES: usize = 12;

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Fewer random cases (kill points, fuzzed inputs).
    pub quick: bool,
    /// The `aipc` binary to drive (this one).
    pub exe: PathBuf,
    /// The data directory (examples, targets, shipped sessions).
    pub data_dir: PathBuf,
    /// Seed of the random cases.
    pub seed: u64,
}

/// One category's line of the table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub category: String,
    pub cases: u32,
    pub held: u32,
    pub failed: u32,
    /// What was measured beside the verdicts (e.g. the slowest stop after a signal).
    pub note: String,
    /// The first failures, by case name and reason.
    pub failures: Vec<String>,
}

/// The whole suite's result.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub rows: Vec<Row>,
    pub cases: u32,
    pub held: u32,
    pub failed: u32,
    pub seconds: f64,
}

/// Counts one category's cases as they run.
pub(crate) struct Tally {
    row: Row,
}

impl Tally {
    fn new(category: &str) -> Tally {
        Tally {
            row: Row {
                category: category.to_string(),
                cases: 0,
                held: 0,
                failed: 0,
                note: String::new(),
                failures: Vec::new(),
            },
        }
    }

    /// Record one case: `Ok` held, `Err(reason)` failed.
    pub(crate) fn case(&mut self, name: &str, verdict: Result<(), String>) {
        self.row.cases += 1;
        match verdict {
            Ok(()) => self.row.held += 1,
            Err(reason) => {
                self.row.failed += 1;
                if self.row.failures.len() < LISTED_FAILURES {
                    self.row.failures.push(format!("{name}: {reason}"));
                }
            }
        }
    }

    pub(crate) fn note(&mut self, note: String) {
        self.row.note = note;
    }

    fn done(self) -> Row {
        self.row
    }
}

/// Run every category.
pub async fn run(options: &Options) -> Table {
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    eprintln!("[reliability] file-tool escapes");
    rows.push(files::escapes().await.done());
    eprintln!("[reliability] run escapes in the strict sandbox");
    rows.push(commands::escapes().await.done());
    eprintln!("[reliability] output floods, hung and escaped children");
    rows.push(commands::floods_and_children().await.done());
    eprintln!("[reliability] stop signals");
    rows.push(sessions::signals(options).done());
    eprintln!("[reliability] kill -9, then resume");
    rows.push(sessions::kill_and_resume(options).done());
    eprintln!("[reliability] fuzzed contracts");
    rows.push(inputs::contracts(options).done());
    eprintln!("[reliability] mutated GGUF headers");
    rows.push(inputs::gguf(options).done());
    eprintln!("[reliability] corrupt and non-regular session logs");
    rows.push(inputs::logs(options).done());
    eprintln!("[reliability] garbage event streams (HTTP backend)");
    rows.push(inputs::sse(options).done());
    let (cases, held, failed) = rows.iter().fold((0, 0, 0), |(c, h, f), r| {
        (c + r.cases, h + r.held, f + r.failed)
    });
    Table {
        rows,
        cases,
        held,
        failed,
        seconds: started.elapsed().as_secs_f64(),
    }
}

impl Table {
    /// The table, then the listed failures.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "| category | cases | held | failed | note |");
        let _ = writeln!(out, "|---|---:|---:|---:|---|");
        for r in &self.rows {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                r.category, r.cases, r.held, r.failed, r.note
            );
        }
        let _ = writeln!(
            out,
            "| **all** | **{}** | **{}** | **{}** | {:.0} s |",
            self.cases, self.held, self.failed, self.seconds
        );
        for r in self.rows.iter().filter(|r| !r.failures.is_empty()) {
            let _ = writeln!(out, "\nfailed in {}:", r.category);
            for f in &r.failures {
                let _ = writeln!(out, "  - {f}");
            }
        }
        out
    }
}

/// A small deterministic generator for the random cases (no extra crates).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Run `f`, turning a panic into an error that names it.
pub(crate) fn no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("panicked: {message}")
    })
}
