//! Gemini `parameters`: the OpenAPI 3.0 subset its `Schema` takes.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::{MAX_DEPTH, MAX_NODES, append_description, deref, resolve_ref};

/// The keywords Gemini's `Schema` takes in `parameters` (besides `type`,
/// `anyOf`, `properties`, `items`, handled on their own).
const OPENAPI_KEPT: &[&str] = &[
    "description",
    "title",
    "nullable",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "pattern",
    "default",
    "example",
];

/// Keywords dropped without a note: inlining made them moot, or they
/// carry nothing for a model.
const OPENAPI_SILENT: &[&str] = &[
    "$defs",
    "definitions",
    "$id",
    "$comment",
    "$anchor",
    "$schema",
    "$vocabulary",
    "$dynamicAnchor",
];

/// Formats Gemini's `Schema` documents: `enum` and `date-time` for
/// strings, `float`/`double` and `int32`/`int64` for numbers.
const OPENAPI_FORMATS: &[&str] = &["enum", "date-time", "float", "double", "int32", "int64"];

struct OpenApi<'a> {
    root: &'a Value,
    nodes: usize,
}

/// `schema` (normalized) as Gemini's `parameters` takes it, or why it
/// cannot be (a `$ref` that does not resolve, too large once inlined).
pub(crate) fn to_openapi(schema: &Value) -> Result<Value, String> {
    let mut cx = OpenApi {
        root: schema,
        nodes: 0,
    };
    cx.node(schema, &mut Vec::new(), false, 0)
}

fn openapi_type(t: &str) -> Option<&'static str> {
    Some(match t {
        "string" => "STRING",
        "number" => "NUMBER",
        "integer" => "INTEGER",
        "boolean" => "BOOLEAN",
        "array" => "ARRAY",
        "object" => "OBJECT",
        "null" => "NULL",
        _ => return None,
    })
}

