//! `aipc doctor`: what a deployment needs and the command that fixes each gap; exit 3 when
//! something needed is not ready.

use super::output::print_json_or_text;
use crate::engine::exit;
use clap::Args;
use std::path::Path;

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Check only this target's toolchain (default: every target that has one).
    #[arg(long)]
    target: Option<String>,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    json: bool,
}

/// Run `aipc doctor`; returns the exit code.
pub(crate) fn doctor(args: DoctorArgs, data_dir: Option<&Path>) -> i32 {
    let diagnosis = crate::doctor::diagnose(data_dir, args.target.as_deref());
    if let Err(code) = print_json_or_text(&diagnosis, args.json, |d| d.to_text()) {
        return code;
    }
    if diagnosis.ready {
        0
    } else {
        exit::ENVIRONMENT
    }
}
