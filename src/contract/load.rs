//! Parsing one contract file (a target's `contract.toml` or a project's `aipc.toml`) into a
//! validated [`Layer`], with every problem located by file, line and key.
//!
//! Deserialising uses `serde(deny_unknown_fields)` raw types whose located values are
//! `toml::Spanned`; serde / syntax errors carry a byte span that is turned into a line, and the
//! enclosing `[[stage]]` / `[[stage.check]]` (and its `name`) is found by scanning the table
//! headers above that line, so even a typo reads `aipc.toml:9: stage "export": key "atempts"`.

use super::condition::Condition;
use super::error::{check_ctx, stage_ctx, ContractError};
use super::gate::Gate;
use super::SandboxSettings;
use crate::protocol::Policy;
use crate::sandbox::SandboxMode;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use toml::Spanned;

/// Which kind of file a layer comes from; a few keys belong to one kind only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `toolbox/targets/<t>/contract.toml`.
    Target,
    /// The project's `aipc.toml`.
    Project,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    target: Option<Spanned<String>>,
    description: Option<Spanned<String>>,
    artifacts: Option<Vec<Spanned<String>>>,
    budgets: Option<RawBudgets>,
    defaults: Option<RawDefaults>,
    sandbox: Option<RawSandbox>,
    /// Free-form description of the project for the toolbox scripts (docs/toolbox.md); the
    /// engine only checks that it is a table, and only in a project's `aipc.toml`.
    project: Option<Spanned<toml::Table>>,
    /// Where the run, accuracy and performance stages execute (`crate::device`, which parses
    /// it); only in a project's `aipc.toml`.
    device: Option<Spanned<toml::Table>>,
    #[serde(default)]
    stage: Vec<RawStage>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudgets {
    total_tokens: Option<Spanned<u64>>,
    wall_time_s: Option<Spanned<u64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSandbox {
    mode: Option<Spanned<String>>,
    memory_mb: Option<Spanned<u64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    attempts: Option<Spanned<u32>>,
    turns_per_attempt: Option<Spanned<u32>>,
    run_timeout_s: Option<Spanned<u64>>,
    tools: Option<BTreeMap<String, Spanned<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStage {
    name: Spanned<String>,
    goal: Option<String>,
    skills: Option<Vec<String>>,
    agent: Option<bool>,
    checks_first: Option<bool>,
    main_tool: Option<String>,
    attempts: Option<Spanned<u32>>,
    turns_per_attempt: Option<Spanned<u32>>,
    run_timeout_s: Option<Spanned<u64>>,
    after: Option<Spanned<String>>,
    tools: Option<BTreeMap<String, Spanned<String>>>,
    check: Option<Vec<RawCheck>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    name: Spanned<String>,
    command: Option<String>,
    expect_exit: Option<i32>,
    files: Option<Vec<Spanned<String>>>,
    gates: Option<Vec<Spanned<String>>>,
    timeout_s: Option<Spanned<u64>>,
    when: Option<Spanned<String>>,
}

/// A value with the 1-based line it was written on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Located<T> {
    pub value: T,
    pub line: usize,
}

/// One file, validated: only what it sets is `Some` / non-empty.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    pub file: String,
    pub target: Option<Located<String>>,
    pub description: Option<String>,
    pub artifacts: Vec<String>,
    pub total_tokens: Option<u64>,
    pub wall_time_s: Option<u64>,
    pub attempts: Option<u32>,
    pub turns_per_attempt: Option<u32>,
    pub run_timeout_s: Option<u64>,
    pub tools: BTreeMap<String, Policy>,
    pub sandbox: SandboxSettings,
    pub stages: Vec<LayerStage>,
}

/// One `[[stage]]` entry of a file.
#[derive(Debug, Clone)]
pub(crate) struct LayerStage {
    pub name: String,
    /// Line of its `name` key.
    pub line: usize,
    pub goal: Option<String>,
    pub agent: Option<bool>,
    pub checks_first: Option<bool>,
    pub main_tool: Option<String>,
    pub skills: Option<Vec<String>>,
    pub attempts: Option<u32>,
    pub turns_per_attempt: Option<u32>,
    pub run_timeout_s: Option<u64>,
    pub after: Option<Located<String>>,
    pub tools: BTreeMap<String, Policy>,
    pub checks: Vec<LayerCheck>,
}