impl OpenApi<'_> {
    fn node(
        &mut self,
        schema: &Value,
        stack: &mut Vec<String>,
        in_items: bool,
        depth: usize,
    ) -> Result<Value, String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!(
                "more than {MAX_NODES} schema nodes once $ref is inlined"
            ));
        }
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let node = match schema {
            Value::Object(m) => m,
            Value::Bool(true) => return Ok(json!({})),
            _ => return Err("a boolean false (or non-object) schema".into()),
        };
        if let Some(Value::String(r)) = node.get("$ref") {
            if stack.contains(r) {
                return Ok(json!({
                    "type": "OBJECT",
                    "description": format!("(recursive: the same shape as {r})"),
                }));
            }
            let target = resolve_ref(self.root, r)
                .ok_or_else(|| format!("$ref {r:?} does not resolve within the schema"))?;
            stack.push(r.clone());
            let mut inlined = self.node(target, stack, in_items, depth + 1)?;
            stack.pop();
            // Siblings of `$ref` (a description, mostly) win over the target's.
            let mut rest = node.clone();
            rest.remove("$ref");
            if !rest.is_empty() {
                let siblings = self.node(&Value::Object(rest), stack, in_items, depth + 1)?;
                if let (Value::Object(i), Value::Object(s)) = (&mut inlined, siblings) {
                    for (k, v) in s {
                        i.insert(k, v);
                    }
                }
            }
            return Ok(inlined);
        }
        let mut out = Map::new();
        let mut notes = Vec::new();
        let mut nullable = false;
        // allOf: merged into this node (objects' properties and required
        // united; other keywords the first one wins).
        let mut merged = node.clone();
        if let Some(Value::Array(all)) = merged.remove("allOf") {
            for member in all {
                let member = deref(self.root, &member).clone();
                if let Value::Object(m) = member {
                    for (k, v) in m {
                        match (k.as_str(), merged.get_mut(&k), v) {
                            ("properties", Some(Value::Object(p)), Value::Object(v)) => {
                                for (pk, pv) in v {
                                    p.entry(pk).or_insert(pv);
                                }
                            }
                            ("required", Some(Value::Array(r)), Value::Array(v)) => r.extend(v),
                            (_, Some(_), _) => {}
                            (_, None, v) => {
                                merged.insert(k, v);
                            }
                        }
                    }
                }
            }
        }
        let node = &merged;
        match node.get("type") {
            Some(Value::String(t)) => match openapi_type(t) {
                Some(ot) => {
                    out.insert("type".into(), json!(ot));
                }
                None => notes.push(format!("type: {t}")),
            },
            Some(Value::Array(ts)) => {
                let mut kinds: Vec<&str> = Vec::new();
                for t in ts.iter().filter_map(Value::as_str) {
                    if t == "null" {
                        nullable = true;
                    } else if let Some(ot) = openapi_type(t) {
                        kinds.push(ot);
                    }
                }
                match kinds.as_slice() {
                    [] => {}
                    [one] => {
                        out.insert("type".into(), json!(one));
                    }
                    many => {
                        let branches: Vec<Value> =
                            many.iter().map(|t| json!({"type": t})).collect();
                        out.insert("anyOf".into(), Value::Array(branches));
                    }
                }
            }
            _ => {}
        }
        let mut branches: Vec<Value> = Vec::new();
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(a)) = node.get(key) {
                for b in a {
                    if deref(self.root, b).get("type") == Some(&json!("null")) {
                        nullable = true;
                        continue;
                    }
                    branches.push(self.node(b, stack, in_items, depth + 1)?);
                }
            }
        }
        match branches.len() {
            0 => {}
            1 => {
                if let Some(Value::Object(only)) = branches.pop() {
                    for (k, v) in only {
                        out.entry(k).or_insert(v);
                    }
                }
            }
            _ if in_items => {
                // Gemini refuses anyOf inside array items: the first branch,
                // and the others named in the description.
                let others: Vec<String> = branches[1..].iter().map(Value::to_string).collect();
                notes.push(format!("or one of: {}", others.join(", ")));
                if let Some(Value::Object(first)) = branches.into_iter().next() {
                    for (k, v) in first {
                        out.entry(k).or_insert(v);
                    }
                }
            }
            _ => {
                out.insert("anyOf".into(), Value::Array(branches));
            }
        }
        if nullable {
            out.insert("nullable".into(), json!(true));
        }
        if let Some(Value::Object(props)) = node.get("properties") {
            let mut p = Map::new();
            for (k, v) in props {
                p.insert(k.clone(), self.node(v, stack, false, depth + 1)?);
            }
            if let Some(Value::Array(req)) = node.get("required") {
                let req: Vec<Value> = req
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|r| p.contains_key(*r))
                    .collect::<BTreeSet<&str>>()
                    .into_iter()
                    .map(|r| Value::String(r.to_owned()))
                    .collect();
                if !req.is_empty() {
                    out.insert("required".into(), Value::Array(req));
                }
            }
            out.insert("properties".into(), Value::Object(p));
        }
        match node.get("items") {
            Some(items @ Value::Object(_)) => {
                out.insert("items".into(), self.node(items, stack, true, depth + 1)?);
            }
            Some(other @ Value::Array(_)) => notes.push(format!("items: {other}")),
            _ => {}
        }
        match node.get("enum") {
            Some(Value::Array(e)) if e.iter().all(|v| v.is_string() || v.is_null()) => {
                let vals: Vec<Value> = e.iter().filter(|v| v.is_string()).cloned().collect();
                if e.iter().any(Value::is_null) {
                    out.insert("nullable".into(), json!(true));
                }
                out.insert("enum".into(), Value::Array(vals));
                out.entry("type").or_insert(json!("STRING"));
            }
            Some(other) => notes.push(format!("one of: {other}")),
            None => {}
        }
        match node.get("const") {
            Some(Value::String(s)) => {
                out.insert("enum".into(), json!([s]));
                out.entry("type").or_insert(json!("STRING"));
            }
            Some(other) => notes.push(format!("always {other}")),
            None => {}
        }
        if let Some(Value::String(f)) = node.get("format") {
            if OPENAPI_FORMATS.contains(&f.as_str()) {
                out.insert("format".into(), json!(f));
            } else {
                notes.push(format!("format: {f}"));
            }
        }
        if let Some(Value::Array(ex)) = node.get("examples")
            && let Some(first) = ex.first()
        {
            out.insert("example".into(), first.clone());
        }
        for (k, v) in node {
            let k = k.as_str();
            if OPENAPI_KEPT.contains(&k) {
                if !out.contains_key(k) {
                    out.insert(k.to_owned(), v.clone());
                }
                continue;
            }
            if OPENAPI_SILENT.contains(&k)
                || matches!(
                    k,
                    "type"
                        | "anyOf"
                        | "oneOf"
                        | "properties"
                        | "required"
                        | "items"
                        | "enum"
                        | "const"
                        | "format"
                        | "examples"
                )
            {
                continue;
            }
            notes.push(format!("{k}: {v}"));
        }
        // Integer-valued keywords must be integers for Gemini's Schema.
        for k in [
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
            "minProperties",
            "maxProperties",
        ] {
            if let Some(v) = out.get(k) {
                if let Some(n) = v.as_f64().filter(|n| n.fract() == 0.0 && *n >= 0.0) {
                    out.insert(k.into(), json!(n as u64));
                } else {
                    let v = out.remove(k).unwrap_or_default();
                    notes.push(format!("{k}: {v}"));
                }
            }
        }
        if !matches!(out.get("description"), None | Some(Value::String(_))) {
            out.remove("description");
        }
        if !matches!(out.get("title"), None | Some(Value::String(_))) {
            out.remove("title");
        }
        if !matches!(out.get("pattern"), None | Some(Value::String(_))) {
            out.remove("pattern");
        }
        if !matches!(out.get("nullable"), None | Some(Value::Bool(_))) {
            out.remove("nullable");
        }
        for k in ["minimum", "maximum"] {
            if !matches!(out.get(k), None | Some(Value::Number(_))) {
                out.remove(k);
            }
        }
        append_description(&mut out, &notes);
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::normalize_root;
    use serde_json::json;

    #[test]
    fn openapi_inlines_refs_with_a_cycle_guard() {
        let s = normalize_root(&json!({
            "type": "object",
            "properties": {
                "node": {"$ref": "#/$defs/Node"},
                "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "n": {"type": "integer", "exclusiveMinimum": 0},
                "m": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "v": {"type": "string"}}}}
        }))
        .unwrap();
        let o = to_openapi(&s).unwrap();
        let text = o.to_string();
        assert!(
            !text.contains("\"$ref\"") && !text.contains("\"$defs\""),
            "{text}"
        );
        assert_eq!(o["type"], "OBJECT");
        assert_eq!(o["properties"]["node"]["properties"]["v"]["type"], "STRING");
        assert!(
            o["properties"]["node"]["properties"]["next"]["description"]
                .as_str()
                .unwrap()
                .contains("recursive")
        );
        assert_eq!(
            o["properties"]["maybe"],
            json!({"type": "STRING", "nullable": true})
        );
        assert!(
            o["properties"]["n"]["description"]
                .as_str()
                .unwrap()
                .contains("exclusiveMinimum: 0")
        );
        assert!(o["properties"]["m"].get("additionalProperties").is_none());
        assert!(
            to_openapi(
                &normalize_root(
                    &json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Nope"}}})
                )
                .unwrap()
            )
            .is_err()
        );
    }
}
