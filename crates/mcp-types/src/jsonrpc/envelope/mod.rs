//! The envelopes: [`JsonRpcRequest`], [`JsonRpcNotification`],
//! [`JsonRpcResponse`] with its [`JsonRpcError`], and [`JsonRpcMessage`]
//! that holds any of them; their serde serialization and the compact
//! writer behind [`JsonRpcMessage::to_vec`].

mod decode;

pub use decode::{DecodeError, DecodeOptions};

use std::fmt;
use std::io::Write as _;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ErrorCode, JSONRPC_VERSION, RequestId, write_id};
use crate::json_write::{string, value};

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// The error code.
    pub code: ErrorCode,
    /// A short description.
    pub message: String,
    /// Extra information, as the server sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl JsonRpcError {
    /// An error with a code and message and no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        JsonRpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32601 Method not found`, naming the method in `data`.
    pub fn method_not_found(method: &str) -> Self {
        JsonRpcError {
            code: ErrorCode::METHOD_NOT_FOUND,
            message: "Method not found".into(),
            data: Some(serde_json::json!({ "method": method })),
        }
    }
}

impl fmt::Display for JsonRpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MCP error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for JsonRpcError {}

/// A request: expects exactly one response with the same id.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcRequest {
    /// The request id.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The params object, when present.
    pub params: Option<Value>,
}

/// A notification: a one-way message with no id and no response.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcNotification {
    /// The method name, e.g. `notifications/progress`.
    pub method: String,
    /// The params object, when present.
    pub params: Option<Value>,
}

/// A response: carries the id of the request it answers and either a result
/// or an error, never both.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcResponse {
    /// The id of the request this answers. `None` only for an error response
    /// whose request id the peer could not determine (`"id": null`).
    pub id: Option<RequestId>,
    /// `Ok(result)` or `Err(error)`.
    pub outcome: Result<Value, JsonRpcError>,
}

impl JsonRpcResponse {
    /// A successful response.
    pub fn result(id: RequestId, result: Value) -> Self {
        JsonRpcResponse {
            id: Some(id),
            outcome: Ok(result),
        }
    }

    /// An error response.
    pub fn error(id: RequestId, error: JsonRpcError) -> Self {
        JsonRpcResponse {
            id: Some(id),
            outcome: Err(error),
        }
    }
}

/// Any JSON-RPC message, classified by its members.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonRpcMessage {
    /// `method` and `id`.
    Request(JsonRpcRequest),
    /// `method` without `id`.
    Notification(JsonRpcNotification),
    /// `id` with exactly one of `result` / `error`.
    Response(JsonRpcResponse),
    /// A JSON array of messages: only revision 2025-03-26 allows batches,
    /// see [`DecodeOptions::allow_batch`](super::DecodeOptions::allow_batch).
    Batch(Vec<JsonRpcMessage>),
}

impl JsonRpcMessage {
    /// Serializes the message to compact JSON bytes (no trailing newline).
    ///
    /// The bytes are exactly what `serde_json::to_vec` produces for this
    /// message (same member order, same escapes). A dedicated writer is
    /// used because it looks for bytes to escape 64 at a time, in a loop
    /// the compiler vectorizes: large tool arguments are mostly long
    /// strings without escapes, where that scan is most of the work.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        write_message(&mut out, self);
        out
    }

    /// The method, for a request or a notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            JsonRpcMessage::Request(r) => Some(&r.method),
            JsonRpcMessage::Notification(n) => Some(&n.method),
            _ => None,
        }
    }
}

impl Serialize for JsonRpcRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("method", &self.method)?;
        if let Some(p) = &self.params {
            map.serialize_entry("params", p)?;
        }
        map.end()
    }
}

impl Serialize for JsonRpcNotification {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        map.serialize_entry("method", &self.method)?;
        if let Some(p) = &self.params {
            map.serialize_entry("params", p)?;
        }
        map.end()
    }
}

impl Serialize for JsonRpcResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        map.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

impl Serialize for JsonRpcMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonRpcMessage::Request(r) => r.serialize(s),
            JsonRpcMessage::Notification(n) => n.serialize(s),
            JsonRpcMessage::Response(r) => r.serialize(s),
            JsonRpcMessage::Batch(items) => items.serialize(s),
        }
    }
}

