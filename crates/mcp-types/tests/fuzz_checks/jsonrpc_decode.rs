//! Fuzz check of message classification: `JsonRpcMessage::decode_with`
//! (both with and without batches) against a plain model of JSON-RPC 2.0
//! § 4–6 written over serde_json's reading of the text, and
//! `decode_frame` (the response fast path) against `decode_with`.
//!
//! Input: byte 0 bit 0 allows batches; the rest is the frame.
//!
//! Checks: no panic; the decoder and the model agree on what the frame is
//! (a request, a notification, a response, a batch of them, each with the
//! same id, method, params and outcome) or on why it is not (the same
//! `DecodeError` variant, with the same request id where one is named);
//! `decode_frame` reads a frame as `decode_with` does, except in the two
//! documented ways (a plain response's `result` is delimited, not
//! validated; its nesting limit counts from the member).

use bytes::Bytes;
use mcp_types::{
    DecodeError, DecodeOptions, Decoded, JsonRpcError, JsonRpcMessage, RequestId, decode_frame,
};
use serde_json::Value;

use super::members::{self, Doc};

/// Why the model refuses a frame: the variant of the `DecodeError` (its
/// text is serde_json's and is not compared) and the id it names.
#[derive(Debug, PartialEq)]
struct Refused(&'static str, Option<RequestId>);

fn error_kind(e: &DecodeError) -> Refused {
    let kind = match e {
        DecodeError::Json(_) => "Json",
        DecodeError::NotAnObject(_) => "NotAnObject",
        DecodeError::BadVersion => "BadVersion",
        DecodeError::BadId(_) => "BadId",
        DecodeError::BadMethod => "BadMethod",
        DecodeError::ResultAndError { .. } => "ResultAndError",
        DecodeError::NoResultOrError { .. } => "NoResultOrError",
        DecodeError::BadError(_) => "BadError",
        DecodeError::Unclassifiable => "Unclassifiable",
        DecodeError::BatchNotAllowed => "BatchNotAllowed",
        DecodeError::EmptyBatch => "EmptyBatch",
        _ => "other",
    };
    Refused(kind, e.request_id().cloned())
}

fn err(kind: &'static str) -> Result<JsonRpcMessage, Refused> {
    Err(Refused(kind, None))
}

/// The model of one object's members (the envelope's, by name; the
/// others skipped).
fn classify<'a>(
    members: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> Result<JsonRpcMessage, Refused> {
    let mut slots: [Option<&Value>; 6] = [None; 6];
    for (name, value) in members {
        let i = match name {
            "jsonrpc" => 0,
            "id" => 1,
            "method" => 2,
            "params" => 3,
            "result" => 4,
            "error" => 5,
            _ => continue,
        };
        if slots[i].replace(value).is_some() {
            // A duplicated member the envelope has a field for.
            return err("Json");
        }
    }
    let [jsonrpc, id, method, params, result, error] = slots;
    if jsonrpc != Some(&Value::String("2.0".into())) {
        return err("BadVersion");
    }
    let method = match method {
        None => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(_) => return err("BadMethod"),
    };
    let id_of = |v: &Value| match v {
        Value::String(s) => Some(RequestId::String(s.clone())),
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        _ => None,
    };
    match (method, id) {
        (Some(method), Some(id)) => match id_of(id) {
            Some(id) => Ok(JsonRpcMessage::Request(mcp_types::JsonRpcRequest {
                id,
                method,
                params: params.cloned(),
            })),
            None => err("BadId"),
        },
        (Some(method), None) => Ok(JsonRpcMessage::Notification(
            mcp_types::JsonRpcNotification {
                method,
                params: params.cloned(),
            },
        )),
        (None, Some(id_value)) => {
            let id = id_of(id_value);
            if id.is_none() && !id_value.is_null() {
                return err("BadId");
            }
            let outcome = match (result, error) {
                (Some(_), Some(_)) => {
                    return Err(match id {
                        Some(id) => Refused("ResultAndError", Some(id)),
                        None => Refused("BadId", None),
                    });
                }
                (None, None) => {
                    return Err(match id {
                        Some(id) => Refused("NoResultOrError", Some(id)),
                        None => Refused("BadId", None),
                    });
                }
                (Some(_), None) if id.is_none() => return err("BadId"),
                (Some(result), None) => Ok(result.clone()),
                (None, Some(error)) => {
                    match serde_json::from_value::<JsonRpcError>(error.clone()) {
                        Ok(e) => Err(e),
                        Err(_) => return err("BadError"),
                    }
                }
            };
            Ok(JsonRpcMessage::Response(mcp_types::JsonRpcResponse {
                id,
                outcome,
            }))
        }
        (None, None) => err("Unclassifiable"),
    }
}

/// A batch element: read as a `Value` (a duplicated member keeps its
/// last value), every member's text checked.
fn classify_value(value: &Value) -> Result<JsonRpcMessage, Refused> {
    match value {
        Value::Object(map) => classify(map.iter().map(|(k, v)| (k.as_str(), v))),
        Value::Array(_) => err("BatchNotAllowed"),
        _ => err("NotAnObject"),
    }
}

/// The model of a whole frame.
fn model(frame: &[u8], allow_batch: bool) -> Result<JsonRpcMessage, Refused> {
    let Some(doc) = members::read::<Doc>(frame) else {
        return err("Json");
    };
    match doc {
        Doc::Object(members) => classify(
            members
                .iter()
                .filter_map(|(k, v)| v.as_ref().map(|v| (k.as_str(), v))),
        ),
        Doc::Array(_) => {
            let Some(items) = members::read::<Vec<Value>>(frame) else {
                return err("Json");
            };
            if !allow_batch {
                err("BatchNotAllowed")
            } else if items.is_empty() {
                err("EmptyBatch")
            } else {
                items
                    .iter()
                    .map(classify_value)
                    .collect::<Result<Vec<_>, _>>()
                    .map(JsonRpcMessage::Batch)
            }
        }
        Doc::Scalar => err("NotAnObject"),
    }
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(input: &[u8]) {
    let Some((&flags, frame)) = input.split_first() else {
        return;
    };
    let options = DecodeOptions {
        allow_batch: flags & 1 == 1,
    };
    let ours = JsonRpcMessage::decode_with(frame, options);
    let got = match &ours {
        Ok(m) => Ok(m.clone()),
        Err(e) => Err(error_kind(e)),
    };
    let want = model(frame, options.allow_batch);
    assert_eq!(got, want, "decode_with against the model");

    match decode_frame(&Bytes::copy_from_slice(frame), options) {
        Ok(Decoded::Message(m)) => {
            assert_eq!(Ok(&m), ours.as_ref(), "decode_frame's slow path")
        }
        Err(e) => assert_eq!(Err(&e), ours.as_ref(), "decode_frame's error"),
        Ok(Decoded::Response { id, outcome }) => match &ours {
            Ok(JsonRpcMessage::Response(full)) => {
                assert_eq!(full.id.as_ref(), Some(&id), "the response's id");
                match (outcome, &full.outcome) {
                    (Ok(raw), Ok(result)) => {
                        let raw: Value = raw.parse().expect("a result the full decoder read");
                        assert_eq!(&raw, result, "the response's result");
                    }
                    (Err(a), Err(b)) => assert_eq!(&a, b, "the response's error"),
                    (a, b) => panic!("decode_frame read {a:?}, decode_with {b:?}"),
                }
            }
            // The documented differences: a result that is not JSON (it
            // fails when the caller parses it), or one nested past the
            // full decoder's limit.
            Err(DecodeError::Json(why)) => {
                let raw_ok = outcome
                    .as_ref()
                    .map(|raw| raw.parse::<Value>().is_ok())
                    .unwrap_or(false);
                assert!(
                    !raw_ok || why.contains("recursion limit"),
                    "decode_frame took a response that decode_with refused: {why}"
                );
            }
            other => panic!("decode_frame took a response, decode_with read {other:?}"),
        },
    }
}
