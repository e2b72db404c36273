//! Choice narrowing: which tools the constraint offers on the next turn of an attempt, given
//! what the attempt's calls did so far.
//!
//! A small model's typical failures are loops: calling the stage's build tool again after it
//! failed the same way, applying the same codemod twice, or never calling the build tool again
//! after a fix. The system prompt still lists every tool of the stage; the per-turn constraint
//! leaves out the choices that cannot help now, and the observation says what to do next:
//!
//! - the stage's `main_tool` (the tool whose output the checks test) succeeded: only
//!   `finish_stage` is offered — the checks decide;
//! - any other tool succeeded: it is withdrawn for the rest of the attempt (a codemod applied once
//!   is enough); when it changed files, the failure withdrawals below are lifted (the inputs
//!   changed) and, when the stage has a main tool, only the main tool is offered next, with an
//!   observation saying to rebuild, with its required arguments only (the 270M model, told so in words only, went on calling other
//!   codemods and skills and never rebuilt; offered `finish_stage` beside the main tool, it
//!   finished with no artifact); in a stage without a main tool only `finish_stage` is left;
//! - a call failed exactly like the previous call (same tool, arguments and outcome): that tool
//!   is withdrawn until a call changes the project's files (a built-in tool: until a call
//!   succeeds);
//! - until the stage has seen evidence (a retry's classified failure, or a toolbox call that
//!   failed or named its next call), the main tool is offered with its required arguments only:
//!   its optional arguments override the project's settings for a repair, and there is none to
//!   make yet.
//!
//! - a toolbox tool succeeded and its JSON result names the calls that apply what it measured
//!   (`next_calls`, e.g. the `set_project_option` that records an analysis's choice): those
//!   calls are offered next, as evidence's named calls are (below), before any rebuild.
//!
//! Only toolbox tools are withdrawn for good: a built-in tool (`run`, `read_file`, …) does
//! something else with other arguments. Each attempt starts with every tool offered again.
//!
//! **Evidence-guided choice.** Classified evidence lists candidate fixes, and some of them are
//! exact calls (`set_project_option {"key": "dynamic_batch", "value": true}`,
//! `quantize {"drop_outliers": true}`, `load_skill ort-static-quantization`). After a failure whose evidence names such calls — a
//! repair attempt's evidence, or a toolbox call that failed in this attempt — the next turns offer
//! only those calls, the arguments the evidence shows bound in the schema and the tool's other
//! required arguments left for the model to write ([`bind_facts`]), until the model makes one
//! that is not `load_skill` (a call counts as a named one when every bound argument is there with
//! its value; when it is refused without changing the project, the other named calls stay
//! offered). The 270M model read `fixes: fix_branch_to_where {"file": "model.py"}` and then
//! wrote its own `edit_file`, or called `finish_stage` without the fix. A named call that is
//! withdrawn by the rules above is not offered; when none is left the choice is the plain one.
//! The control arm has no classified evidence, so this never narrows it.
//!
//! Nothing here knows what a task's answer is: the rules only use the stage's contract, the
//! outcomes of the calls and the fixes the target's signature tables give for the real output.

use crate::conversation::OfferedTool;
use serde_json::Value;
use std::collections::BTreeSet;

/// The tool that ends an attempt; always offered.
pub const FINISH: &str = "finish_stage";
/// The built-in tool that reads a skill; a named `load_skill` call does not end the named choice.
pub const LOAD_SKILL: &str = "load_skill";

/// A call a candidate fix names exactly: a tool and all of its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedCall {
    pub tool: String,
    pub args: Value,
}

impl NamedCall {
    /// Parse one candidate fix: `tool {json object}` with anything after the object a comment
    /// (`quantize {"drop_outliers": true}  (drops sample 7)`), or `load_skill <name>`. Prose fixes,
    /// and calls whose arguments still hold an unfilled `${fact}`, are not calls.
    pub fn parse(fix: &str) -> Option<NamedCall> {
        let (tool, rest) = fix.trim().split_once(char::is_whitespace)?;
        let is_name = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if !is_name(tool) {
            return None;
        }
        let rest = rest.trim_start();
        let args = if tool == LOAD_SKILL {
            let name = rest.split_whitespace().next()?;
            if !is_name(name) {
                return None;
            }
            serde_json::json!({ "name": name })
        } else {
            if !rest.starts_with('{') {
                return None;
            }
            let value = serde_json::Deserializer::from_str(rest)
                .into_iter::<Value>()
                .next()?
                .ok()?;
            if !value.is_object() || value.to_string().contains("${") {
                return None;
            }
            value
        };
        Some(NamedCall {
            tool: tool.to_string(),
            args,
        })
    }

    /// The calls among `fixes`, in their order, without repeats.
    pub fn all_in(fixes: &[String]) -> Vec<NamedCall> {
        let mut calls: Vec<NamedCall> = Vec::new();
        for call in fixes.iter().filter_map(|f| NamedCall::parse(f)) {
            if !calls.contains(&call) {
                calls.push(call);
            }
        }
        calls
    }
}

/// A schema that accepts exactly `value`: objects spelled out key by key (so the constrained
/// decoder writes the keys in the order given), everything else a `const`.
pub fn bound_schema(value: &Value) -> Value {
    match value {
        Value::Object(map) => serde_json::json!({
            "type": "object",
            "properties": map
                .iter()
                .map(|(k, v)| (k.clone(), bound_schema(v)))
                .collect::<serde_json::Map<String, Value>>(),
            "required": map.keys().collect::<Vec<_>>(),
            "additionalProperties": false,
        }),
        other => serde_json::json!({ "const": other }),
    }
}

