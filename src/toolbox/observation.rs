//! What the model is told after a toolbox call: on success the script's final JSON line
//! (compact) and its `aipc-warning:` lines; on failure the classified evidence — signature,
//! class, facts, candidate fixes from the target's `signatures.toml` — and a short excerpt,
//! instead of a traceback:
//!
//! ```text
//! exit 1 (3.2 s)
//! result: {"ok":false,"error":"GuardOnDataDependentSymNode: Could not guard …","stage_hint":"export"}
//! signature: torch.export.data_dependent_guard (class data-dependent-control-flow)
//! facts: file=model.py, line=23
//! fixes: fix_branch_to_where {"file": "model.py"}; load_skill export-data-dependent-control-flow
//! last lines:
//!   …
//! ```

use crate::contract::parse_metrics_line;
use crate::evidence::Failure;
use crate::protocol::Evidence;
use crate::tools::text::clip_line;
use crate::tools::CommandOutcome;
use std::time::Duration;

/// Excerpt lines after a classified failure (the signature says most of it).
pub const KNOWN_EXCERPT_LINES: usize = 8;
/// Excerpt lines after a failure no signature knows.
pub const UNKNOWN_EXCERPT_LINES: usize = 20;
/// Warning lines shown at most.
pub const MAX_WARNINGS: usize = 8;
const MAX_LINE_CHARS: usize = 300;
/// The prefix of the lines that report silent failures (docs/toolbox.md).
pub const WARNING_PREFIX: &str = "aipc-warning:";

/// How a toolbox script ended, for [`observe`].
pub struct ScriptRun<'a> {
    pub tool: &'a str,
    pub outcome: &'a CommandOutcome,
    /// stdout and stderr interleaved as they arrived.
    pub log: &'a str,
    pub timeout: Duration,
}

/// `(ok, observation)`. `classify` reduces a failure to evidence (the target's classifier).
pub fn observe(run: &ScriptRun<'_>, classify: &dyn Fn(&Failure) -> Evidence) -> (bool, String) {
    let outcome = run.outcome;
    let result = parse_metrics_line(&outcome.stdout);
    let reported_failure = result
        .as_ref()
        .and_then(|r| r.get("ok"))
        .and_then(serde_json::Value::as_bool)
        == Some(false);
    let ok = outcome.success() && !reported_failure;
    let secs = outcome.duration.as_secs_f64();
    let status = if outcome.timed_out {
        format!(
            "timed out after {} s; the script and its children were killed",
            run.timeout.as_secs()
        )
    } else if outcome.cancelled {
        "cancelled; the script and its children were killed".to_string()
    } else if let Some(code) = outcome.exit_code {
        format!("exit {code} ({secs:.1} s)")
    } else {
        format!(
            "killed by signal {} ({secs:.1} s)",
            outcome.signal.unwrap_or_default()
        )
    };
    let mut text = format!("{status}\n");
    let result_line = result.as_ref().map(|r| r.to_string());
    if let Some(line) = &result_line {
        text.push_str(&format!("result: {}\n", clip_line(line, 1500)));
    }
    let warnings = warning_lines(run.log);
    for w in &warnings {
        text.push_str(w);
        text.push('\n');
    }
    if ok {
        if result_line.is_none() {
            text.push_str(
                "no JSON result line (a toolbox script prints one as its last line); last lines:\n",
            );
            text.push_str(&excerpt(run.log, None, UNKNOWN_EXCERPT_LINES));
        }
        return (true, text);
    }
    let failure = Failure {
        failed_check: format!("toolbox tool `{}`: {status}", run.tool),
        check: run.tool.to_string(),
        exit_code: outcome.exit_code,
        log: run.log.to_string(),
        gate_failures: Vec::new(),
    };
    let evidence = classify(&failure);
    let lines = match &evidence.class {
        Some(class) => {
            text.push_str(&format!(
                "signature: {} (class {class})\n",
                evidence.signature
            ));
            if !evidence.facts.is_empty() {
                let facts: Vec<String> = evidence
                    .facts
                    .iter()
                    .map(|(k, v)| format!("{k}={}", clip_line(v, 120)))
                    .collect();
                text.push_str(&format!("facts: {}\n", facts.join(", ")));
            }
            if !evidence.candidate_fixes.is_empty() {
                text.push_str(&format!("fixes: {}\n", evidence.candidate_fixes.join("; ")));
            }
            KNOWN_EXCERPT_LINES
        }
        None => UNKNOWN_EXCERPT_LINES,
    };
    text.push_str("last lines:\n");
    text.push_str(&excerpt(run.log, result.as_ref(), lines));
    (false, text)
}

