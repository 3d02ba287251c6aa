//! [`RawParams`]: a request's params serialized before the request has an
//! id, with room in front of them for the envelope, so the request is
//! written around them in place.
//!
//! A `tools/call` with a 100 KiB argument would otherwise be copied twice
//! before it leaves (into a `serde_json::Value`, then into the request's
//! bytes), and the `Value` kept until the response came back; with
//! `RawParams` the caller's arguments are serialized once, into the buffer
//! that becomes the request.

use bytes::{Buf, Bytes};
use serde::Serialize;

use super::{RequestId, write_id};
use crate::json_write::serializer;
use crate::json_write::{first_special, string, trim_excess, value};

/// Room kept in front of the params for
/// `{"jsonrpc":"2.0","id":…,"method":…,"params":`: enough for any integer
/// id and a method name of up to 60 bytes. A longer head is written into a
/// new buffer instead (one copy of the params).
const HEADROOM: usize = 128;

/// Request params as compact JSON, serialized once; see the module docs.
///
/// ```
/// use mcp_types::RequestId;
/// use mcp_types::RawParams;
/// let params = RawParams::to_json(&serde_json::json!({"name": "echo"})).unwrap();
/// assert_eq!(params.json(), br#"{"name":"echo"}"#);
/// let body = params.into_request(&RequestId::Number(7), "tools/call");
/// assert_eq!(
///     &body[..],
///     br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}"#
/// );
/// ```
#[derive(Clone)]
pub struct RawParams {
    /// `HEADROOM` bytes of room, then the params' JSON.
    buf: Vec<u8>,
}

impl std::fmt::Debug for RawParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The params may be large, and may carry what a caller would not
        // log: only their size.
        f.debug_struct("RawParams")
            .field("bytes", &self.json().len())
            .finish()
    }
}

impl RawParams {
    /// Serializes `params` (compact JSON, byte for byte what
    /// `serde_json::to_vec` writes) with this crate's writer, which copies
    /// long strings whole between escapes. MCP params are objects; this
    /// does not check it.
    ///
    /// Errors: what `serde_json` reports for a value that does not
    /// serialize (e.g. a map with keys that are not strings).
    pub fn to_json<T: Serialize + ?Sized>(params: &T) -> Result<Self, serde_json::Error> {
        // Room for the envelope and a small request without growing.
        let mut buf = Vec::with_capacity(HEADROOM + 256);
        buf.resize(HEADROOM, b' ');
        serializer::write(&mut buf, params)?;
        // Room for the request's closing `}`.
        trim_excess(&mut buf, 1);
        Ok(RawParams { buf })
    }

    /// The params of a plain `tools/call` (MCP `CallToolRequestParams` with
    /// only `name` and `arguments`; spec: `server/tools` § Calling Tools):
    /// `{"name":…,"arguments":…}`, the arguments written straight from the
    /// caller's type by this crate's writer (byte for byte what
    /// `serde_json::to_vec` writes for them; no `serde_json::Value` is
    /// built). Arguments that serialize to `null` (`()`, `None`,
    /// `Value::Null`) leave the `arguments` member out.
    ///
    /// Errors: [`ArgumentsError::NotAnObject`] for arguments that are
    /// JSON of another type than an object, [`ArgumentsError::Serialize`]
    /// for arguments that do not serialize.
    pub fn tool_call<A: Serialize + ?Sized>(
        name: &str,
        arguments: &A,
    ) -> Result<Self, ArgumentsError> {
        let mut buf = Vec::with_capacity(HEADROOM + 256);
        buf.resize(HEADROOM, b' ');
        buf.extend_from_slice(b"{\"name\":");
        string(&mut buf, name);
        let without = buf.len();
        buf.extend_from_slice(b",\"arguments\":");
        match serializer::write(&mut buf, arguments)? {
            "object" => {}
            "null" => buf.truncate(without),
            found => return Err(ArgumentsError::NotAnObject { found }),
        }
        buf.push(b'}');
        trim_excess(&mut buf, 1);
        Ok(RawParams { buf })
    }

    /// Writes `params` (compact JSON) with this crate's writer, which
    /// copies long strings whole between escapes (serde_json's serializer
    /// looks at every byte: several times the instructions for a 100 KiB
    /// argument). The value can be dropped as soon as this returns.
    pub fn from_value(params: &serde_json::Value) -> Self {
        let mut buf = Vec::with_capacity(HEADROOM + 256);
        buf.resize(HEADROOM, b' ');
        value(&mut buf, params);
        // Room for the request's closing `}`.
        trim_excess(&mut buf, 1);
        RawParams { buf }
    }

