//! The [`ClientHandler`] trait: how the host answers server-to-client
//! requests (spec `client/roots`, `client/sampling`, `client/elicitation`)
//! and receives server notifications.
//!
//! Every method has a default. A request reaches its handler method only
//! when the matching capability was declared in [`crate::ClientOptions`];
//! otherwise the client answers `-32601` itself. `ping` is always answered
//! `{}` by the client and never reaches the handler.

use async_trait::async_trait;
use mcp_transport::{CancellationToken, CloseReason};
use mcp_types::elicitation::{
    ElicitRequestParams, ElicitResult, ElicitationCompleteNotificationParams,
};
use mcp_types::logging::LoggingMessageNotificationParams;
use mcp_types::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use mcp_types::resources::ResourceUriParams;
use mcp_types::roots::ListRootsResult;
use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_types::tasks::Task;
use mcp_types::{JsonRpcError, JsonRpcNotification, RequestId};

/// What the handler knows about the server request it is answering.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The server's request id.
    pub id: RequestId,
    /// The method, e.g. `sampling/createMessage`.
    pub method: String,
    /// Cancelled when the server sends `notifications/cancelled` for this
    /// request (spec `basic/utilities/cancellation`): stop work and return
    /// any error; the server ignores the answer.
    pub cancel: CancellationToken,
    /// The request's `params._meta`, if any (e.g. `progressToken`,
    /// `io.modelcontextprotocol/related-task`).
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Answers server requests and receives notifications. Implement the
/// methods you need; the rest keep their defaults. Called concurrently: one
/// task per server request, so a slow sampling answer does not delay a
/// `ping`.
///
/// Errors returned are sent to the server as the JSON-RPC error response
/// (e.g. `JsonRpcError::new(ErrorCode(-1), "User rejected sampling request")`,
/// spec `client/sampling` § Error Handling).
#[async_trait]
pub trait ClientHandler: Send + Sync + 'static {
    /// `roots/list` (spec `client/roots`). Reached only when `roots` was
    /// declared. Root URIs must be `file://`. Default: `-32601`.
    async fn list_roots(&self, ctx: RequestContext) -> Result<ListRootsResult, JsonRpcError> {
        Err(JsonRpcError::method_not_found(&ctx.method))
    }

    /// `sampling/createMessage` (spec `client/sampling`), including tools in
    /// sampling (2025-11-25; reached with `tools` only when
    /// `sampling.tools` was declared, and only when the tool-use / tool-result
    /// pairing rules hold). Reached only when `sampling` was declared.
    /// Default: `-32601`.
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> Result<CreateMessageResult, JsonRpcError> {
        let _ = params;
        Err(JsonRpcError::method_not_found(&ctx.method))
    }

    /// `elicitation/create` (spec `client/elicitation`), form or URL mode.
    /// Reached only for a mode that was declared (else the client answers
    /// `-32602`). Default: `-32601`.
    async fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        let _ = params;
        Err(JsonRpcError::method_not_found(&ctx.method))
    }

    /// `notifications/message` (spec `server/utilities/logging`); may
    /// arrive at any time, even during the handshake. Default: logs at debug.
    async fn on_logging_message(&self, params: LoggingMessageNotificationParams) {
        tracing::debug!(level = %params.level, logger = ?params.logger, data = %params.data, "server log message");
    }

    /// `notifications/progress` whose token matches no request in flight
    /// (progress for a request with a callback goes to that callback).
    async fn on_progress(&self, params: ProgressNotificationParams) {
        tracing::debug!(token = %params.progress_token, "progress for an unknown token");
    }

    /// `notifications/resources/updated` (after `resources/subscribe`).
    async fn on_resource_updated(&self, params: ResourceUriParams) {
        let _ = params;
    }

    /// `notifications/tools/list_changed`.
    async fn on_tools_list_changed(&self) {}

    /// `notifications/prompts/list_changed`.
    async fn on_prompts_list_changed(&self) {}

    /// `notifications/resources/list_changed`.
    async fn on_resources_list_changed(&self) {}

    /// `notifications/cancelled` from the server (after the client has
    /// cancelled the matching [`RequestContext::cancel`] token).
    async fn on_cancelled(&self, params: CancelledNotificationParams) {
        let _ = params;
    }

    /// `notifications/elicitation/complete` (2025-11-25, URL mode). Unknown
    /// ids must be ignored.
    async fn on_elicitation_complete(&self, params: ElicitationCompleteNotificationParams) {
        let _ = params;
    }

    /// `notifications/tasks/status` (2025-11-25). Never required: poll
    /// `tasks/get` instead of depending on it.
    async fn on_task_status(&self, task: Task) {
        let _ = task;
    }

    /// Any other notification, or a known one whose params did not decode.
    /// Default: logs at debug.
    async fn on_unknown_notification(&self, notification: JsonRpcNotification) {
        tracing::debug!(method = %notification.method, "unhandled server notification");
    }

    /// A request of this client (`method`: `tools/call`, say) failed with
    /// [`crate::ClientError::ServerRequestNotInRevision`]: the server could
    /// not send the server-initiated request `server_request` (e.g.
    /// `elicitation/create`) in the negotiated revision (2026-07-28), so this
    /// handler was never asked. Called before the error is returned to the
    /// caller, for a host that connects again later in a handshake revision
    /// (mcp-manager remembers it per server). Default: nothing.
    async fn on_server_request_not_in_revision(&self, method: &str, server_request: &str) {
        let _ = (method, server_request);
    }

    /// The connection closed (once).
    async fn on_closed(&self, reason: CloseReason) {
        tracing::debug!(%reason, "connection closed");
    }
}

/// The default handler: only defaults.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopHandler;

impl ClientHandler for NoopHandler {}
