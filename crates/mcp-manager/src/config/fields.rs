//! Reading fields of a config entry: the result type that carries the JSON
//! path of what is wrong, URL checks, and the wording of type errors.

use serde_json::Value;

use super::{ConfigErrorKind, redact_url};

/// A value read from an entry, or the JSON path and what is wrong there.
pub(super) type EntryResult<T> = Result<T, (String, ConfigErrorKind)>;

/// Accepts absolute `http://` / `https://` URLs with a host.
pub(super) fn check_url(url: &str) -> Result<(), String> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e: http::uri::InvalidUri| format!("{:?}: {e}", redact_url(url)))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        Some(other) => return Err(format!("scheme {other:?} is not http or https")),
        None => return Err(format!("{:?} is not an absolute URL", redact_url(url))),
    }
    match uri.host() {
        Some(h) if !h.is_empty() => Ok(()),
        _ => Err(format!("{:?} has no host", redact_url(url))),
    }
}

pub(super) fn wrong(
    path: &str,
    expected: &'static str,
    found: &Value,
) -> (String, ConfigErrorKind) {
    (
        path.to_owned(),
        ConfigErrorKind::WrongType {
            expected,
            found: type_name(found),
        },
    )
}

pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `parent.key`, or `parent["key"]` when `key` is not a plain identifier.
pub(super) fn join_key(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{}]", Value::String(key.to_owned()))
    }
}
