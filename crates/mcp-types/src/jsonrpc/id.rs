//! [`RequestId`]: the id that ties a response to its request, with its
//! JSON reading and writing.

use std::fmt;
use std::io::Write as _;

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::kind::json_kind;
use crate::json_write::string;

/// A request id: a JSON integer or string, never `null` (spec: `basic/index`
/// § Requests). Equality keeps the JSON type: `1` and `"1"` are different ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id. Our own requests always use these (monotonic per connection).
    Number(i64),
    /// A string id, as some servers send.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "\"{s}\""),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl RequestId {
    /// Reads an id from a JSON value. `null`, floats, booleans, arrays and
    /// objects are not ids and give `None`.
    pub fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }

    /// The id as a JSON value of the same type.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::from(*n),
            RequestId::String(s) => Value::from(s.as_str()),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RequestId::from_value(&value).ok_or_else(|| {
            de::Error::custom(format!(
                "a request id must be an integer or a string, not {}",
                json_kind(&value)
            ))
        })
    }
}

/// Writes `id` as compact JSON: an integer, or a string with serde_json's
/// escapes.
pub(crate) fn write_id(out: &mut Vec<u8>, id: &RequestId) {
    match id {
        // Writing to a Vec cannot fail.
        RequestId::Number(n) => {
            let _ = write!(out, "{n}");
        }
        RequestId::String(s) => string(out, s),
    }
}
