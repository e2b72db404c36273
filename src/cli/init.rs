//! `aipc init`: make a project folder deployable — ask for (or take from flags) where the model
//! comes from, the target, the input shape, INT8 or not and a latency budget; write `aipc.toml`
//! and `aipc_hooks.py` ([`crate::project_init`]); then validate what can be validated before any
//! toolchain is installed (the `[project]` table, and that every `module:function` parses and is
//! defined): exit 2 with file:line otherwise. Prompts go to stderr and answers come from stdin,
//! only when stdin is a terminal and `--batch` is not given; otherwise a missing answer is an
//! error that names the flag.

use crate::engine::exit;
use crate::project_init::{
    aipc_toml, hooks_py, InitData, InitPlan, ModelSource, HOOKS_CACHE_DIR, HOOKS_FILE,
};
use clap::Args;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The targets `aipc init` offers (the shipped ones that run here).
const TARGETS: &[&str] = &["onnxruntime-cpu", "executorch-xnnpack"];
/// Candidate model functions listed at most.
const MAX_CANDIDATES: usize = 12;
/// Python files scanned for candidates at most (a big repository is not read whole).
const MAX_SCANNED_FILES: usize = 400;

// (No doc comment: the `Init` variant's is the command's help.)
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The project folder (default: the current one).
    #[arg(default_value = ".")]
    project: PathBuf,
    /// Where the model comes from: module:function (the project's own function returning the
    /// nn.Module, weights loaded), timm:<name> or hf:<transformers model type> (random weights
    /// with a fixed seed; nothing is downloaded).
    #[arg(long = "from", value_name = "SPEC")]
    from: Option<String>,
    /// The target (default: the configured one, else onnxruntime-cpu).
    #[arg(long)]
    target: Option<String>,
    /// One sample's input shape without the batch dim, e.g. 3,32,32 (required for the project's
    /// own model; timm and transformers models give theirs).
    #[arg(long, value_delimiter = ',')]
    input_shape: Option<Vec<usize>>,
    /// Classes of the classification head (timm, transformers).
    #[arg(long, default_value_t = 10)]
    num_classes: usize,
    /// A transformers config override, key=value (repeatable), e.g. --hf-config hidden_size=64.
    #[arg(long = "hf-config", value_name = "KEY=VALUE")]
    hf_config: Vec<String>,
    /// The project's own eval data, module:function returning (inputs, labels); default:
    /// generated synthetic inputs without labels.
    #[arg(long)]
    eval_data: Option<String>,
    /// The project's own calibration data, module:function returning a list of input tuples;
    /// default: generated synthetic inputs.
    #[arg(long)]
    calibration_data: Option<String>,
    /// The generated example, eval and calibration inputs: `labelled` (default for timm and
    /// transformers models) gives labelled samples of the model's modality — scikit-learn's
    /// bundled digits resized for images, synthetic tasks with labels for text and audio — and
    /// fits the random-weight model's classifier head on a training split, so that its classes
    /// mean something; `synthetic` (the project's own model) gives
    /// fixed-seed noise without labels.
    #[arg(long, value_enum)]
    data: Option<InitData>,
    /// Ship the FP32 artifact (quantize = "none") instead of INT8.
    #[arg(long)]
    fp32: bool,
    /// p50 latency budget of the performance stage, in milliseconds.
    #[arg(long)]
    latency_budget_ms: Option<f64>,
    /// Replace an existing aipc.toml / aipc_hooks.py.
    #[arg(long)]
    force: bool,
    /// Never ask: every answer comes from the flags (implied when stdin is not a terminal).
    #[arg(long)]
    batch: bool,
}

/// An answer `aipc init` could not get, or a file it must not touch: (exit code, message).
type Failure = (i32, String);

fn usage(message: impl Into<String>) -> Failure {
    (exit::USAGE, message.into())
}

