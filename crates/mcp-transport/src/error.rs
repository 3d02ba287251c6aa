//! The transport error type (spec: `basic/index` § Responses for JSON-RPC
//! errors; `basic/transports` for what closes a connection).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use mcp_types::{DecodeError, JsonRpcError, RequestId};

/// Which wait ran out, for [`TransportError::Timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeoutPhase {
    /// Waiting for a request's response (the per-request timeout).
    Request,
    /// The absolute cap of a request whose timeout progress keeps resetting.
    Total,
    /// Waiting for the rest of an SSE response stream (HTTP).
    SseResponse,
    /// Delivering a notification or a response to the peer.
    Notify,
    /// Establishing the connection: spawning, connecting, the first response.
    Connect,
}

/// What a [`TransportError::Timeout`] says it waited for: the request's
/// method where there is one (`tools/call`), else the phase.
fn waited_for(phase: TimeoutPhase, method: Option<&str>) -> String {
    match (phase, method) {
        (TimeoutPhase::Request, Some(method)) => method.to_owned(),
        (TimeoutPhase::Total, Some(method)) => format!("{method} (its total time)"),
        (phase, _) => phase.to_string(),
    }
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Request => "request",
            TimeoutPhase::Total => "total request time",
            TimeoutPhase::SseResponse => "SSE response",
            TimeoutPhase::Notify => "notify",
            TimeoutPhase::Connect => "connect",
        })
    }
}

/// Why a connection closed, as far as the transport knows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CloseReason {
    /// What happened, e.g. `"closed by the client"`, `"server exited"`,
    /// `"stdout ended"`.
    pub message: String,
    /// The child's exit status (stdio), as the OS reports it, e.g. `"exit status: 1"`.
    pub exit_status: Option<String>,
    /// The last lines the child wrote to stderr (stdio), bounded.
    pub stderr_tail: Option<String>,
}

impl CloseReason {
    /// A reason with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        CloseReason {
            message: message.into(),
            exit_status: None,
            stderr_tail: None,
        }
    }
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(status) = &self.exit_status {
            write!(f, " ({status})")?;
        }
        if let Some(tail) = self.stderr_tail.as_deref().filter(|t| !t.trim().is_empty()) {
            write!(f, "; stderr tail:\n{}", tail.trim_end())?;
        }
        Ok(())
    }
}

