//! Responses decoded without building a `serde_json::Value`: the `result`
//! member stays as the bytes it arrived in ([`RawResult`]) until the caller
//! parses it straight into the type it expects, so a response is parsed
//! once: a 1 000-tool `tools/list` is one typed parse, not a `Value` tree
//! built and then walked a second time.
//!
//! [`decode_frame`] finds the members of a message with a structural scan
//! that jumps over strings with `memchr`: it looks at each member's bounds,
//! not at its contents. Only the common case, a response with an id and
//! exactly one of `result` / `error`, is taken this way; every other
//! message (requests, notifications, batches, anything unusual) is decoded
//! by [`JsonRpcMessage::decode_with`], with its checks and errors.
//!
//! Two differences from the full decoder, both for a plain response only:
//! the contents of `result` are delimited, not validated (invalid JSON in
//! it fails [`RawResult::parse`], for that request alone), and serde_json's
//! nesting limit (128) counts from the `result` or `error` member rather
//! than from the message, so a response nested exactly one level deeper
//! than the full decoder accepts is still read.

use std::fmt;
use std::ops::Range;

use bytes::Bytes;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;

use crate::jsonrpc::{DecodeError, DecodeOptions, JsonRpcError, JsonRpcMessage, RequestId};

/// The `result` member of a response, as the bytes it arrived in (JSON
/// text, UTF-8 unless the peer broke the rules), not yet parsed.
///
/// Cloning is cheap (a reference count): the bytes are shared with the
/// frame they came in. Parse with [`RawResult::parse`]; a result that is
/// not valid JSON, or not of the expected shape, is an error then.
#[derive(Clone, PartialEq, Eq)]
pub struct RawResult(Bytes);

impl RawResult {
    /// Wraps bytes that hold (or should hold) one JSON value.
    pub fn new(bytes: Bytes) -> Self {
        RawResult(bytes)
    }

    /// Serializes `value` (compact JSON).
    pub fn from_value(value: &Value) -> Self {
        let mut out = Vec::new();
        crate::json_write::value(&mut out, value);
        RawResult(Bytes::from(out))
    }

    /// The JSON text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The JSON text as shared bytes.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }

    /// Parses the result as `T`: the bytes are checked as UTF-8 once, as a
    /// whole (SIMD where the CPU has it, `simdutf8`), then parsed in one
    /// pass that does not check each string again, by this crate's JSON
    /// deserializer (the same texts and values as `serde_json::from_str`;
    /// long strings are scanned with SIMD, see the `de` module).
    ///
    /// Errors: the bytes are not UTF-8, not JSON, or not a `T`. A message
    /// ends with the byte offset in the result where parsing stopped.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match simdutf8::basic::from_utf8(&self.0) {
            Ok(text) => crate::de::from_str(text),
            // Let serde_json find and report where the text goes wrong.
            Err(_) => serde_json::from_slice(&self.0),
        }
    }

    /// Parses the result as a [`Value`].
    ///
    /// Errors: the bytes are not JSON.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        self.parse()
    }

    /// The raw text of the top-level member `key` when the result is an
    /// object that has it, without parsing the rest (e.g. `resultType`).
    /// `None` when the result is not an object, lacks `key`, or is not
    /// well formed enough to scan (a later [`parse`](Self::parse) reports
    /// that).
    ///
    /// Member names are compared as JSON strings, escapes decoded
    /// (`"result\u0054ype"` is `resultType`, as a parse sees it). A key
    /// that appears more than once gives `None` (a typed parse refuses it).
    pub fn member(&self, key: &str) -> Option<&[u8]> {
        let bytes: &[u8] = &self.0;
        let mut found = None;
        let mut duplicate = false;
        scan_object(bytes, |k, range| {
            if key_is(k, key) {
                duplicate |= found.replace(range).is_some();
            }
        })
        .ok()?;
        if duplicate {
            return None;
        }
        found.map(|r| &bytes[r])
    }
}

impl fmt::Debug for RawResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cut = &self.0[..self.0.len().min(200)];
        write!(f, "RawResult({}", String::from_utf8_lossy(cut))?;
        if self.0.len() > 200 {
            write!(f, "… {} bytes", self.0.len())?;
        }
        write!(f, ")")
    }
}

/// The JSON text (invalid UTF-8 shown as U+FFFD).
impl fmt::Display for RawResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

/// Equal when the bytes parse to `other` (a result that is not JSON equals
/// nothing).
impl PartialEq<Value> for RawResult {
    fn eq(&self, other: &Value) -> bool {
        self.to_value().is_ok_and(|v| v == *other)
    }
}

