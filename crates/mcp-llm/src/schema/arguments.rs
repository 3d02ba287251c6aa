//! A model's arguments mapped back to what the tool's own schema names.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{MAX_DEPTH, MAX_NODES, anthropic_keys, deref, resolve_ref};

/// How a model's arguments are mapped back ([`map_arguments`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ArgumentMapping {
    /// Keys were renamed for Anthropic.
    pub(crate) anthropic_keys: bool,
    /// Optional properties were made required and nullable (OpenAI strict).
    pub(crate) strict_nulls: bool,
}

/// `arguments` as the tool's own schema names them: walked beside
/// `schema` (the normalized original), through local `$ref`s, `items`,
/// `properties`, and into the first `anyOf`/`oneOf` branch whose shape an
/// object or array value has (`Optional[Model]`); `allOf` is not entered.
pub(crate) fn map_arguments(schema: &Value, arguments: Value, mapping: ArgumentMapping) -> Value {
    if mapping == ArgumentMapping::default() {
        return arguments;
    }
    map_node(schema, schema, arguments, mapping, 0)
}

/// Whether `schema` takes `null`. A `$ref` cycle, a `$ref` that does not
/// resolve, or a schema past [`MAX_NODES`] visits counts as not: the
/// caller then drops a `null` of an optional property, which is valid
/// whatever the schema says (an optional property may be absent).
fn allows_null(root: &Value, schema: &Value) -> bool {
    let mut budget = MAX_NODES;
    allows_null_in(root, schema, &mut Vec::new(), &mut budget)
}

fn allows_null_in<'a>(
    root: &'a Value,
    schema: &'a Value,
    path: &mut Vec<&'a str>,
    budget: &mut usize,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        if path.contains(&r) {
            return false;
        }
        let Some(target) = resolve_ref(root, r) else {
            return false;
        };
        path.push(r);
        let allowed = allows_null_in(root, target, path, budget);
        path.pop();
        return allowed;
    }
    match schema.get("type") {
        Some(Value::String(t)) => return t == "null",
        Some(Value::Array(ts)) => return ts.iter().any(|t| t == "null"),
        _ => {}
    }
    if let Some(Value::Array(e)) = schema.get("enum") {
        return e.iter().any(Value::is_null);
    }
    if let Some(c) = schema.get("const") {
        return c.is_null();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(a)) = schema.get(key) {
            return a.iter().any(|s| allows_null_in(root, s, path, budget));
        }
    }
    // No type constraint at all: null is valid.
    schema.as_object().is_some_and(|m| {
        !m.contains_key("type") && !m.contains_key("allOf") && !m.contains_key("not")
    }) || schema == &Value::Bool(true)
}

fn map_node(
    root: &Value,
    schema: &Value,
    value: Value,
    mapping: ArgumentMapping,
    depth: usize,
) -> Value {
    if depth > MAX_DEPTH {
        return value;
    }
    let schema = deref(root, schema);
    // `Optional[Model]` and other unions: the branch whose shape the value
    // has (`properties` for an object, `items` for an array).
    let shaped = match &value {
        Value::Object(_) => schema.get("properties").is_some(),
        Value::Array(_) => schema.get("items").is_some(),
        _ => true,
    };
    if !shaped && let Some(branch) = branch_for(root, schema, &value, mapping) {
        return map_node(root, branch, value, mapping, depth + 1);
    }
    match value {
        Value::Object(args) => {
            let Some(Value::Object(props)) = schema.get("properties") else {
                return Value::Object(args);
            };
            let required: BTreeSet<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let back: BTreeMap<String, String> = if mapping.anthropic_keys {
                anthropic_keys(props.keys().map(String::as_str))
                    .into_iter()
                    .map(|(orig, model)| (model, orig))
                    .collect()
            } else {
                BTreeMap::new()
            };
            let mut out = Map::new();
            for (k, v) in args {
                let orig = back.get(&k).cloned().unwrap_or(k);
                let prop = props.get(&orig);
                if mapping.strict_nulls
                    && v.is_null()
                    && !required.contains(orig.as_str())
                    && prop.is_some_and(|p| !allows_null(root, p))
                {
                    continue;
                }
                let v = match prop {
                    Some(p) => map_node(root, p, v, mapping, depth + 1),
                    None => v,
                };
                out.insert(orig, v);
            }
            Value::Object(out)
        }
        Value::Array(items) => match schema.get("items") {
            Some(item_schema @ Value::Object(_)) => Value::Array(
                items
                    .into_iter()
                    .map(|v| map_node(root, item_schema, v, mapping, depth + 1))
                    .collect(),
            ),
            _ => Value::Array(items),
        },
        other => other,
    }
}

