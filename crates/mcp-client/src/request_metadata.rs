//! Request metadata of the stateless revision (2026-07-28
//! `basic/transports` § Request Metadata, `server/tools` § x-mcp-header):
//! the values an HTTP transport mirrors from the request body into headers
//! so intermediaries can route without parsing JSON.
//!
//! - `Mcp-Name`: `params.name` of `tools/call` and `prompts/get`,
//!   `params.uri` of `resources/read`, `params.taskId` of the tasks
//!   extension's `tasks/get`, `tasks/update` and `tasks/cancel`.
//! - `Mcp-Param-{Name}`: for `tools/call`, one header per property of the
//!   tool's `inputSchema` annotated `"x-mcp-header": "{Name}"`, carrying the
//!   argument's value (`string` as is, `integer` in decimal, `boolean` as
//!   `true`/`false`); no header when the value is absent or `null`.
//!
//! This module computes names and raw values only; the header value
//! encoding (`=?base64?…?=`) is the transport's job
//! ([`mcp_transport::RequestOptions::metadata_headers`]). `Mcp-Method` is
//! derived by the transport from the method. No I/O here.

use std::collections::HashMap;

use mcp_types::tools::Tool;
use serde_json::{Map, Value};

/// The `Mcp-Name` header.
pub const MCP_NAME: &str = "Mcp-Name";
/// The prefix of `Mcp-Param-{Name}` headers.
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
/// The `inputSchema` property annotation naming a parameter header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// The largest integer magnitude an `x-mcp-header` integer carries exactly
/// (2^53 − 1, spec `server/tools` § x-mcp-header).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The `Mcp-Name` value of a request: `params.name` (`tools/call`,
/// `prompts/get`), `params.uri` (`resources/read`) or `params.taskId`
/// (`tasks/get`, `tasks/update`, `tasks/cancel`); `None` for other methods
/// or when the member is missing or not a string.
pub fn mcp_name(method: &str, params: Option<&Value>) -> Option<String> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    params?.get(key)?.as_str().map(str::to_owned)
}

/// One `x-mcp-header` annotation of a tool's `inputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The chain of `properties` keys from the schema root to the property,
    /// e.g. `["region"]` or `["location", "region"]`.
    pub path: Vec<String>,
    /// The annotation's value: the `{Name}` of `Mcp-Param-{Name}`.
    pub name: String,
}

impl ParamHeader {
    /// The full header name, `Mcp-Param-{Name}`.
    pub fn header_name(&self) -> String {
        format!("{MCP_PARAM_PREFIX}{}", self.name)
    }
}

/// Keywords whose value is one subschema (not a `properties` chain).
const SUBSCHEMA_ONE: &[&str] = &[
    "items",
    "contains",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
    "additionalItems",
];
/// Keywords whose value is an array of subschemas.
const SUBSCHEMA_LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is a map of subschemas.
const SUBSCHEMA_MAP: &[&str] = &[
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// `true` for an RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Reads and validates every `x-mcp-header` annotation of `input_schema`
/// (spec 2026-07-28 `server/tools` § x-mcp-header): each must be a
/// non-empty RFC 9110 token (no CR, LF or other control characters),
/// case-insensitively unique within the schema, on a property whose `type`
/// is `"string"`, `"integer"` or `"boolean"`, reachable from the root
/// through `properties` keys only (not through `items`, `anyOf`/`oneOf`/
/// `allOf`/`not`, `if`/`then`/`else`, `$defs`, …; `$ref` is never followed).
///
/// Returns the annotations in schema order (depth first).
///
/// Errors: the first violation, as a sentence naming the property.
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    // (path when statically reachable, node); explicit stack: no recursion
    // depth limit on hostile schemas.
    let mut stack: Vec<(Option<Vec<String>>, &Value)> = vec![(Some(Vec::new()), input_schema)];
    while let Some((path, node)) = stack.pop() {
        let Value::Object(schema) = node else {
            continue;
        };
        if let Some(annotation) = schema.get(X_MCP_HEADER) {
            let where_ = path
                .as_ref()
                .filter(|p| !p.is_empty())
                .map(|p| p.join("."))
                .ok_or_else(|| {
                    format!(
                        "{X_MCP_HEADER} on a schema position that is not a property reachable \
                         through `properties` alone"
                    )
                })?;
            let name = annotation
                .as_str()
                .ok_or_else(|| format!("property {where_:?}: {X_MCP_HEADER} is not a string"))?;
            if name.is_empty() {
                return Err(format!("property {where_:?}: {X_MCP_HEADER} is empty"));
            }
            if !name.chars().all(is_tchar) {
                return Err(format!(
                    "property {where_:?}: {X_MCP_HEADER} {name:?} is not an HTTP token \
                     (RFC 9110 tchar only)"
                ));
            }
            match schema.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                other => {
                    return Err(format!(
                        "property {where_:?}: {X_MCP_HEADER} is only allowed on string, \
                         integer or boolean properties (type is {})",
                        other.map_or_else(|| "not a single type".to_owned(), |t| format!("{t:?}"))
                    ));
                }
            }
            if let Some(first) = seen.insert(name.to_ascii_lowercase(), where_.clone()) {
                return Err(format!(
                    "{X_MCP_HEADER} {name:?} on property {where_:?} repeats the one on {first:?} \
                     (names are compared case-insensitively)"
                ));
            }
            found.push(ParamHeader {
                path: path.clone().unwrap_or_default(),
                name: name.to_owned(),
            });
        }
        // Push in reverse so that the stack pops in schema order.
        let mut children: Vec<(Option<Vec<String>>, &Value)> = Vec::new();
        for (keyword, value) in schema {
            if keyword == "properties" {
                if let Value::Object(props) = value {
                    for (key, sub) in props {
                        let p = path.as_ref().map(|p| {
                            let mut p = p.clone();
                            p.push(key.clone());
                            p
                        });
                        children.push((p, sub));
                    }
                }
            } else if SUBSCHEMA_ONE.contains(&keyword.as_str()) {
                match value {
                    // Draft 4–2019 tuple `items`.
                    Value::Array(items) => children.extend(items.iter().map(|s| (None, s))),
                    other => children.push((None, other)),
                }
            } else if SUBSCHEMA_LIST.contains(&keyword.as_str()) {
                if let Value::Array(items) = value {
                    children.extend(items.iter().map(|s| (None, s)));
                }
            } else if SUBSCHEMA_MAP.contains(&keyword.as_str())
                && let Value::Object(map) = value
            {
                children.extend(map.values().map(|s| (None, s)));
            }
        }
        stack.extend(children.into_iter().rev());
    }
    Ok(found)
}