/// One `[[stage.check]]` entry of a file.
#[derive(Debug, Clone)]
pub(crate) struct LayerCheck {
    pub name: String,
    pub command: Option<String>,
    pub expect_exit: i32,
    pub files: Vec<String>,
    pub gates: Vec<Gate>,
    /// `None`: the stage's `run_timeout_s`.
    pub timeout_s: Option<u64>,
    pub when: Option<Condition>,
}

const FORMAT_HINT: &str = "see docs/contract.md for the contract format";

/// A file's text with its name, for turning spans into located errors.
struct Src<'a> {
    name: &'a str,
    text: &'a str,
}

impl Src<'_> {
    fn line(&self, offset: usize) -> usize {
        line_of(self.text, offset)
    }

    fn err<T>(&self, at: &Spanned<T>, message: impl Into<String>) -> ContractError {
        ContractError::new(self.name, message).with_line(self.line(at.span().start))
    }
}

/// 1-based line of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

impl Layer {
    /// Parse and validate one file. `name` is how the file is named in messages.
    pub(crate) fn parse(name: &str, text: &str, role: Role) -> Result<Layer, ContractError> {
        let src = Src { name, text };
        // Syntax first, so that a syntax error says so; then the shape.
        if let Err(e) = text.parse::<toml::Table>() {
            let err = serde_error(&src, &e);
            let message = format!("TOML syntax error: {}", err.message());
            let err = err.with_message(message).with_hint(
                "strings go in double quotes, tables are `[name]` / `[[stage]]`, \
                 one `key = value` per line",
            );
            return Err(err);
        }
        let raw: RawFile = toml::from_str(text).map_err(|e| serde_error(&src, &e))?;
        validate(&src, raw, role)
    }
}

fn validate(src: &Src<'_>, raw: RawFile, role: Role) -> Result<Layer, ContractError> {
    let target = match (raw.target, role) {
        (Some(t), _) => {
            if !is_simple_name(t.get_ref()) {
                return Err(src
                    .err(&t, format!("target name \"{}\" is not a plain name", t.get_ref()))
                    .with_key("target")
                    .with_hint("a target is a directory under toolbox/targets: letters, digits, `_`, `-`, `.`"));
            }
            Some(Located {
                value: t.get_ref().clone(),
                line: src.line(t.span().start),
            })
        }
        (None, Role::Target) => return Err(ContractError::new(src.name, "missing key")
            .with_key("target")
            .with_hint(
                "a target's contract.toml names its target, e.g. `target = \"onnxruntime-cpu\"`",
            )),
        (None, Role::Project) => None,
    };
    let description = match (raw.description, role) {
        (Some(d), Role::Project) => {
            return Err(src
                .err(&d, "only a target's contract.toml has a description")
                .with_key("description")
                .with_hint("remove it from aipc.toml"))
        }
        (d, _) => d.map(Spanned::into_inner),
    };
    if let (Some(p), Role::Target) = (&raw.project, role) {
        return Err(src
            .err(p, "only a project's aipc.toml has a [project] table")
            .with_key("project")
            .with_hint(
                "describe the project (model loader, inputs, …) in its aipc.toml, not in the target's contract",
            ));
    }
    if let (Some(d), Role::Target) = (&raw.device, role) {
        return Err(src
            .err(d, "only a project's aipc.toml has a [device] table")
            .with_key("device")
            .with_hint("the device a project runs on belongs in its aipc.toml (docs/device.md)"));
    }
    let mut artifacts = Vec::new();
    for a in raw.artifacts.unwrap_or_default() {
        check_glob(src, &a, None, "artifacts")?;
        artifacts.push(a.into_inner());
    }
    let budgets = raw.budgets.unwrap_or(RawBudgets {
        total_tokens: None,
        wall_time_s: None,
    });
    let defaults = raw.defaults.unwrap_or(RawDefaults {
        attempts: None,
        turns_per_attempt: None,
        run_timeout_s: None,
        tools: None,
    });
    let mut layer = Layer {
        file: src.name.to_string(),
        target,
        description,
        artifacts,
        total_tokens: nonzero(src, budgets.total_tokens, None, "budgets.total_tokens")?,
        wall_time_s: nonzero(src, budgets.wall_time_s, None, "budgets.wall_time_s")?,
        attempts: nonzero(src, defaults.attempts, None, "defaults.attempts")?,
        turns_per_attempt: nonzero(
            src,
            defaults.turns_per_attempt,
            None,
            "defaults.turns_per_attempt",
        )?,
        run_timeout_s: nonzero(src, defaults.run_timeout_s, None, "defaults.run_timeout_s")?,
        tools: policies(src, defaults.tools, None, "defaults.tools")?,
        sandbox: sandbox_settings(src, raw.sandbox)?,
        stages: Vec::new(),
    };
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for stage in raw.stage {
        let s = validate_stage(src, stage, role)?;
        if let Some(first) = seen.get(&s.name) {
            return Err(ContractError::new(
                src.name,
                format!("duplicate stage name (first defined on line {first})"),
            )
            .with_line(s.line)
            .with_context(stage_ctx(&s.name))
            .with_key("name")
            .with_hint(
                "give each [[stage]] a unique name; to change a stage, edit its one entry",
            ));
        }
        seen.insert(s.name.clone(), s.line);
        layer.stages.push(s);
    }
    Ok(layer)
}

