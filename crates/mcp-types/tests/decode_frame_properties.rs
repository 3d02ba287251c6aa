//! Properties of `decode_frame` (the response fast path) against
//! the full decoder `JsonRpcMessage::decode_with`: it never panics, a
//! plain response round-trips its result and id, whatever it takes as a
//! response the full decoder reads the same way, and it never takes a
//! request or a notification for a response.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use bytes::Bytes;
use mcp_types::{DecodeOptions, Decoded, JsonRpcMessage, JsonRpcResponse, RequestId, decode_frame};
use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    common::json_value(json_string)
}

/// Strings heavy in what a scanner must get right: quotes, backslashes,
/// brackets, controls, non-ASCII.
fn json_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('"'),
            Just('\\'),
            Just('{'),
            Just('}'),
            Just('['),
            Just(']'),
            Just(','),
            Just(':'),
            Just('\n'),
            Just('\u{1}'),
            Just('é'),
            Just('🎉'),
            any::<char>(),
            "[a-z]".prop_map(|s| s.chars().next().unwrap_or('a')),
        ],
        0..12,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn request_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Number),
        json_string().prop_map(RequestId::String),
    ]
}

/// JSON whitespace, possibly none.
fn ws() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![Just(' '), Just('\t'), Just('\n'), Just('\r')],
        0..3,
    )
    .prop_map(|c| c.into_iter().collect())
}

/// A plain response: `members` written in a random order with random
/// whitespace, the result compact or pretty.
fn response_text(
    id: &RequestId,
    result: &Value,
    pretty: bool,
    extra: Option<(&str, &Value)>,
    order: &[usize],
    spaces: &[String],
) -> String {
    let result = if pretty {
        serde_json::to_string_pretty(result).unwrap()
    } else {
        serde_json::to_string(result).unwrap()
    };
    let mut members = vec![
        ("\"jsonrpc\"".to_owned(), "\"2.0\"".to_owned()),
        (
            "\"id\"".to_owned(),
            serde_json::to_string(&id.to_value()).unwrap(),
        ),
        ("\"result\"".to_owned(), result),
    ];
    if let Some((k, v)) = extra {
        members.push((
            serde_json::to_string(k).unwrap(),
            serde_json::to_string(v).unwrap(),
        ));
    }
    let mut sp = spaces.iter().cycle();
    let mut out = String::new();
    out.push_str(sp.next().unwrap());
    out.push('{');
    for (n, &i) in order.iter().filter(|&&i| i < members.len()).enumerate() {
        if n > 0 {
            out.push(',');
        }
        let (k, v) = &members[i];
        out.push_str(sp.next().unwrap());
        out.push_str(k);
        out.push_str(sp.next().unwrap());
        out.push(':');
        out.push_str(sp.next().unwrap());
        out.push_str(v);
        out.push_str(sp.next().unwrap());
    }
    out.push('}');
    out.push_str(sp.next().unwrap());
    out
}

/// A valid message of any kind, as bytes: what mutations start from.
fn valid_message() -> impl Strategy<Value = Vec<u8>> {
    (
        request_id(),
        json_value(),
        json_string(),
        0u8..5,
        prop::collection::vec(ws(), 1..8),
    )
        .prop_map(|(id, v, s, kind, spaces)| match kind {
            0 => response_text(&id, &v, false, None, &[0, 1, 2], &spaces).into_bytes(),
            1 => response_text(&id, &v, true, Some((&s, &v)), &[2, 3, 1, 0], &spaces).into_bytes(),
            2 => serde_json::to_vec(&serde_json::json!({
                "jsonrpc": "2.0", "id": id.to_value(), "method": s, "params": {"p": v}
            }))
            .unwrap(),
            3 => serde_json::to_vec(&serde_json::json!({
                "jsonrpc": "2.0", "method": s, "params": v
            }))
            .unwrap(),
            _ => serde_json::to_vec(&serde_json::json!({
                "jsonrpc": "2.0", "id": id.to_value(),
                "error": {"code": -32000, "message": s, "data": v}
            }))
            .unwrap(),
        })
}

