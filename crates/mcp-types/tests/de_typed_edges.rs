//! `RawResult::parse` against serde_json on the typed paths where a
//! deserializer can go its own way: each serde method's own rules (not
//! just `deserialize_any`), ignored members, `RawValue`, byte strings,
//! map keys read as numbers or booleans, 128-bit integers, `f32`.
//! Every case must get serde_json's verdict and value.

use std::collections::BTreeMap;
use std::fmt::{self, Debug};

use bytes::Bytes;
use mcp_types::RawResult;
use mcp_types::tools::{CallToolResult, ListToolsResult};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// Ours and serde_json's results on `text` as `T`: both `Ok` with the same
/// value (by `Debug`, so `-0.0` and NaN-free floats compare exactly), or
/// both `Err`.
fn same<T: DeserializeOwned + Debug>(text: &str) {
    let ours = RawResult::new(Bytes::copy_from_slice(text.as_bytes())).parse::<T>();
    // Lone surrogate escapes read as U+FFFD: compare with serde_json on
    // the text with them rewritten.
    let theirs = serde_json::from_str::<T>(text).or_else(|e| {
        match mcp_types::lenient::replace_lone_surrogates(text.as_bytes()) {
            Some(fixed) => serde_json::from_slice::<T>(&fixed),
            None => Err(e),
        }
    });
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(
            format!("{a:?}"),
            format!("{b:?}"),
            "{text:?} as {}",
            std::any::type_name::<T>()
        ),
        (Err(_), Err(_)) => {}
        _ => panic!(
            "{text:?} as {}: ours {ours:?}, serde_json {theirs:?}",
            std::any::type_name::<T>()
        ),
    }
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Known {
    a: u8,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Strict {
    a: u8,
}

/// Unknown members are skipped the way serde_json skips them: strings with
/// lone surrogates, numbers out of range and nesting past the limit are
/// all fine there (only the grammar is checked).
#[test]
fn ignored_members_are_checked_for_grammar_only() {
    let deep = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
    let deep_obj = format!("{}1{}", "{\"k\":".repeat(3000), "}".repeat(3000));
    for extra in [
        r#""\ud800""#,
        r#""\udc00\ud800x""#,
        r#"{"\ud800":1}"#,
        "1e400",
        "-1e400",
        "123456789012345678901234567890e999",
        "[1e999,{\"x\":\"\\udfff\"}]",
        &deep,
        &deep_obj,
        // Refused by both: grammar.
        "01",
        "1.",
        "1e",
        "-",
        r#""\x""#,
        r#""\u12""#,
        "\"a\u{1}\"",
        "[1,]",
        "{\"a\":1,}",
        "[,1]",
        "{,}",
        "{1:2}",
        "{\"a\" 1}",
        "nul",
        "[",
        "{\"a\":[}",
        "[1 2]",
    ] {
        let text = format!("{{\"a\":1,\"extra\":{extra}}}");
        same::<Known>(&text);
        same::<Strict>(&text);
        same::<de::IgnoredAny>(extra);
        same::<Vec<de::IgnoredAny>>(&format!("[{extra}]"));
        same::<CallToolResult>(&format!("{{\"content\":[],\"extra\":{extra}}}"));
        same::<ListToolsResult>(&format!("{{\"tools\":[],\"extra\":{extra}}}"));
    }
}

/// A `RawValue` holds whatever serde_json's skipping takes: lone
/// surrogates, out-of-range numbers, nesting past the limit.
#[test]
fn raw_values_take_what_serde_json_takes() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct R {
        raw: Box<RawValue>,
    }
    let deep = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
    for raw in [r#""\ud800""#, "1e400", " [ 1e999 ] ", &deep, "01", "[1,]"] {
        same::<R>(&format!("{{\"raw\":{raw}}}"));
        same::<Box<RawValue>>(raw);
    }
}

/// 128-bit integers are read as serde_json reads them: the digits
/// themselves, past `u64`/`i64`, and no fractions or exponents.
#[test]
fn i128_and_u128_are_read_digit_for_digit() {
    for n in [
        "0",
        "-0",
        "18446744073709551616",
        "-9223372036854775809",
        "170141183460469231731687303715884105727",
        "-170141183460469231731687303715884105728",
        "170141183460469231731687303715884105728",
        "340282366920938463463374607431768211455",
        "340282366920938463463374607431768211456",
        "-1",
        "1.0",
        "1e2",
        "01",
        "\"5\"",
        "null",
    ] {
        same::<i128>(n);
        same::<u128>(n);
        same::<Vec<i128>>(&format!("[{n}]"));
        same::<BTreeMap<String, u128>>(&format!("{{\"k\":{n}}}"));
        let key = n.trim_matches('"');
        same::<BTreeMap<i128, u8>>(&format!("{{\"{key}\":1}}"));
        same::<BTreeMap<u128, u8>>(&format!("{{\"{key}\":1}}"));
    }
}

