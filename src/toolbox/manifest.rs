//! Loading and validating a target's toolbox manifest, `toolbox/targets/<target>/toolbox.toml`
//! (format: docs/toolbox.md), with the manifests it includes (`[[include]] path = "…"`: their
//! tools take the include's place among the target's own, e.g. the shared codemods of
//! `toolbox/fixes/toolbox.toml`) and its `renamed` scripts, and every problem located by file,
//! line, tool and key:
//!
//! ```text
//! toolbox.toml:9: tool "export": key "script": script not found: /…/targets/t/exprt.py
//!   hint: `script` is relative to the manifest's folder, e.g. "export.py" or "../../fixes/x.py"
//! ```

use super::{Toolbox, ToolboxTool};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

const FORMAT_HINT: &str = "see docs/toolbox.md for the manifest format";

/// A manifest that cannot be loaded: where, what, and what to do. Boxed, so that results stay
/// small; the parts are read through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ManifestError(Box<ManifestErrorInfo>);

/// The parts of a [`ManifestError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestErrorInfo {
    pub file: String,
    pub line: Option<usize>,
    /// The tool the problem is in.
    pub tool: Option<String>,
    pub key: Option<String>,
    pub message: String,
    pub hint: Option<String>,
}

impl std::ops::Deref for ManifestError {
    type Target = ManifestErrorInfo;

    fn deref(&self) -> &ManifestErrorInfo {
        &self.0
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(tool) = &self.tool {
            write!(f, ": tool \"{tool}\"")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": key \"{key}\"")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl ManifestError {
    /// An error in `file` with nothing else known yet.
    pub fn new(file: &str, message: impl Into<String>) -> Self {
        ManifestError(Box::new(ManifestErrorInfo {
            file: file.to_string(),
            line: None,
            tool: None,
            key: None,
            message: message.into(),
            hint: None,
        }))
    }

    fn line(mut self, line: usize) -> Self {
        self.0.line = Some(line);
        self
    }

    fn tool(mut self, tool: &str) -> Self {
        self.0.tool = Some(tool.to_string());
        self
    }

    fn key(mut self, key: impl Into<String>) -> Self {
        self.0.key = Some(key.into());
        self
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.0.hint = Some(hint.into());
        self
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    /// Scripts renamed since sessions were recorded: old file name → new one, both in this
    /// manifest's folder.
    #[serde(default)]
    renamed: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    tool: Vec<RawTool>,
    /// Manifests whose tools take the place of the `[[include]]` among the `[[tool]]`s.
    #[serde(default)]
    include: Vec<RawInclude>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInclude {
    path: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    name: Spanned<String>,
    script: Spanned<String>,
    description: Spanned<String>,
    timeout_s: Option<Spanned<u64>>,
    args: Option<Spanned<toml::Table>>,
}

/// JSON schema types a property may have.
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "null",
];

/// Parse and validate a manifest's `text` and the manifests it includes; `file` names it in
/// messages, `base` is its folder (scripts and includes are relative to it), `reserved` are the
/// names of the built-in tools.
pub fn parse(
    file: &str,
    text: &str,
    base: &Path,
    reserved: &[&str],
) -> Result<Toolbox, ManifestError> {
    let mut loader = Loader {
        reserved,
        tools: Vec::new(),
        seen: BTreeMap::new(),
        chain: vec![base.join(super::MANIFEST_FILE)],
    };
    let renamed = loader.load(file, text, base)?;
    Ok(Toolbox {
        file: Some(base.join(super::MANIFEST_FILE)),
        tools: loader.tools,
        renamed,
    })
}

/// How deep `[[include]]` may nest (a deeper chain is almost surely a mistake).
const MAX_INCLUDE_DEPTH: usize = 8;

const INCLUDE_HINT: &str = "`[[include]]` takes `path`, a manifest relative to this one's folder, \
                            e.g. path = \"../../fixes/toolbox.toml\"";

/// The tools of a manifest and its includes, collected in order.
struct Loader<'a> {
    reserved: &'a [&'a str],
    tools: Vec<ToolboxTool>,
    /// Each tool's name → the file and line that declared it.
    seen: BTreeMap<String, (String, usize)>,
    /// The manifests being loaded (the including ones first), to catch an include cycle.
    chain: Vec<PathBuf>,
}

/// One `[[tool]]` or `[[include]]` of a manifest, in file order.
enum Entry {
    Tool(RawTool),
    Include(RawInclude),
}

impl Entry {
    /// Where in the text the entry stands (its tables do not overlap).
    fn start(&self) -> usize {
        match self {
            Entry::Tool(t) => t.name.span().start,
            Entry::Include(i) => i.path.span().start,
        }
    }
}

impl Loader<'_> {
    /// Add the tools of the manifest `text` (`file` in messages, in folder `base`): its own and
    /// its includes', in the order they stand. Returns its `renamed` table.
    fn load(
        &mut self,
        file: &str,
        text: &str,
        base: &Path,
    ) -> Result<Vec<(String, String)>, ManifestError> {
        let raw: RawManifest = toml::from_str(text).map_err(|e| serde_error(file, text, &e))?;
        let mut entries: Vec<Entry> = raw
            .tool
            .into_iter()
            .map(Entry::Tool)
            .chain(raw.include.into_iter().map(Entry::Include))
            .collect();
        entries.sort_by_key(Entry::start);
        for entry in entries {
            match entry {
                Entry::Tool(raw_tool) => {
                    let line = line_of(text, raw_tool.name.span().start);
                    let name = raw_tool.name.get_ref().clone();
                    if let Some((first_file, first_line)) = self.seen.get(&name) {
                        let first = if first_file == file {
                            format!("line {first_line}")
                        } else {
                            format!("{first_file} line {first_line}")
                        };
                        return Err(ManifestError::new(
                            file,
                            format!("duplicate tool name (first defined on {first})"),
                        )
                        .line(line)
                        .tool(&name)
                        .key("name")
                        .hint("each [[tool]] needs a unique name, included manifests' tools too"));
                    }
                    let tool = tool(file, text, base, self.reserved, raw_tool)?;
                    self.seen.insert(name, (file.to_string(), line));
                    self.tools.push(tool);
                }
                Entry::Include(include) => self.include(file, text, base, include)?,
            }
        }
        renamed_scripts(file, text, base, raw.renamed)
    }

