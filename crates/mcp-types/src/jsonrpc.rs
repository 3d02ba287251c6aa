//! JSON-RPC 2.0 envelopes as MCP uses them (spec: `basic/index` § Messages).
//!
//! A message is classified by the members it carries — `method` + `id` is a
//! request, `method` alone a notification, `id` + exactly one of
//! `result`/`error` a response — never by trying shapes in order. See
//! [`JsonRpcMessage::decode`].

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";

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

/// A JSON-RPC / MCP error code: an open newtype, so codes this crate does not
/// name still round-trip (spec: `basic/index` § Responses; schema `JSONRPCError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// `-32700`: invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// `-32600`: the JSON sent is not a valid request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// `-32601`: the method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// `-32602`: invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// `-32603`: internal JSON-RPC error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// `-32002`: resource not found (MCP, `server/resources` § Error Handling).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// `-32042`: URL elicitation required (MCP 2025-11-25, `client/elicitation`).
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// `-32020`: a header does not match the body (MCP 2026-07-28).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// `-32021`: a required client capability is missing (MCP 2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// `-32022`: the requested protocol version is unsupported (MCP 2026-07-28);
    /// `data.supported` lists what the server speaks.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// The code's name in the spec, when it is one this crate knows.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::PARSE_ERROR => "Parse error",
            Self::INVALID_REQUEST => "Invalid Request",
            Self::METHOD_NOT_FOUND => "Method not found",
            Self::INVALID_PARAMS => "Invalid params",
            Self::INTERNAL_ERROR => "Internal error",
            Self::RESOURCE_NOT_FOUND => "Resource not found",
            Self::URL_ELICITATION_REQUIRED => "URL elicitation required",
            Self::HEADER_MISMATCH => "Header mismatch",
            Self::MISSING_REQUIRED_CLIENT_CAPABILITY => "Missing required client capability",
            Self::UNSUPPORTED_PROTOCOL_VERSION => "Unsupported protocol version",
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

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
    /// see [`DecodeOptions::allow_batch`].
    Batch(Vec<JsonRpcMessage>),
}

/// Why bytes are not a JSON-RPC message. Every variant is a fact about the
/// input; none of them ends a connection by itself.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Not JSON at all (or not UTF-8).
    #[error("not JSON: {0}")]
    Json(String),
    /// JSON, but not an object or array.
    #[error("a JSON-RPC message must be an object, not {0}")]
    NotAnObject(&'static str),
    /// `jsonrpc` is missing or is not `"2.0"`.
    #[error("\"jsonrpc\" must be \"2.0\"")]
    BadVersion,
    /// `id` is present but is `null`, a float, a boolean, an array or an object.
    #[error("invalid request id: {0}")]
    BadId(String),
    /// `method` is not a string.
    #[error("\"method\" must be a string")]
    BadMethod,
    /// A response carries both `result` and `error` (JSON-RPC 2.0 § 5 forbids it).
    #[error("response to request {id} has both \"result\" and \"error\"")]
    ResultAndError {
        /// The id of the request it claims to answer.
        id: RequestId,
    },
    /// A response carries neither `result` nor `error`.
    #[error("response to request {id} has neither \"result\" nor \"error\"")]
    NoResultOrError {
        /// The id of the request it claims to answer.
        id: RequestId,
    },
    /// `error` is not a JSON-RPC error object.
    #[error("malformed \"error\" member: {0}")]
    BadError(String),
    /// An object with neither `method` nor `id`.
    #[error("neither a request, a notification nor a response")]
    Unclassifiable,
    /// A JSON array when the negotiated revision has no batches
    /// (every revision but 2025-03-26).
    #[error("JSON-RPC batches are not allowed in this protocol revision")]
    BatchNotAllowed,
    /// An empty JSON array.
    #[error("an empty batch is not a message")]
    EmptyBatch,
}

impl DecodeError {
    /// The id of the request a malformed response was answering, when the
    /// input told it. A transport fails that pending request with this error
    /// instead of leaving it to time out.
    pub fn request_id(&self) -> Option<&RequestId> {
        match self {
            DecodeError::ResultAndError { id } | DecodeError::NoResultOrError { id } => Some(id),
            _ => None,
        }
    }
}

/// Options for [`JsonRpcMessage::decode_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Accept a JSON array as a batch. Only revision 2025-03-26 has batches;
    /// see [`crate::ProtocolVersion::allows_batch`].
    pub allow_batch: bool,
}