/// One edit of a message: the bytes and tokens a scanner is most likely
/// to get wrong, at a random place.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Replace(usize, u8),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let token = prop_oneof![
        prop::sample::select(&b"\"\\{}[],: \t\x00\x1f\xff\xc3\x800u-1e.tnf"[..])
            .prop_map(|b| vec![b]),
        prop::sample::select(vec![
            &br#""m\u0065thod":"ping","#[..],
            br#""res\u0075lt":2,"#,
            br#""result":3,"#,
            br#""error":{"code":1,"message":"m"},"#,
            br#""id":9,"#,
            br#""method":"x","#,
            br#""params":{},"#,
            br#""x":tru,"#,
            br#""x":"\xff","#,
            br#""\xff":1,"#,
            br#""a\"b":"c\\","#,
            br#""\\":"\\\\","#,
            b"\"x\":[}],",
            b"\"x\":[[[[[[[[[[[]]]]]]]]]]],",
            b"\"x\":-,",
        ])
        .prop_map(<[u8]>::to_vec),
    ];
    prop_oneof![
        (any::<usize>(), 1usize..4).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), token).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Replace(a, b)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len();
        match e {
            Edit::Delete(at, n) if len > 0 => {
                let at = at % len;
                bytes.drain(at..(at + n).min(len));
            }
            Edit::Insert(at, t) => {
                let at = at % (len + 1);
                bytes.splice(at..at, t.iter().copied());
            }
            Edit::Replace(at, b) if len > 0 => bytes[at % len] = *b,
            Edit::Truncate(at) => bytes.truncate(at % (len + 1)),
            _ => {}
        }
    }
    bytes
}

fn options(batch: bool) -> DecodeOptions {
    DecodeOptions { allow_batch: batch }
}

/// (c) and (d) on one input; panics (via prop_assert) on a disagreement.
fn agrees_with_full_decoder(bytes: &[u8], batch: bool) -> Result<(), TestCaseError> {
    let frame = Bytes::copy_from_slice(bytes);
    let fast = decode_frame(&frame, options(batch));
    let full = JsonRpcMessage::decode_with(bytes, options(batch));
    match fast {
        Ok(Decoded::Response { id, outcome }) => {
            // (d): never a request or notification taken for a response.
            prop_assert!(
                matches!(full, Ok(JsonRpcMessage::Response(_)) | Err(_)),
                "fast path took {:?} for a response: {:?}",
                String::from_utf8_lossy(bytes),
                full
            );
            let parsed = match &outcome {
                Ok(raw) => raw.to_value().ok().map(Ok),
                Err(e) => Some(Err(e.clone())),
            };
            // (c): a response whose result parses (or an error response)
            // is read the same way by the full decoder.
            if let Some(parsed) = parsed {
                prop_assert_eq!(
                    full,
                    Ok(JsonRpcMessage::Response(JsonRpcResponse {
                        id: Some(id),
                        outcome: parsed,
                    })),
                    "input {:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
            // Looking into a raw result never panics, whatever it holds.
            if let Ok(raw) = &outcome {
                let _ = raw.member("resultType");
                let _ = format!("{raw:?} {raw}");
            }
        }
        Ok(Decoded::Message(m)) => prop_assert_eq!(Ok(m), full),
        Err(e) => prop_assert_eq!(Err(e), full),
    }
    Ok(())
}

proptest! {
    /// (a) Arbitrary bytes: no panic, and the same answer as the full
    /// decoder.
    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        batch in any::<bool>(),
    ) {
        agrees_with_full_decoder(&bytes, batch)?;
    }

    /// (a), (c), (d) on valid messages of every kind, edited at random.
    #[test]
    fn edited_messages_agree_with_the_full_decoder(
        message in valid_message(),
        edits in prop::collection::vec(edit(), 0..4),
        batch in any::<bool>(),
    ) {
        let bytes = apply(message, &edits);
        agrees_with_full_decoder(&bytes, batch)?;
    }

    /// (b) A plain response, members in any order, any whitespace, an
    /// extra member or not: the id matches and the result parses back to
    /// the value sent.
    #[test]
    fn plain_responses_round_trip(
        id in request_id(),
        result in json_value(),
        extra in (json_string(), json_value()),
        with_extra in any::<bool>(),
        pretty in any::<bool>(),
        order in Just(vec![0usize, 1, 2, 3]).prop_shuffle(),
        spaces in prop::collection::vec(ws(), 1..8),
    ) {
        let extra_member = (with_extra
            && !["jsonrpc", "id", "result", "error", "method", "params"]
                .contains(&extra.0.as_str()))
        .then_some((extra.0.as_str(), &extra.1));
        let text = response_text(&id, &result, pretty, extra_member, &order, &spaces);
        // What the result means after one trip through JSON text (floats).
        let want: Value = serde_json::from_str(&serde_json::to_string(&result).unwrap()).unwrap();
        let decoded = decode_frame(&Bytes::from(text.clone()), DecodeOptions::default());
        match decoded {
            Ok(Decoded::Response { id: got, outcome: Ok(raw) }) => {
                // An escaped extra member name sends the message down the
                // full decoder instead; every other one is taken here.
                prop_assert_eq!(got, id);
                prop_assert_eq!(raw.to_value().ok(), Some(want));
            }
            Ok(Decoded::Message(JsonRpcMessage::Response(JsonRpcResponse {
                id: got,
                outcome: Ok(v),
            }))) => {
                prop_assert!(
                    extra_member.is_some_and(|(k, _)| serde_json::to_string(k).unwrap().contains('\\')),
                    "a plain response took the full decoder: {}", text
                );
                prop_assert_eq!(got, Some(id));
                prop_assert_eq!(v, want);
            }
            other => prop_assert!(false, "{text}: {other:?}"),
        }
        agrees_with_full_decoder(text.as_bytes(), false)?;
    }
}

/// Nesting far past serde_json's recursion limit (128), in the result, in
/// an unknown member and as the whole frame: no stack overflow, the
/// scanner is iterative, and the error surfaces where it belongs.
#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 1_000_000;
    let deep = "[".repeat(depth) + &"]".repeat(depth);
    let result = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{deep}}}"#);
    match decode_frame(&Bytes::from(result), DecodeOptions::default()) {
        Ok(Decoded::Response {
            id,
            outcome: Ok(raw),
        }) => {
            assert_eq!(id, RequestId::Number(1));
            assert!(
                raw.to_value().is_err(),
                "serde_json's limit applies at parse"
            );
            assert_eq!(raw.member("x"), None);
        }
        other => panic!("{other:?}"),
    }
    let unknown = format!(r#"{{"jsonrpc":"2.0","id":1,"result":1,"x":{deep}}}"#);
    agrees_with_full_decoder(unknown.as_bytes(), false).unwrap();
    let unclosed = "{\"a\":".to_owned() + &"[".repeat(depth);
    assert!(decode_frame(&Bytes::from(unclosed), DecodeOptions::default()).is_err());
    let frame = "[".repeat(depth) + &"]".repeat(depth);
    assert!(decode_frame(&Bytes::from(frame), options(true)).is_err());
}

