//! Comparing a re-run's event stream with the recording's, and finding the first divergence.
//!
//! Both streams are reduced to the events that carry an outcome of the work, each with the
//! fields that must agree; everything else is left out (streamed deltas and output lines, the
//! model's replies — equal by construction —, pauses, hints and other human actions, resumes).
//! Rules:
//! - the same sequence of stages, attempts, model requests, tool calls and checks, in order;
//! - a tool call: the same tool and arguments, policy decision, `ok`, exit code and
//!   observation (normalised: see [`super::normalize`]);
//! - a file change: the same path and diff (normalised);
//! - a check: the same `passed`, exit code and outcome of every gate. Measured values are
//!   compared where a gate's outcome changed (both are shown), and otherwise only for metrics
//!   that are not timings, within a relative tolerance; timings and latencies (`*_ms`,
//!   `latency`, `p50`, `fps`, …) differ run to run and are never compared by value;
//! - evidence: the same signature shape (numbers masked) and class;
//! - commits: the same number of files changed; artifacts: the same paths; checkpoints, stage
//!   ends and exhausted budgets: the same stages and kinds; the session's outcome and exit code;
//! - never compared: timestamps, durations, session ids, paths containing them, commit hashes,
//!   artifact hashes (toolchains embed build times and versions in their outputs).

use super::normalize::{mask_numbers, Normalizer};
use crate::protocol::{Decider, Event, EventEnvelope};
use crate::toolbox::observation::{is_timing, mask_result_timings};
use serde::Serialize;

/// How strictly to compare.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    /// Relative tolerance for non-timing metric values; `None` compares gate outcomes only.
    pub metric_tolerance: Option<f64>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            metric_tolerance: Some(1e-4),
        }
    }
}

/// A field's value, compared exactly (text) or within the tolerance (number).
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Text(String),
    Number(f64),
}

impl Value {
    fn show(&self) -> String {
        match self {
            Value::Text(t) => t.clone(),
            Value::Number(n) => format!("{n}"),
        }
    }
}

#[derive(Debug, Clone)]
struct Field {
    name: String,
    value: Value,
    /// Shown beside the value when this field differs; never compared.
    info: Option<String>,
}

/// One comparable event.
#[derive(Debug, Clone)]
pub struct Item {
    pub seq: u64,
    pub kind: &'static str,
    /// Where it happened, e.g. `stage validate, attempt 2`.
    pub context: String,
    /// What it is, e.g. `check "artifact matches eager"`, `call validate.8 run`.
    pub subject: String,
    fields: Vec<Field>,
}

/// One side of a divergence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    pub seq: u64,
    pub kind: String,
    pub context: String,
    pub subject: String,
    /// The differing field's value (normalised), or a summary of the event.
    pub value: String,
    /// More about the value (e.g. the measured metric of a gate).
    pub info: Option<String>,
}

/// The first place the two streams disagree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    /// `kind` when the events differ in kind, else the differing field's name.
    pub field: String,
    /// `None`: the recording ends here.
    pub recorded: Option<Side>,
    /// `None`: the re-run ends (or stopped) here.
    pub rerun: Option<Side>,
    /// A unified diff of the two values when they are multi-line texts.
    pub text_diff: Option<String>,
    /// How many comparable events agreed before it.
    pub agreed: usize,
}

