//! [`RequestBody`]: a request written straight from borrowed parts, with
//! the per-request `_meta` members merged into `params._meta` as it is
//! written.

use serde_json::Value;

use super::{RequestId, write_id};
use crate::json_write::{member, string, trim_excess, value};

/// A request serialized straight from borrowed parts, without building a
/// [`JsonRpcMessage`](super::JsonRpcMessage) (and so without copying the params): `_meta` members
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
    /// [`JsonRpcMessage::to_vec`](super::JsonRpcMessage::to_vec) writes for the same request after
    /// [`crate::base::with_params_meta`] added the members.
    pub fn to_vec(&self) -> Vec<u8> {
        // Room for a small request (a `tools/call` with a short argument is
        // about 150 bytes) without growing; a larger one grows once per
        // doubling, or at once for a long string.
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        write_id(&mut out, self.id);
        out.extend_from_slice(b",\"method\":");
        string(&mut out, self.method);
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
                    member(&mut out, &mut first, k, v);
                }
                if !meta_written {
                    self.write_meta_member(&mut out, &mut first, None, defaults);
                }
                out.push(b'}');
            }
            Some(params) => {
                out.extend_from_slice(b",\"params\":");
                value(&mut out, params);
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
        trim_excess(&mut out, 0);
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
            member(out, &mut inner_first, k, v);
        }
        out.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{JsonRpcMessage, JsonRpcRequest};
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
}
