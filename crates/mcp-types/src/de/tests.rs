//! The deserializer against serde_json on values, refusals, nesting,
//! typed paths and lone surrogates.

use super::*;
use serde_json::{Value, json};

fn both(text: &str) -> (Result<Value, Error>, Result<Value, Error>) {
    (from_str::<Value>(text), serde_json::from_str::<Value>(text))
}

#[test]
fn agrees_with_serde_json_on_values() {
    for text in [
        r#"{"a":1,"b":[true,false,null],"c":"x\"y\\z\u00e9\ud83d\ude00","d":-0,"e":1.5e3}"#,
        "  [ ]  ",
        "{}",
        "-0",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "1e308",
        "0.1",
        r#""\/\b\f\n\r\t""#,
        r#""é😀 plain""#,
    ] {
        let (ours, theirs) = both(text);
        let (ours, theirs) = (ours.unwrap(), theirs.unwrap());
        assert_eq!(ours, theirs, "{text}");
        // -0 and friends: compare the exact numbers too.
        assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
    }
}

/// serde_json refuses lone surrogate escapes in a string; we read each
/// as U+FFFD, as `JSON.parse` does, and keep pairs.
#[test]
fn lone_surrogates_read_as_replacement_characters() {
    for (text, want) in [
        ("\"\\ud800\"", "\u{fffd}"),
        ("\"\\udc00x\"", "\u{fffd}x"),
        ("\"\\ud800\\u0041\"", "\u{fffd}A"),
        ("\"\\ud83d\\ud83d\\ude00\"", "\u{fffd}\u{1f600}"),
        ("\"a\\ud83d\"", "a\u{fffd}"),
        ("\"\\ud83d\\n\"", "\u{fffd}\n"),
        ("\"\\ud83d\\ude00\\udc00\"", "\u{1f600}\u{fffd}"),
    ] {
        assert!(serde_json::from_str::<String>(text).is_err(), "{text}");
        assert_eq!(from_str::<String>(text).unwrap(), want, "{text}");
        let value: serde_json::Value = from_str(text).unwrap();
        assert_eq!(value, want, "{text}");
    }
    // A broken second escape is still refused.
    assert!(from_str::<String>("\"\\ud800\\u12\"").is_err());
}

#[test]
fn refuses_what_serde_json_refuses() {
    for text in [
        "",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\" 1}",
        "{1:2}",
        "\"\\x\"",
        "\"a\u{1}b\"",
        "\"unterminated",
        "1e400",
        "01",
        "1.",
        "-",
        "nul",
        "truex",
        "[1] 2",
        "[",
        "{\"a\":1",
    ] {
        let (ours, theirs) = both(text);
        assert!(theirs.is_err(), "serde_json takes {text:?}");
        assert!(ours.is_err(), "we take {text:?}: {ours:?}");
    }
}

#[test]
fn a_control_character_past_the_short_scan_is_refused_with_its_offset() {
    let text = format!("\"{}\u{7}{}\"", "a".repeat(100), "b".repeat(100));
    let e = from_str::<String>(&text).unwrap_err();
    assert!(e.to_string().contains("control character"), "{e}");
    assert!(e.to_string().ends_with("at byte 101"), "{e}");
}

#[test]
fn long_strings_with_escapes_decode() {
    let s = format!(
        "{}\"\\{}\n{}",
        "x".repeat(70),
        "y".repeat(40),
        "é".repeat(50)
    );
    let text = serde_json::to_string(&s).unwrap();
    assert_eq!(from_str::<String>(&text).unwrap(), s);
}

#[test]
fn unescaped_strings_are_borrowed() {
    let text = r#"{"k":"borrowed"}"#;
    #[derive(serde::Deserialize)]
    struct B<'a> {
        #[serde(borrow)]
        k: &'a str,
    }
    assert_eq!(from_str::<B<'_>>(text).unwrap().k, "borrowed");
}

#[test]
fn nesting_is_limited_like_serde_json() {
    let ok = format!("{}{}", "[".repeat(127), "]".repeat(127));
    let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
    assert!(from_str::<Value>(&ok).is_ok());
    assert!(serde_json::from_str::<Value>(&ok).is_ok());
    let e = from_str::<Value>(&deep).unwrap_err();
    assert!(e.to_string().contains("recursion limit"), "{e}");
    assert!(serde_json::from_str::<Value>(&deep).is_err());
    // A very deep text fails without exhausting the stack.
    let huge = "[".repeat(1_000_000);
    assert!(from_str::<Value>(&huge).is_err());
}

#[test]
fn typed_errors_carry_the_offset() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct T {
        n: u8,
    }
    let e = from_str::<T>(r#"{"n":300}"#).unwrap_err();
    assert!(e.to_string().contains("300"), "{e}");
    assert!(e.to_string().contains("at byte"), "{e}");
    let e = from_str::<T>(r#"{"m":1}"#).unwrap_err();
    assert!(e.to_string().starts_with("missing field `n`"), "{e}");
}

#[test]
fn enums_options_keys_and_raw_values() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    enum E {
        Unit,
        New(u32),
        Tuple(u8, u8),
        Struct { a: bool },
    }
    let v: Vec<E> =
        from_str(r#"["Unit",{"New":7},{"Tuple":[1,2]},{"Struct":{"a":true}},{"Unit":null}]"#)
            .unwrap();
    assert_eq!(
        v,
        [
            E::Unit,
            E::New(7),
            E::Tuple(1, 2),
            E::Struct { a: true },
            E::Unit
        ]
    );
    let o: Vec<Option<u8>> = from_str("[null, 3]").unwrap();
    assert_eq!(o, [None, Some(3)]);
    let m: std::collections::BTreeMap<u32, bool> = from_str(r#"{"1":true,"20":false}"#).unwrap();
    assert_eq!(m.into_iter().collect::<Vec<_>>(), [(1, true), (20, false)]);
    assert!(from_str::<std::collections::BTreeMap<u32, bool>>(r#"{"x":true}"#).is_err());
    #[derive(serde::Deserialize)]
    struct R {
        raw: Box<serde_json::value::RawValue>,
        after: u8,
    }
    let r: R = from_str(r#"{"raw": {"x": [1, "two"]} ,"after":5}"#).unwrap();
    assert_eq!(r.raw.get(), r#"{"x": [1, "two"]}"#);
    assert_eq!(r.after, 5);
    assert_eq!(
        from_str::<Value>(&json!({"k": [1, 2]}).to_string()).unwrap(),
        json!({"k": [1, 2]})
    );
}
