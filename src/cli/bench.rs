//! `aipc bench model|deploy|replay|tui|reliability`: the speed of the in-process backend,
//! DeployBench (the deployment tasks in batch runs, skills arm against control arm), opening and
//! seeking a big recorded session, the TUI under a flood of log lines, and the reliability suite
//! (sandbox escapes, floods, signals, kills, broken input).

use super::output::print_json_or_text;
use crate::bench::replay::bench_seeks;
use crate::engine::exit;
use crate::model::store;
use crate::session::synth::bench_replay;
use crate::session::{self, Recording};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Which DeployBench arms to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ArmChoice {
    Skills,
    Control,
    /// No model: the first call the evidence names (what the tables alone achieve).
    NoModel,
    /// Skills and classified evidence as text, no narrowing of the choices.
    EvidenceText,
    /// skills and control.
    Both,
    /// Every arm.
    All,
}

#[derive(Debug, Subcommand)]
pub(crate) enum BenchWhat {
    /// DeployBench: run the deployment tasks in batch mode, each in its own session, in the
    /// chosen arms (skills, control, no-model, evidence-text) and trials, and print the table.
    Deploy {
        /// Task names (glob) under the tasks folder.
        #[arg(long, default_value = "*")]
        tasks: String,
        /// The tasks folder (default: tests/deploybench/tasks in the data dir).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        /// Arms, comma-separated.
        #[arg(long, value_enum, value_delimiter = ',', default_value = "skills")]
        arm: Vec<ArmChoice>,
        /// Times each task runs in each arm.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
        trials: u32,
        /// The model of every run (default: the embedded default model).
        #[arg(long)]
        model: Option<String>,
        /// Decode threads of each run's in-process model.
        #[arg(long)]
        threads: Option<u32>,
        /// Runs in parallel.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Every run executes its run, accuracy and performance stages on the device of this
        /// file's `[device]` table (`aipc run --device`, docs/device.md).
        #[arg(long, value_name = "FILE")]
        device: Option<PathBuf>,
        /// Output folder (project copies, sessions, deploybench.md/.json); default: a new
        /// folder under the aipc cache.
        #[arg(long)]
        out: Option<PathBuf>,
        /// A previous deploybench.json: exit 1 when a task that succeeded there fails now.
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// A results folder: the table and the session (events, meta, report; not the worktree)
        /// of every run that did not succeed are copied there, as
        /// `sessions/<task>.<arm>.t<trial>/`, for `aipc replay` after --out is gone.
        #[arg(long, value_name = "DIR")]
        keep_failed: Option<PathBuf>,
        /// Print the table as one JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Speed of the in-process backend on a GGUF: prompt processing, decode with and without
    /// the tool-call constraint, KV reuse across turns; ratios against llama-bench when given.
    Model {
        /// The GGUF (default: the fetched default model).
        #[arg(long)]
        model: Option<PathBuf>,
        /// Threads (default: the cores available).
        #[arg(long)]
        threads: Option<u32>,
        /// The llama-bench to compare against, on the same file and threads (default: the one
        /// scripts/build-llama-server.sh builds from the same llama.cpp tree and CPU flags).
        #[arg(long)]
        llama_bench: Option<PathBuf>,
        #[arg(long, default_value_t = 512)]
        prompt_tokens: u32,
        #[arg(long, default_value_t = 128)]
        decode_tokens: u32,
        /// Repetitions of each measurement, and paired rounds against llama-bench (the median
        /// is reported).
        #[arg(long, default_value_t = 5)]
        repetitions: u32,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Open, render and seek a synthetic recorded session (default 100,000 events) against
    /// the replay targets (open + render <= 1 s, seek <= 100 ms).
    Replay(BenchReplayArgs),
    /// The reliability suite: file-tool and `run` escapes against the sandbox, output floods,
    /// hung and escaped children, stop signals, kill -9 then resume, fuzzed contracts, mutated
    /// GGUF headers, corrupt logs. Prints one table; exit 1 when any case failed.
    Reliability {
        /// Fewer random cases (5 kill points instead of 50; the CI form).
        #[arg(long)]
        quick: bool,
        /// Seed of the random cases.
        #[arg(long, default_value_t = 20261201)]
        seed: u64,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// The TUI under a flood of log lines: ingest rate, frame time and log memory while
    /// synthetic command output streams through the live path into an off-screen terminal.
    Tui {
        /// How many log lines to stream.
        #[arg(long, default_value_t = 1_000_000)]
        lines: u64,
        #[arg(long, default_value_t = 120)]
        width: u16,
        #[arg(long, default_value_t = 40)]
        height: u16,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
}

/// `aipc bench replay`.
#[derive(Debug, Clone, Args)]
pub(crate) struct BenchReplayArgs {
    /// Events in the synthetic session.
    #[arg(long, default_value_t = 100_000)]
    events: usize,
    /// Random seeks to time (through the replay controller: at most 1,000).
    #[arg(long, default_value_t = 10_000)]
    seeks: usize,
    /// Keep the synthetic session in this folder (default: a temporary folder, removed).
    #[arg(long)]
    keep: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// Run `aipc bench <what>`; returns the exit code.
pub(crate) async fn bench(what: BenchWhat, data_dir: Option<PathBuf>) -> i32 {
    match what {
        BenchWhat::Model {
            model,
            threads,
            llama_bench,
            prompt_tokens,
            decode_tokens,
            repetitions,
            json,
        } => {
            self::model(
                BenchModelArgs {
                    model,
                    threads,
                    llama_bench,
                    prompt_tokens,
                    decode_tokens,
                    repetitions,
                    json,
                },
                data_dir,
            )
            .await
        }
        BenchWhat::Deploy {
            tasks,
            tasks_dir,
            arm,
            trials,
            model,
            threads,
            jobs,
            device,
            out,
            baseline,
            keep_failed,
            json,
        } => deploy(BenchDeployArgs {
            data_dir,
            tasks,
            tasks_dir,
            arm,
            trials,
            model,
            threads,
            jobs,
            device,
            out,
            baseline,
            keep_failed,
            json,
        }),
        BenchWhat::Replay(args) => replay(args),
        BenchWhat::Reliability { quick, seed, json } => {
            reliability(quick, seed, json, data_dir).await
        }
        BenchWhat::Tui {
            lines,
            width,
            height,
            json,
        } => tui_bench(lines, width, height, json),
    }
}

struct BenchModelArgs {
    model: Option<PathBuf>,
    threads: Option<u32>,
    llama_bench: Option<PathBuf>,
    prompt_tokens: u32,
    decode_tokens: u32,
    repetitions: u32,
    json: bool,
}

/// `aipc bench model`: exit 3 without the data directory, 5 when the model fails.
async fn model(args: BenchModelArgs, data_dir: Option<PathBuf>) -> i32 {
    let data = match crate::datadir::locate(data_dir.as_deref()) {
        Ok(dir) => dir,
        Err(message) => {
            eprintln!("error: {message}");
            return exit::ENVIRONMENT;
        }
    };
    let config = crate::bench::model::BenchConfig {
        model: args.model.unwrap_or_else(store::default_model_path),
        prompts_dir: data.join("prompts"),
        threads: args
            .threads
            .unwrap_or_else(crate::model::llama::default_threads),
        prompt_tokens: args.prompt_tokens,
        decode_tokens: args.decode_tokens,
        repetitions: args.repetitions.max(1),
        llama_bench: args.llama_bench.or_else(|| {
            let same = crate::bench::model::same_version_llama_bench();
            if same.is_file() {
                Some(same)
            } else {
                eprintln!(
                    "bench: no same-version llama-bench at {}: run scripts/build-llama-server.sh \
                     to measure the ratios against it",
                    same.display()
                );
                None
            }
        }),
    };
    match crate::bench::model::run(&config, &mut |step| eprintln!("bench: {step}")).await {
        Ok(report) => match print_json_or_text(&report, args.json, |r| r.to_text()) {
            Ok(()) => 0,
            Err(code) => code,
        },
        Err(e) => {
            eprintln!("error: {e}");
            exit::MODEL
        }
    }
}

/// `aipc bench tui`: exit 3 when the off-screen terminal fails.
fn tui_bench(lines: u64, width: u16, height: u16, json: bool) -> i32 {
    let config = crate::bench::tui::BenchConfig {
        lines,
        width: width.max(20),
        height: height.max(5),
    };
    match crate::bench::tui::run(&config) {
        Ok(report) => match print_json_or_text(&report, json, |r| r.to_text()) {
            Ok(()) => 0,
            Err(code) => code,
        },
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::ENVIRONMENT
        }
    }
}

struct BenchDeployArgs {
    data_dir: Option<PathBuf>,
    tasks: String,
    tasks_dir: Option<PathBuf>,
    arm: Vec<ArmChoice>,
    trials: u32,
    model: Option<String>,
    threads: Option<u32>,
    jobs: usize,
    device: Option<PathBuf>,
    out: Option<PathBuf>,
    baseline: Option<PathBuf>,
    keep_failed: Option<PathBuf>,
    json: bool,
}

/// `aipc bench deploy`: exit 0 when the runs completed (whatever their outcomes), 1 on a
/// regression against `--baseline`, 2 on bad tasks or flags, 3 when the runner itself fails or
/// `--keep-failed` cannot write its folder.
fn deploy(args: BenchDeployArgs) -> i32 {
    use crate::bench::deploy::{self as deploybench, Arm};
    if let Some(Err(message)) = args
        .device
        .as_deref()
        .map(crate::device::DeviceConfig::from_flag)
    {
        eprintln!("error: {message}");
        return exit::USAGE;
    }
    let data = match crate::datadir::locate(args.data_dir.as_deref()) {
        Ok(dir) => dir,
        Err(message) => {
            eprintln!("error: {message}");
            return exit::ENVIRONMENT;
        }
    };
    let tasks_dir = args
        .tasks_dir
        .unwrap_or_else(|| data.join("tests/deploybench/tasks"));
    let tasks = match deploybench::load_tasks(&tasks_dir, &data, &args.tasks) {
        Ok(tasks) => tasks,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::USAGE;
        }
    };
    let baseline = match &args.baseline {
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| {
                serde_json::from_str::<deploybench::BenchDeployReport>(&t)
                    .map_err(|e| e.to_string())
            }) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("error: baseline {}: {e}", path.display());
                return exit::USAGE;
            }
        },
        None => None,
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find the aipc executable: {e}");
            return exit::ENVIRONMENT;
        }
    };
    let out_dir = args.out.unwrap_or_else(|| {
        store::cache_dir()
            .join("deploybench")
            .join(crate::session::new_session_id())
    });
    let config = deploybench::DeployBenchConfig {
        exe,
        data_dir: data,
        tasks,
        arms: {
            let mut arms: Vec<Arm> = Vec::new();
            for choice in &args.arm {
                let these: &[Arm] = match choice {
                    ArmChoice::Skills => &[Arm::Skills],
                    ArmChoice::Control => &[Arm::Control],
                    ArmChoice::NoModel => &[Arm::NoModel],
                    ArmChoice::EvidenceText => &[Arm::EvidenceText],
                    ArmChoice::Both => &[Arm::Skills, Arm::Control],
                    ArmChoice::All => &[Arm::Skills, Arm::Control, Arm::NoModel, Arm::EvidenceText],
                };
                for arm in these {
                    if !arms.contains(arm) {
                        arms.push(*arm);
                    }
                }
            }
            arms
        },
        trials: args.trials,
        model: args.model,
        run_flags: {
            let mut flags: Vec<String> = args
                .threads
                .map(|t| vec!["--threads".to_string(), t.to_string()])
                .unwrap_or_default();
            if let Some(device) = &args.device {
                // Each run reads the file itself; an absolute path survives its project copy.
                let device = std::path::absolute(device).unwrap_or_else(|_| device.clone());
                flags.extend(["--device".to_string(), device.display().to_string()]);
            }
            flags
        },
        jobs: args.jobs.max(1),
        out_dir: out_dir.clone(),
    };
    eprintln!(
        "bench deploy: {} task(s) × {} arm(s) × {} trial(s) → {}",
        config.tasks.len(),
        config.arms.len(),
        config.trials,
        out_dir.display()
    );
    let progress = |r: &deploybench::RunRecord| {
        eprintln!(
            "bench deploy: {} [{} #{}] {} {} at {} in {:.1} s",
            r.task,
            r.arm,
            r.trial,
            if r.success { "✔" } else { "✘" },
            r.outcome,
            r.stage_reached,
            r.wall_s
        )
    };
    let report = match deploybench::run(&config, &progress) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e:#}");
            return exit::ENVIRONMENT;
        }
    };
    if args.json {
        match serde_json::to_string(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("error: {e}");
                return exit::ENVIRONMENT;
            }
        }
    } else {
        print!("{}", report.to_markdown());
        println!("\n{}", out_dir.join("deploybench.md").display());
    }
    let mut kept_ok = true;
    if let Some(dest) = &args.keep_failed {
        match deploybench::keep_failed(&report, &out_dir, dest) {
            Ok(kept) => {
                eprintln!(
                    "bench deploy: kept the table and {} failed session(s) in {}",
                    kept.sessions.len(),
                    dest.display()
                );
                for label in &kept.without_session {
                    eprintln!("bench deploy: {label} did not succeed and left no session to keep");
                }
            }
            Err(e) => {
                eprintln!(
                    "error: --keep-failed: {e:#} (the table and sessions stay in {})",
                    out_dir.display()
                );
                kept_ok = false;
            }
        }
    }
    if let Some(baseline) = baseline {
        let regressions = deploybench::regressions(&baseline, &report);
        if !regressions.is_empty() {
            for r in &regressions {
                eprintln!("regression: {r}");
            }
            return exit::STAGE_FAILED;
        }
    }
    if kept_ok {
        0
    } else {
        exit::ENVIRONMENT
    }
}

/// Seeks (and steps back) timed through the replay controller at most.
const CONTROLLER_SEEKS: usize = 1_000;

/// `aipc bench replay`.
fn replay(args: BenchReplayArgs) -> i32 {
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

/// `aipc bench reliability`: exit 0 when every case held, 1 when one failed, 3 without the
/// data directory or this binary's path.
async fn reliability(quick: bool, seed: u64, json: bool, data_dir: Option<PathBuf>) -> i32 {
    let data_dir = match crate::datadir::locate(data_dir.as_deref()) {
        Ok(dir) => dir,
        Err(message) => {
            eprintln!("error: {message}");
            return exit::ENVIRONMENT;
        }
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find this binary's path: {e}");
            return exit::ENVIRONMENT;
        }
    };
    let options = crate::bench::reliability::Options {
        quick,
        exe,
        data_dir,
        seed,
    };
    let table = crate::bench::reliability::run(&options).await;
    if let Err(code) = print_json_or_text(&table, json, |t| t.to_text()) {
        return code;
    }
    if table.failed == 0 {
        0
    } else {
        1
    }
}