fn validate_stage(src: &Src<'_>, raw: RawStage, role: Role) -> Result<LayerStage, ContractError> {
    let name = raw.name.get_ref().clone();
    let line = src.line(raw.name.span().start);
    if !is_stage_name(&name) {
        return Err(src
            .err(&raw.name, format!("stage name \"{name}\" is not a plain name"))
            .with_context("[[stage]]")
            .with_key("name")
            .with_hint("stage names are used in git tags and file names: start with a letter or digit, then letters, digits, `_`, `-`"));
    }
    let stage = stage_ctx(&name);
    let ctx = Some(stage.as_str());
    let after = match (raw.after, role) {
        (Some(a), Role::Target) => {
            return Err(src
                .err(&a, "`after` is only for stages a project's aipc.toml adds")
                .with_context(stage_ctx(&name))
                .with_key("after")
                .with_hint(
                    "in a target's contract.toml, stages run in the order they are written",
                ))
        }
        (a, _) => a.map(|a| Located {
            line: src.line(a.span().start),
            value: a.into_inner(),
        }),
    };
    let mut checks = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for c in raw.check.unwrap_or_default() {
        let check_name = c.name.get_ref().clone();
        if !seen.insert(check_name.clone()) {
            return Err(src
                .err(&c.name, "duplicate check name in this stage")
                .with_context(check_ctx(&name, &check_name))
                .with_key("name")
                .with_hint("give each [[stage.check]] of a stage a unique name"));
        }
        checks.push(validate_check(src, &name, c)?);
    }
    Ok(LayerStage {
        attempts: nonzero(src, raw.attempts, ctx, "attempts")?,
        turns_per_attempt: nonzero(src, raw.turns_per_attempt, ctx, "turns_per_attempt")?,
        run_timeout_s: nonzero(src, raw.run_timeout_s, ctx, "run_timeout_s")?,
        tools: policies(src, raw.tools, ctx, "tools")?,
        name,
        line,
        goal: raw.goal,
        agent: raw.agent,
        checks_first: raw.checks_first,
        main_tool: raw.main_tool,
        skills: raw.skills,
        after,
        checks,
    })
}

