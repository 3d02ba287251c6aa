//! Params in, results out: request params as JSON, and each result
//! parsed once into the method's result type, forgiven where
//! `mcp_types::lenient` says so.

use mcp_types::{ProtocolVersion, RawResult};
use serde::Serialize;
use serde_json::Value;

use crate::error::ClientError;
use crate::mrtr;

/// The params of `method` as JSON: `None` when they serialize to nothing
/// (`null` or an empty object), so the request goes out without `params`.
///
/// Errors: [`ClientError::Encode`].
pub(crate) fn params<P: Serialize>(method: &str, params: &P) -> Result<Option<Value>, ClientError> {
    let value = serde_json::to_value(params).map_err(|e| ClientError::encode(method, e))?;
    Ok(match value {
        Value::Null => None,
        Value::Object(m) if m.is_empty() => None,
        other => Some(other),
    })
}

/// Parses the result of `method` once, as `T`. Under 2026-07-28
/// (`stateless`) `resultType` is checked first, by a member scan: absent
/// means `"complete"`; `"input_required"` was already completed by the
/// multi round-trip loop; any other value is invalid here.
///
/// Errors: [`ClientError::Protocol`] for another `resultType`,
/// [`ClientError::Decode`] when the bytes are not a `T`.
pub(crate) fn decode<T: serde::de::DeserializeOwned + 'static>(
    method: &str,
    raw: RawResult,
    version: ProtocolVersion,
) -> Result<T, ClientError> {
    decode_like(method, method, raw, version)
}

/// [`decode`] for a result that is another method's (`tasks/result` holds
/// what `tools/call` would have returned): forgiven by the rules of
/// `like`, errors named after `method`.
pub(crate) fn decode_like<T: serde::de::DeserializeOwned + 'static>(
    method: &str,
    like: &str,
    raw: RawResult,
    version: ProtocolVersion,
) -> Result<T, ClientError> {
    // `resultType` exists from 2026-07-28 on; earlier results are not scanned for it.
    if version.is_stateless() {
        match mrtr::result_type(&raw).as_deref() {
            None | Some("complete") => {}
            Some(other) => {
                return Err(ClientError::Protocol {
                    method: method.to_owned(),
                    message: format!("result of type {other:?} is not supported"),
                });
            }
        }
    }
    let (value, forgiven) = mcp_types::lenient::parse_result(like, version, &raw)
        .map_err(|e| ClientError::decode(method, e))?;
    log_forgiven(method, &forgiven);
    Ok(value)
}

/// One line per thing forgiven in a result (see `mcp_types::lenient`):
/// a defaulted member at debug (the result means what it would have
/// meant), a dropped list entry at warn (the listing is short of it).
pub(crate) fn log_forgiven(method: &str, forgiven: &mcp_types::lenient::Forgiven) {
    for member in &forgiven.defaulted {
        tracing::debug!(method, member, "result without `{member}`; taken as empty");
    }
    for problem in &forgiven.dropped {
        tracing::warn!(
            method,
            index = problem.index,
            name = problem.name.as_deref().unwrap_or(""),
            reason = %problem.reason,
            "{method}: {problem}"
        );
    }
}
