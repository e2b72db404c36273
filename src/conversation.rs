//! The agent layer between the engine and a model backend: the JSON schema of a valid reply
//! (one call among the stage's allowed tools), parsing a reply into a [`ToolCall`] with errors a
//! weak model can act on, and the conversation of one stage attempt.

use crate::contract::StageSpec;
use crate::model::{Message, Role};
use crate::prompts::{PromptError, Prompts};
use crate::protocol::Evidence;
use serde::{Deserialize, Serialize};

/// A tool as the model sees it: its name, what it does, and its arguments' schema.
#[derive(Debug, Clone, Serialize)]
pub struct OfferedTool {
    pub name: String,
    pub description: String,
    pub args_schema: serde_json::Value,
}

impl From<crate::tools::ToolSpec> for OfferedTool {
    fn from(spec: crate::tools::ToolSpec) -> Self {
        OfferedTool {
            name: spec.name,
            description: spec.description,
            args_schema: spec.schema,
        }
    }
}

/// Longest `thought` the schema allows: enough for a reason, too short for rambling.
pub const MAX_THOUGHT_CHARS: u64 = 120;

/// Most items an array argument may have when its schema sets no `maxItems`. A small model can
/// fall into counting inside a list (`["0", "1", "2", ...]`) until `max_tokens` cuts its call;
/// with the bound the constrained decoder closes the list and the call reaches the tool, whose
/// answer (e.g. which names exist) is evidence, where a cut reply is not.
pub const MAX_ARRAY_ITEMS: u64 = 16;

/// What the decoder lets a number argument be when the tool sets no bounds: a string of at most
/// 12 integer digits, 8 fractional digits and a 3-digit exponent. A JSON number has no length
/// bound a schema can set, and the 270M model wrote `"percentile": 100.0000…` until the reply
/// limit cut it, six turns in a row; as a string with this pattern it must close. The tool layer
/// turns the string back into a number ([`crate::tools::schema::coerce`]). With bounds, the
/// pattern keeps them too ([`crate::number_text`]).
pub const NUMBER_TEXT: &str = crate::number_text::ANY_NUMBER;
/// The same for an integer argument.
pub const INTEGER_TEXT: &str = crate::number_text::ANY_INTEGER;

/// The schema every reply must satisfy:
/// `{"thought": str?, "tool": <one of the offered names>, "args": <that tool's args>}`.
/// One `oneOf` branch per tool so a constrained decoder ties `args` to the chosen tool. A tool
/// offered more than once (several calls the evidence names, each with its arguments bound) is
/// one branch whose `args` is the `anyOf` of them: the branches stay disjoint by their `tool`
/// constant, which llguidance needs to accept a `oneOf`.
pub fn call_schema(tools: &[OfferedTool]) -> serde_json::Value {
    let mut grouped: Vec<(&str, Vec<&serde_json::Value>)> = Vec::new();
    for tool in tools {
        match grouped.iter_mut().find(|(name, _)| *name == tool.name) {
            Some((_, args)) => args.push(&tool.args_schema),
            None => grouped.push((&tool.name, vec![&tool.args_schema])),
        }
    }
    let branches: Vec<serde_json::Value> = grouped
        .into_iter()
        .map(|(name, args)| {
            let mut args = match args.as_slice() {
                [one] => (*one).clone(),
                many => serde_json::json!({ "anyOf": many }),
            };
            bound_arrays(&mut args);
            bound_numbers(&mut args);
            serde_json::json!({
                "type": "object",
                "properties": {
                    "thought": {"type": "string", "maxLength": MAX_THOUGHT_CHARS},
                    "tool": {"const": name},
                    "args": args,
                },
                "required": ["tool", "args"],
                "additionalProperties": false,
            })
        })
        .collect();
    serde_json::json!({ "oneOf": branches })
}

