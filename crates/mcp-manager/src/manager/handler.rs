//! The handler the manager installs in each server's client: it forwards
//! everything to the host's handler ([`crate::ManagerOptions::client`], or
//! the one from [`crate::ManagerOptions::handler_per_server`]) and raises
//! flags for the supervisor on `list_changed`, and tells the server's
//! [`RevisionHint`] when the server could not send a server-initiated request in
//! the negotiated revision. (The close itself reaches
//! the supervisor through [`mcp_client::Client::closed`]; [`Signals`] also
//! records a close noticed by a failed request.)
//!
//! The flags are bounded by construction (four booleans, three counters,
//! one close reason, one `Notify` permit): a server flooding `list_changed`
//! costs one refresh per debounce interval.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_client::{ClientHandler, RequestContext};
use mcp_transport::CloseReason;
use mcp_types::elicitation::{
    ElicitRequestParams, ElicitResult, ElicitationCompleteNotificationParams,
};
use mcp_types::logging::LoggingMessageNotificationParams;
use mcp_types::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use mcp_types::resources::ResourceUriParams;
use mcp_types::roots::ListRootsResult;
use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_types::tasks::Task;
use mcp_types::{JsonRpcError, JsonRpcNotification};
use tokio::sync::Notify;

use crate::namespace::List;
use crate::revision_memory::RevisionHint;

/// The `list_changed` notifications of one list on one connection.
#[derive(Debug, Default)]
pub(crate) struct ListSignal {
    /// Raised by a notification; lowered by the supervisor as it starts
    /// the refresh.
    pub(crate) raised: AtomicBool,
    /// Notifications received so far: a listing requested when this was
    /// lower than it is now may miss a change (see
    /// [`crate::namespace::ListedAt`]).
    pub(crate) received: AtomicU64,
}

impl ListSignal {
    /// The count to record for a listing about to be requested: every
    /// notification counted here arrived before the request goes out, so
    /// the listing has its change. (The supervisor reads it after lowering
    /// the flag: a notification arriving later raises it again.)
    pub(crate) fn requested_now(&self) -> u64 {
        self.received.load(Ordering::SeqCst)
    }
}

/// What one connection signals to its supervisor.
#[derive(Debug, Default)]
pub(crate) struct Signals {
    closed: Mutex<Option<String>>,
    pub(crate) tools: ListSignal,
    pub(crate) prompts: ListSignal,
    pub(crate) resources: ListSignal,
    /// A request failed at the transport level (I/O, HTTP, session lost):
    /// the supervisor runs a health check.
    pub(crate) suspect: AtomicBool,
    pub(crate) notify: Notify,
}

impl Signals {
    /// Records a close (the first reason wins) and wakes the supervisor.
    pub(crate) fn set_closed(&self, reason: String) {
        let mut closed = self.closed.lock().unwrap_or_else(|p| p.into_inner());
        if closed.is_none() {
            *closed = Some(reason);
        }
        drop(closed);
        self.notify.notify_one();
    }

    /// The close reason, once closed.
    pub(crate) fn closed(&self) -> Option<String> {
        self.closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Asks the supervisor for a health check.
    pub(crate) fn raise_suspect(&self) {
        self.raise(&self.suspect);
    }

    /// The signal of `list`.
    pub(crate) fn list(&self, list: List) -> &ListSignal {
        match list {
            List::Tools => &self.tools,
            List::Prompts => &self.prompts,
            List::Resources => &self.resources,
        }
    }

    /// A `list_changed` of `list` arrived: counted first, then the flag
    /// raised, so whoever sees the flag sees the count.
    fn list_changed(&self, list: List) {
        let signal = self.list(list);
        signal.received.fetch_add(1, Ordering::SeqCst);
        self.raise(&signal.raised);
    }

    fn raise(&self, flag: &AtomicBool) {
        flag.store(true, Ordering::SeqCst);
        self.notify.notify_one();
    }
}

/// Forwards to the host's handler; listens for list changes.
pub(crate) struct ListeningHandler {
    pub(crate) inner: Arc<dyn ClientHandler>,
    pub(crate) signals: Arc<Signals>,
    /// Learns when the server needs a handshake revision for its
    /// server-initiated requests (it outlives the connection).
    pub(crate) revision_hint: Arc<RevisionHint>,
}

#[async_trait]
impl ClientHandler for ListeningHandler {
    async fn list_roots(&self, ctx: RequestContext) -> Result<ListRootsResult, JsonRpcError> {
        self.inner.list_roots(ctx).await
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> Result<CreateMessageResult, JsonRpcError> {
        self.inner.create_message(params, ctx).await
    }

    async fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        self.inner.elicit(params, ctx).await
    }

    async fn on_logging_message(&self, params: LoggingMessageNotificationParams) {
        self.inner.on_logging_message(params).await
    }

    async fn on_progress(&self, params: ProgressNotificationParams) {
        self.inner.on_progress(params).await
    }

    async fn on_resource_updated(&self, params: ResourceUriParams) {
        self.inner.on_resource_updated(params).await
    }

    async fn on_server_request_not_in_revision(&self, method: &str, server_request: &str) {
        self.revision_hint.learn(server_request);
        self.inner
            .on_server_request_not_in_revision(method, server_request)
            .await
    }

    async fn on_tools_list_changed(&self) {
        self.signals.list_changed(List::Tools);
        self.inner.on_tools_list_changed().await
    }

    async fn on_prompts_list_changed(&self) {
        self.signals.list_changed(List::Prompts);
        self.inner.on_prompts_list_changed().await
    }

    async fn on_resources_list_changed(&self) {
        self.signals.list_changed(List::Resources);
        self.inner.on_resources_list_changed().await
    }

    async fn on_cancelled(&self, params: CancelledNotificationParams) {
        self.inner.on_cancelled(params).await
    }

    async fn on_elicitation_complete(&self, params: ElicitationCompleteNotificationParams) {
        self.inner.on_elicitation_complete(params).await
    }

    async fn on_task_status(&self, task: Task) {
        self.inner.on_task_status(task).await
    }

    async fn on_unknown_notification(&self, notification: JsonRpcNotification) {
        self.inner.on_unknown_notification(notification).await
    }

    async fn on_closed(&self, reason: CloseReason) {
        // The supervisor awaits `Client::closed` for this.
        self.inner.on_closed(reason).await
    }
}
