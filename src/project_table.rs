//! The `[project]` table of a project's `aipc.toml`: its keys (one definition,
//! `toolbox/lib/aipc_toolbox/project_keys.toml`, shared with the toolbox's Python reader and
//! embedded here at build time), the validation `aipc run` does before any toolchain is set up,
//! and the structured edit behind the `set_project_option` tool (toml_edit: comments, order and
//! spelling of everything else are kept).
//!
//! Validation is static: keys, types, accepted values, and for `module:function` entries that
//! the module's file exists in the project folder. Whether the function imports and returns the
//! right thing is the toolbox's `env` check (it needs the toolchain).

use crate::evidence::line_of;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

/// The shared key definitions (see the file's header for the fields).
const KEYS_TOML: &str = include_str!("../toolbox/lib/aipc_toolbox/project_keys.toml");

/// The type of a `[project]` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyType {
    String,
    Integer,
    Number,
    Boolean,
    StringList,
}

impl KeyType {
    fn describe(self) -> &'static str {
        match self {
            KeyType::String => "a string",
            KeyType::Integer => "an integer",
            KeyType::Number => "a number",
            KeyType::Boolean => "true or false",
            KeyType::StringList => "a list of strings",
        }
    }
}

/// One key's definition.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeySpec {
    #[serde(rename = "type")]
    pub kind: KeyType,
    pub doc: String,
    #[serde(default)]
    pub required: bool,
    /// A `module:function` in the project folder.
    #[serde(default)]
    pub entry: bool,
    #[serde(default)]
    pub values: Vec<String>,
    pub minimum: Option<f64>,
    pub default: Option<toml::Value>,
}

#[derive(Deserialize)]
struct KeysFile {
    keys: BTreeMap<String, KeySpec>,
}

/// Every `[project]` key, by name.
pub fn keys() -> &'static BTreeMap<String, KeySpec> {
    static KEYS: OnceLock<BTreeMap<String, KeySpec>> = OnceLock::new();
    KEYS.get_or_init(|| match toml::from_str::<KeysFile>(KEYS_TOML) {
        Ok(file) => file.keys,
        // The file is part of this build; `keys_file_parses` below keeps it valid.
        Err(_) => BTreeMap::new(),
    })
}

/// A problem with a `[project]` value, said so a user or a model can fix it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueProblem {
    #[error("unknown key `{key}` in [project]{hint}; the keys are: {known}")]
    UnknownKey {
        key: String,
        hint: String,
        known: String,
    },
    #[error("`{key}` must be {expected} ({doc}), not {got}")]
    WrongType {
        key: String,
        expected: &'static str,
        doc: String,
        got: String,
    },
    #[error("`{key}` = {got}: expected one of {allowed}")]
    NotAllowed {
        key: String,
        got: String,
        allowed: String,
    },
    #[error("`{key}` = {got}: expected at least {minimum}")]
    TooSmall {
        key: String,
        got: String,
        minimum: f64,
    },
    #[error("`{key}` = {got}: expected \"module:function\" (e.g. \"data:{key}\")")]
    NotAnEntry { key: String, got: String },
}

/// The spec of `key`, or an error naming the closest known key.
pub fn spec_of(key: &str) -> Result<&'static KeySpec, ValueProblem> {
    keys().get(key).ok_or_else(|| {
        let closest = keys()
            .keys()
            .map(|k| (similar::TextDiff::from_chars(key, k.as_str()).ratio(), k))
            .filter(|(ratio, _)| *ratio >= 0.6)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, k)| format!(" (did you mean `{k}`?)"))
            .unwrap_or_default();
        ValueProblem::UnknownKey {
            key: key.to_string(),
            hint: closest,
            known: keys().keys().cloned().collect::<Vec<_>>().join(", "),
        }
    })
}