/// Make every number or integer argument of `args` (a tool's argument object, or an `anyOf` of
/// them) a string of bounded length within its `minimum` / `maximum` ([`crate::number_text`]),
/// unless the evidence bound its value (`const`, `enum`). Only the top-level arguments: those are what the tool layer
/// coerces back to numbers.
fn bound_numbers(args: &mut serde_json::Value) {
    if let Some(alternatives) = args.get_mut("anyOf").and_then(|a| a.as_array_mut()) {
        alternatives.iter_mut().for_each(bound_numbers);
    }
    let Some(properties) = args.get_mut("properties").and_then(|p| p.as_object_mut()) else {
        return;
    };
    for property in properties.values_mut() {
        let Some(object) = property.as_object_mut() else {
            continue;
        };
        if object.contains_key("const") || object.contains_key("enum") {
            continue;
        }
        let bound = |key: &str| object.get(key).and_then(serde_json::Value::as_f64);
        let (minimum, maximum) = (bound("minimum"), bound("maximum"));
        let pattern = match object.get("type").and_then(serde_json::Value::as_str) {
            Some("integer") => crate::number_text::integer(minimum, maximum),
            Some("number") => crate::number_text::number(minimum, maximum),
            _ => continue,
        };
        for bound in [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "default",
        ] {
            object.remove(bound);
        }
        object.insert("type".into(), "string".into());
        object.insert("pattern".into(), pattern.into());
    }
}

/// Give every array in `schema` that sets no `maxItems` the bound [`MAX_ARRAY_ITEMS`].
fn bound_arrays(schema: &mut serde_json::Value) {
    match schema {
        serde_json::Value::Object(object) => {
            if object.get("type").and_then(serde_json::Value::as_str) == Some("array") {
                object
                    .entry("maxItems")
                    .or_insert_with(|| MAX_ARRAY_ITEMS.into());
            }
            object.values_mut().for_each(bound_arrays);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(bound_arrays),
        _ => {}
    }
}

/// A parsed reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    #[serde(default)]
    pub thought: Option<String>,
    pub tool: String,
    pub args: serde_json::Value,
}

/// Parse a model reply. Tolerates a code fence or text around one JSON object (unconstrained
/// backends produce them); rejects unknown tools with the list of allowed ones.
pub fn parse_reply(text: &str, allowed: &[String]) -> Result<ToolCall, String> {
    let json = extract_object(text).ok_or_else(|| {
        format!(
            "your reply is not a JSON object; reply with exactly one object like \
             {{\"thought\": \"...\", \"tool\": \"read_file\", \"args\": {{\"path\": \"model.py\"}}}}; \
             got: {}",
            clip(text, 200)
        )
    })?;
    let call: ToolCall = serde_json::from_str(json).map_err(|e| {
        format!(
            "your reply is not a tool call ({e}); it needs the keys \"tool\" and \"args\"; got: {}",
            clip(json, 200)
        )
    })?;
    if !allowed.iter().any(|name| name == &call.tool) {
        return Err(format!(
            "tool \"{}\" is not available in this stage; choose one of: {}",
            call.tool,
            allowed.join(", ")
        ));
    }
    if !call.args.is_object() {
        return Err(format!(
            "\"args\" must be a JSON object, got {}",
            clip(&call.args.to_string(), 100)
        ));
    }
    Ok(call)
}

/// The first balanced `{...}` in `text` (string-aware), or `None`.
fn extract_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (offset, ch) in text[start..].char_indices() {
        if in_string {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..start + offset + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// At most `max` characters of `text`, with an ellipsis when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max).collect();
        cut.push('…');
        cut
    }
}

/// The messages of one stage attempt, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Conversation {
    pub messages: Vec<Message>,
}

impl Conversation {
    pub fn new(system: String, task: String) -> Self {
        Conversation {
            messages: vec![
                Message::new(Role::System, system),
                Message::new(Role::User, task),
            ],
        }
    }