/// The schema of a call to a tool whose arguments' schema is `tool_schema`, with the arguments
/// in `facts` bound (the evidence showed them) and the tool's other required arguments left
/// free under their own schema (a `replace_function` bound to the file and function an error
/// named still needs the body the model writes). The tool's optional arguments are left out:
/// the 270M model, offered a rebuild with every optional flag, set them all (a dynamic batch on
/// a project that has none) and the rebuild failed.
pub fn bind_facts(tool_schema: &Value, facts: &Value) -> Value {
    let mut properties = serde_json::Map::new();
    let mut required: Vec<String> = Vec::new();
    if let Some(facts) = facts.as_object() {
        for (key, value) in facts {
            properties.insert(key.clone(), bound_schema(value));
            required.push(key.clone());
        }
    }
    let tool_properties = tool_schema.get("properties").and_then(Value::as_object);
    let tool_required = tool_schema.get("required").and_then(Value::as_array);
    for key in tool_required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if properties.contains_key(key) {
            continue;
        }
        let free = tool_properties
            .and_then(|p| p.get(key))
            .cloned()
            .unwrap_or_else(|| serde_json::json!({}));
        properties.insert(key.to_string(), free);
        required.push(key.to_string());
    }
    serde_json::json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// Whether `call_args` makes the call whose evidence-bound arguments are `bound`: every bound
/// argument is there with its value (the free ones are the model's).
fn binds(bound: &Value, call_args: &Value) -> bool {
    match (bound.as_object(), call_args.as_object()) {
        (Some(bound), Some(args)) => bound.iter().all(|(k, v)| args.get(k) == Some(v)),
        _ => bound == call_args,
    }
}

/// What one call did, as the narrowing sees it.
pub struct CallOutcome<'a> {
    pub tool: &'a str,
    /// The arguments as JSON text (identical calls have identical text).
    pub args: &'a str,
    pub ok: bool,
    /// The observation with its digits removed (timings differ between identical calls).
    pub observed: &'a str,
    pub changed_files: bool,
    /// A toolbox tool (a script with a fixed purpose). Built-in tools (`run`, `read_file`, …)
    /// do something else with other arguments, so they are never withdrawn.
    pub toolbox: bool,
    /// The calls the outcome names next: the candidate fixes of a failed call's classified
    /// evidence, or the `next_calls` of a successful toolbox result (an analysis naming the
    /// call that applies what it measured). Empty when the evidence is raw or names nothing.
    pub fixes: &'a [String],
}

/// A failed call as the repeat rule compares them: tool, arguments, observation.
type FailureKey = (String, Value, String);

/// Record `call`'s failure in `last`; whether it repeats the failure recorded there before. The
/// same arguments in another key order are the same call (object equality ignores the order;
/// their text may not).
fn repeats_failure(last: &mut Option<FailureKey>, call: &CallOutcome<'_>) -> bool {
    let args = serde_json::from_str::<Value>(call.args)
        .unwrap_or_else(|_| Value::String(call.args.to_string()));
    let key = (call.tool.to_string(), args, call.observed.to_string());
    let repeated = last.as_ref() == Some(&key);
    *last = Some(key);
    repeated
}

/// The narrowing state of one attempt.
#[derive(Debug, Default)]
pub struct Narrowing {
    main_tool: Option<String>,
    /// Tools that succeeded (other than the main tool).
    spent: BTreeSet<String>,
    /// The toolbox calls that succeeded (other than the main tool), with their arguments: the
    /// evidence naming one of them again is not followed to it in this attempt.
    spent_calls: Vec<NamedCall>,
    /// Tools whose call failed twice the same way since the last success.
    failing: BTreeSet<String>,
    /// The main tool succeeded: only `finish_stage` is left.
    finish_only: bool,
    /// A call changed the project: only the main tool is left (the artifact is stale).
    rebuild_only: bool,
    last_failure: Option<FailureKey>,
    /// The calls the latest evidence names, offered alone until one (other than `load_skill`)
    /// is made.
    named: Vec<NamedCall>,
    /// Evidence was seen in this stage: a retry's classified evidence, or a toolbox call that
    /// failed or named a next call in this attempt. Until then the main tool is offered with
    /// its required arguments only: its optional arguments are overrides for a repair, and with
    /// no evidence there is nothing to repair (the 270M model, starting a build stage with every
    /// argument offered, called quantize with `nodes_to_exclude` "0".."15" three times).
    evidence_seen: bool,
    /// Built-in tools whose call failed twice the same way: withdrawn until a call succeeds (a
    /// built-in does something else with other arguments, so one success is enough). The 270M
    /// model read the same missing file three times.
    failing_builtin: BTreeSet<String>,
    last_builtin_failure: Option<FailureKey>,
    /// The named calls made in this stage so far (this attempt and the earlier ones): the
    /// evidence is not followed to them again. A stage is retried only after its checks failed,
    /// so a named call made in an earlier attempt did not repair it (the deterministic policy
    /// made the first named call in every attempt and never reached the second).
    made: Vec<NamedCall>,
}

impl Narrowing {
    pub fn new(main_tool: Option<&str>) -> Narrowing {
        Narrowing {
            main_tool: main_tool.map(str::to_string),
            ..Narrowing::default()
        }
    }

    /// The state of the next attempt of the same stage: everything starts over except the
    /// named calls already made.
    pub fn next_attempt(&mut self, main_tool: Option<&str>) -> Narrowing {
        Narrowing {
            main_tool: main_tool.map(str::to_string),
            made: std::mem::take(&mut self.made),
            evidence_seen: true,
            ..Narrowing::default()
        }
    }

    /// The attempt starts with evidence (a classified failure of the stage's checks).
    pub fn saw_evidence(&mut self) {
        self.evidence_seen = true;
    }

    /// Whether `fixes` name a call (other than `load_skill`) this stage has not made yet: a
    /// failure that repeats the last one is still worth another attempt while the evidence
    /// leaves such a choice (the 270M model chose a no-op `drop_outliers` among three named
    /// calls, the failure repeated, and the stage ended before the other two were offered).
    pub fn untried(&self, fixes: &[String]) -> bool {
        NamedCall::all_in(fixes)
            .iter()
            .any(|c| c.tool != LOAD_SKILL && !self.made.contains(c))
    }

