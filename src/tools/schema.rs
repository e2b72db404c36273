//! JSON schemas of tool arguments (compact, for a small model) and lenient argument handling:
//! a one-line signature for error messages, and coercion of common near-misses.

use schemars::gen::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The compact JSON schema of an argument struct: subschemas inlined, optional fields without a
/// `null` type, and no `$schema`, `title`, top-level `description` or `format` noise.
pub fn schema_of<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft07().with(|s| {
        s.inline_subschemas = true;
        s.option_add_null_type = false;
        s.option_nullable = false;
    });
    let root = settings.into_generator().into_root_schema_for::<T>();
    let mut value = serde_json::to_value(root).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        // The struct's own doc is the tool's description, which `ToolSpec` carries already.
        map.remove("description");
        if map
            .get("definitions")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
        {
            map.remove("definitions");
        }
    }
    strip_noise(&mut value);
    value
}

fn strip_noise(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("format");
            for v in map.values_mut() {
                strip_noise(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_noise),
        _ => {}
    }
}

/// `name {field: type, optional?: type}` from a schema, for "expected" hints.
pub fn signature(name: &str, schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(field, prop)| {
                    let opt = if required.contains(&field.as_str()) {
                        ""
                    } else {
                        "?"
                    };
                    format!("{field}{opt}: {}", type_name(prop))
                })
                .collect()
        })
        .unwrap_or_default();
    format!("{name} {{{}}}", fields.join(", "))
}

fn type_name(prop: &Value) -> String {
    match prop.get("type") {
        Some(Value::String(t)) if t == "array" => {
            let item = prop.get("items").map(type_name).unwrap_or_default();
            format!("[{item}]")
        }
        Some(Value::String(t)) if t == "object" => {
            let inner = signature("", prop);
            inner.trim().to_string()
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".into(),
    }
}

/// Forgive common near-misses of a small model before strict parsing: arguments sent as a
/// JSON-encoded string, `null` for an object, and numbers or booleans sent as strings.
pub fn coerce(args: &Value, schema: &Value) -> Value {
    let mut args = match args {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => args.clone(),
        },
        Value::Null => Value::Object(Map::new()),
        _ => args.clone(),
    };
    let props = schema.get("properties").and_then(Value::as_object);
    if let (Value::Object(map), Some(props)) = (&mut args, props) {
        for (field, value) in map.iter_mut() {
            let Some(kind) = props.get(field).and_then(|p| p.get("type")) else {
                continue;
            };
            if let Value::String(s) = value {
                let s = s.trim();
                let parsed = match kind.as_str() {
                    Some("integer") => s.parse::<i64>().ok().map(Value::from),
                    Some("number") => s.parse::<f64>().ok().map(Value::from),
                    Some("boolean") => s.parse::<bool>().ok().map(Value::from),
                    _ => None,
                };
                if let Some(parsed) = parsed {
                    *value = parsed;
                }
            }
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// Doc of the struct.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// A path.
        path: String,
        /// Lines.
        limit: Option<usize>,
        items: Option<Vec<Inner>>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        a: String,
    }

    #[test]
    fn schema_is_compact_and_described() {
        let s = schema_of::<Args>();
        assert!(s.get("$schema").is_none());
        assert!(s.get("title").is_none());
        assert!(s.get("description").is_none());
        assert!(s.get("definitions").is_none());
        assert!(!s.to_string().contains("format"));
        assert_eq!(s["properties"]["path"]["description"], "A path.");
        assert_eq!(s["properties"]["limit"]["type"], "integer");
        assert_eq!(s["required"], serde_json::json!(["path"]));
        assert_eq!(
            signature("t", &s),
            "t {items?: [{a: string}], limit?: integer, path: string}"
        );
    }

    #[test]
    fn coerce_fixes_stringly_numbers_and_encoded_args() {
        let s = schema_of::<Args>();
        let v = coerce(&serde_json::json!({"path": "x", "limit": " 5"}), &s);
        assert_eq!(v["limit"], 5);
        let v = coerce(&Value::String(r#"{"path":"x"}"#.into()), &s);
        assert_eq!(v["path"], "x");
        let v = coerce(&serde_json::json!({"path": "x", "limit": "many"}), &s);
        assert_eq!(v["limit"], "many");
    }
}