/// An error from a transport or from the shared request machinery.
///
/// Ask it questions ([`is_timeout`](Self::is_timeout),
/// [`is_closed`](Self::is_closed), [`is_cancelled`](Self::is_cancelled),
/// [`is_session_expired`](Self::is_session_expired)) or match its fields
/// rather than its text. Its `Display` describes this level only; the
/// underlying cause (an OS error, a decoding error) is its
/// [`source()`](std::error::Error::source). It is `Clone`, so one close can
/// fail many pending requests.
///
/// Struct variants are `#[non_exhaustive]`: outside this crate, build them
/// with the constructors ([`timeout`](Self::timeout),
/// [`http`](Self::http), [`session_expired`](Self::session_expired),
/// [`malformed`](Self::malformed), [`message_too_large`](Self::message_too_large),
/// [`spawn`](Self::spawn), [`protocol`](Self::protocol)) and match them with `..`.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// A wait ran out. The peer was sent `notifications/cancelled` for a
    /// request (never for `initialize`).
    #[error("timed out after {ms} ms waiting for {}", waited_for(*phase, method.as_deref()))]
    #[non_exhaustive]
    Timeout {
        /// How long was waited, in milliseconds.
        ms: u64,
        /// Which wait.
        phase: TimeoutPhase,
        /// The method of the request whose response was waited for
        /// (`tools/call`), for [`TimeoutPhase::Request`] and
        /// [`TimeoutPhase::Total`]; `None` for the other waits.
        method: Option<String>,
    },
    /// The caller cancelled the request; the peer was sent `notifications/cancelled`.
    #[error("request cancelled")]
    Cancelled,
    /// The connection is closed, or closed while the request was in flight.
    #[error("connection closed: {0}")]
    Closed(CloseReason),
    /// A non-2xx HTTP reply.
    #[error("HTTP {status}: {body}{}", hint.as_deref().map(|h| format!(" ({h})")).unwrap_or_default())]
    #[non_exhaustive]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The reply body as text (truncated to 4 KiB).
        body: String,
        /// What the transport can tell about the refusal, for people: e.g.
        /// the request header a 406 or 400 is about and the value that was
        /// sent, or the authorization a 401 asks for. Transport-specific
        /// detail goes here as text; this crate does no I/O and knows no
        /// HTTP header.
        hint: Option<Box<str>>,
    },
    /// The HTTP server no longer knows the `Mcp-Session-Id` (404, or a 400
    /// saying so). The session id is already dropped; the client layer may
    /// re-initialize once and retry.
    #[error("session expired: HTTP {status}: {body}")]
    #[non_exhaustive]
    SessionExpired {
        /// The HTTP status of the refusal (404, or 400).
        status: u16,
        /// The reply body as text, trimmed (truncated to 4 KiB).
        body: String,
    },
    /// The peer answered with a JSON-RPC error object.
    #[error("{0}")]
    JsonRpc(JsonRpcError),
    /// The peer sent something that is not a valid message: e.g. a response
    /// with both `result` and `error`. What is wrong with it is the
    /// `source`.
    #[error("malformed {}", match request {
        Some(id) => format!("response to request {id}"),
        None => "message".to_owned(),
    })]
    #[non_exhaustive]
    Malformed {
        /// The request the message answers, when its id could be read.
        request: Option<RequestId>,
        /// Why it is not a valid message.
        #[source]
        source: DecodeError,
    },
    /// A message exceeded the configured limit, in bytes.
    #[error("message too large: over the {limit}-byte limit")]
    #[non_exhaustive]
    MessageTooLarge {
        /// The limit that was exceeded, in bytes.
        limit: usize,
    },
    /// The server command could not be started; the OS error is the
    /// `source` (`command not found` when no `PATH` directory holds it).
    /// The text names the `PATH` searched unless the command is a path
    /// (holds a `/`), which is run as it is.
    #[error("cannot start {command:?}{}", if command.contains('/') {
        // A path is run as it is: no PATH was searched.
        String::new()
    } else {
        format!(" (PATH searched: {path})")
    })]
    #[non_exhaustive]
    Spawn {
        /// The command that was run.
        command: String,
        /// The `PATH` it was (or, for a path, would have been) looked up in.
        path: String,
        /// The OS error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// Any other I/O error; what failed, and why, is the `source`.
    #[error("I/O error")]
    Io(#[source] Arc<std::io::Error>),
    /// The peer broke a protocol rule in a way no other variant names
    /// (e.g. a 2xx reply that held no response, an unusable endpoint
    /// event, an error response with no id, a redirect the client refuses
    /// to follow). The catch-all for the peer's faults.
    #[error("protocol error: {detail}")]
    #[non_exhaustive]
    Protocol {
        /// The request whose exchange broke the rule, when there is one.
        request: Option<RequestId>,
        /// What happened, for people (URLs redacted, header values never
        /// shown).
        detail: String,
    },
    /// The transport was asked to send what cannot be sent: a URL, a
    /// header name or value, or params that cannot be used. The caller's
    /// (or its configuration's) mistake, not the peer's: sending it again
    /// fails the same way.
    #[error("cannot send: {detail}")]
    #[non_exhaustive]
    Misuse {
        /// What cannot be used, for people (URLs redacted, header values
        /// never shown).
        detail: String,
    },
    /// The server refused the request for want of authorization (spec:
    /// `basic/authorization`) and the client could not obtain it: a login
    /// is needed, the authorization server said no, or the step-up limit
    /// was reached. `reason` says what happened in words that never hold a
    /// secret; the cause, when there is one, is the `source`.
    #[error("authorization {kind} for {url}: {reason}")]
    #[non_exhaustive]
    Auth {
        /// What kind of failure.
        kind: AuthErrorKind,
        /// The URL of the request that was refused, credentials removed.
        url: String,
        /// What happened, for people (no token, code or secret).
        reason: String,
        /// The underlying error (a failed token request, say), if any.
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    },
}

/// What kind of authorization failure a [`TransportError::Auth`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthErrorKind {
    /// The user has to log in (interactively) before the request can
    /// succeed; nothing could be done without them.
    NeedsLogin,
    /// Authorization was tried and refused: by the authorization server, by
    /// the user, or because what a server or authorization server sent
    /// failed a check the spec requires (an issuer or resource mismatch).
    Denied,
    /// The server kept asking for more scope (403 `insufficient_scope`)
    /// past the client's limit of step-up attempts.
    StepUpLimit,
}

impl fmt::Display for AuthErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AuthErrorKind::NeedsLogin => "needs login",
            AuthErrorKind::Denied => "denied",
            AuthErrorKind::StepUpLimit => "step-up limit reached",
        })
    }
}

impl TransportError {
    /// A [`TransportError::Auth`] of `kind` for the request to `url`
    /// (credentials already removed by the caller), saying `reason`.
    pub fn auth(kind: AuthErrorKind, url: impl Into<String>, reason: impl Into<String>) -> Self {
        TransportError::Auth {
            kind,
            url: url.into(),
            reason: reason.into(),
            source: None,
        }
    }

