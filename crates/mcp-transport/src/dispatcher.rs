//! The request machinery both transports share: id allocation, the pending
//! table, timeouts, cancellation (`notifications/cancelled`), progress
//! routing, and the dispatch of everything the peer sends.
//!
//! A transport owns one [`Dispatcher`] and supplies an [`Outbound`] — the
//! one thing that differs between stdio and HTTP: how bytes reach the peer.
//! Everything the peer sends goes back in through
//! [`Dispatcher::handle_incoming`]. Framing and stream parsing stay in the
//! transport; message structure and correlation live here.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use mcp_types::jsonrpc::RequestBody;
use mcp_types::{
    DecodeOptions, Decoded, JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcResponse,
    ProtocolVersion, RawResult, RequestId, answered_ids, decode_frame, invalid_request,
};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::error::{CloseReason, TimeoutPhase, TransportError};
use crate::event::{
    EVENTS_CAPACITY, IncomingRequest, TransportEvent, TransportEvents, default_answer,
};
use crate::options::{DEFAULT_REQUEST_TIMEOUT, Progress, RequestOptions};
use crate::pending::{IdMatch, PendingTable};

/// What kind of message an [`Outgoing`] carries; HTTP treats a request (which
/// expects a response) differently from the rest (202 Accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutgoingKind {
    /// A request; its response will come back through `handle_incoming`.
    Request,
    /// A notification.
    Notification,
    /// A response to a server request.
    Response,
}

/// One serialized message on its way to the peer.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The kind.
    pub kind: OutgoingKind,
    /// The method, for requests and notifications (HTTP 2026-07-28 sends it
    /// in `Mcp-Method`).
    pub method: Option<String>,
    /// The id, for requests and responses.
    pub id: Option<RequestId>,
    /// The compact JSON, without a trailing newline; serialized once.
    pub body: Bytes,
    /// HTTP request-metadata headers of a request (from
    /// [`RequestOptions::metadata_headers`]: `Mcp-Name`, `Mcp-Param-*`, raw
    /// values); empty for notifications and responses. Transports without
    /// headers ignore them.
    pub metadata_headers: Vec<(String, String)>,
    /// When a request's own timeout ends, as it stood when it was sent
    /// (progress may extend it later; `None`: no timeout, and always `None`
    /// for notifications and responses). A transport that would wait before
    /// sending (a server's `Retry-After`) does not wait past it: the
    /// server's refusal is the better error than a timeout.
    pub deadline: Option<Instant>,
}

/// How a transport delivers bytes to the peer.
#[async_trait]
pub trait Outbound: Send + Sync + 'static {
    /// Delivers one message. For a request, the transport may keep reading
    /// the reply stream inside this call, feeding each message it reads to
    /// `dispatcher.handle_incoming`; the request resolves as soon as its
    /// response arrives, and this future is then dropped.
    ///
    /// Errors: for a request, the error fails that request (e.g. an HTTP
    /// status, or a stream that ended without the response).
    async fn send(
        &self,
        message: Outgoing,
        dispatcher: &Arc<Dispatcher>,
    ) -> Result<(), TransportError>;

    /// Delivers a notification without waiting, when the transport can (e.g.
    /// a write queue with room), or hands it back. Used from `Drop`, where
    /// nothing can be awaited: a request future dropped just before
    /// `close()` still gets its `notifications/cancelled` queued ahead of
    /// the close. The default hands every message back (the dispatcher then
    /// sends it from a spawned task).
    // The message comes back by value so the caller sends it on without a
    // copy or an allocation; this runs in `Drop`, rarely.
    #[allow(clippy::result_large_err)]
    fn try_send_now(&self, message: Outgoing) -> Result<(), Outgoing> {
        Err(message)
    }
}

/// The shared engine. Create with [`Dispatcher::new`]; always held in an `Arc`.
pub struct Dispatcher {
    pending: PendingTable,
    outbound: Arc<dyn Outbound>,
    events: Mutex<Option<mpsc::Sender<TransportEvent>>>,
    closed: AtomicBool,
    close_reason: OnceLock<CloseReason>,
    version: AtomicU8,
    label: String,
    /// Limits the warnings about skipped input (see [`WarnLimit`]).
    skipped_warnings: Mutex<WarnLimit>,
    /// Set once the peer was seen echoing an integer id as a string, so
    /// that is warned about once per connection.
    echoed_string_ids: AtomicBool,
}

/// At most this many warnings about skipped input (a line or an SSE event
/// that is not JSON-RPC) per [`SKIPPED_WARNING_WINDOW`] per connection.
pub const SKIPPED_WARNINGS_PER_WINDOW: u32 = 5;

