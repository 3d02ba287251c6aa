//! `RawResult::parse` (this crate's JSON deserializer) against
//! serde_json as the oracle: on any text, well formed or mangled, both
//! accept it or both refuse it, and what they accept they read as the same
//! value, number for number; typed parses (options, tagged enums, flatten,
//! defaults, unknown members) agree too.

mod common;

use std::collections::BTreeMap;

use bytes::Bytes;
use mcp_types::RawResult;
use mcp_types::tools::{CallToolResult, ListToolsResult};
use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    common::json_value(json_string)
}

/// Strings short and long (past the byte-by-byte scan), with what a
/// scanner must get right: quotes, backslashes, controls, non-ASCII.
fn json_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("\n".to_owned()),
        Just("\u{1f}".to_owned()),
        Just("é".to_owned()),
        Just("🎉".to_owned()),
        any::<char>().prop_map(String::from),
        "[a-z ]{0,40}",
    ];
    prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
}

/// Number texts serde_json reads in more than one way: `-0`, integers at
/// and past the `u64`/`i64` ends, exponents, and malformed ones.
fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-0".to_owned()),
        Just("-0.0".to_owned()),
        Just("18446744073709551615".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("-9223372036854775808".to_owned()),
        Just("-9223372036854775809".to_owned()),
        Just("1e400".to_owned()),
        Just("1E-400".to_owned()),
        Just("00".to_owned()),
        Just("1.e3".to_owned()),
        Just("+1".to_owned()),
        "-?[0-9]{1,25}(\\.[0-9]{0,20})?([eE][-+]?[0-9]{0,4})?",
    ]
}

/// Serde_json's verdict and ours on one text.
fn agree(text: &[u8]) -> Result<(), TestCaseError> {
    let ours = RawResult::new(Bytes::copy_from_slice(text)).parse::<Value>();
    // Our reading of a lone surrogate escape (U+FFFD) is serde_json's
    // reading of the text with those escapes rewritten as `\ufffd`.
    let theirs = serde_json::from_slice::<Value>(text).or_else(|e| {
        match mcp_types::lenient::replace_lone_surrogates(text) {
            Some(fixed) => serde_json::from_slice::<Value>(&fixed),
            None => Err(e),
        }
    });
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            prop_assert_eq!(a, b);
            // The same numbers, not just equal ones (-0, floats).
            prop_assert_eq!(a.to_string(), b.to_string());
        }
        (Err(_), Err(_)) => {}
        _ => prop_assert!(
            false,
            "disagree on {:?}: ours {:?}, serde_json {:?}",
            String::from_utf8_lossy(text),
            ours,
            theirs
        ),
    }
    Ok(())
}

/// Inserts whitespace between tokens of compact JSON (outside strings).
fn spaced(compact: &str, gaps: &[u8]) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in compact.chars().enumerate() {
        out.push(c);
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, ',' | ':' | '[' | '{') {
            out.push_str(match gaps.get(i % gaps.len().max(1)) {
                Some(0) => " ",
                Some(1) => "\n\t",
                Some(2) => "\r\n ",
                _ => "",
            });
        }
    }
    out
}

#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Shape {
    Circle {
        r: f64,
    },
    Label {
        text: String,
        #[serde(default)]
        tags: Vec<String>,
    },
}