    /// A [`TransportError::Auth`] as [`auth`](Self::auth), caused by
    /// `source` (reported by `source()`, never in the text).
    pub fn auth_with_source(
        kind: AuthErrorKind,
        url: impl Into<String>,
        reason: impl Into<String>,
        source: Arc<dyn std::error::Error + Send + Sync>,
    ) -> Self {
        TransportError::Auth {
            kind,
            url: url.into(),
            reason: reason.into(),
            source: Some(source),
        }
    }

    /// The kind of authorization failure, for [`TransportError::Auth`].
    pub fn auth_kind(&self) -> Option<AuthErrorKind> {
        match self {
            TransportError::Auth { kind, .. } => Some(*kind),
            _ => None,
        }
    }
}

impl TransportError {
    /// A [`TransportError::Timeout`]: the wait of `phase` ran out after
    /// `waited` (kept in whole milliseconds, saturating).
    pub fn timeout(waited: Duration, phase: TimeoutPhase) -> Self {
        TransportError::Timeout {
            ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
            phase,
            method: None,
        }
    }

    /// A [`TransportError::Http`] for a non-2xx reply with `status` and
    /// `body` (truncated by the caller) and the transport's hint.
    pub fn http(status: u16, body: impl Into<String>, hint: Option<Box<str>>) -> Self {
        TransportError::Http {
            status,
            body: body.into(),
            hint,
        }
    }

    /// A [`TransportError::SessionExpired`]: the server refused the session
    /// with `status` and `body`.
    pub fn session_expired(status: u16, body: impl Into<String>) -> Self {
        TransportError::SessionExpired {
            status,
            body: body.into(),
        }
    }

    /// A [`TransportError::Malformed`] for a message that answers no known
    /// request (or whose id could not be read).
    pub fn malformed(source: DecodeError) -> Self {
        TransportError::Malformed {
            request: None,
            source,
        }
    }

    /// A malformed-response error for request `id`.
    pub fn malformed_response(id: &RequestId, err: &DecodeError) -> Self {
        TransportError::Malformed {
            request: Some(id.clone()),
            source: err.clone(),
        }
    }

    /// A [`TransportError::MessageTooLarge`]: a message was over `limit`
    /// bytes.
    pub fn message_too_large(limit: usize) -> Self {
        TransportError::MessageTooLarge { limit }
    }

    /// A [`TransportError::Spawn`]: `command`, looked up in `path`, could
    /// not be started because of `source`.
    pub fn spawn(
        command: impl Into<String>,
        path: impl Into<String>,
        source: std::io::Error,
    ) -> Self {
        TransportError::Spawn {
            command: command.into(),
            path: path.into(),
            source: Arc::new(source),
        }
    }

    /// A [`TransportError::Protocol`] about no particular request.
    pub fn protocol(detail: impl Into<String>) -> Self {
        TransportError::Protocol {
            request: None,
            detail: detail.into(),
        }
    }

    /// A [`TransportError::Misuse`]: `detail` says what cannot be sent.
    pub fn misuse(detail: impl Into<String>) -> Self {
        TransportError::Misuse {
            detail: detail.into(),
        }
    }

    /// A [`TransportError::Protocol`] in the exchange of request `request`.
    pub fn protocol_in_request(request: RequestId, detail: impl Into<String>) -> Self {
        TransportError::Protocol {
            request: Some(request),
            detail: detail.into(),
        }
    }

    /// `true` for [`TransportError::Timeout`].
    pub fn is_timeout(&self) -> bool {
        matches!(self, TransportError::Timeout { .. })
    }

    /// `true` for [`TransportError::Closed`].
    pub fn is_closed(&self) -> bool {
        matches!(self, TransportError::Closed(_))
    }

    /// `true` for [`TransportError::Cancelled`].
    pub fn is_cancelled(&self) -> bool {
        matches!(self, TransportError::Cancelled)
    }

    /// `true` for [`TransportError::SessionExpired`].
    pub fn is_session_expired(&self) -> bool {
        matches!(self, TransportError::SessionExpired { .. })
    }

    /// The JSON-RPC error, when the peer answered with one.
    pub fn as_jsonrpc(&self) -> Option<&JsonRpcError> {
        match self {
            TransportError::JsonRpc(e) => Some(e),
            _ => None,
        }
    }

    /// The HTTP status, for [`TransportError::Http`].
    pub fn http_status(&self) -> Option<u16> {
        match self {
            TransportError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }
}

impl From<std::io::Error> for TransportError {
    fn from(e: std::io::Error) -> Self {
        TransportError::Io(Arc::new(e))
    }
}

impl From<JsonRpcError> for TransportError {
    fn from(e: JsonRpcError) -> Self {
        TransportError::JsonRpc(e)
    }
}

#[cfg(test)]
mod auth_error_tests {
    use super::*;

