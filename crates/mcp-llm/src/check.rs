//! A checker of each dialect's documented rules for tool definitions:
//! what [`crate::Toolset`] emits must pass it, and known-bad definitions
//! must not (the tests hold both). It reads the JSON a request would
//! carry, so it also checks definitions made by hand.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::Dialect;
use crate::names::NameRules;
use crate::schema::is_anthropic_key;

/// One broken rule: where (a JSON Pointer into the definitions) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleViolation {
    /// JSON Pointer into the definitions array.
    pub at: String,
    /// The rule, in words.
    pub rule: String,
}

impl std::fmt::Display for RuleViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.rule)
    }
}

/// Keywords OpenAI strict mode supports (anything else is refused).
const STRICT_OK: &[&str] = &[
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

/// Keywords Gemini's `Schema` (the `parameters` field) takes.
const GEMINI_OPENAPI_OK: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Checks `definitions` (the request's `tools` array) against the
/// documented rules of `dialect`, names limited to `max_name_len`:
/// - names: the dialect's pattern and length, unique;
/// - every schema's root is `type: object` with `properties`;
/// - OpenAI strict tools: every object `additionalProperties: false` and
///   every property required; only supported keywords;
/// - Anthropic: property keys `^[a-zA-Z0-9_.-]{1,64}$`;
/// - Gemini: a non-empty `functionDeclarations`; `parametersJsonSchema`
///   without `$schema`; `parameters` with only the OpenAPI-subset
///   keywords (no `$ref`, `$defs`, `additionalProperties`, …) and
///   upper-case types, no `anyOf` inside `items`.
pub fn check_definitions(
    dialect: Dialect,
    definitions: &Value,
    max_name_len: usize,
) -> Vec<RuleViolation> {
    let mut out = Vec::new();
    let mut bad = |at: String, rule: &str| {
        out.push(RuleViolation {
            at,
            rule: rule.to_owned(),
        })
    };
    let Some(tools) = definitions.as_array() else {
        bad(String::new(), "the definitions are not an array");
        return out;
    };
    let rules = NameRules::of(dialect, max_name_len);
    let mut names = BTreeSet::new();
    let mut check_name =
        |at: String, name: Option<&Value>, bad: &mut dyn FnMut(String, &str)| match name
            .and_then(Value::as_str)
        {
            Some(n) => {
                if !rules.is_valid(n) || n.len() > max_name_len {
                    bad(
                        at.clone(),
                        "the name breaks the dialect's pattern or length",
                    );
                }
                if !names.insert(n.to_owned()) {
                    bad(at, "the name is used twice");
                }
            }
            None => bad(at, "no name"),
        };
    for (i, tool) in tools.iter().enumerate() {
        let base = format!("/{i}");
        match dialect {
            Dialect::OpenAiChat | Dialect::OpenAiResponses => {
                let f = if dialect == Dialect::OpenAiChat {
                    if tool.get("type") != Some(&Value::from("function")) {
                        bad(format!("{base}/type"), "type is not \"function\"");
                    }
                    tool.get("function").unwrap_or(&Value::Null)
                } else {
                    if tool.get("type") != Some(&Value::from("function")) {
                        bad(format!("{base}/type"), "type is not \"function\"");
                    }
                    tool
                };
                let fbase = if dialect == Dialect::OpenAiChat {
                    format!("{base}/function")
                } else {
                    base.clone()
                };
                check_name(format!("{fbase}/name"), f.get("name"), &mut bad);
                let params = f.get("parameters").unwrap_or(&Value::Null);
                root_object(&format!("{fbase}/parameters"), params, &mut bad);
                if f.get("strict") == Some(&Value::Bool(true)) {
                    strict_rules(&format!("{fbase}/parameters"), params, true, &mut bad);
                }
                if dialect == Dialect::OpenAiResponses && f.get("strict").is_none() {
                    bad(
                        format!("{fbase}/strict"),
                        "strict absent (the Responses API then takes it as true)",
                    );
                }
            }
            Dialect::Anthropic => {
                check_name(format!("{base}/name"), tool.get("name"), &mut bad);
                let s = tool.get("input_schema").unwrap_or(&Value::Null);
                root_object(&format!("{base}/input_schema"), s, &mut bad);
                anthropic_keys(&format!("{base}/input_schema"), s, &mut bad);
            }
            Dialect::Gemini => {
                let Some(decls) = tool.get("functionDeclarations").and_then(Value::as_array) else {
                    bad(
                        format!("{base}/functionDeclarations"),
                        "no functionDeclarations array",
                    );
                    continue;
                };
                if decls.is_empty() {
                    bad(
                        format!("{base}/functionDeclarations"),
                        "functionDeclarations is empty",
                    );
                }
                for (j, d) in decls.iter().enumerate() {
                    let dbase = format!("{base}/functionDeclarations/{j}");
                    check_name(format!("{dbase}/name"), d.get("name"), &mut bad);
                    match (d.get("parametersJsonSchema"), d.get("parameters")) {
                        (Some(_), Some(_)) => {
                            bad(dbase.clone(), "both parameters and parametersJsonSchema")
                        }
                        (Some(s), None) => {
                            root_object(&format!("{dbase}/parametersJsonSchema"), s, &mut bad);
                            if s.get("$schema").is_some() {
                                bad(
                                    format!("{dbase}/parametersJsonSchema/$schema"),
                                    "$schema is refused",
                                );
                            }
                        }
                        (None, Some(s)) => {
                            gemini_openapi(&format!("{dbase}/parameters"), s, false, &mut bad)
                        }
                        (None, None) => {}
                    }
                }
            }
        }
    }
    out
}

fn root_object(at: &str, s: &Value, bad: &mut dyn FnMut(String, &str)) {
    if s.get("type") != Some(&Value::from("object")) {
        bad(format!("{at}/type"), "the root is not type: object");
    }
    if !s.get("properties").is_some_and(Value::is_object) {
        bad(
            format!("{at}/properties"),
            "the root has no properties object",
        );
    }
}

fn children(s: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(m) = s.get(key).and_then(Value::as_object) {
            out.extend(m.iter().map(|(k, v)| (format!("{key}/{k}"), v)));
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(a) = s.get(key).and_then(Value::as_array) {
            out.extend(a.iter().enumerate().map(|(i, v)| (format!("{key}/{i}"), v)));
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(v) = s.get(key).filter(|v| v.is_object()) {
            out.push((key.to_owned(), v));
        }
    }
    out
}

fn strict_rules(at: &str, s: &Value, root: bool, bad: &mut dyn FnMut(String, &str)) {
    let Some(m) = s.as_object() else { return };
    for k in m.keys() {
        if !STRICT_OK.contains(&k.as_str()) {
            bad(format!("{at}/{k}"), "keyword not supported in strict mode");
        }
    }
    if root && m.contains_key("anyOf") {
        bad(format!("{at}/anyOf"), "strict: the root may not be anyOf");
    }
    let is_object = m.get("type").is_some_and(|t| {
        t == "object"
            || t.as_array()
                .is_some_and(|a| a.iter().any(|x| x == "object"))
    });
    if is_object {
        if m.get("additionalProperties") != Some(&Value::Bool(false)) {
            bad(
                format!("{at}/additionalProperties"),
                "strict: objects need additionalProperties: false",
            );
        }
        let props: BTreeSet<&str> = m
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let req: BTreeSet<&str> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if props != req {
            bad(
                format!("{at}/required"),
                "strict: every property must be required",
            );
        }
    }
    for (k, v) in children(s) {
        strict_rules(&format!("{at}/{k}"), v, false, bad);
    }
}

fn anthropic_keys(at: &str, s: &Value, bad: &mut dyn FnMut(String, &str)) {
    if let Some(p) = s.get("properties").and_then(Value::as_object) {
        for k in p.keys() {
            if !is_anthropic_key(k) {
                bad(
                    format!("{at}/properties/{k}"),
                    "property key breaks ^[a-zA-Z0-9_.-]{1,64}$",
                );
            }
        }
    }
    for (k, v) in children(s) {
        anthropic_keys(&format!("{at}/{k}"), v, bad);
    }
}

fn gemini_openapi(at: &str, s: &Value, in_items: bool, bad: &mut dyn FnMut(String, &str)) {
    let Some(m) = s.as_object() else {
        bad(at.to_owned(), "not an object schema");
        return;
    };
    for k in m.keys() {
        if !GEMINI_OPENAPI_OK.contains(&k.as_str()) {
            bad(
                format!("{at}/{k}"),
                "keyword outside Gemini's OpenAPI subset",
            );
        }
    }
    if let Some(t) = m.get("type")
        && !t.as_str().is_some_and(|t| {
            [
                "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
            ]
            .contains(&t)
        })
    {
        bad(
            format!("{at}/type"),
            "type is not one of Gemini's Type values",
        );
    }
    if in_items && m.contains_key("anyOf") {
        bad(format!("{at}/anyOf"), "anyOf inside items is refused");
    }
    if let Some(p) = m.get("properties").and_then(Value::as_object) {
        for (k, v) in p {
            gemini_openapi(&format!("{at}/properties/{k}"), v, false, bad);
        }
    }
    if let Some(a) = m.get("anyOf").and_then(Value::as_array) {
        for (i, v) in a.iter().enumerate() {
            gemini_openapi(&format!("{at}/anyOf/{i}"), v, false, bad);
        }
    }
    if let Some(v) = m.get("items") {
        gemini_openapi(&format!("{at}/items"), v, true, bad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules_broken(d: Dialect, v: Value) -> Vec<String> {
        check_definitions(d, &v, 64)
            .into_iter()
            .map(|v| v.to_string())
            .collect()
    }

    #[test]
    fn known_bad_definitions_are_caught() {
        let long = "x".repeat(65);
        let b = rules_broken(
            Dialect::OpenAiChat,
            json!([
                {"type": "function", "function": {"name": long, "parameters": {"type": "object", "properties": {}}}},
                {"type": "function", "function": {"name": "a.b", "parameters": {"type": "object"}}},
                {"type": "function", "function": {"name": "s", "strict": true, "parameters": {"type": "object", "properties": {"x": {"type": "string", "minLength": 1}}}}}
            ]),
        );
        assert!(b.iter().any(|v| v.starts_with("/0/function/name")), "{b:?}");
        assert!(b.iter().any(|v| v.starts_with("/1/function/name")), "{b:?}");
        assert!(
            b.iter()
                .any(|v| v.starts_with("/1/function/parameters/properties")),
            "{b:?}"
        );
        assert!(b.iter().any(|v| v.contains("minLength")), "{b:?}");
        assert!(
            b.iter().any(|v| v.contains("additionalProperties: false")),
            "{b:?}"
        );
        assert!(
            b.iter()
                .any(|v| v.contains("every property must be required")),
            "{b:?}"
        );

        let b = rules_broken(
            Dialect::OpenAiResponses,
            json!([{"type": "function", "name": "x", "parameters": {"type": "object", "properties": {}}}]),
        );
        assert!(b.iter().any(|v| v.contains("strict absent")), "{b:?}");

        let b = rules_broken(
            Dialect::Anthropic,
            json!([
                {"name": "t", "input_schema": {"type": "object", "properties": {"bad key": {}}}},
                {"name": "t", "input_schema": {"type": "object", "properties": {}}}
            ]),
        );
        assert!(b.iter().any(|v| v.contains("property key")), "{b:?}");
        assert!(b.iter().any(|v| v.contains("used twice")), "{b:?}");

        let b = rules_broken(Dialect::Gemini, json!([{"functionDeclarations": []}]));
        assert!(b.iter().any(|v| v.contains("empty")), "{b:?}");
        let b = rules_broken(
            Dialect::Gemini,
            json!([{"functionDeclarations": [
                {"name": "1x", "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "additionalProperties": false}},
                {"name": "y", "parametersJsonSchema": {"$schema": "x", "type": "object", "properties": {}}},
                {"name": "z", "parameters": {"type": "ARRAY", "items": {"anyOf": [{"type": "STRING"}]}}}
            ]}]),
        );
        assert!(
            b.iter()
                .any(|v| v.starts_with("/0/functionDeclarations/0/name")),
            "{b:?}"
        );
        assert!(b.iter().any(|v| v.contains("$ref")), "{b:?}");
        assert!(
            b.iter().any(|v| v.contains("additionalProperties")),
            "{b:?}"
        );
        assert!(b.iter().any(|v| v.contains("$schema is refused")), "{b:?}");
        assert!(b.iter().any(|v| v.contains("type is not one of")), "{b:?}");
        assert!(b.iter().any(|v| v.contains("anyOf inside items")), "{b:?}");
    }
}
