//! Input schemas converted per dialect, and a model's arguments mapped
//! back to what the tool's own schema names.
//!
//! Every dialect wants a root `type: object` with `properties`, which MCP
//! allows absent ([`normalize_root`]). Then:
//! - OpenAI strict ([`make_strict`]): every object `additionalProperties:
//!   false`, every property required with optional ones made nullable,
//!   only the keywords of OpenAI's supported subset; a keyword that only
//!   narrows what is valid (`minLength`, `default`, an unsupported
//!   `format`, …) moves into the description; a construct with no strict
//!   form (`allOf`, `not`, free-form objects, …) makes the tool non-strict.
//! - Anthropic ([`anthropic_keys`]): property keys reduced to
//!   `^[a-zA-Z0-9_.-]{1,64}$`, mapped back on the call.
//! - Gemini `parametersJsonSchema`: `$schema` stripped, the rest kept.
//! - Gemini `parameters` ([`to_openapi`]): the OpenAPI 3.0 subset its
//!   `Schema` takes: `$ref` inlined (a cycle becomes a described object),
//!   `anyOf`/`oneOf`/type lists turned into `nullable` or `anyOf`, other
//!   keywords moved into the description.
//!
//! A model's arguments come back in the converted shape; [`map_arguments`]
//! walks them beside the tool's own schema: renamed keys get their
//! original names, and a `null` the strict form forced for an optional
//! property that does not itself allow `null` is dropped.

mod anthropic;
mod arguments;
mod openapi;
mod strict;

pub(crate) use anthropic::{anthropic_keys, is_anthropic_key, rename_anthropic_keys};
pub(crate) use arguments::{ArgumentMapping, map_arguments};
pub(crate) use openapi::to_openapi;
pub(crate) use strict::make_strict;

use serde_json::{Map, Value, json};

/// How deep a schema may nest before it is refused (also bounds `$ref`
/// inlining): 64 levels.
const MAX_DEPTH: usize = 64;

/// How many schema nodes inlining `$ref`s may produce: 10 000.
const MAX_NODES: usize = 10_000;

/// OpenAI strict mode's nesting limit (documented: 10 levels of objects).
const STRICT_MAX_DEPTH: usize = 10;

/// The root made a `type: object` with `properties`; `$schema` removed;
/// a root `$ref` inlined. `Err` says why the schema has no object form.
pub(crate) fn normalize_root(input: &Value) -> Result<Value, String> {
    let Value::Object(map) = input else {
        return Err(format!(
            "the inputSchema is a JSON {}, not an object",
            mcp_types::json_type(input)
        ));
    };
    let mut root = map.clone();
    root.remove("$schema");
    if let Some(Value::String(r)) = root.get("$ref").cloned() {
        let target = resolve_ref(input, &r)
            .ok_or_else(|| format!("the root $ref {r:?} does not resolve within the schema"))?;
        let Value::Object(t) = target else {
            return Err(format!("the root $ref {r:?} is not an object schema"));
        };
        root.remove("$ref");
        for (k, v) in t {
            root.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    match root.get("type") {
        None => {
            if ["anyOf", "oneOf", "allOf"]
                .iter()
                .any(|k| root.contains_key(*k))
            {
                return Err("the root is a composition (anyOf/oneOf/allOf), not an object".into());
            }
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(Value::Array(ts)) if ts.iter().any(|t| t == "object") => {}
        Some(other) => {
            return Err(format!("the root type is {other}, not \"object\""));
        }
    }
    root.insert("type".into(), json!("object"));
    match root.get("properties") {
        None => {
            root.insert("properties".into(), json!({}));
        }
        Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(format!(
                "`properties` is a JSON {}, not an object",
                mcp_types::json_type(other)
            ));
        }
    }
    Ok(Value::Object(root))
}

/// A local reference (`#/$defs/X`, `#/definitions/X`, any JSON Pointer
/// into `root`); remote references never resolve.
pub(crate) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// The subschemas of a node, each with how it is reached: the values of
/// `properties`, `patternProperties`, `$defs`, `definitions`,
/// `dependentSchemas`; the members of `anyOf`, `oneOf`, `allOf`,
/// `prefixItems`; and `items`, `additionalProperties`, `not`, `if`,
/// `then`, `else`, `contains`, `propertyNames` when they are schemas.
fn for_each_subschema_mut(node: &mut Map<String, Value>, f: &mut dyn FnMut(&mut Value)) {
    for key in [
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
    ] {
        if let Some(Value::Object(m)) = node.get_mut(key) {
            for v in m.values_mut() {
                f(v);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(a)) = node.get_mut(key) {
            for v in a.iter_mut() {
                f(v);
            }
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
    ] {
        if let Some(v @ Value::Object(_)) = node.get_mut(key) {
            f(v);
        }
    }
}

fn deref<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..MAX_DEPTH {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => match resolve_ref(root, r) {
                Some(t) => node = t,
                None => return node,
            },
            None => return node,
        }
    }
    node
}

fn append_description(node: &mut Map<String, Value>, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let extra = notes.join("; ");
    let text = match node.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} ({extra})"),
        _ => format!("({extra})"),
    };
    node.insert("description".into(), Value::String(text));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_with_no_properties_gets_an_empty_object() {
        let s = normalize_root(&json!({"type": "object"})).unwrap();
        assert_eq!(s, json!({"type": "object", "properties": {}}));
        let s = normalize_root(&json!({})).unwrap();
        assert_eq!(s, json!({"type": "object", "properties": {}}));
        let s = normalize_root(&json!({"$schema": "x", "type": "object"})).unwrap();
        assert!(s.get("$schema").is_none());
    }

    #[test]
    fn a_root_that_is_not_an_object_is_refused() {
        assert!(normalize_root(&json!({"type": "array"})).is_err());
        assert!(normalize_root(&json!("x")).is_err());
        assert!(normalize_root(&json!({"anyOf": [{"type": "object"}]})).is_err());
        assert!(normalize_root(&json!({"type": "object", "properties": 3})).is_err());
    }

    #[test]
    fn a_root_ref_is_inlined() {
        let s = json!({"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}});
        let n = normalize_root(&s).unwrap();
        assert_eq!(n["properties"]["x"]["type"], "string");
        assert!(normalize_root(&json!({"$ref": "https://example.com/s.json"})).is_err());
    }
}