/// Writes `msg` as compact JSON, byte for byte what `serde_json::to_vec`
/// writes for it.
fn write_message(out: &mut Vec<u8>, msg: &JsonRpcMessage) {
    match msg {
        JsonRpcMessage::Request(r) => {
            header(out);
            out.extend_from_slice(b",\"id\":");
            write_id(out, &r.id);
            out.extend_from_slice(b",\"method\":");
            string(out, &r.method);
            if let Some(p) = &r.params {
                out.extend_from_slice(b",\"params\":");
                value(out, p);
            }
            out.push(b'}');
        }
        JsonRpcMessage::Notification(n) => {
            header(out);
            out.extend_from_slice(b",\"method\":");
            string(out, &n.method);
            if let Some(p) = &n.params {
                out.extend_from_slice(b",\"params\":");
                value(out, p);
            }
            out.push(b'}');
        }
        JsonRpcMessage::Response(r) => {
            header(out);
            out.extend_from_slice(b",\"id\":");
            match &r.id {
                Some(i) => write_id(out, i),
                None => out.extend_from_slice(b"null"),
            }
            match &r.outcome {
                Ok(result) => {
                    out.extend_from_slice(b",\"result\":");
                    value(out, result);
                }
                Err(e) => {
                    out.extend_from_slice(b",\"error\":");
                    error(out, e);
                }
            }
            out.push(b'}');
        }
        JsonRpcMessage::Batch(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_message(out, item);
            }
            out.push(b']');
        }
    }
}

fn header(out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"jsonrpc\":\"");
    out.extend_from_slice(JSONRPC_VERSION.as_bytes());
    out.push(b'"');
}

fn error(out: &mut Vec<u8>, e: &JsonRpcError) {
    out.extend_from_slice(b"{\"code\":");
    // Writing to a Vec cannot fail.
    let _ = write!(out, "{}", e.code.0);
    out.extend_from_slice(b",\"message\":");
    string(out, &e.message);
    if let Some(data) = &e.data {
        out.extend_from_slice(b",\"data\":");
        value(out, data);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `to_vec` (our writer) must be byte-for-byte serde_json's output.
    #[test]
    fn to_vec_matches_serde_json_byte_for_byte() {
        let mut strings: Vec<String> = vec![
            String::new(),
            "plain".into(),
            "é ü 日本 🎉 \u{7f} \u{2028}".into(),
            "/slash/ and 'quote'".into(),
        ];
        // Every ASCII byte, at every offset within an 8-byte block and at
        // the end of strings of many lengths.
        for b in 0u8..0x80 {
            for pad in 0..17 {
                let mut s = "a".repeat(pad);
                s.push(b as char);
                s.push_str(&"z".repeat(17 - pad));
                strings.push(s.clone());
                strings.push(s[..pad + 1].to_owned());
            }
        }
        strings.push("x".repeat(100 * 1024) + "\n" + &"y".repeat(1000));
        for s in &strings {
            let messages = [
                JsonRpcMessage::Request(JsonRpcRequest {
                    id: RequestId::Number(-17),
                    method: s.clone(),
                    params: Some(
                        json!({ s.as_str(): s, "n": [1, -2, 3.5, 1e300, u64::MAX, null, true, false], "o": {} }),
                    ),
                }),
                JsonRpcMessage::Notification(JsonRpcNotification {
                    method: "notifications/message".into(),
                    params: Some(json!([s, {"k": s}])),
                }),
                JsonRpcMessage::Response(JsonRpcResponse::result(
                    RequestId::String(s.clone()),
                    json!(s),
                )),
                JsonRpcMessage::Response(JsonRpcResponse {
                    id: None,
                    outcome: Err(JsonRpcError {
                        code: ErrorCode(-32000),
                        message: s.clone(),
                        data: Some(json!({"d": s})),
                    }),
                }),
                JsonRpcMessage::Response(JsonRpcResponse::error(
                    RequestId::Number(i64::MAX),
                    JsonRpcError::new(ErrorCode::INTERNAL_ERROR, s.clone()),
                )),
                JsonRpcMessage::Batch(vec![
                    JsonRpcMessage::Notification(JsonRpcNotification {
                        method: s.clone(),
                        params: None,
                    }),
                    JsonRpcMessage::Request(JsonRpcRequest {
                        id: RequestId::Number(0),
                        method: "ping".into(),
                        params: None,
                    }),
                ]),
            ];
            for m in &messages {
                assert_eq!(
                    String::from_utf8(m.to_vec()).unwrap(),
                    serde_json::to_string(m).unwrap(),
                );
            }
        }
    }
}