/// Map keys read as numbers or booleans: the key's own characters, no
/// escapes or whitespace around them.
#[test]
fn number_and_bool_keys_are_read_like_serde_json() {
    for key in [
        "1",
        "-1",
        "0",
        "-0",
        " 1",
        "1 ",
        "\\u0031",
        "1x",
        "01",
        "1.5",
        "1e3",
        "1e400",
        "",
        "-",
        "true",
        "false",
        " true",
        "true ",
        "tru",
        "null",
        "\\u0074rue",
        "300",
    ] {
        let text = format!("{{\"{key}\":7}}");
        same::<BTreeMap<u8, u8>>(&text);
        same::<BTreeMap<i64, u8>>(&text);
        same::<BTreeMap<u64, u8>>(&text);
        same::<BTreeMap<bool, u8>>(&text);
        same::<BTreeMap<String, u8>>(&text);
        same::<std::collections::HashMap<i32, u8>>(&text);
        same::<Vec<(f64, u8)>>(&format!("[[{key},7]]"));
    }
    // Float keys (no Ord: read into a Vec of pairs).
    #[derive(Debug)]
    #[allow(dead_code)] // read through Debug
    struct Pairs(Vec<(f64, f32)>);
    impl<'de> Deserialize<'de> for Pairs {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Pairs;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a map")
                }
                fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Pairs, A::Error> {
                    let mut out = Vec::new();
                    while let Some(k) = m.next_key::<f64>()? {
                        out.push((k, m.next_value()?));
                    }
                    Ok(Pairs(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    for key in [
        "1.5",
        "-0",
        "1e3",
        "1e400",
        " 1",
        "x",
        "1.0000000596046447753906250000000001",
    ] {
        same::<Pairs>(&format!(
            "{{\"{key}\":1.0000000596046447753906250000000001}}"
        ));
    }
}

/// `f32` is read the way serde_json reads it for `f32` (with
/// `float_roundtrip`, straight to single precision, not through `f64`).
#[test]
fn f32_is_rounded_like_serde_json() {
    for n in [
        "1.0000000596046447753906250000000001",
        "1.00000005960464477539062499999",
        "3.4028235677973366e38",
        "1e-46",
        "-0",
        "0.1",
    ] {
        same::<f32>(n);
        same::<Vec<f32>>(&format!("[{n}]"));
        same::<(f32, f64)>(&format!("[{n},{n}]"));
    }
}

/// A visitor that takes anything, behind each typed method: serde_json
/// refuses the values a method is not for (a number asked for as a
/// string, ...), and so must we.
#[derive(Debug)]
struct Any<const M: u8>(String);

impl<'de, const M: u8> Deserialize<'de> for Any<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const M: u8>;
        impl<'de, const M: u8> Visitor<'de> for V<M> {
            type Value = Any<M>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Any<M>, E> {
                Ok(Any(format!("bool {v}")))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Any<M>, E> {
                Ok(Any(format!("i64 {v}")))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Any<M>, E> {
                Ok(Any(format!("u64 {v}")))
            }
            fn visit_i128<E>(self, v: i128) -> Result<Any<M>, E> {
                Ok(Any(format!("i128 {v}")))
            }
            fn visit_u128<E>(self, v: u128) -> Result<Any<M>, E> {
                Ok(Any(format!("u128 {v}")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Any<M>, E> {
                Ok(Any(format!("f64 {v:?}")))
            }
            fn visit_f32<E>(self, v: f32) -> Result<Any<M>, E> {
                Ok(Any(format!("f32 {v:?}")))
            }
            fn visit_str<E>(self, v: &str) -> Result<Any<M>, E> {
                Ok(Any(format!("str {v:?}")))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Any<M>, E> {
                Ok(Any(format!("bytes {v:?}")))
            }
            fn visit_unit<E>(self) -> Result<Any<M>, E> {
                Ok(Any("unit".into()))
            }
            fn visit_none<E>(self) -> Result<Any<M>, E> {
                Ok(Any("none".into()))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Any<M>, D::Error> {
                Ok(Any(format!("some {:?}", Value::deserialize(d)?)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut s: A) -> Result<Any<M>, A::Error> {
                let mut n = 0;
                while s.next_element::<Value>()?.is_some() {
                    n += 1;
                }
                Ok(Any(format!("seq of {n}")))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Any<M>, A::Error> {
                let mut n = 0;
                while m.next_entry::<String, Value>()?.is_some() {
                    n += 1;
                }
                Ok(Any(format!("map of {n}")))
            }
        }
        match M {
            0 => d.deserialize_bool(V),
            1 => d.deserialize_u64(V),
            2 => d.deserialize_f32(V),
            3 => d.deserialize_i128(V),
            4 => d.deserialize_str(V),
            5 => d.deserialize_char(V),
            6 => d.deserialize_bytes(V),
            7 => d.deserialize_unit(V),
            8 => d.deserialize_seq(V),
            9 => d.deserialize_map(V),
            10 => d.deserialize_struct("S", &["a"], V),
            11 => d.deserialize_identifier(V),
            12 => d.deserialize_option(V),
            13 => d.deserialize_tuple(2, V),
            14 => d.deserialize_unit_struct("U", V),
            15 => d.deserialize_byte_buf(V),
            _ => d.deserialize_any(V),
        }
    }
}

macro_rules! every_method {
    ($text:expr, $($m:literal)*) => {$(
        same::<Any<$m>>($text);
        same::<Vec<Any<$m>>>(&format!("[{}]", $text));
        same::<BTreeMap<String, Any<$m>>>(&format!("{{\"k\":{}}}", $text));
    )*};
}

#[test]
fn each_method_takes_only_its_own_values() {
    for text in [
        "true",
        "false",
        "null",
        "7",
        "-7",
        "1.5",
        "18446744073709551616",
        "\"s\"",
        "\"x\\n\"",
        "[]",
        "[1,2]",
        "{}",
        "{\"a\":1}",
        "\"\\ud800\"",
        "\"a\u{1}b\"",
        "\"\\ud800\\ud800\\udc00\"",
        "\"\\ud800\\n\"",
        "\"\\udc00\"",
        "\"\\ud800\\u0041\"",
        "\"\\ud800\\x\"",
        "\"\\u00e9\u{7f}\"",
        "nul",
        "tru",
    ] {
        every_method!(text, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    }
    // Keys, through each method.
    for key in ["a", "1", "true", "\\ud800", "x\u{1}"] {
        let text = format!("{{\"{key}\":1}}");
        same::<KeyAs<0>>(&text);
        same::<KeyAs<1>>(&text);
        same::<KeyAs<2>>(&text);
        same::<KeyAs<3>>(&text);
        same::<KeyAs<4>>(&text);
        same::<KeyAs<6>>(&text);
        same::<KeyAs<11>>(&text);
        same::<KeyAs<15>>(&text);
        same::<KeyAs<16>>(&text);
    }
}

/// The first member name of an object, read through `Any<M>`.
#[derive(Debug)]
#[allow(dead_code)] // read through Debug
struct KeyAs<const M: u8>(Vec<String>);

impl<'de, const M: u8> Deserialize<'de> for KeyAs<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const M: u8>;
        impl<'de, const M: u8> Visitor<'de> for V<M> {
            type Value = KeyAs<M>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<KeyAs<M>, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = m.next_key::<Any<M>>()? {
                    m.next_value::<de::IgnoredAny>()?;
                    out.push(k.0);
                }
                Ok(KeyAs(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Enums: externally tagged struct variants take the array form too, and
/// variant names go through the deserializer itself.
#[test]
fn enums_read_like_serde_json() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum E {
        Unit,
        New(u8),
        Tuple(u8, u8),
        Struct { a: bool },
    }
    for text in [
        r#"{"Struct":[true]}"#,
        r#"{"Struct":{"a":true}}"#,
        r#"{"Tuple":[1,2]}"#,
        r#"{"Tuple":[1,2,3]}"#,
        r#"{"Unit":null}"#,
        r#"{"Unit":[]}"#,
        r#""Unit""#,
        r#""New""#,
        r#""Str\u0075ct""#,
        r#"{"New":1,"Unit":null}"#,
        r#"{1:2}"#,
        r#"{"Nope":1}"#,
        r#"{}"#,
        r#"[]"#,
        "7",
    ] {
        same::<E>(text);
        same::<Vec<E>>(&format!("[{text}]"));
        same::<BTreeMap<String, E>>(&format!("{{\"k\":{text}}}"));
    }
    #[derive(Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
    enum K {
        A,
        B,
    }
    for text in [r#"{"A":1,"B":2}"#, r#"{"C":1}"#, r#"{"\u0041":1}"#] {
        same::<BTreeMap<K, u8>>(text);
    }
}

/// Nested deeply through every recursive path: refused past serde_json's
/// limit alike, and never a stack overflow (this runs on a test thread's
/// small stack).
#[test]
fn deep_nesting_through_typed_paths() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum E {
        A(Box<E>),
        B,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct N {
        n: Option<Box<N>>,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    #[serde(untagged)]
    enum U {
        L(Vec<U>),
        S(String),
    }
    for depth in [100, 126, 127, 128, 129, 5000] {
        same::<E>(&format!(
            "{}\"B\"{}",
            "{\"A\":".repeat(depth),
            "}".repeat(depth)
        ));
        same::<N>(&format!(
            "{}null{}",
            "{\"n\":".repeat(depth),
            "}".repeat(depth)
        ));
        same::<U>(&format!("{}\"s\"{}", "[".repeat(depth), "]".repeat(depth)));
        same::<Value>(&format!(
            "{}{}",
            "{\"k\":[".repeat(depth / 2),
            "]}".repeat(depth / 2)
        ));
    }
}