    /// The params' JSON.
    pub fn json(&self) -> &[u8] {
        &self.buf[HEADROOM..]
    }

    /// The compact JSON of the request `{"jsonrpc":"2.0","id":…,"method":…,
    /// "params":…}`, byte for byte what
    /// [`RequestBody`](super::RequestBody) writes for the same params with
    /// no `_meta` to merge: written around the params in place when the
    /// head fits in the room in front of them (an integer id and a method
    /// name of up to 60 bytes), else into a new buffer.
    pub fn into_request(self, id: &RequestId, method: &str) -> Bytes {
        let (buf, start) = self.into_request_buffer(id, method);
        let mut bytes = Bytes::from(buf);
        bytes.advance(start);
        bytes
    }

    /// [`RawParams::into_request`] as the buffer it was written in and the
    /// offset where the request starts in it (the room in front of the
    /// params the head did not fill): for a transport that writes the
    /// request once and drops it, without the shared header a `Bytes` of
    /// the buffer takes.
    pub fn into_request_buffer(self, id: &RequestId, method: &str) -> (Vec<u8>, usize) {
        let mut digits = [0u8; 20];
        if let RequestId::Number(n) = id
            && first_special(method.as_bytes()).is_none()
        {
            // The usual request: an integer id and a method name with
            // nothing to escape, written in place without a formatter.
            let id = decimal(*n, &mut digits);
            let parts: [&[u8]; 5] = [
                b"{\"jsonrpc\":\"2.0\",\"id\":",
                id,
                b",\"method\":\"",
                method.as_bytes(),
                b"\",\"params\":",
            ];
            let len: usize = parts.iter().map(|p| p.len()).sum();
            if len <= HEADROOM {
                let mut buf = self.buf;
                let mut at = HEADROOM - len;
                for part in parts {
                    buf[at..at + part.len()].copy_from_slice(part);
                    at += part.len();
                }
                buf.push(b'}');
                return (buf, HEADROOM - len);
            }
        }
        let mut head = Vec::with_capacity(HEADROOM);
        head.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        write_id(&mut head, id);
        head.extend_from_slice(b",\"method\":");
        string(&mut head, method);
        head.extend_from_slice(b",\"params\":");
        let mut buf = self.buf;
        if head.len() <= HEADROOM {
            let start = HEADROOM - head.len();
            buf[start..HEADROOM].copy_from_slice(&head);
            buf.push(b'}');
            (buf, start)
        } else {
            head.reserve(buf.len() - HEADROOM + 1);
            head.extend_from_slice(&buf[HEADROOM..]);
            head.push(b'}');
            (head, 0)
        }
    }
}

/// Why [`RawParams::tool_call`] could not write a `tools/call`'s arguments.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentsError {
    /// They serialize to JSON of another type than an object (MCP's
    /// `arguments` is an object); `found` names that type as JSON Schema
    /// does: `"array"`, `"string"`, `"number"` or `"boolean"`.
    #[error("the arguments are a JSON {found}, not an object")]
    NotAnObject {
        /// The JSON type they serialized to.
        found: &'static str,
    },
    /// They did not serialize (their `Serialize` failed, or a map key is
    /// not a string, char, integer, boolean or finite float).
    #[error("the arguments did not serialize: {0}")]
    Serialize(#[from] serde_json::Error),
}

