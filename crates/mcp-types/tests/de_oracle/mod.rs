//! The typed decoder (`RawResult::parse`, this crate's deserializer) held
//! to `serde_json::from_slice` as the reference model, on one input.
//!
//! Shared by the fuzz target (`fuzz/fuzz_targets/typed_decoder.rs`, which
//! includes this file by path) and by `tests/de_oracle_table.rs`, which runs
//! it over a fixed table so that every CI run exercises the comparison.
//!
//! Input: byte 0 picks the type to parse as (see [`check`]), the rest is
//! the text. Checks: no panic; both accept the text or both refuse it;
//! what both accept reads the same (by `Debug`, so `-0.0` and the exact
//! number are compared, and for `Value` also the re-serialized text); an
//! error of ours on UTF-8 text ends with ` at byte N`, N within the text.
//!
//! The one deliberate difference, a lone surrogate escape in a string read
//! as U+FFFD, is applied to the model: when serde_json refuses the text, it
//! is tried again with those escapes rewritten
//! (`mcp_types::lenient::replace_lone_surrogates`), as the crate's own
//! fallback does. The types below never hold a byte string or a `RawValue`
//! beside a text string, where that rewrite would differ from our reading.

use std::collections::BTreeMap;
use std::fmt::{self, Debug};

use bytes::Bytes;
use mcp_types::RawResult;
use mcp_types::content::ContentBlock;
use mcp_types::lifecycle::InitializeResult;
use mcp_types::tools::{CallToolResult, ListToolsResult};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// How many types byte 0 chooses from.
pub(crate) const TYPES: u8 = 26;

/// Parses `input[1..]` as the type `input[0]` picks, with ours and with
/// serde_json, and panics when they disagree.
pub(crate) fn check(input: &[u8]) {
    let Some((&pick, text)) = input.split_first() else {
        return;
    };
    match pick % TYPES {
        0 => agree::<Value>(text),
        1 => agree::<CallToolResult>(text),
        2 => agree::<ListToolsResult>(text),
        3 => agree::<InitializeResult>(text),
        4 => agree::<ContentBlock>(text),
        5 => agree::<Vec<ContentBlock>>(text),
        6 => agree::<Typed>(text),
        7 => agree::<Vec<Shape>>(text),
        8 => agree::<Box<RawValue>>(text),
        9 => agree::<Known>(text),
        10 => agree::<BTreeMap<i64, bool>>(text),
        11 => agree::<BTreeMap<bool, u8>>(text),
        12 => agree::<Vec<IgnoredAny>>(text),
        // Each typed method of the deserializer, behind a visitor that
        // takes anything: the method alone decides what is refused.
        13 => agree::<Probe<0>>(text),
        14 => agree::<Probe<1>>(text),
        15 => agree::<Probe<2>>(text),
        16 => agree::<Probe<3>>(text),
        17 => agree::<Probe<4>>(text),
        18 => agree::<Probe<5>>(text),
        19 => agree::<Probe<6>>(text),
        20 => agree::<Probe<7>>(text),
        21 => agree::<Probe<8>>(text),
        22 => agree::<Probe<9>>(text),
        23 => agree::<Probe<10>>(text),
        24 => agree::<Probe<11>>(text),
        _ => agree::<Probe<12>>(text),
    }
}

/// Ours and serde_json's readings of `text` as `T` agree.
pub(crate) fn agree<T: DeserializeOwned + Debug + 'static>(text: &[u8]) {
    let ours = RawResult::new(Bytes::copy_from_slice(text)).parse::<T>();
    let theirs = serde_json::from_slice::<T>(text).or_else(|e| {
        match mcp_types::lenient::replace_lone_surrogates(text) {
            Some(fixed) => serde_json::from_slice::<T>(&fixed),
            None => Err(e),
        }
    });
    let what = || {
        format!(
            "{:?} as {}",
            String::from_utf8_lossy(text),
            std::any::type_name::<T>()
        )
    };
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{}", what());
            if let (Some(a), Some(b)) = (as_value(a), as_value(b)) {
                assert_eq!(a.to_string(), b.to_string(), "{}", what());
            }
        }
        (Err(e), Err(_)) => {
            if std::str::from_utf8(text).is_ok() {
                let message = e.to_string();
                let offset = message
                    .rsplit_once(" at byte ")
                    .and_then(|(_, n)| n.parse::<usize>().ok());
                assert!(
                    offset.is_some_and(|n| n <= text.len()),
                    "{}: our error {message:?} does not end with a byte offset within the text",
                    what()
                );
            }
        }
        _ => panic!(
            "{}: ours {ours:?}, serde_json (the model) {theirs:?}",
            what()
        ),
    }
}