    pub fn push(&mut self, role: Role, content: String) {
        self.messages.push(Message::new(role, content));
    }

    /// Total characters of all messages (a size measure that needs no tokenizer).
    pub fn chars(&self) -> usize {
        self.messages.iter().map(|m| m.content.len()).sum()
    }

    /// Make room: fold every tool output except the newest `keep_recent` into a one-line
    /// summary. The system prompt and the task (goal, evidence) are never folded. Returns how
    /// many outputs were folded (0 when there was nothing left to fold).
    pub fn compact(&mut self, keep_recent: usize) -> usize {
        let tool_positions: Vec<usize> = self
            .messages
            .iter()
            .enumerate()
            .skip(2)
            .filter(|(_, m)| m.role == Role::Tool && !m.content.starts_with(FOLDED))
            .map(|(i, _)| i)
            .collect();
        let fold = tool_positions.len().saturating_sub(keep_recent);
        for &i in &tool_positions[..fold] {
            let message = &mut self.messages[i];
            let first = message.content.lines().next().unwrap_or_default();
            let lines = message.content.lines().count();
            message.content = format!("{FOLDED} {} ({lines} lines)", clip(first, 120));
        }
        fold
    }
}

/// What the first messages of a stage attempt are made of.
pub struct StagePrompt<'a> {
    pub target: &'a str,
    pub stage: &'a StageSpec,
    pub stage_index: usize,
    pub stage_count: usize,
    pub tools: &'a [OfferedTool],
    /// Offered skills as (name, description).
    pub skills: &'a [(String, String)],
    /// One line per stage already passed.
    pub previous: &'a [String],
    /// For a repair attempt: (attempt, max attempts, the evidence of the last failure).
    pub repair: Option<(u32, u32, &'a Evidence)>,
}

/// The first sentence of a tool description (up to the first `. ` or line end): what a small
/// model needs to choose the tool; the schema carries the rest.
fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.find(". ") {
        Some(end) => line[..=end].to_string(),
        None => line.to_string(),
    }
}

/// The system prompt and the task of a stage attempt, rendered from `prompts/`.
pub fn open_conversation(
    prompts: &Prompts,
    p: &StagePrompt<'_>,
) -> Result<Conversation, PromptError> {
    let tools: Vec<serde_json::Value> = p
        .tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "description": t.description,
                "summary": first_sentence(&t.description),
                "args": t.args_schema.to_string(),
                "signature": crate::tools::schema::signature(&t.name, &t.args_schema),
            })
        })
        .collect();
    let skills: Vec<serde_json::Value> = p
        .skills
        .iter()
        .map(|(name, description)| serde_json::json!({"name": name, "description": description}))
        .collect();
    let system = prompts.render(
        "system.md.j2",
        minijinja::context! {
            target => p.target,
            stage => p.stage.name,
            stage_index => p.stage_index,
            stage_count => p.stage_count,
            tools => tools,
            skills => skills,
        },
    )?;
    let checks: Vec<serde_json::Value> = p
        .stage
        .checks
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name, "command": c.command, "expect_exit": c.expect_exit,
                "files": c.files,
                "gates": c.gates.iter().map(|g| g.source.clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut task = prompts.render(
        "stage.md.j2",
        minijinja::context! { goal => p.stage.goal, checks => checks, previous => p.previous },
    )?;
    if let Some((attempt, max_attempts, evidence)) = p.repair {
        task.push_str("\n\n");
        task.push_str(&prompts.render(
            "repair.md.j2",
            minijinja::context! { attempt => attempt, max_attempts => max_attempts, evidence => evidence },
        )?);
    }
    Ok(Conversation::new(system, task))
}

