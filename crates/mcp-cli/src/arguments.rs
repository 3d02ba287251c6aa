//! Tool and prompt arguments from the command line: one JSON object, or
//! `key=value` pairs whose values are typed by the tool's `inputSchema` when
//! it says so, else parsed as JSON when they parse, else kept as strings.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// `true` when `word` looks like arguments rather than a name: `k=v` or a
/// JSON object.
pub(crate) fn is_argument(word: &str) -> bool {
    word.contains('=') || word.trim_start().starts_with('{')
}

/// How deep `$ref`, `anyOf`, `oneOf` and `allOf` are followed; a schema
/// nested (or referring to itself) deeper than this is treated as untyped,
/// so a cyclic `$ref` cannot loop.
const MAX_SCHEMA_DEPTH: usize = 16;

/// How many schema nodes typing one property may visit. The depth bound
/// alone leaves the work exponential in it: a server's schema with wide
/// `anyOf`s of `$ref`s back to themselves would be walked 20^8 times. Past
/// this many nodes the property is treated as untyped, like one nested too
/// deep.
const MAX_SCHEMA_NODES: usize = 512;

/// The walk of one property's schema: its depth and the nodes it may still
/// visit.
struct Walk {
    depth: usize,
    nodes_left: usize,
}

impl Walk {
    fn new() -> Self {
        Walk {
            depth: 0,
            nodes_left: MAX_SCHEMA_NODES,
        }
    }

    /// Follows `node` one level deeper.
    fn into(&mut self, node: &Value, root: &Value) -> Option<BTreeSet<&'static str>> {
        self.depth += 1;
        let types = allowed_types(node, root, self);
        self.depth -= 1;
        types
    }
}

/// `true` when the only non-null JSON type property `key` of `schema`
/// allows is `string`: the value of `key=value` is then sent as typed, never
/// parsed as JSON (`zip=02139` stays `"02139"`, `tag=true` stays `"true"`).
///
/// Unions count: `"type": ["string", "null"]`, `anyOf`/`oneOf` branches
/// (Pydantic's `Optional[str]` is `anyOf: [{type: string}, {type: null}]`),
/// `allOf`, `enum`/`const` of strings, and `$ref` to a definition in the same
/// schema (`#/$defs/..`, `#/definitions/..`). A property whose types cannot
/// be told (no schema, no `type`, a remote `$ref`) is not string-only.
fn string_only(schema: Option<&Value>, key: &str) -> bool {
    let Some(root) = schema else {
        return false;
    };
    let Some(prop) = root.get("properties").and_then(|p| p.get(key)) else {
        return false;
    };
    match allowed_types(prop, root, &mut Walk::new()) {
        Some(types) => {
            let mut non_null = types.iter().filter(|t| **t != "null");
            non_null.next() == Some(&"string") && non_null.next().is_none()
        }
        None => false,
    }
}

/// The JSON types property `key` of `schema` admits, unions and local `$ref`s
/// resolved (see [`string_only`]), `null` last; `None` when they cannot be
/// told. For showing a tool's parameters.
pub(crate) fn property_types(schema: &Value, key: &str) -> Option<Vec<&'static str>> {
    let prop = schema.get("properties")?.get(key)?;
    let types = allowed_types(prop, schema, &mut Walk::new())?;
    let (null, mut rest): (Vec<&str>, Vec<&str>) = types.into_iter().partition(|t| *t == "null");
    rest.extend(null);
    Some(rest)
}

/// The JSON types `node` admits, as JSON Schema names them, or `None` when
/// the schema does not restrict them (or they cannot be told). Every keyword
/// present narrows the set: `type`, `enum`, `const`, a local `$ref`, `anyOf`
/// and `oneOf` (the union of their branches) and `allOf` (the intersection).
fn allowed_types(node: &Value, root: &Value, walk: &mut Walk) -> Option<BTreeSet<&'static str>> {
    if walk.depth > MAX_SCHEMA_DEPTH || walk.nodes_left == 0 {
        return None;
    }
    walk.nodes_left -= 1;
    let obj = node.as_object()?;
    let mut constraints: Vec<BTreeSet<&'static str>> = Vec::new();
    match obj.get("type") {
        Some(Value::String(t)) => constraints.push(type_names([t.as_str()])),
        Some(Value::Array(ts)) => {
            constraints.push(type_names(ts.iter().filter_map(Value::as_str)));
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        constraints.push(values.iter().map(json_type).collect());
    }
    if let Some(value) = obj.get("const") {
        constraints.push(BTreeSet::from([json_type(value)]));
    }
    if let Some(target) = obj
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| local_ref(root, r))
        && let Some(types) = walk.into(target, root)
    {
        constraints.push(types);
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get(keyword) {
            // One branch that admits anything makes the union admit anything.
            let union = branches.iter().map(|b| walk.into(b, root)).try_fold(
                BTreeSet::new(),
                |mut all, types| {
                    all.extend(types?);
                    Some(all)
                },
            );
            if let Some(union) = union {
                constraints.push(union);
            }
        }
    }
    if let Some(Value::Array(branches)) = obj.get("allOf") {
        constraints.extend(branches.iter().filter_map(|b| walk.into(b, root)));
    }
    constraints.into_iter().reduce(|a, b| intersect(&a, &b))
}

