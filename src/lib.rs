//! aipc: a terminal workbench in which a local language model deploys a PyTorch project onto an
//! edge runtime, stage by stage, under checks that decide and budgets that bound it.
//!
//! Modules are `pub` only where the integration tests (`tests/`) or `main.rs` use them; the rest
//! are `pub(crate)`, so rustc reports what nothing uses. `docs/architecture.md` has the data flow.
//!
//! Module map (one concern each):
//! - [`protocol`]: the typed `Event` / `Command` protocol, the engine's only output and input.
//! - [`contract`]: the deployment contract (target contract + project `aipc.toml`), gates.
//! - [`engine`]: the stage loop, bounded repair, checks, budgets, commands, the event bus.
//! - [`conversation`]: prompt assembly, the tool-call schema and reply parsing: the
//!   conversation of an attempt (the turn loop itself is the engine's).
//! - [`model`]: the `ModelBackend` trait and its backends (in-process llama.cpp, OpenAI-compatible
//!   HTTP, scripted), the GGUF metadata reader, the model store (fetching the default model).
//! - [`tools`]: the tools the model calls, confined to the session worktree.
//! - [`toolbox`]: the target's toolbox tools (helper scripts from `toolbox.toml`) offered next
//!   to the built-in tools.
//! - [`toolchain`]: a target's venv under the user's cache (setup, state, versions) and the
//!   environment every command of a session runs in.
//! - [`evidence`]: failed checks reduced to signatures, facts and candidate fixes.
//! - [`skills`]: Agent Skills (`skills/<name>/SKILL.md`) the model can load.
//! - [`prompts`]: the prompt templates (`prompts/*.j2`).
//! - [`checkpoint`]: the session branch, worktree, attempt commits and stage tags (git2).
//! - [`session`]: the session record: event log, meta, paths, listing; [`session::view`] the
//!   one fold over events that the report, `sessions show`, the transcript and the TUI read.
//! - [`report`]: `report.md` / `report.json`, computed from the event log; [`junit`]: its
//!   `report.junit.xml` (one test case per stage).
//! - [`setup`]: the engine setup of a session, assembled from the data directory and the
//!   project: a new one (`aipc run`) or a recorded one (resume, rerun).
//! - [`resume`]: continuing an interrupted session from its last checkpoint (`aipc resume`).
//! - [`rerun`]: re-executing a session with its recorded model outputs and finding the first
//!   divergence (`aipc rerun`).
//! - [`printer`]: the batch progress printer (an event consumer); [`status_line`]: its live
//!   status line on a terminal.
//! - [`json_stream`]: `aipc run --json`, the events as JSON Lines on stdout (an event consumer).
//! - [`tui`]: the terminal workbench (ratatui): an event consumer and command producer.
//! - [`console`]: the interactive line console (a command producer) when stdout is not a terminal.
//! - [`cli`]: the command line, one file per command, and the one drive loop that runs an
//!   engine with its consumers (TUI, batch printer, line console, JSON stream) for `run`,
//!   `resume` and `rerun`.
//! - [`file_diff`]: unified file diffs (`similar`) for events and the record.
//! - [`bench`]: the benchmarks (model speed, TUI, DeployBench).
//! - [`device`]: where run, accuracy and performance execute: aipc.toml `[device]` (local, ssh,
//!   adb), the transports and the socket through which sandboxed scripts run jobs there.
//! - [`doctor`]: `aipc doctor`, what a deployment needs and the command that fixes each gap.
//! - [`config`]: settings from ~/.config/aipc/config.toml, <project>/.aipc/config.toml, AIPC_*.
//! - [`datadir`]: where prompts, skills and the toolbox are found (or extracted from the binary).
//! - [`build_info`]: version, commit, profile, target CPU and llama.cpp of this build.
//! - `safe_read`: reading a file only if it is a regular one, up to a size cap (no FIFO,
//!   device or directory is read; nothing is read until memory runs out).
//! - `git_name`: which file names git can store, and which alias `.git`.
//! - `project_table`: the `[project]` table of aipc.toml: its keys (shared with the toolbox),
//!   static validation, and the structured edit behind `set_project_option`.
pub mod bench;
pub mod build_info;
pub mod checkpoint;
pub mod cli;
pub(crate) mod config;
pub(crate) mod console;
pub mod contract;
pub mod conversation;
pub(crate) mod datadir;
pub mod device;
pub(crate) mod doctor;
pub mod engine;
pub mod evidence;
pub(crate) mod file_diff;
pub(crate) mod git_name;
pub(crate) mod json_stream;
pub(crate) mod junit;
pub mod model;
pub(crate) mod number_text;
pub(crate) mod printer;
pub(crate) mod project_entries;
pub(crate) mod project_init;
pub(crate) mod project_table;
pub mod prompts;
pub mod protocol;
pub(crate) mod report;
pub(crate) mod rerun;
pub mod resume;
pub(crate) mod safe_read;
pub mod sandbox;
pub mod session;
pub(crate) mod setup;
pub mod skills;
pub(crate) mod status_line;
pub mod toolbox;
pub mod toolchain;
pub mod tools;
pub(crate) mod tui;
