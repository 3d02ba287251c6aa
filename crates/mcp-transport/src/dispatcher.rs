//! What a transport author reads: the [`Dispatcher`] a transport owns, the
//! [`Outbound`] trait it implements (how bytes reach the peer: the one thing
//! that differs between stdio and HTTP), and the [`Outgoing`] messages it
//! delivers, each serialized once.
//!
//! The dispatcher does id allocation, correlation, timeouts, cancellation
//! (`notifications/cancelled`), progress routing, and the dispatch of
//! everything the peer sends, which goes back in through
//! [`Dispatcher::handle_frame`] (or [`Dispatcher::handle_incoming`] for a
//! slice). Framing and stream parsing stay in the transport; message
//! structure and correlation live here.
//!
//! The engine's insides live beside this file, one concern each: the
//! request loop (`request_loop.rs`), the routing of what the peer sends
//! (`routing.rs`), the recovery from frames that do not decode
//! (`recovery.rs`) and the rate limit of the warnings about them
//! (`warn_limit.rs`).

mod recovery;
mod request_loop;
mod routing;
mod warn_limit;

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use bytes::Bytes;
use mcp_types::RawParams;
use mcp_types::{
    JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcResponse, ProtocolVersion, RawResult,
    RequestId,
};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::body::Body;
use crate::error::{CloseReason, TransportError};
use crate::event::{EVENTS_CAPACITY, TransportEvent, TransportEvents};
use crate::options::RequestOptions;
use crate::pause_clock::PauseClock;
use crate::pending::PendingTable;
use crate::tap::{Redactor, TapEvent, WireTap};
use warn_limit::WarnLimit;

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
    /// in `Mcp-Method`): borrowed for every request the schema names (its
    /// `Request::METHOD`), so most messages carry it without an allocation.
    pub method: Option<Cow<'static, str>>,
    /// The id, for requests and responses.
    pub id: Option<RequestId>,
    /// The compact JSON, without a trailing newline; serialized once, and
    /// kept in the buffer it was written in (see [`Body`]).
    pub body: Body,
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

    /// Delivers a request at once when the transport can without waiting
    /// (written, or queued where the queue has room), as [`Outbound::send`]
    /// would deliver it; or hands it back, and the dispatcher then awaits
    /// [`Outbound::send`]. The dispatcher tries this first for every
    /// request: a transport writing to a local pipe delivers most requests
    /// here, without the boxed future of `send`. `Ok(Err(_))` fails the
    /// request as an error of `send` would. The default hands every
    /// message back.
    #[allow(clippy::result_large_err)]
    fn send_request_now(
        &self,
        message: Outgoing,
        dispatcher: &Dispatcher,
    ) -> Result<Result<(), TransportError>, Outgoing> {
        let _ = dispatcher;
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
    /// Counts the server requests being answered (arrived, answer not
    /// yet sent) and the time the request timeouts stood still because of
    /// them (see `request_loop.rs`).
    pauses: PauseClock,
    /// Takes the secrets the transport sent out of what is shown.
    redactor: OnceLock<Arc<dyn Redactor>>,
    /// Sees every message sent and received, when a host asked.
    tap: OnceLock<Arc<dyn WireTap>>,
}