/// The decimal digits of `n` (with its `-`), written at the end of `out`.
fn decimal(n: i64, out: &mut [u8; 20]) -> &[u8] {
    let mut rest = n.unsigned_abs();
    let mut at = out.len();
    loop {
        at -= 1;
        out[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        at -= 1;
        out[at] = b'-';
    }
    &out[at..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::RequestBody;
    use serde_json::{Value, json};

    /// The request written around the params is what `RequestBody` writes
    /// for the same id, method and params: integer and string ids, a
    /// method name that fits the room and one that does not, escapes.
    #[test]
    fn tool_call_writes_what_from_value_writes() {
        for (name, arguments) in [
            ("echo", Some(json!({"text": "a\n\"b\"\u{7f}é", "n": 3}))),
            ("e\"cho", Some(json!({}))),
            ("echo", None),
        ] {
            let mut object = serde_json::Map::new();
            object.insert("name".into(), Value::from(name));
            if let Some(a) = &arguments {
                object.insert("arguments".into(), a.clone());
            }
            let written = RawParams::tool_call(name, &arguments).unwrap();
            assert_eq!(
                serde_json::from_slice::<Value>(written.json()).unwrap(),
                Value::Object(object)
            );
        }
    }

    /// Arguments written from the caller's type: `null` leaves the member
    /// out, an object is written as serde_json writes it (in the type's
    /// own member order), anything else is refused with its JSON type.
    #[test]
    fn tool_call_takes_objects_and_no_arguments_and_refuses_the_rest() {
        #[derive(Serialize)]
        struct Add {
            b: i64,
            a: i64,
        }
        let written = RawParams::tool_call("add", &Add { b: 3, a: 2 }).unwrap();
        assert_eq!(
            written.json(),
            br#"{"name":"add","arguments":{"b":3,"a":2}}"#
        );
        for none in [
            RawParams::tool_call("t", &()).unwrap(),
            RawParams::tool_call("t", &None::<Add>).unwrap(),
            RawParams::tool_call("t", &Value::Null).unwrap(),
        ] {
            assert_eq!(none.json(), br#"{"name":"t"}"#);
        }
        for (arguments, found) in [
            (json!([1, 2]), "array"),
            (json!("text"), "string"),
            (json!(3), "number"),
            (json!(false), "boolean"),
        ] {
            match RawParams::tool_call("t", &arguments) {
                Err(ArgumentsError::NotAnObject { found: f }) => assert_eq!(f, found),
                other => panic!("{arguments}: {other:?}"),
            }
        }
        let not_string_keys = std::collections::BTreeMap::from([(vec![1u8], 1)]);
        assert!(matches!(
            RawParams::tool_call("t", &not_string_keys),
            Err(ArgumentsError::Serialize(_))
        ));
    }

    #[test]
    fn into_request_matches_request_body() {
        let long_method = "x/".repeat(40);
        let long_id = RequestId::String("i".repeat(200));
        let params = [
            json!({}),
            json!({"name": "echo", "arguments": {"text": "a\n\"b\"\u{7f}é"}}),
            json!({"arguments": {"text": "t".repeat(100 * 1024)}}),
        ];
        for p in &params {
            for id in [
                RequestId::Number(0),
                RequestId::Number(7),
                RequestId::Number(-42),
                RequestId::Number(1_000_000_007),
                RequestId::Number(i64::MAX),
                RequestId::Number(i64::MIN),
                RequestId::String("s\"1".into()),
                long_id.clone(),
            ] {
                for (method, from_value) in [
                    ("tools/call", false),
                    ("tools/call", true),
                    ("a\"b", false),
                    (long_method.as_str(), true),
                ] {
                    let raw = if from_value {
                        RawParams::from_value(p)
                    } else {
                        RawParams::to_json(p).unwrap()
                    };
                    assert_eq!(serde_json::from_slice::<Value>(raw.json()).unwrap(), *p);
                    let expected = RequestBody {
                        id: &id,
                        method,
                        params: Some(p),
                        meta_defaults: None,
                        meta_overrides: &[],
                    }
                    .to_vec();
                    let (buf, start) = raw.clone().into_request_buffer(&id, method);
                    assert_eq!(&buf[start..], &expected[..], "{id:?} {method}");
                    assert_eq!(
                        &raw.into_request(&id, method)[..],
                        &expected[..],
                        "{id:?} {method}"
                    );
                }
            }
        }
    }

    /// A large argument leaves no doubled buffer behind: the request keeps
    /// about its own size, not the capacity a last small write doubled.
    #[test]
    fn a_large_request_keeps_no_excess_capacity() {
        let text = "t".repeat(100 * 1024);
        let raw =
            RawParams::to_json(&json!({"arguments": {"text": text}, "name": "echo"})).unwrap();
        assert!(
            raw.buf.capacity() <= raw.buf.len() + 4096 + raw.buf.len() / 8,
            "{} bytes kept for {}",
            raw.buf.capacity(),
            raw.buf.len()
        );
    }

    /// `Debug` shows the size, never the params.
    #[test]
    fn debug_hides_the_params() {
        let raw = RawParams::to_json(&json!({"token": "secret"})).unwrap();
        let shown = format!("{raw:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("bytes"), "{shown}");
    }
}