fn as_value<T: 'static>(v: &T) -> Option<&Value> {
    (v as &dyn std::any::Any).downcast_ref::<Value>()
}

/// Typed paths that a `Value` never takes: narrow and wide integers,
/// `f32`, `char`, tuples, unit, options, an externally tagged enum.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub(crate) struct Typed {
    #[serde(default)]
    u: Option<u8>,
    #[serde(default)]
    i: Option<i128>,
    #[serde(default)]
    w: Option<u128>,
    #[serde(default)]
    f: Option<f32>,
    #[serde(default)]
    d: Option<f64>,
    #[serde(default)]
    c: Option<char>,
    #[serde(default)]
    t: Option<(u16, String)>,
    #[serde(default)]
    unit: Option<()>,
    #[serde(default)]
    e: Option<Shape>,
}

/// An externally tagged enum of every variant kind.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub(crate) enum Shape {
    Unit,
    New(i64),
    Tuple(u8, i8),
    Struct { a: bool },
}

/// One known member; the others are skipped (grammar only).
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub(crate) struct Known {
    a: u8,
}

/// A visitor that takes anything, behind typed method `M`: what is
/// refused is refused by the method.
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) struct Probe<const M: u8>(String);

impl<'de, const M: u8> Deserialize<'de> for Probe<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const M: u8>;
        impl<'de, const M: u8> Visitor<'de> for V<M> {
            type Value = Probe<M>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Probe<M>, E> {
                Ok(Probe(format!("bool {v}")))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Probe<M>, E> {
                Ok(Probe(format!("i64 {v}")))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Probe<M>, E> {
                Ok(Probe(format!("u64 {v}")))
            }
            fn visit_i128<E>(self, v: i128) -> Result<Probe<M>, E> {
                Ok(Probe(format!("i128 {v}")))
            }
            fn visit_u128<E>(self, v: u128) -> Result<Probe<M>, E> {
                Ok(Probe(format!("u128 {v}")))
            }
            fn visit_f32<E>(self, v: f32) -> Result<Probe<M>, E> {
                Ok(Probe(format!("f32 {v:?}")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Probe<M>, E> {
                Ok(Probe(format!("f64 {v:?}")))
            }
            fn visit_str<E>(self, v: &str) -> Result<Probe<M>, E> {
                Ok(Probe(format!("str {v:?}")))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Probe<M>, E> {
                Ok(Probe(format!("bytes {v:?}")))
            }
            fn visit_unit<E>(self) -> Result<Probe<M>, E> {
                Ok(Probe("unit".into()))
            }
            fn visit_none<E>(self) -> Result<Probe<M>, E> {
                Ok(Probe("none".into()))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Probe<M>, D::Error> {
                Ok(Probe(format!("some {:?}", Value::deserialize(d)?)))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Probe<M>, D::Error> {
                Ok(Probe(format!("newtype {:?}", Value::deserialize(d)?)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut s: A) -> Result<Probe<M>, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = s.next_element::<Value>()? {
                    items.push(v);
                }
                Ok(Probe(format!("seq {items:?}")))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Probe<M>, A::Error> {
                let mut members = Vec::new();
                while let Some(kv) = m.next_entry::<String, Value>()? {
                    members.push(kv);
                }
                Ok(Probe(format!("map {members:?}")))
            }
        }
        match M {
            0 => d.deserialize_bool(V),
            1 => d.deserialize_u64(V),
            2 => d.deserialize_i8(V),
            3 => d.deserialize_f32(V),
            4 => d.deserialize_str(V),
            5 => d.deserialize_char(V),
            6 => d.deserialize_bytes(V),
            7 => d.deserialize_unit(V),
            8 => d.deserialize_seq(V),
            9 => d.deserialize_map(V),
            10 => d.deserialize_struct("S", &["a"], V),
            11 => d.deserialize_option(V),
            _ => d.deserialize_newtype_struct("N", V),
        }
    }
}
