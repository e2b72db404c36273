//! The command line of recorded sessions: `aipc replay` (the TUI, or the transcript),
//! `aipc rerun`, `aipc resume`,
//! `aipc sessions [list|show|export|gc]` and `aipc bench replay` — their arguments (clap) and
//! what each prints and exits with. `cli.rs` only routes to them.
//!
//! A session is named by its id, a unique part of it, `last`, or its folder (see
//! [`crate::session::resolve_session`]); ids are looked up in `--project` (default: the current
//! directory). A session that cannot be read (corrupt log, unsupported format version) is a
//! one-line error naming the file and line, exit 2.

use crate::cli::ModelArgs;
use crate::engine::exit;
use crate::rerun::compare::CompareOptions;
use crate::session::export::{export, ExportFormat};
use crate::session::gc::{format_gc_report, gc, GcPolicy};
use crate::session::show::render_summary;
use crate::session::synth::bench_replay;
use crate::session::{self, render_markdown, resolve_session, Recording, TranscriptOptions};
use crate::tui::replay::{bench_seeks, Speed};
use crate::tui::replay_run::{run_replay, ReplayOptions};
use clap::{Args, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which session, in which project.
#[derive(Debug, Clone, Args)]
pub struct SessionRef {
    /// The session: its id, a unique part of it, `last`, or its folder.
    pub session: String,
    /// The project whose sessions the id is looked up in.
    #[arg(long, default_value = ".")]
    pub project: PathBuf,
}

/// `aipc replay`.
#[derive(Debug, Clone, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub which: SessionRef,
    /// Print the Markdown transcript instead of playing the session in the TUI (also what
    /// replay does when stdout is not a terminal).
    #[arg(long)]
    pub batch: bool,
    /// Playback speed: 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64 (times the recorded pace) or
    /// `instant`.
    #[arg(long, default_value = "1", value_parser = Speed::parse)]
    pub speed: Speed,
    /// Open the replay paused at the start.
    #[arg(long)]
    pub paused: bool,
    /// Also show the messages each model request added (prompts, notes), bounded.
    #[arg(long)]
    pub prompts: bool,
    /// Lines of each tool observation to show.
    #[arg(long, default_value_t = 20)]
    pub observation_lines: usize,
}

/// `aipc rerun`.
#[derive(Debug, Clone, Args)]
pub struct RerunCli {
    #[command(flatten)]
    pub which: SessionRef,
    /// Stop after this event seq (as numbered in the recording; the numbering agrees until the
    /// first divergence) or after this stage, and leave the worktree in that state.
    #[arg(long)]
    pub until: Option<String>,
    /// Re-run in this project folder instead of the recorded one: for a shipped recording
    /// (`sessions/<name>`) whose project is a copy of an example. Without the recorded base
    /// commit the re-run starts from a snapshot of this folder, whose files must be the ones the
    /// recording started from.
    #[arg(long, value_name = "PROJECT")]
    pub from: Option<PathBuf>,
    /// Relative tolerance for metric values that are not timings.
    #[arg(long, default_value_t = 1e-4)]
    pub tolerance: f64,
    /// Compare gate outcomes only, no metric values.
    #[arg(long)]
    pub gates_only: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also print command output and model replies.
    #[arg(long, short)]
    pub verbose: bool,
}

/// `aipc resume`.
#[derive(Debug, Clone, Args)]
pub struct ResumeCli {
    #[command(flatten)]
    pub which: SessionRef,
    /// The model to continue with (default: the recorded one).
    #[arg(long)]
    pub model: Option<String>,
    /// Zero-human mode (implied when stdout is not a terminal).
    #[arg(long, conflicts_with = "interactive")]
    pub batch: bool,
    /// Interactive mode even when stdout is not a terminal (commands are read from stdin).
    #[arg(long)]
    pub interactive: bool,
    /// Also print command output and model replies.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub model_args: ModelArgs,
}

/// `aipc sessions`.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub action: Option<SessionsAction>,
    /// The project folder (default: the current directory).
    #[arg(default_value = ".")]
    pub project: PathBuf,
}

