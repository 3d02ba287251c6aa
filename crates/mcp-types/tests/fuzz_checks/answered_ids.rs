//! Fuzz check of `answered_ids` (the structural scan that names the
//! requests a frame which failed to decode claims to answer) and
//! `invalid_request`, against serde_json's reading of the frame.
//!
//! Input: the frame.
//!
//! Checks: no panic; on a frame serde_json reads whole, the scan finds
//! exactly the model's ids: the `id` of an object (or of each object
//! element of an array) with one `id` member that is a valid `RequestId`
//! and no `method` member; `invalid_request` says a frame is a request
//! only when it has `"jsonrpc": "2.0"`, a `method` member and one `id`,
//! and then names that id when it is a valid `RequestId`.

use mcp_types::{RequestId, answered_ids, invalid_request};
use serde_json::Value;

use super::members::Doc;

fn request_id(v: &Value) -> Option<RequestId> {
    match v {
        Value::String(s) => Some(RequestId::String(s.clone())),
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        _ => None,
    }
}

fn response_id(members: &[(String, Option<Value>)]) -> Option<RequestId> {
    let mut ids = Vec::new();
    for (name, value) in members {
        match name.as_str() {
            "method" => return None,
            "id" => ids.push(value.as_ref()?),
            _ => {}
        }
    }
    match ids.as_slice() {
        [one] => request_id(one),
        _ => None,
    }
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(frame: &[u8]) {
    let ids = answered_ids(frame);
    let request = invalid_request(frame);
    // Strictly serde_json's reading here: the scan does not rewrite
    // surrogates, and it reads the raw text, so a text serde_json refuses
    // has no model.
    let Ok(doc) = serde_json::from_slice::<Doc>(frame) else {
        return;
    };
    let want: Vec<RequestId> = match &doc {
        Doc::Object(members) => response_id(members).into_iter().collect(),
        Doc::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Doc::Object(members) => response_id(members),
                _ => None,
            })
            .collect(),
        Doc::Scalar => Vec::new(),
    };
    assert_eq!(ids, want, "answered_ids against the model");

    let want_request = match &doc {
        Doc::Object(members) => {
            let version_ok = members
                .iter()
                .rev()
                .find(|(k, _)| k == "jsonrpc")
                .is_some_and(|(_, v)| v.as_ref().is_some_and(|v| v == "2.0"));
            let method = members.iter().any(|(k, _)| k == "method");
            let ids: Vec<&Value> = members
                .iter()
                .filter(|(k, _)| k == "id")
                .filter_map(|(_, v)| v.as_ref())
                .collect();
            match ids.as_slice() {
                [id] if version_ok && method => Some(request_id(id)),
                _ => None,
            }
        }
        _ => None,
    };
    assert_eq!(request, want_request, "invalid_request against the model");
}