    /// Load the manifest an `[[include]]` of `file` names.
    fn include(
        &mut self,
        file: &str,
        text: &str,
        base: &Path,
        include: RawInclude,
    ) -> Result<(), ManifestError> {
        let rel = include.path.get_ref();
        let err = |message: String| {
            ManifestError::new(file, message)
                .line(line_of(text, include.path.span().start))
                .key("include.path")
                .hint(INCLUDE_HINT)
        };
        if rel.trim().is_empty() || Path::new(rel).is_absolute() {
            return Err(err(format!(
                "\"{rel}\" must be a path relative to the manifest's folder"
            )));
        }
        let path = base.join(rel);
        let path = path.canonicalize().unwrap_or(path);
        if self.chain.len() >= MAX_INCLUDE_DEPTH {
            return Err(err(format!(
                "\"{rel}\": includes nest deeper than {MAX_INCLUDE_DEPTH} manifests"
            )));
        }
        let canonical = |p: &PathBuf| p.canonicalize().unwrap_or_else(|_| p.clone());
        if self.chain.iter().any(|p| canonical(p) == path) {
            return Err(err(format!(
                "\"{rel}\": include cycle ({} is already being loaded)",
                path.display()
            )));
        }
        let included = crate::safe_read::read_to_string(&path, crate::safe_read::CONTRACT)
            .map_err(|e| err(format!("\"{rel}\": {e}")))?;
        let name = path.display().to_string();
        let folder = path.parent().unwrap_or(base).to_path_buf();
        self.chain.push(path);
        let renamed = self.load(&name, &included, &folder)?;
        self.chain.pop();
        if !renamed.is_empty() {
            return Err(err(format!(
                "\"{rel}\": an included manifest cannot rename scripts (`renamed`)"
            ))
            .hint("`renamed` belongs in the target's own toolbox.toml: recorded check commands name $AIPC_TARGET_DIR"));
        }
        Ok(())
    }
}

