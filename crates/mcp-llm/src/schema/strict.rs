//! OpenAI strict mode: the strict form of a schema, or why it has none.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::{STRICT_MAX_DEPTH, append_description};

/// Keywords OpenAI's strict mode takes as they are.
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// The string formats strict mode supports.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Constructs that have no strict form: the tool goes non-strict.
const NOT_STRICTABLE: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
];

/// Keywords that carry no constraint: dropped (their text, if useful,
/// goes into the description).
const ANNOTATIONS: &[&str] = &[
    "$comment",
    "$id",
    "$anchor",
    "$schema",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$vocabulary",
    "$dynamicAnchor",
];

/// `schema` (normalized) in OpenAI's strict form, or why it has none.
pub(crate) fn make_strict(schema: &Value) -> Result<Value, String> {
    let mut out = schema.clone();
    strict_node(&mut out, "", 0, true)?;
    Ok(out)
}

fn strict_node(schema: &mut Value, path: &str, depth: usize, is_root: bool) -> Result<(), String> {
    let at = if path.is_empty() { "the root" } else { path };
    if depth > STRICT_MAX_DEPTH * 2 {
        return Err(format!("{at} nests deeper than strict mode allows"));
    }
    let Value::Object(node) = schema else {
        return Err(format!("{at} is a boolean schema"));
    };
    if is_root && node.contains_key("anyOf") {
        return Err("the root has anyOf".into());
    }
    for k in NOT_STRICTABLE {
        if node.contains_key(*k) {
            return Err(format!("{at} uses {k}"));
        }
    }
    if let Some(Value::Array(one_of)) = node.remove("oneOf") {
        // anyOf takes every branch oneOf does; the tool's own schema still
        // decides on the call.
        node.insert("anyOf".into(), Value::Array(one_of));
    }
    let mut notes = Vec::new();
    let keys: Vec<String> = node.keys().cloned().collect();
    for k in keys {
        if STRICT_KEYWORDS.contains(&k.as_str()) {
            continue;
        }
        let Some(v) = node.remove(&k) else { continue };
        if ANNOTATIONS.contains(&k.as_str()) {
            continue;
        }
        if k == "title" {
            // The title stands in for a missing description; beside one it
            // adds nothing.
            if let (Value::String(t), false) = (&v, node.contains_key("description")) {
                node.insert("description".into(), Value::String(t.clone()));
            }
            continue;
        }
        if k == "default" && v.is_null() {
            // Every optional property becomes nullable: a null default
            // tells the model nothing more.
            continue;
        }
        notes.push(format!("{k}: {v}"));
    }
    if let Some(Value::String(f)) = node.get("format")
        && !STRICT_FORMATS.contains(&f.as_str())
    {
        notes.push(format!("format: {f}"));
        node.remove("format");
    }
    append_description(node, &notes);

    let is_object = node.get("type").is_some_and(|t| {
        t == "object"
            || t.as_array()
                .is_some_and(|a| a.iter().any(|x| x == "object"))
    }) || node.contains_key("properties");
    let has_shape = node.contains_key("type")
        || node.contains_key("anyOf")
        || node.contains_key("$ref")
        || node.contains_key("enum")
        || node.contains_key("const");
    if !has_shape && !node.contains_key("$defs") && !node.contains_key("definitions") {
        return Err(format!("{at} accepts any type"));
    }
    if is_object {
        match node.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return Err(format!("{at} is a free-form object (additionalProperties)")),
        }
        let props = match node.get("properties") {
            Some(Value::Object(p)) => p.clone(),
            _ if is_root => Map::new(),
            _ => return Err(format!("{at} is an object without properties")),
        };
        let required: BTreeSet<String> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let mut new_props = Map::new();
        for (k, mut v) in props {
            strict_node(&mut v, &format!("{path}/properties/{k}"), depth + 1, false)?;
            if !required.contains(&k) {
                v = make_nullable(v);
            }
            new_props.insert(k, v);
        }
        let all: Vec<Value> = new_props.keys().map(|k| Value::String(k.clone())).collect();
        node.insert("properties".into(), Value::Object(new_props));
        node.insert("required".into(), Value::Array(all));
        node.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(items) = node.get_mut("items") {
        if items.is_array() {
            return Err(format!("{at} has tuple items"));
        }
        strict_node(items, &format!("{path}/items"), depth + 1, false)?;
    }
    if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
        for (i, b) in branches.iter_mut().enumerate() {
            strict_node(b, &format!("{path}/anyOf/{i}"), depth + 1, false)?;
        }
    }
    for defs in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = node.get_mut(defs) {
            for (k, v) in d.iter_mut() {
                strict_node(v, &format!("{path}/{defs}/{k}"), depth + 1, false)?;
            }
        }
    }
    Ok(())
}

