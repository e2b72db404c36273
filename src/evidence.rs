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
//! Signatures are tried in file order and the first whose regex matches wins, so specific
//! signatures go before generic ones. A table may start with
//! `include = ["../common/torch-export.toml"]` (paths relative to the including file): the
//! included tables' signatures come first, in the order listed, then the file's own, then those
//! of `include_last` (catch-alls several targets share, e.g. known warnings that are not the
//! failure, which must not win over a target's own signatures).
//!
//! The regexes see the check's log followed by one line per failed gate,
//! `aipc-gate-failed: <check>: <gate as written> (measured <value>)` (or `(metric not printed)`),
//! so a gate failure can be classified like a log line. The excerpt is the tail of the log only;
//! when the matched line lies before the tail it is shown first, so the model always sees it.
//!
//! A fix may name facts: `${file}` is replaced by the fact `file`, `${name|text}` falls back to
//! `text` when the regex did not capture `name`, and a fix with a `${name}` that has neither is
//! left out of that failure's evidence (an alternative for another spelling of the error), so a
//! fix can be the exact call to make, its arguments the facts:
//! `fix_branch_to_where {"file": "${path}", "line": ${line}}`.
//!
//! A failure no table knows still gets a signature: the failed check plus a normalised form of
//! its most telling line (digits, hex ids and temp paths blanked), so "the same failure twice" is
//! recognised either way.