/// The members of an object message, each recorded as present or absent
/// (`"result": null` is present). Deserialized directly from the input, so
/// decoding a message parses its bytes once.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn json_kind(v: &Value) -> &'static str {
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

impl JsonRpcMessage {
    /// Decodes one message from bytes, batches refused. Equivalent to
    /// `decode_with(bytes, DecodeOptions::default())`.
    pub fn decode(bytes: &[u8]) -> Result<JsonRpcMessage, DecodeError> {
        Self::decode_with(bytes, DecodeOptions::default())
    }

    /// Decodes one message (or, when allowed, a batch) from bytes.
    ///
    /// Errors: see [`DecodeError`]. A response with both `result` and `error`,
    /// or neither, is an error that still names the request id.
    ///
    /// A lone UTF-16 surrogate escape in a string reads as U+FFFD
    /// ([`crate::lenient::replace_lone_surrogates`]): serde_json refuses
    /// them, so a text it refuses is read again with them rewritten.
    pub fn decode_with(
        bytes: &[u8],
        options: DecodeOptions,
    ) -> Result<JsonRpcMessage, DecodeError> {
        match Self::decode_strict(bytes, options) {
            Err(DecodeError::Json(e)) => match crate::lenient::replace_lone_surrogates(bytes) {
                Some(fixed) => Self::decode_strict(&fixed, options),
                None => Err(DecodeError::Json(e)),
            },
            other => other,
        }
    }

    fn decode_strict(bytes: &[u8], options: DecodeOptions) -> Result<JsonRpcMessage, DecodeError> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
        match first {
            Some(b'{') => {
                let env: Envelope =
                    serde_json::from_slice(bytes).map_err(|e| DecodeError::Json(e.to_string()))?;
                Self::from_envelope(env)
            }
            Some(b'[') => {
                let items: Vec<Value> =
                    serde_json::from_slice(bytes).map_err(|e| DecodeError::Json(e.to_string()))?;
                if !options.allow_batch {
                    return Err(DecodeError::BatchNotAllowed);
                }
                if items.is_empty() {
                    return Err(DecodeError::EmptyBatch);
                }
                items
                    .into_iter()
                    .map(Self::from_value)
                    .collect::<Result<Vec<_>, _>>()
                    .map(JsonRpcMessage::Batch)
            }
            _ => {
                let v: Value =
                    serde_json::from_slice(bytes).map_err(|e| DecodeError::Json(e.to_string()))?;
                Err(DecodeError::NotAnObject(json_kind(&v)))
            }
        }
    }

    /// Classifies an already-parsed JSON value (no batches).
    pub fn from_value(value: Value) -> Result<JsonRpcMessage, DecodeError> {
        match value {
            Value::Object(_) => {
                let env: Envelope =
                    serde_json::from_value(value).map_err(|e| DecodeError::Json(e.to_string()))?;
                Self::from_envelope(env)
            }
            Value::Array(_) => Err(DecodeError::BatchNotAllowed),
            other => Err(DecodeError::NotAnObject(json_kind(&other))),
        }
    }

    fn from_envelope(env: Envelope) -> Result<JsonRpcMessage, DecodeError> {
        match env.jsonrpc {
            Some(Value::String(ref v)) if v == JSONRPC_VERSION => {}
            _ => return Err(DecodeError::BadVersion),
        }
        let method = match env.method {
            None => None,
            Some(Value::String(m)) => Some(m),
            Some(_) => return Err(DecodeError::BadMethod),
        };
        let params = env.params;
        match (method, env.id) {
            (Some(method), Some(id)) => {
                let id = RequestId::from_value(&id)
                    .ok_or_else(|| DecodeError::BadId(json_kind(&id).into()))?;
                Ok(JsonRpcMessage::Request(JsonRpcRequest {
                    id,
                    method,
                    params,
                }))
            }
            (Some(method), None) => Ok(JsonRpcMessage::Notification(JsonRpcNotification {
                method,
                params,
            })),
            (None, Some(id_value)) => {
                let id = RequestId::from_value(&id_value);
                if id.is_none() && !id_value.is_null() {
                    return Err(DecodeError::BadId(json_kind(&id_value).into()));
                }
                let outcome = match (env.result, env.error) {
                    (Some(_), Some(_)) => {
                        return Err(match id {
                            Some(id) => DecodeError::ResultAndError { id },
                            None => DecodeError::BadId("null".into()),
                        });
                    }
                    (None, None) => {
                        return Err(match id {
                            Some(id) => DecodeError::NoResultOrError { id },
                            None => DecodeError::BadId("null".into()),
                        });
                    }
                    (Some(result), None) => {
                        if id.is_none() {
                            // Only error responses may carry a null id.
                            return Err(DecodeError::BadId("null".into()));
                        }
                        Ok(result)
                    }
                    (None, Some(error)) => Err(serde_json::from_value::<JsonRpcError>(error)
                        .map_err(|e| DecodeError::BadError(e.to_string()))?),
                };
                Ok(JsonRpcMessage::Response(JsonRpcResponse { id, outcome }))
            }
            (None, None) => Err(DecodeError::Unclassifiable),
        }
    }

    /// Serializes the message to compact JSON bytes (no trailing newline).
    ///
    /// The bytes are exactly what `serde_json::to_vec` produces for this
    /// message (same member order, same escapes); a dedicated writer is
    /// used because it looks for bytes to escape 64 at a time, in a loop
    /// the compiler vectorizes, which matters for large tool arguments
    /// (callgrind: about 0.7 instructions per byte of a 100 KiB
    /// string without escapes, against 2.5 for the 8-byte scan it replaced).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        write::message(&mut out, self);
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

