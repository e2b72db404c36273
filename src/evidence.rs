//! Evidence: a failed check reduced to what the model needs — a stable signature, the class and
//! facts a signature table extracts, the last lines of the log, and the candidate fixes.
//!
//! Signature tables are data (`toolbox/targets/<target>/signatures.toml`):
//! ```toml
//! [[signature]]
//! id = "onnx.unsupported_op"              # stable identity (no-progress detection compares it)
//! class = "unsupported-operator"          # optional, defaults to id
//! regex = 'Unsupported operator (?P<op>[\w:.]+)'   # named groups become facts
//! fixes = ["load_skill export-op-rewrite"]
//! ```
//! A failure no table knows still gets a signature: the failed check plus a normalised form of
//! its most telling line (digits, hex ids and temp paths blanked), so "the same failure twice" is
//! recognised either way.

use crate::protocol::Evidence;
use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// How many trailing log lines go into the excerpt.
pub const EXCERPT_LINES: usize = 30;

#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SignatureFile {
    #[serde(default)]
    signature: Vec<SignatureEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SignatureEntry {
    id: String,
    class: Option<String>,
    regex: String,
    #[serde(default)]
    fixes: Vec<String>,
}

#[derive(Debug)]
struct Signature {
    id: String,
    class: String,
    regex: Regex,
    fixes: Vec<String>,
}

/// A target's signature table (possibly empty).
#[derive(Debug, Default)]
pub struct Classifier {
    signatures: Vec<Signature>,
}

/// What a failed check leaves behind, before classification.
#[derive(Debug, Clone, Default)]
pub struct Failure {
    /// e.g. `export runs: exit code 1, expected 0`.
    pub failed_check: String,
    /// Check name, part of the fallback signature.
    pub check: String,
    pub exit_code: Option<i32>,
    /// Combined output of the check's command (stdout then stderr).
    pub log: String,
    /// Gate failures as `expr=measured`, part of the fallback signature.
    pub gate_failures: Vec<String>,
}

impl Classifier {
    /// Load `path`; a missing file is an empty table.
    pub fn load(path: &Path) -> Result<Self, SignatureError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&path.display().to_string(), &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(SignatureError::Invalid {
                file: path.display().to_string(),
                message: e.to_string(),
            }),
        }
    }

    pub fn parse(file: &str, text: &str) -> Result<Self, SignatureError> {
        let parsed: SignatureFile = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|span| line_of(text, span.start));
            SignatureError::Invalid {
                file: match line {
                    Some(line) => format!("{file}:{line}"),
                    None => file.to_string(),
                },
                message: e.message().to_string(),
            }
        })?;
        let mut signatures = Vec::new();
        for entry in parsed.signature {
            let regex = Regex::new(&entry.regex).map_err(|e| SignatureError::Invalid {
                file: file.to_string(),
                message: format!("signature \"{}\": bad regex: {e}", entry.id),
            })?;
            signatures.push(Signature {
                class: entry.class.unwrap_or_else(|| entry.id.clone()),
                id: entry.id,
                regex,
                fixes: entry.fixes,
            });
        }
        Ok(Classifier { signatures })
    }

    pub fn len(&self) -> usize {
        self.signatures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.signatures.is_empty()
    }

    /// Reduce a failure to evidence. `with_classes` false gives the raw form (log tail only),
    /// as a control arm without classified evidence would see it.
    pub fn classify(&self, failure: &Failure, with_classes: bool) -> Evidence {
        let excerpt = tail_lines(&failure.log, EXCERPT_LINES);
        let known = if with_classes {
            self.signatures
                .iter()
                .find_map(|sig| sig.regex.captures(&failure.log).map(|caps| (sig, caps)))
        } else {
            None
        };
        match known {
            Some((sig, caps)) => {
                let facts: BTreeMap<String, String> = sig
                    .regex
                    .capture_names()
                    .flatten()
                    .filter_map(|name| {
                        caps.name(name)
                            .map(|m| (name.to_string(), m.as_str().to_string()))
                    })
                    .collect();
                Evidence {
                    signature: sig.id.clone(),
                    class: Some(sig.class.clone()),
                    failed_check: failure.failed_check.clone(),
                    exit_code: failure.exit_code,
                    excerpt,
                    facts,
                    candidate_fixes: sig.fixes.clone(),
                }
            }
            None => Evidence {
                signature: fallback_signature(failure),
                class: None,
                failed_check: failure.failed_check.clone(),
                exit_code: failure.exit_code,
                excerpt,
                facts: BTreeMap::new(),
                candidate_fixes: Vec::new(),
            },
        }
    }
}

