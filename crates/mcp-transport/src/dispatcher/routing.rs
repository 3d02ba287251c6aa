//! Routing what the peer sends: a response to the request it answers
//! (matched as the pending table matches ids), a progress notification to
//! the request that asked for it, a server request or any other
//! notification to the owner as a [`TransportEvent`]. A frame that does not
//! decode goes to the recovery (`recovery.rs`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use mcp_types::{
    DecodeError, DecodeOptions, Decoded, JsonRpcError, JsonRpcMessage, JsonRpcNotification,
    JsonRpcResponse, RawResult, RequestId, decode_frame,
};
use serde_json::Value;
use tokio::sync::mpsc;

use super::Dispatcher;
use crate::error::TransportError;
use crate::event::{IncomingRequest, OpenServerRequest, Responder, TransportEvent, default_answer};
use crate::options::Progress;
use crate::pending::IdMatch;
use crate::tap::{redact_decode_error, redact_jsonrpc_error, redact_value};

impl Dispatcher {
    /// The body of [`Dispatcher::handle_frame`].
    pub(super) async fn decode_and_route(self: &Arc<Self>, frame: Bytes) {
        self.tap_received(&frame);
        let options = DecodeOptions {
            allow_batch: self.protocol_version().is_some_and(|v| v.allows_batch()),
        };
        match decode_frame(&frame, options) {
            Ok(Decoded::Response { id, outcome }) => {
                let outcome = outcome.map_err(|e| TransportError::JsonRpc(self.shown_error(e)));
                self.deliver(&id, outcome);
            }
            Ok(Decoded::Message(message)) => self.route(message).await,
            Err(err) => self.recover(&frame, err, options).await,
        }
    }

    pub(super) async fn route(self: &Arc<Self>, message: JsonRpcMessage) {
        match message {
            JsonRpcMessage::Response(JsonRpcResponse {
                id: Some(id),
                outcome,
            }) => {
                let outcome = outcome
                    .map(|v| RawResult::from_value(&v))
                    .map_err(|e| TransportError::JsonRpc(self.shown_error(e)));
                self.deliver(&id, outcome);
            }
            JsonRpcMessage::Response(JsonRpcResponse { id: None, outcome }) => {
                let detail = match outcome {
                    Err(e) => self.shown_error(e).to_string(),
                    Ok(_) => "result with a null id".into(),
                };
                tracing::warn!(connection = %self.label, %detail, "error response with a null id");
                self.emit(TransportEvent::Error(TransportError::protocol(format!(
                    "uncorrelated error response: {detail}"
                ))))
                .await;
            }
            JsonRpcMessage::Request(mut req) => {
                self.redact_params(&mut req.params);
                let dispatcher = self.clone();
                let responder: Responder = Box::new(move |id, outcome| {
                    Box::pin(async move { dispatcher.send_response(id, outcome).await })
                });
                let open = OpenServerRequest::new(&self.pauses);
                let incoming =
                    IncomingRequest::new(req.id, req.method, req.params, responder, open);
                match self.events_sender() {
                    Some(tx) => {
                        if let Err(mpsc::error::SendError(TransportEvent::Request(r))) =
                            tx.send(TransportEvent::Request(incoming)).await
                        {
                            // Nobody listens any more: answer by default.
                            let outcome = default_answer(&r.method);
                            let _ = r.respond(outcome).await;
                        }
                    }
                    None => {
                        let outcome = default_answer(&incoming.method);
                        if let Err(e) = incoming.respond(outcome).await {
                            tracing::debug!(connection = %self.label, error = %e, "could not answer a server request");
                        }
                    }
                }
            }
            JsonRpcMessage::Notification(mut n) => {
                if n.method == "notifications/progress" && self.route_progress(&n) {
                    return;
                }
                self.redact_params(&mut n.params);
                self.emit(TransportEvent::Notification(n)).await;
            }
            JsonRpcMessage::Batch(items) => {
                for item in items {
                    Box::pin(self.route(item)).await;
                }
            }
        }
    }

    /// An error response as it may be shown: redacted (see
    /// [`Dispatcher::set_redactor`]).
    pub(super) fn shown_error(&self, error: JsonRpcError) -> JsonRpcError {
        match self.redactor.get() {
            Some(r) => redact_jsonrpc_error(r.as_ref(), error),
            None => error,
        }
    }

    /// A decode error as it may be shown: the input it quotes redacted.
    pub(super) fn shown_decode_error(&self, error: DecodeError) -> DecodeError {
        match self.redactor.get() {
            Some(r) => redact_decode_error(r.as_ref(), &error),
            None => error,
        }
    }

    /// The params of a server request or notification with the secrets
    /// this connection sent hidden: the host shows them to a person (a log
    /// message, an elicitation's text) or hands them to a model, and
    /// neither should see a token the server echoes.
    fn redact_params(&self, params: &mut Option<Value>) {
        if let (Some(r), Some(params)) = (self.redactor.get(), params.as_mut()) {
            redact_value(r.as_ref(), params);
        }
    }

    /// Routes a progress notification to its request; `false` when no
    /// pending request asked for that token.
    fn route_progress(&self, n: &JsonRpcNotification) -> bool {
        let Some(params) = n.params.as_ref() else {
            return false;
        };
        let Some(token) = params.get("progressToken").and_then(RequestId::from_value) else {
            return false;
        };
        let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
            tracing::debug!(connection = %self.label, "progress notification without a numeric progress");
            return false;
        };
        let update = Progress {
            progress,
            total: params.get("total").and_then(Value::as_f64),
            message: params
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        };
        self.pending.progress(&token, update)
    }

    /// Hands a response's outcome to the request its id answers (see
    /// [`PendingTable::complete_response`]); an id that answers nothing is
    /// logged at debug and dropped.
    pub(super) fn deliver(&self, id: &RequestId, outcome: crate::pending::Outcome) {
        let how = self.pending.complete_response(id, outcome);
        self.note_id_match(id, how);
        if !how.found() {
            tracing::debug!(connection = %self.label, %id, "response for an unknown or abandoned request dropped");
        }
    }

    /// Warns, once per connection, that the peer echoes our integer ids as
    /// strings: tolerated because we issued the id and know its type, but
    /// a fault of the peer that its maintainers should hear of. Later ones
    /// are logged at debug.
    pub(super) fn note_id_match(&self, id: &RequestId, how: IdMatch) {
        if how != IdMatch::IntegerAsString {
            return;
        }
        let name = if self.label.is_empty() {
            "the connection"
        } else {
            self.label.as_str()
        };
        if self.echoed_string_ids.swap(true, Ordering::Relaxed) {
            tracing::debug!(server = %name, %id, "integer id echoed as a string; matched");
        } else {
            tracing::warn!(
                server = %name,
                %id,
                "the server echoes integer request ids as strings (JSON-RPC requires the same type); \
                 matched to the request with that integer id (warned once per connection)"
            );
        }
    }
}
