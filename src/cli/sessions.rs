//! `aipc sessions [list|show|export|gc]`: a project's recorded sessions listed, one shown on a
//! page, exported as Markdown or JSON, old ones removed.

use super::args::SessionRef;
use super::output::{usage_error, write_stdout};
use crate::engine::exit;
use crate::session;
use crate::session::export::{export, ExportFormat};
use crate::session::gc::{format_gc_report, gc, GcPolicy};
use crate::session::show::render_summary;
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `aipc sessions`.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct SessionsArgs {
    #[command(subcommand)]
    action: Option<SessionsAction>,
    /// The project folder (default: the current directory).
    #[arg(default_value = ".")]
    project: PathBuf,
}

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum SessionsAction {
    /// List the sessions of a project (the default).
    List {
        #[arg(default_value = ".")]
        project: PathBuf,
        /// Print one JSON array instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// One session on a page: meta, outcome, stages with attempts, turns, tokens, time,
    /// checkpoints, artifacts.
    Show {
        #[command(flatten)]
        which: SessionRef,
        /// Print the session's report as one JSON object instead.
        #[arg(long)]
        json: bool,
    },
    /// Write a session as a Markdown transcript (with diffs) or as JSON (meta + events).
    Export {
        #[command(flatten)]
        which: SessionRef,
        #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
        format: ExportFormat,
        /// Write to this file instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Remove old sessions: their folders, worktrees, branches aipc/<id> and tags; never
    /// anything of yours.
    Gc {
        #[arg(default_value = ".")]
        project: PathBuf,
        /// Keep this many of the newest sessions.
        #[arg(long)]
        keep: Option<usize>,
        /// Remove only sessions whose last activity is older than this many days.
        #[arg(long)]
        older_than: Option<f64>,
        /// List what would be removed; remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// `aipc sessions …`.
pub(crate) fn sessions(args: SessionsArgs) -> i32 {
    match args.action {
        None => list(&args.project, false),
        Some(SessionsAction::List { project, json }) => list(&project, json),
        Some(SessionsAction::Show { which, json }) => match which.open() {
            Ok(recording) if json => write_stdout(&format!(
                "{}\n",
                crate::session::show::summary_json(&recording)
            )),
            Ok(recording) => write_stdout(&render_summary(&recording)),
            Err(e) => usage_error(e),
        },
        Some(SessionsAction::Export {
            which,
            format,
            output,
        }) => {
            let recording = match which.open() {
                Ok(r) => r,
                Err(e) => return usage_error(e),
            };
            let result = match &output {
                Some(path) => std::fs::File::create(path).and_then(|file| {
                    let mut out = std::io::BufWriter::new(file);
                    export(&recording, format, &mut out)?;
                    out.flush()
                }),
                None => {
                    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                    export(&recording, format, &mut out).and_then(|()| out.flush())
                }
            };
            match result {
                Ok(()) => {
                    if let Some(path) = output {
                        println!("{}", path.display());
                    }
                    0
                }
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
                Err(e) => {
                    eprintln!("error: cannot write the export: {e}");
                    exit::ENVIRONMENT
                }
            }
        }
        Some(SessionsAction::Gc {
            project,
            keep,
            older_than,
            dry_run,
        }) => {
            if keep.is_none() && older_than.is_none() {
                return usage_error(
                    "say which sessions go: --keep N (keep the N newest) and/or --older-than \
                     DAYS; add --dry-run to see the list first"
                        .to_string(),
                );
            }
            let older_than = match older_than {
                Some(days) if days.is_finite() && days >= 0.0 => {
                    Some(Duration::from_secs_f64(days * 86_400.0))
                }
                Some(days) => {
                    return usage_error(format!("--older-than {days}: not a number of days"))
                }
                None => None,
            };
            let policy = GcPolicy {
                keep,
                older_than,
                dry_run,
            };
            match gc(&project, &policy) {
                Ok(report) => {
                    print!("{}", format_gc_report(&report, dry_run));
                    if report.failed.is_empty() {
                        0
                    } else {
                        exit::ENVIRONMENT
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    exit::ENVIRONMENT
                }
            }
        }
    }
}

fn list(project: &Path, json: bool) -> i32 {
    match session::list_sessions(project) {
        Ok(sessions) if json => match serde_json::to_string(&sessions) {
            Ok(text) => write_stdout(&format!("{text}\n")),
            Err(e) => {
                eprintln!("error: {e}");
                exit::ENVIRONMENT
            }
        },
        Ok(sessions) => write_stdout(&session::format_sessions_table(&sessions)),
        Err(e) => {
            eprintln!("error: {e}");
            exit::ENVIRONMENT
        }
    }
}
