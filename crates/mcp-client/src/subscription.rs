//! `subscriptions/listen` (2026-07-28, spec `basic/subscriptions`; client
//! checklist §5): one long-lived request per [`Subscription`] whose
//! notifications are demultiplexed by
//! `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's
//! id, compared type-exactly).
//!
//! The request is sent without a timeout on its own task; the receive loop
//! (`receive_loop.rs`) offers every notification to this module's registry
//! before the [`crate::ClientHandler`] sees it. Dropping the
//! [`Subscription`] aborts that task, which drops the request: the HTTP
//! transport drops the listen response stream (the cancellation under
//! 2026-07-28), stdio sends `notifications/cancelled` with the listen id
//! (spec §5.7).

use std::fmt;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use mcp_transport::{RequestOptions, TimeoutPhase, TransportError};
use mcp_types::base::META_SUBSCRIPTION_ID;
use mcp_types::resources::ResourceUriParams;
use mcp_types::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledged, SubscriptionsListen, SubscriptionsListenResult,
    SubscriptionsParams,
};
use mcp_types::{JsonRpcNotification, Notification, Request, RequestId};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::client::Client;
use crate::connection::Connection;
use crate::error::ClientError;
use crate::mrtr;

/// How many events a [`Subscription`] buffers for its reader: 256. Past
/// it, events are dropped and counted; the reader then gets one
/// [`SubscriptionEvent::Lagged`] with the count. One slot is kept for the
/// final event, so the end of a subscription is never lost.
pub const SUBSCRIPTION_BUFFER: usize = 256;