/// The header text of one argument value: a string as is, an integer in
/// decimal (an integral float such as `42.0` too), a boolean as
/// `true`/`false`, another number as its JSON text; `None` for `null`,
/// arrays and objects (no header is sent).
pub fn render_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if i.unsigned_abs() > MAX_SAFE_INTEGER as u64 {
                    tracing::debug!(
                        value = i,
                        "x-mcp-header integer beyond 2^53-1: sent exactly, some peers may round it"
                    );
                }
                return Some(i.to_string());
            }
            if let Some(u) = n.as_u64() {
                return Some(u.to_string());
            }
            match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => {
                    Some(format!("{}", f as i64))
                }
                _ => Some(n.to_string()),
            }
        }
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The `Mcp-Param-*` headers of a `tools/call` with `arguments`, for the
/// annotations `headers`: one `(header name, raw value)` per annotated
/// property whose value is present and renderable ([`render_value`]).
pub fn param_values(
    headers: &[ParamHeader],
    arguments: Option<&Map<String, Value>>,
) -> Vec<(String, String)> {
    let Some(arguments) = arguments else {
        return Vec::new();
    };
    headers
        .iter()
        .filter_map(|h| {
            let (first, rest) = h.path.split_first()?;
            let mut node = arguments.get(first)?;
            for key in rest {
                node = node.as_object()?.get(key)?;
            }
            render_value(node).map(|v| (h.header_name(), v))
        })
        .collect()
}