/// The distinct `aipc-warning:` lines of `log`, at most [`MAX_WARNINGS`].
fn warning_lines(log: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in log.lines().map(str::trim) {
        if line.starts_with(WARNING_PREFIX) && !out.iter().any(|w| w == line) {
            out.push(clip_line(line, MAX_LINE_CHARS));
            if out.len() == MAX_WARNINGS {
                break;
            }
        }
    }
    out
}

/// The last `n` non-empty lines of `log`, indented, without the JSON result line (it is shown
/// above) and saying how many were left out.
fn excerpt(log: &str, result: Option<&serde_json::Value>, n: usize) -> String {
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| {
            result.is_none_or(|r| {
                serde_json::from_str::<serde_json::Value>(l.trim())
                    .map(|v| &v != r)
                    .unwrap_or(true)
            })
        })
        .collect();
    if lines.is_empty() {
        return "  (no output)\n".to_string();
    }
    let skip = lines.len().saturating_sub(n);
    let mut out = String::new();
    if skip > 0 {
        out.push_str(&format!("  [… {skip} earlier lines in the session log]\n"));
    }
    for line in &lines[skip..] {
        out.push_str("  ");
        out.push_str(&clip_line(line, MAX_LINE_CHARS));
        out.push('\n');
    }
    out
}

