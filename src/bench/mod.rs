//! The benchmarks, in one place: [`model`] (the in-process model against the same-version
//! llama-bench), [`tui`] (the TUI's frame and ingest cost), [`deploy`] (DeployBench: deployment
//! tasks, arms and trials). The replay benchmark is `aipc bench replay`
//! ([`crate::tui::player::bench_seeks`] over a session from [`crate::session::synth`]).

pub mod deploy;
pub mod model;
pub mod tui;