impl From<Value> for RawResult {
    fn from(value: Value) -> Self {
        RawResult::from_value(&value)
    }
}

/// What [`decode_frame`] found.
#[derive(Debug)]
pub enum Decoded {
    /// A response that names its request, with its result still raw.
    Response {
        /// The request it answers.
        id: RequestId,
        /// The result, or the error object.
        outcome: Result<RawResult, JsonRpcError>,
    },
    /// Any other message, decoded by [`JsonRpcMessage::decode_with`].
    Message(JsonRpcMessage),
}

/// Decodes one framed message, keeping a response's `result` raw (a slice
/// of `frame`, no copy).
///
/// Errors: as [`JsonRpcMessage::decode_with`], which decodes every message
/// that is not a plain response (and every response this scan finds
/// unusual: a `null` id, an escaped or duplicate member name, a `params`
/// member, another member the full decoder would reject, both or neither
/// of `result` and `error`, a malformed `error`), so the checks and errors
/// are the same as there.
pub fn decode_frame(frame: &Bytes, options: DecodeOptions) -> Result<Decoded, DecodeError> {
    if let Some(decoded) = fast_response(frame) {
        return Ok(decoded);
    }
    JsonRpcMessage::decode_with(frame, options).map(Decoded::Message)
}

/// The plain-response case of [`decode_frame`], or `None` for the slow path.
fn fast_response(frame: &Bytes) -> Option<Decoded> {
    let bytes: &[u8] = frame;
    let mut members = Members::default();
    // Anything the full decoder might read differently: an escaped or
    // invalid member name (`"m\u0065thod"` is `method` to it), `params`
    // (parsed as a value there), another member whose name or value the
    // full decoder would reject.
    let mut unusual = false;
    scan_object(bytes, |key, range| {
        let slot = match key {
            b"jsonrpc" => &mut members.jsonrpc,
            b"id" => &mut members.id,
            b"method" => &mut members.method,
            b"result" => &mut members.result,
            b"error" => &mut members.error,
            b"params" => {
                unusual = true;
                return;
            }
            _ => {
                unusual |= !plain_key(key) || parse_member::<IgnoredAny>(&bytes[range]).is_none();
                return;
            }
        };
        unusual |= slot.replace(range).is_some();
    })
    .ok()?;
    if unusual || members.method.is_some() {
        return None;
    }
    if &bytes[members.jsonrpc?] != b"\"2.0\"" {
        return None;
    }
    let id_value: Value = serde_json::from_slice(&bytes[members.id?]).ok()?;
    let id = RequestId::from_value(&id_value)?;
    let outcome = match (members.result, members.error) {
        (Some(result), None) => Ok(RawResult(frame.slice(result))),
        (None, Some(error)) => Err(parse_member::<JsonRpcError>(&bytes[error])?),
        _ => return None,
    };
    Some(Decoded::Response { id, outcome })
}

/// A member's value as `T`, or `None` when the full decoder would refuse
/// it: every byte of it must be UTF-8, in ignored strings too, where
/// `serde_json::from_slice` does not look.
fn parse_member<T: DeserializeOwned>(raw: &[u8]) -> Option<T> {
    crate::de::from_str(simdutf8::basic::from_utf8(raw).ok()?).ok()
}

/// `true` for a member name the full decoder reads as these same bytes:
/// UTF-8 without escapes or control characters.
fn plain_key(raw: &[u8]) -> bool {
    !raw.iter().any(|&b| b == b'\\' || b < 0x20) && std::str::from_utf8(raw).is_ok()
}

/// `true` when the raw member name `raw` (between its quotes) is `key` once
/// its escapes are decoded.
fn key_is(raw: &[u8], key: &str) -> bool {
    if !raw.contains(&b'\\') {
        return raw == key.as_bytes();
    }
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted).is_ok_and(|k| k == key)
}

#[derive(Default)]
struct Members {
    jsonrpc: Option<Range<usize>>,
    id: Option<Range<usize>>,
    method: Option<Range<usize>>,
    result: Option<Range<usize>>,
    error: Option<Range<usize>>,
}

/// Why a structural scan stopped; the caller falls back to a full parse.
#[derive(Debug)]
struct NotScannable;

