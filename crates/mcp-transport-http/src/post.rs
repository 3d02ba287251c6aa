//! One POST of an outgoing message, bounded as its kind asks: a request by
//! its caller's deadline (the dispatcher drops this future; a Retry-After
//! wait never outlasts it), a notification or a response by the notify
//! timeout. Both transports (Streamable HTTP and the legacy endpoint) post
//! through it.

use bytes::Bytes;
use mcp_transport::{Body, Outgoing, OutgoingKind, TimeoutPhase, TransportError};
use tokio::time::Instant;

use crate::errors::timeout;
use crate::exchange::{HttpRequest, Reply};
use crate::shared::Shared;

/// `message`'s body as the shared [`Bytes`] of its exchange (held for a
/// redirect or an authorization retry), left in `message` shared too (the
/// legacy fallback sends the same bytes): one conversion, no copy.
pub(crate) fn shared_body(message: &mut Outgoing) -> Bytes {
    let body = std::mem::take(&mut message.body).into_bytes();
    message.body = Body::from(body.clone());
    body
}

/// Sends `request` for `message`; the reply and, for a notification or a
/// response, the deadline that also bounds reading an error body.
///
/// Errors: the exchange's, or a notify timeout.
pub(crate) async fn post(
    shared: &Shared,
    request: &HttpRequest,
    message: &Outgoing,
) -> Result<(Reply, Option<Instant>), TransportError> {
    let (exchange, session) = (&shared.exchange, &shared.session);
    if message.kind == OutgoingKind::Request {
        let reply = exchange.send(request, session, message.deadline).await?;
        return Ok((reply, None));
    }
    let limit = shared.config.timeouts.notify;
    let deadline = Instant::now() + limit;
    let send = exchange.send(request, session, Some(deadline));
    let reply = tokio::time::timeout_at(deadline, send)
        .await
        .map_err(|_| timeout(limit, TimeoutPhase::Notify))??;
    Ok((reply, Some(deadline)))
}
