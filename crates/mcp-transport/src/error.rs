//! The transport error type (spec: `basic/index` § Responses for JSON-RPC
//! errors; `basic/transports` for what closes a connection).

use std::fmt;
use std::sync::Arc;

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
/// [`is_session_expired`](Self::is_session_expired)) rather than matching
/// strings. It is `Clone`, so one close can fail many pending requests.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// A wait ran out. The peer was sent `notifications/cancelled` for a
    /// request (never for `initialize`).
    #[error("timed out after {ms} ms waiting for {phase}")]
    Timeout {
        /// How long was waited, in milliseconds.
        ms: u64,
        /// Which wait.
        phase: TimeoutPhase,
    },
    /// The caller cancelled the request; the peer was sent `notifications/cancelled`.
    #[error("request cancelled")]
    Cancelled,
    /// The connection is closed, or closed while the request was in flight.
    #[error("connection closed: {0}")]
    Closed(CloseReason),
    /// A non-2xx HTTP reply.
    #[error("HTTP {status}: {body}{}", hint.as_deref().map(|h| format!(" ({h})")).unwrap_or_default())]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The reply body as text (truncated to 4 KiB).
        body: String,
        /// The `WWW-Authenticate` header, when present (an auth hint).
        www_authenticate: Option<String>,
        /// The `Mcp-Auth-Server` header, when present (an auth hint).
        auth_server: Option<String>,
        /// What the transport can tell about the refusal, e.g. the request
        /// header a 406 or 400 is about and the value that was sent.
        hint: Option<Box<str>>,
    },
    /// The HTTP server no longer knows the `Mcp-Session-Id` (404, or a 400
    /// saying so). The session id is already dropped; the client layer may
    /// re-initialize once and retry.
    #[error("session expired: {0}")]
    SessionExpired(String),
    /// The peer answered with a JSON-RPC error object.
    #[error("{0}")]
    JsonRpc(JsonRpcError),
    /// The peer sent something that is not a valid message for this request:
    /// e.g. a response with both `result` and `error`.
    #[error("malformed message: {0}")]
    Malformed(String),
    /// A message exceeded the configured limit, in bytes.
    #[error("message too large: over the {limit}-byte limit")]
    MessageTooLarge {
        /// The limit that was exceeded, in bytes.
        limit: usize,
    },
    /// The server command could not be started.
    #[error("cannot start {command:?}: {source} (PATH searched: {path})")]
    Spawn {
        /// The command that was run.
        command: String,
        /// The `PATH` it was looked up in.
        path: String,
        /// The OS error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// Any other I/O error.
    #[error("I/O error: {0}")]
    Io(#[source] Arc<std::io::Error>),
    /// A protocol rule was broken by the peer in a way no other variant names.
    #[error("protocol error: {0}")]
    Protocol(String),
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
        matches!(self, TransportError::SessionExpired(_))
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

    /// A malformed-response error for request `id`.
    pub fn malformed_response(id: &RequestId, err: &DecodeError) -> Self {
        TransportError::Malformed(format!("invalid response to request {id}: {err}"))
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