impl<'de> Deserialize<'de> for JsonRpcMessage {
    /// Deserializes by classification (see [`JsonRpcMessage::decode`]);
    /// arrays are accepted as batches here, since serde has no revision in hand.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match value {
            Value::Array(items) if !items.is_empty() => items
                .into_iter()
                .map(JsonRpcMessage::from_value)
                .collect::<Result<Vec<_>, _>>()
                .map(JsonRpcMessage::Batch)
                .map_err(de::Error::custom),
            other => JsonRpcMessage::from_value(other).map_err(de::Error::custom),
        }
    }
}

/// The compact JSON writer behind [`JsonRpcMessage::to_vec`]. Its output is
/// byte-for-byte serde_json's (tested below), only faster on long strings.
/// Writes `value` as compact JSON, as [`JsonRpcMessage::to_vec`] does.
pub(crate) fn write_value(out: &mut Vec<u8>, value: &Value) {
    write::value(out, value);
}

/// A request serialized straight from borrowed parts, without building a
/// [`JsonRpcMessage`] (and so without copying the params): `_meta` members
/// are merged into `params._meta` as the params are written.
///
/// Used by the transports' shared dispatcher: the protocol side's
/// per-request `_meta` (2026-07-28) are `meta_defaults`, the dispatcher's
/// `progressToken` is a `meta_override`.
#[derive(Debug, Clone, Copy)]
pub struct RequestBody<'a> {
    /// The request id.
    pub id: &'a RequestId,
    /// The method.
    pub method: &'a str,
    /// The params; MCP params are objects. Anything else is written as it
    /// is, without the `_meta` members.
    pub params: Option<&'a Value>,
    /// `_meta` members added when `params._meta` lacks them.
    pub meta_defaults: Option<&'a serde_json::Map<String, Value>>,
    /// `_meta` members that replace those of `params._meta` (a key given
    /// twice: the last value).
    pub meta_overrides: &'a [(&'a str, Value)],
}