/// The first `anyOf` / `oneOf` branch of `schema` that `value` fits: for an
/// object, a branch with `properties` naming each of its keys (as the
/// model sent them, renamed keys mapped back); for an array, a branch with
/// `items`.
fn branch_for<'a>(
    root: &'a Value,
    schema: &'a Value,
    value: &Value,
    mapping: ArgumentMapping,
) -> Option<&'a Value> {
    let branches = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)?;
    branches
        .iter()
        .map(|b| deref(root, b))
        .find(|b| match value {
            Value::Object(args) => match b.get("properties") {
                Some(Value::Object(props)) => {
                    let back: BTreeMap<String, String> = if mapping.anthropic_keys {
                        anthropic_keys(props.keys().map(String::as_str))
                            .into_iter()
                            .map(|(orig, model)| (model, orig))
                            .collect()
                    } else {
                        BTreeMap::new()
                    };
                    args.keys()
                        .all(|k| props.contains_key(back.get(k).unwrap_or(k)))
                }
                _ => false,
            },
            Value::Array(_) => b.get("items").is_some_and(Value::is_object),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{is_anthropic_key, normalize_root, rename_anthropic_keys, to_openapi};
    use serde_json::json;

    #[test]
    fn strict_nulls_are_dropped_on_the_way_back() {
        let s = normalize_root(&json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "n": {"type": ["string", "null"]},
                "o": {"type": "object", "properties": {"p": {"type": "integer"}}},
                "l": {"type": "array", "items": {"$ref": "#/$defs/I"}}
            },
            "$defs": {"I": {"type": "object", "properties": {"q": {"type": "string"}}}}
        }))
        .unwrap();
        let args = json!({"a": null, "n": null, "o": {"p": null}, "l": [{"q": null}]});
        let m = ArgumentMapping {
            strict_nulls: true,
            ..Default::default()
        };
        assert_eq!(
            map_arguments(&s, args, m),
            json!({"n": null, "o": {}, "l": [{}]})
        );
    }

    /// A `$ref` cycle through `anyOf` (a server's schema, so any shape)
    /// must not recurse without end when a strict null is checked.
    #[test]
    fn a_ref_cycle_through_any_of_ends() {
        let s = normalize_root(&json!({
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/A"}, "y": {"$ref": "#/$defs/B"}},
            "$defs": {
                "A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]},
                "B": {"oneOf": [{"$ref": "#/$defs/C"}]},
                "C": {"anyOf": [{"$ref": "#/$defs/B"}]}
            }
        }))
        .unwrap();
        let m = ArgumentMapping {
            strict_nulls: true,
            ..Default::default()
        };
        assert_eq!(
            map_arguments(&s, json!({"x": null, "y": null}), m),
            json!({})
        );
        // No cycle, but each level triples the branches: 3^20 paths.
        let mut defs = serde_json::Map::new();
        for i in 0..20 {
            let next = format!("#/$defs/D{}", i + 1);
            defs.insert(
                format!("D{i}"),
                json!({"anyOf": [{"$ref": next}, {"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("D20".into(), json!({"type": "string"}));
        let s = normalize_root(&json!({
            "type": "object",
            "properties": {"z": {"$ref": "#/$defs/D0"}},
            "$defs": defs
        }))
        .unwrap();
        assert_eq!(map_arguments(&s, json!({"z": null}), m), json!({}));
        // Inlined for Gemini's `parameters` it would never end: refused.
        let e = to_openapi(&s).unwrap_err();
        assert!(e.contains("schema nodes"), "{e}");
    }

    /// `Optional[Model]` (`anyOf: [{$ref}, {type: null}]`): the arguments
    /// inside the branch are mapped back too.
    #[test]
    fn arguments_inside_an_any_of_branch_are_mapped_back() {
        let s = normalize_root(&json!({
            "type": "object",
            "properties": {
                "p": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
                "l": {"oneOf": [{"type": "array", "items": {"$ref": "#/$defs/P"}}, {"type": "string"}]}
            },
            "$defs": {"P": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "bad key": {"type": "string"}},
                "required": ["name"]
            }}
        }))
        .unwrap();
        let strict = ArgumentMapping {
            strict_nulls: true,
            ..Default::default()
        };
        assert_eq!(
            map_arguments(
                &s,
                json!({"p": {"name": "A", "age": null, "bad key": null}, "l": [{"name": "B", "age": null}]}),
                strict
            ),
            json!({"p": {"name": "A"}, "l": [{"name": "B"}]})
        );
        let model_key = anthropic_keys(["name", "age", "bad key"])["bad key"].clone();
        let anthropic = ArgumentMapping {
            anthropic_keys: true,
            ..Default::default()
        };
        assert_eq!(
            map_arguments(
                &s,
                json!({"p": {"name": "A", model_key.clone(): "x"}, "l": [{model_key: "y"}]}),
                anthropic
            ),
            json!({"p": {"name": "A", "bad key": "x"}, "l": [{"bad key": "y"}]})
        );
        // A null for the whole optional property stays (the branch takes null).
        assert_eq!(
            map_arguments(&s, json!({"p": null}), strict),
            json!({"p": null})
        );
    }

    #[test]
    fn anthropic_keys_are_renamed_and_mapped_back() {
        let s = normalize_root(&json!({
            "type": "object",
            "properties": {"ok.key": {"type": "string"}, "bad key/ü": {"type": "object", "properties": {"$x": {"type": "string"}}}},
            "required": ["bad key/ü"]
        }))
        .unwrap();
        let mut converted = s.clone();
        assert_eq!(rename_anthropic_keys(&mut converted), 2);
        let props = converted["properties"].as_object().unwrap();
        assert!(props.keys().all(|k| is_anthropic_key(k)), "{props:?}");
        let model_key = props
            .keys()
            .find(|k| k.starts_with("bad_key"))
            .unwrap()
            .clone();
        assert_eq!(converted["required"], json!([model_key.clone()]));
        let inner = props[&model_key]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        let args = json!({"ok.key": "a", model_key: {inner: "b"}});
        let m = ArgumentMapping {
            anthropic_keys: true,
            ..Default::default()
        };
        assert_eq!(
            map_arguments(&s, args, m),
            json!({"ok.key": "a", "bad key/ü": {"$x": "b"}})
        );
    }
}
