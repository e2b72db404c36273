//! The control tools: `finish_stage` hands the stage to its checks, `ask_human` asks the
//! engineer. Both only return a [`ToolControl`](super::ToolControl) for the engine to act on.

use super::{ToolContext, ToolControl, ToolResult};
use schemars::JsonSchema;
use serde::Deserialize;

pub const FINISH_DESCRIPTION: &str = "Declare the current stage done. Its checks then run; if \
they fail you get the evidence and continue. Call it only after verifying your work.";

pub const ASK_DESCRIPTION: &str = "Ask the human engineer a question when you are blocked and \
cannot find the answer yourself (missing credentials, hardware, a decision only they can make).";

/// Longest `finish_stage` summary the schema allows. Unbounded, the 270M model degenerated into
/// a digit run until `max_tokens` in 9 of 26 finish_stage replies of a DeployBench run (up to
/// 285 s each, and the cut reply was an invalid call).
pub const MAX_SUMMARY_CHARS: u32 = 200;
/// Longest `ask_human` question the schema allows (the same failure, a longer legitimate text).
pub const MAX_QUESTION_CHARS: u32 = 600;

/// Arguments of `finish_stage`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FinishStageArgs {
    /// What was done in this stage and why it should pass its checks.
    #[schemars(length(min = 1, max = "MAX_SUMMARY_CHARS"))]
    pub summary: String,
}

/// Arguments of `ask_human`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskHumanArgs {
    /// The question, with the context needed to answer it.
    #[schemars(length(min = 1, max = "MAX_QUESTION_CHARS"))]
    pub question: String,
}

pub async fn finish(args: FinishStageArgs, _ctx: &ToolContext<'_>) -> ToolResult {
    let summary = args.summary.trim().to_string();
    if summary.is_empty() {
        return ToolResult::failure("summary must not be empty: say what was done");
    }
    let mut result = ToolResult::success("stage marked as finished; its checks will run now");
    result.control = Some(ToolControl::FinishStage { summary });
    result
}

pub async fn ask(args: AskHumanArgs, _ctx: &ToolContext<'_>) -> ToolResult {
    let question = args.question.trim().to_string();
    if question.is_empty() {
        return ToolResult::failure("question must not be empty");
    }
    let mut result = ToolResult::success("question passed to the human; wait for the answer");
    result.control = Some(ToolControl::AskHuman { question });
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_text_arguments_are_bounded() {
        let finish = crate::tools::schema::schema_of::<FinishStageArgs>();
        assert_eq!(
            finish["properties"]["summary"]["maxLength"],
            MAX_SUMMARY_CHARS
        );
        let run = crate::tools::schema::schema_of::<crate::tools::run::RunArgs>();
        assert_eq!(
            run["properties"]["command"]["maxLength"],
            crate::tools::run::MAX_COMMAND_CHARS
        );
        let ask = crate::tools::schema::schema_of::<AskHumanArgs>();
        assert_eq!(
            ask["properties"]["question"]["maxLength"],
            MAX_QUESTION_CHARS
        );
    }
}