/// `schema` that also accepts `null`.
fn make_nullable(mut schema: Value) -> Value {
    let Value::Object(node) = &mut schema else {
        return schema;
    };
    if let Some(Value::Array(e)) = node.get_mut("enum")
        && !e.iter().any(Value::is_null)
    {
        e.push(Value::Null);
    }
    match node.get_mut("type") {
        Some(Value::String(t)) if t == "null" => return schema,
        Some(t @ Value::String(_)) => {
            let old = t.take();
            *t = json!([old, "null"]);
            return schema;
        }
        Some(Value::Array(ts)) => {
            if !ts.iter().any(|t| t == "null") {
                ts.push(json!("null"));
            }
            return schema;
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
        if !branches
            .iter()
            .any(|b| b.get("type") == Some(&json!("null")))
        {
            branches.push(json!({"type": "null"}));
        }
        return schema;
    }
    if node.contains_key("enum") {
        return schema;
    }
    json!({"anyOf": [schema, {"type": "null"}]})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::normalize_root;

    #[test]
    fn strict_makes_optional_properties_required_and_nullable() {
        let s = normalize_root(&json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "minLength": 1},
                "b": {"type": "integer"},
                "c": {"enum": ["x", "y"]},
                "d": {"$ref": "#/$defs/D"},
                "e": {"type": "object", "properties": {"f": {"type": "number"}}, "required": ["f"]}
            },
            "required": ["a"],
            "$defs": {"D": {"type": "object", "properties": {"g": {"type": "boolean"}}}}
        }))
        .unwrap();
        let strict = make_strict(&s).unwrap();
        assert_eq!(strict["additionalProperties"], false);
        assert_eq!(strict["required"], json!(["a", "b", "c", "d", "e"]));
        assert_eq!(strict["properties"]["a"]["type"], "string");
        assert!(
            strict["properties"]["a"]["description"]
                .as_str()
                .unwrap()
                .contains("minLength: 1")
        );
        assert!(strict["properties"]["a"].get("minLength").is_none());
        assert_eq!(
            strict["properties"]["b"]["type"],
            json!(["integer", "null"])
        );
        assert_eq!(strict["properties"]["c"]["enum"], json!(["x", "y", null]));
        assert_eq!(
            strict["properties"]["d"]["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(strict["properties"]["e"]["additionalProperties"], false);
        assert_eq!(strict["$defs"]["D"]["additionalProperties"], false);
        assert_eq!(strict["$defs"]["D"]["required"], json!(["g"]));
    }

    #[test]
    fn what_has_no_strict_form_is_refused() {
        for bad in [
            json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            json!({"type": "object", "properties": {"m": {"type": "object"}}}),
            json!({"type": "object", "properties": {"m": {}}}),
            json!({"type": "object", "properties": {"m": {"allOf": [{"type": "string"}]}}}),
            json!({"type": "object", "properties": {}, "additionalProperties": true}),
        ] {
            let n = normalize_root(&bad).unwrap();
            assert!(make_strict(&n).is_err(), "{bad}");
        }
    }
}