#[derive(Debug, Clone, Subcommand)]
pub enum SessionsAction {
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

/// `aipc bench replay`.
#[derive(Debug, Clone, Args)]
pub struct BenchReplayArgs {
    /// Events in the synthetic session.
    #[arg(long, default_value_t = 100_000)]
    pub events: usize,
    /// Random seeks to time (through the replay controller: at most 1,000).
    #[arg(long, default_value_t = 10_000)]
    pub seeks: usize,
    /// Keep the synthetic session in this folder (default: a temporary folder, removed).
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

fn open(which: &SessionRef) -> Result<Recording, String> {
    let paths = resolve_session(&which.session, &which.project).map_err(|e| e.to_string())?;
    Recording::open(&paths).map_err(|e| e.to_string())
}

fn usage_error(message: String) -> i32 {
    eprintln!("error: {message}");
    exit::USAGE
}

fn write_stdout(text: &str) -> i32 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            exit::ENVIRONMENT
        }
    }
}

/// `aipc replay`: the session in the TUI when stdout is a terminal, else (or with `--batch`)
/// the Markdown transcript. A session that cannot be read is an error before the terminal is
/// touched.
pub fn replay(args: ReplayArgs) -> i32 {
    let recording = match open(&args.which) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    if !args.batch && std::io::stdout().is_terminal() {
        let options = ReplayOptions {
            speed: args.speed,
            paused: args.paused,
        };
        return match run_replay(recording, options) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: {e:#}");
                exit::ENVIRONMENT
            }
        };
    }
    let options = TranscriptOptions {
        prompts: args.prompts,
        observation_lines: args.observation_lines,
        ..TranscriptOptions::default()
    };
    write_stdout(&render_markdown(&recording, &options))
}

/// `aipc rerun`.
pub async fn rerun(args: RerunCli, data_dir: Option<PathBuf>) -> i32 {
    crate::rerun::rerun(crate::rerun::RerunArgs {
        session: args.which.session,
        project: args.which.project,
        from: args.from,
        data_dir,
        until: args.until,
        compare: CompareOptions {
            metric_tolerance: (!args.gates_only).then_some(args.tolerance.max(0.0)),
        },
        json: args.json,
        progress: !args.quiet,
        verbose: args.verbose,
    })
    .await
}

/// `aipc resume`.
pub async fn resume(args: ResumeCli, data_dir: Option<PathBuf>) -> i32 {
    let batch = args.batch || (!args.interactive && !std::io::stdout().is_terminal());
    // The user's config and AIPC_* (a session's project config is read by the run it resumes).
    let config = match crate::config::load(None) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return crate::engine::exit::USAGE;
        }
    };
    crate::resume::resume(crate::resume::ResumeArgs {
        session: args.which.session,
        project: args.which.project,
        data_dir,
        model: args.model,
        model_options: args.model_args.options(&config),
        batch,
        verbose: args.verbose,
    })
    .await
}

/// `aipc sessions …`.
pub fn sessions(args: SessionsArgs) -> i32 {
    match args.action {
        None => list(&args.project, false),
        Some(SessionsAction::List { project, json }) => list(&project, json),
        Some(SessionsAction::Show { which, json }) => match open(&which) {
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
            let recording = match open(&which) {
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

/// Seeks (and steps back) timed through the replay controller at most.
const CONTROLLER_SEEKS: usize = 1_000;

/// `aipc bench replay`.
pub fn bench_replay_command(args: BenchReplayArgs) -> i32 {
    let (dir, temporary) = match &args.keep {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("aipc-bench-replay-{}", std::process::id())),
            true,
        ),
    };
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!(
        "bench: writing a synthetic session of {} events to {}",
        args.events,
        dir.display()
    );
    // The session's figures, then seeking through the replay controller (the TUI's state
    // rebuilt at every target: milliseconds each, so at most CONTROLLER_SEEKS of them).
    let result = bench_replay(&dir, args.events, args.seeks).and_then(|bench| {
        let recording = Recording::open(&session::SessionPaths::from_dir(&dir))?;
        let seeks = args.seeks.min(CONTROLLER_SEEKS);
        Ok((bench, bench_seeks(recording, seeks)))
    });
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    match result {
        Ok((bench, controller)) => {
            if args.json {
                let mut value = serde_json::to_value(&bench).unwrap_or_default();
                if let Some(object) = value.as_object_mut() {
                    object.insert(
                        "controller".to_string(),
                        serde_json::to_value(&controller).unwrap_or_default(),
                    );
                }
                println!("{value}");
            } else {
                print!("{}{}", bench.to_text(), controller.to_text());
            }
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            exit::ENVIRONMENT
        }
    }
}