/// Splits `tools` into those a client may expose and those whose
/// `x-mcp-header` annotations are invalid (spec 2026-07-28 `server/tools`:
/// such a tool MUST be left out of the list the client exposes). Each
/// excluded tool is logged at warn with its name and the reason.
pub fn retain_valid_tools(tools: &mut Vec<Tool>) {
    tools.retain(|tool| match param_headers(&tool.input_schema) {
        Ok(_) => true,
        Err(reason) => {
            tracing::warn!(tool = %tool.name, %reason, "tool excluded: invalid x-mcp-header annotation");
            false
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(schema: Value) -> Result<Vec<(String, String)>, String> {
        param_headers(&schema).map(|v| v.into_iter().map(|h| (h.path.join("."), h.name)).collect())
    }

    #[test]
    fn mcp_name_per_method() {
        let p = json!({"name": "echo", "uri": "file:///x", "taskId": "t1"});
        assert_eq!(mcp_name("tools/call", Some(&p)).as_deref(), Some("echo"));
        assert_eq!(mcp_name("prompts/get", Some(&p)).as_deref(), Some("echo"));
        assert_eq!(
            mcp_name("resources/read", Some(&p)).as_deref(),
            Some("file:///x")
        );
        assert_eq!(mcp_name("tasks/get", Some(&p)).as_deref(), Some("t1"));
        assert_eq!(mcp_name("tasks/cancel", Some(&p)).as_deref(), Some("t1"));
        assert_eq!(mcp_name("tools/list", Some(&p)), None);
        assert_eq!(mcp_name("tools/call", None), None);
        assert_eq!(mcp_name("tools/call", Some(&json!({"name": 3}))), None);
    }

    #[test]
    fn annotations_on_reachable_properties_are_read() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer", "x-mcp-header": "Count"},
                "plain": {"type": "string"},
                "loc": {"type": "object", "properties": {
                    "zone": {"type": "boolean", "x-mcp-header": "Zone_1"}
                }}
            }
        });
        let mut got = names(schema).unwrap();
        got.sort();
        assert_eq!(
            got,
            vec![
                ("count".into(), "Count".into()),
                ("loc.zone".into(), "Zone_1".into()),
                ("region".into(), "Region".into()),
            ]
        );
        assert_eq!(names(json!({"type": "object"})).unwrap(), vec![]);
        assert_eq!(names(json!(true)).unwrap(), vec![]);
    }

    #[test]
    fn invalid_annotations_are_rejected() {
        let bad = [
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                "empty",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                "token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "A\r\nX: y"}}}),
                "token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "Ä"}}}),
                "token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": 5}}}),
                "not a string",
            ),
            (
                json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                "only allowed",
            ),
            (
                json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
                "only allowed",
            ),
            (
                json!({"properties": {"a": {"x-mcp-header": "A"}}}),
                "only allowed",
            ),
            (
                json!({"properties": {"a": {"type": ["string", "null"], "x-mcp-header": "A"}}}),
                "only allowed",
            ),
            (
                json!({"properties": {
                    "a": {"type": "string", "x-mcp-header": "Dup"},
                    "b": {"type": "string", "x-mcp-header": "dUP"}}}),
                "case-insensitively",
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "reachable",
            ),
            (
                json!({"properties": {"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}}}),
                "reachable",
            ),
            (
                json!({"allOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                "reachable",
            ),
            (
                json!({"$defs": {"x": {"type": "string", "x-mcp-header": "A"}}}),
                "reachable",
            ),
            (
                json!({"if": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}),
                "reachable",
            ),
            (
                json!({"type": "string", "x-mcp-header": "Root"}),
                "reachable",
            ),
        ];
        for (schema, why) in bad {
            let err = names(schema.clone()).expect_err(&schema.to_string());
            assert!(err.contains(why), "{schema}: {err}");
        }
    }

    #[test]
    fn data_keywords_are_not_walked() {
        // `default`, `examples`, `const` and `enum` hold instance data, not schemas.
        let schema = json!({"properties": {"a": {"type": "object",
            "default": {"x-mcp-header": "NotAnAnnotation"},
            "examples": [{"x-mcp-header": "Nope"}]}}});
        assert_eq!(names(schema).unwrap(), vec![]);
    }

    #[test]
    fn values_are_rendered() {
        assert_eq!(render_value(&json!("Zürich")).as_deref(), Some("Zürich"));
        assert_eq!(render_value(&json!(42)).as_deref(), Some("42"));
        assert_eq!(render_value(&json!(-7)).as_deref(), Some("-7"));
        assert_eq!(render_value(&json!(42.0)).as_deref(), Some("42"));
        assert_eq!(render_value(&json!(1.5)).as_deref(), Some("1.5"));
        assert_eq!(render_value(&json!(true)).as_deref(), Some("true"));
        assert_eq!(render_value(&json!(false)).as_deref(), Some("false"));
        assert_eq!(render_value(&json!(null)), None);
        assert_eq!(render_value(&json!([1])), None);
        assert_eq!(render_value(&json!({})), None);
    }

    #[test]
    fn param_values_follow_paths_and_skip_absent_values() {
        let headers = param_headers(&json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "gone": {"type": "string", "x-mcp-header": "Gone"},
            "nil": {"type": "string", "x-mcp-header": "Nil"},
            "loc": {"type": "object", "properties": {"zone": {"type": "boolean", "x-mcp-header": "Zone"}}}
        }}))
        .unwrap();
        let args = json!({"region": "eu", "n": 3, "nil": null, "loc": {"zone": true}});
        let mut got = param_values(&headers, args.as_object());
        got.sort();
        assert_eq!(
            got,
            vec![
                ("Mcp-Param-N".to_owned(), "3".to_owned()),
                ("Mcp-Param-Region".to_owned(), "eu".to_owned()),
                ("Mcp-Param-Zone".to_owned(), "true".to_owned()),
            ]
        );
        assert!(param_values(&headers, None).is_empty());
        // A path through a non-object yields no header.
        let args = json!({"loc": "flat"});
        assert!(param_values(&headers, args.as_object()).is_empty());
    }

    #[test]
    fn invalid_tools_are_excluded() {
        let tool = |name: &str, schema: Value| -> Tool {
            serde_json::from_value(json!({"name": name, "inputSchema": schema})).unwrap()
        };
        let mut tools = vec![
            tool(
                "ok",
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}),
            ),
            tool(
                "bad",
                json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            ),
            tool("plain", json!({"type": "object"})),
        ];
        retain_valid_tools(&mut tools);
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["ok", "plain"]);
    }
}
