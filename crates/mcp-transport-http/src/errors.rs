//! How what went wrong becomes a [`TransportError`]: a non-2xx reply
//! (`SessionExpired`, the JSON-RPC error the body carries, or `Http` with
//! the body and the header the refusal is about), a reply stream that ended
//! without its response, and a timeout. (A network failure is the
//! exchange's, in `exchange/mod.rs`.)

use std::time::Duration;

use http::header::WWW_AUTHENTICATE;
use mcp_transport::{CloseReason, TimeoutPhase, TransportError};
use mcp_types::{JsonRpcMessage, JsonRpcResponse, RequestId};
use tokio::time::Instant;

use crate::body::read_limited;
use crate::config::{ERROR_BODY_LIMIT, ERROR_BODY_WAIT};
use crate::exchange::Reply;
use crate::media::header_text;
use crate::shared::Shared;
use crate::wire_rules::MCP_AUTH_SERVER;

/// The error for a non-2xx reply of `shared`'s connection:
/// `SessionExpired` (404, or a 400 saying the session is unknown, to a
/// request that carried `Mcp-Session-Id`; the id is dropped), the JSON-RPC
/// error for `request` when the body is one, else `Http` with the body
/// (truncated to 4 KiB) and a hint (the header a 406 or 400 is about, or
/// the authorization a refusal asks for). Every secret value the
/// connection sent is hidden in all of them.
///
/// The body is read for at most [`ERROR_BODY_WAIT`], and not past
/// `deadline` (the send's own, when it has one): a server that never
/// ends its error body cannot hold the send; the error then carries what
/// arrived.
pub(crate) async fn http_error(
    shared: &Shared,
    reply: Reply,
    request: Option<&RequestId>,
    deadline: Option<Instant>,
) -> TransportError {
    let status = reply.response.status().as_u16();
    let headers = reply.response.headers().clone();
    let wait_until = Instant::now() + ERROR_BODY_WAIT;
    let until = deadline.map_or(wait_until, |d| d.min(wait_until));
    let (bytes, _) = read_limited(reply.response.into_body(), ERROR_BODY_LIMIT, until).await;
    // Servers echo what they refused (`denied for Bearer …`): every
    // secret the connection sent is hidden before the body is looked
    // at, so neither the error, its hint nor a log line built from it
    // can show one.
    let text = shared.exchange.scrub(&String::from_utf8_lossy(&bytes));
    // A body still coded (in a coding the client does not decode; the
    // others arrive decoded) is not shown as text: its bytes would be
    // noise, or worse, on a terminal.
    let encoding = crate::media::content_encoding(&headers);
    let body = match &encoding {
        Some(encoding) => format!(
            "({} bytes of a body with Content-Encoding {encoding}, {})",
            bytes.len(),
            crate::media::NOT_DECODED
        ),
        None => text.clone(),
    };
    if let Some(sent) = reply.sent_session.as_deref()
        && (status == 404 || (status == 400 && says_session_unknown(&body)))
    {
        shared.session.drop_session_id(sent);
        tracing::debug!(connection = %shared.label(), status, "session expired; Mcp-Session-Id dropped");
        return TransportError::session_expired(status, body.trim());
    }
    if let Some(id) = request
        && let Ok(JsonRpcMessage::Response(JsonRpcResponse {
            id: Some(rid),
            outcome: Err(e),
        })) = JsonRpcMessage::decode(text.as_bytes())
        && mcp_transport::echo_answers(id, &rid)
    {
        return TransportError::JsonRpc(e);
    }
    let hint = header_hint(status, &body, reply.sent_accept, reply.sent_version)
        .or_else(|| authorization_hint(&headers))
        .map(|hint| shared.exchange.scrub(&hint).into_boxed_str());
    TransportError::http(status, body, hint)
}

/// What a refusal says about the authorization it wants, for people: its
/// `WWW-Authenticate` and `Mcp-Auth-Server` headers as sent (secrets the
/// connection sent are scrubbed by the caller). A configured
/// [`AuthProvider`](crate::AuthProvider) sees them itself, as an
/// [`AuthChallenge`](crate::AuthChallenge); this is for a connection
/// without one.
fn authorization_hint(headers: &http::HeaderMap) -> Option<String> {
    let shown: Vec<String> = [
        (WWW_AUTHENTICATE.as_str(), "WWW-Authenticate"),
        (MCP_AUTH_SERVER, "Mcp-Auth-Server"),
    ]
    .into_iter()
    .filter_map(|(name, shown)| header_text(headers, name).map(|text| format!("{shown}: {text}")))
    .collect();
    (!shown.is_empty()).then(|| format!("the server asks for authorization; {}", shown.join("; ")))
}

/// The request header a refusal is about, with the value sent (a 406 or
/// 400 is useless unless it names the header): `Accept` for a 406;
/// `MCP-Protocol-Version` for a 400 whose body speaks of the protocol
/// version or of that header.
fn header_hint(
    status: u16,
    body: &str,
    sent_accept: Option<&str>,
    sent_version: Option<&str>,
) -> Option<String> {
    let shown = |value: Option<&str>| {
        value.map_or_else(|| "none was sent".to_owned(), |v| format!("sent {v:?}"))
    };
    match status {
        406 => Some(format!(
            "the server did not accept the Accept header: {}",
            shown(sent_accept)
        )),
        400 => {
            let lower = body.to_ascii_lowercase();
            (lower.contains("protocol version") || lower.contains("protocol-version")).then(|| {
                format!(
                    "about the MCP-Protocol-Version header: {}",
                    shown(sent_version)
                )
            })
        }
        _ => None,
    }
}

/// `true` when a 400 body says the session is unknown (how real servers
/// answer a stale `Mcp-Session-Id`).
fn says_session_unknown(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    b.contains("session")
        && [
            "not found",
            "unknown",
            "invalid",
            "expired",
            "no valid",
            "does not exist",
            "missing",
        ]
        .iter()
        .any(|w| b.contains(w))
}

/// The error of a request whose reply ended without its response.
pub(crate) fn no_response(id: &RequestId, detail: Option<&str>) -> TransportError {
    let mut message = format!("No response received for request ID {id}");
    if let Some(d) = detail {
        message.push_str(" (");
        message.push_str(d);
        message.push(')');
    }
    TransportError::Closed(CloseReason::new(message))
}

/// A timeout error of `phase` after `d`.
pub(crate) fn timeout(d: Duration, phase: TimeoutPhase) -> TransportError {
    TransportError::timeout(d, phase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_unknown_bodies() {
        assert!(says_session_unknown(
            r#"{"error":{"message":"Session not found"}}"#
        ));
        assert!(says_session_unknown(
            "Bad Request: No valid session ID provided"
        ));
        assert!(says_session_unknown("invalid session id"));
        assert!(!says_session_unknown("Unsupported protocol version"));
        assert!(!says_session_unknown("session"));
    }
}
