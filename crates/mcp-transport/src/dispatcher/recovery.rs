//! What happens to a frame that does not decode: it never fails the
//! connection. It is logged (rate-limited) and skipped; the request it
//! answers fails at once with `Malformed` whenever its id can be read (by
//! the decoder, or by a structural scan of the bytes); a `ping` answered
//! with neither `result` nor `error` is tolerated; an invalid server request
//! is answered with Invalid Request; and the good elements of a batch with
//! a bad one are delivered.

use std::sync::Arc;

use bytes::Bytes;
use mcp_types::{
    DecodeError, DecodeOptions, JsonRpcError, JsonRpcMessage, JsonRpcResponse, RawResult,
    RequestId, answered_ids, invalid_request,
};
use serde_json::Value;

use super::{Dispatcher, Outgoing, OutgoingKind};
use crate::error::TransportError;

impl Dispatcher {
    /// Handles a frame `decode_frame` refused with `err`.
    pub(super) async fn recover(
        self: &Arc<Self>,
        frame: &Bytes,
        err: DecodeError,
        options: DecodeOptions,
    ) {
        let bytes: &[u8] = frame;
        let err = self.shown_decode_error(err);
        if let Some(id) = err.request_id() {
            // A response with both/neither result and error. `ping`
            // answered with neither is tolerated (some peers do it).
            let tolerated = matches!(err, mcp_types::DecodeError::NoResultOrError { .. })
                && self.pending.method_of_response(id).as_deref() == Some("ping");
            let outcome = if tolerated {
                Ok(RawResult::new(Bytes::from_static(b"{}")))
            } else {
                Err(TransportError::malformed_response(id, &err))
            };
            let how = self.pending.complete_response(id, outcome);
            self.note_id_match(id, how);
            if !how.found() {
                tracing::debug!(connection = %self.label, %id, error = %err, "malformed response for an unknown id dropped");
            }
        } else if options.allow_batch
            && let Ok(items) = serde_json::from_slice::<Vec<Value>>(bytes)
            && !items.is_empty()
        {
            // 2025-03-26 batch with a bad element: each element is
            // its own message, so the others are delivered.
            self.route_batch_items(items).await;
        } else {
            // The decoder could not say which request this answers;
            // a scan may (a wrong `jsonrpc`, a malformed `error`,
            // trailing text, a batch where none are allowed).
            if let Some(id) = invalid_request(bytes) {
                self.answer_invalid_request(id, &err).await;
            }
            let mut failed = 0usize;
            for id in answered_ids(bytes) {
                let how = self
                    .pending
                    .complete_response(&id, Err(TransportError::malformed_response(&id, &err)));
                self.note_id_match(&id, how);
                if how.found() {
                    failed += 1;
                }
            }
            match self.admit_skipped_warning() {
                Some(not_shown) => tracing::warn!(
                    connection = %self.label,
                    error = %err,
                    input = %self.preview(bytes),
                    requests_failed = failed,
                    earlier_not_shown = not_shown,
                    "skipping a message that is not JSON-RPC"
                ),
                None => tracing::debug!(
                    connection = %self.label,
                    error = %err,
                    input = %self.preview(bytes),
                    requests_failed = failed,
                    "skipping a message that is not JSON-RPC (warnings rate-limited)"
                ),
            }
        }
    }

    /// The elements of a batch that did not decode as a whole: each one that
    /// decodes is routed; one that does not is skipped with a warning, and
    /// fails the request it answers when its id can be read.
    async fn route_batch_items(self: &Arc<Self>, items: Vec<Value>) {
        for item in items {
            let answers = item
                .as_object()
                .filter(|member| !member.contains_key("method"))
                .and_then(|member| member.get("id"))
                .and_then(RequestId::from_value);
            match JsonRpcMessage::from_value(item) {
                Ok(message) => Box::pin(self.route(message)).await,
                Err(err) => {
                    let err = self.shown_decode_error(err);
                    let failed = answers.is_some_and(|id| {
                        let how = self.pending.complete_response(
                            &id,
                            Err(TransportError::malformed_response(&id, &err)),
                        );
                        self.note_id_match(&id, how);
                        how.found()
                    });
                    match self.admit_skipped_warning() {
                        Some(not_shown) => {
                            tracing::warn!(connection = %self.label, error = %err, request_failed = failed, earlier_not_shown = not_shown, "skipping a batch element that is not JSON-RPC")
                        }
                        None => {
                            tracing::debug!(connection = %self.label, error = %err, request_failed = failed, "skipping a batch element that is not JSON-RPC (warnings rate-limited)")
                        }
                    }
                }
            }
        }
    }

    /// Answers an invalid server request (see [`mcp_types::invalid_request`])
    /// with Invalid Request, under its id, or `null` when the id itself is
    /// what is wrong (JSON-RPC 2.0 § 5).
    async fn answer_invalid_request(
        self: &Arc<Self>,
        id: Option<RequestId>,
        err: &mcp_types::DecodeError,
    ) {
        if !self.is_open() {
            return;
        }
        let body = crate::body::Body::from(
            JsonRpcMessage::Response(JsonRpcResponse {
                id: id.clone(),
                outcome: Err(JsonRpcError::new(
                    mcp_types::ErrorCode::INVALID_REQUEST,
                    format!("Invalid Request: {err}"),
                )),
            })
            .to_vec(),
        );
        let message = Outgoing {
            kind: OutgoingKind::Response,
            method: None,
            id,
            body,
            metadata_headers: Vec::new(),
            deadline: None,
        };
        if let Err(e) = self.send_out(message).await {
            tracing::debug!(connection = %self.label, error = %e, "could not answer an invalid request");
        }
    }
}

/// How much of a skipped message a log line shows, in bytes.
const PREVIEW_LEN: usize = 200;

/// How far past [`PREVIEW_LEN`] a secret is looked for, so that one cut by
/// the preview's end is still recognised and hidden whole.
const PREVIEW_SECRET_MARGIN: usize = 4096;

impl Dispatcher {
    /// The first 200 bytes of `bytes`, lossily decoded and redacted, for
    /// logs. Redacted before it is cut, so the end of the preview never
    /// shows the start of a secret.
    fn preview(&self, bytes: &[u8]) -> String {
        let window = &bytes[..bytes.len().min(PREVIEW_LEN + PREVIEW_SECRET_MARGIN)];
        let text = String::from_utf8_lossy(window);
        let text = self.redact(&text);
        let mut cut = text.len().min(PREVIEW_LEN);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut s = text[..cut].to_owned();
        if text.len() > cut || bytes.len() > window.len() {
            s.push('…');
        }
        s
    }
}
