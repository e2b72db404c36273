//! The command line (clap): `aipc run`, `aipc sessions`, `aipc doctor`. Wires the engine to
//! its consumers (batch printer, line console) and maps outcomes to exit codes.

use crate::contract::{available_targets, Contract};
use crate::engine::{exit, Engine, EngineOptions, EngineSetup};
use crate::evidence::Classifier;
use crate::model::open_backend;
use crate::prompts::Prompts;
use crate::skills::SkillSet;
use crate::{console, datadir, printer, session};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

#[derive(Debug, Parser)]
#[command(
    name = "aipc",
    version,
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
        /// The model: scripted:<replies.jsonl>, <file.gguf>, or http://host:port/v1.
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
    },
    /// List the recorded sessions of a project.
    Sessions {
        /// The project folder (default: the current directory).
        #[arg(default_value = ".")]
        project: PathBuf,
    },
    /// Check the environment and say what is missing.
    Doctor,
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
        } => {
            let batch = batch || (!interactive && !std::io::stdout().is_terminal());
            let options = EngineOptions {
                batch,
                offer_skills: !no_skills,
                classified_evidence: !raw_evidence,
                ..EngineOptions::default()
            };
            run(RunArgs {
                data_dir: cli.data_dir,
                project,
                target,
                model,
                options,
                verbose,
            })
            .await
        }
        Commands::Sessions { project } => match session::list_sessions(&project) {
            Ok(sessions) => {
                print!("{}", session::format_sessions_table(&sessions));
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                exit::ENVIRONMENT
            }
        },
        Commands::Doctor => doctor(cli.data_dir.as_deref()),
    }
}

struct RunArgs {
    data_dir: Option<PathBuf>,
    project: PathBuf,
    target: Option<String>,
    model: Option<String>,
    options: EngineOptions,
    verbose: bool,
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
    let Some(model_spec) = args.model else {
        return fail(
            exit::USAGE,
            "no model given: pass --model scripted:<replies.jsonl> (the embedded default model \
             arrives with the model layer)"
                .to_string(),
        );
    };
    let model = match open_backend(&model_spec) {
        Ok(model) => model,
        Err(e) => return fail(exit::MODEL, e.to_string()),
    };
    let batch = args.options.batch;
    let contract_target = contract.target.clone();
    let (commands, command_rx) = mpsc::unbounded_channel();
    let setup = EngineSetup {
        session_id: session::new_session_id(),
        project: args.project,
        contract,
        skills,
        prompts,
        classifier,
        target_dir: targets.join(&contract_target),
        options: args.options,
    };
    let engine = match Engine::start(setup, model, command_rx) {
        Ok(engine) => engine,
        Err(e) => return fail(e.exit_code(), e.to_string()),
    };
    let printer = tokio::spawn(printer::print_events(
        engine.subscribe(),
        std::io::stderr(),
        args.verbose,
    ));
    let ctrl_c = commands.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = ctrl_c.send(crate::protocol::Command::Abort);
        }
    });
    if !batch {
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
    let _ = printer.await;
    if let Some(report) = &outcome.report_md {
        println!("{}", report.display());
    }
    outcome.exit_code
}

/// Check what a deployment needs; exit 3 when something required is missing.
fn doctor(data_dir: Option<&Path>) -> i32 {
    let mut missing = 0;
    let mut line = |ok: bool, what: &str, detail: String| {
        println!("{} {what}: {detail}", if ok { "ok  " } else { "MISS" });
        if !ok {
            missing += 1;
        }
    };
    let (major, minor, patch) = git2::Version::get().libgit2_version();
    line(
        true,
        "libgit2",
        format!("{major}.{minor}.{patch} (built in)"),
    );
    for (program, args) in [
        ("sh", vec!["-c", "echo sh"]),
        ("python3", vec!["--version"]),
    ] {
        match std::process::Command::new(program).args(&args).output() {
            Ok(out) if out.status.success() => {
                let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
                line(true, program, text);
            }
            _ => line(false, program, format!("`{program}` not found on PATH")),
        }
    }
    match datadir::locate(data_dir) {
        Ok(dir) => {
            line(true, "data directory", dir.display().to_string());
            let targets = available_targets(&dir.join("toolbox/targets"));
            line(!targets.is_empty(), "targets", targets.join(", "));
            match Prompts::load(&dir.join("prompts")) {
                Ok(_) => line(true, "prompts", "all templates parse".to_string()),
                Err(e) => line(false, "prompts", e.to_string()),
            }
            match SkillSet::load_dir(&dir.join("skills")) {
                Ok(skills) => line(true, "skills", skills.names().join(", ")),
                Err(e) => line(false, "skills", e.to_string()),
            }
        }
        Err(message) => line(false, "data directory", message),
    }
    if missing == 0 {
        println!("everything needed is present");
        0
    } else {
        println!("{missing} problem(s); fix them and run `aipc doctor` again");
        exit::ENVIRONMENT
    }
}
