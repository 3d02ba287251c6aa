//! Params in, results out: request params as JSON, and each result
//! parsed once into the method's result type, forgiven where
//! `mcp_types::lenient` says so.

use std::borrow::Cow;

use mcp_transport::Transport;
use mcp_types::{ProtocolVersion, RawResult, Request};
use serde::Serialize;
use serde_json::Value;

use crate::error::{ClientError, Incompatibility, ServerFault};

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

/// Parses the result of request `R` once, as `R::Result`. Under 2026-07-28
/// (`stateless`) `resultType` is checked first, by a member scan: absent
/// means `"complete"`; `"input_required"` was already completed by the
/// multi round-trip loop where the method takes input; any other value is
/// invalid here.
///
/// Errors: [`ClientError::ServerMisbehaved`] for `"input_required"`,
/// [`ClientError::Incompatible`] for another `resultType`,
/// [`ClientError::Decode`] when the bytes are not an `R::Result`.
pub(crate) fn decode<R: Request>(
    raw: RawResult,
    version: ProtocolVersion,
    shown: &dyn Transport,
) -> Result<R::Result, ClientError> {
    decode_like::<R>(R::METHOD, raw, version, shown)
}

/// [`decode`] for a result that is another request's (`tasks/result` holds
/// what `tools/call` would have returned): decoded and forgiven as `R`'s,
/// errors named after `method`.
pub(crate) fn decode_like<R: Request>(
    method: &str,
    raw: RawResult,
    version: ProtocolVersion,
    shown: &dyn Transport,
) -> Result<R::Result, ClientError> {
    // `resultType` exists from 2026-07-28 on; earlier results are not scanned for it.
    if version.is_stateless() {
        match result_type(&raw).as_deref() {
            None | Some("complete") => {}
            // Completed by the multi round-trip loop where the method
            // allows it: here the server asked where it may not.
            Some("input_required") => {
                return Err(ClientError::ServerMisbehaved {
                    method: method.to_owned(),
                    fault: ServerFault::InputRequiredNotAllowed,
                });
            }
            Some(other) => {
                return Err(ClientError::Incompatible {
                    method: method.to_owned(),
                    incompatibility: Incompatibility::ResultType(other.to_owned()),
                });
            }
        }
    }
    let (value, forgiven) = mcp_types::lenient::parse_result::<R>(version, &raw)
        .map_err(|e| decode_error(method, e, shown))?;
    log_forgiven(method, &forgiven, shown);
    Ok(value)
}

/// `true` when the result is an `InputRequiredResult` (its top-level
/// `resultType` is `"input_required"`; found without parsing the rest).
pub(crate) fn is_input_required(result: &RawResult) -> bool {
    result_type(result).as_deref() == Some("input_required")
}

/// The top-level `resultType` of a result when it is a string (escapes
/// decoded), found by a member scan without parsing the rest.
fn result_type(result: &RawResult) -> Option<String> {
    serde_json::from_slice(result.member("resultType")?).ok()
}

/// `error` as it may be shown: a [`ClientError::Decode`] quoting a secret
/// gets it hidden (see [`decode_error`]); other errors pass unchanged.
pub(crate) fn shown_error(error: ClientError, shown: &dyn Transport) -> ClientError {
    match error {
        ClientError::Decode { method, source } => {
            let text = source.to_string();
            match shown.redact(&text) {
                Cow::Borrowed(_) => ClientError::Decode { method, source },
                Cow::Owned(hidden) => ClientError::decode(
                    &method,
                    <serde_json::Error as serde::de::Error>::custom(hidden),
                ),
            }
        }
        other => other,
    }
}

/// [`ClientError::Decode`] as it may be shown: serde quotes the value it
/// choked on, which may be a secret the server echoed (see
/// [`Transport::redact`]).
pub(crate) fn decode_error(
    method: &str,
    error: serde_json::Error,
    shown: &dyn Transport,
) -> ClientError {
    shown_error(ClientError::decode(method, error), shown)
}

/// One line per thing forgiven in a result (see `mcp_types::lenient`):
/// a defaulted member at debug (the result means what it would have
/// meant), a dropped list entry at warn (the listing is short of it).
///
/// What the server sent is quoted through [`Transport::redact`].
pub(crate) fn log_forgiven(
    method: &str,
    forgiven: &mcp_types::lenient::Forgiven,
    shown: &dyn Transport,
) {
    for member in &forgiven.defaulted {
        tracing::debug!(method, member, "result without `{member}`; taken as empty");
    }
    for problem in &forgiven.dropped {
        let reason = problem.reason.to_string();
        let whole = problem.to_string();
        tracing::warn!(
            method,
            index = problem.index,
            name = %shown.redact(problem.name.as_deref().unwrap_or("")),
            reason = %shown.redact(&reason),
            "{method}: {}",
            shown.redact(&whole)
        );
    }
}
