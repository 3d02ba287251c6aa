//! Showing the traffic to a person without showing a secret: the
//! [`WireTap`] a host installs to see every message exactly as it was sent
//! and received (the `mcp --verbose` log), and the [`Redactor`] a transport
//! installs so that nothing the dispatcher shows (an error response's text,
//! a skipped message, a server's log message, a tapped frame) carries a
//! secret the connection sent.
//!
//! Both are optional and cost one atomic load per message when absent.

use std::borrow::Cow;
use std::fmt;

use mcp_types::{DecodeError, JsonRpcError};
use serde_json::Value;

/// What a [`WireTap`] sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TapEvent<'a> {
    /// A message as it was handed to the transport for the peer: the
    /// compact JSON text (requests with their `id` and `_meta`, responses
    /// to server requests, every `notifications/cancelled`).
    Sent(&'a str),
    /// A frame as it was read from the peer, before it is decoded (lossily
    /// decoded as UTF-8: a frame that is not UTF-8 is shown with U+FFFD).
    Received(&'a str),
    /// Something this side decided without the peer: a request that timed
    /// out, was cancelled or dropped by its caller, the connection closing.
    /// Never on the wire.
    Local(&'a str),
}

/// Sees every message of a connection, in order per direction. Installed
/// with [`Transport::set_wire_tap`](crate::Transport::set_wire_tap);
/// called inline on the connection's tasks, so it must be quick (a log
/// line, a counter) and must not block.
///
/// Every text has already passed the connection's [`Redactor`]: a secret
/// the connection sent (a token, an API key header) reads `***`.
pub trait WireTap: Send + Sync + 'static {
    /// One event of connection `label` (the server's name).
    fn observe(&self, label: &str, event: TapEvent<'_>);
}

/// Takes the secret values a connection sent out of text before anything
/// shows it. A transport that sends secrets (an HTTP `Authorization`
/// header, an API key header) installs one on its dispatcher with
/// [`Dispatcher::set_redactor`](crate::Dispatcher::set_redactor); the
/// dispatcher then passes every text it shows through it.
pub trait Redactor: Send + Sync + 'static {
    /// `text` with every secret replaced by `***`; borrowed when there was
    /// nothing to replace.
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str>;
}

impl fmt::Debug for dyn Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Redactor")
    }
}

impl fmt::Debug for dyn WireTap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WireTap")
    }
}

/// `error` with its message and every string inside its `data` redacted.
pub(crate) fn redact_jsonrpc_error(
    redactor: &dyn Redactor,
    mut error: JsonRpcError,
) -> JsonRpcError {
    if let Cow::Owned(message) = redactor.redact(&error.message) {
        error.message = message;
    }
    if let Some(data) = error.data.as_mut() {
        redact_value(redactor, data);
    }
    error
}

/// Every string of `value` (keys included) redacted, in place.
pub(crate) fn redact_value(redactor: &dyn Redactor, value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(redacted) = redactor.redact(s) {
                *s = redacted;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(redactor, v)),
        Value::Object(members) => {
            let hidden: Vec<String> = members
                .keys()
                .filter(|k| matches!(redactor.redact(k), Cow::Owned(_)))
                .cloned()
                .collect();
            for key in hidden {
                if let Some(v) = members.remove(&key) {
                    members.insert(redactor.redact(&key).into_owned(), v);
                }
            }
            members.values_mut().for_each(|v| redact_value(redactor, v));
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// `error` with the input it quotes (a serde message, an id) redacted.
pub(crate) fn redact_decode_error(redactor: &dyn Redactor, error: &DecodeError) -> DecodeError {
    let redo = |s: &str| redactor.redact(s).into_owned();
    match error {
        DecodeError::Json(s) => DecodeError::Json(redo(s)),
        DecodeError::BadId(s) => DecodeError::BadId(redo(s)),
        DecodeError::BadError(s) => DecodeError::BadError(redo(s)),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Hide(&'static str);

    impl Redactor for Hide {
        fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
            if text.contains(self.0) {
                Cow::Owned(text.replace(self.0, "***"))
            } else {
                Cow::Borrowed(text)
            }
        }
    }

    #[test]
    fn an_error_is_redacted_in_its_message_and_every_string_of_its_data() {
        let mut error = JsonRpcError::new(mcp_types::ErrorCode(-32001), "token s3cret refused");
        error.data = Some(serde_json::json!({"sent": ["Bearer s3cret"], "s3cret": 1, "n": 2}));
        let shown = redact_jsonrpc_error(&Hide("s3cret"), error);
        assert_eq!(shown.message, "token *** refused");
        assert_eq!(
            shown.data,
            Some(serde_json::json!({"sent": ["Bearer ***"], "***": 1, "n": 2}))
        );
    }

    #[test]
    fn a_decode_error_quoting_input_is_redacted() {
        let e = DecodeError::BadError("invalid type: string \"s3cret\"".into());
        assert_eq!(
            redact_decode_error(&Hide("s3cret"), &e).to_string(),
            "malformed \"error\" member: invalid type: string \"***\""
        );
        assert_eq!(
            redact_decode_error(&Hide("s3cret"), &DecodeError::BadVersion),
            DecodeError::BadVersion
        );
    }
}