/// The set of type names, each mapped to the `'static` spelling JSON Schema
/// uses; an unknown name is kept as "unknown" so it still counts as a type
/// other than `string`.
fn type_names<'a>(names: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    names
        .into_iter()
        .map(|n| match n {
            "string" => "string",
            "null" => "null",
            "boolean" => "boolean",
            "integer" => "integer",
            "number" => "number",
            "object" => "object",
            "array" => "array",
            _ => "unknown",
        })
        .collect()
}

/// The JSON Schema type name of a JSON value (for `enum` and `const`).
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Types both sets admit; `integer` is a subset of `number`, so
/// `{number} ∩ {integer}` is `{integer}`.
fn intersect(a: &BTreeSet<&'static str>, b: &BTreeSet<&'static str>) -> BTreeSet<&'static str> {
    let widen = |set: &BTreeSet<&'static str>, t: &str| {
        set.contains(t) || (t == "integer" && set.contains("number"))
    };
    a.iter()
        .chain(b.iter())
        .copied()
        .filter(|t| widen(a, t) && widen(b, t))
        .collect()
}

/// The definition a `$ref` names inside this schema (`#/$defs/Name`,
/// `#/definitions/Name`, any `#/...` JSON pointer), or `None` for a remote
/// or malformed reference.
fn local_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// One value: kept as a string when the schema allows only strings, else
/// JSON when it parses, else a string.
fn typed_value(raw: &str, only_string: bool) -> Value {
    if only_string {
        return Value::String(raw.to_owned());
    }
    match serde_json::from_str::<Value>(raw) {
        // A JSON string literal ("\"x\"") is taken as its contents.
        Ok(v) => v,
        Err(_) => Value::String(raw.to_owned()),
    }
}

/// Builds the `arguments` object of `tools/call`.
///
/// Errors: a message for a JSON that is not an object, a word that is not
/// `key=value`, an empty key, or a key given twice.
pub(crate) fn tool_arguments(
    words: &[String],
    schema: Option<&Value>,
) -> Result<Map<String, Value>, String> {
    if let [single] = words
        && single.trim_start().starts_with('{')
    {
        return match serde_json::from_str::<Value>(single) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("the JSON arguments must be an object".into()),
            Err(e) => Err(format!("invalid JSON arguments: {e}")),
        };
    }
    let mut map = Map::new();
    for word in words {
        let (key, raw) = split_pair(word)?;
        let value = typed_value(raw, string_only(schema, key));
        if map.insert(key.to_owned(), value).is_some() {
            return Err(format!("argument {key:?} given twice"));
        }
    }
    Ok(map)
}

/// Builds the string arguments of `prompts/get` (or a completion context):
/// `key=value` pairs, or one JSON object. In the object, a number or a
/// boolean is taken as its JSON text (`3`, `true`): prompt arguments are
/// strings (spec `server/prompts`).
///
/// Errors: as [`tool_arguments`] for a malformed or repeated pair; a JSON
/// value that is null, an array or an object.
pub(crate) fn string_arguments(words: &[String]) -> Result<BTreeMap<String, String>, String> {
    if let [single] = words
        && single.trim_start().starts_with('{')
    {
        let map = match serde_json::from_str::<Value>(single) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err("the JSON arguments must be an object".into()),
            Err(e) => return Err(format!("invalid JSON arguments: {e}")),
        };
        return map
            .into_iter()
            .map(|(key, value)| match value {
                Value::String(s) => Ok((key, s)),
                Value::Number(_) | Value::Bool(_) => Ok((key, value.to_string())),
                other => Err(format!(
                    "argument {key:?} is {}: prompt arguments are strings",
                    match other {
                        Value::Null => "null",
                        Value::Array(_) => "an array",
                        _ => "an object",
                    }
                )),
            })
            .collect();
    }
    let mut map = BTreeMap::new();
    for word in words {
        let (key, raw) = split_pair(word)?;
        if map.insert(key.to_owned(), raw.to_owned()).is_some() {
            return Err(format!("argument {key:?} given twice"));
        }
    }
    Ok(map)
}