/// Walks the members of the JSON object that `bytes` holds (surrounding
/// whitespace allowed, nothing else), calling `member(raw_key, value_range)`
/// for each in order. Keys are the raw bytes between the quotes (escapes
/// not decoded). Values are only delimited: strings by their closing quote
/// (found with `memchr2`), containers by bracket depth outside strings,
/// other tokens by the next delimiter; their contents are not validated.
fn scan_object(bytes: &[u8], member: impl FnMut(&[u8], Range<usize>)) -> Result<(), NotScannable> {
    let pos = scan_members(bytes, skip_ws(bytes, 0), member)?;
    if skip_ws(bytes, pos) == bytes.len() {
        Ok(())
    } else {
        Err(NotScannable)
    }
}

/// [`scan_object`] for the object that starts at `pos`, whatever follows
/// it; returns the index just past its closing brace.
fn scan_members(
    bytes: &[u8],
    mut pos: usize,
    mut member: impl FnMut(&[u8], Range<usize>),
) -> Result<usize, NotScannable> {
    expect(bytes, &mut pos, b'{')?;
    pos = skip_ws(bytes, pos);
    if bytes.get(pos) == Some(&b'}') {
        pos += 1;
    } else {
        loop {
            expect(bytes, &mut pos, b'"')?;
            let key_start = pos;
            pos = string_end(bytes, pos)?;
            let key = &bytes[key_start..pos - 1];
            pos = skip_ws(bytes, pos);
            expect(bytes, &mut pos, b':')?;
            pos = skip_ws(bytes, pos);
            let start = pos;
            pos = value_end(bytes, pos)?;
            member(key, start..pos);
            pos = skip_ws(bytes, pos);
            match bytes.get(pos) {
                Some(b',') => pos = skip_ws(bytes, pos + 1),
                Some(b'}') => {
                    pos += 1;
                    break;
                }
                _ => return Err(NotScannable),
            }
        }
    }
    Ok(pos)
}

/// The requests that a frame which failed to decode claims to answer: the
/// `id` of each response-shaped object in it (one with a single `id`
/// member, a valid [`RequestId`], and no `method` member), read by a
/// structural scan (JSON-RPC 2.0 § 5: a response names its request).
///
/// The scan reads past what the decoder refused: a missing or wrong
/// `jsonrpc`, a malformed `error` or `result`, nesting of any depth, text
/// after the message (garbage, or a second message on the same line), a
/// batch in a revision without batches (each element's id). It stops
/// quietly where the input stops being delimitable JSON. A dispatcher
/// fails these requests with the decode error at once instead of leaving
/// them to time out. Empty when no id can be read.
///
/// ```
/// use mcp_types::{RequestId, answered_ids};
///
/// let frame = br#"{"jsonrpc":"2.0","id":3,"error":{"code":"x"}} trailing"#;
/// assert_eq!(answered_ids(frame), [RequestId::Number(3)]);
/// assert!(answered_ids(br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#).is_empty());
/// ```
pub fn answered_ids(frame: &[u8]) -> Vec<RequestId> {
    let mut ids = Vec::new();
    let start = skip_ws(frame, 0);
    match frame.get(start) {
        Some(b'{') => ids.extend(response_id(frame, start)),
        Some(b'[') => {
            let mut pos = skip_ws(frame, start + 1);
            while let Ok(end) = value_end(frame, pos) {
                if frame.get(pos) == Some(&b'{') {
                    ids.extend(response_id(frame, pos));
                }
                pos = skip_ws(frame, end);
                if frame.get(pos) != Some(&b',') {
                    break;
                }
                pos = skip_ws(frame, pos + 1);
            }
        }
        _ => {}
    }
    ids
}

