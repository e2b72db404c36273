//! Loading and validating a target's toolbox manifest, `toolbox/targets/<target>/toolbox.toml`
//! (format: docs/toolbox.md), with every problem located by file, line, tool and key:
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
use std::path::Path;
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
    #[serde(default)]
    tool: Vec<RawTool>,
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

/// Parse and validate a manifest's `text`; `file` names it in messages, `base` is its folder
/// (scripts are relative to it), `reserved` are the names of the built-in tools.
pub fn parse(
    file: &str,
    text: &str,
    base: &Path,
    reserved: &[&str],
) -> Result<Toolbox, ManifestError> {
    let raw: RawManifest = toml::from_str(text).map_err(|e| serde_error(file, text, &e))?;
    let mut tools: Vec<ToolboxTool> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for raw_tool in raw.tool {
        let line = line_of(text, raw_tool.name.span().start);
        let name = raw_tool.name.get_ref().clone();
        let at = |spanned_start: usize| line_of(text, spanned_start);
        let err = |start: usize, message: String| {
            ManifestError::new(file, message)
                .line(at(start))
                .tool(&name)
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            return Err(err(
                raw_tool.name.span().start,
                format!("tool name \"{name}\" is not [a-z_]+"),
            )
            .key("name")
            .hint("the model calls the tool by this name: lower-case letters and `_`, e.g. \"export\""));
        }
        if reserved.contains(&name.as_str()) {
            return Err(err(
                raw_tool.name.span().start,
                format!("\"{name}\" is the name of a built-in tool"),
            )
            .key("name")
            .hint("give the toolbox tool another name, e.g. \"toolbox_{name}\""));
        }
        if let Some(first) = seen.get(&name) {
            return Err(err(
                raw_tool.name.span().start,
                format!("duplicate tool name (first defined on line {first})"),
            )
            .key("name")
            .hint("each [[tool]] needs a unique name"));
        }
        seen.insert(name.clone(), line);
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
                serde_json::to_value(args.into_inner()).map_err(|e| {
                    err(start, format!("arguments schema is not JSON: {e}")).key("args")
                })?
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
        tools.push(ToolboxTool {
            name,
            description,
            script,
            timeout_s,
            schema,
        });
    }
    Ok(Toolbox {
        file: Some(base.join(super::MANIFEST_FILE)),
        tools,
    })
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
        .rposition(|l| l.trim().starts_with("[[tool]]"))?;
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
        let dir = dir_with(&["export.py", "inspect.py"]);
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
script = "inspect.py"
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
}
