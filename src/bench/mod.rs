//! The benchmarks, in one place: [`model`] (the in-process model against the same-version
//! llama-bench), [`tui`] (the TUI's frame and ingest cost), [`deploy`] (DeployBench: deployment
//! tasks, arms and trials), [`replay`] (`aipc bench replay`: the replay controller over a
//! synthetic session from [`crate::session::synth`]), [`reliability`] (escapes, floods,
//! signals, kills and broken input, as one table of held and failed cases).

pub mod deploy;
pub mod model;
pub(crate) mod reliability;
pub mod replay;
pub mod tui;
