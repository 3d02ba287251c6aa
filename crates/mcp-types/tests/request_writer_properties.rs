//! Properties of the request writer: `RequestBody::to_vec`
//! writes what `with_params_meta` + `JsonRpcMessage::to_vec` write, and
//! `JsonRpcMessage::to_vec` (its own string escaper, 32-byte blocks) is
//! byte for byte serde_json's output.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use mcp_types::RequestBody;
use mcp_types::with_params_meta;
use mcp_types::{JsonRpcMessage, JsonRpcRequest, RequestId};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Keys that sort around `_meta` (`^` < `_` < `` ` `` < `a`), `_meta`
/// itself, prefixes and extensions of it, unicode.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "_meta",
            "_met",
            "_meta_",
            "_metA",
            "_Meta",
            "^",
            "_",
            "`",
            "a",
            "Z",
            "",
            "progressToken",
            "é",
            "日本",
            "🎉",
            "a\"b",
            "\\",
        ])
        .prop_map(str::to_owned),
        any::<String>(),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(key(), value(), 0..5).prop_map(|m| m.into_iter().collect())
}

/// Params: absent, an object whose `_meta` is absent, an object or not an
/// object, or params that are not an object at all.
fn params() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        object().prop_map(|o| Some(Value::Object(o))),
        (object(), object()).prop_map(|(mut o, meta)| {
            o.insert("_meta".into(), Value::Object(meta));
            Some(Value::Object(o))
        }),
        (object(), scalar()).prop_map(|(mut o, meta)| {
            o.insert("_meta".into(), meta);
            Some(Value::Object(o))
        }),
        scalar().prop_map(Some),
        prop::collection::vec(value(), 0..3).prop_map(|a| Some(Value::Array(a))),
    ]
}

fn request_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Number),
        any::<String>().prop_map(RequestId::String),
    ]
}

proptest! {
    /// `RequestBody` writes exactly what building the message with
    /// `with_params_meta` (defaults where absent, overrides in order, the
    /// last of a repeated key winning) writes, and the output is JSON.
    #[test]
    fn request_body_matches_with_params_meta(
        id in request_id(),
        method in any::<String>(),
        params in params(),
        defaults in prop::option::of(object()),
        overrides in prop::collection::vec(
            (prop_oneof![prop::sample::select(vec!["progressToken", "_meta", "é"]).prop_map(str::to_owned), key()], value()),
            0..4,
        ),
    ) {
        let overrides: Vec<(&str, Value)> =
            overrides.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let body = RequestBody {
            id: &id,
            method: &method,
            params: params.as_ref(),
            meta_defaults: defaults.as_ref(),
            meta_overrides: &overrides,
        }
        .to_vec();
        let merge = defaults.as_ref().is_some_and(|d| !d.is_empty()) || !overrides.is_empty();
        let expected_params = if merge {
            Some(
                with_params_meta(params.clone(), |meta| {
                    for (k, v) in defaults.iter().flatten() {
                        meta.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                    for (k, v) in &overrides {
                        meta.insert((*k).to_owned(), v.clone());
                    }
                })
                .unwrap_or_else(|other| other),
            )
        } else {
            params.clone()
        };
        let expected = JsonRpcMessage::Request(JsonRpcRequest {
            id: id.clone(),
            method: method.clone(),
            params: expected_params,
        });
        prop_assert_eq!(
            String::from_utf8(body.clone()).unwrap(),
            String::from_utf8(expected.to_vec()).unwrap()
        );
        prop_assert_eq!(JsonRpcMessage::decode(&body), Ok(expected));
    }

    /// Any string, as a method, a key, a string id and a value: the
    /// writer's bytes are serde_json's.
    #[test]
    fn strings_are_written_as_serde_json_writes_them(
        s in prop_oneof![
            any::<String>(),
            prop::collection::vec(
                prop_oneof![
                    (0u8..0x20).prop_map(char::from),
                    Just('"'),
                    Just('\\'),
                    Just('\u{7f}'),
                    Just('é'),
                    Just('\u{2028}'),
                    Just('🎉'),
                    Just('a'),
                ],
                0..80,
            )
            .prop_map(|c| c.into_iter().collect::<String>()),
        ],
    ) {
        check_string(&s)?;
    }

    /// Strings of every length around the 32-byte block, with one byte
    /// that needs an escape (or none) at any position.
    #[test]
    fn every_length_around_the_block_boundary(
        len in 0usize..200,
        at in any::<prop::sample::Index>(),
        // The bytes that need an escape, and their neighbours that do not
        // (0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F), at any place in one to
        // three 64-byte blocks of the escape scan.
        special in prop::sample::select(vec![
            None, Some('"'), Some('\\'), Some('\n'), Some('\u{0}'), Some('\u{1f}'), Some('é'),
            Some(' '), Some('!'), Some('#'), Some('['), Some(']'), Some('\u{7f}'),
        ]),
    ) {
        let mut chars: Vec<char> = vec!['x'; len];
        if let (Some(c), false) = (special, chars.is_empty()) {
            chars[at.index(len)] = c;
        }
        check_string(&chars.into_iter().collect::<String>())?;
    }
}

fn check_string(s: &str) -> Result<(), TestCaseError> {
    let message = JsonRpcMessage::Request(JsonRpcRequest {
        id: RequestId::String(s.to_owned()),
        method: s.to_owned(),
        params: Some(serde_json::json!({ s: s, "a": [s] })),
    });
    prop_assert_eq!(
        String::from_utf8(message.to_vec()).unwrap(),
        serde_json::to_string(&message).unwrap()
    );
    let mut meta = Map::new();
    meta.insert(s.to_owned(), Value::from(s));
    let body = RequestBody {
        id: &RequestId::Number(1),
        method: s,
        params: None,
        meta_defaults: Some(&meta),
        meta_overrides: &[],
    }
    .to_vec();
    let want = JsonRpcRequest {
        id: RequestId::Number(1),
        method: s.to_owned(),
        params: Some(serde_json::json!({"_meta": {s: s}})),
    };
    prop_assert_eq!(
        String::from_utf8(body).unwrap(),
        serde_json::to_string(&want).unwrap()
    );
    Ok(())
}

/// A `_meta` key given twice as an override is written once, the last
/// value winning (as two `insert`s into the map would leave it).
#[test]
fn a_repeated_override_is_written_once() {
    let overrides = [
        ("progressToken", Value::from(1)),
        ("progressToken", Value::from(2)),
    ];
    let body = RequestBody {
        id: &RequestId::Number(1),
        method: "m",
        params: None,
        meta_defaults: None,
        meta_overrides: &overrides,
    }
    .to_vec();
    assert_eq!(
        String::from_utf8(body).unwrap(),
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"progressToken":2}}}"#
    );
}
