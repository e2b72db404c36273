//! aipc: a terminal workbench in which a local language model deploys a PyTorch project onto an
//! edge runtime, stage by stage, under checks that decide and budgets that bound it.
//!
//! Module map (one concern each):
//! - [`protocol`]: the typed `Event` / `Command` protocol, the engine's only output and input.
//! - [`diff`]: unified file diffs (`similar`) for events and the record.
pub mod diff;
pub mod protocol;
pub mod agent;
pub mod evidence;
pub mod model;
pub mod prompts;
