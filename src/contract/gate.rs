//! Gate expressions (`cosine >= 0.99`, `top1 >= 98%`, `latency.p50_ms <= 1e3`) and the
//! metrics a check command prints as the last JSON object line of its stdout.
//!
//! Grammar: `<metric> <op> <number>[%]`, spaces optional.
//! - `metric`: `[A-Za-z_][A-Za-z0-9_.]*`; dots address nested JSON keys (`latency.p50_ms`
//!   reads `{"latency": {"p50_ms": 3.1}}`; a literal top-level key `"latency.p50_ms"` wins).
//! - `op`: one of `>=`, `<=`, `>`, `<`, `==`, `!=`.
//! - `number`: decimal with optional sign, fraction and exponent (`0.99`, `-2`, `1e-3`); a `%`
//!   suffix divides by 100 (`98%` → 0.98). `inf`/`nan` are not numbers here.
//!
//! A gate passes when the metric is present, is a number (booleans count as 1 / 0, as in
//! [`flatten_metrics`]), and the comparison holds. `==` / `!=` compare exactly.

use crate::protocol::GateResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The comparison of a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
}

impl CmpOp {
    /// The operator as written, e.g. `>=`.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Ge => ">=",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Lt => "<",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    /// Parse an operator symbol; `None` for anything else (`>==`, `=`, `=>` …).
    pub fn from_symbol(s: &str) -> Option<CmpOp> {
        Some(match s {
            ">=" => CmpOp::Ge,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            "<" => CmpOp::Lt,
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            _ => return None,
        })
    }

    /// `measured <op> threshold`.
    pub fn holds(self, measured: f64, threshold: f64) -> bool {
        match self {
            CmpOp::Ge => measured >= threshold,
            CmpOp::Le => measured <= threshold,
            CmpOp::Gt => measured > threshold,
            CmpOp::Lt => measured < threshold,
            CmpOp::Eq => measured == threshold,
            CmpOp::Ne => measured != threshold,
        }
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// One gate of a check: `metric op threshold`, plus the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// Metric name; dots address nested keys.
    pub metric: String,
    pub op: CmpOp,
    /// The threshold, with a `%` suffix already divided by 100.
    pub threshold: f64,
    /// The gate as written in the contract (trimmed), e.g. `top1 >= 98%`.
    pub source: String,
}

/// Why a gate expression did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct GateError {
    /// What is wrong, e.g. `expected a number after the operator, found "high"`.
    pub message: String,
    /// What to write instead.
    pub hint: String,
}

const GATE_HINT: &str = "a gate reads `<metric> <op> <number>`, e.g. \"cosine >= 0.99\", \
                         \"top1 >= 98%\", \"latency.p50_ms <= 1e3\"";
const OP_MESSAGE: &str =
    "expected a comparison operator (>=, <=, >, <, ==, !=) after the metric name";

fn gate_error(message: impl Into<String>) -> GateError {
    GateError {
        message: message.into(),
        hint: GATE_HINT.to_string(),
    }
}

impl Gate {
    /// Parse a gate expression.
    pub fn parse(src: &str) -> Result<Gate, GateError> {
        let source = src.trim();
        if source.is_empty() {
            return Err(gate_error("empty gate"));
        }
        let metric_len = source
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(source.len());
        let metric = &source[..metric_len];
        match metric.chars().next() {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
            _ => {
                return Err(gate_error(
                    "expected a metric name at the start (letters, digits, `_` and `.`, \
                     not starting with a digit)",
                ))
            }
        }
        if metric.split('.').any(str::is_empty) {
            return Err(gate_error(format!(
                "metric name \"{metric}\" has an empty part between dots"
            )));
        }
        let rest = source[metric_len..].trim_start();
        let op_len = rest
            .find(|c: char| !matches!(c, '<' | '>' | '=' | '!'))
            .unwrap_or(rest.len());
        let Some(op) = CmpOp::from_symbol(&rest[..op_len]) else {
            let mut err = gate_error(OP_MESSAGE);
            if &rest[..op_len] == "=" {
                err.hint = format!("use `==` for equality; {GATE_HINT}");
            }
            return Err(err);
        };
        let number = rest[op_len..].trim();
        let (digits, scale) = match number.strip_suffix('%') {
            Some(d) => (d.trim_end(), 100.0),
            None => (number, 1.0),
        };
        if number.is_empty() {
            return Err(gate_error("expected a number after the operator"));
        }
        let value = if is_plain_number(digits) {
            digits.parse::<f64>().ok().filter(|v| v.is_finite())
        } else {
            None
        };
        let Some(value) = value else {
            return Err(gate_error(format!(
                "expected a number after the operator, found \"{number}\""
            )));
        };
        Ok(Gate {
            metric: metric.to_string(),
            op,
            threshold: value / scale,
            source: source.to_string(),
        })
    }