/// The window of [`SKIPPED_WARNINGS_PER_WINDOW`]: 10 000 ms.
pub const SKIPPED_WARNING_WINDOW: Duration = Duration::from_secs(10);

/// Rate limit for the warnings about skipped input: a server that logs on
/// stdout must not flood the log (catalogue B14: log it, rate-limited and
/// truncated). Past the limit, skipped input is logged at debug and
/// counted; the next warning says how many were not shown.
#[derive(Debug, Default)]
struct WarnLimit {
    window_start: Option<std::time::Instant>,
    shown: u32,
    hidden: u64,
}

impl WarnLimit {
    /// `Some(hidden since the last warning)` when a warning may be shown
    /// at `now`; `None` (and counted) when it may not.
    fn admit(&mut self, now: std::time::Instant) -> Option<u64> {
        if self
            .window_start
            .is_none_or(|start| now.saturating_duration_since(start) >= SKIPPED_WARNING_WINDOW)
        {
            self.window_start = Some(now);
            self.shown = 0;
        }
        if self.shown < SKIPPED_WARNINGS_PER_WINDOW {
            self.shown += 1;
            Some(std::mem::take(&mut self.hidden))
        } else {
            self.hidden = self.hidden.saturating_add(1);
            None
        }
    }
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("label", &self.label)
            .field("pending", &self.pending.len())
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish()
    }
}

const NO_VERSION: u8 = u8::MAX;

impl Dispatcher {
    /// A dispatcher sending through `outbound`. `label` names the connection
    /// in logs (e.g. the server name).
    pub fn new(outbound: Arc<dyn Outbound>, label: impl Into<String>) -> Arc<Self> {
        Arc::new(Dispatcher {
            pending: PendingTable::new(),
            outbound,
            events: Mutex::new(None),
            closed: AtomicBool::new(false),
            close_reason: OnceLock::new(),
            version: AtomicU8::new(NO_VERSION),
            skipped_warnings: Mutex::new(WarnLimit::default()),
            echoed_string_ids: AtomicBool::new(false),
            label: label.into(),
        })
    }

    /// The connection's label, for logs.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Takes the event receiver. The first call creates it and returns it;
    /// later calls return `None`. Until it is taken, server requests get the
    /// default answer (`{}` for `ping`, `-32601` otherwise) and notifications
    /// are logged at debug.
    pub fn take_events(&self) -> Option<TransportEvents> {
        let mut slot = self.events.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_some() {
            return None;
        }
        let (tx, rx) = mpsc::channel(EVENTS_CAPACITY);
        *slot = Some(tx);
        Some(rx)
    }

