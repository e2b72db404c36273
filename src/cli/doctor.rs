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
    /// Also check a device: a project folder (its aipc.toml `[device]`) or a file with a
    /// `[device]` table: it answers, its runner starts, which runtimes it imports.
    #[arg(long, value_name = "PROJECT_OR_FILE")]
    device: Option<std::path::PathBuf>,
}

/// Run `aipc doctor`; returns the exit code.
pub(crate) fn doctor(args: DoctorArgs, data_dir: Option<&Path>) -> i32 {
    let mut diagnosis = crate::doctor::diagnose(data_dir, args.target.as_deref());
    if let Some(path) = &args.device {
        let config = if path.is_dir() {
            crate::device::DeviceConfig::from_project(path)
        } else {
            crate::device::DeviceConfig::from_file(path)
        };
        let found = match config {
            Ok(Some(config)) => crate::doctor::device_check(&config),
            Ok(None) => crate::doctor::Check {
                name: "device".into(),
                status: crate::doctor::Status::NotReady,
                detail: format!("{}: no [device] table", path.display()),
                fix: Some("add a [device] table (docs/device.md)".into()),
            },
            Err(e) => crate::doctor::Check {
                name: "device".into(),
                status: crate::doctor::Status::NotReady,
                detail: e.to_string(),
                fix: Some("fix the [device] table (docs/device.md)".into()),
            },
        };
        diagnosis.ready &= found.status == crate::doctor::Status::Ok;
        diagnosis.checks.push(found);
    }
    if let Err(code) = print_json_or_text(&diagnosis, args.json, |d| d.to_text()) {
        return code;
    }
    if diagnosis.ready {
        0
    } else {
        exit::ENVIRONMENT
    }
}