fn validate_check(src: &Src<'_>, stage: &str, raw: RawCheck) -> Result<LayerCheck, ContractError> {
    let name = raw.name.get_ref().clone();
    let ctx = check_ctx(stage, &name);
    if name.trim().is_empty() {
        return Err(src
            .err(&raw.name, "empty check name")
            .with_context(stage_ctx(stage))
            .with_key("check.name")
            .with_hint("name the check, e.g. `name = \"export runs\"`"));
    }
    let mut gates = Vec::new();
    for g in raw.gates.unwrap_or_default() {
        match Gate::parse(g.get_ref()) {
            Ok(gate) => gates.push(gate),
            Err(e) => {
                return Err(src
                    .err(&g, format!("bad gate \"{}\": {}", g.get_ref(), e.message))
                    .with_context(ctx)
                    .with_key("gates")
                    .with_hint(e.hint))
            }
        }
    }
    let mut files = Vec::new();
    for f in raw.files.unwrap_or_default() {
        check_glob(src, &f, Some(ctx.as_str()), "files")?;
        files.push(f.into_inner());
    }
    let name_err = |msg: &str, hint: &str| {
        src.err(&raw.name, msg)
            .with_context(ctx.clone())
            .with_hint(hint.to_string())
    };
    if raw.command.is_none() && files.is_empty() {
        return Err(name_err(
            "a check needs a `command`, `files`, or both",
            "add `command = \"…\"` to run something, or `files = [\"…\"]` to require outputs",
        ));
    }
    if raw.command.is_none() && !gates.is_empty() {
        return Err(name_err(
            "gates need a `command`: they read the JSON object it prints as its last stdout line",
            "add `command = \"…\"` that prints the metrics, or remove `gates`",
        )
        .with_key("gates"));
    }
    let when = match &raw.when {
        Some(w) => Some(Condition::parse(w.get_ref()).map_err(|e| {
            src.err(
                w,
                format!("bad condition \"{}\": {}", w.get_ref(), e.message),
            )
            .with_context(ctx.clone())
            .with_key("when")
            .with_hint(e.hint)
        })?),
        None => None,
    };
    Ok(LayerCheck {
        when,
        timeout_s: nonzero(src, raw.timeout_s, Some(&ctx), "timeout_s")?,
        name,
        command: raw.command,
        expect_exit: raw.expect_exit.unwrap_or(0),
        files,
        gates,
    })
}

/// A number that must not be zero.
fn nonzero<T>(
    src: &Src<'_>,
    v: Option<Spanned<T>>,
    ctx: Option<&str>,
    key: &str,
) -> Result<Option<T>, ContractError>
where
    T: Copy + PartialEq + Default,
{
    let Some(v) = v else { return Ok(None) };
    if *v.get_ref() == T::default() {
        let mut e = src.err(&v, "must be at least 1").with_key(key).with_hint(
            if key.ends_with("attempts") && !key.contains("turns") {
                "attempts counts the first try: 1 means no repair attempts"
            } else {
                "use a positive number, or remove the key to take the default"
            },
        );
        if let Some(c) = ctx {
            e = e.with_context(c);
        }
        return Err(e);
    }
    Ok(Some(*v.get_ref()))
}

fn policies(
    src: &Src<'_>,
    tools: Option<BTreeMap<String, Spanned<String>>>,
    ctx: Option<&str>,
    prefix: &str,
) -> Result<BTreeMap<String, Policy>, ContractError> {
    let mut out = BTreeMap::new();
    for (tool, p) in tools.unwrap_or_default() {
        let policy = match p.get_ref().as_str() {
            "allow" => Policy::Allow,
            "ask" => Policy::Ask,
            "deny" => Policy::Deny,
            other => {
                let mut e = src
                    .err(&p, format!("bad policy \"{other}\""))
                    .with_key(format!("{prefix}.{tool}"))
                    .with_hint("a tool's policy is \"allow\", \"ask\" or \"deny\"");
                if let Some(c) = ctx {
                    e = e.with_context(c);
                }
                return Err(e);
            }
        };
        out.insert(tool, policy);
    }
    Ok(out)
}

/// `[sandbox]`: a mode a contract may choose (never `off`: only the engineer's flag turns the
/// sandbox off) and a memory limit.
fn sandbox_settings(
    src: &Src<'_>,
    raw: Option<RawSandbox>,
) -> Result<SandboxSettings, ContractError> {
    let Some(raw) = raw else {
        return Ok(SandboxSettings::default());
    };
    let mode =
        match raw.mode {
            None => None,
            Some(m) => Some(match m.get_ref().as_str() {
                "strict" => SandboxMode::Strict,
                "workspace-write" => SandboxMode::WorkspaceWrite,
                "off" => return Err(src
                    .err(&m, "a contract cannot turn the sandbox off")
                    .with_key("sandbox.mode")
                    .with_hint(
                        "use \"strict\" or \"workspace-write\"; an engineer who wants no sandbox \
                         passes `--sandbox off` on the command line, which the session records",
                    )),
                other => {
                    return Err(src
                        .err(&m, format!("bad sandbox mode \"{other}\""))
                        .with_key("sandbox.mode")
                        .with_hint("the mode is \"strict\" or \"workspace-write\""))
                }
            }),
        };
    let memory_mb = nonzero(src, raw.memory_mb, None, "sandbox.memory_mb")?;
    Ok(SandboxSettings { mode, memory_mb })
}