    /// Offer only the calls that `fixes` (classified evidence) names and this stage has not
    /// made yet, until one is made. Returns the named calls left out because they were made.
    pub fn follow_evidence(&mut self, fixes: &[String]) -> Vec<NamedCall> {
        let (made, fresh): (Vec<NamedCall>, Vec<NamedCall>) = NamedCall::all_in(fixes)
            .into_iter()
            .partition(|c| c.tool != LOAD_SKILL && self.made.contains(c));
        self.named = fresh;
        made
    }

    /// Record a call; returns the next-step sentence for its observation, if any.
    pub fn after_call(&mut self, call: &CallOutcome<'_>) -> Option<String> {
        if call.tool == FINISH {
            return None;
        }
        let was_named = self.take_named(call);
        if call.ok {
            self.failing_builtin.clear();
        }
        if call.toolbox && (!call.ok || !call.fixes.is_empty()) {
            self.evidence_seen = true;
        }
        if call.ok && call.changed_files {
            // The inputs changed: what failed before may work now.
            self.failing.clear();
            self.last_failure = None;
        }
        if !call.toolbox {
            if call.ok && call.tool == LOAD_SKILL {
                // The skill is in the conversation now: the 270M model, offered it again, read
                // the same skill three times over and spent the attempt's turns on it.
                self.spent.insert(call.tool.to_string());
            }
            // A built-in edit the evidence named (e.g. `edit_file aipc.toml`): rebuild next.
            if was_named && call.ok && call.changed_files {
                return self.rebuild_after(call.tool);
            }
            return self.builtin_failure(call);
        }
        if call.ok {
            self.last_failure = None;
            if self.main_tool.as_deref() == Some(call.tool) {
                self.rebuild_only = false;
                self.finish_only = true;
                self.named.clear();
                return Some(format!(
                    "{} succeeded: the stage's checks can run now. Call finish_stage.",
                    call.tool
                ));
            }
            self.spent.insert(call.tool.to_string());
            self.spent_calls.push(NamedCall {
                tool: call.tool.to_string(),
                args: serde_json::from_str(call.args).unwrap_or(Value::Null),
            });
            if let Some(note) = self.follow_named(call) {
                // What the tool measured names the next call: it comes before a rebuild (the
                // 270M model, after an analysis printed the call that records its choice,
                // rebuilt without it and undid the choice).
                return Some(note);
            }
            if !call.changed_files {
                return None;
            }
            return self.rebuild_after(call.tool);
        }
        if self.main_tool.as_deref() == Some(call.tool) {
            // The rebuild ran: its failure is new evidence, which names the next call (a
            // second fault behind the one just repaired). The policy, kept to the rebuild,
            // called export three more times on a failure naming a fix in another file.
            self.rebuild_only = false;
        }
        let named_note = self.follow_named(call);
        if !repeats_failure(&mut self.last_failure, call) {
            return named_note;
        }
        self.failing.insert(call.tool.to_string());
        Some(format!(
            "{} failed twice the same way, so it is not offered again until a call changes the \
             project. Apply the fix the evidence names.",
            call.tool
        ))
    }

    /// A built-in call that failed exactly like the previous built-in failure: its tool is
    /// withdrawn until a call succeeds; the sentence that says so.
    fn builtin_failure(&mut self, call: &CallOutcome<'_>) -> Option<String> {
        if call.ok {
            return None;
        }
        if !repeats_failure(&mut self.last_builtin_failure, call) {
            return None;
        }
        self.failing_builtin.insert(call.tool.to_string());
        Some(format!(
            "{} failed twice the same way, so it is not offered again until a call succeeds. \
             Read the observation: it says what is there.",
            call.tool
        ))
    }

    /// Narrow to the calls `call`'s outcome names (those this stage has not made yet); the
    /// sentence that says so, when any besides `load_skill` is left.
    fn follow_named(&mut self, call: &CallOutcome<'_>) -> Option<String> {
        if call.fixes.is_empty() {
            return None;
        }
        self.follow_evidence(call.fixes);
        let actionable: Vec<String> = self
            .named
            .iter()
            .filter(|c| c.tool != LOAD_SKILL)
            .map(|c| format!("{} {}", c.tool, c.args))
            .collect();
        if actionable.is_empty() {
            return None;
        }
        let what = if call.ok {
            format!("{} names the next call", call.tool)
        } else {
            "The evidence names the fix".to_string()
        };
        Some(format!(
            "{what}: {}. Make that call.",
            actionable.join(" or ")
        ))
    }

    /// Whether `call` is one of the named calls: its tool, with every argument the evidence bound
    /// (the model writes the free ones, e.g. a `replace_function` body). A named `load_skill` is
    /// spent. A named call that failed without changing the project leaves the other named calls
    /// offered: the evidence left a choice, and the one tried was refused (the 270M model, offered
    /// the plain tool set after its `replace_function` body was refused, wrote the same body twice
    /// more while the other named call, a setting, was never offered again). Any other call ends
    /// the named choice.
    fn take_named(&mut self, call: &CallOutcome<'_>) -> bool {
        let args: Option<Value> = serde_json::from_str(call.args).ok();
        let matched = self
            .named
            .iter()
            .find(|c| c.tool == call.tool && args.as_ref().is_some_and(|a| binds(&c.args, a)))
            .cloned();
        if let Some(named) = matched.as_ref().filter(|c| c.tool != LOAD_SKILL) {
            if !self.made.contains(named) {
                self.made.push(named.clone());
            }
        }
        match &matched {
            Some(named) if named.tool == LOAD_SKILL => self.named.retain(|c| c != named),
            Some(named) if !call.ok && !call.changed_files => {
                self.named.retain(|c| c != named);
                if self.named.iter().all(|c| c.tool == LOAD_SKILL) {
                    self.named.clear();
                }
            }
            _ => self.named.clear(),
        }
        matched.is_some()
    }