    fn events_sender(&self) -> Option<mpsc::Sender<TransportEvent>> {
        self.events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Records the negotiated revision (it decides, e.g., whether a JSON
    /// array is a batch).
    pub fn set_protocol_version(&self, version: ProtocolVersion) {
        let idx = ProtocolVersion::ALL
            .iter()
            .position(|v| *v == version)
            .unwrap_or(0);
        self.version.store(idx as u8, Ordering::Relaxed);
    }

    /// The negotiated revision, once set.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL
            .get(self.version.load(Ordering::Relaxed) as usize)
            .copied()
    }

    /// `false` once [`close`](Self::close) ran.
    pub fn is_open(&self) -> bool {
        !self.closed.load(Ordering::Acquire)
    }

    /// Why the connection closed, once it has.
    pub fn close_reason(&self) -> Option<&CloseReason> {
        self.close_reason.get()
    }

    fn closed_error(&self) -> TransportError {
        TransportError::Closed(
            self.close_reason
                .get()
                .cloned()
                .unwrap_or_else(|| CloseReason::new("connection closed")),
        )
    }

    /// How many requests await a response.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Sends a request and waits for its response, honouring `options`.
    ///
    /// When `options.progress` is set, `params._meta.progressToken` is set to
    /// the request id; `options.params_meta` members are added to
    /// `params._meta` where absent. The result comes back unparsed. On timeout, cancellation, or when the returned future
    /// is dropped before completion, the request is forgotten, a late response
    /// is dropped, and the peer is sent exactly one `notifications/cancelled`
    /// (never for `initialize`).
    ///
    /// Errors: [`TransportError::JsonRpc`] for an error response,
    /// `Timeout`, `Cancelled`, `Closed`, `Malformed`, or whatever the
    /// transport's [`Outbound::send`] returned.
    pub async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        if !self.is_open() {
            return Err(self.closed_error());
        }
        let want_progress = options.progress.is_some();
        let mut waiter = self.pending.register(method, want_progress);
        let id = waiter.id.clone();
        let progress_token = want_progress.then(|| [("progressToken", id.to_value())]);
        let body = Bytes::from(
            RequestBody {
                id: &id,
                method,
                params,
                meta_defaults: options.params_meta.as_deref(),
                meta_overrides: progress_token.as_ref().map_or(&[], |t| t.as_slice()),
            }
            .to_vec(),
        );
        if want_progress && params.is_some_and(|p| !p.is_object()) {
            // MCP params are always objects; the caller's are kept as they are.
            tracing::warn!(%method, "request params are not an object; no progressToken added");
        }
        let notify_peer = options.cancel_notification && method != "initialize";
        let mut guard = CancelOnDrop {
            dispatcher: self.clone(),
            id: id.clone(),
            notify_peer,
            armed: true,
        };
        let start = Instant::now();
        let total_deadline = options.max_total_timeout.map(|t| start + t);
        let timeout = options.timeout.resolve(DEFAULT_REQUEST_TIMEOUT);
        let mut deadline = deadline_after(start, timeout, total_deadline);
        let outgoing = Outgoing {
            kind: OutgoingKind::Request,
            method: Some(method.to_owned()),
            id: Some(id.clone()),
            body,
            metadata_headers: options.metadata_headers.clone(),
            deadline,
        };
        let send = self.outbound.send(outgoing, self);
        tokio::pin!(send);
        let mut sent = false;
        loop {
            tokio::select! {
                biased;
                outcome = &mut waiter.done => {
                    guard.armed = false;
                    // Progress that arrived before the response is delivered
                    // first, so the sink sees every update in order.
                    if let (Some(sink), Some(rx)) = (&options.progress, waiter.progress.as_mut()) {
                        while let Ok(update) = rx.try_recv() {
                            sink(update);
                        }
                    }
                    return match outcome {
                        Ok(outcome) => outcome,
                        // The entry was dropped without an outcome: only close does that.
                        Err(_) => Err(self.closed_error()),
                    };
                }
                result = &mut send, if !sent => {
                    sent = true;
                    if let Err(e) = result {
                        guard.armed = false;
                        self.pending.remove(&id);
                        // A response may have raced the error in.
                        if let Ok(outcome) = waiter.done.try_recv() {
                            return outcome;
                        }
                        return Err(e);
                    }
                }
                Some(update) = recv_progress(&mut waiter.progress) => {
                    if let Some(sink) = &options.progress {
                        sink(update);
                    }
                    if options.reset_timeout_on_progress {
                        deadline = deadline_after(Instant::now(), timeout, total_deadline);
                    }
                }
                _ = sleep_until_opt(deadline) => {
                    guard.armed = false;
                    let phase = if total_deadline.is_some() && deadline == total_deadline {
                        TimeoutPhase::Total
                    } else {
                        TimeoutPhase::Request
                    };
                    let ms = start.elapsed().as_millis() as u64;
                    self.abandon(&id, notify_peer, "timeout").await;
                    return Err(TransportError::Timeout { ms, phase });
                }
                _ = cancelled_opt(options.cancel.as_ref()) => {
                    guard.armed = false;
                    self.abandon(&id, notify_peer, "cancelled by the client").await;
                    return Err(TransportError::Cancelled);
                }
            }
        }
    }

    /// Forgets request `id` and, when `notify_peer`, tells the peer (spec:
    /// `basic/utilities/cancellation`; never for `initialize`).
    async fn abandon(self: &Arc<Self>, id: &RequestId, notify_peer: bool, reason: &str) {
        self.pending.remove(id);
        if !notify_peer || !self.is_open() {
            return;
        }
        let params = serde_json::json!({ "requestId": id, "reason": reason });
        if let Err(e) = self.notify("notifications/cancelled", Some(params)).await {
            tracing::debug!(connection = %self.label, error = %e, "could not send notifications/cancelled");
        }
    }

