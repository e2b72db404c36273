//! The TUI's tests: synthetic event streams ([`fixtures`]) rendered into ratatui's
//! `TestBackend` and compared with insta snapshots ([`view_snapshots`]); the reducer's
//! derived state ([`state_rules`]); keys and mouse turned into commands ([`app_flows`]); the
//! replay controller ([`replay_controller`]) and the replay in the views ([`replay_views`]).

mod app_flows;
mod fixtures;
mod replay_controller;
mod replay_views;
mod state_rules;
mod view_snapshots;