/// Run `aipc init`; returns the exit code.
pub(crate) fn init(args: InitArgs) -> i32 {
    match run(args, &mut Prompter::new()) {
        Ok(()) => 0,
        Err((code, message)) => {
            eprintln!("error: {message}");
            code
        }
    }
}

/// Questions in a terminal; none otherwise.
struct Prompter {
    interactive: bool,
    stdin: std::io::StdinLock<'static>,
}

impl Prompter {
    fn new() -> Prompter {
        let stdin = std::io::stdin();
        Prompter {
            interactive: stdin.is_terminal(),
            stdin: stdin.lock(),
        }
    }

    /// Ask `question` (with `default` shown); `None` when not interactive or at end of input.
    fn ask(&mut self, question: &str, default: Option<&str>) -> Option<String> {
        if !self.interactive {
            return None;
        }
        match default {
            Some(d) => eprint!("{question} [{d}]: "),
            None => eprint!("{question}: "),
        }
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        // A line is at most what a person types; a flood is cut (bounded memory).
        match std::io::Read::take(&mut self.stdin, 4096).read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let line = line.trim();
                if line.is_empty() {
                    default.map(str::to_string)
                } else {
                    Some(line.to_string())
                }
            }
        }
    }
}

fn run(args: InitArgs, prompter: &mut Prompter) -> Result<(), Failure> {
    if args.batch {
        prompter.interactive = false;
    }
    let project = args.project.clone();
    if !project.is_dir() {
        return Err(usage(format!(
            "{} is not a folder: give the project folder (default: the current one)",
            project.display()
        )));
    }
    let toml_path = project.join("aipc.toml");
    let hooks_path = project.join(HOOKS_FILE);
    for path in [&toml_path, &hooks_path] {
        if path.exists() && !args.force {
            return Err(usage(format!(
                "{} exists; nothing was written. Edit it, or run aipc init --force to replace it",
                path.display()
            )));
        }
    }
    let plan = plan(&args, &project, prompter)?;
    write(&toml_path, &aipc_toml(&plan))?;
    write(&hooks_path, &hooks_py(&plan))?;
    if plan.data == InitData::Labelled {
        ignore_hooks_cache(&project)?;
    }
    eprintln!("wrote {} and {}", toml_path.display(), hooks_path.display());
    let text = aipc_toml(&plan);
    let mut problems = crate::project_table::validate(&text, &project);
    if problems.is_empty() {
        match crate::project_entries::check(&text, &project) {
            Ok(found) => problems.extend(found.iter().map(|p| p.to_table_problem())),
            Err(why) => eprintln!(
                "note: the model functions were not parsed ({why}); the env stage imports them"
            ),
        }
    }
    if !problems.is_empty() {
        let lines: Vec<String> = problems
            .iter()
            .map(|p| match p.line {
                Some(line) => format!("  {}:{line}: {}", toml_path.display(), p.message),
                None => format!("  {}: {}", toml_path.display(), p.message),
            })
            .collect();
        return Err(usage(format!(
            "the project is not ready to deploy; fix these, then aipc run {}:\n{}",
            project.display(),
            lines.join("\n")
        )));
    }
    println!(
        "ready: aipc run {} (the {} toolchain is set up on the first run; aipc doctor --target {} \
         says what is missing)",
        project.display(),
        plan.target,
        plan.target
    );
    Ok(())
}

/// Add the hooks' cache of fitted weights to the project's `.gitignore` (created when missing):
/// it is rebuilt on demand and can be large, so it never belongs in a commit.
fn ignore_hooks_cache(project: &Path) -> Result<(), Failure> {
    let path = project.join(".gitignore");
    let entry = format!("{HOOKS_CACHE_DIR}/");
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err((
                exit::ENVIRONMENT,
                format!("reading {}: {e}", path.display()),
            ))
        }
    };
    if existing.lines().any(|line| line.trim() == entry) {
        return Ok(());
    }
    let separator = if existing.is_empty() || existing.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    write(
        &path,
        &format!("{existing}{separator}# aipc init: the hooks' fitted weights\n{entry}\n"),
    )
}

