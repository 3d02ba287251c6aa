//! A model's tool call, read from the dialect's JSON.

use serde_json::{Map, Value};

use crate::Dialect;

/// A tool call as the model made it, before anything is checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call's id, to be echoed in the result (`tool_call_id`,
    /// `call_id`, `tool_use_id`, Gemini's optional `id`).
    pub id: Option<String>,
    /// The name the model used.
    pub name: String,
    /// The arguments as the model gave them.
    pub arguments: CallArguments,
}

/// A call's arguments: OpenAI sends a JSON text, Anthropic and Gemini an
/// object. `Debug` shows their size, never their values (arguments may be
/// secrets).
#[derive(Clone, PartialEq)]
pub enum CallArguments {
    /// JSON text, not yet parsed (may be anything the model wrote).
    Text(String),
    /// A JSON value.
    Value(Value),
}

impl std::fmt::Debug for CallArguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallArguments::Text(t) => write!(f, "Text(<{} bytes>)", t.len()),
            CallArguments::Value(Value::Object(m)) => {
                write!(f, "Value(<object, {} members>)", m.len())
            }
            CallArguments::Value(_) => f.write_str("Value(<not an object>)"),
        }
    }
}

/// Why a call's JSON is not a tool call of the dialect at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedCall {
    /// What is wrong, for the model and the log.
    pub reason: String,
    /// The id, when one could be read (so an error result can answer it).
    pub id: Option<String>,
    /// The name, when one could be read.
    pub name: Option<String>,
}

impl std::fmt::Display for MalformedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for MalformedCall {}

