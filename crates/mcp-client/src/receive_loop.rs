//! The receive loop: takes the transport's events, answers each server
//! request on its own task (so a slow sampling answer never delays a
//! `ping`), and hands notifications to the [`ClientHandler`] in arrival
//! order. Bad input is answered or logged; the loop never stops on it.
//!
//! Server requests in flight are bounded: at most
//! [`MAX_IN_FLIGHT_SERVER_REQUESTS`] (256) are being answered at once; past
//! it, and for a request whose id is already being answered, the server
//! gets an error response at once and no handler runs.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

use mcp_transport::{CancellationToken, IncomingRequest, TransportEvent, TransportEvents};
use mcp_types::elicitation::ElicitationComplete;
use mcp_types::logging::LoggingMessage;
use mcp_types::notifications::{
    Cancelled, ProgressNotification, PromptListChanged, ResourceListChanged, ToolListChanged,
};
use mcp_types::resources::ResourceUpdated;
use mcp_types::tasks::TaskStatusNotification;
use mcp_types::{ErrorCode, JsonRpcError, JsonRpcNotification, Notification, RequestId};
use serde::Deserialize;
use serde_json::Value;

use crate::connection::Connection;
use crate::list_changes::ListKind;
use crate::options::DEFAULT_REFRESH_DEBOUNCE;
use crate::server_requests::{self, ServerParams, ServerRequest};

type InFlight = Arc<Mutex<HashMap<RequestId, CancellationToken>>>;

/// How many server requests may be answered at once: 256. A request past
/// it gets `-32603` (Internal error) without reaching the handler, so a
/// server cannot grow the client's tasks and in-flight table without bound.
pub(crate) const MAX_IN_FLIGHT_SERVER_REQUESTS: usize = 256;

/// Registers `request` as in flight, or returns the error to answer it with:
/// `-32600` when its id is already being answered (spec `basic`: an id is
/// never reused), `-32603` past [`MAX_IN_FLIGHT_SERVER_REQUESTS`].
fn admit(
    in_flight: &InFlight,
    id: &RequestId,
    token: &CancellationToken,
) -> Result<(), JsonRpcError> {
    let mut map = lock(in_flight);
    if map.contains_key(id) {
        return Err(JsonRpcError::new(
            ErrorCode::INVALID_REQUEST,
            format!("request id {id} is already used by a request still being answered"),
        ));
    }
    if map.len() >= MAX_IN_FLIGHT_SERVER_REQUESTS {
        return Err(JsonRpcError::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "too many server requests in flight (limit {MAX_IN_FLIGHT_SERVER_REQUESTS}); \
                 retry after some are answered"
            ),
        ));
    }
    map.insert(id.clone(), token.clone());
    Ok(())
}

fn lock(map: &InFlight) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
    map.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the receive loop on the transport's events. It holds the
/// connection weakly, so dropping every client ends it; the connection
/// aborts it when dropped.
pub(crate) fn start(conn: &Arc<Connection>) {
    match conn.transport.take_events() {
        Some(events) => conn.set_receive_loop(tokio::spawn(run(Arc::downgrade(conn), events))),
        None => tracing::warn!(
            "the transport's events were already taken: server requests get default answers"
        ),
    }
}

/// Runs until the events channel ends or the client is dropped.
async fn run(inner: Weak<Connection>, mut events: TransportEvents) {
    let in_flight: InFlight = Arc::default();
    while let Some(event) = events.recv().await {
        let Some(inner) = inner.upgrade() else { break };
        match event {
            TransportEvent::Request(request) => {
                let token = CancellationToken::new();
                if let Err(error) = admit(&in_flight, &request.id, &token) {
                    tracing::warn!(method = %request.method, id = %request.id, %error, "server request refused");
                    if let Err(e) = request.respond(Err(error)).await {
                        tracing::debug!(error = %e, "could not deliver the refusal of a server request");
                    }
                    continue;
                }
                let in_flight = in_flight.clone();
                tokio::spawn(async move {
                    let id = request.id.clone();
                    answer(&inner, request, token).await;
                    lock(&in_flight).remove(&id);
                });
            }
            TransportEvent::Notification(n) => notification(&inner, n, &in_flight).await,
            TransportEvent::Closed(reason) => {
                inner.mark_closed(reason.clone());
                inner.options.handler.on_closed(reason).await
            }
            TransportEvent::Error(e) => {
                tracing::warn!(error = %e, "transport reported a fault");
            }
            other => tracing::debug!(event = ?other, "unhandled transport event"),
        }
    }
    if let Some(inner) = inner.upgrade() {
        // The channel ended without a `Closed` event (e.g. it was full).
        inner.mark_closed(mcp_transport::CloseReason::new("connection closed"));
    }
    tracing::debug!("receive loop ended");
}

