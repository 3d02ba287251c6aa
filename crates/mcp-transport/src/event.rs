//! What a transport hands to its owner: notifications, server-to-client
//! requests (each answered exactly once), close and error events.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use mcp_types::{JsonRpcError, JsonRpcNotification, RequestId};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::{CloseReason, TransportError};
use crate::pause_clock::PauseClock;

/// The receiving end of a transport's events; see [`crate::Transport::take_events`].
/// Bounded: a consumer that stops reading applies backpressure to the peer.
pub type TransportEvents = mpsc::Receiver<TransportEvent>;

/// The capacity of the events channel, in events.
pub const EVENTS_CAPACITY: usize = 1024;

/// One event from a transport.
#[derive(Debug)]
#[non_exhaustive]
pub enum TransportEvent {
    /// A notification from the server (progress for a request that asked for
    /// it goes to that request's sink instead).
    Notification(JsonRpcNotification),
    /// A request from the server (spec: `ping`, `roots/list`,
    /// `sampling/createMessage`, `elicitation/create`, or unknown).
    Request(IncomingRequest),
    /// The connection closed; sent once.
    Closed(CloseReason),
    /// A fault that ended no request and no connection, reported for
    /// visibility (e.g. an undecodable message from the peer).
    Error(TransportError),
}

/// A request from the server, with the means to answer it exactly once.
///
/// Dropping it unanswered answers `-32601 Method not found` (or `{}` for
/// `ping`), so the server is never left waiting. The drop path needs a tokio
/// runtime to send; outside one it logs instead of panicking.
pub struct IncomingRequest {
    /// The server's request id, echoed with the same JSON type.
    pub id: RequestId,
    /// The method, e.g. `roots/list`.
    pub method: String,
    /// The params object, when present.
    pub params: Option<Value>,
    responder: Option<Responder>,
    /// Held from arrival until the answer is sent (or the request is
    /// discarded): while any is held, the timeouts of the connection's
    /// requests stand still.
    _open: OpenServerRequest,
}

/// Counts one server request as being answered, from its arrival until it is
/// dropped (answered, discarded or answered by default). The request loop
/// pauses the timeouts of the connection's requests while the count is not
/// zero: a server waiting on its own request (a person filling in a form, a
/// model sampling) cannot answer ours sooner.
#[derive(Debug)]
pub(crate) struct OpenServerRequest(PauseClock);

impl OpenServerRequest {
    pub(crate) fn new(clock: &PauseClock) -> Self {
        clock.open();
        OpenServerRequest(clock.clone())
    }
}

impl Drop for OpenServerRequest {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Sends the one response to a server request. The dispatcher makes it, so
/// this module needs nothing of the dispatcher's.
pub(crate) type Responder = Box<
    dyn FnOnce(
            RequestId,
            Result<Value, JsonRpcError>,
        ) -> Pin<Box<dyn Future<Output = Result<(), TransportError>> + Send>>
        + Send
        + Sync,
>;

impl fmt::Debug for IncomingRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IncomingRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .field("params", &self.params)
            .field("answered", &self.responder.is_none())
            .finish()
    }
}

impl IncomingRequest {
    pub(crate) fn new(
        id: RequestId,
        method: String,
        params: Option<Value>,
        responder: Responder,
        open: OpenServerRequest,
    ) -> Self {
        IncomingRequest {
            id,
            method,
            params,
            responder: Some(responder),
            _open: open,
        }
    }

    /// Sends the response: a result or a JSON-RPC error.
    ///
    /// Errors: the transport's, if the response could not be delivered
    /// (e.g. [`TransportError::Closed`]).
    pub async fn respond(
        mut self,
        outcome: Result<Value, JsonRpcError>,
    ) -> Result<(), TransportError> {
        match self.responder.take() {
            Some(respond) => respond(self.id.clone(), outcome).await,
            None => Ok(()),
        }
    }
}

impl IncomingRequest {
    /// Consumes the request without answering it. Only for a request the
    /// server itself cancelled (`notifications/cancelled`): the spec says the
    /// receiver SHOULD NOT answer those (`basic/utilities/cancellation`).
    pub fn discard(mut self) {
        self.responder = None;
    }
}

/// The answer a transport gives to a server request nobody handles.
pub(crate) fn default_answer(method: &str) -> Result<Value, JsonRpcError> {
    if method == "ping" {
        Ok(Value::Object(Default::default()))
    } else {
        Err(JsonRpcError::method_not_found(method))
    }
}

impl Drop for IncomingRequest {
    fn drop(&mut self) {
        if let Some(respond) = self.responder.take() {
            let id = self.id.clone();
            let outcome = default_answer(&self.method);
            tracing::debug!(method = %self.method, %id, "server request dropped unanswered; sending the default answer");
            match tokio::runtime::Handle::try_current() {
                Ok(handle) => {
                    handle.spawn(async move {
                        if let Err(e) = respond(id, outcome).await {
                            tracing::debug!(error = %e, "could not send the default answer");
                        }
                    });
                }
                Err(_) => tracing::warn!(
                    method = %self.method,
                    "server request dropped outside a tokio runtime; it stays unanswered"
                ),
            }
        }
    }
}
