//! Fuzz check of the command line's argument parser (`src/arguments.rs`,
//! included by path: the CLI is a binary): `key=value` words and a JSON
//! object to `tools/call` arguments, typed by the tool's `inputSchema`,
//! with serde_json as the reference model of a value.
//!
//! Input: byte 0 bit 0 set: the first line of the rest is the tool's
//! `inputSchema` (JSON; a schema that does not parse is no schema). The
//! other lines are the words.
//!
//! Checks: no panic, and no schema (cyclic `$ref`s, wide `anyOf`s) makes
//! typing a value slow; one word starting with `{` is read as serde_json
//! reads it (an object, else an error); otherwise the words are accepted
//! exactly when each is `key=value` with a non-empty key and no key
//! repeats, and each value is either the raw text (a string-only property)
//! or what serde_json reads from it, else the raw text; with no schema,
//! never the raw text when serde_json reads it; `string_arguments` keeps
//! every value raw under the same rules.

use std::collections::BTreeMap;

use serde_json::Value;

#[allow(
    dead_code,
    unreachable_pub,
    reason = "the file is included by path: the unit tests of the file use the rest, and its public items are the crate's API there"
)]
#[path = "../../src/arguments.rs"]
mod arguments;

use arguments::{is_argument, property_types, string_arguments, tool_arguments};

/// The pairs of `words`, or `None` when one is not `key=value` with a
/// non-empty key or a key repeats.
fn pairs(words: &[String]) -> Option<Vec<(&str, &str)>> {
    let mut seen = std::collections::BTreeSet::new();
    words
        .iter()
        .map(|w| {
            let (k, v) = w.split_once('=')?;
            (!k.is_empty() && seen.insert(k)).then_some((k, v))
        })
        .collect()
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let mut lines = text.split('\n');
    let schema = if mode & 1 == 1 {
        lines
            .next()
            .and_then(|s| serde_json::from_str::<Value>(s).ok())
    } else {
        None
    };
    let words: Vec<String> = lines.map(str::to_owned).collect();
    for w in &words {
        assert_eq!(
            is_argument(w),
            w.contains('=') || w.trim_start().starts_with('{')
        );
    }
    let got = tool_arguments(&words, schema.as_ref());
    if let [single] = words.as_slice()
        && single.trim_start().starts_with('{')
    {
        match serde_json::from_str::<Value>(single) {
            Ok(Value::Object(map)) => assert_eq!(got, Ok(map)),
            _ => assert!(got.is_err(), "{single:?} read as {got:?}"),
        }
        return;
    }
    let Some(pairs) = pairs(&words) else {
        assert!(got.is_err(), "{words:?} read as {got:?}");
        assert!(string_arguments(&words).is_err());
        return;
    };
    let map = got.unwrap_or_else(|e| panic!("{words:?} refused: {e}"));
    assert_eq!(map.len(), pairs.len());
    for (key, raw) in &pairs {
        let value = &map[*key];
        let as_json = serde_json::from_str::<Value>(raw).ok();
        match &as_json {
            Some(json) if schema.is_none() => assert_eq!(value, json, "{key}={raw}"),
            Some(json) => assert!(
                value == json || *value == Value::String((*raw).to_owned()),
                "{key}={raw} became {value}"
            ),
            None => assert_eq!(*value, Value::String((*raw).to_owned()), "{key}={raw}"),
        }
        if let Some(schema) = &schema {
            let _ = property_types(schema, key);
        }
    }
    let strings = string_arguments(&words).expect("the same pairs as strings");
    let want: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    assert_eq!(strings, want);
}