/// For a frame that failed to decode: whether it is a request all the same,
/// and the id to answer it with. A request here is an object with
/// `"jsonrpc": "2.0"`, a `method` member (of any type) and one `id`; it is
/// invalid because of its id (a fraction, a number past `i64`, `null`, a
/// boolean, an array or an object), its method (not a string) or its
/// params. JSON-RPC 2.0 § 5 answers it with Invalid Request: `Some(Some(id))`
/// when the id is a [`RequestId`], `Some(None)` (answer with a `null` id)
/// when not. `None` for anything less request-shaped (a log line that
/// happens to be JSON, a response, a notification): not answered.
///
/// ```
/// use mcp_types::{RequestId, invalid_request};
///
/// assert_eq!(invalid_request(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#), Some(None));
/// assert_eq!(
///     invalid_request(br#"{"jsonrpc":"2.0","id":"x","method":5}"#),
///     Some(Some(RequestId::String("x".into())))
/// );
/// assert_eq!(invalid_request(br#"{"level":"info","id":1,"method":"x"}"#), None);
/// ```
pub fn invalid_request(frame: &[u8]) -> Option<Option<RequestId>> {
    let mut version_ok = false;
    let mut method = false;
    let mut id: Option<Range<usize>> = None;
    let mut ids = 0;
    // Member names and the version are compared as the decoder reads
    // them, escapes decoded (`"m\u0065thod"` is `method` there too).
    scan_object(frame, |key, range| {
        if key_is(key, "jsonrpc") {
            version_ok = frame.get(range).is_some_and(|v| {
                v == b"\"2.0\"" || serde_json::from_slice::<String>(v).is_ok_and(|v| v == "2.0")
            });
        } else if key_is(key, "method") {
            method = true;
        } else if key_is(key, "id") {
            ids += 1;
            id = Some(range);
        }
    })
    .ok()?;
    if !version_ok || !method || ids != 1 {
        return None;
    }
    let value = serde_json::from_slice::<Value>(frame.get(id?)?).ok()?;
    Some(RequestId::from_value(&value))
}

/// The id of the response-shaped object starting at `pos`, if any (see
/// [`answered_ids`]).
fn response_id(bytes: &[u8], pos: usize) -> Option<RequestId> {
    let mut id = None;
    let mut ids = 0;
    let mut method = false;
    scan_members(bytes, pos, |key, range| {
        if key_is(key, "method") {
            method = true;
        } else if key_is(key, "id") {
            ids += 1;
            id = Some(range);
        }
    })
    .ok()?;
    if method || ids != 1 {
        return None;
    }
    let value: Value = serde_json::from_slice(bytes.get(id?)?).ok()?;
    RequestId::from_value(&value)
}

fn expect(bytes: &[u8], pos: &mut usize, want: u8) -> Result<(), NotScannable> {
    if bytes.get(*pos) == Some(&want) {
        *pos += 1;
        Ok(())
    } else {
        Err(NotScannable)
    }
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
        pos += 1;
    }
    pos
}

/// `pos` is just past an opening quote; returns the index just past the
/// closing one.
fn string_end(bytes: &[u8], mut pos: usize) -> Result<usize, NotScannable> {
    loop {
        let rest = bytes.get(pos..).ok_or(NotScannable)?;
        let at = memchr::memchr2(b'"', b'\\', rest).ok_or(NotScannable)?;
        if rest[at] == b'"' {
            return Ok(pos + at + 1);
        }
        // A backslash escapes the next byte (enough to delimit: `\uXXXX`
        // has no quote or backslash in its hex digits).
        pos += at + 2;
    }
}

/// Returns the index just past the value that starts at `pos`.
fn value_end(bytes: &[u8], pos: usize) -> Result<usize, NotScannable> {
    match bytes.get(pos) {
        Some(b'"') => string_end(bytes, pos + 1),
        Some(b'{' | b'[') => container_end(bytes, pos),
        Some(_) => {
            let len = bytes[pos..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - pos);
            if len == 0 {
                Err(NotScannable)
            } else {
                Ok(pos + len)
            }
        }
        None => Err(NotScannable),
    }
}

