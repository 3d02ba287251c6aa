//! Decoding: bytes or a parsed value to a [`JsonRpcMessage`], classified
//! by the members it carries, with [`DecodeError`] saying why an input is
//! not a message.

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use super::{JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse};
use crate::jsonrpc::kind::json_kind;
use crate::jsonrpc::{JSONRPC_VERSION, RequestId};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorCode;
    use serde_json::json;

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