/// Validate one `[[tool]]` of `file` (its name's uniqueness aside).
fn tool(
    file: &str,
    text: &str,
    base: &Path,
    reserved: &[&str],
    raw_tool: RawTool,
) -> Result<ToolboxTool, ManifestError> {
    let line = line_of(text, raw_tool.name.span().start);
    let name = raw_tool.name.get_ref().clone();
    let at = |spanned_start: usize| line_of(text, spanned_start);
    let err = |start: usize, message: String| {
        ManifestError::new(file, message)
            .line(at(start))
            .tool(&name)
    };
    if !name.starts_with(|c: char| c.is_ascii_lowercase())
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(err(
            raw_tool.name.span().start,
            format!("tool name \"{name}\" is not [a-z][a-z0-9_]*"),
        )
        .key("name")
        .hint("the model calls the tool by this name: a lower-case letter, then lower-case letters, digits and `_`, e.g. \"export\"",
        ));
    }
    if reserved.contains(&name.as_str()) {
        return Err(err(
            raw_tool.name.span().start,
            format!("\"{name}\" is the name of a built-in tool"),
        )
        .key("name")
        .hint("give the toolbox tool another name, e.g. \"toolbox_{name}\""));
    }
    let description = raw_tool.description.get_ref().trim().to_string();
    if description.is_empty() {
        return Err(err(
            raw_tool.description.span().start,
            "empty description".into(),
        )
        .key("description")
        .hint("say in one line what the tool does and what it writes; the model reads it"));
    }
    let script_rel = raw_tool.script.get_ref();
    if script_rel.trim().is_empty() || Path::new(script_rel).is_absolute() {
        return Err(err(
            raw_tool.script.span().start,
            format!("script \"{script_rel}\" must be a path relative to the manifest's folder"),
        )
        .key("script")
        .hint("e.g. \"export.py\" or \"../../fixes/x.py\""));
    }
    let script = base.join(script_rel);
    if !script.is_file() {
        return Err(err(
                raw_tool.script.span().start,
                format!("script not found: {}", script.display()),
            )
            .key("script")
            .hint("`script` is relative to the manifest's folder, e.g. \"export.py\" or \"../../fixes/x.py\""));
    }
    let script = script.canonicalize().unwrap_or(script);
    let timeout_s = match raw_tool.timeout_s {
        Some(t) if *t.get_ref() == 0 => return Err(err(
            t.span().start,
            "must be at least 1".into(),
        )
        .key("timeout_s")
        .hint(
            "seconds before the script is killed; remove the key for the stage's run_timeout_s",
        )),
        t => t.map(Spanned::into_inner),
    };
    let schema = match raw_tool.args {
        None => Value::Object(Map::new()),
        Some(args) => {
            let start = args.span().start;
            serde_json::to_value(args.into_inner())
                .map_err(|e| err(start, format!("arguments schema is not JSON: {e}")).key("args"))?
        }
    };
    let schema = object_schema(schema).map_err(|(key, message)| {
            let mut e = ManifestError::new(file, message)
                .tool(&name)
                .key(key)
                .hint("`[tool.args]` is the JSON schema of the arguments object: type = \"object\", properties.<name> = { type = \"integer\", description = \"…\" }, required = [...]");
            e.0.line = Some(line);
            e
        })?;
    Ok(ToolboxTool {
        name,
        description,
        script,
        timeout_s,
        schema,
    })
}

/// Check the `renamed` table: plain file names, the new one present, the old one gone.
fn renamed_scripts(
    file: &str,
    text: &str,
    base: &Path,
    raw: BTreeMap<String, Spanned<String>>,
) -> Result<Vec<(String, String)>, ManifestError> {
    const HINT: &str = "`renamed` maps a script's old file name to its new one, both in the \
                        manifest's folder, e.g. renamed = { \"inspect.py\" = \"inspect_artifact.py\" }";
    let plain =
        |name: &str| !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != "..";
    let mut out = Vec::new();
    for (old, new) in raw {
        let line = line_of(text, new.span().start);
        let err = |message: String| {
            ManifestError::new(file, message)
                .line(line)
                .key(format!("renamed.\"{old}\""))
                .hint(HINT)
        };
        let new = new.into_inner();
        if !plain(&old) || !plain(&new) {
            return Err(err(format!(
                "\"{old}\" = \"{new}\": both must be file names without a folder"
            )));
        }
        if !base.join(&new).is_file() {
            return Err(err(format!(
                "the new script is not there: {}",
                base.join(&new).display()
            )));
        }
        if base.join(&old).exists() {
            return Err(err(format!(
                "the old script is still there: {} (remove it, or drop this entry)",
                base.join(&old).display()
            )));
        }
        out.push((old, new));
    }
    Ok(out)
}