/// Reduce `events` to the comparable ones.
pub fn comparable<'a>(
    events: impl Iterator<Item = &'a EventEnvelope>,
    normalizer: &Normalizer,
    options: &CompareOptions,
) -> Vec<Item> {
    let mut items = Vec::new();
    let mut stage = String::new();
    let mut attempt = 0u32;
    let mut calls: std::collections::HashMap<String, String> = Default::default();
    let mut checks: std::collections::HashMap<String, String> = Default::default();
    for env in events {
        let context = if stage.is_empty() {
            "session".to_string()
        } else if attempt == 0 {
            format!("stage {stage}")
        } else {
            format!("stage {stage}, attempt {attempt}")
        };
        let text = |s: &str| Value::Text(normalizer.apply(s));
        let field = |name: &str, value: Value| Field {
            name: name.to_string(),
            value,
            info: None,
        };
        let (subject, fields): (String, Vec<Field>) = match &env.event {
            Event::SessionStarted { stages, .. } => (
                "session".into(),
                vec![field("stages", Value::Text(stages.join(" → ")))],
            ),
            Event::StageStarted { stage: s, .. } => {
                stage.clone_from(s);
                attempt = 0;
                (format!("stage {s}"), vec![field("stage", text(s))])
            }
            Event::AttemptStarted {
                stage: s,
                attempt: a,
                ..
            } => {
                attempt = *a;
                (
                    format!("attempt {a}"),
                    vec![
                        field("stage", text(s)),
                        field("attempt", text(&a.to_string())),
                    ],
                )
            }
            Event::ModelRequest { stage: s, .. } => {
                ("model turn".into(), vec![field("stage", text(s))])
            }
            Event::ModelInvalidCall { error, .. } => {
                ("invalid reply".into(), vec![field("error", text(error))])
            }
            Event::ToolCallProposed {
                call_id,
                tool,
                args,
                ..
            } => {
                calls.insert(call_id.clone(), tool.clone());
                (
                    format!("call {call_id}"),
                    // Not the call id: its number counts calls over the session's whole
                    // history (a resumed session's ids run on).
                    vec![
                        field("tool", text(tool)),
                        field("args", text(&args.to_string())),
                    ],
                )
            }
            Event::ToolCallApproved { call_id, by } => (
                format!("call {call_id}"),
                // A re-run has no engineer: an `ask` call the recording's engineer approved
                // is approved by batch mode there. Both let the call run.
                vec![field(
                    "approved_by",
                    text(match by {
                        Decider::Human => Decider::Batch.word(),
                        other => other.word(),
                    }),
                )],
            ),
            Event::ToolCallRejected {
                call_id,
                reason,
                by,
            } => (
                format!("call {call_id}"),
                vec![
                    field("rejected_by", text(by.word())),
                    field("reason", text(reason)),
                ],
            ),
            // A call that never ran ended with its rejection (compared above) or with the
            // session's abort; format 2 logs have no such end.
            Event::ToolCallFinished { status, .. } if !status.ran() => continue,
            Event::ToolCallFinished {
                call_id,
                ok,
                observation,
                exit_code,
                ..
            } => (
                format!(
                    "call {call_id} {}",
                    calls.get(call_id).map(String::as_str).unwrap_or("")
                ),
                vec![
                    field("ok", text(&ok.to_string())),
                    field("exit_code", text(&format!("{exit_code:?}"))),
                    field("observation", text(&mask_result_timings(observation))),
                ],
            ),
            Event::FileChanged { call_id, diff } => (
                format!(
                    "change of {} by {}",
                    diff.path,
                    call_id.as_deref().unwrap_or("the engineer")
                ),
                vec![
                    field("path", text(&diff.path)),
                    field("diff", text(&diff.unified)),
                ],
            ),
            Event::CheckStarted { check_id, name, .. } => {
                checks.insert(check_id.clone(), name.clone());
                (format!("check \"{name}\""), vec![field("name", text(name))])
            }
            Event::CheckResult {
                check_id,
                passed,
                exit_code,
                metrics,
                gates,
                ..
            } => {
                let mut fields = vec![
                    field("passed", text(&passed.to_string())),
                    field("exit_code", text(&format!("{exit_code:?}"))),
                ];
                for gate in gates {
                    fields.push(Field {
                        name: format!("gate `{}`", gate.expr),
                        value: Value::Text(if gate.passed { "met" } else { "not met" }.into()),
                        info: Some(match gate.measured {
                            Some(v) => format!("measured {v}"),
                            None => "not measured".to_string(),
                        }),
                    });
                }
                if options.metric_tolerance.is_some() {
                    for (name, value) in metrics {
                        if !is_timing(name) {
                            fields.push(field(&format!("metric {name}"), Value::Number(*value)));
                        }
                    }
                }
                (
                    format!(
                        "check \"{}\"",
                        checks.get(check_id).map(String::as_str).unwrap_or(check_id)
                    ),
                    fields,
                )
            }
            Event::EvidenceCollected { evidence, .. } => (
                "evidence".into(),
                vec![
                    field(
                        "signature",
                        Value::Text(mask_numbers(&normalizer.apply(&evidence.signature))),
                    ),
                    field("class", text(evidence.class.as_deref().unwrap_or("-"))),
                ],
            ),
            Event::AttemptCommitted {
                attempt: a,
                files_changed,
                ..
            } => (
                format!("commit of attempt {a}"),
                vec![field("files_changed", text(&files_changed.to_string()))],
            ),
            Event::ArtifactRecorded { path, .. } => {
                (format!("artifact {path}"), vec![field("path", text(path))])
            }
            Event::FilesNotCommitted { files, .. } => (
                "files not committed".into(),
                vec![field(
                    "paths",
                    text(
                        &files
                            .iter()
                            .map(|f| f.path.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                )],
            ),
            Event::CheckpointMade { stage: s, .. } => {
                (format!("checkpoint of {s}"), vec![field("stage", text(s))])
            }
            Event::StagePassed {
                stage: s, attempts, ..
            } => (
                format!("stage {s} passed"),
                vec![
                    field("stage", text(s)),
                    field("attempts", text(&attempts.to_string())),
                ],
            ),
            Event::StageFailed {
                stage: s, attempts, ..
            } => (
                format!("stage {s} failed"),
                vec![
                    field("stage", text(s)),
                    field("attempts", text(&attempts.to_string())),
                ],
            ),
            Event::StageSkipped { stage: s, .. } => {
                (format!("stage {s} skipped"), vec![field("stage", text(s))])
            }
            Event::BudgetExhausted { budget, .. } => (
                "budget".into(),
                vec![field("budget", text(&format!("{budget:?}")))],
            ),
            Event::RolledBack { to_tag, .. } => {
                ("rollback".into(), vec![field("to_tag", text(to_tag))])
            }
            Event::EngineError { message } => (
                "engine error".into(),
                vec![field(
                    "error",
                    text(message.split(':').next().unwrap_or(message)),
                )],
            ),
            Event::SessionFinished {
                outcome, exit_code, ..
            } => (
                "session end".into(),
                vec![
                    field("outcome", text(outcome.word())),
                    field("exit_code", text(&exit_code.to_string())),
                ],
            ),
            Event::ModelResponse { .. }
            | Event::ModelDelta { .. }
            | Event::Compacted { .. }
            | Event::ToolCallStarted { .. }
            | Event::ToolCallEdited { .. }
            | Event::ToolOutput { .. }
            | Event::CheckOutput { .. }
            | Event::Paused { .. }
            | Event::Resumed
            | Event::StepMode { .. }
            | Event::HintAdded { .. }
            | Event::HumanAction { .. }
            // Raised by an engineer's retry, which a re-run (zero-human) never makes.
            | Event::BudgetRaised { .. }
            // The machine's sandbox and toolbox, not the session's behaviour.
            | Event::SessionPolicy { .. }
            | Event::SessionResumed { .. } => continue,
        };
        items.push(Item {
            seq: env.seq,
            kind: env.event.kind(),
            context,
            subject,
            fields,
        });
    }
    items
}

/// The first divergence between `recorded` and `rerun`, comparing at most `limit` re-run items
/// (a re-run stopped with `--until` is compared up to where it stopped).
pub fn first_divergence(
    recorded: &[Item],
    rerun: &[Item],
    limit: Option<usize>,
    options: &CompareOptions,
) -> Option<Divergence> {
    let stop_at = limit.unwrap_or(usize::MAX);
    let mut i = 0;
    loop {
        if i >= stop_at {
            return None;
        }
        let (a, b) = (recorded.get(i), rerun.get(i));
        let (a, b) = match (a, b) {
            (None, None) => return None,
            (Some(a), None) => {
                if limit.is_some() {
                    return None;
                }
                return Some(Divergence {
                    field: "kind".into(),
                    recorded: Some(summary(a)),
                    rerun: None,
                    text_diff: None,
                    agreed: i,
                });
            }
            (None, Some(b)) => {
                return Some(Divergence {
                    field: "kind".into(),
                    recorded: None,
                    rerun: Some(summary(b)),
                    text_diff: None,
                    agreed: i,
                })
            }
            (Some(a), Some(b)) => (a, b),
        };
        if a.kind != b.kind {
            return Some(Divergence {
                field: "kind".into(),
                recorded: Some(summary(a)),
                rerun: Some(summary(b)),
                text_diff: None,
                agreed: i,
            });
        }
        for fa in &a.fields {
            let fb = b.fields.iter().find(|f| f.name == fa.name);
            let same = match (fb.map(|f| &f.value), &fa.value) {
                (Some(Value::Number(y)), Value::Number(x)) => {
                    close(&fa.name, *x, *y, options.metric_tolerance.unwrap_or(0.0))
                }
                (Some(vb), va) => vb == va,
                (None, _) => false,
            };
            if !same {
                return Some(field_divergence(a, b, fa, fb, i));
            }
        }
        if let Some(extra) = b
            .fields
            .iter()
            .find(|fb| !a.fields.iter().any(|fa| fa.name == fb.name))
        {
            let missing = Field {
                name: extra.name.clone(),
                value: Value::Text("(absent)".into()),
                info: None,
            };
            return Some(field_divergence(a, b, &missing, Some(extra), i));
        }
        i += 1;
    }
}

/// Error magnitudes at or below this agree whatever their ratio (see [`close`]).
const ERROR_NOISE_FLOOR: f64 = 1e-3;
/// Relative tolerance of error magnitudes above the floor.
const ERROR_RELATIVE: f64 = 0.1;

/// Whether two values of the field `name` agree. An error magnitude (`max_abs_err` and other
/// `*err*` metrics) measures the floating-point noise of the runtime's kernels, which differ
/// between CPUs (an FP32 ONNX model's max_abs_err was 6.2e-6 on the Intel host that recorded a
/// shipped session and 1.05e-5 on an AMD EPYC): such values agree when both are at most
/// [`ERROR_NOISE_FLOOR`] or within [`ERROR_RELATIVE`]; every other metric within `relative`.
/// Gate outcomes are compared apart, exactly.
fn close(name: &str, a: f64, b: f64, relative: f64) -> bool {
    if a == b || (a.is_nan() && b.is_nan()) {
        return true;
    }
    if name.starts_with("metric ") && name.contains("err") {
        let both_noise = a.abs() <= ERROR_NOISE_FLOOR && b.abs() <= ERROR_NOISE_FLOOR;
        return both_noise || (a - b).abs() <= ERROR_RELATIVE.max(relative) * a.abs().max(b.abs());
    }
    (a - b).abs() <= relative * a.abs().max(b.abs()) + 1e-12
}

fn field_divergence(
    a: &Item,
    b: &Item,
    fa: &Field,
    fb: Option<&Field>,
    agreed: usize,
) -> Divergence {
    let side = |item: &Item, field: Option<&Field>| Side {
        seq: item.seq,
        kind: item.kind.to_string(),
        context: item.context.clone(),
        subject: item.subject.clone(),
        value: field.map_or_else(|| "(absent)".to_string(), |f| f.value.show()),
        info: field.and_then(|f| f.info.clone()),
    };
    let text_diff = match (&fa.value, fb.map(|f| &f.value)) {
        (Value::Text(x), Some(Value::Text(y))) if x.contains('\n') || y.contains('\n') => {
            Some(unified(x, y))
        }
        _ => None,
    };
    Divergence {
        field: fa.name.clone(),
        recorded: Some(side(a, Some(fa))),
        rerun: Some(side(b, fb)),
        text_diff,
        agreed,
    }
}

fn summary(item: &Item) -> Side {
    let value = item
        .fields
        .iter()
        .map(|f| {
            format!(
                "{}={}",
                f.name,
                crate::conversation::clip(&f.value.show(), 80)
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    Side {
        seq: item.seq,
        kind: item.kind.to_string(),
        context: item.context.clone(),
        subject: item.subject.clone(),
        value,
        info: None,
    }
}

/// A bounded unified diff of two texts.
fn unified(recorded: &str, rerun: &str) -> String {
    let diff = similar::TextDiff::from_lines(recorded, rerun);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("recorded", "rerun")
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > 40 {
        format!(
            "{}\n… {} more lines",
            lines[..40].join("\n"),
            lines.len() - 40
        )
    } else {
        text
    }
}

/// The divergence as text: where, what, both sides.
pub fn describe(d: &Divergence) -> String {
    let mut out = String::new();
    let anchor = d.recorded.as_ref().or(d.rerun.as_ref());
    if let Some(side) = anchor {
        out.push_str(&format!(
            "first divergence after {} agreeing events: {} `{}` ({})\n",
            d.agreed, side.subject, side.kind, side.context
        ));
    }
    out.push_str(&format!("  field:    {}\n", d.field));
    let show = |label: &str, side: &Option<Side>, other_end: &str| match side {
        Some(s) => {
            let value = if d.field == "kind" {
                format!("`{}` {} ({}): {}", s.kind, s.subject, s.context, s.value)
            } else if s.value.contains('\n') {
                format!("{} lines (see the diff below)", s.value.lines().count())
            } else {
                crate::conversation::clip(&s.value, 300)
            };
            let info = s
                .info
                .as_deref()
                .map(|i| format!(" [{i}]"))
                .unwrap_or_default();
            format!("  {label} seq {}: {value}{info}\n", s.seq)
        }
        None => format!("  {label} {other_end}\n"),
    };
    out.push_str(&show("recorded", &d.recorded, "(the recording ends here)"));
    out.push_str(&show("rerun   ", &d.rerun, "(the re-run ends here)"));
    if let Some(diff) = &d.text_diff {
        for line in diff.lines() {
            out.push_str("    ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::GateResult;
    use std::collections::BTreeMap;

    fn env(seq: u64, event: Event) -> EventEnvelope {
        EventEnvelope {
            seq,
            ts_ms: seq,
            event,
        }
    }

    fn check(cosine: f64, p50: f64) -> Event {
        Event::CheckResult {
            check_id: "c".into(),
            passed: cosine >= 0.99,
            exit_code: Some(0),
            detail: String::new(),
            metrics: BTreeMap::from([("cosine".to_string(), cosine), ("p50_ms".to_string(), p50)]),
            gates: vec![GateResult {
                expr: "cosine >= 0.99".into(),
                measured: Some(cosine),
                passed: cosine >= 0.99,
            }],
            duration_ms: p50 as u64,
            skipped: None,
        }
    }

    fn items(events: &[EventEnvelope]) -> Vec<Item> {
        comparable(
            events.iter(),
            &Normalizer::default(),
            &CompareOptions::default(),
        )
    }

    #[test]
    fn timings_never_diverge_accuracy_does() {
        let a = [env(0, check(0.9999, 3.0))];
        let b = [env(0, check(0.99990001, 9.0))];
        assert!(
            first_divergence(&items(&a), &items(&b), None, &CompareOptions::default()).is_none()
        );
        let c = [env(0, check(0.95, 3.0))];
        let d = first_divergence(&items(&a), &items(&c), None, &CompareOptions::default()).unwrap();
        assert_eq!(d.field, "passed");
        let gates_only = CompareOptions {
            metric_tolerance: None,
        };
        let e = [env(0, check(0.9991, 3.0))];
        assert!(first_divergence(
            &comparable(a.iter(), &Normalizer::default(), &gates_only),
            &comparable(e.iter(), &Normalizer::default(), &gates_only),
            None,
            &gates_only
        )
        .is_none());
        let d = first_divergence(&items(&a), &items(&e), None, &CompareOptions::default()).unwrap();
        assert_eq!(d.field, "metric cosine");
        assert!(describe(&d).contains("recorded seq 0: 0.9999"));
    }

    #[test]
    fn error_magnitudes_agree_within_the_noise_of_another_cpu() {
        let with_err = |err: f64| {
            let mut event = check(0.9999, 3.0);
            if let Event::CheckResult { metrics, .. } = &mut event {
                metrics.insert("max_abs_err".into(), err);
            }
            [env(0, event)]
        };
        let options = CompareOptions::default();
        let diverges = |a: f64, b: f64| {
            first_divergence(&items(&with_err(a)), &items(&with_err(b)), None, &options)
                .map(|d| d.field)
        };
        // Measured: the same FP32 artifact on an Intel and an AMD host.
        assert_eq!(diverges(6.198883056640625e-6, 1.049041748046875e-5), None);
        assert_eq!(diverges(0.052, 0.055), None);
        assert_eq!(
            diverges(0.0001, 0.02).as_deref(),
            Some("metric max_abs_err")
        );
        assert_eq!(diverges(0.05, 0.08).as_deref(), Some("metric max_abs_err"));
    }

    #[test]
    fn a_missing_tail_and_a_stop_limit() {
        let a = [
            env(0, Event::StepMode { on: true }),
            env(1, check(0.999, 1.0)),
            env(2, check(0.999, 1.0)),
        ];
        let b = [env(5, check(0.999, 1.0))];
        let d = first_divergence(&items(&a), &items(&b), None, &CompareOptions::default()).unwrap();
        assert_eq!((d.agreed, d.rerun.is_none()), (1, true));
        assert_eq!(d.recorded.unwrap().seq, 2);
        assert!(
            first_divergence(&items(&a), &items(&b), Some(1), &CompareOptions::default()).is_none()
        );
    }

    #[test]
    fn timing_names() {
        for name in [
            "p50_ms",
            "latency",
            "run.time_s",
            "tokens_per_second",
            "fps",
        ] {
            assert!(is_timing(name), "{name}");
        }
        for name in [
            "cosine",
            "top1_agreement",
            "max_abs_err",
            "samples",
            "delegated_ratio",
        ] {
            assert!(!is_timing(name), "{name}");
        }
    }
}