#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Typed {
    name: String,
    count: Option<u32>,
    shapes: Vec<Shape>,
    #[serde(default)]
    flag: bool,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn well_formed_text_reads_the_same(v in json_value(), gaps in prop::collection::vec(0u8..4, 0..8)) {
        let compact = serde_json::to_string(&v).unwrap();
        agree(compact.as_bytes())?;
        agree(spaced(&compact, &gaps).as_bytes())?;
        agree(serde_json::to_string_pretty(&v).unwrap().as_bytes())?;
    }

    #[test]
    fn mangled_text_is_accepted_or_refused_alike(
        v in json_value(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..4),
    ) {
        let mut bytes = serde_json::to_vec(&v).unwrap();
        for (at, op, byte) in edits {
            const BYTES: &[u8] = b"\"\\{}[],:0-e.n \x01\x7fu";
            let byte = BYTES[usize::from(byte) % BYTES.len()];
            if bytes.is_empty() {
                bytes.push(byte);
                continue;
            }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => {
                    bytes.remove(i);
                }
            }
        }
        agree(&bytes)?;
    }

    /// Skipped values (an unknown member, `IgnoredAny`, a `RawValue`)
    /// are checked for grammar only, as serde_json skips them: mangled
    /// text, lone surrogates and big exponents get the same verdicts.
    #[test]
    fn skipped_values_are_accepted_or_refused_alike(
        v in json_value(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 0..4),
    ) {
        let mut bytes = serde_json::to_vec(&v).unwrap();
        for (at, op, byte) in edits {
            const BYTES: &[&[u8]] = &[
                b"\"", b"\\", b"{", b"}", b"[", b"]", b",", b":", b"0", b"-", b"e", b".",
                b"\\ud800", b"\\udc00", b"\\u12", b"1e400", b"\x01", b" ",
            ];
            let piece = BYTES[usize::from(byte) % BYTES.len()];
            let i = if bytes.is_empty() { 0 } else { at.index(bytes.len()) };
            match op {
                0 if !bytes.is_empty() => {
                    bytes.splice(i..=i, piece.iter().copied());
                }
                2 if !bytes.is_empty() => {
                    bytes.remove(i);
                }
                _ => {
                    bytes.splice(i..i, piece.iter().copied());
                }
            }
        }
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(());
        };
        #[derive(Debug, serde::Deserialize)]
        struct Known {
            #[allow(dead_code)]
            a: u8,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Raw {
            raw: Box<serde_json::value::RawValue>,
        }
        let member = format!("{{\"a\":1,\"x\":{text}}}");
        let raw = format!("{{\"raw\":{text}}}");
        let parse = |t: &str| RawResult::new(Bytes::copy_from_slice(t.as_bytes()));
        prop_assert_eq!(
            parse(&member).parse::<Known>().is_ok(),
            serde_json::from_str::<Known>(&member).is_ok(),
            "{}", member
        );
        prop_assert_eq!(
            parse(&text).parse::<serde::de::IgnoredAny>().is_ok(),
            serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok(),
            "{}", text
        );
        prop_assert_eq!(
            parse(&raw).parse::<Raw>().ok().map(|r| r.raw.get().to_owned()),
            serde_json::from_str::<Raw>(&raw).ok().map(|r| r.raw.get().to_owned()),
            "{}", raw
        );
    }

    #[test]
    fn numbers_read_the_same(n in number_text(), wrap in 0u8..3) {
        let text = match wrap {
            0 => n.clone(),
            1 => format!("[{n}]"),
            _ => format!("{{\"n\":{n}}}"),
        };
        agree(text.as_bytes())?;
    }

    #[test]
    fn escapes_read_the_same(units in prop::collection::vec(any::<u16>(), 1..4), prefix in "[a-z]{0,20}") {
        // Every \uXXXX sequence, surrogates (paired or lone) included.
        let escapes: String = units.iter().map(|u| format!("\\u{u:04x}")).collect();
        agree(format!("\"{prefix}{escapes}\"").as_bytes())?;
        agree(format!("\"{escapes}{prefix}\"").as_bytes())?;
    }

    #[test]
    fn typed_parses_agree(
        name in json_string(),
        count in prop::option::of(any::<u32>()),
        texts in prop::collection::vec(json_string(), 0..3),
        extra in prop::collection::btree_map("[a-z]{1,5}", json_value(), 0..3),
        bad_count in any::<bool>(),
    ) {
        let mut obj = serde_json::Map::new();
        obj.insert("name".into(), Value::from(name));
        if let Some(c) = count {
            obj.insert("count".into(), if bad_count { Value::from(-1) } else { Value::from(c) });
        }
        let shapes: Vec<Value> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| if i % 2 == 0 {
                serde_json::json!({"kind": "label", "text": t})
            } else {
                serde_json::json!({"kind": "circle", "r": i})
            })
            .collect();
        obj.insert("shapes".into(), Value::from(shapes));
        for (k, v) in extra {
            obj.entry(k).or_insert(v);
        }
        let text = serde_json::to_vec(&Value::Object(obj)).unwrap();
        let raw = RawResult::new(Bytes::from(text.clone()));
        let ours = raw.parse::<Typed>();
        let theirs = serde_json::from_slice::<Typed>(&text);
        prop_assert_eq!(ours.as_ref().ok(), theirs.as_ref().ok(), "{:?} / {:?}", ours, theirs);
        prop_assert_eq!(
            raw.parse::<CallToolResult>().ok(),
            serde_json::from_slice::<CallToolResult>(&text).ok()
        );
    }
}

#[test]
fn mcp_results_read_the_same() {
    let call = br#"{"content":[{"type":"text","text":"a\"b\u00e9"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"n":-0,"big":18446744073709551616},"isError":false,"_meta":{"k":1}}"#;
    let raw = RawResult::new(Bytes::from_static(call));
    assert_eq!(
        raw.parse::<CallToolResult>().unwrap(),
        serde_json::from_slice::<CallToolResult>(call).unwrap()
    );
    let list = br#"{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"number","minimum":1.5}}},"annotations":{"readOnlyHint":true}}],"nextCursor":"c"}"#;
    let raw = RawResult::new(Bytes::from_static(list));
    assert_eq!(
        raw.parse::<ListToolsResult>().unwrap(),
        serde_json::from_slice::<ListToolsResult>(list).unwrap()
    );
}