    /// `tool` changed the project: offer the main tool (and `finish_stage`) next.
    /// In a stage without a main tool (the checks test the project itself, e.g. aipc.toml's
    /// shipped artifact or the app's feed) only `finish_stage` is left: the model, offered
    /// everything after its `edit_file` of aipc.toml, made the same edit three more times.
    fn rebuild_after(&mut self, tool: &str) -> Option<String> {
        let Some(main) = self.main_tool.as_deref() else {
            self.finish_only = true;
            self.named.clear();
            return Some(format!(
                "{tool} changed the project: the stage's checks can run now. Call finish_stage."
            ));
        };
        self.rebuild_only = true;
        Some(format!(
            "{tool} changed the project. Now call {main} again: the checks test what {main} \
             builds."
        ))
    }

    /// The named calls still offered next turn; empty when none but `load_skill` is left.
    fn named_offered(&self) -> Vec<&NamedCall> {
        if self.finish_only || self.rebuild_only {
            return Vec::new();
        }
        let offered: Vec<&NamedCall> = self
            .named
            .iter()
            .filter(|c| c.tool == LOAD_SKILL || self.offers_named(c))
            .collect();
        if offered.iter().all(|c| c.tool == LOAD_SKILL) {
            return Vec::new();
        }
        offered
    }

    /// Whether `tool` is offered on the next turn.
    pub fn offers(&self, tool: &str) -> bool {
        let named = self.named_offered();
        if !named.is_empty() {
            return named.iter().any(|c| c.tool == tool);
        }
        self.offers_plain(tool)
    }

    /// Whether a call the evidence names can be offered: a tool spent in this attempt still can
    /// when the evidence names it with other facts (a second branch, in another file), but not
    /// the call that succeeded already, nor a tool failing the same way.
    fn offers_named(&self, named: &NamedCall) -> bool {
        if named.tool == FINISH {
            return !self.rebuild_only;
        }
        let spent = self
            .spent_calls
            .iter()
            .any(|c| c.tool == named.tool && binds(&named.args, &c.args));
        !self.finish_only && !self.rebuild_only && !spent && !self.failing.contains(&named.tool)
    }

    /// Whether `tool` is offered when no named call narrows the choice.
    fn offers_plain(&self, tool: &str) -> bool {
        if tool == FINISH {
            return !self.rebuild_only;
        }
        if self.finish_only {
            return false;
        }
        if self.rebuild_only {
            // Not even finish_stage: the artifact the checks would test is stale.
            return self.main_tool.as_deref() == Some(tool);
        }
        !self.spent.contains(tool)
            && !self.failing.contains(tool)
            && !self.failing_builtin.contains(tool)
    }