impl RequestBody<'_> {
    /// The compact JSON of the request: byte for byte what
    /// [`JsonRpcMessage::to_vec`] writes for the same request after
    /// [`crate::base::with_params_meta`] added the members.
    pub fn to_vec(&self) -> Vec<u8> {
        // Room for a small request (a `tools/call` with a short argument is
        // about 150 bytes) without growing; a larger one grows once per
        // doubling, or at once for a long string.
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        write::id(&mut out, self.id);
        out.extend_from_slice(b",\"method\":");
        write::string(&mut out, self.method);
        let defaults = self.meta_defaults.filter(|m| !m.is_empty());
        let merge = defaults.is_some() || !self.meta_overrides.is_empty();
        match self.params {
            Some(Value::Object(map)) if merge => {
                out.extend_from_slice(b",\"params\":{");
                let mut first = true;
                let mut meta_written = false;
                for (k, v) in map {
                    if !meta_written && k.as_str() >= "_meta" {
                        meta_written = true;
                        match map.get("_meta") {
                            None => {
                                self.write_meta_member(&mut out, &mut first, None, defaults);
                            }
                            Some(Value::Object(own)) => {
                                self.write_meta_member(&mut out, &mut first, Some(own), defaults);
                            }
                            // A `_meta` that is not an object is left as it is.
                            Some(_) => {}
                        }
                    }
                    if k == "_meta" && matches!(v, Value::Object(_)) {
                        continue;
                    }
                    write::member(&mut out, &mut first, k, v);
                }
                if !meta_written {
                    self.write_meta_member(&mut out, &mut first, None, defaults);
                }
                out.push(b'}');
            }
            Some(params) => {
                out.extend_from_slice(b",\"params\":");
                write::value(&mut out, params);
            }
            None if merge => {
                out.extend_from_slice(b",\"params\":{");
                let mut first = true;
                self.write_meta_member(&mut out, &mut first, None, defaults);
                out.push(b'}');
            }
            None => {}
        }
        out.push(b'}');
        out
    }

    /// `"_meta":{…}`: `own` without the overridden keys, then the defaults
    /// it lacks, then the overrides (written in key order, as a
    /// `serde_json::Map` would hold them, when `own` is absent).
    fn write_meta_member(
        &self,
        out: &mut Vec<u8>,
        first: &mut bool,
        own: Option<&serde_json::Map<String, Value>>,
        defaults: Option<&serde_json::Map<String, Value>>,
    ) {
        let mut merged: Vec<(&str, &Value)> = Vec::new();
        let overridden = |k: &str| self.meta_overrides.iter().any(|(o, _)| *o == k);
        for (k, v) in own.into_iter().flatten() {
            if !overridden(k) {
                merged.push((k, v));
            }
        }
        for (k, v) in defaults.into_iter().flatten() {
            if !overridden(k) && !own.is_some_and(|o| o.contains_key(k)) {
                merged.push((k, v));
            }
        }
        // A key given twice is written once, the last value winning (as
        // two inserts into a map leave it).
        for (i, (k, v)) in self.meta_overrides.iter().enumerate() {
            if !self.meta_overrides[i + 1..]
                .iter()
                .any(|(later, _)| later == k)
            {
                merged.push((k, v));
            }
        }
        merged.sort_by(|a, b| a.0.cmp(b.0));
        if !*first {
            out.push(b',');
        }
        *first = false;
        out.extend_from_slice(b"\"_meta\":{");
        let mut inner_first = true;
        for (k, v) in merged {
            write::member(out, &mut inner_first, k, v);
        }
        out.push(b'}');
    }
}

pub(crate) mod write {
    use std::io::Write as _;

    use serde_json::{Map, Value};

    use super::{JSONRPC_VERSION, JsonRpcError, JsonRpcMessage, RequestId};

    pub(super) fn message(out: &mut Vec<u8>, msg: &JsonRpcMessage) {
        match msg {
            JsonRpcMessage::Request(r) => {
                header(out);
                out.extend_from_slice(b",\"id\":");
                id(out, &r.id);
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
                    Some(i) => id(out, i),
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
                    message(out, item);
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

    pub(super) fn id(out: &mut Vec<u8>, id: &RequestId) {
        match id {
            // Writing to a Vec cannot fail.
            RequestId::Number(n) => {
                let _ = write!(out, "{n}");
            }
            RequestId::String(s) => string(out, s),
        }
    }

    fn error(out: &mut Vec<u8>, e: &JsonRpcError) {
        out.extend_from_slice(b"{\"code\":");
        let _ = write!(out, "{}", e.code.0);
        out.extend_from_slice(b",\"message\":");
        string(out, &e.message);
        if let Some(data) = &e.data {
            out.extend_from_slice(b",\"data\":");
            value(out, data);
        }
        out.push(b'}');
    }

    pub(super) fn value(out: &mut Vec<u8>, v: &Value) {
        match v {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(true) => out.extend_from_slice(b"true"),
            Value::Bool(false) => out.extend_from_slice(b"false"),
            // serde_json's own number formatting (itoa / ryu).
            Value::Number(n) => {
                let _ = serde_json::to_writer(&mut *out, n);
            }
            Value::String(s) => string(out, s),
            Value::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    value(out, item);
                }
                out.push(b']');
            }
            Value::Object(map) => object(out, map),
        }
    }

    /// `,"k":v` (no comma before the first member).
    pub(super) fn member(out: &mut Vec<u8>, first: &mut bool, k: &str, v: &Value) {
        if !*first {
            out.push(b',');
        }
        *first = false;
        string(out, k);
        out.push(b':');
        value(out, v);
    }

    fn object(out: &mut Vec<u8>, map: &Map<String, Value>) {
        out.push(b'{');
        for (i, (k, v)) in map.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            string(out, k);
            out.push(b':');
            value(out, v);
        }
        out.push(b'}');
    }