fn string_at(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl ToolCall {
    /// Reads `json` as a tool call of `dialect`:
    /// - OpenAI Chat: `{"id", "type": "function", "function": {"name", "arguments"}}`
    /// - OpenAI Responses: `{"type": "function_call", "call_id", "name", "arguments"}`
    /// - Anthropic: `{"type": "tool_use", "id", "name", "input"}`
    /// - Gemini: a part `{"functionCall": {"id"?, "name", "args"}}` or the
    ///   `functionCall` itself.
    ///
    /// Arguments may be a JSON text or an object in every dialect (models
    /// and proxies mix them). Errors: a [`MalformedCall`] naming what is
    /// missing, with the id and name when they were readable.
    pub fn parse(dialect: Dialect, json: &Value) -> Result<ToolCall, MalformedCall> {
        let (id, body, args_key) = match dialect {
            Dialect::OpenAiChat => (
                string_at(json, "id"),
                json.get("function").unwrap_or(json),
                "arguments",
            ),
            Dialect::OpenAiResponses => (
                string_at(json, "call_id").or_else(|| string_at(json, "id")),
                json,
                "arguments",
            ),
            Dialect::Anthropic => (string_at(json, "id"), json, "input"),
            Dialect::Gemini => {
                let body = json.get("functionCall").unwrap_or(json);
                (string_at(body, "id"), body, "args")
            }
        };
        let name = string_at(body, "name");
        let Some(name) = name else {
            return Err(MalformedCall {
                reason: format!(
                    "the tool call has no \"name\" (expected a {} tool call)",
                    dialect.label()
                ),
                id,
                name: None,
            });
        };
        let raw = body
            .get(args_key)
            .or_else(|| body.get("arguments"))
            .or_else(|| body.get("input"))
            .or_else(|| body.get("args"));
        let arguments = match raw {
            None | Some(Value::Null) => CallArguments::Value(Value::Object(Map::new())),
            Some(Value::String(s)) => CallArguments::Text(s.clone()),
            Some(v) => CallArguments::Value(v.clone()),
        };
        Ok(ToolCall {
            id,
            name,
            arguments,
        })
    }

    /// The arguments as a JSON object. An empty or all-blank text is no
    /// arguments. Errors: what the model should fix, in words.
    pub(crate) fn arguments_object(&self) -> Result<Map<String, Value>, String> {
        let value = match &self.arguments {
            CallArguments::Text(t) if t.trim().is_empty() => return Ok(Map::new()),
            CallArguments::Text(t) => serde_json::from_str::<Value>(t).map_err(|e| {
                format!("the arguments are not valid JSON ({e}); send one JSON object")
            })?,
            CallArguments::Value(v) => v.clone(),
        };
        match value {
            Value::Object(m) => Ok(m),
            Value::Null => Ok(Map::new()),
            other => Err(format!(
                "the arguments must be a JSON object, not a JSON {}",
                match other {
                    Value::Array(_) => "array",
                    Value::String(_) => "string",
                    Value::Number(_) => "number",
                    _ => "boolean",
                }
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_dialect_reads() {
        let c = ToolCall::parse(
            Dialect::OpenAiChat,
            &json!({"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": "{\"a\":1}"}}),
        )
        .unwrap();
        assert_eq!(c.id.as_deref(), Some("call_1"));
        assert_eq!(c.arguments_object().unwrap()["a"], 1);
        let c = ToolCall::parse(
            Dialect::OpenAiResponses,
            &json!({"type": "function_call", "id": "fc_1", "call_id": "call_2", "name": "echo", "arguments": "{}"}),
        )
        .unwrap();
        assert_eq!(c.id.as_deref(), Some("call_2"));
        let c = ToolCall::parse(
            Dialect::Anthropic,
            &json!({"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"a": 2}}),
        )
        .unwrap();
        assert_eq!(c.arguments_object().unwrap()["a"], 2);
        let c = ToolCall::parse(
            Dialect::Gemini,
            &json!({"functionCall": {"name": "echo", "args": {"a": 3}}}),
        )
        .unwrap();
        assert_eq!(c.id, None);
        assert_eq!(c.arguments_object().unwrap()["a"], 3);
        // Arguments given as an object to OpenAI, as a string to Anthropic.
        let c = ToolCall::parse(
            Dialect::OpenAiChat,
            &json!({"function": {"name": "e", "arguments": {"a": 4}}}),
        )
        .unwrap();
        assert_eq!(c.arguments_object().unwrap()["a"], 4);
        let c = ToolCall::parse(
            Dialect::Anthropic,
            &json!({"name": "e", "input": "{\"a\":5}"}),
        )
        .unwrap();
        assert_eq!(c.arguments_object().unwrap()["a"], 5);
    }

    #[test]
    fn debug_never_shows_the_arguments() {
        let c = ToolCall::parse(
            Dialect::Anthropic,
            &json!({"id": "t", "name": "login", "input": {"password": "hunter2"}}),
        )
        .unwrap();
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("hunter2") && shown.contains("1 members"),
            "{shown}"
        );
        let c = ToolCall::parse(
            Dialect::OpenAiChat,
            &json!({"function": {"name": "login", "arguments": "{\"password\": \"hunter2\"}"}}),
        )
        .unwrap();
        assert!(!format!("{c:?}").contains("hunter2"));
        // Nor does the error for arguments that are not JSON.
        let c = ToolCall::parse(
            Dialect::OpenAiChat,
            &json!({"function": {"name": "login", "arguments": "{\"password\": hunter2}"}}),
        )
        .unwrap();
        assert!(!c.arguments_object().unwrap_err().contains("hunter2"));
    }

    #[test]
    fn bad_arguments_are_explained() {
        let c = ToolCall::parse(
            Dialect::OpenAiChat,
            &json!({"function": {"name": "e", "arguments": "{a:1"}}),
        )
        .unwrap();
        assert!(c.arguments_object().unwrap_err().contains("not valid JSON"));
        let c = ToolCall::parse(
            Dialect::OpenAiChat,
            &json!({"function": {"name": "e", "arguments": "[1]"}}),
        )
        .unwrap();
        assert!(
            c.arguments_object()
                .unwrap_err()
                .contains("not a JSON array")
        );
        let c = ToolCall::parse(
            Dialect::OpenAiChat,
            &json!({"function": {"name": "e", "arguments": ""}}),
        )
        .unwrap();
        assert!(c.arguments_object().unwrap().is_empty());
        let e = ToolCall::parse(Dialect::Anthropic, &json!({"id": "t", "input": {}})).unwrap_err();
        assert_eq!(e.id.as_deref(), Some("t"));
    }
}