fn write(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text).map_err(|e| {
        (
            exit::ENVIRONMENT,
            format!("writing {}: {e}", path.display()),
        )
    })
}

/// Every decision, from the flags or asked.
fn plan(args: &InitArgs, project: &Path, prompter: &mut Prompter) -> Result<InitPlan, Failure> {
    let source = match &args.from {
        Some(spec) => ModelSource::parse(spec).map_err(usage)?,
        None => ask_source(project, prompter)?,
    };
    let default_target = crate::config::load(Some(project))
        .ok()
        .and_then(|c| c.target.value.clone())
        .unwrap_or_else(|| TARGETS[0].to_string());
    let target = match &args.target {
        Some(t) => t.clone(),
        None => prompter
            .ask(
                &format!("target ({})", TARGETS.join(" | ")),
                Some(&default_target),
            )
            .unwrap_or(default_target),
    };
    if !TARGETS.contains(&target.as_str()) {
        return Err(usage(format!(
            "target `{target}`: aipc init knows {}; another target's aipc.toml is written by hand \
             (docs/toolbox.md)",
            TARGETS.join(", ")
        )));
    }
    let input_shape = match (&args.input_shape, &source) {
        (Some(shape), _) => Some(shape.clone()),
        (None, ModelSource::Entry(entry)) => {
            let answer = prompter
                .ask(
                    &format!("input shape of one sample for {entry}, without the batch dim (e.g. 3,32,32)"),
                    None,
                )
                .ok_or_else(|| {
                    usage(format!(
                        "the input shape of {entry} is not known: give --input-shape, one \
                         sample's shape without the batch dim (e.g. --input-shape 3,32,32)"
                    ))
                })?;
            Some(parse_shape(&answer)?)
        }
        (None, _) => None,
    };
    if input_shape
        .as_ref()
        .is_some_and(|s| s.is_empty() || s.contains(&0))
    {
        return Err(usage(
            "--input-shape: every dim must be at least 1, e.g. 3,32,32",
        ));
    }
    let int8 = if args.fp32 {
        false
    } else {
        !matches!(
            prompter
                .ask("ship INT8 (y) or FP32 (n)", Some("y"))
                .as_deref(),
            Some("n" | "N" | "no")
        )
    };
    let latency_budget_ms = match args.latency_budget_ms {
        Some(ms) => Some(ms),
        None => match prompter.ask("p50 latency budget in ms (blank: none)", Some("")) {
            Some(a) if !a.is_empty() => Some(a.parse::<f64>().map_err(|_| {
                usage(format!(
                    "latency budget `{a}`: expected milliseconds, e.g. 5.0"
                ))
            })?),
            _ => None,
        },
    };
    if latency_budget_ms.is_some_and(|ms| !(ms.is_finite() && ms > 0.0)) {
        return Err(usage(
            "--latency-budget-ms: expected a positive number of milliseconds",
        ));
    }
    let mut hf_config = Vec::new();
    for pair in &args.hf_config {
        let (key, value) = pair
            .split_once('=')
            .filter(|(k, _)| crate::project_init::is_identifier(k))
            .ok_or_else(|| {
                usage(format!(
                    "--hf-config `{pair}`: expected key=value, e.g. hidden_size=64"
                ))
            })?;
        hf_config.push((key.to_string(), value.to_string()));
    }
    for (flag, entry) in [
        ("--eval-data", &args.eval_data),
        ("--calibration-data", &args.calibration_data),
    ] {
        if let Some(entry) = entry {
            if !matches!(ModelSource::parse(entry), Ok(ModelSource::Entry(_))) {
                return Err(usage(format!("{flag} `{entry}`: expected module:function")));
            }
        }
    }
    if args.num_classes < 2 {
        return Err(usage("--num-classes: at least 2"));
    }
    let data = match (args.data, &source) {
        (Some(InitData::Labelled), ModelSource::Entry(entry)) => {
            return Err(usage(format!(
                "--data labelled fits a random-weight model from timm or transformers; {entry}                  has its own weights: name your own data with --eval-data and                  --calibration-data, or use --data synthetic"
            )))
        }
        (Some(data), _) => data,
        (None, ModelSource::Entry(_)) => InitData::Synthetic,
        (None, _) => InitData::Labelled,
    };
    Ok(InitPlan {
        source,
        target,
        input_shape,
        num_classes: args.num_classes,
        hf_config,
        eval_data: args.eval_data.clone(),
        calibration_data: args.calibration_data.clone(),
        int8,
        latency_budget_ms,
        data,
    })
}

