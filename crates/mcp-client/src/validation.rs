//! JSON Schema validation of tool arguments (`inputSchema`) and results
//! (`outputSchema`) with the `jsonschema` crate (spec `server/tools` §
//! Output Schema: clients SHOULD validate structured results).
//!
//! The `jsonschema` crate is behind the `schema-validation` feature (on by
//! default). Without it no schema compiles: every schema is logged (debug)
//! and not enforced, and a result missing the `structuredContent` its tool
//! declares is still refused, as that check needs no schema.
//!
//! Validators are compiled once per tool and listing, and cached by the
//! client ([`crate::known_tools`]). A schema that does not compile (e.g. it
//! needs a remote `$ref`, which is never fetched) is never a reason to
//! refuse a call: it is logged at warn when it is compiled (once per tool
//! and listing) and not enforced.
//!
//! A violation's message never shows the value that failed (it says
//! `value`): tool arguments may be secrets, and a result may echo them.

use std::sync::Arc;

use mcp_types::tools::CallToolResult;
use serde_json::{Map, Value};

use crate::error::{ClientError, SchemaViolation};

#[cfg(feature = "schema-validation")]
use jsonschema::Validator;

/// Without `schema-validation` no schema is ever compiled: a validator
/// cannot exist.
#[cfg(not(feature = "schema-validation"))]
#[derive(Debug)]
pub(crate) enum Validator {}

/// A compiled schema, or `None` when it did not compile.
pub(crate) type Compiled = Option<Arc<Validator>>;

/// The compiled schemas of one listed tool (compiled once per tool and
/// listing by [`crate::known_tools`]).
pub(crate) struct Validators {
    /// Its `inputSchema`, unless it did not compile.
    pub(crate) input: Compiled,
    /// Its `outputSchema`, when it has one that compiled.
    pub(crate) output: Compiled,
    /// Whether it declares an `outputSchema` at all.
    pub(crate) has_output: bool,
}

/// Without `schema-validation`: nothing compiles, so nothing is enforced.
#[cfg(not(feature = "schema-validation"))]
pub(crate) fn compile(_schema: &Value, tool: &str, which: &str) -> Compiled {
    tracing::debug!(%tool, schema = which, "mcp-client built without the `schema-validation` feature; not validating against the tool's schema");
    None
}

/// Without `schema-validation` there is no validator to ask.
#[cfg(not(feature = "schema-validation"))]
pub(crate) fn violations(validator: &Validator, _instance: &Value) -> Vec<SchemaViolation> {
    match *validator {}
}

/// Compiles `schema` (default dialect 2020-12 when `$schema` is absent).
#[cfg(feature = "schema-validation")]
pub(crate) fn compile(schema: &Value, tool: &str, which: &str) -> Compiled {
    match jsonschema::options()
        .with_draft(draft_of(schema))
        .should_validate_formats(false)
        .build(schema)
    {
        Ok(v) => Some(Arc::new(v)),
        Err(e) => {
            tracing::warn!(%tool, schema = which, error = %e, "tool schema does not compile; not validating against it");
            None
        }
    }
}

#[cfg(feature = "schema-validation")]
fn draft_of(schema: &Value) -> jsonschema::Draft {
    use jsonschema::Draft;
    match schema.get("$schema").and_then(Value::as_str) {
        Some(s) if s.contains("draft-04") => Draft::Draft4,
        Some(s) if s.contains("draft-06") => Draft::Draft6,
        Some(s) if s.contains("draft-07") => Draft::Draft7,
        Some(s) if s.contains("2019-09") => Draft::Draft201909,
        _ => Draft::Draft202012,
    }
}

/// The violations of `instance`, each with its JSON Pointer and a message
/// that does not show the value, at most
/// [`crate::error::MAX_REPORTED_VIOLATIONS`].
#[cfg(feature = "schema-validation")]
pub(crate) fn violations(validator: &Validator, instance: &Value) -> Vec<SchemaViolation> {
    // The usual answer, without collecting anything.
    if validator.is_valid(instance) {
        return Vec::new();
    }
    validator
        .iter_errors(instance)
        .take(crate::error::MAX_REPORTED_VIOLATIONS)
        .map(|e| SchemaViolation::new(e.instance_path().to_string(), e.masked().to_string()))
        .collect()
}

/// Checks `tools/call` arguments against the tool's compiled
/// `inputSchema` (no arguments are checked as `{}`), and gives them back:
/// the map is moved into the value checked and out again, not copied.
///
/// Errors: [`ClientError::InvalidArguments`] with each violation.
pub(crate) fn check_arguments(
    tool: &str,
    input: &Validator,
    arguments: Option<Map<String, Value>>,
) -> Result<Option<Map<String, Value>>, ClientError> {
    let given = arguments.is_some();
    let instance = Value::Object(arguments.unwrap_or_default());
    let violations = violations(input, &instance);
    if !violations.is_empty() {
        return Err(ClientError::InvalidArguments {
            tool: tool.to_owned(),
            violations,
        });
    }
    match instance {
        Value::Object(map) if given => Ok(Some(map)),
        _ => Ok(None),
    }
}

/// Checks a `tools/call` result's `structuredContent` against the tool's
/// `outputSchema` (a tool that declares one must return it). A tool-level
/// failure (`isError: true`) is not checked.
///
/// Errors: [`ClientError::InvalidStructuredContent`] with each violation.
pub(crate) fn check_output(
    tool: &str,
    validators: &Validators,
    result: &CallToolResult,
) -> Result<(), ClientError> {
    if result.is_error == Some(true) || !validators.has_output {
        return Ok(());
    }
    let violations = match (&result.structured_content, &validators.output) {
        (None, _) => vec![SchemaViolation::new(
            "",
            "structuredContent is missing but the tool declares an outputSchema",
        )],
        (Some(sc), Some(v)) => violations(v, sc),
        (Some(_), None) => Vec::new(),
    };
    if violations.is_empty() {
        return Ok(());
    }
    Err(ClientError::InvalidStructuredContent {
        tool: tool.to_owned(),
        violations,
    })
}

#[cfg(all(test, feature = "schema-validation"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validates_and_reports() {
        let schema =
            json!({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]});
        let v = compile(&schema, "t", "inputSchema").unwrap();
        assert!(violations(&v, &json!({"a": 1})).is_empty());
        let errs = violations(&v, &json!({"a": "x"}));
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].path, "/a", "{errs:?}");
        assert!(
            !errs[0].message.contains("\"x\""),
            "the value is not shown: {errs:?}"
        );
        assert_eq!(violations(&v, &json!({})).len(), 1);
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        let schema = json!({"$ref": "https://example.invalid/schema.json"});
        // Either it does not compile (logged, not enforced) or it compiles
        // lazily; it must never fetch or panic.
        let _ = compile(&schema, "t", "outputSchema");
    }
}
