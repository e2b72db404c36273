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
//!   changed) and, when the stage has a main tool, only the main tool and `finish_stage` are
//!   offered next, with an observation saying to rebuild (the 270M model, told so in words only,
//!   went on calling other codemods and skills and never rebuilt);
//! - a call failed exactly like the previous call (same tool, arguments and outcome): that tool
//!   is withdrawn until a call changes the project's files.
//!
//! Only toolbox tools are withdrawn: a built-in tool (`run`, `read_file`, …) does something else
//! with other arguments. Each attempt starts with every tool offered again. Nothing here knows what a task's answer is:
//! the rules only use the stage's contract and the outcomes of the calls.

use crate::agent::OfferedTool;
use std::collections::BTreeSet;

/// The tool that ends an attempt; always offered.
pub const FINISH: &str = "finish_stage";

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
}

/// The narrowing state of one attempt.
#[derive(Debug, Default)]
pub struct Narrowing {
    main_tool: Option<String>,
    /// Tools that succeeded (other than the main tool).
    spent: BTreeSet<String>,
    /// Tools whose call failed twice the same way since the last success.
    failing: BTreeSet<String>,
    /// The main tool succeeded: only `finish_stage` is left.
    finish_only: bool,
    /// A call changed the project: only the main tool and `finish_stage` are left.
    rebuild_only: bool,
    last_failure: Option<(String, String, String)>,
}

impl Narrowing {
    pub fn new(main_tool: Option<&str>) -> Narrowing {
        Narrowing {
            main_tool: main_tool.map(str::to_string),
            ..Narrowing::default()
        }
    }

    /// Record a call; returns the next-step sentence for its observation, if any.
    pub fn after_call(&mut self, call: &CallOutcome<'_>) -> Option<String> {
        if call.tool == FINISH {
            return None;
        }
        if call.ok && call.changed_files {
            // The inputs changed: what failed before may work now.
            self.failing.clear();
            self.last_failure = None;
        }
        if !call.toolbox {
            return None;
        }
        if call.ok {
            self.last_failure = None;
            if self.main_tool.as_deref() == Some(call.tool) {
                self.rebuild_only = false;
                self.finish_only = true;
                return Some(format!(
                    "{} succeeded: the stage's checks can run now. Call finish_stage.",
                    call.tool
                ));
            }
            self.spent.insert(call.tool.to_string());
            let main = self.main_tool.as_deref().filter(|_| call.changed_files)?;
            self.rebuild_only = true;
            return Some(format!(
                "{} changed the project. Now call {main} again: the checks test what {main} \
                 builds.",
                call.tool
            ));
        }
        let key = (
            call.tool.to_string(),
            call.args.to_string(),
            call.observed.to_string(),
        );
        let repeated = self.last_failure.as_ref() == Some(&key);
        self.last_failure = Some(key);
        if !repeated {
            return None;
        }
        self.failing.insert(call.tool.to_string());
        Some(format!(
            "{} failed twice the same way, so it is not offered again until a call changes the \
             project. Apply the fix the evidence names.",
            call.tool
        ))
    }

    /// Whether `tool` is offered on the next turn.
    pub fn offers(&self, tool: &str) -> bool {
        if tool == FINISH {
            return true;
        }
        if self.finish_only {
            return false;
        }
        if self.rebuild_only {
            return self.main_tool.as_deref() == Some(tool);
        }
        !self.spent.contains(tool) && !self.failing.contains(tool)
    }

    /// The subset of `all` offered on the next turn, in the same order.
    pub fn offered(&self, all: &[OfferedTool]) -> Vec<OfferedTool> {
        all.iter()
            .filter(|t| self.offers(&t.name))
            .cloned()
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
        }
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
        let note = n.after_call(&call("fix_median_minmax", true, "diff", true));
        assert!(note.unwrap().contains("call export again"));
        assert!(!n.offers("fix_median_minmax"));
        assert!(n.offers("export") && n.offers(FINISH));
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
        n.after_call(&call("fix_median_minmax", true, "diff", true));
        assert!(n.offers("export"), "the inputs changed: export is back");
    }

    #[test]
    fn built_in_tools_are_never_withdrawn() {
        let mut n = Narrowing::new(Some("export"));
        let mut run = call("run", true, "ok", true);
        run.toolbox = false;
        assert_eq!(n.after_call(&run), None);
        run.ok = false;
        n.after_call(&run);
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
}