    /// Sends a notification.
    ///
    /// Errors: `Closed` after close, or the transport's delivery error.
    pub async fn notify(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), TransportError> {
        if !self.is_open() {
            return Err(self.closed_error());
        }
        self.outbound
            .send(notification_message(method, params), self)
            .await
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
        let body = Bytes::from(
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
        if let Err(e) = self.outbound.send(message, self).await {
            tracing::debug!(connection = %self.label, error = %e, "could not answer an invalid request");
        }
    }

    /// Sends the response to a server request.
    pub(crate) async fn send_response(
        self: &Arc<Self>,
        id: RequestId,
        outcome: Result<Value, JsonRpcError>,
    ) -> Result<(), TransportError> {
        if !self.is_open() {
            return Err(self.closed_error());
        }
        let body = Bytes::from(
            JsonRpcMessage::Response(JsonRpcResponse {
                id: Some(id.clone()),
                outcome,
            })
            .to_vec(),
        );
        self.outbound
            .send(
                Outgoing {
                    kind: OutgoingKind::Response,
                    method: None,
                    id: Some(id),
                    body,
                    metadata_headers: Vec::new(),
                    deadline: None,
                },
                self,
            )
            .await
    }

    /// Handles one framed message from the peer: decodes it and routes it.
    ///
    /// Never fails the connection: a message that is not JSON-RPC is logged
    /// and skipped; a malformed response fails only its own request; a
    /// response with an unknown id is logged at debug and dropped.
    ///
    /// Copies `bytes` once; a transport that already holds the frame as
    /// [`Bytes`] uses [`Dispatcher::handle_frame`], which does not.
    pub async fn handle_incoming(self: &Arc<Self>, bytes: &[u8]) {
        self.handle_frame(Bytes::copy_from_slice(bytes)).await
    }

    /// [`Dispatcher::handle_incoming`] for a frame the transport holds as
    /// [`Bytes`]: the `result` of a response is handed to its request as a
    /// slice of `frame`, without a copy.
    pub async fn handle_frame(self: &Arc<Self>, frame: Bytes) {
        let bytes: &[u8] = &frame;
        let options = DecodeOptions {
            allow_batch: self.protocol_version().is_some_and(|v| v.allows_batch()),
        };
        match decode_frame(&frame, options) {
            Ok(Decoded::Response { id, outcome }) => {
                let outcome = outcome.map_err(TransportError::JsonRpc);
                self.deliver(&id, outcome);
            }
            Ok(Decoded::Message(message)) => self.route(message).await,
            Err(err) => {
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
                        let how = self.pending.complete_response(
                            &id,
                            Err(TransportError::malformed_response(&id, &err)),
                        );
                        self.note_id_match(&id, how);
                        if how.found() {
                            failed += 1;
                        }
                    }
                    match self.admit_skipped_warning() {
                        Some(not_shown) => tracing::warn!(
                            connection = %self.label,
                            error = %err,
                            input = %preview(bytes),
                            requests_failed = failed,
                            earlier_not_shown = not_shown,
                            "skipping a message that is not JSON-RPC"
                        ),
                        None => tracing::debug!(
                            connection = %self.label,
                            error = %err,
                            input = %preview(bytes),
                            requests_failed = failed,
                            "skipping a message that is not JSON-RPC (warnings rate-limited)"
                        ),
                    }
                }
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

    /// Whether a warning about skipped input may be shown now (see
    /// [`WarnLimit`]), with the number not shown since the last one.
    fn admit_skipped_warning(&self) -> Option<u64> {
        self.skipped_warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .admit(std::time::Instant::now())
    }

    /// Reports that a response to request `id` could not be read because it
    /// exceeded `limit` bytes: fails that request with `MessageTooLarge`.
    pub fn fail_request(&self, id: &RequestId, error: TransportError) -> bool {
        self.pending.complete(id, Err(error))
    }

    /// Fails every pending request (e.g. when an HTTP stream that carried
    /// them ended) without closing the connection.
    pub fn fail_pending(&self, error: &TransportError) {
        self.pending.fail_all(error);
    }

    async fn route(self: &Arc<Self>, message: JsonRpcMessage) {
        match message {
            JsonRpcMessage::Response(JsonRpcResponse {
                id: Some(id),
                outcome,
            }) => {
                let outcome = outcome
                    .map(|v| RawResult::from_value(&v))
                    .map_err(TransportError::JsonRpc);
                self.deliver(&id, outcome);
            }
            JsonRpcMessage::Response(JsonRpcResponse { id: None, outcome }) => {
                let detail = match outcome {
                    Err(e) => e.to_string(),
                    Ok(_) => "result with a null id".into(),
                };
                tracing::warn!(connection = %self.label, %detail, "error response with a null id");
                self.emit(TransportEvent::Error(TransportError::Protocol(format!(
                    "uncorrelated error response: {detail}"
                ))))
                .await;
            }
            JsonRpcMessage::Request(req) => {
                let incoming = IncomingRequest::new(req.id, req.method, req.params, self.clone());
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
            JsonRpcMessage::Notification(n) => {
                if n.method == "notifications/progress" && self.route_progress(&n) {
                    return;
                }
                self.emit(TransportEvent::Notification(n)).await;
            }
            JsonRpcMessage::Batch(items) => {
                for item in items {
                    Box::pin(self.route(item)).await;
                }
            }
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
    fn deliver(&self, id: &RequestId, outcome: crate::pending::Outcome) {
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
    fn note_id_match(&self, id: &RequestId, how: IdMatch) {
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

    async fn emit(&self, event: TransportEvent) {
        match self.events_sender() {
            Some(tx) => {
                if tx.send(event).await.is_err() {
                    tracing::debug!(connection = %self.label, "event dropped: the receiver is gone");
                }
            }
            None => tracing::debug!(connection = %self.label, ?event, "event with no receiver"),
        }
    }

    /// Marks the connection closed (once): every pending request fails with
    /// `Closed(reason)` and the `Closed` event is sent. Later calls do nothing.
    /// Returns `true` for the call that closed it.
    pub fn close(&self, reason: CloseReason) -> bool {
        if self.closed.swap(true, Ordering::AcqRel) {
            return false;
        }
        let _ = self.close_reason.set(reason.clone());
        self.pending
            .fail_all(&TransportError::Closed(reason.clone()));
        if let Some(tx) = self.events.lock().unwrap_or_else(|p| p.into_inner()).take() {
            // Never blocks: a full channel means the owner is far behind; it
            // still learns of the close when the channel ends.
            if tx.try_send(TransportEvent::Closed(reason)).is_err() {
                tracing::debug!(connection = %self.label, "close event not queued: events channel full or gone");
            }
        }
        true
    }
}

/// Sends `notifications/cancelled` when a request future is dropped early.
struct CancelOnDrop {
    dispatcher: Arc<Dispatcher>,
    id: RequestId,
    notify_peer: bool,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.dispatcher.pending.remove(&self.id);
        if !self.notify_peer || !self.dispatcher.is_open() {
            return;
        }
        let params =
            serde_json::json!({ "requestId": self.id, "reason": "request dropped by the client" });
        let message = notification_message("notifications/cancelled", Some(params));
        // Queue it now where the transport can, so a close() that follows
        // the drop cannot overtake it; otherwise send it from a task.
        let Err(message) = self.dispatcher.outbound.try_send_now(message) else {
            return;
        };
        let dispatcher = self.dispatcher.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(async move {
                    if let Err(e) = dispatcher.outbound.send(message, &dispatcher).await {
                        tracing::debug!(error = %e, "could not send notifications/cancelled");
                    }
                });
            }
            Err(_) => {
                tracing::warn!(%self.id, "request dropped outside a tokio runtime; notifications/cancelled not sent")
            }
        }
    }
}

/// A notification, serialized once, ready for [`Outbound::send`].
fn notification_message(method: &str, params: Option<Value>) -> Outgoing {
    let body = Bytes::from(
        JsonRpcMessage::Notification(JsonRpcNotification {
            method: method.to_owned(),
            params,
        })
        .to_vec(),
    );
    Outgoing {
        kind: OutgoingKind::Notification,
        method: Some(method.to_owned()),
        id: None,
        body,
        metadata_headers: Vec::new(),
        deadline: None,
    }
}

fn deadline_after(
    now: Instant,
    timeout: Option<Duration>,
    total: Option<Instant>,
) -> Option<Instant> {
    // A timeout too large for an Instant (e.g. `Duration::MAX`) means "no
    // timeout" rather than a panic.
    match (timeout.and_then(|t| now.checked_add(t)), total) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Completes when `token` is cancelled; never without a token (no token is
/// made for a request that was given none: that would be an allocation per
/// request).
async fn cancelled_opt(token: Option<&tokio_util::sync::CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

async fn recv_progress(rx: &mut Option<mpsc::Receiver<Progress>>) -> Option<Progress> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// The first 200 characters of `bytes`, lossily decoded, for logs.
pub fn preview(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(200)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > 200 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_input_warnings_are_rate_limited_per_window() {
        let start = std::time::Instant::now();
        let mut limit = WarnLimit::default();
        let first: Vec<_> = (0..8).map(|_| limit.admit(start)).collect();
        assert_eq!(
            first,
            [
                Some(0),
                Some(0),
                Some(0),
                Some(0),
                Some(0),
                None,
                None,
                None
            ]
        );
        // Still inside the window: counted, not shown.
        assert_eq!(limit.admit(start + SKIPPED_WARNING_WINDOW / 2), None);
        // A new window: shown again, with the count of those not shown.
        assert_eq!(limit.admit(start + SKIPPED_WARNING_WINDOW), Some(4));
        assert_eq!(limit.admit(start + SKIPPED_WARNING_WINDOW), Some(0));
    }
}