    /// Bytes looked at per step of the escape scan.
    const BLOCK: usize = 64;

    /// The offset of the first byte of `bytes` that a JSON string cannot
    /// hold as it is (below 0x20, `"` or `\\`), if any: two 8-byte words
    /// first (most strings are short), then whole blocks are skipped with
    /// [`block_needs_escape`] (four at a time once two were clean), then
    /// the block that holds it is looked at a word at a time, the last few
    /// bytes one by one. The writer finds escapes with it, and the reader
    /// (`crate::de`) the end of a string.
    pub(crate) fn first_special(bytes: &[u8]) -> Option<usize> {
        let mut i = 0;
        // Most strings are short: two words before the first block.
        while i < 16 {
            let Some(word) = bytes.get(i..i + 8) else {
                break;
            };
            let word: [u8; 8] = word.try_into().ok()?;
            let special = word_specials(u64::from_le_bytes(word));
            if special != 0 {
                return Some(i + (special.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        // Blocks; after two clean ones in a row the run is likely long, so
        // four blocks at a time (one reduction per 256 bytes instead of
        // per 64: 3.3 -> 2.7 us per clean 100 KiB here), once per call, so
        // that text with an escape every line or so costs what it did.
        let mut clean = 0;
        while let Some(block) = bytes.get(i..i + BLOCK) {
            if clean == 2 {
                while let Some(run) = bytes.get(i..i + 4 * BLOCK) {
                    let run: &[u8; 4 * BLOCK] = run.try_into().ok()?;
                    if block_needs_escape(run) {
                        break;
                    }
                    i += 4 * BLOCK;
                }
                clean += 1;
                continue;
            }
            let block: &[u8; BLOCK] = block.try_into().ok()?;
            if block_needs_escape(block) {
                break;
            }
            i += BLOCK;
            clean += 1;
        }
        // The rest, eight bytes per step.
        while let Some(word) = bytes.get(i..i + 8) {
            let word: [u8; 8] = word.try_into().ok()?;
            let special = word_specials(u64::from_le_bytes(word));
            if special != 0 {
                return Some(i + (special.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        bytes[i..]
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
            .map(|j| i + j)
    }

    /// The bytes of `w` (little-endian) that are below 0x20, `"` or `\\`,
    /// each marked by its top bit. Marks above the lowest one may be
    /// spurious (a borrow runs on from a marked byte), the lowest is exact.
    #[inline(always)]
    fn word_specials(w: u64) -> u64 {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let zero_in = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        control | zero_in(w ^ (ONES * u64::from(b'"'))) | zero_in(w ^ (ONES * u64::from(b'\\')))
    }

    /// `true` when one of the bytes needs an escape: below 0x20, `"` or
    /// `\\`. Each byte maps to a value that is 0 exactly for those bytes
    /// (`b - 0x1F` saturating, `b ^ b'"'`, `b ^ b'\\'`, the least of the
    /// three), and the block needs an escape when the least of them is 0:
    /// a shape the compiler turns into vector saturating-subtract, xor and
    /// min (SSE2 on x86-64, NEON on aarch64) with one reduction per block,
    /// without `unsafe`.
    #[inline(always)]
    fn block_needs_escape<const N: usize>(block: &[u8; N]) -> bool {
        let mut least = u8::MAX;
        for &b in block {
            least = least.min(b.saturating_sub(0x1F).min(b ^ b'"').min(b ^ b'\\'));
        }
        least == 0
    }

    /// A JSON string with serde_json's escapes: `\\"`, `\\\\`, `\\b`, `\\t`,
    /// `\\n`, `\\f`, `\\r`, other controls as `\\u00xx`; nothing else.
    /// The runs between escapes are found with [`first_special`] and copied
    /// whole.
    pub(super) fn string(out: &mut Vec<u8>, s: &str) {
        let mut rest = s.as_bytes();
        out.reserve(rest.len() + 2);
        out.push(b'"');
        while let Some((run, special)) =
            first_special(rest).and_then(|at| rest.split_at_checked(at))
        {
            out.extend_from_slice(run);
            let Some((&b, after)) = special.split_first() else {
                rest = special;
                break;
            };
            match b {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                0x08 => out.extend_from_slice(b"\\b"),
                b'\t' => out.extend_from_slice(b"\\t"),
                b'\n' => out.extend_from_slice(b"\\n"),
                0x0C => out.extend_from_slice(b"\\f"),
                b'\r' => out.extend_from_slice(b"\\r"),
                _ => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[usize::from(b >> 4)],
                        HEX[usize::from(b & 0xF)],
                    ]);
                }
            }
            rest = after;
        }
        out.extend_from_slice(rest);
        out.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `RequestBody` (params borrowed, `_meta` merged while writing) writes
    /// exactly what building the message with `with_params_meta` writes.
    #[test]
    fn request_body_matches_with_params_meta() {
        let defaults: serde_json::Map<String, Value> = serde_json::from_value(
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "a": 1}),
        )
        .unwrap();
        let overrides = [("progressToken", json!(5))];
        let params_cases = [
            None,
            Some(json!({})),
            Some(json!({"name": "echo", "arguments": {"text": "x\n\"y"}})),
            Some(json!({"AB": 1, "name": "n", "_meta": {"a": "own", "progressToken": "own"}})),
            Some(json!({"_meta": "not an object", "z": 1})),
            Some(json!(["not", "an", "object"])),
        ];
        for params in &params_cases {
            for (with_defaults, with_overrides) in
                [(false, false), (true, false), (false, true), (true, true)]
            {
                let body = RequestBody {
                    id: &RequestId::Number(3),
                    method: "tools/call",
                    params: params.as_ref(),
                    meta_defaults: with_defaults.then_some(&defaults),
                    meta_overrides: if with_overrides { &overrides } else { &[] },
                };
                let mut expected = params.clone();
                if with_defaults || with_overrides {
                    expected = Some(
                        crate::base::with_params_meta(expected, |meta| {
                            if with_defaults {
                                for (k, v) in &defaults {
                                    meta.entry(k.clone()).or_insert_with(|| v.clone());
                                }
                            }
                            if with_overrides {
                                meta.insert("progressToken".into(), json!(5));
                            }
                        })
                        .unwrap_or_else(|other| other),
                    );
                }
                let message = JsonRpcMessage::Request(JsonRpcRequest {
                    id: RequestId::Number(3),
                    method: "tools/call".into(),
                    params: expected,
                });
                assert_eq!(
                    String::from_utf8(body.to_vec()).unwrap(),
                    String::from_utf8(message.to_vec()).unwrap(),
                    "{params:?} defaults={with_defaults} overrides={with_overrides}"
                );
            }
        }
    }

    /// The block path of the escape scan: every ASCII byte at every place
    /// of a string two 64-byte blocks long (and a bit), against serde_json.
    #[test]
    fn escape_scan_blocks_match_serde_json_for_every_byte_and_place() {
        for b in 0u8..0x80 {
            for at in 0..140 {
                let mut s = vec![b'x'; 140];
                s[at] = b;
                let s = String::from_utf8(s).unwrap();
                let mut ours = Vec::new();
                write::string(&mut ours, &s);
                assert_eq!(
                    String::from_utf8(ours).unwrap(),
                    serde_json::to_string(&s).unwrap(),
                    "byte {b:#04x} at {at}"
                );
            }
        }
    }

    /// `first_special` (blocks, then words, then bytes) against a byte
    /// loop: every byte value, at every place of strings of many lengths,
    /// alone and with a second special byte after it (the word test can
    /// mark bytes past the first).
    #[test]
    fn first_special_finds_the_first_special_byte_everywhere() {
        let naive = |s: &[u8]| s.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\');
        for len in [1, 7, 8, 9, 63, 64, 65, 71, 72, 140] {
            for b in 0..=u8::MAX {
                for at in 0..len {
                    for second in [None, Some(b'"'), Some(0x1F)] {
                        let mut s = vec![b'x'; len];
                        s[at] = b;
                        if let (Some(c), true) = (second, at + 1 < len) {
                            s[at + 1] = c;
                        }
                        assert_eq!(
                            write::first_special(&s),
                            naive(&s),
                            "byte {b:#04x} at {at} of {len}, then {second:?}"
                        );
                    }
                }
            }
        }
        // Long enough for the four-block steps, and the blocks and words
        // after them: a special at every place, with the bytes nearest to
        // the specials' values around.
        for len in [144, 145, 400, 401, 700, 1100] {
            for b in [
                0x00, 0x1F, 0x20, b'"', b'!', b'#', b'\\', b'[', b']', 0x7F, 0x80, 0xFF,
            ] {
                for at in 0..len {
                    let mut s = vec![b'x'; len];
                    s[at] = b;
                    assert_eq!(
                        write::first_special(&s),
                        naive(&s),
                        "byte {b:#04x} at {at} of {len}"
                    );
                }
            }
        }
        assert_eq!(write::first_special(b""), None);
    }

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

    fn decode(s: &str) -> Result<JsonRpcMessage, DecodeError> {
        JsonRpcMessage::decode(s.as_bytes())
    }

    #[test]
    fn classifies_by_members() {
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Ok(JsonRpcMessage::Request(JsonRpcRequest {
                id: RequestId::Number(1),
                ..
            }))
        ));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","method":"ping"}"#),
            Ok(JsonRpcMessage::Notification(_))
        ));
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Ok(JsonRpcMessage::Response(JsonRpcResponse::result(
                RequestId::from("a"),
                json!({})
            )))
        );
    }

    #[test]
    fn result_null_is_a_result() {
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":7,"result":null}"#),
            Ok(JsonRpcMessage::Response(JsonRpcResponse::result(
                7.into(),
                Value::Null
            )))
        );
    }

    #[test]
    fn result_and_error_is_typed_error_with_id() {
        let err = decode(
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]},"error":{"code":-32603,"message":"boom"}}"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            DecodeError::ResultAndError {
                id: RequestId::Number(3)
            }
        );
        assert_eq!(err.request_id(), Some(&RequestId::Number(3)));
    }

    #[test]
    fn neither_result_nor_error_is_typed_error() {
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":"x"}"#),
            Err(DecodeError::NoResultOrError { id: "x".into() })
        );
    }

    #[test]
    fn null_id_on_request_is_rejected() {
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Err(DecodeError::BadId("null".into()))
        );
    }

    #[test]
    fn null_id_error_response_is_uncorrelated() {
        let m = decode(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}"#,
        )
        .unwrap();
        match m {
            JsonRpcMessage::Response(JsonRpcResponse {
                id: None,
                outcome: Err(e),
            }) => {
                assert_eq!(e.code, ErrorCode(-32001));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn string_and_number_ids_differ() {
        assert_ne!(RequestId::from(1), RequestId::from("1"));
        let m = decode(r#"{"jsonrpc":"2.0","id":"1","result":{}}"#).unwrap();
        assert_eq!(
            m,
            JsonRpcMessage::Response(JsonRpcResponse::result("1".into(), json!({})))
        );
    }

    #[test]
    fn float_id_rejected() {
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            Err(DecodeError::BadId(_))
        ));
    }

    #[test]
    fn batch_depends_on_revision() {
        let batch = r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"x"}]"#;
        assert_eq!(decode(batch), Err(DecodeError::BatchNotAllowed));
        let m = JsonRpcMessage::decode_with(batch.as_bytes(), DecodeOptions { allow_batch: true })
            .unwrap();
        match m {
            JsonRpcMessage::Batch(items) => assert_eq!(items.len(), 2),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn not_jsonrpc() {
        assert_eq!(
            decode(r#"{"level":"info","msg":"ready"}"#),
            Err(DecodeError::BadVersion)
        );
        assert!(matches!(decode("MyServer v1.2"), Err(DecodeError::Json(_))));
        assert_eq!(decode("42"), Err(DecodeError::NotAnObject("an integer")));
        assert!(matches!(
            decode("[2025-07-01 12:00:00] [W] x"),
            Err(DecodeError::Json(_))
        ));
    }

    #[test]
    fn roundtrip_serialization() {
        let req = JsonRpcMessage::Request(JsonRpcRequest {
            id: 5.into(),
            method: "tools/list".into(),
            params: Some(json!({"cursor":"c"})),
        });
        let bytes = req.to_vec();
        assert_eq!(
            serde_json::from_slice::<Value>(&bytes).unwrap(),
            json!({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"c"}})
        );
        assert_eq!(JsonRpcMessage::decode(&bytes).unwrap(), req);
    }
}