/// Check an arguments schema and complete it: `type = "object"` (added when the table is
/// empty), `properties` (default none), `additionalProperties = false` unless given, so the
/// constrained decoder cannot invent arguments. `Err((key, message))`.
fn object_schema(schema: Value) -> Result<Value, (String, String)> {
    let Value::Object(mut map) = schema else {
        return Err(("args".into(), "must be a table".into()));
    };
    if map.is_empty() {
        map.insert("type".into(), Value::from("object"));
    }
    match map.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err((
                "args.type".into(),
                format!(
                    "the arguments must be an object schema (type = \"object\"), found {other}"
                ),
            ))
        }
        None => {
            return Err((
                "args.type".into(),
                "missing: the arguments must be an object schema (type = \"object\")".into(),
            ))
        }
    }
    let properties = map
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(properties) = properties else {
        return Err((
            "args.properties".into(),
            "must be a table of property schemas".into(),
        ));
    };
    for (prop, spec) in properties.iter() {
        let ok_name = prop
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && prop.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok_name {
            return Err((
                format!("args.properties.{prop}"),
                format!("argument name \"{prop}\" must be letters, digits and `_` (it becomes --{prop})"),
            ));
        }
        let known = |t: &Value| t.as_str().is_some_and(|t| TYPES.contains(&t));
        let typed = match spec.get("type") {
            Some(Value::Array(ts)) => !ts.is_empty() && ts.iter().all(known),
            Some(t) => known(t),
            None => spec.get("enum").is_some() || spec.get("const").is_some(),
        };
        if !spec.is_object() || !typed {
            return Err((
                format!("args.properties.{prop}.type"),
                format!(
                    "argument \"{prop}\" needs a JSON schema type ({})",
                    TYPES.join(", ")
                ),
            ));
        }
    }
    let names: Vec<String> = properties.keys().cloned().collect();
    if let Some(required) = map.get("required") {
        let Some(items) = required.as_array() else {
            return Err((
                "args.required".into(),
                "must be a list of argument names".into(),
            ));
        };
        for item in items {
            match item.as_str() {
                Some(r) if names.iter().any(|n| n == r) => {}
                _ => {
                    return Err((
                        "args.required".into(),
                        format!("{item} is not one of the properties ({})", names.join(", ")),
                    ))
                }
            }
        }
    }
    map.entry("additionalProperties")
        .or_insert(Value::Bool(false));
    Ok(Value::Object(map))
}

/// A `toml` error located by line, with the `[[tool]]` it is in and the key.
fn serde_error(file: &str, text: &str, e: &toml::de::Error) -> ManifestError {
    let message = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .replace("expected u64", "expected a non-negative integer");
    let mut err = ManifestError::new(file, message.clone()).hint(FORMAT_HINT);
    let Some(span) = e.span() else { return err };
    let line = line_of(text, span.start);
    err = err.line(line);
    if let Some(tool) = tool_at(text, line) {
        err = err.tool(&tool);
    }
    for prefix in ["unknown field `", "missing field `"] {
        if let Some(start) = message.find(prefix) {
            let rest = &message[start + prefix.len()..];
            if let Some(end) = rest.find('`') {
                err = err.key(&rest[..end]);
            }
        }
    }
    err
}

