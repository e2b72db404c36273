//! `set_project_option`: change one key of the `[project]` table in the workspace's `aipc.toml`
//! through a structured edit ([`crate::project_table`]), never by text search: any spelling of
//! the setting (`quantize="none"`, a trailing comment) is found, the value is checked against
//! the key's type and accepted values first, and every other line is kept.

use super::write::{read_existing, write_with_diff};
use super::{ToolContext, ToolResult};
use crate::project_table::{self, SetOptionError};
use serde::Deserialize;
use serde_json::{json, Value};

pub const DESCRIPTION: &str = "Set one option of the project in aipc.toml's [project] table \
(e.g. key \"quantize\", value \"int8\"; key \"opset\", value \"18\": a number is given as \
text and read as the key's type). The value is checked against the key's type and accepted values; `null` removes the key so its default applies. Later \
stages and tools read the new value.";

/// The project file the tool edits, relative to the workspace root.
const PROJECT_FILE: &str = "aipc.toml";

/// Arguments of `set_project_option`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetProjectOptionArgs {
    pub key: String,
    pub value: Value,
}

/// Longest text a value (or one item of a list value) may be: entries, formats and numbers are
/// far shorter, and a bound lets a constrained decoder close a string a small model would
/// otherwise run on until its reply limit.
const MAX_VALUE_CHARS: u64 = 256;

/// The schema: `key` one of the known keys, `value` any value a key can take (or null). A
/// number is text ([`project_table::toml_for_key`] reads it as the key's type): a JSON number
/// has no length a schema can bound, and the 270M model has written digits until its reply
/// limit (crate::conversation::NUMBER_TEXT). JSON numbers from a backend that sends them are
/// still accepted.
pub fn schema() -> Value {
    let keys: Vec<&String> = project_table::keys().keys().collect();
    json!({
        "type": "object",
        "properties": {
            "key": {"type": "string", "enum": keys, "description": "a [project] key"},
            "value": {
                "description": "new value (null: the default)",
                "anyOf": [
                    {"type": "string", "maxLength": MAX_VALUE_CHARS},
                    {"type": "boolean"},
                    {"type": "array", "items": {"type": "string", "maxLength": MAX_VALUE_CHARS}},
                    {"type": "null"}
                ]
            }
        },
        "required": ["key", "value"],
        "additionalProperties": false
    })
}

pub async fn run(args: SetProjectOptionArgs, ctx: &ToolContext<'_>) -> ToolResult {
    let path = match ctx.workspace.resolve_for_write(PROJECT_FILE) {
        Ok(path) => path,
        Err(e) => return e.into(),
    };
    let before = match read_existing(&path, PROJECT_FILE) {
        Ok(Some(before)) => before,
        Ok(None) => {
            return ToolResult::failure(format!(
                "there is no {PROJECT_FILE} in the workspace root; the project has no [project] table to change"
            ))
        }
        Err(e) => return e.into(),
    };
    let Ok(text) = String::from_utf8(before.clone()) else {
        return ToolResult::failure(format!("{PROJECT_FILE} is not UTF-8 text"));
    };
    let value = match &args.value {
        Value::Null => None,
        other => match project_table::toml_for_key(&args.key, other) {
            Some(v) => Some(v),
            None => {
                return ToolResult::failure(format!(
                    "`value` {other} is not a [project] value: give a string, a number, true/false or a list of strings"
                ))
            }
        },
    };
    let change = match project_table::set_option(&text, &args.key, value.as_ref()) {
        Ok(change) => change,
        Err(e @ SetOptionError::Syntax(_)) => return ToolResult::failure(e.to_string()),
        Err(e) => {
            return ToolResult::failure(format!(
                "{PROJECT_FILE} [project]: {e}; nothing was changed"
            ))
        }
    };
    let shown_value = value
        .as_ref()
        .map(|v| v.to_string())
        .unwrap_or_else(|| "(removed: the default applies)".into());
    let was = match (
        &change.before,
        project_table::keys()
            .get(&args.key)
            .and_then(|k| k.default.as_ref()),
    ) {
        (Some(before), _) => before.clone(),
        (None, Some(default)) => format!("not set: default {default}"),
        (None, None) => "not set".into(),
    };
    match write_with_diff(
        &path,
        PROJECT_FILE,
        Some(&before),
        Some(change.text.as_bytes()),
    ) {
        Ok(None) => ToolResult::success(format!(
            "[project] {} is already {shown_value}; {PROJECT_FILE} unchanged",
            args.key
        )),
        Ok(Some(diff)) => {
            let mut result = ToolResult::success(format!(
                "set [project] {} = {shown_value} in {PROJECT_FILE} (was {was})",
                args.key
            ));
            result.diffs.push(diff);
            result
        }
        Err(e) => e.into(),
    }
}
