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

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::names::fnv1a64;

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
            kind(input)
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
                kind(other)
            ));
        }
    }
    Ok(Value::Object(root))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
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

// ---------------------------------------------------------------------------
// Anthropic: property keys

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

// ---------------------------------------------------------------------------
// Arguments back

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

// ---------------------------------------------------------------------------
// OpenAI strict

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

// ---------------------------------------------------------------------------
// Gemini `parameters`: the OpenAPI 3.0 subset

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
