//! The legacy HTTP+SSE transport (spec 2024-11-05 `basic/transports` §
//! HTTP with SSE): GET the SSE URL, wait for the `endpoint` event, resolve
//! its URL against the SSE URL (kept opaque: `?sessionId=`, `?session_id=`
//! and the like pass through verbatim), POST every message there, and read
//! every response and server message from the GET stream.

use std::sync::Arc;

use bytes::Bytes;
use http::Uri;
use mcp_transport::{CloseReason, Dispatcher, Outgoing, TimeoutPhase, TransportError};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::decode::ReplyBody;
use crate::errors::{http_error, timeout};
use crate::event_stream::{EventStream, Next, carries_message};
use crate::exchange::{HttpRequest, RequestKind};
use crate::media::{Media, classify};
use crate::mode::LegacyLink;
use crate::post::{post, shared_body};
use crate::redact::redact_url;
use crate::shared::Shared;
use crate::url::{resolve, same_origin};

/// Opens the SSE stream and waits (up to the connect timeout) for the
/// `endpoint` event. The stream is then read by a background task until
/// it ends, which closes the connection.
///
/// Errors: `Http` for a non-2xx GET, `Protocol` for a non-SSE reply or a
/// bad endpoint, `Timeout{Connect}`, `Closed` when the stream ends first.
pub(crate) async fn open(
    shared: &Arc<Shared>,
    dispatcher: &Arc<Dispatcher>,
) -> Result<Arc<LegacyLink>, TransportError> {
    let limit = shared.config.timeouts.connect;
    let deadline = Instant::now() + limit;
    let kind = RequestKind::Get {
        last_event_id: None,
    };
    let request = HttpRequest::new(shared.url.clone(), Bytes::new(), kind);
    let get = shared
        .exchange
        .send(&request, &shared.session, Some(deadline));
    let reply = tokio::time::timeout_at(deadline, get)
        .await
        .map_err(|_| timeout(limit, TimeoutPhase::Connect))??;
    if !reply.response.status().is_success() {
        return Err(http_error(shared, reply, None, Some(deadline)).await);
    }
    match classify(reply.response.headers()) {
        Media::EventStream => {}
        other => {
            return Err(TransportError::protocol(format!(
                "legacy HTTP+SSE: GET {} answered with {other:?}, not text/event-stream",
                redact_url(&shared.url.to_string())
            )));
        }
    }
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(read_legacy_stream(
        shared.clone(),
        dispatcher.clone(),
        reply.response.into_body(),
        tx,
    ));
    shared.session.set_legacy_reader(task.abort_handle());
    match tokio::time::timeout(limit, rx).await {
        Ok(Ok(Ok(endpoint))) => {
            tracing::debug!(connection = %shared.label(), endpoint = %redact_url(&endpoint.to_string()), "legacy HTTP+SSE endpoint received");
            Ok(Arc::new(LegacyLink { endpoint }))
        }
        Ok(Ok(Err(e))) => {
            task.abort();
            Err(e)
        }
        Ok(Err(_)) => Err(TransportError::Closed(CloseReason::new(
            "legacy SSE stream ended before the endpoint event",
        ))),
        Err(_) => {
            task.abort();
            Err(timeout(limit, TimeoutPhase::Connect))
        }
    }
}

/// POSTs one message to the legacy endpoint; any 2xx means accepted (the
/// response, for a request, arrives on the SSE stream).
pub(crate) async fn send(
    shared: &Shared,
    link: &LegacyLink,
    mut message: Outgoing,
) -> Result<(), TransportError> {
    let kind = RequestKind::Post {
        method: message.method.clone(),
        with_session: false,
        metadata: Vec::new(),
    };
    let request = HttpRequest::new(link.endpoint.clone(), shared_body(&mut message), kind);
    let (reply, deadline) = post(shared, &request, &message).await?;
    if !reply.response.status().is_success() {
        return Err(http_error(shared, reply, message.id.as_ref(), deadline).await);
    }
    Ok(())
}

async fn read_legacy_stream(
    shared: Arc<Shared>,
    dispatcher: Arc<Dispatcher>,
    body: ReplyBody,
    endpoint: oneshot::Sender<Result<Uri, TransportError>>,
) {
    let mut endpoint = Some(endpoint);
    let mut stream = EventStream::new(body, shared.config.max_event_bytes, None);
    let label = shared.label().to_owned();
    loop {
        match stream.next().await {
            Next::Event(event) if event.event_type == "endpoint" => {
                let Some(tx) = endpoint.take() else {
                    tracing::debug!(connection = %label, "second endpoint event ignored");
                    continue;
                };
                let result = resolve(&shared.url, event.data.as_str())
                    .map_err(|e| {
                        let shown = redact_url(event.data.as_str());
                        TransportError::protocol(format!("legacy endpoint event {shown:?}: {e}"))
                    })
                    .and_then(|uri| {
                        if same_origin(&shared.url, &uri) {
                            Ok(uri)
                        } else {
                            Err(TransportError::protocol(format!(
                                "legacy endpoint {} is not on the SSE URL's origin",
                                redact_url(&uri.to_string())
                            )))
                        }
                    });
                let _ = tx.send(result);
            }
            Next::Event(event) if carries_message(&event) => {
                dispatcher.handle_frame(event.data.into_bytes()).await;
            }
            Next::Event(event) => {
                tracing::debug!(connection = %label, event = %event.event_type, "SSE event without a message skipped");
            }
            Next::TooLarge(limit) => {
                tracing::warn!(connection = %label, limit, "legacy SSE event over the size limit; skipped");
            }
            Next::Idle(_) => {}
            Next::End(why) => {
                tracing::debug!(connection = %label, %why, "legacy SSE stream ended");
                dispatcher.close(CloseReason::new(format!("legacy SSE stream ended: {why}")));
                return;
            }
        }
    }
}
