//! `subscriptions/listen`: documented on [`Subscription`], the public face
//! of this module.

mod event;
// The connection holds the registry; the receive loop routes through it.
pub(crate) mod registry;

use std::fmt;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_transport::{RequestOptions, TimeoutPhase, TransportError};
use mcp_types::subscriptions::{SubscriptionFilter, SubscriptionsListen, SubscriptionsParams};
use mcp_types::{Request, RequestId};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

pub use event::{SUBSCRIPTION_BUFFER, SubscriptionEvent};

use crate::client::Client;
use crate::connection::Connection;
use crate::error::{ClientError, ServerFault};
use crate::mrtr;
use registry::{AwaitingAck, Shared};

/// An active `subscriptions/listen` (2026-07-28). Read its events with
/// [`Subscription::next`]; they also reach the [`crate::ClientHandler`].
///
/// # Cancel safety
/// Dropping it ends the subscription: the listen request is dropped, so
/// over HTTP its response stream is closed and over stdio the server is
/// sent `notifications/cancelled` with the listen request's id (spec
/// §5.7). If the server had already ended it, that notification refers to
/// a finished request, which servers ignore.
///
/// # How a subscription works
///
/// `subscriptions/listen` (2026-07-28, spec `basic/subscriptions`; client
/// checklist §5): one long-lived request per [`Subscription`] whose
/// notifications are demultiplexed by
/// `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's
/// id, compared type-exactly).
///
/// The request is sent without a timeout on its own task; the receive loop
/// (`receive_loop.rs`) offers every notification to this module's registry
/// before the [`crate::ClientHandler`] sees it. Dropping the
/// [`Subscription`] aborts that task, which drops the request: the HTTP
/// transport drops the listen response stream (the cancellation under
/// 2026-07-28), stdio sends `notifications/cancelled` with the listen id
/// (spec §5.7).
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
                Ok(other) => {
                    tracing::debug!(event = ?other, "the listen ended before it was acknowledged");
                    ClientError::ServerMisbehaved {
                        method: method.to_owned(),
                        fault: ServerFault::ListenEndedUnacknowledged,
                    }
                }
                // The listen's task ended without a word: the same fault.
                Err(_) => ClientError::ServerMisbehaved {
                    method: method.to_owned(),
                    fault: ServerFault::ListenEndedUnacknowledged,
                },
            }
        };
        let outcome = tokio::select! {
            granted = acked_rx => granted.map_err(|_| ClientError::ServerMisbehaved {
                method: method.to_owned(),
                fault: ServerFault::ListenEndedUnacknowledged,
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