pub use warn_limit::{SKIPPED_WARNING_WINDOW, SKIPPED_WARNINGS_PER_WINDOW};

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
            pauses: PauseClock::default(),
            redactor: OnceLock::new(),
            tap: OnceLock::new(),
            label: label.into(),
        })
    }

    /// Installs the connection's [`Redactor`]: from then on every text the
    /// dispatcher shows (an error response's message and data, a skipped
    /// message in a log line, a server's `notifications/message`, what a
    /// [`WireTap`] sees) passes through it first. One per connection:
    /// `false` when one was already installed (it stays).
    pub fn set_redactor(&self, redactor: Arc<dyn Redactor>) -> bool {
        self.redactor.set(redactor).is_ok()
    }

    /// `text` as it may be shown: through the installed [`Redactor`], or
    /// as it is when there is none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.redactor.get() {
            Some(r) => r.redact(text),
            None => Cow::Borrowed(text),
        }
    }

    /// Installs a [`WireTap`] that sees every message from now on. One per
    /// connection: `false` when one was already installed (it stays).
    pub fn set_wire_tap(&self, tap: Arc<dyn WireTap>) -> bool {
        self.tap.set(tap).is_ok()
    }

    /// Shows the tap a message on its way out.
    fn tap_sent(&self, message: &Outgoing) {
        if let Some(tap) = self.tap.get() {
            let text = String::from_utf8_lossy(&message.body);
            tap.observe(&self.label, TapEvent::Sent(&self.redact(&text)));
        }
    }

    /// Shows the tap a frame as it came in.
    fn tap_received(&self, frame: &[u8]) {
        if let Some(tap) = self.tap.get() {
            let text = String::from_utf8_lossy(frame);
            tap.observe(&self.label, TapEvent::Received(&self.redact(&text)));
        }
    }

    /// Shows the tap something decided here; `what` is only built when a
    /// tap is installed.
    fn tap_local(&self, what: impl FnOnce() -> String) {
        if let Some(tap) = self.tap.get() {
            tap.observe(&self.label, TapEvent::Local(&self.redact(&what())));
        }
    }

    /// Delivers `message` through the transport, shown to the tap first.
    async fn send_out(self: &Arc<Self>, message: Outgoing) -> Result<(), TransportError> {
        self.tap_sent(&message);
        self.outbound.send(message, self).await
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

    /// `true` while a server request has arrived and its answer is not sent
    /// yet (a person filling in a form, a model sampling). The request
    /// timeouts stand still meanwhile; a transport with a silence limit of
    /// its own (HTTP's `sse_idle`) does not count that silence either: the
    /// server is waiting on us.
    pub fn is_answering(&self) -> bool {
        self.pauses.is_paused()
    }

    /// How many requests await a response: an atomic count read without
    /// taking the pending table's lock.
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
        self.run_request(method, request_loop::Params::Value(params), options)
            .await
    }

    /// [`Dispatcher::request`] with params the caller serialized: the
    /// request is written around them in place, so a large argument is
    /// not copied again, and nothing of them is kept while the response is
    /// awaited. `_meta` members (`options.params_meta`, a `progressToken`)
    /// are merged as for [`Dispatcher::request`].
    ///
    /// Errors: as [`Dispatcher::request`]; `Protocol` when `params` are not
    /// JSON and `_meta` members had to be merged into them.
    pub async fn request_raw(
        self: &Arc<Self>,
        method: &str,
        params: RawParams,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        self.run_request(method, request_loop::Params::Raw(params), options)
            .await
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
        self.send_out(notification_message(Cow::Owned(method.to_owned()), params))
            .await
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
        let body = Body::from(
            JsonRpcMessage::Response(JsonRpcResponse {
                id: Some(id.clone()),
                outcome,
            })
            .to_vec(),
        );
        self.send_out(Outgoing {
            kind: OutgoingKind::Response,
            method: None,
            id: Some(id),
            body,
            metadata_headers: Vec::new(),
            deadline: None,
        })
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
        self.decode_and_route(frame).await
    }

    /// Fails the pending request `id` with `error`, for a failure the
    /// transport saw that belongs to that one request (e.g. its response
    /// exceeded the size limit: [`TransportError::MessageTooLarge`]; its
    /// session expired: [`TransportError::SessionExpired`]). The connection stays open.
    /// Returns `false` when no request `id` is pending (already answered,
    /// timed out or cancelled); `error` is then dropped.
    pub fn fail_request(&self, id: &RequestId, error: TransportError) -> bool {
        self.pending.complete(id, Err(error))
    }

    /// Fails every pending request (e.g. when an HTTP stream that carried
    /// them ended) without closing the connection.
    pub fn fail_pending(&self, error: &TransportError) {
        self.pending.fail_all(error);
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
        self.tap_local(|| format!("connection closed: {reason}"));
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

/// A notification, serialized once, ready for [`Outbound::send`].
fn notification_message(method: Cow<'static, str>, params: Option<Value>) -> Outgoing {
    let body = Body::from(
        JsonRpcMessage::Notification(JsonRpcNotification {
            method: method.clone().into_owned(),
            params,
        })
        .to_vec(),
    );
    Outgoing {
        kind: OutgoingKind::Notification,
        method: Some(method),
        id: None,
        body,
        metadata_headers: Vec::new(),
        deadline: None,
    }
}