async fn answer(inner: &Connection, mut request: IncomingRequest, cancel: CancellationToken) {
    let cancelled_by_server = cancel.clone();
    let caps = inner.declared_capabilities();
    // Moved out of the message: decoded into the method's params type as it is.
    let params = match request.params.take() {
        Some(params) => ServerParams::Value(params),
        None => ServerParams::Absent,
    };
    let outcome = server_requests::answer(
        inner.options.handler.as_ref(),
        &caps,
        ServerRequest {
            id: request.id.clone(),
            method: &request.method,
            params,
            cancel,
        },
    )
    .await;
    if let Err(e) = &outcome {
        tracing::debug!(method = %request.method, id = %request.id, error = %e, "answering a server request with an error");
    }
    if cancelled_by_server.is_cancelled() {
        // The server cancelled this request: it SHOULD NOT get an answer
        // (spec `basic/utilities/cancellation`).
        tracing::debug!(method = %request.method, id = %request.id, "server cancelled its request; no answer sent");
        request.discard();
        return;
    }
    let method = request.method.clone();
    if let Err(e) = request.respond(outcome).await {
        tracing::debug!(%method, error = %e, "could not deliver the answer to a server request");
    }
}

/// Schedules a debounced tool-list refresh after `tools/list_changed`
/// ([`DEFAULT_REFRESH_DEBOUNCE`]), when configured and the server declared
/// `tools.listChanged`: the connection's tool listing, which replaces the
/// tool cache.
fn schedule_tool_refresh(conn: &Arc<Connection>) {
    if !conn.options.auto_refresh_tools {
        return;
    }
    let advertised = conn.session().is_some_and(|s| {
        s.capabilities
            .tools
            .as_ref()
            .is_some_and(|t| t.list_changed == Some(true))
    });
    if !advertised || conn.refresh_pending.swap(true, Ordering::AcqRel) {
        return;
    }
    let weak = Arc::downgrade(conn);
    tokio::spawn(async move {
        tokio::time::sleep(DEFAULT_REFRESH_DEBOUNCE).await;
        let Some(conn) = weak.upgrade() else { return };
        conn.refresh_pending.store(false, Ordering::Release);
        if let Err(e) = conn.refresh_tools().await {
            tracing::warn!(error = %e, "refreshing the tool list after list_changed failed");
        }
    });
}

/// The params of notification `N`, decoded in place (absent params read
/// as `{}`); `None`, logged, when they do not decode.
fn decode_or_log<N: Notification>(n: &JsonRpcNotification) -> Option<N::Params> {
    let decoded = match &n.params {
        Some(params) => N::Params::deserialize(params),
        None => N::Params::deserialize(&Value::Object(Default::default())),
    };
    match decoded {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::warn!(method = %n.method, error = %e, "notification params do not decode");
            None
        }
    }
}

