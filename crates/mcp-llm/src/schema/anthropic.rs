//! Anthropic: property keys reduced to its charset and length.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::for_each_subschema_mut;
use crate::names::fnv1a64;

/// Anthropic's property-key rule: `^[a-zA-Z0-9_.-]{1,64}$`.
pub(crate) fn is_anthropic_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 64
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// For one `properties` map: each original key and the key the model
/// sees. A valid key is kept; another is reduced to the set (cut to 55
/// bytes) with `_` and 8 hex digits of its stable hash; a clash gets 16
/// digits, then a counter. Depends only on the set of keys.
pub(crate) fn anthropic_keys<'a>(
    keys: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, String> {
    let keys: BTreeSet<&str> = keys.into_iter().collect();
    let mut out = BTreeMap::new();
    let mut taken: BTreeSet<String> = keys
        .iter()
        .filter(|k| is_anthropic_key(k))
        .map(|k| (*k).to_owned())
        .collect();
    for key in &keys {
        if is_anthropic_key(key) {
            out.insert((*key).to_owned(), (*key).to_owned());
            continue;
        }
        let mut base: String = key
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        base.truncate(55);
        let h = fnv1a64(&[key.as_bytes()]);
        let mut attempt = 0u32;
        let name = loop {
            let suffix = match attempt {
                0 => format!("_{:08x}", h >> 32),
                1 => format!("_{h:016x}"),
                n => format!("_{h:016x}{n}"),
            };
            let mut b = base.clone();
            b.truncate(64 - suffix.len());
            let candidate = b + &suffix;
            if !taken.contains(&candidate) {
                break candidate;
            }
            attempt += 1;
        };
        taken.insert(name.clone());
        out.insert((*key).to_owned(), name);
    }
    out
}

/// Renames the property keys Anthropic refuses, in every `properties` map
/// of the schema (and the `required` beside it). Returns how many were
/// renamed.
pub(crate) fn rename_anthropic_keys(schema: &mut Value) -> usize {
    let Value::Object(node) = schema else {
        return 0;
    };
    let mut renamed = 0;
    if let Some(Value::Object(props)) = node.get("properties") {
        let map = anthropic_keys(props.keys().map(String::as_str));
        if map.iter().any(|(k, v)| k != v) {
            let old = match node.remove("properties") {
                Some(Value::Object(old)) => old,
                _ => Map::new(),
            };
            let mut new = Map::new();
            for (k, v) in old {
                let model = map.get(&k).cloned().unwrap_or(k);
                new.insert(model, v);
            }
            node.insert("properties".into(), Value::Object(new));
            if let Some(Value::Array(req)) = node.get_mut("required") {
                for r in req.iter_mut() {
                    if let Some(model) = r.as_str().and_then(|s| map.get(s)) {
                        *r = Value::String(model.clone());
                    }
                }
            }
            renamed += map.iter().filter(|(k, v)| k != v).count();
        }
    }
    for_each_subschema_mut(node, &mut |v| renamed += rename_anthropic_keys(v));
    renamed
}
