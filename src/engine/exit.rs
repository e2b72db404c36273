//! The process exit codes, one per outcome, so a batch job's caller can tell them apart.

/// Every stage passed its checks.
pub const DEPLOYED: i32 = 0;
/// A stage failed after its budget (attempts, no progress, turns, tokens, wall time, or a
/// question no human was there to answer).
pub const STAGE_FAILED: i32 = 1;
/// Bad command line or contract; a recorded session that cannot be read (corrupt log,
/// unsupported format version).
pub const USAGE: i32 = 2;
/// The toolchain or environment is missing or broken (a checks-only environment stage failed,
/// git or the file system failed, `aipc model fetch` failed).
pub const ENVIRONMENT: i32 = 3;
/// Aborted by the engineer or a signal (or stopped by `aipc rerun --until`).
pub const ABORTED: i32 = 4;
/// The model backend failed (missing model file, including no `--model` and no fetched default
/// model; server unreachable; script exhausted), or `aipc model info` was given a file that is
/// missing or not a complete GGUF.
pub const MODEL: i32 = 5;
/// `aipc rerun`: the re-run's event stream diverged from the recording (the first divergence is
/// printed with both sides).
pub const DIVERGED: i32 = 6;