fn container_end(bytes: &[u8], mut pos: usize) -> Result<usize, NotScannable> {
    let mut depth = 0usize;
    while let Some(&b) = bytes.get(pos) {
        match b {
            b'"' => {
                pos = string_end(bytes, pos + 1)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(pos + 1);
                }
            }
            _ => {}
        }
        pos += 1;
    }
    Err(NotScannable)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decode(text: &str) -> Result<Decoded, DecodeError> {
        decode_frame(
            &Bytes::copy_from_slice(text.as_bytes()),
            DecodeOptions::default(),
        )
    }

    #[test]
    fn plain_result_stays_raw_and_parses() {
        let Ok(Decoded::Response {
            id,
            outcome: Ok(raw),
        }) = decode(r#" {"jsonrpc":"2.0","id":7,"result":{"a":[1,"x\"}"],"b":null}} "#)
        else {
            panic!("not a fast response")
        };
        assert_eq!(id, RequestId::Number(7));
        assert_eq!(raw.as_bytes(), br#"{"a":[1,"x\"}"],"b":null}"#);
        assert_eq!(
            raw.to_value().unwrap(),
            json!({"a": [1, "x\"}"], "b": null})
        );
        assert_eq!(raw.member("b"), Some(&b"null"[..]));
        assert_eq!(raw.member("a"), Some(&br#"[1,"x\"}"]"#[..]));
        assert_eq!(raw.member("c"), None);
    }

    #[test]
    fn member_order_does_not_matter() {
        let Ok(Decoded::Response {
            id,
            outcome: Ok(raw),
        }) = decode(r#"{"result" : "r", "id":"s-1" ,"jsonrpc":"2.0"}"#)
        else {
            panic!("not a fast response")
        };
        assert_eq!(id, RequestId::from("s-1"));
        assert_eq!(raw.parse::<String>().unwrap(), "r");
    }

    #[test]
    fn error_response_is_parsed() {
        let Ok(Decoded::Response {
            outcome: Err(e), ..
        }) = decode(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#)
        else {
            panic!("not a fast error response")
        };
        assert_eq!(e.code.0, -32601);
        assert_eq!(e.message, "no");
    }

    /// Invalid UTF-8 in a string the fast path only skips gets the full
    /// decoder's verdict: refused in an unknown member of `error` (which
    /// the full decoder parses as a value), taken in an unknown top-level
    /// member (which it ignores). serde_json's `from_slice` does not look
    /// at ignored strings; found by `decode_frame_properties`.
    #[test]
    fn invalid_utf8_in_skipped_strings_gets_the_full_decoders_verdict() {
        for (text, refused) in [
            (&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"m\",\"x\":{\"\xff\":null}}}"[..], true),
            (&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"m\",\"x\":\"\xc3\"}}"[..], true),
            (&b"{\"jsonrpc\":\"2.0\",\"id\":1,\"extra\":\"\xff\",\"result\":{}}"[..], false),
        ] {
            let shown = String::from_utf8_lossy(text);
            let frame = Bytes::copy_from_slice(text);
            let full = JsonRpcMessage::decode_with(text, DecodeOptions::default());
            assert_eq!(full.is_err(), refused, "{shown:?}");
            match (decode_frame(&frame, DecodeOptions::default()), full) {
                (Err(a), Err(b)) => assert_eq!(a, b, "{shown:?}"),
                (Ok(Decoded::Message(a)), Ok(b)) => assert_eq!(a, b, "{shown:?}"),
                (fast, full) => panic!("{shown:?}: fast {fast:?}, full {full:?}"),
            }
        }
    }

    /// Everything unusual goes through the full decoder and keeps its
    /// errors; requests and notifications are never taken by the scan.
    #[test]
    fn unusual_messages_take_the_full_decoder() {
        for (text, want) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}"#,
                "both",
            ),
            (r#"{"jsonrpc":"2.0","id":1}"#, "neither"),
            (r#"{"jsonrpc":"1.0","id":1,"result":1}"#, "jsonrpc"),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":1,"result":2}"#,
                "not JSON",
            ),
            (r#"{"jsonrpc":"2.0","id":1,"result":1} x"#, "not JSON"),
            (r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#, "error"),
            (r#"{"jsonrpc":"2.0","id":1.5,"result":1}"#, "id"),
        ] {
            let err = decode(text).expect_err(text).to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Ok(Decoded::Message(JsonRpcMessage::Request(_)))
        ));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#),
            Ok(Decoded::Message(JsonRpcMessage::Response(_)))
        ));
    }

    /// A result whose contents are broken is delimited, not validated: the
    /// error comes from `parse`, for that request alone.
    #[test]
    fn broken_result_contents_fail_at_parse() {
        let Ok(Decoded::Response {
            outcome: Ok(raw), ..
        }) = decode(r#"{"jsonrpc":"2.0","id":1,"result":{"a":tru}}"#)
        else {
            panic!("not a fast response")
        };
        assert!(raw.to_value().is_err());
    }

    #[test]
    fn truncated_input_is_not_scannable() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"abc"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":"x\"#,
        ] {
            assert!(decode(text).is_err(), "{text}");
        }
    }

    /// A member name with escapes is the decoded name to the full decoder
    /// (`"m\u0065thod"` is `method`), so the scan must not read past it:
    /// otherwise this request would be taken for a response to 1, and a
    /// second, escaped `result` ignored instead of refused.
    #[test]
    fn escaped_member_names_take_the_full_decoder() {
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":1,"result":1,"m\u0065thod":"ping"}"#),
            Ok(Decoded::Message(JsonRpcMessage::Request(r))) if r.method == "ping"
        ));
        let err = decode(r#"{"jsonrpc":"2.0","id":1,"result":1,"res\u0075lt":2}"#)
            .expect_err("a duplicate result")
            .to_string();
        assert!(err.contains("duplicate field"), "{err}");
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","\u0069d":2,"result":1}"#),
            Ok(Decoded::Message(JsonRpcMessage::Response(r))) if r.id == Some(RequestId::Number(2))
        ));
    }

    /// A member the full decoder refuses (bad JSON in its value, a name
    /// that is not UTF-8 or holds a control character, a `params` that is
    /// not valid JSON text) makes the whole message unreadable: the scan
    /// must not take such a message for a plain response.
    #[test]
    fn members_the_full_decoder_refuses_are_refused() {
        for text in [
            &br#"{"jsonrpc":"2.0","id":1,"result":1,"x":tru}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"result":1,"x":[}]}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":1,"x":-}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"\xff\":1}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"\x01\":1}",
        ] {
            let frame = Bytes::copy_from_slice(text);
            let fast = decode_frame(&frame, DecodeOptions::default());
            assert!(fast.is_err(), "{}: {fast:?}", String::from_utf8_lossy(text));
        }
        // A valid unknown member is no reason to leave the fast path.
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":1,"result":1,"é":{"a":[1,"]"]}}"#),
            Ok(Decoded::Response { .. })
        ));
    }

    /// `member` compares decoded names, so an escaped `"result\u0054ype"`
    /// (which a parse reads as `resultType`) is found, and refuses a
    /// repeated name rather than give the first of two values.
    #[test]
    fn member_decodes_names_and_refuses_repeats() {
        let raw = RawResult::new(Bytes::from_static(
            br#"{"result\u0054ype":"input_required","a\"b":1}"#,
        ));
        assert_eq!(raw.member("resultType"), Some(&br#""input_required""#[..]));
        assert_eq!(raw.member("a\"b"), Some(&b"1"[..]));
        let repeated = RawResult::new(Bytes::from_static(
            br#"{"resultType":"complete","resultType":"input_required"}"#,
        ));
        assert_eq!(repeated.member("resultType"), None);
    }

    /// `parse` checks UTF-8 once for the whole result, then parses it as
    /// text: same values, and invalid UTF-8 is still an error (reported by
    /// serde_json, with its position).
    #[test]
    fn parse_checks_utf8_once_and_still_refuses_invalid_text() {
        let ok = RawResult::new(Bytes::from_static("{\"t\":\"café \\u00e9\"}".as_bytes()));
        assert_eq!(ok.to_value().unwrap(), json!({"t": "café é"}));
        let bad = RawResult::new(Bytes::from_static(b"{\"t\":\"\xFF\"}"));
        let err = bad.to_value().expect_err("invalid UTF-8");
        assert!(err.to_string().contains("unicode"), "{err}");
        let bad_outside = RawResult::new(Bytes::from_static(b"{\"t\":1}\xFF"));
        assert!(bad_outside.to_value().is_err());
    }

    #[test]
    fn raw_result_from_value_round_trips() {
        let v = json!({"k": "a\nb", "n": [1, 2.5, null, true]});
        assert_eq!(RawResult::from_value(&v).to_value().unwrap(), v);
        assert!(format!("{:?}", RawResult::from_value(&v)).starts_with("RawResult({"));
    }

    /// `answered_ids` on every prefix of response-shaped frames (a frame cut
    /// anywhere, as a read that ended early gives): never panics, and names
    /// an id only once the object that holds it is complete.
    #[test]
    fn answered_ids_on_every_prefix() {
        let frames: [&[u8]; 4] = [
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":"x","message":["a\\"]}}"#,
            br#"[{"id":"s","result":{}}, 5, {"id":8,"method":"m"}, {"id":9,"error":1}]"#,
            br#"  {"\u0069d":7,"result":[[[{"k":"]}"}]]]}  junk"#,
            br#"{"id":7,"result":{},"id":8}"#,
        ];
        let expected: [&[RequestId]; 4] = [
            &[RequestId::Number(7)],
            &[RequestId::String("s".into()), RequestId::Number(9)],
            &[RequestId::Number(7)],
            &[],
        ];
        for (frame, expected) in frames.iter().zip(expected) {
            assert_eq!(
                answered_ids(frame),
                expected,
                "{}",
                String::from_utf8_lossy(frame)
            );
            for cut in 0..frame.len() {
                let ids = answered_ids(&frame[..cut]);
                assert!(
                    ids.iter().all(|id| expected.contains(id)),
                    "{:?} gave {ids:?}",
                    String::from_utf8_lossy(&frame[..cut])
                );
            }
        }
    }
}
