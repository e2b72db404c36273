//! The wire format of OpenAI-compatible chat completions: building the request body (messages,
//! the two ways of constraining the reply, sampling) and lenient response types that accept what
//! llama-server, vLLM and Ollama actually send (missing or `null` fields, numbers as strings,
//! unknown fields, `timings`, arguments as objects).

use crate::model::{Message, Role};
use serde::{Deserialize, Deserializer};
use serde_json::{json, Value};

/// How the reply is constrained on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallMode {
    /// Try native tools first; fall back to [`CallMode::Schema`] for the rest of the session
    /// when the server rejects tools or answers without a tool call.
    Auto,
    /// Native `tools` with `tool_choice: "required"`.
    Tools,
    /// `response_format: json_schema` over the whole call schema.
    Schema,
}

impl CallMode {
    /// The name shown in the backend's info.
    pub fn label(self) -> &'static str {
        match self {
            CallMode::Auto => "auto",
            CallMode::Tools => "tools",
            CallMode::Schema => "json_schema",
        }
    }
}

/// Sampling and naming shared by both modes.
#[derive(Debug, Clone)]
pub struct Sampling {
    pub model: String,
    pub temperature: f32,
    pub seed: u32,
    pub max_tokens: u32,
}

/// A tool as sent in `tools`.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeTool {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Value,
}

/// The engine's conversation as OpenAI messages. Observations go as `user` messages prefixed
/// `Observation:` (no tool-call ids to keep consistent, and every template accepts them).
pub fn messages(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| match m.role {
            Role::Tool => {
                json!({"role": "user", "content": format!("Observation:\n{}", m.content)})
            }
            role => json!({"role": role.as_str(), "content": m.content}),
        })
        .collect()
}

/// The request body common to both modes.
fn base_body(messages: &[Message], sampling: &Sampling) -> serde_json::Map<String, Value> {
    let mut body = serde_json::Map::new();
    body.insert("model".into(), json!(sampling.model));
    body.insert("messages".into(), Value::Array(self::messages(messages)));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    body.insert("temperature".into(), json!(sampling.temperature.max(0.0)));
    body.insert("seed".into(), json!(sampling.seed));
    body.insert("max_tokens".into(), json!(sampling.max_tokens));
    body
}

/// Body for schema mode: the whole call schema as a strict `json_schema` response format.
pub fn schema_body(messages: &[Message], call_schema: &Value, sampling: &Sampling) -> Value {
    let mut body = base_body(messages, sampling);
    body.insert(
        "response_format".into(),
        json!({
            "type": "json_schema",
            "json_schema": {"name": "tool_call", "strict": true, "schema": call_schema},
        }),
    );
    Value::Object(body)
}

/// Body for tools mode: one native tool per call-schema branch, a call required.
pub fn tools_body(messages: &[Message], tools: &[NativeTool], sampling: &Sampling) -> Value {
    let mut body = base_body(messages, sampling);
    let tools: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut function = serde_json::Map::new();
            function.insert("name".into(), json!(tool.name));
            if let Some(description) = &tool.description {
                function.insert("description".into(), json!(description));
            }
            function.insert("parameters".into(), tool.parameters.clone());
            json!({"type": "function", "function": function})
        })
        .collect();
    body.insert("tools".into(), Value::Array(tools));
    body.insert("tool_choice".into(), json!("required"));
    Value::Object(body)
}

/// The native tools a call schema describes: one per `oneOf`/`anyOf` branch (or the schema itself
/// when it is a single branch) whose `tool` property is a `const` (or a one-value `enum`).
/// Empty when the schema has no such branch.
pub fn native_tools(call_schema: &Value) -> Vec<NativeTool> {
    let branches: Vec<&Value> = match call_schema
        .get("oneOf")
        .or_else(|| call_schema.get("anyOf"))
        .and_then(Value::as_array)
    {
        Some(branches) => branches.iter().collect(),
        None => vec![call_schema],
    };
    branches
        .into_iter()
        .filter_map(|branch| {
            let properties = branch.get("properties")?;
            let tool = properties.get("tool")?;
            let name = match tool.get("const") {
                Some(Value::String(name)) => name.clone(),
                _ => match tool
                    .get("enum")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                {
                    Some([Value::String(name)]) => name.clone(),
                    _ => return None,
                },
            };
            let parameters = properties
                .get("args")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            let description = [branch, tool, &parameters]
                .iter()
                .find_map(|v| v.get("description").and_then(Value::as_str))
                .map(str::to_string);
            Some(NativeTool {
                name,
                description,
                parameters,
            })
        })
        .collect()
}

