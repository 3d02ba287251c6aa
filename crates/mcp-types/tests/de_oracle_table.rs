//! The typed decoder's fuzz oracle (`de_oracle`: `RawResult::parse`
//! against `serde_json::from_slice`) over a fixed table of texts, each read
//! as every type the fuzz target chooses from, so that CI runs the same
//! comparison the fuzzer does.

mod de_oracle;

/// Texts that reach each path of the deserializer: every kind of value,
/// MCP results, strings with escapes and lone surrogates, numbers at the
/// edges, map keys as numbers and booleans, enums of each shape, and
/// malformed text of each kind.
const TEXTS: &[&str] = &[
    // Values of each kind.
    "null",
    "true",
    "false",
    "0",
    "-0",
    "255",
    "256",
    "-129",
    "1.5e3",
    "18446744073709551616",
    "-170141183460469231731687303715884105729",
    "340282366920938463463374607431768211455",
    "3.4028235677973366e38",
    "1e400",
    r#""x""#,
    r#""ab""#,
    r#""\u00e9\ud83d\ude00\n\"\\\/""#,
    r#""\b\f\n\r\t\"\\\/\u0000\u001f""#,
    r#"["\ud83d\u0041","\ud83d\n","a\ud83d"]"#,
    r#""\ud800""#,
    r#""\udc00x\ud83d""#,
    "[]",
    "[1,2]",
    r#"[1,"a",null]"#,
    "{}",
    r#"{"a":1}"#,
    r#"{"a":300}"#,
    r#"{"1":true,"-2":false}"#,
    r#"{"true":1,"false":2}"#,
    r#"{"a":1,"a":2}"#,
    // MCP results.
    r#"{"content":[{"type":"text","text":"hi"}],"isError":false}"#,
    r#"{"content":[{"text":"late tag","type":"text"}],"structuredContent":{"n":-0.0}}"#,
    r#"{"content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"future","x":1}]}"#,
    r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"c"}"#,
    r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}"#,
    r#"{"type":"text","text":"\ud800 lone","_meta":{"k":[1e999]}}"#,
    r#"[{"type":"text","text":"a"},{"type":7}]"#,
    // Typed paths.
    r#"{"u":7,"i":-170141183460469231731687303715884105728,"w":1,"f":0.1,"d":-0,"c":"é","t":[1,"s"],"unit":null,"e":"Unit"}"#,
    r#"{"e":{"New":-5}}"#,
    r#"{"e":{"Tuple":[1,-1]}}"#,
    r#"{"e":{"Struct":{"a":true}}}"#,
    r#"["Unit",{"New":1},{"Tuple":[255,-128]},{"Struct":{"a":false}}]"#,
    r#"[{"Unit":null}]"#,
    r#"[{"New":1,"x":2}]"#,
    r#"{"c":"ab"}"#,
    r#"{"u":1.0}"#,
    r#"{"a":1,"extra":{"deep":["\ud800",1e999,{"\udc00":null}]}}"#,
    r#"[{"k":1},2,"three",[4]]"#,
    // Malformed: each kind.
    "",
    " ",
    "[1,]",
    "[,1]",
    r#"{"a":1,}"#,
    "{1:2}",
    r#"{"a" 1}"#,
    "[1 2]",
    r#""\x""#,
    r#""\u12""#,
    "\"a\u{1}b\"",
    "\"unterminated",
    "01",
    "1.",
    "1e",
    "-",
    "+1",
    "nul",
    "truex",
    "[1] 2",
    "[",
    r#"{"a":[}"#,
    // Malformed inside a member that is skipped, not read.
    r#"{"a":1,"x":01}"#,
    r#"{"a":1,"x":1.}"#,
    r#"{"a":1,"x":-}"#,
    r#"{"a":1,"x":"\x"}"#,
    r#"{"a":1,"x":[1,]}"#,
    r#"{"a":1,"x":{"k" 1}}"#,
    r#"{"a":1,"x":tru}"#,
];

#[test]
fn the_oracle_holds_on_every_text_as_every_type() {
    for text in TEXTS {
        for pick in 0..de_oracle::TYPES {
            let mut input = vec![pick];
            input.extend_from_slice(text.as_bytes());
            de_oracle::check(&input);
        }
    }
}

/// Nesting at and past the limit, and far past it where only skipping
/// (ignored members, `RawValue`) may go.
#[test]
fn the_oracle_holds_on_deep_nesting() {
    for depth in [126, 127, 128, 3000] {
        let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let inside = format!(r#"{{"a":1,"extra":{arrays}}}"#);
        for text in [&arrays, &inside] {
            for pick in 0..de_oracle::TYPES {
                let mut input = vec![pick];
                input.extend_from_slice(text.as_bytes());
                de_oracle::check(&input);
            }
        }
    }
}

/// Input that is not UTF-8: both go to serde_json's reading.
#[test]
fn the_oracle_holds_on_bytes_that_are_not_utf8() {
    for text in [&b"\"\xff\""[..], b"{\"a\":\"\xc3\"}", b"\xef\xbb\xbf{}"] {
        for pick in 0..de_oracle::TYPES {
            let mut input = vec![pick];
            input.extend_from_slice(text);
            de_oracle::check(&input);
        }
    }
}

/// The oracle is not vacuous: a reading that differs from serde_json's is
/// caught (here, a type whose `Debug` shows which deserializer read it).
#[test]
fn the_oracle_catches_a_disagreement() {
    let caught = std::panic::catch_unwind(|| {
        de_oracle::agree::<WhichDeserializer>(b"1");
    });
    assert!(caught.is_err(), "the oracle let a disagreement through");
}

/// Reads anything, and remembers the name of the deserializer's type.
#[derive(Debug)]
#[allow(dead_code)]
struct WhichDeserializer(&'static str);

impl<'de> serde::Deserialize<'de> for WhichDeserializer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::any::type_name::<D>();
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(WhichDeserializer(name))
    }
}