/// The `name` of the `[[tool]]` table that line `line` (1-based) is in.
fn tool_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let upto = line.min(lines.len());
    let header = lines[..upto]
        .iter()
        .rposition(|l| l.trim().starts_with("[["))
        .filter(|&h| lines[h].trim().starts_with("[[tool]]"))?;
    lines[header + 1..]
        .iter()
        .take_while(|l| !l.trim().starts_with("[["))
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            if k.trim() != "name" {
                return None;
            }
            Some(v.trim().trim_matches('"').trim_matches('\'').to_string())
        })
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESERVED: &[&str] = &["run", "read_file"];

    fn dir_with(scripts: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for s in scripts {
            std::fs::write(dir.path().join(s), "print('{}')\n").unwrap();
        }
        dir
    }

    fn load(dir: &Path, text: &str) -> Result<Toolbox, ManifestError> {
        parse("toolbox.toml", text, dir, RESERVED)
    }

    #[test]
    fn a_valid_manifest_becomes_tools_with_closed_object_schemas() {
        let dir = dir_with(&["export.py", "inspect_artifact.py"]);
        let text = r#"
[[tool]]
name = "export"
script = "export.py"
description = "Export the model."
timeout_s = 60
[tool.args]
type = "object"
properties.opset = { type = "integer", minimum = 13, maximum = 23 }
properties.dynamic_batch = { type = "boolean" }
required = ["opset"]

[[tool]]
name = "inspect"
script = "inspect_artifact.py"
description = "Inspect the artifact."
"#;
        let toolbox = load(dir.path(), text).unwrap();
        assert_eq!(toolbox.names(), vec!["export", "inspect"]);
        let export = toolbox.get("export").unwrap();
        assert_eq!(export.timeout_s, Some(60));
        assert_eq!(export.schema["properties"]["opset"]["minimum"], 13);
        assert_eq!(export.schema["additionalProperties"], false);
        assert!(export.script.ends_with("export.py"));
        let inspect = toolbox.get("inspect").unwrap();
        assert_eq!(
            inspect.schema,
            serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
    }

    #[test]
    fn errors_name_file_line_tool_and_key() {
        let dir = dir_with(&["export.py"]);
        let cases: &[(&str, &str, &str)] = &[
            (
                "[[tool]]\nname = \"export\"\nscript = \"exprt.py\"\ndescription = \"d\"\n",
                "toolbox.toml:3: tool \"export\": key \"script\": script not found",
                "relative to the manifest",
            ),
            (
                "[[tool]]\nname = \"run\"\nscript = \"export.py\"\ndescription = \"d\"\n",
                "toolbox.toml:2: tool \"run\": key \"name\": \"run\" is the name of a built-in tool",
                "another name",
            ),
            (
                "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\ntimout_s = 3\n",
                "toolbox.toml:5: tool \"export\": key \"timout_s\": unknown field",
                "docs/toolbox.md",
            ),
            (
                "[[tool]]\nname = \"Export\"\nscript = \"export.py\"\ndescription = \"d\"\n",
                "toolbox.toml:2: tool \"Export\": key \"name\"",
                "lower-case",
            ),
            (
                "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\n[tool.args]\ntype = \"array\"\n",
                "toolbox.toml:2: tool \"export\": key \"args.type\": the arguments must be an object schema",
                "JSON schema",
            ),
            (
                "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\n[tool.args]\ntype = \"object\"\nproperties.opset = { minimum = 3 }\n",
                "key \"args.properties.opset.type\"",
                "JSON schema",
            ),
            (
                "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\n[tool.args]\ntype = \"object\"\nrequired = [\"opset\"]\n",
                "key \"args.required\"",
                "JSON schema",
            ),
            (
                "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\n\n[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\n",
                "toolbox.toml:7: tool \"export\": key \"name\": duplicate tool name (first defined on line 2)",
                "unique",
            ),
            (
                "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\ntimeout_s = 0\n",
                "toolbox.toml:5: tool \"export\": key \"timeout_s\": must be at least 1",
                "seconds",
            ),
            (
                "[[tool]]\nname = \"export\"\nscript = \"export.py\"\n",
                "toolbox.toml:1",
                "docs/toolbox.md",
            ),
        ];
        for (text, expected, hint) in cases {
            let err = load(dir.path(), text).unwrap_err();
            let shown = err.to_string();
            assert!(shown.contains(expected), "{shown}\nexpected: {expected}");
            assert!(shown.contains(hint), "{shown}\nexpected hint: {hint}");
        }
    }

    #[test]
    fn renamed_scripts_are_checked_against_the_folder() {
        let dir = dir_with(&["inspect_artifact.py", "export.py"]);
        let tool = "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\n";
        let text = format!("renamed = {{ \"inspect.py\" = \"inspect_artifact.py\" }}\n{tool}");
        let toolbox = load(dir.path(), &text).unwrap();
        assert_eq!(
            toolbox.renamed,
            vec![("inspect.py".to_string(), "inspect_artifact.py".to_string())]
        );
        let cases: &[(&str, &str)] = &[
            (
                "renamed = { \"profile.py\" = \"profile_latency.py\" }",
                "toolbox.toml:1: key \"renamed.\"profile.py\"\": the new script is not there",
            ),
            (
                "renamed = { \"export.py\" = \"inspect_artifact.py\" }",
                "the old script is still there",
            ),
            (
                "renamed = { \"inspect.py\" = \"../x/inspect_artifact.py\" }",
                "both must be file names without a folder",
            ),
        ];
        for (renamed, expected) in cases {
            let err = load(dir.path(), &format!("{renamed}\n{tool}")).unwrap_err();
            let shown = err.to_string();
            assert!(shown.contains(expected), "{shown}\nexpected: {expected}");
            assert!(shown.contains("hint: `renamed` maps"), "{shown}");
        }
    }

    #[test]
    fn included_tools_take_the_place_of_the_include() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("targets/t");
        let fixes = dir.path().join("fixes");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::create_dir_all(&fixes).unwrap();
        for script in [
            target.join("export.py"),
            target.join("report.py"),
            fixes.join("fix.py"),
        ] {
            std::fs::write(script, "print('{}')\n").unwrap();
        }
        std::fs::write(
            fixes.join("toolbox.toml"),
            "[[tool]]\nname = \"fix_a\"\nscript = \"fix.py\"\ndescription = \"a\"\n\n\
             [[tool]]\nname = \"fix_b\"\nscript = \"fix.py\"\ndescription = \"b\"\n",
        )
        .unwrap();
        let text = "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"e\"\n\n\
                    [[include]]\npath = \"../../fixes/toolbox.toml\"\n\n\
                    [[tool]]\nname = \"report\"\nscript = \"report.py\"\ndescription = \"r\"\n";
        let toolbox = load(&target, text).unwrap();
        assert_eq!(toolbox.names(), ["export", "fix_a", "fix_b", "report"]);
        // An included tool's script is relative to the included manifest's folder.
        let fix = toolbox.get("fix_a").unwrap();
        assert_eq!(fix.script, fixes.join("fix.py").canonicalize().unwrap());
        assert_eq!(toolbox.file, Some(target.join("toolbox.toml")));
    }

    #[test]
    fn include_errors_name_the_including_file_line_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("export.py"), "print('{}')\n").unwrap();
        let tool = "[[tool]]\nname = \"export\"\nscript = \"export.py\"\ndescription = \"d\"\n";
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write(
            "dup.toml",
            "[[tool]]\nname = \"export\"\nscript = \"t/export.py\"\ndescription = \"d\"\n",
        );
        write("cycle.toml", "[[include]]\npath = \"t/toolbox.toml\"\n");
        std::fs::write(
            target.join("toolbox.toml"),
            "[[include]]\npath = \"../cycle.toml\"\n",
        )
        .unwrap();
        write("renames.toml", "renamed = { \"a.py\" = \"b.py\" }\n");
        write("b.py", "print('{}')\n");
        let cases: &[(String, &str, &str)] = &[
            (
                format!("{tool}\n[[include]]\npath = \"../nope.toml\"\n"),
                "toolbox.toml:7: key \"include.path\": \"../nope.toml\": cannot read",
                "`[[include]]` takes `path`",
            ),
            (
                format!("{tool}\n[[include]]\npath = \"/abs/x.toml\"\n"),
                "key \"include.path\": \"/abs/x.toml\" must be a path relative",
                "`[[include]]` takes `path`",
            ),
            (
                format!("{tool}\n[[include]]\nfile = \"../dup.toml\"\n"),
                "toolbox.toml:7: key \"file\": unknown field",
                "docs/toolbox.md",
            ),
            (
                format!("{tool}\n[[include]]\npath = \"../dup.toml\"\n"),
                "dup.toml:2: tool \"export\": key \"name\": duplicate tool name (first defined on toolbox.toml line 2)",
                "included manifests' tools too",
            ),
            (
                "[[include]]\npath = \"../cycle.toml\"\n".to_string(),
                "include cycle",
                "`[[include]]` takes `path`",
            ),
            (
                "[[include]]\npath = \"../renames.toml\"\n".to_string(),
                "an included manifest cannot rename scripts",
                "belongs in the target's own toolbox.toml",
            ),
        ];
        for (text, expected, hint) in cases {
            let err = load(&target, text).unwrap_err();
            let shown = err.to_string();
            assert!(shown.contains(expected), "{shown}\nexpected: {expected}");
            assert!(shown.contains(hint), "{shown}\nexpected hint: {hint}");
        }
    }
}