async fn notification(inner: &Arc<Connection>, n: JsonRpcNotification, in_flight: &InFlight) {
    // 2026-07-28 `subscriptions/listen`: the acknowledgement and a server
    // cancellation of a listen end here; change notifications are copied to
    // their subscription and still reach the handler below.
    if inner.subscriptions.route(&n) {
        return;
    }
    let h = inner.options.handler.as_ref();
    match n.method.as_str() {
        LoggingMessage::METHOD => {
            if let Some(p) = decode_or_log::<LoggingMessage>(&n) {
                return h.on_logging_message(p).await;
            }
        }
        ProgressNotification::METHOD => {
            if let Some(p) = decode_or_log::<ProgressNotification>(&n) {
                return h.on_progress(p).await;
            }
        }
        ResourceUpdated::METHOD => {
            if let Some(p) = decode_or_log::<ResourceUpdated>(&n) {
                return h.on_resource_updated(p).await;
            }
        }
        // The generation is raised before the handler hears of it: a
        // listing the handler (or anyone after it) starts is fresh.
        ToolListChanged::METHOD => {
            inner.list_changed(ListKind::Tools);
            schedule_tool_refresh(inner);
            return h.on_tools_list_changed().await;
        }
        PromptListChanged::METHOD => {
            inner.list_changed(ListKind::Prompts);
            return h.on_prompts_list_changed().await;
        }
        ResourceListChanged::METHOD => {
            inner.list_changed(ListKind::Resources);
            return h.on_resources_list_changed().await;
        }
        Cancelled::METHOD => {
            if let Some(p) = decode_or_log::<Cancelled>(&n) {
                if let Some(id) = &p.request_id {
                    match lock(in_flight).get(id) {
                        Some(token) => token.cancel(),
                        None => {
                            tracing::debug!(%id, "cancellation for an unknown or finished server request")
                        }
                    }
                }
                return h.on_cancelled(p).await;
            }
        }
        ElicitationComplete::METHOD => {
            if let Some(p) = decode_or_log::<ElicitationComplete>(&n) {
                return h.on_elicitation_complete(p).await;
            }
        }
        TaskStatusNotification::METHOD => {
            if let Some(p) = decode_or_log::<TaskStatusNotification>(&n) {
                return h.on_task_status(p).await;
            }
        }
        _ => {}
    }
    h.on_unknown_notification(n).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::{ClientHandler, RequestContext};
    use crate::testing::memory_pair;
    use crate::{Client, ClientOptions, VersionPreference};
    use async_trait::async_trait;
    use mcp_types::roots::ListRootsResult;
    use serde_json::json;

    /// Answers `roots/list` only when the server cancels it.
    struct Stalls;

    #[async_trait]
    impl ClientHandler for Stalls {
        async fn list_roots(&self, ctx: RequestContext) -> Result<ListRootsResult, JsonRpcError> {
            ctx.cancel.cancelled().await;
            Err(JsonRpcError::new(ErrorCode::INTERNAL_ERROR, "cancelled"))
        }
    }

    #[tokio::test]
    async fn server_requests_in_flight_are_bounded_and_ids_unique() {
        let (transport, mut peer) = memory_pair();
        let server = tokio::spawn(async move {
            peer.handshake("2025-11-25", json!({})).await;
            peer
        });
        let options = ClientOptions::new("t", "1")
            .with_version_preference(VersionPreference::Handshake)
            .with_handler(Arc::new(Stalls))
            .with_roots(true);
        let _client = Client::connect(transport, options).await.expect("connect");
        let mut peer = server.await.expect("peer task");

        let cap = i64::try_from(MAX_IN_FLIGHT_SERVER_REQUESTS).expect("small");
        for id in 0..cap {
            peer.request(id, "roots/list", None).await;
        }
        // An id still being answered is refused, not run a second time.
        peer.request(0, "roots/list", None).await;
        let dup = peer.expect_response(&RequestId::from(0)).await;
        assert_eq!(
            dup.outcome.map_err(|e| e.code),
            Err(ErrorCode::INVALID_REQUEST)
        );
        // One past the cap is refused at once.
        peer.request(cap, "roots/list", None).await;
        let over = peer.expect_response(&RequestId::from(cap)).await;
        assert_eq!(
            over.outcome.map_err(|e| e.code),
            Err(ErrorCode::INTERNAL_ERROR)
        );
        // Cancelling one frees its slot: a later request is answered by the
        // client again (a ping, answered at once).
        peer.notify("notifications/cancelled", Some(json!({"requestId": 1})))
            .await;
        let mut admitted = false;
        for id in cap + 1..cap + 101 {
            peer.request(id, "ping", None).await;
            let reply = peer.expect_response(&RequestId::from(id)).await;
            if reply.outcome == Ok(json!({})) {
                admitted = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(admitted, "a freed slot was never reused");
    }
}
