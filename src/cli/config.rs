//! `aipc config show`: the effective settings and where each comes from; exit 2 when a config
//! file or variable cannot be read.

use super::output::print_json_or_text;
use crate::engine::exit;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigAction {
    /// The effective settings and their sources.
    Show {
        /// Include this project's .aipc/config.toml.
        #[arg(long)]
        project: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// Run `aipc config <action>`; returns the exit code.
pub(crate) fn config(action: ConfigAction) -> i32 {
    let ConfigAction::Show { project, json } = action;
    let config = match crate::config::load(project.as_deref()) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::USAGE;
        }
    };
    match print_json_or_text(&config, json, |c| c.to_text()) {
        Ok(()) => 0,
        Err(code) => code,
    }
}