use crate::protocol::Evidence;
use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How many trailing log lines go into the excerpt.
pub const EXCERPT_LINES: usize = 30;
/// Start of the line each failed gate adds to the text the regexes see.
pub const GATE_LINE_PREFIX: &str = "aipc-gate-failed: ";
/// Longest matched line shown ahead of the excerpt.
const MATCHED_LINE_CHARS: usize = 400;
/// How deep `include` may nest (a deeper chain is almost surely a mistake).
const MAX_INCLUDE_DEPTH: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SignatureFile {
    /// Tables whose signatures come before this file's own, relative to this file.
    #[serde(default)]
    include: Vec<String>,
    /// Tables whose signatures come after this file's own.
    #[serde(default)]
    include_last: Vec<String>,
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

/// One row of a signature table.
#[derive(Debug)]
pub struct Signature {
    id: String,
    class: String,
    regex: Regex,
    fixes: Vec<String>,
}

impl Signature {
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn class(&self) -> &str {
        &self.class
    }

    pub fn regex(&self) -> &Regex {
        &self.regex
    }

    /// Candidate fixes, as written (`load_skill <name>`, a toolbox call, or a sentence).
    pub fn fixes(&self) -> &[String] {
        &self.fixes
    }
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
    /// Load `path` and the tables it includes; a missing `path` is an empty table, a missing
    /// included file is an error.
    pub fn load(path: &Path) -> Result<Self, SignatureError> {
        match crate::safe_read::read_to_string(path, crate::safe_read::CONTRACT) {
            Ok(text) => {
                let mut signatures = Vec::new();
                load_into(path, &text, &mut vec![path.to_path_buf()], &mut signatures)?;
                Ok(Classifier { signatures })
            }
            Err(e) if e.is_not_found() => Ok(Self::default()),
            Err(e) => Err(SignatureError::Invalid {
                file: path.display().to_string(),
                message: format!("cannot read: {}", e.problem),
            }),
        }
    }

    /// Parse one table from text. `include` needs a file to be relative to: use [`load`].
    ///
    /// [`load`]: Classifier::load
    pub fn parse(file: &str, text: &str) -> Result<Self, SignatureError> {
        let parsed = parse_file(file, text)?;
        if !parsed.include.is_empty() || !parsed.include_last.is_empty() {
            return Err(SignatureError::Invalid {
                file: file.to_string(),
                message: "`include` needs the table to be loaded from a file (Classifier::load)"
                    .into(),
            });
        }
        Ok(Classifier {
            signatures: compile(file, parsed.signature)?,
        })
    }

    /// The signatures in the order they are tried.
    pub fn signatures(&self) -> &[Signature] {
        &self.signatures
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
        let mut excerpt = tail_lines(&failure.log, EXCERPT_LINES);
        let text = classified_text(failure);
        let known = if with_classes {
            self.signatures
                .iter()
                .find_map(|sig| sig.regex.captures(&text).map(|caps| (sig, caps)))
        } else {
            None
        };
        match known {
            Some((sig, caps)) => {
                if let Some(m) = caps.get(0) {
                    if let Some(line) = line_before_tail(&failure.log, m.start(), EXCERPT_LINES) {
                        excerpt = format!("[matched] {line}\n{excerpt}");
                    }
                }
                let facts: BTreeMap<String, String> = sig
                    .regex
                    .capture_names()
                    .flatten()
                    .filter_map(|name| {
                        caps.name(name)
                            .map(|m| (name.to_string(), m.as_str().to_string()))
                    })
                    .collect();
                // A fix that names a fact this failure did not show (an alternative spelling of
                // the same error) is left out: the model sees only fixes it can act on.
                let candidate_fixes = sig
                    .fixes
                    .iter()
                    .filter_map(|f| fill_facts(f, &facts))
                    .collect();
                Evidence {
                    signature: sig.id.clone(),
                    class: Some(sig.class.clone()),
                    failed_check: failure.failed_check.clone(),
                    exit_code: failure.exit_code,
                    excerpt,
                    facts,
                    candidate_fixes,
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

/// Parse the table at `path` (text already read) into `out`, its includes first. `chain` holds
/// the files being loaded, to catch an include cycle.
fn load_into(
    path: &Path,
    text: &str,
    chain: &mut Vec<PathBuf>,
    out: &mut Vec<Signature>,
) -> Result<(), SignatureError> {
    let file = path.display().to_string();
    let parsed = parse_file(&file, text)?;
    let base = path.parent().unwrap_or(Path::new(""));
    load_includes(&file, base, &parsed.include, chain, out)?;
    out.extend(compile(&file, parsed.signature)?);
    load_includes(&file, base, &parsed.include_last, chain, out)
}

/// Load the tables `includes` names (relative to `base`) into `out`, in order.
fn load_includes(
    file: &str,
    base: &Path,
    includes: &[String],
    chain: &mut Vec<PathBuf>,
    out: &mut Vec<Signature>,
) -> Result<(), SignatureError> {
    for include in includes {
        let invalid = |message: String| SignatureError::Invalid {
            file: file.to_string(),
            message,
        };
        let target = base.join(include);
        if chain.len() >= MAX_INCLUDE_DEPTH {
            return Err(invalid(format!(
                "include \"{include}\": includes nest deeper than {MAX_INCLUDE_DEPTH} files"
            )));
        }
        let key = target.canonicalize().unwrap_or_else(|_| target.clone());
        if chain
            .iter()
            .any(|p| p.canonicalize().unwrap_or_else(|_| p.clone()) == key)
        {
            return Err(invalid(format!(
                "include \"{include}\": include cycle ({} is already being loaded)",
                target.display()
            )));
        }
        let included = crate::safe_read::read_to_string(&target, crate::safe_read::CONTRACT)
            .map_err(|e| invalid(format!("include \"{include}\": {e}")))?;
        chain.push(target.clone());
        load_into(&target, &included, chain, out)?;
        chain.pop();
    }
    Ok(())
}

fn parse_file(file: &str, text: &str) -> Result<SignatureFile, SignatureError> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|span| line_of(text, span.start));
        SignatureError::Invalid {
            file: match line {
                Some(line) => format!("{file}:{line}"),
                None => file.to_string(),
            },
            message: e.message().to_string(),
        }
    })
}

fn compile(file: &str, entries: Vec<SignatureEntry>) -> Result<Vec<Signature>, SignatureError> {
    entries
        .into_iter()
        .map(|entry| {
            let regex = Regex::new(&entry.regex).map_err(|e| SignatureError::Invalid {
                file: file.to_string(),
                message: format!("signature \"{}\": bad regex: {e}", entry.id),
            })?;
            Ok(Signature {
                class: entry.class.unwrap_or_else(|| entry.id.clone()),
                id: entry.id,
                regex,
                fixes: entry.fixes,
            })
        })
        .collect()
}

/// `fix` with each `${name}` / `${name|default}` replaced by the fact `name` (else the default);
/// `None` when a placeholder has neither.
fn fill_facts(fix: &str, facts: &BTreeMap<String, String>) -> Option<String> {
    static PLACEHOLDER: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let Some(placeholder) =
        PLACEHOLDER.get_or_init(|| Regex::new(r"\$\{(\w+)(?:\|([^}]*))?\}").ok())
    else {
        return Some(fix.to_string());
    };
    let mut missing = false;
    let filled = placeholder
        .replace_all(fix, |caps: &regex::Captures| {
            let name = caps.get(1).map_or("", |m| m.as_str());
            match (facts.get(name), caps.get(2)) {
                (Some(value), _) => value.clone(),
                (None, Some(default)) => default.as_str().to_string(),
                (None, None) => {
                    missing = true;
                    String::new()
                }
            }
        })
        .into_owned();
    (!missing).then_some(filled)
}

/// What the regexes see: the log, then one `aipc-gate-failed:` line per failed gate.
pub fn classified_text(failure: &Failure) -> String {
    let mut text = failure.log.clone();
    for key in &failure.gate_failures {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&gate_line(&failure.check, key));
        text.push('\n');
    }
    text
}

/// `aipc-gate-failed: <check>: <gate> (measured <value>)` from a gate-failure key
/// `<gate>=<value>` (`<value>` is `missing` when the metric was not printed).
fn gate_line(check: &str, key: &str) -> String {
    let measured = match key.rsplit_once('=') {
        // `==` in the gate itself: the split landed inside the gate, not before the value.
        Some((gate, value)) if !gate.ends_with(['=', '!', '<', '>']) => Some((gate, value)),
        _ => None,
    };
    match measured {
        Some((gate, "missing")) => {
            format!("{GATE_LINE_PREFIX}{check}: {gate} (metric not printed)")
        }
        Some((gate, value)) => format!("{GATE_LINE_PREFIX}{check}: {gate} (measured {value})"),
        None => format!("{GATE_LINE_PREFIX}{check}: {key}"),
    }
}

/// The line holding byte `offset` of `log`, when that line is not among the last `n` lines
/// (an offset past the log, i.e. in a gate line, gives `None`).
fn line_before_tail(log: &str, offset: usize, n: usize) -> Option<&str> {
    if offset >= log.len() {
        return None;
    }
    let index = log.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let total = log.lines().count();
    if index + n >= total {
        return None;
    }
    let line = log.lines().nth(index)?.trim();
    // A very long line (a C++ signature in an ORT message) is cut like the fallback's.
    let line = match line.char_indices().nth(MATCHED_LINE_CHARS) {
        Some((cut, _)) => &line[..cut],
        None => line,
    };
    Some(line).filter(|l| !l.is_empty())
}

/// 1-based line number of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
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
    fn failed_gates_are_visible_to_the_regexes() {
        let table = r#"
[[signature]]
id = "quant.accuracy_collapse"
regex = 'aipc-gate-failed: (?P<check>[^\n]*?): top1_agreement\s*>=\s*(?P<threshold>\S+) \(measured (?P<measured>[^)]+)\)'
"#;
        let classifier = Classifier::parse("sig.toml", table).unwrap();
        let mut f = failure("{\"cosine\": 0.95362, \"top1_agreement\": 0.0}");
        f.check = "int8 accuracy".into();
        f.gate_failures = vec!["top1_agreement >= 0.98=0.0000".into()];
        let ev = classifier.classify(&f, true);
        assert_eq!(ev.signature, "quant.accuracy_collapse");
        assert_eq!(ev.facts["check"], "int8 accuracy");
        assert_eq!(ev.facts["threshold"], "0.98");
        assert_eq!(ev.facts["measured"], "0.0000");
        assert!(
            !ev.excerpt.contains(GATE_LINE_PREFIX),
            "the excerpt is the log only"
        );
        // Gates with `==` in them, and metrics that were not printed.
        f.gate_failures = vec![
            "top1_agreement == 1.0=0.5000".into(),
            "cosine >= 0.99=missing".into(),
        ];
        let text = classified_text(&f);
        assert!(
            text.contains(
                "aipc-gate-failed: int8 accuracy: top1_agreement == 1.0 (measured 0.5000)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("aipc-gate-failed: int8 accuracy: cosine >= 0.99 (metric not printed)\n"),
            "{text}"
        );
        // Without gate failures the text is the log itself.
        f.gate_failures.clear();
        assert_eq!(classified_text(&f), f.log);
    }

    #[test]
    fn fixes_name_facts() {
        let table = r#"
[[signature]]
id = "guard"
regex = 'guard(?: in (?P<file>\S+))?'
fixes = ['fix {"file": "${file|model.py}"}', "see ${file}", "keep ${nope} and $5"]
"#;
        let c = Classifier::parse("sig.toml", table).unwrap();
        let ev = c.classify(&failure("guard in net/backbone.py"), true);
        // A fix naming a fact the failure did not show is left out.
        assert_eq!(
            ev.candidate_fixes,
            vec![r#"fix {"file": "net/backbone.py"}"#, "see net/backbone.py"]
        );
        let ev = c.classify(&failure("guard"), true);
        assert_eq!(ev.candidate_fixes, vec![r#"fix {"file": "model.py"}"#]);
    }

    #[test]
    fn matched_line_before_the_tail_leads_the_excerpt() {
        let classifier = Classifier::parse("sig.toml", TABLE).unwrap();
        let mut log = String::from("Error: Unsupported operator aten::unique at node 7\n");
        log.extend((0..40).map(|i| format!("noise {i}\n")));
        let ev = classifier.classify(&failure(&log), true);
        assert!(
            ev.excerpt
                .starts_with("[matched] Error: Unsupported operator aten::unique"),
            "{}",
            ev.excerpt
        );
        assert!(ev.excerpt.ends_with("noise 39"));
        // Inside the tail: not repeated.
        let ev = classifier.classify(&failure("x\nError: Unsupported operator a.b\ny\n"), true);
        assert!(!ev.excerpt.contains("[matched]"), "{}", ev.excerpt);
    }

    #[test]
    fn include_puts_the_included_signatures_first() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("common")).unwrap();
        std::fs::create_dir_all(dir.path().join("t")).unwrap();
        std::fs::write(
            dir.path().join("common/shared.toml"),
            "[[signature]]\nid = \"shared\"\nregex = 'boom'\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("t/signatures.toml"),
            "include = [\"../common/shared.toml\"]\n[[signature]]\nid = \"own\"\nregex = 'bo+m'\n",
        )
        .unwrap();
        let c = Classifier::load(&dir.path().join("t/signatures.toml")).unwrap();
        let ids: Vec<&str> = c.signatures().iter().map(Signature::id).collect();
        assert_eq!(ids, vec!["shared", "own"]);
        assert_eq!(c.classify(&failure("boom"), true).signature, "shared");
        assert_eq!(c.classify(&failure("booom"), true).signature, "own");

        // include_last: after the file's own, so a shared catch-all never wins over them.
        std::fs::write(
            dir.path().join("common/last.toml"),
            "[[signature]]\nid = \"catch-all\"\nregex = 'b'\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("t/last.toml"),
            "include = [\"../common/shared.toml\"]\ninclude_last = [\"../common/last.toml\"]\n\
             [[signature]]\nid = \"own\"\nregex = 'bo+m'\n",
        )
        .unwrap();
        let c = Classifier::load(&dir.path().join("t/last.toml")).unwrap();
        let ids: Vec<&str> = c.signatures().iter().map(Signature::id).collect();
        assert_eq!(ids, vec!["shared", "own", "catch-all"]);
        assert_eq!(c.classify(&failure("booom"), true).signature, "own");
        assert_eq!(c.classify(&failure("bam"), true).signature, "catch-all");

        // A missing include is an error naming the including file; so is a cycle.
        std::fs::write(dir.path().join("t/bad.toml"), "include = [\"nope.toml\"]\n").unwrap();
        let err = Classifier::load(&dir.path().join("t/bad.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("bad.toml") && err.contains("nope.toml"),
            "{err}"
        );
        std::fs::write(dir.path().join("t/a.toml"), "include = [\"b.toml\"]\n").unwrap();
        std::fs::write(dir.path().join("t/b.toml"), "include = [\"a.toml\"]\n").unwrap();
        let err = Classifier::load(&dir.path().join("t/a.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("cycle"), "{err}");
        // Text without a file cannot include.
        let err = Classifier::parse("x.toml", "include = [\"a.toml\"]\n").unwrap_err();
        assert!(err.to_string().contains("Classifier::load"), "{err}");
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