    /// Evaluate against the metrics object a check printed. A missing metric or a value that
    /// is not a number (or bool) does not pass, with `measured: None`.
    pub fn eval(&self, metrics: &serde_json::Value) -> GateResult {
        let measured = lookup_metric(metrics, &self.metric);
        GateResult {
            expr: self.source.clone(),
            measured,
            passed: measured.is_some_and(|m| self.op.holds(m, self.threshold)),
        }
    }
}

impl FromStr for Gate {
    type Err = GateError;
    fn from_str(s: &str) -> Result<Gate, GateError> {
        Gate::parse(s)
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// `[+-]digits[.digits][(e|E)[+-]digits]`, with at least one digit before the exponent.
fn is_plain_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let mut mantissa = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

fn as_number(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// The numeric value of `name` in a metrics object: a literal top-level key first, then the
/// dotted path through nested objects.
pub fn lookup_metric(metrics: &serde_json::Value, name: &str) -> Option<f64> {
    if let Some(v) = metrics.get(name) {
        return as_number(v);
    }
    let mut cur = metrics;
    for part in name.split('.') {
        cur = cur.get(part)?;
    }
    as_number(cur)
}

/// The metrics object of a check: the last non-empty stdout line that parses as a JSON object.
pub fn parse_metrics_line(stdout: &str) -> Option<serde_json::Value> {
    stdout
        .lines()
        .rev()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .find_map(|l| match serde_json::from_str::<serde_json::Value>(l) {
            Ok(v @ serde_json::Value::Object(_)) => Some(v),
            _ => None,
        })
}

/// Numbers and booleans (as 1 / 0) of a metrics object, nested keys joined by `.`.
/// Strings, nulls and arrays are left out.
pub fn flatten_metrics(v: &serde_json::Value) -> BTreeMap<String, f64> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, f64>) {
        if let serde_json::Value::Object(map) = v {
            for (k, child) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                walk(&key, child, out);
            }
        } else if let Some(n) = as_number(v) {
            if !prefix.is_empty() {
                out.insert(prefix.to_string(), n);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk("", v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_table() {
        let cases: &[(&str, &str, CmpOp, f64)] = &[
            ("cosine >= 0.99", "cosine", CmpOp::Ge, 0.99),
            ("top1_agreement == 1.0", "top1_agreement", CmpOp::Eq, 1.0),
            ("top1 >= 98%", "top1", CmpOp::Ge, 0.98),
            ("top1>=98 %", "top1", CmpOp::Ge, 0.98),
            ("latency.p50_ms <= 1e3", "latency.p50_ms", CmpOp::Le, 1000.0),
            ("err < 1e-3", "err", CmpOp::Lt, 0.001),
            ("delta > -2", "delta", CmpOp::Gt, -2.0),
            ("x!=-2.5E+1", "x", CmpOp::Ne, -25.0),
            ("  _a.b1 <= .5  ", "_a.b1", CmpOp::Le, 0.5),
        ];
        for (src, metric, op, threshold) in cases {
            let g = Gate::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
            assert_eq!(g.metric, *metric, "{src}");
            assert_eq!(g.op, *op, "{src}");
            assert!(
                (g.threshold - threshold).abs() < 1e-12,
                "{src}: {}",
                g.threshold
            );
            assert_eq!(g.source, src.trim());
        }
    }

    #[test]
    fn parse_errors() {
        let cases: &[(&str, &str)] = &[
            ("cosine >== 0.99", OP_MESSAGE),
            ("cosine = 0.99", OP_MESSAGE),
            ("cosine 0.99", OP_MESSAGE),
            ("cosine", OP_MESSAGE),
            (
                "cosine >= high",
                "expected a number after the operator, found \"high\"",
            ),
            ("cosine >=", "expected a number after the operator"),
            (
                "cosine >= 0.99 0.98",
                "expected a number after the operator, found \"0.99 0.98\"",
            ),
            (
                "cosine >= inf",
                "expected a number after the operator, found \"inf\"",
            ),
            (
                "cosine >= %",
                "expected a number after the operator, found \"%\"",
            ),
            ("1cos >= 1", "expected a metric name"),
            (">= 1", "expected a metric name"),
            ("a..b >= 1", "empty part between dots"),
            ("", "empty gate"),
        ];
        for (src, want) in cases {
            let err = Gate::parse(src).expect_err(src);
            assert!(err.message.contains(want), "{src}: {}", err.message);
            assert!(!err.hint.is_empty());
        }
        assert!(Gate::parse("a = 1").unwrap_err().hint.contains("=="));
    }

    #[test]
    fn eval_table() {
        let m = json!({
            "cosine": 0.995, "top1": 0.97, "ok": true, "name": "x",
            "latency": {"p50_ms": 3.5, "p99_ms": 9.0}, "a.b": 1
        });
        let cases: &[(&str, Option<f64>, bool)] = &[
            ("cosine >= 0.99", Some(0.995), true),
            ("cosine > 0.995", Some(0.995), false),
            ("top1 >= 98%", Some(0.97), false),
            ("top1 >= 97%", Some(0.97), true),
            ("latency.p50_ms <= 4", Some(3.5), true),
            ("latency.p99_ms < 9", Some(9.0), false),
            ("ok == 1", Some(1.0), true),
            ("ok != 1", Some(1.0), false),
            ("name == 1", None, false),
            ("missing >= 0", None, false),
            ("latency >= 0", None, false),
            ("latency.p75_ms >= 0", None, false),
            ("a.b == 1", Some(1.0), true),
        ];
        for (src, measured, passed) in cases {
            let r = Gate::parse(src)
                .unwrap_or_else(|e| panic!("{src}: {e}"))
                .eval(&m);
            assert_eq!(r.expr, *src);
            assert_eq!(r.measured, *measured, "{src}");
            assert_eq!(r.passed, *passed, "{src}");
        }
        let not_object = Gate::parse("x >= 0").unwrap().eval(&json!(3));
        assert!(!not_object.passed);
    }

    #[test]
    fn metrics_line() {
        let out = "loading\n{\"cosine\": 0.5}\nprogress 100%\n{\"cosine\": 0.99, \"n\": 3}\n\n\
                   done\n[1,2]\n{not json\n   \n";
        assert_eq!(
            parse_metrics_line(out),
            Some(json!({"cosine": 0.99, "n": 3}))
        );
        assert_eq!(parse_metrics_line("{\"a\":1}\r\n"), Some(json!({"a": 1})));
        assert_eq!(parse_metrics_line("no metrics\n[1]\n\"s\"\n"), None);
        assert_eq!(parse_metrics_line(""), None);
    }

    #[test]
    fn flatten() {
        let m = json!({"a": 1, "b": {"c": 2.5, "d": {"e": false}}, "s": "x", "n": null, "l": [1]});
        let f = flatten_metrics(&m);
        let want: BTreeMap<String, f64> = [("a", 1.0), ("b.c", 2.5), ("b.d.e", 0.0)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(f, want);
        assert!(flatten_metrics(&json!(5)).is_empty());
    }

    #[test]
    fn serde_op_symbols() {
        let g = Gate::parse("x >= 1").unwrap();
        let v = serde_json::to_value(&g).unwrap();
        assert_eq!(v["op"], ">=");
        let back: Gate = serde_json::from_value(v).unwrap();
        assert_eq!(back, g);
    }
}