/// One streamed chunk (or a whole non-streamed completion, whose choices carry `message`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Chunk {
    #[serde(deserialize_with = "null_default")]
    pub choices: Vec<Choice>,
    pub usage: Option<Usage>,
    pub timings: Option<Timings>,
    /// A server error sent inside the stream.
    pub error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Choice {
    pub index: Option<Value>,
    pub delta: Option<Delta>,
    /// Non-streamed answers.
    pub message: Option<Delta>,
    pub finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Delta {
    #[serde(deserialize_with = "text_or_default")]
    pub content: String,
    #[serde(deserialize_with = "null_default")]
    pub tool_calls: Vec<ToolCallDelta>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolCallDelta {
    #[serde(deserialize_with = "lenient_u64")]
    pub index: Option<u64>,
    pub id: Option<String>,
    pub function: Option<FunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct FunctionDelta {
    pub name: Option<String>,
    /// A fragment of the JSON arguments; some servers send the whole object instead.
    #[serde(deserialize_with = "text_or_default")]
    pub arguments: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Usage {
    #[serde(deserialize_with = "lenient_u64")]
    pub prompt_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub completion_tokens: Option<u64>,
    pub prompt_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PromptTokensDetails {
    #[serde(deserialize_with = "lenient_u64")]
    pub cached_tokens: Option<u64>,
}

/// llama-server's `timings`; `cache_n` is the number of prompt tokens reused from the cache.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Timings {
    #[serde(deserialize_with = "lenient_u64")]
    pub cache_n: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub prompt_n: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub predicted_n: Option<u64>,
}

/// The first model id a `/models` answer lists (`{"data":[{"id":..}]}`, or Ollama-style
/// `{"models":[{"name":..}]}`).
pub fn first_model_id(body: &Value) -> Option<String> {
    ["data", "models"].iter().find_map(|key| {
        body.get(key)?.as_array()?.iter().find_map(|entry| {
            ["id", "name", "model"]
                .iter()
                .find_map(|field| entry.get(field)?.as_str())
                .filter(|id| !id.is_empty())
                .map(str::to_string)
        })
    })
}

/// The human part of an error body: `error.message`, `error` as a string, `message`, `detail`,
/// or the raw text clipped.
pub fn error_message(body: &str) -> String {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        let found = [
            value.pointer("/error/message"),
            value.get("error").filter(|e| e.is_string()),
            value.get("message"),
            value.get("detail"),
        ]
        .into_iter()
        .flatten()
        .find_map(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        });
        if let Some(message) = found {
            return clip(&message, 400);
        }
    }
    clip(body.trim(), 400)
}

/// At most `max` bytes of `text`, cut at a character boundary, with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// `null` (or a missing field) as the type's default.
fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A string as is, `null` as empty, any other JSON value as its compact text (arguments sent
/// as an object).
fn text_or_default<'de, D>(deserializer: D) -> Result<String, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// A count sent as an integer, a float or a string; anything else as absent.
fn lenient_u64<'de, D>(deserializer: D) -> Result<Option<u64>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_come_from_the_branches() {
        let schema = json!({"oneOf": [
            {"type": "object", "description": "Read a file",
             "properties": {"tool": {"const": "read_file"}, "args": {"type": "object", "properties": {"path": {"type": "string"}}}}},
            {"type": "object", "properties": {"tool": {"enum": ["finish"]}}},
            {"type": "object", "properties": {"tool": {"type": "string"}}},
        ]});
        let tools = native_tools(&schema);
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].name, "read_file");
        assert_eq!(tools[0].description.as_deref(), Some("Read a file"));
        assert_eq!(tools[1].name, "finish");
        assert_eq!(tools[1].parameters["type"], "object");
    }

    #[test]
    fn chunks_are_read_leniently() {
        let chunk: Chunk = serde_json::from_str(
            r#"{"choices":null,"usage":{"prompt_tokens":"12","completion_tokens":3.0,"extra":1},
                "timings":{"cache_n":7}}"#,
        )
        .unwrap();
        assert!(chunk.choices.is_empty());
        let usage = chunk.usage.unwrap();
        assert_eq!(usage.prompt_tokens, Some(12));
        assert_eq!(usage.completion_tokens, Some(3));
        assert_eq!(chunk.timings.unwrap().cache_n, Some(7));
        let chunk: Chunk = serde_json::from_str(
            r#"{"choices":[{"delta":{"content":null,"tool_calls":[{"function":{"arguments":{"a":1}}}]}}]}"#,
        )
        .unwrap();
        let delta = chunk.choices[0].delta.as_ref().unwrap();
        assert_eq!(delta.content, "");
        assert_eq!(delta.tool_calls[0].index, None);
        assert_eq!(
            delta.tool_calls[0].function.as_ref().unwrap().arguments,
            r#"{"a":1}"#
        );
    }

    #[test]
    fn error_messages_and_model_ids() {
        assert_eq!(
            error_message(r#"{"error":{"code":400,"message":"tools not supported"}}"#),
            "tools not supported"
        );
        assert_eq!(error_message(r#"{"detail":"bad"}"#), "bad");
        assert_eq!(error_message("plain text"), "plain text");
        assert_eq!(
            first_model_id(&json!({"data": [{"id": "gemma"}]})).as_deref(),
            Some("gemma")
        );
        assert_eq!(first_model_id(&json!({"data": []})), None);
        assert_eq!(clip("héllo", 2), "h…");
    }

    #[test]
    fn observations_go_as_user_messages() {
        let out = messages(&[
            Message::new(Role::System, "s"),
            Message::new(Role::Tool, "ok"),
        ]);
        assert_eq!(out[0]["role"], "system");
        assert_eq!(out[1]["role"], "user");
        assert_eq!(out[1]["content"], "Observation:\nok");
    }
}
