//! The events of a [`Subscription`](super::Subscription), in arrival order.

use mcp_types::notifications::{PromptListChanged, ResourceListChanged, ToolListChanged};
use mcp_types::resources::{ResourceUpdated, ResourceUriParams};
use mcp_types::subscriptions::SubscriptionsListenResult;
use mcp_types::{JsonRpcNotification, Notification};
use serde::Deserialize;
use serde_json::Value;

use crate::error::ClientError;

/// How many events a [`Subscription`](super::Subscription) buffers for its reader: 256. Past
/// it, events are dropped and counted; the reader then gets one
/// [`SubscriptionEvent::Lagged`] with the count. One slot is kept for the
/// final event, so the end of a subscription is never lost.
pub const SUBSCRIPTION_BUFFER: usize = 256;

/// One event of a [`Subscription`](super::Subscription), in arrival order.
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

    /// The event a notification tagged for a subscription (or covered by
    /// its filter) is.
    pub(crate) fn from_notification(n: &JsonRpcNotification) -> SubscriptionEvent {
        match n.method.as_str() {
            ToolListChanged::METHOD => SubscriptionEvent::ToolsListChanged,
            PromptListChanged::METHOD => SubscriptionEvent::PromptsListChanged,
            ResourceListChanged::METHOD => SubscriptionEvent::ResourcesListChanged,
            ResourceUpdated::METHOD => {
                let params = n.params.as_ref().unwrap_or(&Value::Null);
                match ResourceUriParams::deserialize(params) {
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
