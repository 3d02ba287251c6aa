//! What a JSON value is, in words, for the messages that refuse one.

use serde_json::Value;

/// `"an integer"`, `"a string"`, `"an object"`, …: the kind of `v`.
pub(super) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a non-integer number",
        Value::Number(n) if n.is_i64() => "an integer",
        Value::Number(_) => "an out-of-range integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
