//! Resource template expansion (RFC 6570, all four levels; spec
//! `server/resources` § Resource Templates), with the `iri-string` crate.
//!
//! ```
//! use mcp_client::{TemplateValue, expand_template};
//! let uri = expand_template("file:///{+path}{?q,lang}", [
//!     ("path", TemplateValue::from("docs/a b.md")),
//!     ("q", TemplateValue::from("x&y")),
//! ]).unwrap();
//! assert_eq!(uri, "file:///docs/a%20b.md?q=x%26y");
//! ```

use iri_string::spec::UriSpec;
use iri_string::template::UriTemplateStr;
use iri_string::template::simple_context::{SimpleContext, Value};

use crate::error::ClientError;

/// A template variable's value: a string, a list, or an associative array
/// (RFC 6570 § 2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateValue {
    /// A string.
    String(String),
    /// A list of strings (exploded with `*`).
    List(Vec<String>),
    /// Name/value pairs.
    Assoc(Vec<(String, String)>),
}

impl From<&str> for TemplateValue {
    fn from(s: &str) -> Self {
        TemplateValue::String(s.to_owned())
    }
}

impl From<String> for TemplateValue {
    fn from(s: String) -> Self {
        TemplateValue::String(s)
    }
}

impl From<Vec<String>> for TemplateValue {
    fn from(v: Vec<String>) -> Self {
        TemplateValue::List(v)
    }
}

/// Expands `template` with `vars`; variables not given are undefined (and
/// vanish, per RFC 6570).
///
/// Errors: [`ClientError::InvalidTemplate`] for a template that does not parse.
pub fn expand_template<K, I>(template: &str, vars: I) -> Result<String, ClientError>
where
    K: Into<String>,
    I: IntoIterator<Item = (K, TemplateValue)>,
{
    let invalid = |e: iri_string::template::Error| ClientError::InvalidTemplate {
        template: template.to_owned(),
        message: e.to_string(),
    };
    let parsed = UriTemplateStr::new(template).map_err(invalid)?;
    let mut ctx = SimpleContext::new();
    for (k, v) in vars {
        let v = match v {
            TemplateValue::String(s) => Value::String(s),
            TemplateValue::List(l) => Value::List(l),
            TemplateValue::Assoc(a) => Value::Assoc(a),
        };
        ctx.insert(k, v);
    }
    let expanded = parsed.expand::<UriSpec, _>(&ctx).map_err(invalid)?;
    Ok(expanded.to_string())
}

/// The variable names of `template`, in order of appearance (each once),
/// e.g. to ask `completion/complete` for their values.
///
/// Errors: [`ClientError::InvalidTemplate`].
pub fn template_variables(template: &str) -> Result<Vec<String>, ClientError> {
    let parsed = UriTemplateStr::new(template).map_err(|e| ClientError::InvalidTemplate {
        template: template.to_owned(),
        message: e.to_string(),
    })?;
    let mut out: Vec<String> = Vec::new();
    for v in parsed.variables() {
        let name = v.as_str().to_owned();
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_4() {
        let list = TemplateValue::List(vec!["red".into(), "green".into()]);
        assert_eq!(
            expand_template("/c{/list*}", [("list", list.clone())]).unwrap(),
            "/c/red/green"
        );
        assert_eq!(
            expand_template("{?list*}", [("list", list)]).unwrap(),
            "?list=red&list=green"
        );
        assert_eq!(
            expand_template(
                "test://static/resource/{id}",
                [("id", TemplateValue::from("7"))]
            )
            .unwrap(),
            "test://static/resource/7"
        );
        assert_eq!(
            expand_template("{var:3}", [("var", TemplateValue::from("value"))]).unwrap(),
            "val"
        );
        assert_eq!(
            expand_template::<&str, _>("x{undefined}y", []).unwrap(),
            "xy"
        );
    }

    #[test]
    fn bad_template_is_typed_error() {
        assert!(matches!(
            expand_template::<&str, _>("{unclosed", []),
            Err(ClientError::InvalidTemplate { .. })
        ));
        assert_eq!(template_variables("a{x}{?y,x}").unwrap(), vec!["x", "y"]);
    }
}