fn parse_shape(text: &str) -> Result<Vec<usize>, Failure> {
    text.split(',')
        .map(|d| d.trim().parse::<usize>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| {
            usage(format!(
                "input shape `{text}`: expected dims separated by commas, e.g. 3,32,32"
            ))
        })
}

/// Ask where the model comes from, offering the functions of the project that look like it.
fn ask_source(project: &Path, prompter: &mut Prompter) -> Result<ModelSource, Failure> {
    let candidates = model_candidates(project);
    let listed = if candidates.is_empty() {
        String::from("none found")
    } else {
        candidates.join(", ")
    };
    if !prompter.interactive {
        return Err(usage(format!(
            "where the model comes from is not known: give --from module:function (the project's \
             function returning the nn.Module; candidates: {listed}), timm:<name> or hf:<model type>"
        )));
    }
    for (k, c) in candidates.iter().enumerate() {
        eprintln!("  {}. {c}", k + 1);
    }
    let default = candidates.first().map(String::as_str);
    let answer = prompter
        .ask(
            "the model: a number above, module:function, timm:<name> or hf:<model type>",
            default,
        )
        .ok_or_else(|| usage("no answer: give --from"))?;
    let spec = match answer.parse::<usize>() {
        Ok(k) if (1..=candidates.len()).contains(&k) => candidates[k - 1].clone(),
        _ => answer,
    };
    ModelSource::parse(&spec).map_err(usage)
}

/// `module:function` of the project's top-level functions whose name says they make a model
/// (model, net, build, create, load), nearest files first; the project's own code only.
fn model_candidates(project: &Path) -> Vec<String> {
    let mut files = Vec::new();
    collect_python(project, project, 0, &mut files);
    files.sort_by_key(|rel| (rel.components().count(), rel.clone()));
    let mut out = Vec::new();
    for rel in files {
        let module = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(".");
        let module = module
            .strip_suffix(".__init__")
            .unwrap_or(&module)
            .to_string();
        if module == "aipc_hooks" || !module.split('.').all(crate::project_init::is_identifier) {
            continue;
        }
        let Ok(text) =
            crate::safe_read::read(&project.join(&rel), crate::safe_read::WORKSPACE_FILE)
        else {
            continue;
        };
        for line in String::from_utf8_lossy(&text).lines() {
            let Some(rest) = line.strip_prefix("def ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let lower = name.to_ascii_lowercase();
            let looks_like = ["model", "net", "build", "create", "load"]
                .iter()
                .any(|w| lower.contains(w));
            if looks_like && !name.starts_with('_') && !lower.contains("data") {
                out.push(format!("{module}:{name}"));
                if out.len() == MAX_CANDIDATES {
                    return out;
                }
            }
        }
    }
    out
}

fn collect_python(root: &Path, dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    const SKIPPED: &[&str] = &[
        ".git",
        ".aipc",
        "build",
        "venv",
        ".venv",
        "__pycache__",
        "node_modules",
    ];
    if depth > 4 || out.len() >= MAX_SCANNED_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && !SKIPPED.contains(&name.as_str()) && !name.starts_with('.') {
            collect_python(root, &path, depth + 1, out);
        } else if kind.is_file() && name.ends_with(".py") {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
        if out.len() >= MAX_SCANNED_FILES {
            return;
        }
    }
}