/// Marks a tool output that compaction replaced by its summary.
pub const FOLDED: &str = "[folded]";

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema compiles to an llguidance grammar (what the in-process backend constrains
    /// decoding with); an unprovable `oneOf` is refused there.
    fn compiles(schema: &serde_json::Value) -> Result<(), String> {
        let builder =
            llguidance::GrammarBuilder::new(None, llguidance::api::ParserLimits::default());
        llguidance::JsonCompileOptions::default()
            .json_to_llg(builder, schema.clone())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_tool_offered_twice_is_one_branch_llguidance_accepts() {
        let tool = |args: serde_json::Value| OfferedTool {
            name: "set_project_option".into(),
            description: "set a key".into(),
            args_schema: args,
        };
        let bound = |v: i64| {
            serde_json::json!({"type": "object", "properties": {"key": {"const": "group"}, "value": {"const": v}},
                               "required": ["key", "value"], "additionalProperties": false})
        };
        let finish = OfferedTool {
            name: "finish_stage".into(),
            description: "done".into(),
            args_schema: serde_json::json!({"type": "object", "properties": {}}),
        };
        let offered = vec![tool(bound(32)), tool(bound(64)), finish, tool(bound(0))];
        let schema = call_schema(&offered);
        let branches = schema["oneOf"].as_array().unwrap();
        assert_eq!(branches.len(), 2, "{schema}");
        assert_eq!(
            branches[0]["properties"]["tool"]["const"],
            "set_project_option"
        );
        assert_eq!(
            branches[0]["properties"]["args"]["anyOf"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        compiles(&schema).unwrap();
        // The schema as it was (one branch per offer) is what llguidance refused in a session.
        let separate = serde_json::json!({"oneOf": [
            {"type": "object", "properties": {"tool": {"const": "set_project_option"}, "args": bound(32)},
             "required": ["tool", "args"], "additionalProperties": false},
            {"type": "object", "properties": {"tool": {"const": "set_project_option"}, "args": bound(64)},
             "required": ["tool", "args"], "additionalProperties": false},
        ]});
        assert!(compiles(&separate).unwrap_err().contains("oneOf"));
    }

    /// Whether the constrained decoder accepts `text` under `schema` (byte tokens).
    fn decoder_accepts(schema: serde_json::Value, text: &str) -> bool {
        let env = llguidance::toktrie::ApproximateTokEnv::single_byte_env();
        let factory = llguidance::ParserFactory::new_simple(&env).unwrap();
        let grammar = llguidance::api::TopLevelGrammar::from_json_schema(schema);
        let mut matcher = llguidance::Matcher::new(factory.create_parser(grammar));
        let tokens: Vec<u32> = text.bytes().map(u32::from).collect();
        matcher.consume_tokens(&tokens).is_ok() && matcher.is_accepting().unwrap_or(false)
    }

    /// Every tool of every toolbox (targets, fixes, flows) with the built-in ones, as the call
    /// schema the decoder is constrained by: it compiles, and a bounded argument's range holds.
    #[test]
    fn every_toolbox_compiles_to_a_grammar_with_its_ranges() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("toolbox");
        let mut folders = vec![root.join("fixes")];
        for group in ["targets", "flows"] {
            for entry in std::fs::read_dir(root.join(group)).unwrap() {
                folders.push(entry.unwrap().path());
            }
        }
        let mut bounded = 0;
        for folder in folders {
            let toolbox = crate::toolbox::Toolbox::load(&folder).unwrap();
            let mut offered: Vec<OfferedTool> = crate::tools::builtin_specs()
                .into_iter()
                .chain(toolbox.specs())
                .map(|spec| OfferedTool {
                    name: spec.name,
                    description: spec.description,
                    args_schema: spec.schema,
                })
                .collect();
            offered.dedup_by(|a, b| a.name == b.name);
            let schema = call_schema(&offered);
            compiles(&schema).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
            if folder.ends_with("onnxruntime-cpu") {
                let call = |args: &str| format!(r#"{{"tool":"export","args":{{{args}}}}}"#);
                assert!(decoder_accepts(schema.clone(), &call(r#""opset":"18""#)));
                assert!(!decoder_accepts(schema.clone(), &call(r#""opset":"7""#)));
                let call = |args: &str| format!(r#"{{"tool":"quantize","args":{{{args}}}}}"#);
                assert!(decoder_accepts(
                    schema.clone(),
                    &call(r#""percentile":"99.9""#)
                ));
                assert!(!decoder_accepts(schema, &call(r#""percentile":"1""#)));
                bounded += 1;
            }
        }
        assert_eq!(bounded, 1, "the onnxruntime-cpu toolbox was not among them");
    }

    #[test]
    fn set_project_option_takes_a_number_as_bounded_text() {
        let offered = OfferedTool {
            name: "set_project_option".into(),
            description: "set a key".into(),
            args_schema: crate::tools::project_option::schema(),
        };
        let schema = call_schema(&[offered]);
        compiles(&schema).unwrap();
        let call = |value: &str| {
            format!(r#"{{"tool":"set_project_option","args":{{"key":"opset","value":{value}}}}}"#)
        };
        assert!(decoder_accepts(schema.clone(), &call(r#""18""#)));
        assert!(decoder_accepts(schema.clone(), &call(r#"["a:b"]"#)));
        assert!(decoder_accepts(schema.clone(), &call("null")));
        // A JSON number has no bound, so the free schema does not offer one; nor endless text.
        assert!(!decoder_accepts(schema.clone(), &call("18")));
        assert!(!decoder_accepts(
            schema,
            &call(&format!("\"{}\"", "0".repeat(300)))
        ));
    }

    /// A `quantize` tool whose arguments are `properties`.
    fn quantize_with(properties: serde_json::Value) -> OfferedTool {
        OfferedTool {
            name: "quantize".into(),
            description: "INT8".into(),
            args_schema: serde_json::json!({"type": "object", "properties": properties}),
        }
    }

    #[test]
    fn a_number_argument_is_bounded_text_so_a_looping_model_must_close_it() {
        let schema = call_schema(&[quantize_with(serde_json::json!({
            "percentile": {"type": "number", "minimum": 0, "maximum": 100, "default": 99.9},
            "samples": {"type": "integer", "minimum": 1},
            "bound": {"type": "number", "const": 0.5},
            "scale": {"type": "number"},
            "name": {"type": "string"},
        }))]);
        compiles(&schema).unwrap();
        let args = &schema["oneOf"][0]["properties"]["args"]["properties"];
        assert_eq!(args["percentile"]["type"], "string");
        assert_eq!(
            args["bound"]["type"], "number",
            "a value the evidence bound stays"
        );
        let call = |args: &str| format!(r#"{{"tool":"quantize","args":{{{args}}}}}"#);
        assert!(decoder_accepts(
            schema.clone(),
            &call(r#""percentile":"99.99""#)
        ));
        assert!(decoder_accepts(
            schema.clone(),
            &call(r#""samples":"64","scale":"1e-3""#)
        ));
        // The bounds stay (the 270M model wrote percentile "1" for an argument that takes 90-100).
        assert!(!decoder_accepts(
            schema.clone(),
            &call(r#""percentile":"100.5""#)
        ));
        assert!(!decoder_accepts(schema.clone(), &call(r#""samples":"0""#)));
        assert!(!decoder_accepts(
            schema.clone(),
            &call(r#""percentile":"100.000000000""#)
        ));
        assert!(!decoder_accepts(
            schema.clone(),
            &call(r#""samples":"6.5""#)
        ));
        assert!(!decoder_accepts(schema, &call(r#""percentile":99.9"#)));
        // What the tool gets back: numbers again.
        let parsed = crate::tools::schema::coerce(
            &serde_json::json!({"percentile": "99.99", "samples": "64"}),
            &serde_json::json!({"properties": {"percentile": {"type": "number"}, "samples": {"type": "integer"}}}),
        );
        assert_eq!(
            parsed,
            serde_json::json!({"percentile": 99.99, "samples": 64})
        );
    }

    #[test]
    fn an_array_argument_is_bounded_so_a_counting_model_must_close_it() {
        let schema = call_schema(&[quantize_with(serde_json::json!({
            "nodes_to_exclude": {"type": "array", "items": {"type": "string"}},
            "formats": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        }))]);
        let args = &schema["oneOf"][0]["properties"]["args"]["properties"];
        assert_eq!(args["nodes_to_exclude"]["maxItems"], MAX_ARRAY_ITEMS);
        assert_eq!(
            args["formats"]["maxItems"], 3,
            "a bound the tool sets is kept"
        );
        compiles(&schema).unwrap();
        let call = |n: u64| {
            let names: Vec<String> = (0..n).map(|i| format!("\"{i}\"")).collect();
            format!(
                r#"{{"tool":"quantize","args":{{"nodes_to_exclude":[{}]}}}}"#,
                names.join(",")
            )
        };
        assert!(decoder_accepts(schema.clone(), &call(MAX_ARRAY_ITEMS)));
        assert!(!decoder_accepts(schema, &call(MAX_ARRAY_ITEMS + 1)));
    }

    fn allowed() -> Vec<String> {
        vec!["read_file".into(), "finish_stage".into()]
    }

    #[test]
    fn parses_plain_and_fenced_replies() {
        let call = parse_reply(
            r#"{"thought":"look","tool":"read_file","args":{"path":"m.py"}}"#,
            &allowed(),
        )
        .unwrap();
        assert_eq!(call.tool, "read_file");
        assert_eq!(call.thought.as_deref(), Some("look"));
        let fenced = "```json\n{\"tool\":\"finish_stage\",\"args\":{\"summary\":\"a } b\"}}\n```";
        assert_eq!(
            parse_reply(fenced, &allowed()).unwrap().args["summary"],
            "a } b"
        );
    }

    #[test]
    fn errors_tell_the_model_what_to_do() {
        assert!(parse_reply("I will read", &allowed())
            .unwrap_err()
            .contains("not a JSON object"));
        assert!(parse_reply(r#"{"tool":"run","args":{}}"#, &allowed())
            .unwrap_err()
            .contains("choose one of: read_file, finish_stage"));
        assert!(parse_reply(r#"{"name":"x"}"#, &allowed())
            .unwrap_err()
            .contains("\"tool\" and \"args\""));
        assert!(parse_reply(r#"{"tool":"read_file","args":3}"#, &allowed())
            .unwrap_err()
            .contains("must be a JSON object"));
    }

    #[test]
    fn compaction_folds_old_outputs_and_keeps_goal_and_recent() {
        let mut c = Conversation::new("system".into(), "goal and evidence".into());
        for i in 0..4 {
            c.push(Role::Assistant, format!("{{\"tool\":\"run\",\"n\":{i}}}"));
            c.push(Role::Tool, format!("[run ok]\n{}", "line\n".repeat(100)));
        }
        let before = c.chars();
        assert_eq!(c.compact(1), 3);
        assert!(c.chars() < before / 2);
        assert_eq!(c.messages[1].content, "goal and evidence");
        assert!(c.messages[3]
            .content
            .starts_with("[folded] [run ok] (101 lines)"));
        assert!(
            c.messages[9].content.contains("line\nline"),
            "the newest stays whole"
        );
        assert_eq!(c.compact(1), 0, "nothing left to fold");
    }

    #[test]
    fn schema_has_one_branch_per_tool_binding_args() {
        let schema = call_schema(&[OfferedTool {
            name: "read_file".into(),
            description: "read".into(),
            args_schema: serde_json::json!({"type":"object"}),
        }]);
        let branch = &schema["oneOf"][0];
        assert_eq!(branch["properties"]["tool"]["const"], "read_file");
        assert_eq!(branch["additionalProperties"], false);
    }
}
