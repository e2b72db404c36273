//! A check's `when`: a condition on the project's `aipc.toml [project]` table that says whether
//! the check applies to this project (`quantize != "none"`: the INT8 checks apply only to a
//! project that ships INT8).
//!
//! Grammar: `<key> <op> <value>`, spaces optional.
//! - `key`: a key of the `[project]` table, `[A-Za-z_][A-Za-z0-9_]*`.
//! - `op`: `==` or `!=`.
//! - `value`: a TOML string, integer, float or boolean (`"none"`, `4`, `0.5`, `true`).
//!
//! A key the table does not set equals nothing: `==` does not hold and `!=` holds. Numbers
//! compare by value (`4 == 4.0`). The condition is evaluated each time the check is about to
//! run, on `aipc.toml` as it is then, so a stage that changes the project (`set_project_option
//! quantize "int8"`) brings the checks that now apply into play.

use serde::{Deserialize, Serialize};
use std::fmt;

/// `==` or `!=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConditionOp {
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
}

/// A parsed `when`, with the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    /// The `[project]` key it reads.
    pub key: String,
    pub op: ConditionOp,
    /// The value it compares with: a string, integer, float or boolean.
    pub value: toml::Value,
    /// The condition as written (trimmed), e.g. `quantize != "none"`.
    pub source: String,
}

/// Why a `when` did not parse, with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionError {
    pub message: String,
    pub hint: String,
}

const HINT: &str = "`when` reads `<[project] key> == <value>` or `!=`, e.g. `quantize != \"none\"`";

fn error(message: impl Into<String>) -> ConditionError {
    ConditionError {
        message: message.into(),
        hint: HINT.to_string(),
    }
}

impl Condition {
    /// Parse a `when` expression.
    pub fn parse(text: &str) -> Result<Condition, ConditionError> {
        let source = text.trim();
        let key_len = source
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(source.len());
        let key = &source[..key_len];
        match key.chars().next() {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
            _ => return Err(error("expected a [project] key first")),
        }
        let rest = source[key_len..].trim_start();
        let (op, rest) = if let Some(r) = rest.strip_prefix("==") {
            (ConditionOp::Eq, r)
        } else if let Some(r) = rest.strip_prefix("!=") {
            (ConditionOp::Ne, r)
        } else {
            return Err(error(format!("expected `==` or `!=` after \"{key}\"")));
        };
        let literal = rest.trim();
        if literal.is_empty() {
            return Err(error(format!("expected a value after `{}`", op.symbol())));
        }
        let value = parse_value(literal).ok_or_else(|| {
            error(format!(
                "\"{literal}\" is not a TOML string, number or boolean (strings go in double quotes)"
            ))
        })?;
        Ok(Condition {
            key: key.to_string(),
            op,
            value,
            source: source.to_string(),
        })
    }

    /// Whether the condition holds for a `[project]` table (`None`: no `aipc.toml`, or no
    /// `[project]` in it: no key is set).
    pub fn holds(&self, project: Option<&toml::Table>) -> bool {
        let equal = project
            .and_then(|t| t.get(&self.key))
            .is_some_and(|v| same_value(v, &self.value));
        match self.op {
            ConditionOp::Eq => equal,
            ConditionOp::Ne => !equal,
        }
    }

    /// What the project sets, for a message: `quantize = "none"`, or `quantize is not set`.
    pub fn observed(&self, project: Option<&toml::Table>) -> String {
        match project.and_then(|t| t.get(&self.key)) {
            Some(v) => format!("{} = {v}", self.key),
            None => format!("{} is not set", self.key),
        }
    }
}

impl ConditionOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            ConditionOp::Eq => "==",
            ConditionOp::Ne => "!=",
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// A scalar TOML literal, parsed by the toml crate itself.
fn parse_value(literal: &str) -> Option<toml::Value> {
    let table: toml::Table = format!("v = {literal}").parse().ok()?;
    let value = table.get("v")?.clone();
    match value {
        toml::Value::String(_)
        | toml::Value::Integer(_)
        | toml::Value::Float(_)
        | toml::Value::Boolean(_) => Some(value),
        _ => None,
    }
}

fn same_value(a: &toml::Value, b: &toml::Value) -> bool {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn parses_strings_numbers_and_booleans() {
        let c = Condition::parse("  quantize != \"none\" ").unwrap();
        assert_eq!(c.key, "quantize");
        assert_eq!(c.op, ConditionOp::Ne);
        assert_eq!(c.value, toml::Value::String("none".into()));
        assert_eq!(c.source, "quantize != \"none\"");
        assert_eq!(
            Condition::parse("threads==4").unwrap().value,
            toml::Value::Integer(4)
        );
        assert_eq!(
            Condition::parse("dynamic_batch == true").unwrap().value,
            toml::Value::Boolean(true)
        );
    }

    #[test]
    fn refuses_what_is_not_a_condition() {
        for bad in [
            "",
            "== \"none\"",
            "quantize",
            "quantize = \"none\"",
            "quantize >= 3",
            "quantize != none",
            "quantize != [1, 2]",
            "quantize != ",
        ] {
            let e = Condition::parse(bad).unwrap_err();
            assert!(!e.message.is_empty(), "{bad}");
            assert!(e.hint.contains("when"), "{bad}");
        }
    }

    #[test]
    fn holds_on_the_project_table() {
        let ships_int8 = Condition::parse("quantize != \"none\"").unwrap();
        let fp32 = table("quantize = \"none\"");
        let int8 = table("quantize = \"int8\"");
        let unset = table("model = \"m:f\"");
        assert!(!ships_int8.holds(Some(&fp32)));
        assert!(ships_int8.holds(Some(&int8)));
        assert!(ships_int8.holds(Some(&unset)));
        assert!(ships_int8.holds(None));
        let ships_fp32 = Condition::parse("quantize == \"none\"").unwrap();
        assert!(ships_fp32.holds(Some(&fp32)));
        assert!(!ships_fp32.holds(None));
        assert_eq!(ships_int8.observed(Some(&fp32)), "quantize = \"none\"");
        assert_eq!(ships_int8.observed(None), "quantize is not set");
    }

    #[test]
    fn numbers_compare_by_value_and_types_do_not_mix() {
        let c = Condition::parse("threads == 4").unwrap();
        assert!(c.holds(Some(&table("threads = 4.0"))));
        assert!(!c.holds(Some(&table("threads = \"4\""))));
    }
}
