//! The reference reading of a JSON text for the fuzz checks: serde_json,
//! with an object's members kept in order and duplicates kept (a
//! `serde_json::Value` would keep only the last of a duplicated name, and
//! the decoders under test see every one), and the members of the
//! JSON-RPC envelope read as values while any other member is skipped as
//! serde skips a member a struct does not name (its syntax checked, the
//! text of its strings not).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The members of the JSON-RPC envelope.
pub(crate) const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// A JSON text as serde_json reads it.
#[derive(Debug)]
pub(crate) enum Doc {
    /// An object: every member in order, duplicates kept; the value of an
    /// envelope member, `None` for any other.
    Object(Vec<(String, Option<Value>)>),
    /// An array, each element read the same way.
    Array(Vec<Doc>),
    /// Anything else.
    Scalar,
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        d.deserialize_any(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let mut members = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = if ENVELOPE.contains(&k.as_str()) {
                Some(map.next_value::<Value>()?)
            } else {
                map.next_value::<IgnoredAny>()?;
                None
            };
            members.push((k, v));
        }
        Ok(Doc::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Doc>()? {
            items.push(v);
        }
        Ok(Doc::Array(items))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Doc, E> {
        Ok(Doc::Scalar)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Doc, E> {
        Ok(Doc::Scalar)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Doc, E> {
        Ok(Doc::Scalar)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Doc, E> {
        Ok(Doc::Scalar)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Doc, E> {
        Ok(Doc::Scalar)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Doc, E> {
        Ok(Doc::Scalar)
    }
}

/// `text` read as `T` by serde_json; `None` when serde_json refuses it. A
/// text refused only for a lone surrogate escape is read with those
/// escapes rewritten to U+FFFD, as the crate does.
pub(crate) fn read<T: serde::de::DeserializeOwned>(text: &[u8]) -> Option<T> {
    match serde_json::from_slice::<T>(text) {
        Ok(doc) => Some(doc),
        Err(_) => {
            let fixed = mcp_types::lenient::replace_lone_surrogates(text)?;
            serde_json::from_slice::<T>(&fixed).ok()
        }
    }
}