    /// The subset of `all` offered on the next turn, in the same order; while the evidence
    /// names calls, one entry per named call with its arguments bound (in the evidence's order).
    pub fn offered(&self, all: &[OfferedTool]) -> Vec<OfferedTool> {
        let named: Vec<OfferedTool> = self
            .named_offered()
            .into_iter()
            .filter_map(|call| {
                let tool = all.iter().find(|t| t.name == call.tool)?;
                Some(OfferedTool {
                    args_schema: bind_facts(&tool.args_schema, &call.args),
                    ..tool.clone()
                })
            })
            .collect();
        if named.iter().any(|t| t.name != LOAD_SKILL) {
            return named;
        }
        all.iter()
            .filter(|t| self.offers_plain(&t.name))
            .map(|t| {
                let plain_main = !self.evidence_seen && self.main_tool.as_deref() == Some(&t.name);
                if self.rebuild_only || plain_main {
                    // The rebuild, or the build before any evidence, takes the project's
                    // settings: only its required arguments.
                    OfferedTool {
                        args_schema: bind_facts(&t.args_schema, &serde_json::json!({})),
                        ..t.clone()
                    }
                } else {
                    t.clone()
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(tool: &'a str, ok: bool, observed: &'a str, changed: bool) -> CallOutcome<'a> {
        CallOutcome {
            tool,
            args: "{}",
            ok,
            observed,
            changed_files: changed,
            toolbox: true,
            fixes: &[],
        }
    }

    #[test]
    fn a_skill_read_once_is_not_offered_again() {
        let mut n = Narrowing::new(Some("llm_export"));
        assert!(n.offers(LOAD_SKILL));
        let read = CallOutcome {
            toolbox: false,
            ..call(LOAD_SKILL, true, "# Skill: x", false)
        };
        n.after_call(&read);
        assert!(!n.offers(LOAD_SKILL));
        assert!(n.offers("llm_export") && n.offers("read_file"));
    }

    #[test]
    fn the_main_tools_success_leaves_only_finish() {
        let mut n = Narrowing::new(Some("export"));
        assert!(n.offers("export") && n.offers("read_file"));
        let note = n.after_call(&call("export", true, "ok", false));
        assert!(note.unwrap().contains("Call finish_stage"));
        assert!(!n.offers("export") && !n.offers("read_file"));
        assert!(n.offers(FINISH));
    }

    #[test]
    fn a_fix_is_spent_and_names_the_main_tool() {
        let mut n = Narrowing::new(Some("export"));
        let note = n.after_call(&call("fix_input_feed", true, "diff", true));
        assert!(note.unwrap().contains("call export again"));
        assert!(!n.offers("fix_input_feed"));
        assert!(
            n.offers("export") && !n.offers(FINISH),
            "the artifact is stale"
        );
        assert!(!n.offers("fix_branch_to_where") && !n.offers("load_skill"));
        // A successful call that changed nothing says nothing more.
        let mut m = Narrowing::new(Some("export"));
        assert_eq!(m.after_call(&call("env", true, "text", false)), None);
        assert!(m.offers("fix_branch_to_where") && !m.offers("env"));
    }

    #[test]
    fn the_same_failure_twice_withdraws_the_tool_until_a_success() {
        let mut n = Narrowing::new(Some("export"));
        assert_eq!(n.after_call(&call("export", false, "median", false)), None);
        assert!(n.offers("export"));
        assert!(n
            .after_call(&call("export", false, "median", false))
            .is_some());
        assert!(!n.offers("export"));
        n.after_call(&call("env", true, "ok", false));
        assert!(
            !n.offers("export"),
            "nothing changed: export stays withdrawn"
        );
        n.after_call(&call("fix_input_feed", true, "diff", true));
        assert!(n.offers("export"), "the inputs changed: export is back");
    }

    #[test]
    fn a_failed_rebuild_is_followed_by_the_fix_its_evidence_names() {
        let mut n = Narrowing::new(Some("export"));
        let first = fixes(&[r#"fix_branch_to_where {"file": "a.py", "line": 21}"#]);
        n.follow_evidence(&first);
        let fix = CallOutcome {
            args: r#"{"file":"a.py","line":21}"#,
            ..call("fix_branch_to_where", true, "diff", true)
        };
        assert!(n.after_call(&fix).unwrap().contains("call export again"));
        assert!(n.offers("export") && !n.offers("fix_branch_to_where"));
        // The rebuild fails on a second branch, in another file.
        let second = fixes(&[r#"fix_branch_to_where {"file": "b.py", "line": 36}"#]);
        let rebuild = CallOutcome {
            fixes: &second,
            ..call("export", false, "guard b.py:36", false)
        };
        assert!(n.after_call(&rebuild).unwrap().contains("b.py"));
        assert!(n.offers("fix_branch_to_where"));
        assert!(!n.offers("export"), "the named fix comes first");
        // A rebuild failing with nothing named leaves the stage's tools, not the rebuild alone.
        let mut m = Narrowing::new(Some("export"));
        m.after_call(&call("fix_input_feed", true, "diff", true));
        m.after_call(&call("export", false, "unclassified", false));
        assert!(m.offers("read_file") && m.offers("export") && m.offers(FINISH));
    }

    #[test]
    fn built_in_tools_are_not_spent_and_come_back_after_a_success() {
        let mut n = Narrowing::new(Some("export"));
        let mut run = call("run", true, "ok", true);
        run.toolbox = false;
        assert_eq!(n.after_call(&run), None);
        assert!(n.offers("run"), "a success does not spend a built-in");
        run.ok = false;
        n.after_call(&run);
        n.after_call(&run);
        assert!(!n.offers("run"));
        run.ok = true;
        n.after_call(&run);
        assert!(n.offers("run"));
    }

    #[test]
    fn different_failures_do_not_withdraw() {
        let mut n = Narrowing::new(None);
        n.after_call(&call("export", false, "one", false));
        n.after_call(&call("export", false, "two", false));
        assert!(n.offers("export"));
        let all: Vec<OfferedTool> = ["export", FINISH]
            .iter()
            .map(|name| OfferedTool {
                name: name.to_string(),
                description: String::new(),
                args_schema: serde_json::json!({}),
            })
            .collect();
        assert_eq!(n.offered(&all).len(), 2);
    }

    fn tool(name: &str) -> OfferedTool {
        OfferedTool {
            name: name.to_string(),
            description: format!("{name} does things"),
            args_schema: serde_json::json!({"type": "object"}),
        }
    }

    fn stage_tools() -> Vec<OfferedTool> {
        [
            "export",
            "quantize",
            "fix_input_feed",
            "fix_branch_to_where",
            "edit_file",
            "read_file",
            LOAD_SKILL,
            FINISH,
        ]
        .iter()
        .map(|n| tool(n))
        .collect()
    }

    fn fixes(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn candidate_fixes_that_are_exact_calls_parse() {
        let calls = NamedCall::all_in(&fixes(&[
            r#"quantize {"drop_outliers": true}  (drops calibration sample 7)"#,
            "load_skill ort-static-quantization",
            r#"quantize {"method": "MinMax", "moving_average": true}"#,
            "rewrite the op in model.py with ops ONNX has (matmul, add, mul, where, gather …)",
            r#"fix_x {"file": "${file}"}"#,
            r#"export {}  (writes the .onnx and its .onnx.data together)"#,
            "or fix calibration sample 7 in calibration_set (data.py)",
            r#"quantize {"drop_outliers": true}"#,
            r#"edit_file {"path": "aipc.toml", "search": "opset = 13", "replace": "opset = 18"}  (why)"#,
        ]));
        let rendered: Vec<String> = calls
            .iter()
            .map(|c| format!("{} {}", c.tool, c.args))
            .collect();
        assert_eq!(
            rendered,
            [
                r#"quantize {"drop_outliers":true}"#,
                r#"load_skill {"name":"ort-static-quantization"}"#,
                r#"quantize {"method":"MinMax","moving_average":true}"#,
                "export {}",
                r#"edit_file {"path":"aipc.toml","search":"opset = 13","replace":"opset = 18"}"#,
            ]
        );
    }

    #[test]
    fn a_refused_named_call_leaves_the_other_named_calls() {
        let mut n = Narrowing::new(Some("quantize"));
        let evidence = fixes(&[
            r#"set_project_option {"key": "calibration_prep", "value": "data:scale"}  (applies it)"#,
            r#"replace_function {"file": "data.py", "function": "calibration"}  (write it)"#,
            "load_skill ort-static-quantization",
        ]);
        n.follow_evidence(&evidence);
        let mut all = stage_tools();
        all.extend([tool("set_project_option"), tool("replace_function")]);
        let names = |n: &Narrowing| -> Vec<String> {
            n.offered(&all).into_iter().map(|t| t.name).collect()
        };
        assert_eq!(
            names(&n),
            ["set_project_option", "replace_function", LOAD_SKILL]
        );
        // The model writes the body (a free argument): still the named call; refused.
        let refused = CallOutcome {
            args: r#"{"body": "calibrate.yaml", "function": "calibration", "file": "data.py"}"#,
            ..call("replace_function", false, "refused: not a body", false)
        };
        n.after_call(&refused);
        assert_eq!(
            names(&n),
            ["set_project_option", LOAD_SKILL],
            "the other choice is left"
        );
        // It counts as made: the evidence is not followed to it again in this stage.
        assert!(n.untried(&evidence));
        assert!(n.made.iter().any(|c| c.tool == "replace_function"));
        // The setting succeeds and changes aipc.toml: rebuild.
        let set = CallOutcome {
            args: r#"{"key": "calibration_prep", "value": "data:scale"}"#,
            ..call("set_project_option", true, "set", true)
        };
        assert!(n.after_call(&set).unwrap().contains("call quantize again"));
        assert!(!n.untried(&evidence), "both named calls are made");
    }

    #[test]
    fn the_same_arguments_in_another_order_are_the_same_failure() {
        let mut n = Narrowing::new(Some("export"));
        let first = CallOutcome {
            args: r#"{"a": 1, "b": 2}"#,
            ..call("fix_input_feed", false, "refused", false)
        };
        let again = CallOutcome {
            args: r#"{"b": 2, "a": 1}"#,
            ..call("fix_input_feed", false, "refused", false)
        };
        assert_eq!(n.after_call(&first), None);
        assert!(n.after_call(&again).unwrap().contains("failed twice"));
        assert!(!n.offers("fix_input_feed"));
    }

    #[test]
    fn a_repair_attempt_offers_the_calls_its_evidence_names() {
        let mut n = Narrowing::new(Some("quantize"));
        n.follow_evidence(&fixes(&[
            "load_skill ort-static-quantization",
            r#"quantize {"drop_outliers": true}  (drops sample 3)"#,
            r#"quantize {"method": "MinMax", "moving_average": true}"#,
        ]));
        let offered = n.offered(&stage_tools());
        let names: Vec<&str> = offered.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, [LOAD_SKILL, "quantize", "quantize"]);
        assert_eq!(
            offered[1].args_schema["properties"]["drop_outliers"],
            serde_json::json!({"const": true})
        );
        assert!(!n.offers(FINISH) && !n.offers("edit_file"));
        // Reading the named skill keeps the named choice, without the skill.
        let skill = CallOutcome {
            tool: LOAD_SKILL,
            args: r#"{"name":"ort-static-quantization"}"#,
            toolbox: false,
            ..call(LOAD_SKILL, true, "skill text", false)
        };
        assert_eq!(n.after_call(&skill), None);
        let names: Vec<String> = n
            .offered(&stage_tools())
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["quantize", "quantize"]);
        // The fix ends it; the main tool succeeded, so only finish is left.
        let quantize = CallOutcome {
            args: r#"{"drop_outliers":true}"#,
            ..call("quantize", true, "ok", false)
        };
        assert!(n.after_call(&quantize).unwrap().contains("finish_stage"));
        let names: Vec<String> = n
            .offered(&stage_tools())
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, [FINISH]);
    }

    #[test]
    fn a_failed_call_with_named_fixes_narrows_the_next_turn_to_them() {
        let mut n = Narrowing::new(Some("export"));
        let named = fixes(&[
            r#"fix_input_feed {"file": "model.py"}"#,
            "load_skill export-unsupported-operator",
        ]);
        let failed = CallOutcome {
            fixes: &named,
            ..call("export", false, "no onnx function for aten.median", false)
        };
        let note = n.after_call(&failed).unwrap();
        assert!(
            note.contains(r#"fix_input_feed {"file":"model.py"}"#),
            "{note}"
        );
        let names: Vec<String> = n
            .offered(&stage_tools())
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["fix_input_feed", LOAD_SKILL]);
        // The codemod changed model.py: rebuild.
        let fix = CallOutcome {
            args: r#"{"file":"model.py"}"#,
            ..call("fix_input_feed", true, "diff", true)
        };
        assert!(n.after_call(&fix).unwrap().contains("call export again"));
        let names: Vec<String> = n
            .offered(&stage_tools())
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["export"]);
    }

    #[test]
    fn a_named_built_in_edit_that_changed_files_asks_for_a_rebuild() {
        let mut n = Narrowing::new(Some("export"));
        n.follow_evidence(&fixes(&[
            r#"edit_file {"path": "aipc.toml", "search": "opset = 13", "replace": "opset = 18"}  (x)"#,
            "load_skill onnx-opset-drift",
        ]));
        let offered = n.offered(&stage_tools());
        assert_eq!(offered[0].name, "edit_file");
        assert_eq!(
            offered[0].args_schema["required"],
            serde_json::json!(["path", "search", "replace"])
        );
        let edit = CallOutcome {
            tool: "edit_file",
            args: r#"{"path":"aipc.toml","replace":"opset = 18","search":"opset = 13"}"#,
            toolbox: false,
            ..call("edit_file", true, "diff", true)
        };
        assert!(n.after_call(&edit).unwrap().contains("call export again"));
        assert!(n.offers("export") && !n.offers("edit_file"));
    }

    #[test]
    fn an_analysis_naming_its_next_call_is_followed_by_that_call_then_the_rebuild() {
        let mut n = Narrowing::new(Some("quantize"));
        let mut tools = stage_tools();
        tools.push(tool("set_project_option"));
        tools.push(tool("int8_sensitivity"));
        let next = fixes(&[
            r#"set_project_option {"key": "int8_float_nodes", "value": ["a", "b"]}  (records it)"#,
        ]);
        let analysis = CallOutcome {
            fixes: &next,
            ..call("int8_sensitivity", true, "chose", true)
        };
        let note = n.after_call(&analysis).unwrap();
        assert!(
            note.contains("int8_sensitivity names the next call"),
            "{note}"
        );
        let offered = n.offered(&tools);
        assert_eq!(offered.len(), 1, "{offered:?}");
        assert_eq!(offered[0].name, "set_project_option");
        assert_eq!(
            offered[0].args_schema["properties"]["value"],
            bound_schema(&serde_json::json!(["a", "b"]))
        );
        let record = CallOutcome {
            args: r#"{"key":"int8_float_nodes","value":["a","b"]}"#,
            toolbox: false,
            ..call("set_project_option", true, "diff", true)
        };
        assert!(n
            .after_call(&record)
            .unwrap()
            .contains("call quantize again"));
        assert!(n.offers("quantize") && !n.offers(FINISH) && !n.offers("int8_sensitivity"));
    }

    #[test]
    fn a_success_naming_nothing_leaves_the_plain_choice() {
        let mut n = Narrowing::new(Some("quantize"));
        assert!(n
            .after_call(&call("fix_input_feed", true, "ok", false))
            .is_none());
        assert!(n.offers("quantize") && n.offers("edit_file") && !n.offers("fix_input_feed"));
    }

    #[test]
    fn a_named_fix_in_a_stage_without_a_main_tool_leaves_only_finish() {
        let mut n = Narrowing::new(None);
        n.follow_evidence(&fixes(&[
            r#"edit_file {"path": "aipc.toml", "search": "quantize = \"none\"", "replace": "quantize = \"int8\""}"#,
            "load_skill latency-tuning",
        ]));
        let edit = CallOutcome {
            tool: "edit_file",
            args: r#"{"path":"aipc.toml","search":"quantize = \"none\"","replace":"quantize = \"int8\""}"#,
            toolbox: false,
            ..call("edit_file", true, "diff", true)
        };
        assert!(n.after_call(&edit).unwrap().contains("Call finish_stage"));
        let names: Vec<String> = n
            .offered(&stage_tools())
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, [FINISH]);
        // A toolbox codemod there (the app's feed) likewise.
        let mut m = Narrowing::new(None);
        assert!(m
            .after_call(&call("fix_input_feed", true, "diff", true))
            .unwrap()
            .contains("Call finish_stage"));
        assert!(m.offers(FINISH) && !m.offers("fix_input_feed") && !m.offers("read_file"));
    }

    #[test]
    fn named_calls_that_were_withdrawn_leave_the_plain_choice() {
        let mut n = Narrowing::new(Some("export"));
        let spent = CallOutcome {
            args: r#"{"file":"model.py"}"#,
            ..call("fix_branch_to_where", true, "no change", false)
        };
        n.after_call(&spent);
        n.follow_evidence(&fixes(&[
            r#"fix_branch_to_where {"file": "model.py"}"#,
            "load_skill export-data-dependent-control-flow",
            "keep forward() in tensor ops only",
        ]));
        let names: Vec<String> = n
            .offered(&stage_tools())
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert!(
            names.len() > 3 && names.contains(&FINISH.to_string()),
            "{names:?}"
        );
        assert!(!names.contains(&"fix_branch_to_where".to_string()));
        // Only prose and skills: nothing to bind.
        let mut m = Narrowing::new(Some("export"));
        m.follow_evidence(&fixes(&["load_skill x", "rewrite the op"]));
        assert_eq!(m.offered(&stage_tools()).len(), stage_tools().len());
    }

    #[test]
    fn a_retry_of_the_stage_does_not_follow_the_evidence_to_a_call_it_made() {
        let evidence = fixes(&[
            "load_skill ort-static-quantization",
            r#"quantize {"drop_outliers": true}"#,
            r#"quantize {"method": "MinMax", "moving_average": true}"#,
        ]);
        let mut n = Narrowing::new(Some("quantize"));
        assert!(n.follow_evidence(&evidence).is_empty());
        let made = CallOutcome {
            args: r#"{"drop_outliers":true}"#,
            ..call("quantize", true, "ok", false)
        };
        n.after_call(&made);
        assert!(n.untried(&evidence), "the MinMax call is still untried");
        // The checks failed again with the same evidence: the next attempt offers the other one.
        let mut next = n.next_attempt(Some("quantize"));
        let skipped = next.follow_evidence(&evidence);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].args, serde_json::json!({"drop_outliers": true}));
        let offered = next.offered(&stage_tools());
        let quantize: Vec<&OfferedTool> = offered.iter().filter(|t| t.name == "quantize").collect();
        assert_eq!(quantize.len(), 1);
        assert_eq!(
            quantize[0].args_schema["properties"]["method"],
            serde_json::json!({"const": "MinMax"})
        );
        // Once every named call was made, the choice is the plain one again.
        next.after_call(&CallOutcome {
            args: r#"{"method":"MinMax","moving_average":true}"#,
            ..call("quantize", true, "ok", false)
        });
        assert!(!next.untried(&evidence), "every named call was made");
        let mut third = next.next_attempt(Some("quantize"));
        assert_eq!(third.follow_evidence(&evidence).len(), 2);
        assert_eq!(third.offered(&stage_tools()).len(), stage_tools().len());
    }

    /// Whether the call schema of `offered` accepts `text` (the constrained decoder's view).
    fn decoder_accepts(offered: &[OfferedTool], text: &str) -> bool {
        use llguidance::api::TopLevelGrammar;
        let schema = crate::conversation::call_schema(offered);
        let env = llguidance::toktrie::ApproximateTokEnv::single_byte_env();
        let factory = llguidance::ParserFactory::new_simple(&env).unwrap();
        let grammar = TopLevelGrammar::from_json_schema(schema);
        let mut matcher = llguidance::Matcher::new(factory.create_parser(grammar));
        let tokens: Vec<u32> = text.bytes().map(u32::from).collect();
        matcher.consume_tokens(&tokens).is_ok() && matcher.is_accepting().unwrap_or(false)
    }

    fn with_schema(name: &str, schema: Value) -> OfferedTool {
        OfferedTool {
            args_schema: schema,
            ..tool(name)
        }
    }

    #[test]
    fn a_named_call_binds_the_facts_and_leaves_the_other_required_arguments_free() {
        let replace = with_schema(
            "replace_function",
            serde_json::json!({
                "type": "object",
                "properties": {
                    "file": {"type": "string"},
                    "function": {"type": "string"},
                    "body": {"type": "string"},
                    "dry_run": {"type": "boolean"},
                },
                "required": ["file", "function", "body"],
            }),
        );
        let mut all = stage_tools();
        all.push(replace);
        let mut n = Narrowing::new(Some("quantize"));
        n.follow_evidence(&fixes(&[
            r#"replace_function {"file": "data.py", "function": "calibration_set"}"#,
        ]));
        let offered = n.offered(&all);
        assert_eq!(offered.len(), 1);
        assert_eq!(
            offered[0].args_schema["required"],
            serde_json::json!(["file", "function", "body"])
        );
        let call = |args: &str| format!(r#"{{"tool":"replace_function","args":{args}}}"#);
        assert!(decoder_accepts(
            &offered,
            &call(
                r#"{"file":"data.py","function":"calibration_set","body":"def calibration_set():\n    return []"}"#
            )
        ));
        // The facts stay bound; the body must be written; optional flags are not offered.
        assert!(!decoder_accepts(
            &offered,
            &call(r#"{"file":"model.py","function":"calibration_set","body":"x"}"#)
        ));
        assert!(!decoder_accepts(
            &offered,
            &call(r#"{"file":"data.py","function":"calibration_set"}"#)
        ));
        assert!(!decoder_accepts(
            &offered,
            &call(r#"{"file":"data.py","function":"calibration_set","body":"x","dry_run":true}"#)
        ));
    }

    #[test]
    fn the_rebuild_after_a_repair_offers_only_the_required_arguments() {
        let export = with_schema(
            "export",
            serde_json::json!({
                "type": "object",
                "properties": {"dynamic_batch": {"type": "boolean"}, "opset": {"type": "integer"}},
            }),
        );
        let mut all = stage_tools();
        all[0] = export;
        let mut n = Narrowing::new(Some("export"));
        n.follow_evidence(&fixes(&[
            r#"set_project_option {"key": "dynamic_dims", "value": ["x:1:64"]}"#,
        ]));
        let option = CallOutcome {
            tool: "set_project_option",
            args: r#"{"key":"dynamic_dims","value":["x:1:64"]}"#,
            toolbox: false,
            ..call("set_project_option", true, "diff", true)
        };
        assert!(n.after_call(&option).unwrap().contains("call export again"));
        let offered = n.offered(&all);
        assert_eq!(offered.len(), 1);
        assert!(decoder_accepts(&offered, r#"{"tool":"export","args":{}}"#));
        assert!(!decoder_accepts(
            &offered,
            r#"{"tool":"export","args":{"dynamic_batch":true}}"#
        ));
        // Before any evidence the build takes the project's settings too.
        let main_schema = |n: &Narrowing| {
            n.offered(&all)
                .into_iter()
                .find(|t| t.name == "export")
                .unwrap()
                .args_schema
        };
        let mut fresh = Narrowing::new(Some("export"));
        assert!(main_schema(&fresh)["properties"]["dynamic_batch"].is_null());
        assert!(fresh.offers("read_file") && fresh.offers("fix_input_feed"));
        // A failed toolbox call is evidence: the full schema is offered from then on.
        fresh.after_call(&call("fix_input_feed", false, "refused", false));
        assert!(main_schema(&fresh)["properties"]["dynamic_batch"].is_object());
        // So is a retry's, and a first attempt that starts with evidence.
        let retry = fresh.next_attempt(Some("export"));
        assert!(main_schema(&retry)["properties"]["dynamic_batch"].is_object());
        let mut given = Narrowing::new(Some("export"));
        given.saw_evidence();
        assert!(main_schema(&given)["properties"]["dynamic_batch"].is_object());
    }

    #[test]
    fn a_builtin_failing_twice_the_same_way_waits_for_a_success() {
        let mut n = Narrowing::new(Some("export"));
        let read = |ok: bool, observed: &'static str| CallOutcome {
            toolbox: false,
            args: r#"{"path":"missing.py"}"#,
            ..call("read_file", ok, observed, false)
        };
        assert_eq!(n.after_call(&read(false, "does not exist")), None);
        assert!(n.offers("read_file"));
        let note = n.after_call(&read(false, "does not exist")).unwrap();
        assert!(note.contains("read_file failed twice"), "{note}");
        assert!(!n.offers("read_file") && n.offers("export"));
        // Another failure keeps it withdrawn; a success brings it back.
        n.after_call(&call("fix_input_feed", false, "refused", false));
        assert!(!n.offers("read_file"));
        n.after_call(&call("inspect_artifact", true, "ok", false));
        assert!(n.offers("read_file"));
        // A toolbox failure's repeat is still judged against the previous toolbox failure.
        let mut m = Narrowing::new(Some("export"));
        m.after_call(&call("export", false, "median", false));
        m.after_call(&read(false, "does not exist"));
        assert!(m
            .after_call(&call("export", false, "median", false))
            .is_some());
        assert!(!m.offers("export"));
    }

    #[test]
    fn the_constrained_decoder_writes_only_the_bound_call() {
        use llguidance::api::TopLevelGrammar;
        let mut n = Narrowing::new(Some("quantize"));
        n.follow_evidence(&fixes(&[
            r#"quantize {"drop_outliers": true, "nodes_to_exclude": ["a", "b"], "opset": 18}"#,
        ]));
        let schema = crate::conversation::call_schema(&n.offered(&stage_tools()));
        let env = llguidance::toktrie::ApproximateTokEnv::single_byte_env();
        let factory = llguidance::ParserFactory::new_simple(&env).unwrap();
        let accepts = |text: &str| {
            let grammar = TopLevelGrammar::from_json_schema(schema.clone());
            let mut matcher = llguidance::Matcher::new(factory.create_parser(grammar));
            let tokens: Vec<u32> = text.bytes().map(u32::from).collect();
            matcher.consume_tokens(&tokens).is_ok() && matcher.is_accepting().unwrap_or(false)
        };
        assert!(accepts(
            r#"{"tool":"quantize","args":{"drop_outliers":true,"nodes_to_exclude":["a","b"],"opset":18}}"#
        ));
        assert!(!accepts(
            r#"{"tool":"quantize","args":{"drop_outliers":false,"nodes_to_exclude":["a","b"],"opset":18}}"#
        ));
        assert!(!accepts(r#"{"tool":"quantize","args":{}}"#));
        assert!(!accepts(
            r#"{"tool":"finish_stage","args":{"summary":"done"}}"#
        ));
    }
}