/// 1-based line number of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The last `n` lines of `text`, with a note of how many were left out.
pub fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= n {
        return lines.join("\n");
    }
    let skipped = lines.len() - n;
    format!(
        "[… {skipped} earlier lines in the session log]\n{}",
        lines[skipped..].join("\n")
    )
}

fn fallback_signature(failure: &Failure) -> String {
    let mut parts = vec![format!("check:{}", failure.check)];
    if let Some(code) = failure.exit_code {
        parts.push(format!("exit:{code}"));
    }
    if failure.gate_failures.is_empty() {
        if let Some(line) = telling_line(&failure.log) {
            parts.push(normalise(line));
        }
    } else {
        // The measured values are the failure; the metrics line would only repeat them.
        parts.extend(failure.gate_failures.iter().cloned());
    }
    parts.join("|")
}

/// The line most likely to name the error: the last one mentioning error/exception/failed,
/// else the last non-empty line.
fn telling_line(log: &str) -> Option<&str> {
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    lines
        .iter()
        .rev()
        .find(|line| {
            let lower = line.to_ascii_lowercase();
            ["error", "exception", "failed", "fatal", "assert"]
                .iter()
                .any(|word| lower.contains(word))
        })
        .or(lines.last())
        .copied()
}

fn normalise(line: &str) -> String {
    static PATTERNS: std::sync::OnceLock<Vec<(Regex, &'static str)>> = std::sync::OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        [
            (r"0x[0-9a-fA-F]+", "0x#"),
            (r"/tmp/[^\s:'\x22]+", "/tmp/#"),
            (r"\d+(\.\d+)?", "#"),
        ]
        .into_iter()
        .filter_map(|(pattern, replacement)| Regex::new(pattern).ok().map(|r| (r, replacement)))
        .collect()
    });
    let mut text = line.trim().to_string();
    for (regex, replacement) in patterns {
        text = regex.replace_all(&text, *replacement).into_owned();
    }
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = r#"
[[signature]]
id = "onnx.unsupported_op"
class = "unsupported-operator"
regex = 'Unsupported operator (?P<op>[\w:.]+)'
fixes = ["load_skill export-op-rewrite"]
"#;

    fn failure(log: &str) -> Failure {
        Failure {
            failed_check: "export: exit code 1, expected 0".into(),
            check: "export".into(),
            exit_code: Some(1),
            log: log.into(),
            gate_failures: vec![],
        }
    }

    #[test]
    fn known_signature_extracts_facts_and_fixes() {
        let classifier = Classifier::parse("sig.toml", TABLE).unwrap();
        let ev = classifier.classify(
            &failure("tracing\nError: Unsupported operator aten::unique at node 7\n"),
            true,
        );
        assert_eq!(ev.signature, "onnx.unsupported_op");
        assert_eq!(ev.facts["op"], "aten::unique");
        assert_eq!(ev.candidate_fixes, vec!["load_skill export-op-rewrite"]);
        let raw = classifier.classify(
            &failure("Error: Unsupported operator aten::unique at node 7\n"),
            false,
        );
        assert_eq!(raw.class, None, "control arm sees no classes");
    }

    #[test]
    fn fallback_signature_ignores_numbers_but_not_the_message() {
        let c = Classifier::default();
        let a = c.classify(&failure("x\nValueError: shape 3 != 4 at 0x7f00\nbye"), true);
        let b = c.classify(&failure("y\nValueError: shape 5 != 9 at 0x1234\nbye"), true);
        let other = c.classify(&failure("KeyError: 'w'"), true);
        assert_eq!(a.signature, b.signature);
        assert_ne!(a.signature, other.signature);
        assert!(
            a.signature.contains("ValueError: shape # != #"),
            "{}",
            a.signature
        );
    }

    #[test]
    fn excerpt_is_bounded_and_says_so() {
        let log: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let ev = Classifier::default().classify(&failure(&log), true);
        assert!(ev.excerpt.starts_with("[… 70 earlier lines"));
        assert!(ev.excerpt.ends_with("line 99"));
    }

    #[test]
    fn bad_table_names_file_and_line() {
        let err =
            Classifier::parse("sig.toml", "[[signature]]\nid = \"x\"\nregx = \"a\"\n").unwrap_err();
        assert!(err.to_string().starts_with("sig.toml:3"), "{err}");
        let err = Classifier::parse("sig.toml", "[[signature]]\nid = \"x\"\nregex = \"(\"\n")
            .unwrap_err();
        assert!(err.to_string().contains("bad regex"), "{err}");
    }
}