/// Check `value` against `key`'s type, accepted values and minimum.
pub fn check_value(key: &str, value: &toml::Value) -> Result<(), ValueProblem> {
    let spec = spec_of(key)?;
    let shown = value.to_string();
    let type_ok = match (spec.kind, value) {
        (KeyType::String, toml::Value::String(_)) => true,
        (KeyType::Integer, toml::Value::Integer(_)) => true,
        (KeyType::Number, toml::Value::Integer(_) | toml::Value::Float(_)) => true,
        (KeyType::Boolean, toml::Value::Boolean(_)) => true,
        (KeyType::StringList, toml::Value::Array(items)) => {
            items.iter().all(|v| matches!(v, toml::Value::String(_)))
        }
        _ => false,
    };
    if !type_ok {
        return Err(ValueProblem::WrongType {
            key: key.to_string(),
            expected: spec.kind.describe(),
            doc: spec.doc.clone(),
            got: shown,
        });
    }
    if let toml::Value::String(s) = value {
        if !spec.values.is_empty() && !spec.values.contains(s) {
            return Err(ValueProblem::NotAllowed {
                key: key.to_string(),
                got: shown,
                allowed: spec
                    .values
                    .iter()
                    .map(|v| format!("\"{v}\""))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if spec.entry && !is_entry(s) {
            return Err(ValueProblem::NotAnEntry {
                key: key.to_string(),
                got: shown,
            });
        }
    }
    let number = match value {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    };
    if let (Some(n), Some(minimum)) = (number, spec.minimum) {
        if n < minimum || n.is_nan() {
            return Err(ValueProblem::TooSmall {
                key: key.to_string(),
                got: shown,
                minimum,
            });
        }
    }
    Ok(())
}

/// `module:function` with dotted module names; the function may be an attribute path from a
/// name the module binds (`data:Prep.standardise`, a static method; `data:SCALER.transform`, a
/// method of an object the module holds; `data:Prep().standardise`, a method of an object its
/// class makes with no arguments: a part of the path may end in `()`).
fn is_entry(s: &str) -> bool {
    let ident = |p: &str| {
        !p.is_empty()
            && !p.starts_with(|c: char| c.is_ascii_digit())
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let made_or_ident = |p: &str| ident(p.strip_suffix("()").unwrap_or(p));
    match s.split_once(':') {
        Some((module, function)) => {
            module.split('.').all(ident) && function.split('.').all(made_or_ident)
        }
        None => false,
    }
}

/// One problem found in an `aipc.toml`'s `[project]` table, with the 1-based line it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct TableProblem {
    pub line: Option<usize>,
    pub message: String,
}

/// Static validation of the `[project]` table in `text` (an `aipc.toml`) for the project in
/// `project_dir`: a missing table, missing required keys, unknown keys, wrong types and values,
/// and `module:function` entries whose module file is not in the project. Empty when all is well.
pub fn validate(text: &str, project_dir: &Path) -> Vec<TableProblem> {
    // ImDocument keeps the spans (DocumentMut drops them), so each problem can name its line.
    let doc = match toml_edit::ImDocument::parse(text) {
        Ok(doc) => doc,
        Err(e) => {
            return vec![TableProblem {
                line: e.span().map(|s| line_of(text, s.start)),
                message: e.message().to_string(),
            }]
        }
    };
    let Some(table) = doc.get("project").and_then(|t| t.as_table_like()) else {
        return vec![TableProblem {
            line: None,
            message: "no [project] table: add one with at least model = \"model:load_model\" and \
                      example_inputs = \"data:example_inputs\" (docs/toolbox.md)"
                .into(),
        }];
    };
    let header_line = doc
        .get("project")
        .and_then(|t| t.span())
        .map(|s| line_of(text, s.start));
    let mut problems = Vec::new();
    for (key, item) in table.iter() {
        let line = item.span().map(|s| line_of(text, s.start)).or(header_line);
        let Some(value) = item.as_value().and_then(from_edit_value) else {
            problems.push(TableProblem {
                line,
                message: format!("`{key}` must be a value, not a table"),
            });
            continue;
        };
        if let Err(problem) = check_value(key, &value) {
            problems.push(TableProblem {
                line,
                message: problem.to_string(),
            });
            continue;
        }
        if let (Ok(spec), toml::Value::String(entry)) = (spec_of(key), &value) {
            if spec.entry {
                if let Some(message) = missing_module(key, entry, project_dir) {
                    problems.push(TableProblem { line, message });
                }
            }
        }
    }
    for (key, spec) in keys() {
        if spec.required && !table.contains_key(key) {
            problems.push(TableProblem {
                line: header_line,
                message: format!("missing key `{key}` ({})", spec.doc),
            });
        }
    }
    problems
}

/// `key = "module:function"` whose module is neither `module.py` nor a package in the project.
fn missing_module(key: &str, entry: &str, project_dir: &Path) -> Option<String> {
    let (module, _) = entry.split_once(':')?;
    let relative: std::path::PathBuf = module.split('.').collect();
    let file = project_dir.join(&relative).with_extension("py");
    let package = project_dir.join(&relative).join("__init__.py");
    if file.is_file() || package.is_file() {
        return None;
    }
    Some(format!(
        "`{key}` = \"{entry}\": no module `{module}` in {} (neither {} nor {}/__init__.py)",
        project_dir.display(),
        relative.with_extension("py").display(),
        relative.display()
    ))
}

/// What [`set_option`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionChange {
    /// The new text of aipc.toml.
    pub text: String,
    /// The value before, as TOML, `None` when the key was absent.
    pub before: Option<String>,
}

/// Why [`set_option`] refused; the file is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetOptionError {
    #[error("aipc.toml does not parse: {0}; fix its syntax first")]
    Syntax(String),
    #[error("aipc.toml has no [project] table; the project must describe its model first")]
    NoTable,
    #[error("[project] `{0}` is a table, not a value; edit it with edit_file")]
    NotAValue(String),
    #[error("{0}")]
    Value(#[from] ValueProblem),
}

/// Set `key` in the `[project]` table of `text` to `value` (`None` removes it, so the default
/// applies), keeping every other line, comment and spelling. The value is checked first.
pub fn set_option(
    text: &str,
    key: &str,
    value: Option<&toml::Value>,
) -> Result<OptionChange, SetOptionError> {
    match value {
        Some(v) => check_value(key, v)?,
        None => {
            spec_of(key)?;
        }
    }
    let mut doc = text
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| SetOptionError::Syntax(e.message().to_string()))?;
    let table = doc
        .get_mut("project")
        .and_then(|t| t.as_table_like_mut())
        .ok_or(SetOptionError::NoTable)?;
    let before = match table.get(key) {
        Some(item) => Some(
            item.as_value()
                .ok_or_else(|| SetOptionError::NotAValue(key.to_string()))?
                .clone()
                .decorated("", "")
                .to_string(),
        ),
        None => None,
    };
    match value {
        Some(v) => {
            let new = to_edit_value(v);
            match table.get_mut(key).and_then(|item| item.as_value_mut()) {
                // Keep the comment after the value and the spacing around it.
                Some(old) => {
                    let decor = old.decor().clone();
                    *old = new;
                    *old.decor_mut() = decor;
                }
                None => {
                    table.insert(key, toml_edit::Item::Value(new));
                }
            }
        }
        None => {
            table.remove(key);
        }
    }
    Ok(OptionChange {
        text: doc.to_string(),
        before,
    })
}

/// A toml_edit value as a plain TOML value (inline tables are not `[project]` values).
fn from_edit_value(value: &toml_edit::Value) -> Option<toml::Value> {
    Some(match value {
        toml_edit::Value::String(s) => toml::Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => toml::Value::Integer(*i.value()),
        toml_edit::Value::Float(f) => toml::Value::Float(*f.value()),
        toml_edit::Value::Boolean(b) => toml::Value::Boolean(*b.value()),
        toml_edit::Value::Array(items) => toml::Value::Array(
            items
                .iter()
                .map(from_edit_value)
                .collect::<Option<Vec<_>>>()?,
        ),
        toml_edit::Value::Datetime(_) | toml_edit::Value::InlineTable(_) => return None,
    })
}

fn to_edit_value(value: &toml::Value) -> toml_edit::Value {
    match value {
        toml::Value::String(s) => s.as_str().into(),
        toml::Value::Integer(i) => (*i).into(),
        toml::Value::Float(f) => (*f).into(),
        toml::Value::Boolean(b) => (*b).into(),
        toml::Value::Array(items) => {
            let mut array = toml_edit::Array::new();
            for item in items {
                array.push(to_edit_value(item));
            }
            toml_edit::Value::Array(array)
        }
        other => other.to_string().as_str().into(),
    }
}

/// A tool call's JSON `value` for `key` as the TOML value it stands for: like
/// [`toml_from_json`], except that a string is read as the key's type when the key takes a
/// number, an integer or true/false (`"18"` for `opset`). The decoder is given numbers as text
/// of bounded length (a JSON number has none a schema can set), so text is how they arrive.
/// A string that does not read as that type stays a string, and [`check_value`] says why.
pub fn toml_for_key(key: &str, value: &serde_json::Value) -> Option<toml::Value> {
    let (Ok(spec), serde_json::Value::String(text)) = (spec_of(key), value) else {
        return toml_from_json(value);
    };
    let text_trimmed = text.trim();
    let typed = match spec.kind {
        KeyType::Integer => text_trimmed.parse::<i64>().ok().map(toml::Value::Integer),
        KeyType::Number => match text_trimmed.parse::<i64>() {
            Ok(i) => Some(toml::Value::Integer(i)),
            Err(_) => text_trimmed
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(toml::Value::Float),
        },
        KeyType::Boolean => text_trimmed.parse::<bool>().ok().map(toml::Value::Boolean),
        KeyType::String | KeyType::StringList => None,
    };
    typed.or_else(|| toml_from_json(value))
}

/// A JSON value (from a tool call) as the TOML value it stands for: strings, integers,
/// floats, booleans and arrays of them; `null` and objects are not values of `[project]`.
pub fn toml_from_json(value: &serde_json::Value) -> Option<toml::Value> {
    Some(match value {
        serde_json::Value::String(s) => toml::Value::String(s.clone()),
        serde_json::Value::Bool(b) => toml::Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        serde_json::Value::Array(items) => toml::Value::Array(
            items
                .iter()
                .map(toml_from_json)
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROJECT: &str = "target = \"onnxruntime-cpu\"\n\n[project]\n# the model\nmodel = \"model:load_model\"\nexample_inputs = \"data:example_inputs\"\nquantize=\"none\"   # ship FP32 for now\nopset = 17\n\n[stages.export]\nmax_attempts = 2\n";

    #[test]
    fn keys_file_parses_and_names_the_required_keys() {
        let file: KeysFile = toml::from_str(KEYS_TOML).unwrap();
        assert!(file.keys.len() >= 15);
        assert!(keys()["model"].required && keys()["model"].entry);
        assert_eq!(keys()["quantize"].values, ["int8", "none"]);
    }

    #[test]
    fn set_keeps_every_other_line_and_any_spelling_of_the_key() {
        let change = set_option(
            PROJECT,
            "quantize",
            Some(&toml::Value::String("int8".into())),
        )
        .unwrap();
        assert_eq!(change.before.as_deref(), Some("\"none\""));
        assert_eq!(
            change.text,
            PROJECT.replace("quantize=\"none\"", "quantize=\"int8\"")
        );
        let change = set_option(PROJECT, "opset", Some(&toml::Value::Integer(18))).unwrap();
        assert!(change.text.contains("opset = 18\n"), "{}", change.text);
        assert!(change.text.contains("[stages.export]\nmax_attempts = 2"));
    }

    #[test]
    fn set_adds_an_absent_key_and_unset_removes_it() {
        let change = set_option(
            PROJECT,
            "input_names",
            Some(&toml::Value::Array(vec![toml::Value::String("x".into())])),
        )
        .unwrap();
        assert!(change.before.is_none());
        assert!(
            change.text.contains("input_names = [\"x\"]"),
            "{}",
            change.text
        );
        let change = set_option(PROJECT, "opset", None).unwrap();
        assert!(!change.text.contains("opset"));
        assert_eq!(change.before.as_deref(), Some("17"));
    }

    #[test]
    fn set_refuses_bad_values_and_unknown_keys_saying_why() {
        let err = set_option(PROJECT, "quantise", Some(&toml::Value::Boolean(true))).unwrap_err();
        assert!(err.to_string().contains("did you mean `quantize`"), "{err}");
        let err = set_option(
            PROJECT,
            "quantize",
            Some(&toml::Value::String("fp16".into())),
        )
        .unwrap_err();
        assert!(err.to_string().contains("\"int8\", \"none\""), "{err}");
        let err =
            set_option(PROJECT, "opset", Some(&toml::Value::String("18".into()))).unwrap_err();
        assert!(err.to_string().contains("an integer"), "{err}");
        let err = set_option(PROJECT, "threads", Some(&toml::Value::Integer(0))).unwrap_err();
        assert!(err.to_string().contains("at least 1"), "{err}");
        let err =
            set_option(PROJECT, "model", Some(&toml::Value::String("model".into()))).unwrap_err();
        assert!(err.to_string().contains("module:function"), "{err}");
        for bad in [
            "data:",
            "data:Prep.",
            "data:.f",
            "data:1f",
            "data:a b",
            "data:()",
            "data:Prep(x)",
        ] {
            let err =
                set_option(PROJECT, "model", Some(&toml::Value::String(bad.into()))).unwrap_err();
            assert!(err.to_string().contains("module:function"), "{bad}: {err}");
        }
        set_option(
            PROJECT,
            "model",
            Some(&toml::Value::String("zoo.nets:Factory.build".into())),
        )
        .unwrap();
        set_option(
            PROJECT,
            "model",
            Some(&toml::Value::String("zoo.nets:Factory().build".into())),
        )
        .unwrap();
        let err = set_option("target = 1\n", "opset", Some(&toml::Value::Integer(18))).unwrap_err();
        assert_eq!(err, SetOptionError::NoTable);
        assert!(matches!(
            set_option("[project\n", "opset", None).unwrap_err(),
            SetOptionError::Syntax(_)
        ));
    }

    #[test]
    fn validate_names_the_line_of_each_problem() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("model.py"), "").unwrap();
        let text = "[project]\nmodel = \"model:load_model\"\nexample_inputs = \"data:example_inputs\"\nopset = \"18\"\nquantise = \"int8\"\n";
        let problems = validate(text, dir.path());
        let shown: Vec<(Option<usize>, &str)> = problems
            .iter()
            .map(|p| (p.line, p.message.as_str()))
            .collect();
        assert_eq!(problems.len(), 3, "{shown:?}");
        assert_eq!(problems[0].line, Some(3));
        assert!(problems[0].message.contains("no module `data`"));
        assert_eq!(problems[1].line, Some(4));
        assert!(problems[1].message.contains("an integer"));
        assert_eq!(problems[2].line, Some(5));
        assert!(problems[2].message.contains("did you mean `quantize`"));
        std::fs::write(dir.path().join("data.py"), "").unwrap();
        assert_eq!(validate(PROJECT, dir.path()), vec![]);
        let missing = validate("target = \"x\"\n", dir.path());
        assert!(missing[0].message.contains("no [project] table"));
        let required = validate("[project]\nmodel = \"model:m\"\n", dir.path());
        assert!(required[0].message.contains("missing key `example_inputs`"));
        assert_eq!(required[0].line, Some(1));
    }

    #[test]
    fn every_example_with_a_project_table_validates() {
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let mut seen = 0;
        for entry in std::fs::read_dir(&examples).unwrap() {
            let dir = entry.unwrap().path();
            let Ok(text) = std::fs::read_to_string(dir.join("aipc.toml")) else {
                continue;
            };
            if !text.contains("[project]") {
                continue;
            }
            seen += 1;
            assert_eq!(validate(&text, &dir), vec![], "{}", dir.display());
        }
        assert!(seen >= 8, "{seen} examples with a [project] table");
    }

    #[test]
    fn json_values_map_to_toml() {
        let v = toml_from_json(&serde_json::json!(["a", "b"])).unwrap();
        assert_eq!(v.to_string(), "[\"a\", \"b\"]");
        assert_eq!(
            toml_from_json(&serde_json::json!(2.5)),
            Some(toml::Value::Float(2.5))
        );
        assert_eq!(toml_from_json(&serde_json::json!(null)), None);
        assert_eq!(toml_from_json(&serde_json::json!({"a": 1})), None);
    }

    #[test]
    fn text_values_read_as_the_type_of_their_key() {
        let kind_of = |kind: KeyType| {
            keys()
                .iter()
                .find(|(_, spec)| spec.kind == kind)
                .map(|(key, _)| key.clone())
                .unwrap()
        };
        let (integer, number, boolean, string) = (
            kind_of(KeyType::Integer),
            kind_of(KeyType::Number),
            kind_of(KeyType::Boolean),
            kind_of(KeyType::String),
        );
        let text = |s: &str| serde_json::json!(s);
        assert_eq!(
            toml_for_key(&integer, &text(" 18")),
            Some(toml::Value::Integer(18))
        );
        assert_eq!(
            toml_for_key(&number, &text("2.5")),
            Some(toml::Value::Float(2.5))
        );
        assert_eq!(
            toml_for_key(&number, &text("4")),
            Some(toml::Value::Integer(4))
        );
        assert_eq!(
            toml_for_key(&boolean, &text("true")),
            Some(toml::Value::Boolean(true))
        );
        // Text that is not of the key's type stays text, and the check names the type.
        let not_a_number = toml_for_key(&integer, &text("eighteen")).unwrap();
        assert_eq!(not_a_number, toml::Value::String("eighteen".into()));
        assert!(check_value(&integer, &not_a_number).is_err());
        assert_eq!(
            toml_for_key(&number, &text("inf")),
            Some(toml::Value::String("inf".into()))
        );
        // A string key keeps digits as text; JSON numbers still map as before.
        assert_eq!(
            toml_for_key(&string, &text("18")),
            Some(toml::Value::String("18".into()))
        );
        assert_eq!(
            toml_for_key(&integer, &serde_json::json!(17)),
            Some(toml::Value::Integer(17))
        );
    }
}