/// `observation` as compared: the timing values of its `result: {…}` line (a toolbox script's
/// JSON result, e.g. `"export_s": 14.07`) replaced by `"<timing>"`, its other fractional numbers
/// rounded to four significant digits, and the raw `last lines:`
/// tail of a failed toolbox call left out — both differ between identical runs (a timing; the
/// order in which a script's stdout and stderr lines interleave). The result line, exit code,
/// signature, facts and fixes are compared.
pub fn mask_result_timings(observation: &str) -> String {
    fn mask(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if is_timing(key) && (v.is_number() || v.is_array() || v.is_object()) {
                        *v = serde_json::Value::String("<timing>".to_string());
                    } else {
                        mask(v);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(mask),
            // Four significant digits, like the metric tolerance: another CPU's kernels may
            // round the last digits of an accuracy differently.
            serde_json::Value::Number(n) if !(n.is_i64() || n.is_u64()) => {
                if let Some(x) = n.as_f64() {
                    *value = serde_json::Value::String(format!("{x:.3e}"));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for line in observation.lines() {
        if line == "last lines:" {
            out.push("last lines: (not compared)".to_string());
            break;
        }
        let masked = line.strip_prefix("result: ").and_then(|json| {
            let mut value: serde_json::Value = serde_json::from_str(json).ok()?;
            mask(&mut value);
            Some(format!("result: {value}"))
        });
        out.push(masked.unwrap_or_else(|| line.to_string()));
    }
    let mut text = out.join("\n");
    if observation.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// Whether a metric is a timing (latency, duration, throughput): never compared by value.
pub fn is_timing(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "latency",
        "time",
        "duration",
        "elapsed",
        "throughput",
        "fps",
        "qps",
        "speed",
    ];
    const TOKENS: &[&str] = &[
        "ms", "us", "ns", "s", "sec", "secs", "seconds", "second", "per", "p50", "p90", "p95",
        "p99", "rps", "tps", "hz",
    ];
    WORDS.iter().any(|w| lower.contains(w))
        || lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|token| TOKENS.contains(&token))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn outcome(code: i32, stdout: &str) -> CommandOutcome {
        CommandOutcome {
            exit_code: Some(code),
            signal: None,
            timed_out: false,
            cancelled: false,
            stdout: stdout.to_string(),
            stderr: String::new(),
            duration: Duration::from_millis(1200),
            held_back_lines: 0,
            held_back_bytes: 0,
            spill: None,
        }
    }

    fn never(_: &Failure) -> Evidence {
        panic!("a success is not classified")
    }

    #[test]
    fn success_shows_the_compact_result_and_warnings_only() {
        let stdout = "step 1\naipc-warning: opset drift: requested opset 13, artifact has opset 18\n{\"ok\": true, \"artifact\": \"build/x.bin\", \"size\": 3}\n";
        let out = outcome(0, stdout);
        let (ok, text) = observe(
            &ScriptRun {
                tool: "make",
                outcome: &out,
                log: stdout,
                timeout: Duration::from_secs(5),
            },
            &never,
        );
        assert!(ok);
        assert_eq!(
            text,
            "exit 0 (1.2 s)\nresult: {\"ok\":true,\"artifact\":\"build/x.bin\",\"size\":3}\naipc-warning: opset drift: requested opset 13, artifact has opset 18\n"
        );
    }

    #[test]
    fn failure_shows_signature_facts_fixes_and_a_short_excerpt() {
        let mut log: String = (0..40).map(|i| format!("trace {i}\n")).collect();
        log.push_str("RuntimeError: data-dependent branch in model.py\n{\"ok\": false, \"error\": \"RuntimeError: data-dependent\"}\n");
        let out = outcome(1, &log);
        let classify = |f: &Failure| {
            assert!(f.log.contains("data-dependent"));
            Evidence {
                signature: "torch.export.data_dependent_guard".into(),
                class: Some("data-dependent-control-flow".into()),
                facts: BTreeMap::from([("file".to_string(), "model.py".to_string())]),
                candidate_fixes: vec!["fix_branch_to_where {\"file\": \"model.py\"}".into()],
                ..Evidence::default()
            }
        };
        let (ok, text) = observe(
            &ScriptRun {
                tool: "export",
                outcome: &out,
                log: &log,
                timeout: Duration::from_secs(5),
            },
            &classify,
        );
        assert!(!ok);
        assert!(
            text.starts_with("exit 1 (1.2 s)\nresult: {\"ok\":false,\"error\""),
            "{text}"
        );
        assert!(text.contains("signature: torch.export.data_dependent_guard (class data-dependent-control-flow)\nfacts: file=model.py\nfixes: fix_branch_to_where {\"file\": \"model.py\"}\n"), "{text}");
        assert!(text.contains("[… 33 earlier lines"), "{text}");
        assert!(
            text.trim_end()
                .ends_with("RuntimeError: data-dependent branch in model.py"),
            "{text}"
        );
    }

    #[test]
    fn ok_false_with_exit_0_is_a_failure_and_no_result_line_is_said() {
        let stdout = "{\"ok\": false, \"error\": \"x\"}\n";
        let out = outcome(0, stdout);
        let classify = |_: &Failure| Evidence::default();
        let (ok, _) = observe(
            &ScriptRun {
                tool: "t",
                outcome: &out,
                log: stdout,
                timeout: Duration::from_secs(1),
            },
            &classify,
        );
        assert!(!ok);
        let out = outcome(0, "done\n");
        let (ok, text) = observe(
            &ScriptRun {
                tool: "t",
                outcome: &out,
                log: "done\n",
                timeout: Duration::from_secs(1),
            },
            &never,
        );
        assert!(ok);
        assert!(text.contains("no JSON result line"), "{text}");
        assert!(text.contains("  done"), "{text}");
    }

    #[test]
    fn result_timings_are_masked_and_the_rest_kept() {
        let observation = "exit 0 (2.1 s)\nresult: {\"ok\":true,\"bytes\":87064,\"export_s\":14.075,\"lat\":{\"p50_ms\":0.2}}";
        let masked = mask_result_timings(observation);
        assert!(masked.contains("\"bytes\":87064"), "{masked}");
        let cosine = mask_result_timings("result: {\"cosine\":0.99993127}");
        assert_eq!(
            cosine,
            mask_result_timings("result: {\"cosine\":0.99993131}")
        );
        assert_ne!(cosine, mask_result_timings("result: {\"cosine\":0.9981}"));
        assert!(masked.contains("\"export_s\":\"<timing>\""), "{masked}");
        assert!(masked.contains("\"p50_ms\":\"<timing>\""), "{masked}");
        assert!(masked.starts_with("exit 0 (2.1 s)\n"), "{masked}");
        assert_eq!(mask_result_timings("result: not json"), "result: not json");
        let tail = "exit 1\nsignature: x\nlast lines:\n  b\n  a\n";
        assert_eq!(
            mask_result_timings(tail),
            "exit 1\nsignature: x\nlast lines: (not compared)\n"
        );
    }
}
