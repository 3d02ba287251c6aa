//! The subscriptions of one connection: the receive loop offers every
//! notification here first ([`Registry::route`]), which demultiplexes it by
//! `_meta["io.modelcontextprotocol/subscriptionId"]` into the buffer of its
//! subscription, and takes the acknowledgement of the listen being started.

use std::sync::{Arc, Mutex};

use mcp_types::META_SUBSCRIPTION_ID;
use mcp_types::notifications::{
    Cancelled, PromptListChanged, ResourceListChanged, ToolListChanged,
};
use mcp_types::resources::ResourceUpdated;
use mcp_types::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledged, SubscriptionsParams,
};
use mcp_types::{JsonRpcNotification, Notification, RequestId};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::event::{SUBSCRIPTION_BUFFER, SubscriptionEvent};

/// The state one subscription shares between its reader, the receive loop
/// and the task that owns the listen request.
pub(super) struct Shared {
    tx: mpsc::Sender<SubscriptionEvent>,
    state: Mutex<PushState>,
}

#[derive(Default)]
pub(super) struct PushState {
    /// The listen request's id, once the acknowledgement told it.
    pub(super) id: Option<RequestId>,
    /// The filter the server acknowledged.
    granted: Option<SubscriptionFilter>,
    missed: u64,
    finished: bool,
}

impl Shared {
    pub(super) fn new() -> (Arc<Shared>, mpsc::Receiver<SubscriptionEvent>) {
        let (tx, rx) = mpsc::channel(SUBSCRIPTION_BUFFER);
        let shared = Arc::new(Shared {
            tx,
            state: Mutex::new(PushState::default()),
        });
        (shared, rx)
    }

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, PushState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `event` without blocking; a full buffer counts it as missed.
    /// After a final event nothing more is queued.
    pub(super) fn push(&self, event: SubscriptionEvent) {
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
            ToolListChanged::METHOD => granted.tools_list_changed == Some(true),
            PromptListChanged::METHOD => granted.prompts_list_changed == Some(true),
            ResourceListChanged::METHOD => granted.resources_list_changed == Some(true),
            ResourceUpdated::METHOD => granted
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| !uris.is_empty()),
            _ => false,
        }
    }
}

/// A listen whose acknowledgement has not arrived yet.
pub(super) struct AwaitingAck {
    pub(super) shared: Arc<Shared>,
    pub(super) acked: oneshot::Sender<SubscriptionFilter>,
}

/// The client's active subscriptions (one per connection).
#[derive(Default)]
pub(crate) struct Registry {
    active: Mutex<Vec<Arc<Shared>>>,
    awaiting: Mutex<Option<AwaitingAck>>,
    /// Listens are started one at a time, so an acknowledgement with an id
    /// the client has not seen belongs to the one being started.
    pub(super) start: tokio::sync::Mutex<()>,
}

impl Registry {
    pub(super) fn active(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Shared>>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn awaiting(&self) -> std::sync::MutexGuard<'_, Option<AwaitingAck>> {
        self.awaiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn find(&self, id: &RequestId) -> Option<Arc<Shared>> {
        self.active()
            .iter()
            .find(|s| s.state().id.as_ref() == Some(id))
            .cloned()
    }

    pub(super) fn remove(&self, shared: &Arc<Shared>) {
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
        if n.method == Cancelled::METHOD {
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