    /// The auth error says its kind, the URL and the reason, never its
    /// cause's text (that is `source()`), and can be asked its kind.
    #[test]
    fn auth_error_describes_its_own_level() {
        let cause: Arc<dyn std::error::Error + Send + Sync> =
            Arc::new(std::io::Error::other("token endpoint said secret-xyz"));
        let kinds = [
            (AuthErrorKind::NeedsLogin, "needs login"),
            (AuthErrorKind::Denied, "denied"),
            (AuthErrorKind::StepUpLimit, "step-up limit reached"),
        ];
        for (kind, words) in kinds {
            let e = TransportError::auth(kind, "https://example.com/mcp", "no token");
            assert_eq!(e.auth_kind(), Some(kind));
            assert_eq!(
                e.to_string(),
                format!("authorization {words} for https://example.com/mcp: no token")
            );
            assert!(std::error::Error::source(&e).is_none());
            let e = TransportError::auth_with_source(
                kind,
                "https://example.com/mcp",
                "no token",
                cause.clone(),
            );
            assert!(!e.to_string().contains("secret-xyz"));
            let source = std::error::Error::source(&e).map(|s| s.to_string());
            assert_eq!(source.as_deref(), Some("token endpoint said secret-xyz"));
        }
        assert_eq!(TransportError::Cancelled.auth_kind(), None);
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// Each level says its own part once: the cause is the `source()`, and
    /// its text is not repeated in `Display`.
    #[test]
    fn display_never_repeats_the_source() {
        let os = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file (os error 2)");
        let cases = [
            TransportError::from(os()),
            TransportError::spawn("my-server", "/usr/bin:/bin", os()),
            TransportError::malformed_response(
                &RequestId::Number(3),
                &DecodeError::ResultAndError {
                    id: RequestId::Number(3),
                },
            ),
            TransportError::malformed(DecodeError::BatchNotAllowed),
        ];
        for e in cases {
            let source = e.source().unwrap_or_else(|| panic!("{e:?} has no source"));
            let (text, cause) = (e.to_string(), source.to_string());
            assert!(!text.contains(&cause), "{text:?} repeats {cause:?}");
        }
    }

    #[test]
    fn display_says_what_the_fields_say() {
        let spawn = TransportError::spawn("my-server", "/usr/bin", std::io::Error::other("x"));
        assert_eq!(
            spawn.to_string(),
            r#"cannot start "my-server" (PATH searched: /usr/bin)"#
        );
        let malformed = TransportError::malformed_response(
            &RequestId::Number(3),
            &DecodeError::BatchNotAllowed,
        );
        assert_eq!(malformed.to_string(), "malformed response to request 3");
        assert_eq!(
            TransportError::malformed(DecodeError::BatchNotAllowed).to_string(),
            "malformed message"
        );
        let expired = TransportError::session_expired(404, "unknown session");
        assert!(expired.is_session_expired());
        assert_eq!(
            expired.to_string(),
            "session expired: HTTP 404: unknown session"
        );
        let protocol = TransportError::protocol_in_request(RequestId::Number(1), "no response");
        assert!(matches!(
            protocol,
            TransportError::Protocol {
                request: Some(RequestId::Number(1)),
                ..
            }
        ));
        assert_eq!(protocol.to_string(), "protocol error: no response");
        let misuse = TransportError::misuse("invalid header name \"a b\"");
        assert_eq!(
            misuse.to_string(),
            "cannot send: invalid header name \"a b\""
        );
        let http = TransportError::http(406, "no", Some("about Accept".into()));
        assert_eq!(http.http_status(), Some(406));
        assert_eq!(http.to_string(), "HTTP 406: no (about Accept)");
        // The waits that are not a request's name their phase.
        for (phase, text) in [
            (TimeoutPhase::Connect, "connect"),
            (TimeoutPhase::Notify, "notify"),
            (TimeoutPhase::SseResponse, "SSE response"),
            (TimeoutPhase::Request, "request"),
        ] {
            assert_eq!(
                TransportError::timeout(Duration::from_millis(5), phase).to_string(),
                format!("timed out after 5 ms waiting for {text}")
            );
        }
        let timeout = TransportError::timeout(Duration::MAX, TimeoutPhase::Connect);
        assert!(matches!(
            timeout,
            TransportError::Timeout {
                ms: u64::MAX,
                phase: TimeoutPhase::Connect,
                method: None,
            }
        ));
    }
}
