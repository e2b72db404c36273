//! `load_skill`: fetch a named skill (instructions for a known task) through the engine.

use super::{ToolContext, ToolResult};
use schemars::JsonSchema;
use serde::Deserialize;

pub const DESCRIPTION: &str = "Load a skill by name: step-by-step instructions for a known \
task or failure. Use the names the stage instructions or failure evidence mention.";

/// Arguments of `load_skill`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadSkillArgs {
    /// The skill's name.
    pub name: String,
}

pub async fn run(args: LoadSkillArgs, ctx: &ToolContext<'_>) -> ToolResult {
    let name = args.name.trim();
    if name.is_empty() {
        return ToolResult::failure("name must not be empty");
    }
    match (ctx.load_skill)(name) {
        Ok(body) => ToolResult::success(body),
        Err(error) => ToolResult::failure(format!("could not load skill `{name}`: {error}")),
    }
}