fn check_glob(
    src: &Src<'_>,
    pattern: &Spanned<String>,
    ctx: Option<&str>,
    key: &str,
) -> Result<(), ContractError> {
    if let Err(e) = globset::Glob::new(pattern.get_ref()) {
        let mut err = src
            .err(
                pattern,
                format!("bad glob \"{}\": {}", pattern.get_ref(), e.kind()),
            )
            .with_key(key)
            .with_hint("use a path or a glob such as `*.onnx` or `out/**/*.bin`");
        if let Some(c) = ctx {
            err = err.with_context(c);
        }
        return Err(err);
    }
    Ok(())
}

fn is_simple_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_stage_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

// ---- locating serde / syntax errors -------------------------------------------------------

/// Turn a `toml` deserialisation or syntax error into a located [`ContractError`].
fn serde_error(src: &Src<'_>, e: &toml::de::Error) -> ContractError {
    let message = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .replace("expected u32", "expected a non-negative integer")
        .replace("expected u64", "expected a non-negative integer")
        .replace("expected i32", "expected an integer");
    let mut err = ContractError::new(src.name, message.clone()).with_hint(FORMAT_HINT);
    let Some(span) = e.span() else { return err };
    let line = src.line(span.start);
    err = err.with_line(line);
    let loc = locate(src.text, line);
    let unknown = backticked_after(&message, "unknown field `");
    let missing = backticked_after(&message, "missing field `");
    let key = unknown
        .clone()
        .or(missing)
        .or_else(|| key_on_line(src.text, &span));
    let (ctx, table_key) = loc.context_and_prefix();
    if let Some(ctx) = ctx {
        err = err.with_context(ctx);
    }
    let full_key = match (table_key, key) {
        (Some(t), Some(k)) => Some(format!("{t}.{k}")),
        (Some(t), None) => Some(t),
        (None, k) => k,
    };
    if let Some(k) = full_key {
        err = err.with_key(k);
    }
    if let Some(u) = unknown {
        if let Some(best) = closest(&u, &expected_list(&message)) {
            err = err.with_hint(format!("did you mean `{best}`? ({FORMAT_HINT})"));
        } else {
            err = err.with_hint(format!("remove or rename the key ({FORMAT_HINT})"));
        }
    }
    err
}

/// The text between `prefix` and the next backtick.
fn backticked_after(message: &str, prefix: &str) -> Option<String> {
    let start = message.find(prefix)? + prefix.len();
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_string())
}

/// The backticked names after `expected one of` / `expected` in a serde unknown-field message.
fn expected_list(message: &str) -> Vec<String> {
    let Some(at) = message.find("expected") else {
        return Vec::new();
    };
    message[at..]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The candidate nearest to `word` by edit distance, if near enough to be a typo.
fn closest(word: &str, candidates: &[String]) -> Option<String> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.clone())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The key of the `key = value` line the span starts on, or of the nearest such line above it
/// in the same table (a value inside a multi-line array).
fn key_on_line(text: &str, span: &Range<usize>) -> Option<String> {
    let start = span.start.min(text.len());
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    for line in text[..line_end].lines().rev() {
        let line = line.trim();
        if line.starts_with('[') {
            return None;
        }
        let Some((key, _)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches('"');
        let ok = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if ok {
            return Some(key.to_string());
        }
    }
    None
}

/// Where a line sits: the table header above it, and the names of the enclosing stage / check.
#[derive(Debug, Default, PartialEq)]
struct Location {
    /// Dotted header path, e.g. `stage.check` or `defaults.tools`; empty at the top level.
    table: Vec<String>,
    stage: Option<String>,
    check: Option<String>,
}

impl Location {
    /// (`stage "x" check "y"` context, key prefix within it).
    fn context_and_prefix(&self) -> (Option<String>, Option<String>) {
        let t: Vec<&str> = self.table.iter().map(String::as_str).collect();
        let stage = self.stage.as_deref().unwrap_or("?");
        match t.as_slice() {
            [] => (None, None),
            ["stage"] if self.stage.is_none() => (Some("[[stage]]".to_string()), None),
            ["stage"] => (Some(stage_ctx(stage)), None),
            ["stage", "check"] => match &self.check {
                Some(c) => (Some(check_ctx(stage, c)), None),
                None => (Some(stage_ctx(stage)), Some("check".to_string())),
            },
            ["stage", rest @ ..] => (Some(stage_ctx(stage)), Some(rest.join("."))),
            all => (None, Some(all.join("."))),
        }
    }
}

/// One table header line.
struct Header {
    line: usize,
    path: Vec<String>,
}

/// Table headers of a TOML text, skipping lines inside multi-line strings.
fn headers(text: &str) -> Vec<Header> {
    let mut out = Vec::new();
    let mut open: Option<&str> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(delim) = open {
            if raw.matches(delim).count() % 2 == 1 {
                open = None;
            }
            continue;
        }
        if line.starts_with('[') {
            let inner = line
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or_default();
            let path = inner
                .split('.')
                .map(|p| p.trim().trim_matches('"').trim_matches('\'').to_string())
                .collect();
            out.push(Header { line: i + 1, path });
            continue;
        }
        for delim in ["\"\"\"", "'''"] {
            if raw.matches(delim).count() % 2 == 1 {
                open = Some(delim);
                break;
            }
        }
    }
    out
}