fn split_pair(word: &str) -> Result<(&str, &str), String> {
    if word.trim_start().starts_with('{') && serde_json::from_str::<Value>(word).is_ok() {
        return Err(format!(
            "a JSON object of arguments must be the only argument, not one beside key=value pairs: {word:?}"
        ));
    }
    match word.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        Some(_) => Err(format!("empty argument name in {word:?}")),
        None => Err(format!(
            "expected key=value or one JSON object, got {word:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn prompt_arguments_come_as_pairs_or_one_json_object() {
        let pairs = string_arguments(&words(&["name=Ada", "n=3"])).unwrap();
        let object = string_arguments(&words(&[r#"{"name":"Ada","n":3}"#])).unwrap();
        assert_eq!(pairs, object);
        assert_eq!(object["n"], "3");
        let err = string_arguments(&words(&[r#"{"name":["Ada"]}"#])).unwrap_err();
        assert!(err.contains("\"name\" is an array"), "{err}");
        let err = string_arguments(&words(&[r#"{"name":"Ada"}"#, "n=3"])).unwrap_err();
        assert!(err.contains("must be the only argument"), "{err}");
        let err = tool_arguments(&words(&[r#"{"message":"hi"}"#, "extra=1"]), None).unwrap_err();
        assert!(err.contains("must be the only argument"), "{err}");
    }

    #[test]
    fn values_parse_as_json_when_they_parse() {
        let args = tool_arguments(
            &words(&[
                "a=2",
                "b=2.5",
                "t=true",
                "o={\"x\":1}",
                "s=hello world",
                "n=null",
            ]),
            None,
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"a": 2, "b": 2.5, "t": true, "o": {"x": 1}, "s": "hello world", "n": null})
        );
    }

    #[test]
    fn string_typed_properties_stay_strings() {
        let schema = json!({"type": "object", "properties": {
            "zip": {"type": "string"}, "n": {"type": "number"}, "either": {"type": ["string", "null"]}
        }});
        let args =
            tool_arguments(&words(&["zip=02139", "n=2", "either=3"]), Some(&schema)).unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"zip": "02139", "n": 2, "either": "3"})
        );
        let args = tool_arguments(&words(&["zip=true"]), Some(&schema)).unwrap();
        assert_eq!(args["zip"], "true");
    }

    /// A Python SDK server's `Optional[str]` (an `anyOf` of string and
    /// null) and friends stay strings; a nullable integer is a number.
    #[test]
    fn b36_union_string_properties_stay_strings() {
        let schema = json!({"type": "object", "properties": {
            "zip": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "code": {"type": ["string", "null"]},
            "count": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "tag": {"oneOf": [{"type": "string", "maxLength": 10}, {"type": "null"}]},
            "id": {"type": "string"}
        }});
        let args = tool_arguments(
            &words(&["zip=12345", "code=123", "count=42", "tag=true", "id=42"]),
            Some(&schema),
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"zip": "12345", "code": "123", "count": 42, "tag": "true", "id": "42"})
        );
    }

    /// One property schema per row, the raw value, and what is sent: the
    /// value stays a string exactly when the only non-null type is `string`.
    #[test]
    fn property_shapes_decide_the_type() {
        let defs = json!({
            "Zip": {"type": "string", "pattern": "^[0-9]+$"},
            "MaybeZip": {"anyOf": [{"$ref": "#/$defs/Zip"}, {"type": "null"}]},
            "Num": {"type": "integer"},
            "Loop": {"$ref": "#/$defs/Loop"}
        });
        let legacy_defs = json!({"Name": {"type": ["string"]}});
        let rows: &[(Value, &str, Value)] = &[
            // Plain types.
            (json!({"type": "string"}), "7", json!("7")),
            (json!({"type": "integer"}), "7", json!(7)),
            (json!({"type": "number"}), "7.5", json!(7.5)),
            (json!({"type": "boolean"}), "true", json!(true)),
            // `type` arrays.
            (json!({"type": ["string", "null"]}), "7", json!("7")),
            (json!({"type": ["null", "string"]}), "null", json!("null")),
            (json!({"type": ["string", "integer"]}), "7", json!(7)),
            (json!({"type": ["integer", "null"]}), "7", json!(7)),
            (json!({"type": ["string"]}), "false", json!("false")),
            // anyOf / oneOf, with and without null, nested.
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                "12345",
                json!("12345"),
            ),
            (
                json!({"anyOf": [{"type": "null"}, {"type": "string", "format": "date"}]}),
                "2024",
                json!("2024"),
            ),
            (
                json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
                "42",
                json!(42),
            ),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                "42",
                json!(42),
            ),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "null"}]}),
                "true",
                json!("true"),
            ),
            (
                json!({"anyOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}, {"type": "null"}]}),
                "1",
                json!("1"),
            ),
            // A branch without a type admits anything: not string-only.
            (json!({"anyOf": [{"type": "string"}, {}]}), "1", json!(1)),
            (json!({"anyOf": [{"type": "string"}, true]}), "1", json!(1)),
            // Pydantic's `Optional[str] = None`: anyOf plus default and title.
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Zip"}),
                "02139",
                json!("02139"),
            ),
            // `$ref` to local definitions, directly and inside a union.
            (json!({"$ref": "#/$defs/Zip"}), "02139", json!("02139")),
            (json!({"$ref": "#/$defs/MaybeZip"}), "02139", json!("02139")),
            (
                json!({"anyOf": [{"$ref": "#/$defs/Zip"}, {"type": "null"}]}),
                "1",
                json!("1"),
            ),
            (json!({"$ref": "#/definitions/Name"}), "1", json!("1")),
            (json!({"$ref": "#/$defs/Num"}), "1", json!(1)),
            // Unresolvable, remote or cyclic references: untyped.
            (json!({"$ref": "#/$defs/Missing"}), "1", json!(1)),
            (json!({"$ref": "https://example.com/s.json"}), "1", json!(1)),
            (json!({"$ref": "#/$defs/Loop"}), "1", json!(1)),
            // allOf narrows; enum and const of strings are strings.
            (
                json!({"allOf": [{"type": ["string", "integer"]}, {"type": "string"}]}),
                "1",
                json!("1"),
            ),
            (json!({"enum": ["1", "2", null]}), "1", json!("1")),
            (json!({"enum": [1, 2]}), "1", json!(1)),
            (json!({"const": "1"}), "1", json!("1")),
            // No type information at all: JSON when it parses.
            (json!({}), "1", json!(1)),
            (json!({"description": "x"}), "hello", json!("hello")),
            (json!(true), "1", json!(1)),
        ];
        for (i, (prop, raw, want)) in rows.iter().enumerate() {
            let schema = json!({
                "type": "object",
                "properties": {"p": prop},
                "$defs": defs,
                "definitions": legacy_defs,
            });
            let args = tool_arguments(&words(&[&format!("p={raw}")]), Some(&schema))
                .unwrap_or_else(|e| panic!("row {i}: {e}"));
            assert_eq!(&args["p"], want, "row {i}: {prop} with {raw:?}");
        }
    }

    #[test]
    fn value_may_contain_equals_signs() {
        let args = tool_arguments(&words(&["q=a=b"]), None).unwrap();
        assert_eq!(args["q"], "a=b");
    }

    #[test]
    fn one_json_object() {
        let args = tool_arguments(&words(&["{\"a\": 1, \"b\": [2]}"]), None).unwrap();
        assert_eq!(Value::Object(args), json!({"a": 1, "b": [2]}));
        assert!(tool_arguments(&words(&["{nope"]), None).is_err());
    }

    #[test]
    fn malformed_words_are_errors() {
        assert!(
            tool_arguments(&words(&["novalue"]), None)
                .unwrap_err()
                .contains("key=value")
        );
        assert!(tool_arguments(&words(&["=1"]), None).is_err());
        assert!(
            tool_arguments(&words(&["a=1", "a=2"]), None)
                .unwrap_err()
                .contains("twice")
        );
        assert!(string_arguments(&words(&["x"])).is_err());
    }

    #[test]
    fn prompt_arguments_are_strings() {
        let args = string_arguments(&words(&["name=Ada", "n=2"])).unwrap();
        assert_eq!(args["n"], "2");
        assert_eq!(args["name"], "Ada");
    }

    #[test]
    fn argument_detection() {
        assert!(is_argument("a=1"));
        assert!(is_argument("{\"a\":1}"));
        assert!(!is_argument("echo"));
    }

    /// A server's schema of wide `anyOf`s whose branches refer back to the
    /// property: within the depth bound the walk was 20^8 nodes, so typing
    /// one value (or showing the tool's parameters) hung the CLI. It is now
    /// bounded by nodes too; such a property is untyped. The watchdog only
    /// tells a hang from an answer (the walk takes microseconds).
    #[test]
    fn a_schema_of_wide_cyclic_refs_is_typed_in_bounded_work() {
        let branches: Vec<Value> = (0..20).map(|_| json!({"$ref": "#/properties/x"})).collect();
        let schema = json!({"type": "object", "properties": {
            "x": {"anyOf": branches},
            "zip": {"type": "string"},
        }});
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let args = tool_arguments(&words(&["x=1", "zip=2"]), Some(&schema));
            let types = property_types(&schema, "x");
            let _ = tx.send((args, types));
        });
        let (args, types) = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("typing the arguments finishes");
        let args = args.unwrap();
        assert_eq!(args["x"], json!(1), "an untyped property takes JSON");
        assert_eq!(args["zip"], json!("2"), "the other properties are typed");
        assert_eq!(types, None);
    }
}
