//! Making two runs' texts comparable: what differs between two runs of the same work without
//! meaning anything — the session id, the session folder and worktree paths (they contain the
//! id), temporary directories, durations, time stamps and commit hashes — is replaced by a
//! placeholder before observations, diffs and messages are compared.

use regex::Regex;
use std::sync::OnceLock;

/// Placeholders replace run-specific literals and the volatile patterns.
#[derive(Debug, Clone, Default)]
pub struct Normalizer {
    /// (literal, placeholder), longest literal first.
    literals: Vec<(String, &'static str)>,
}

impl Normalizer {
    /// A normalizer that replaces each of `literals` (e.g. the worktree path of either run) by
    /// its placeholder. Empty literals are ignored.
    pub fn new(literals: &[(&str, &'static str)]) -> Self {
        let mut literals: Vec<(String, &'static str)> = literals
            .iter()
            .filter(|(l, _)| !l.is_empty())
            .map(|(l, p)| (l.to_string(), *p))
            .collect();
        literals.sort_by_key(|(literal, _)| std::cmp::Reverse(literal.len()));
        Normalizer { literals }
    }

    /// `text` with run-specific literals and volatile patterns replaced.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (literal, placeholder) in &self.literals {
            if out.contains(literal.as_str()) {
                out = out.replace(literal.as_str(), placeholder);
            }
        }
        for (pattern, placeholder) in patterns() {
            if let std::borrow::Cow::Owned(replaced) = pattern.replace_all(&out, *placeholder) {
                out = replaced;
            }
        }
        out
    }
}

/// Numbers in a failure signature (measured values), masked: a signature is compared for its
/// shape, the values are compared where they belong (gates, metrics).
pub fn mask_numbers(text: &str) -> String {
    static NUMBER: OnceLock<Option<Regex>> = OnceLock::new();
    match NUMBER
        .get_or_init(|| Regex::new(r"-?\d+(\.\d+)?([eE][-+]?\d+)?").ok())
        .as_ref()
    {
        Some(re) => re.replace_all(text, "#").into_owned(),
        None => text.to_string(),
    }
}

fn patterns() -> &'static [(Regex, &'static str)] {
    static PATTERNS: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let mut tmp = vec!["/tmp".to_string(), "/var/tmp".to_string()];
        if let Some(dir) = std::env::temp_dir().to_str() {
            let dir = dir.trim_end_matches('/');
            if !dir.is_empty() && !tmp.iter().any(|t| t == dir) {
                tmp.push(dir.to_string());
            }
        }
        let tmp_alternatives = tmp
            .iter()
            .map(|t| regex::escape(t))
            .collect::<Vec<_>>()
            .join("|");
        [
            (
                r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?",
                "<time>",
            ),
            (
                r"\b\d+(\.\d+)?\s?(ms|µs|us|ns|s|sec|secs|seconds|min)\b",
                "<duration>",
            ),
            (r"\b[0-9a-f]{40}\b", "<commit>"),
            (
                &format!(r"(?:{tmp_alternatives})/[^\s'\x22:,;)\]]+"),
                "<tmp>",
            ),
        ]
        .into_iter()
        .filter_map(|(p, r)| Regex::new(p).ok().map(|re| (re, r)))
        .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_specific_text_becomes_placeholders() {
        let n = Normalizer::new(&[
            ("/p/.aipc/sessions/s1/worktree", "<worktree>"),
            ("/p/.aipc/sessions/s1", "<session-dir>"),
            ("s1", "<session>"),
        ]);
        let text = "exit code 0 (0.1s)\nwrote /p/.aipc/sessions/s1/worktree/build/m.json in 12 ms \
                    at 2026-11-29T19:30:12Z, log /p/.aipc/sessions/s1/logs/x.log, \
                    commit 3197d81dbfde80d7b2f4bc57bbcd596b3c2ea619, scratch /tmp/tmpab12/x.onnx";
        let got = n.apply(text);
        assert_eq!(
            got,
            "exit code 0 (<duration>)\nwrote <worktree>/build/m.json in <duration> at <time>, \
             log <session-dir>/logs/x.log, commit <commit>, scratch <tmp>"
        );
        // Plain numbers stay: they may be what changed.
        assert_eq!(
            n.apply("cosine 0.93, 64 samples"),
            "cosine 0.93, 64 samples"
        );
    }

    #[test]
    fn signatures_lose_their_numbers() {
        assert_eq!(
            mask_numbers("gate|cosine >= 0.999=-0.9005|exit:1"),
            "gate|cosine >= #=#|exit:#"
        );
    }
}