/// A 16 MiB result: delimited in one pass, handed out without a copy.
#[test]
fn huge_result_is_a_slice_of_the_frame() {
    let big = "x".repeat(16 << 20);
    let text = format!(r#"{{"jsonrpc":"2.0","id":"big","result":{{"s":"{big}"}}}}"#);
    let frame = Bytes::from(text);
    let Ok(Decoded::Response {
        outcome: Ok(raw), ..
    }) = decode_frame(&frame, DecodeOptions::default())
    else {
        panic!("not a fast response")
    };
    assert_eq!(raw.as_bytes().len(), big.len() + 8);
    let start = raw.as_bytes().as_ptr() as usize - frame.as_ptr() as usize;
    assert_eq!(start, r#"{"jsonrpc":"2.0","id":"big","result":"#.len());
}

/// Edge inputs named in a review of the fast path, each checked against the
/// full decoder.
#[test]
fn edge_inputs_agree_with_the_full_decoder() {
    for text in [
        "",
        " ",
        "{",
        "}",
        "{}",
        "[]",
        "null",
        "1",
        r#"{"jsonrpc":"2.0","id":1,"result":1"#,
        r#"{"jsonrpc":"2.0","id":1,"result":12"#,
        r#"{"jsonrpc":"2.0","id":1,"result":"\\"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":"\\\"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":"a\\","x":"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":"[{\"]}"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"a":"}"},"b":"{"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"m\u0065thod":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"res\u0075lt":2}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"\u0065rror":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","i\u0064":2,"id":1,"result":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"x":tru}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"x":[}]}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"params":"\ud800"}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":null}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"x\":\"\u{1}\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"\u{1}\":0}",
        r#"{"jsonrpc":"2.0","id":-0,"result":1}"#,
        r#"{"jsonrpc":"2.0","id":1e2,"result":1}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775808,"result":1}"#,
        r#"{"jsonrpc":"2.0","id":"1","result":1}"#,
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}",
        "\u{c}{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}",
    ] {
        agrees_with_full_decoder(text.as_bytes(), false).unwrap();
    }
    for bytes in [
        &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"x\":\"\xff\"}"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"\xff\":1}",
        b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":1}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}",
        b"\xff",
    ] {
        agrees_with_full_decoder(bytes, false).unwrap();
    }
}

/// The documented nesting difference (raw.rs module docs): the limit
/// counts from the member, so one level more than the full decoder takes
/// is read; two levels more fail, at `parse` for a result.
#[test]
fn nesting_limit_counts_from_the_member() {
    let nested = |d: usize| "[".repeat(d) + &"]".repeat(d);
    let result = |d: usize| format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}}}"#, nested(d));
    assert!(JsonRpcMessage::decode(result(126).as_bytes()).is_ok());
    assert!(JsonRpcMessage::decode(result(127).as_bytes()).is_err());
    for (d, parses) in [(126, true), (127, true), (128, false)] {
        let Ok(Decoded::Response {
            outcome: Ok(raw), ..
        }) = decode_frame(&Bytes::from(result(d)), DecodeOptions::default())
        else {
            panic!("depth {d}: not a fast response")
        };
        assert_eq!(raw.to_value().is_ok(), parses, "depth {d}");
    }
}