/// The `name = "…"` value written directly in the table starting at header line `from`
/// (until the next header).
fn name_in_section(text: &str, from: usize, next: Option<usize>) -> Option<String> {
    text.lines()
        .enumerate()
        .skip(from)
        .take_while(|(i, _)| next.is_none_or(|n| i + 1 < n))
        .find_map(|(_, l)| {
            let (k, v) = l.trim().split_once('=')?;
            if k.trim() != "name" {
                return None;
            }
            let v = v.trim();
            let q = v.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let end = v[1..].find(q)?;
            Some(v[1..1 + end].to_string())
        })
}

/// Locate 1-based `line` among the text's tables.
fn locate(text: &str, line: usize) -> Location {
    let hs = headers(text);
    let idx = hs.iter().rposition(|h| h.line <= line);
    let Some(idx) = idx else {
        return Location::default();
    };
    let next_of = |i: usize| hs.get(i + 1).map(|h| h.line);
    let mut loc = Location {
        table: hs[idx].path.clone(),
        ..Location::default()
    };
    if loc.table.first().map(String::as_str) == Some("stage") {
        if let Some(s) = hs[..=idx].iter().rposition(|h| h.path == ["stage"]) {
            loc.stage = name_in_section(text, hs[s].line, next_of(s));
        }
        if loc.table == ["stage", "check"] {
            loc.check = name_in_section(text, hs[idx].line, next_of(idx));
        }
    }
    loc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_keys() {
        let text = "a = 1\nb = 2\n  c.d = 3\n";
        assert_eq!(line_of(text, 0), 1);
        assert_eq!(line_of(text, 6), 2);
        assert_eq!(line_of(text, 1000), 4);
        assert_eq!(key_on_line(text, &(8..9)), Some("b".into()));
        assert_eq!(key_on_line(text, &(14..15)), Some("c.d".into()));
    }

    #[test]
    fn locate_skips_multiline_strings() {
        let text = "x = 1\n[[stage]]\nname = \"export\"\ngoal = \"\"\"\n[fake]\nname = \"no\"\n\"\"\"\natempts = 3\n[[stage.check]]\nname = \"runs\"\nbad = 1\n[defaults.tools]\nr = 1\n";
        assert_eq!(locate(text, 1), Location::default());
        let l = locate(text, 8);
        assert_eq!(l.table, ["stage"]);
        assert_eq!(l.stage.as_deref(), Some("export"));
        let l = locate(text, 11);
        assert_eq!(l.check.as_deref(), Some("runs"));
        assert_eq!(
            l.context_and_prefix(),
            (Some("stage \"export\" check \"runs\"".into()), None)
        );
        let l = locate(text, 13);
        assert_eq!(
            l.context_and_prefix(),
            (None, Some("defaults.tools".into()))
        );
    }

    #[test]
    fn typo_suggestion() {
        let msg = "unknown field `atempts`, expected one of `name`, `goal`, `attempts`";
        assert_eq!(expected_list(msg), ["name", "goal", "attempts"]);
        assert_eq!(
            closest("atempts", &expected_list(msg)),
            Some("attempts".into())
        );
        assert_eq!(closest("zzzzzz", &expected_list(msg)), None);
    }
}