/// One event of a [`Subscription`], in arrival order.
///
/// The change notifications are also delivered to the
/// [`crate::ClientHandler`] (`on_tools_list_changed`, …,
/// `on_resource_updated`), whether or not anyone reads the subscription.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SubscriptionEvent {
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated` (the URI may be a sub-resource of
    /// a subscribed one, spec §5.6).
    ResourceUpdated(ResourceUriParams),
    /// Any other notification tagged with this subscription's id (e.g. the
    /// tasks extension's `notifications/tasks`).
    Other(JsonRpcNotification),
    /// `missed` events were dropped because the reader fell more than
    /// [`SUBSCRIPTION_BUFFER`] events behind: treat cached lists as stale.
    Lagged {
        /// How many events were dropped.
        missed: u64,
    },
    /// Final: the server ended the subscription with a response to the
    /// listen request (spec §5.8, graceful closure).
    Ended(SubscriptionsListenResult),
    /// Final: the server sent `notifications/cancelled` for the listen
    /// request (spec §5.8, stdio).
    CancelledByServer {
        /// The server's reason, if any.
        reason: Option<String>,
    },
    /// Final: the listen request failed: an error response, the connection
    /// closed, or the HTTP response stream broke without a response (an
    /// unexpected disconnect, spec §5.9: listen again for a new
    /// subscription, and treat cached lists as stale).
    Failed(ClientError),
}

impl SubscriptionEvent {
    /// `true` for the events after which nothing more arrives.
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            SubscriptionEvent::Ended(_)
                | SubscriptionEvent::CancelledByServer { .. }
                | SubscriptionEvent::Failed(_)
        )
    }

    fn from_notification(n: &JsonRpcNotification) -> SubscriptionEvent {
        match n.method.as_str() {
            "notifications/tools/list_changed" => SubscriptionEvent::ToolsListChanged,
            "notifications/prompts/list_changed" => SubscriptionEvent::PromptsListChanged,
            "notifications/resources/list_changed" => SubscriptionEvent::ResourcesListChanged,
            "notifications/resources/updated" => {
                let params = n.params.clone().unwrap_or(Value::Null);
                match serde_json::from_value::<ResourceUriParams>(params) {
                    Ok(p) => SubscriptionEvent::ResourceUpdated(p),
                    Err(e) => {
                        tracing::warn!(error = %e, "resources/updated params do not decode");
                        SubscriptionEvent::Other(n.clone())
                    }
                }
            }
            _ => SubscriptionEvent::Other(n.clone()),
        }
    }
}

/// The state one subscription shares between its reader, the receive loop
/// and the task that owns the listen request.
struct Shared {
    tx: mpsc::Sender<SubscriptionEvent>,
    state: Mutex<PushState>,
}

#[derive(Default)]
struct PushState {
    /// The listen request's id, once the acknowledgement told it.
    id: Option<RequestId>,
    /// The filter the server acknowledged.
    granted: Option<SubscriptionFilter>,
    missed: u64,
    finished: bool,
}

impl Shared {
    fn new() -> (Arc<Shared>, mpsc::Receiver<SubscriptionEvent>) {
        let (tx, rx) = mpsc::channel(SUBSCRIPTION_BUFFER);
        let shared = Arc::new(Shared {
            tx,
            state: Mutex::new(PushState::default()),
        });
        (shared, rx)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PushState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `event` without blocking; a full buffer counts it as missed.
    /// After a final event nothing more is queued.
    fn push(&self, event: SubscriptionEvent) {
        let mut state = self.state();
        if state.finished {
            return;
        }
        let last = event.is_final();
        if state.missed > 0 && self.tx.capacity() >= 2 {
            let missed = std::mem::take(&mut state.missed);
            let _ = self.tx.try_send(SubscriptionEvent::Lagged { missed });
        }
        // One slot stays free for the final event.
        let needed = if last { 1 } else { 2 };
        if self.tx.capacity() < needed {
            state.missed += 1;
            tracing::warn!(
                missed = state.missed,
                "subscription reader is behind; event dropped"
            );
            return;
        }
        if last {
            state.finished = true;
        }
        let _ = self.tx.try_send(event);
    }

    fn covers(&self, n: &JsonRpcNotification) -> bool {
        let state = self.state();
        let Some(granted) = &state.granted else {
            return false;
        };
        match n.method.as_str() {
            "notifications/tools/list_changed" => granted.tools_list_changed == Some(true),
            "notifications/prompts/list_changed" => granted.prompts_list_changed == Some(true),
            "notifications/resources/list_changed" => granted.resources_list_changed == Some(true),
            "notifications/resources/updated" => granted
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| !uris.is_empty()),
            _ => false,
        }
    }
}

/// A listen whose acknowledgement has not arrived yet.
struct AwaitingAck {
    shared: Arc<Shared>,
    acked: oneshot::Sender<SubscriptionFilter>,
}

/// The client's active subscriptions (one per connection).
#[derive(Default)]
pub(crate) struct Registry {
    active: Mutex<Vec<Arc<Shared>>>,
    awaiting: Mutex<Option<AwaitingAck>>,
    /// Listens are started one at a time, so an acknowledgement with an id
    /// the client has not seen belongs to the one being started.
    start: tokio::sync::Mutex<()>,
}

impl Registry {
    fn active(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Shared>>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn awaiting(&self) -> std::sync::MutexGuard<'_, Option<AwaitingAck>> {
        self.awaiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn find(&self, id: &RequestId) -> Option<Arc<Shared>> {
        self.active()
            .iter()
            .find(|s| s.state().id.as_ref() == Some(id))
            .cloned()
    }

    fn remove(&self, shared: &Arc<Shared>) {
        self.active().retain(|s| !Arc::ptr_eq(s, shared));
    }

    /// Offers a notification to the subscriptions. Returns `true` when it
    /// was consumed here (the acknowledgement, a server cancellation of a
    /// listen); `false` when the handler should see it too.
    ///
    /// Tagged notifications go to the subscription with that id. Untagged
    /// change notifications (a server that omits the tag on an HTTP listen
    /// stream) go to every subscription whose acknowledged filter covers
    /// them.
    pub(crate) fn route(&self, n: &JsonRpcNotification) -> bool {
        if n.method == SubscriptionsAcknowledged::METHOD {
            return self.acknowledge(n);
        }
        if n.method == "notifications/cancelled" {
            let id = n
                .params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .and_then(RequestId::from_value);
            let Some(shared) = id.as_ref().and_then(|id| self.find(id)) else {
                return false;
            };
            self.remove(&shared);
            let reason = n
                .params
                .as_ref()
                .and_then(|p| p.get("reason"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            tracing::debug!(id = ?id, ?reason, "server cancelled a subscription");
            shared.push(SubscriptionEvent::CancelledByServer { reason });
            return true;
        }
        match subscription_id(n) {
            Some(id) => match self.find(&id) {
                Some(shared) => shared.push(SubscriptionEvent::from_notification(n)),
                None => {
                    tracing::debug!(%id, method = %n.method, "notification for an unknown or ended subscription")
                }
            },
            None => {
                let matching: Vec<_> = self
                    .active()
                    .iter()
                    .filter(|s| s.covers(n))
                    .cloned()
                    .collect();
                for shared in matching {
                    shared.push(SubscriptionEvent::from_notification(n));
                }
            }
        }
        false
    }

    fn acknowledge(&self, n: &JsonRpcNotification) -> bool {
        let params = n.params.clone().unwrap_or(Value::Null);
        let params: SubscriptionsParams = match serde_json::from_value(params) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(error = %e, "subscriptions/acknowledged params do not decode");
                return false;
            }
        };
        let id = subscription_id(n);
        if let Some(id) = &id
            && self.find(id).is_some()
        {
            tracing::debug!(%id, "repeated acknowledgement ignored");
            return true;
        }
        let Some(awaiting) = self.awaiting().take() else {
            tracing::debug!(id = ?id, "acknowledgement for no listen being started");
            return false;
        };
        {
            let mut state = awaiting.shared.state();
            state.id = id;
            state.granted = Some(params.notifications.clone());
        }
        self.active().push(awaiting.shared.clone());
        let _ = awaiting.acked.send(params.notifications);
        true
    }
}

fn subscription_id(n: &JsonRpcNotification) -> Option<RequestId> {
    n.params
        .as_ref()?
        .get("_meta")?
        .get(META_SUBSCRIPTION_ID)
        .and_then(RequestId::from_value)
}

/// An active `subscriptions/listen` (2026-07-28). Read its events with
/// [`Subscription::next`]; they also reach the [`crate::ClientHandler`].
///
/// # Cancel safety
/// Dropping it ends the subscription: the listen request is dropped, so
/// over HTTP its response stream is closed and over stdio the server is
/// sent `notifications/cancelled` with the listen request's id (spec
/// §5.7). If the server had already ended it, that notification refers to
/// a finished request, which servers ignore.
pub struct Subscription {
    requested: SubscriptionFilter,
    granted: SubscriptionFilter,
    id: Option<RequestId>,
    rx: mpsc::Receiver<SubscriptionEvent>,
    finished: bool,
    shared: Arc<Shared>,
    registry: Weak<Connection>,
    task: JoinHandle<()>,
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("requested", &self.requested)
            .field("granted", &self.granted)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// The listen request's id (the subscription id of its notifications),
    /// when the acknowledgement carried it.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The filter that was requested.
    pub fn requested(&self) -> &SubscriptionFilter {
        &self.requested
    }

    /// The filter the server acknowledged: the subset it will honour
    /// (spec §5.3). Compare with [`Subscription::requested`] and poll for
    /// what is missing.
    pub fn granted(&self) -> &SubscriptionFilter {
        &self.granted
    }

    /// The next event, or `None` after the final one
    /// ([`SubscriptionEvent::is_final`]).
    ///
    /// Cancel safe: dropping the future loses no event.
    pub async fn next(&mut self) -> Option<SubscriptionEvent> {
        if self.finished {
            return None;
        }
        let event = self.rx.recv().await?;
        self.finished = event.is_final();
        Some(event)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.task.abort();
        if let Some(inner) = self.registry.upgrade() {
            inner.subscriptions.remove(&self.shared);
        }
    }
}

impl Client {
    /// `subscriptions/listen` (2026-07-28, spec `basic/subscriptions`,
    /// client checklist §5): opens a subscription to the change
    /// notifications `filter` selects and returns once the server has
    /// acknowledged it (`notifications/subscriptions/acknowledged`).
    ///
    /// The listen request has no timeout; it lasts until the
    /// [`Subscription`] is dropped, the cancel token of `options` is
    /// cancelled (the subscription then ends with
    /// [`SubscriptionEvent::Failed`], a cancelled error) or the server ends
    /// it. The timeout of `options` bounds the wait for the acknowledgement
    /// (by default [`crate::ClientOptions::request_timeout`];
    /// [`RequestOptions::without_timeout`] waits as long as it takes). To change the filter,
    /// listen again and drop the old subscription (spec §5.5). After a
    /// reconnection, listen again (spec §5.10).
    ///
    /// Older revisions have no listen: their change notifications arrive
    /// unsolicited (HTTP: on the GET stream) at the [`crate::ClientHandler`],
    /// and resource updates after [`Client::subscribe`].
    ///
    /// Errors: [`ClientError::MethodNotInRevision`] before 2026-07-28
    /// (nothing sent); [`ClientError::Server`] when the server refuses the
    /// listen; [`ClientError::Transport`] with a `request` timeout when no
    /// acknowledgement arrives in time (the listen is then cancelled), or
    /// when the connection fails.
    pub async fn listen(
        &self,
        filter: SubscriptionFilter,
        options: RequestOptions,
    ) -> Result<Subscription, ClientError> {
        let method = SubscriptionsListen::METHOD;
        let version = self.protocol_version();
        if !version.is_stateless() {
            return Err(ClientError::MethodNotInRevision {
                method: method.to_owned(),
                version,
            });
        }
        let params = SubscriptionsParams {
            notifications: filter.clone(),
            ..Default::default()
        };
        let params = serde_json::to_value(&params).map_err(|e| ClientError::encode(method, e))?;
        let registry = &self.inner.subscriptions;
        let _one_at_a_time = registry.start.lock().await;
        let (shared, rx) = Shared::new();
        let (acked_tx, acked_rx) = oneshot::channel();
        *registry.awaiting() = Some(AwaitingAck {
            shared: shared.clone(),
            acked: acked_tx,
        });
        let (failed_tx, failed_rx) = oneshot::channel();
        // The timeout bounds the acknowledgement, not the listen, which
        // stays open as long as the subscription.
        let limit = options.timeout.resolve(self.inner.options.request_timeout);
        let request = options.without_timeout();
        let task = {
            let inner = self.inner.clone();
            let shared = shared.clone();
            tokio::spawn(async move {
                let outcome = mrtr::send(&inner, method, Some(params), request).await;
                let acknowledged = inner
                    .subscriptions
                    .active()
                    .iter()
                    .any(|s| Arc::ptr_eq(s, &shared));
                inner.subscriptions.remove(&shared);
                let event = match outcome {
                    Ok(raw) => match raw.parse() {
                        Ok(result) => SubscriptionEvent::Ended(result),
                        Err(e) => SubscriptionEvent::Failed(ClientError::decode(method, e)),
                    },
                    Err(e) => SubscriptionEvent::Failed(e),
                };
                if acknowledged {
                    shared.push(event);
                } else {
                    let _ = failed_tx.send(event);
                }
            })
        };
        let ended_early = async {
            match failed_rx.await {
                Ok(SubscriptionEvent::Failed(e)) => e,
                Ok(other) => ClientError::Protocol {
                    method: method.to_owned(),
                    message: format!("the listen ended before it was acknowledged: {other:?}"),
                },
                Err(_) => ClientError::Protocol {
                    method: method.to_owned(),
                    message: "the listen ended before it was acknowledged".into(),
                },
            }
        };
        let outcome = tokio::select! {
            granted = acked_rx => granted.map_err(|_| ClientError::Protocol {
                method: method.to_owned(),
                message: "the listen ended before it was acknowledged".into(),
            }),
            e = ended_early => Err(e),
            limit = sleep_for(limit) => Err(ClientError::Transport(TransportError::timeout(
                limit,
                TimeoutPhase::Request,
            ))),
        };
        registry.awaiting().take();
        match outcome {
            Ok(granted) => {
                let id = shared.state().id.clone();
                tracing::debug!(id = ?id, ?granted, "subscription acknowledged");
                Ok(Subscription {
                    requested: filter,
                    granted,
                    id,
                    rx,
                    finished: false,
                    shared,
                    registry: Arc::downgrade(&self.inner),
                    task,
                })
            }
            Err(e) => {
                task.abort();
                registry.remove(&shared);
                Err(e)
            }
        }
    }
}

/// Sleeps for `limit` and returns it; never returns without one.
async fn sleep_for(limit: Option<Duration>) -> Duration {
    match limit {
        Some(limit) => {
            tokio::time::sleep(limit).await;
            limit
        }
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed() -> SubscriptionEvent {
        SubscriptionEvent::ToolsListChanged
    }

    #[tokio::test]
    async fn a_full_buffer_counts_missed_events_and_keeps_room_for_the_end() {
        let (shared, mut rx) = Shared::new();
        for _ in 0..SUBSCRIPTION_BUFFER + 9 {
            shared.push(changed());
        }
        // One slot was kept: the final event still fits.
        shared.push(SubscriptionEvent::CancelledByServer { reason: None });
        shared.push(changed());
        let mut received = Vec::new();
        while let Ok(e) = rx.try_recv() {
            received.push(e);
        }
        assert_eq!(received.len(), SUBSCRIPTION_BUFFER);
        assert!(
            received[..SUBSCRIPTION_BUFFER - 1]
                .iter()
                .all(|e| matches!(e, SubscriptionEvent::ToolsListChanged))
        );
        assert!(received[SUBSCRIPTION_BUFFER - 1].is_final());
        assert_eq!(shared.state().missed, 10);
    }

    #[tokio::test]
    async fn lagged_is_reported_before_the_next_event() {
        let (shared, mut rx) = Shared::new();
        for _ in 0..SUBSCRIPTION_BUFFER + 2 {
            shared.push(changed());
        }
        // Drain two, making room for `Lagged` and one more event.
        assert!(rx.try_recv().is_ok());
        assert!(rx.try_recv().is_ok());
        shared.push(SubscriptionEvent::PromptsListChanged);
        let mut tail = Vec::new();
        while let Ok(e) = rx.try_recv() {
            tail.push(e);
        }
        let n = tail.len();
        assert!(
            matches!(tail[n - 2], SubscriptionEvent::Lagged { missed: 3 }),
            "{:?}",
            &tail[n - 2..]
        );
        assert!(matches!(tail[n - 1], SubscriptionEvent::PromptsListChanged));
    }
}
