//! Test support (feature `test-util`): an in-memory [`Transport`] built on
//! the real [`Dispatcher`] (so timeouts, `notifications/cancelled` and
//! progress routing behave exactly as on stdio or HTTP), and a
//! [`MemoryPeer`] that plays the server side message by message.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use mcp_client::testing::memory_pair;
//! use mcp_client::{Client, ClientOptions, VersionPreference};
//! let (transport, mut peer) = memory_pair();
//! let server = tokio::spawn(async move {
//!     peer.handshake("2025-11-25", serde_json::json!({"tools": {}})).await;
//!     let ping = peer.expect_request("ping").await;
//!     peer.respond(&ping.id, serde_json::json!({})).await;
//!     peer
//! });
//! let opts = ClientOptions::new("t", "1").with_version_preference(VersionPreference::Handshake);
//! let client = Client::connect(transport, opts).await.unwrap();
//! client.ping(Default::default()).await.unwrap();
//! server.await.unwrap();
//! # }
//! ```
//!
//! The `expect_*` helpers panic (with what arrived instead) when the next
//! message is not the expected one: they are for tests only.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use mcp_transport::{
    CloseReason, Dispatcher, Outbound, Outgoing, RequestOptions, Transport, TransportError,
    TransportEvents,
};
use mcp_types::{
    JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse,
    ProtocolVersion, RequestId,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// How long an `expect_*` helper waits for the next message: 5 000 ms.
pub const EXPECT_TIMEOUT: Duration = Duration::from_millis(5_000);

struct PeerOutbound {
    tx: mpsc::UnboundedSender<JsonRpcMessage>,
}

#[async_trait]
impl Outbound for PeerOutbound {
    async fn send(&self, message: Outgoing, _d: &Arc<Dispatcher>) -> Result<(), TransportError> {
        let decoded = JsonRpcMessage::decode(&message.body).map_err(TransportError::malformed)?;
        self.tx
            .send(decoded)
            .map_err(|_| TransportError::Closed(CloseReason::new("peer gone")))
    }
}

/// The client side of an in-memory connection.
#[derive(Debug)]
pub struct MemoryTransport {
    dispatcher: Arc<Dispatcher>,
    versions: Arc<Mutex<Vec<ProtocolVersion>>>,
    closes: Arc<AtomicUsize>,
}

/// The server side of an in-memory connection: reads what the client sent
/// and sends messages back. Dropping it is the server going away: the
/// connection closes and every request still pending fails with `Closed`
/// at once, as over stdio or a socket (not at its timeout).
#[derive(Debug)]
pub struct MemoryPeer {
    rx: mpsc::UnboundedReceiver<JsonRpcMessage>,
    dispatcher: Arc<Dispatcher>,
    versions: Arc<Mutex<Vec<ProtocolVersion>>>,
    closes: Arc<AtomicUsize>,
}

/// A connected transport/peer pair.
pub fn memory_pair() -> (MemoryTransport, MemoryPeer) {
    let (tx, rx) = mpsc::unbounded_channel();
    let dispatcher = Dispatcher::new(Arc::new(PeerOutbound { tx }), "memory");
    let versions = Arc::new(Mutex::new(Vec::new()));
    let closes = Arc::new(AtomicUsize::new(0));
    (
        MemoryTransport {
            dispatcher: dispatcher.clone(),
            versions: versions.clone(),
            closes: closes.clone(),
        },
        MemoryPeer {
            rx,
            dispatcher,
            versions,
            closes,
        },
    )
}

#[async_trait]
impl Transport for MemoryTransport {
    async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<mcp_types::RawResult, TransportError> {
        self.dispatcher.request(method, params, options).await
    }

    async fn request_raw(
        &self,
        method: &str,
        params: mcp_types::RawParams,
        options: RequestOptions,
    ) -> Result<mcp_types::RawResult, TransportError> {
        self.dispatcher.request_raw(method, params, options).await
    }

    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError> {
        self.dispatcher.notify(method, params).await
    }

    fn dispatcher(&self) -> Option<&Arc<Dispatcher>> {
        Some(&self.dispatcher)
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.closes.fetch_add(1, Ordering::SeqCst);
        self.dispatcher
            .close(CloseReason::new("closed by the client"));
        Ok(())
    }

    fn is_connected(&self) -> bool {
        self.dispatcher.is_open()
    }
    fn wire_kind(&self) -> Option<&'static str> {
        None
    }

    fn take_events(&self) -> Option<TransportEvents> {
        self.dispatcher.take_events()
    }

    fn set_protocol_version(&self, version: ProtocolVersion) {
        self.versions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(version);
        self.dispatcher.set_protocol_version(version);
    }

    /// An in-memory pipe: no HTTP headers.
    fn sends_metadata_headers(&self) -> bool {
        false
    }

    /// No sessions in memory.
    fn session_id(&self) -> Option<String> {
        None
    }

    fn set_wire_tap(&self, tap: Arc<dyn mcp_transport::WireTap>) -> bool {
        self.dispatcher.set_wire_tap(tap)
    }

    fn redact<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        self.dispatcher.redact(text)
    }

    fn pending_requests(&self) -> usize {
        self.dispatcher.pending_len()
    }
}

impl Drop for MemoryPeer {
    fn drop(&mut self) {
        self.dispatcher
            .close(CloseReason::new("the server side (MemoryPeer) was dropped"));
    }
}

impl MemoryPeer {
    /// The next message the client sent, or `None` after
    /// [`EXPECT_TIMEOUT`] or when the client side is gone.
    pub async fn next(&mut self) -> Option<JsonRpcMessage> {
        tokio::time::timeout(EXPECT_TIMEOUT, self.rx.recv())
            .await
            .ok()
            .flatten()
    }

    /// The next message, if one is already queued.
    pub fn try_next(&mut self) -> Option<JsonRpcMessage> {
        self.rx.try_recv().ok()
    }

    /// Waits for the next message and requires it to be request `method`.
    ///
    /// # Panics
    /// When something else (or nothing) arrives.
    pub async fn expect_request(&mut self, method: &str) -> JsonRpcRequest {
        match self.next().await {
            Some(JsonRpcMessage::Request(r)) if r.method == method => r,
            other => panic!("expected request {method}, got {other:?}"),
        }
    }

    /// Waits for the next message and requires it to be notification `method`.
    ///
    /// # Panics
    /// When something else (or nothing) arrives.
    pub async fn expect_notification(&mut self, method: &str) -> JsonRpcNotification {
        match self.next().await {
            Some(JsonRpcMessage::Notification(n)) if n.method == method => n,
            other => panic!("expected notification {method}, got {other:?}"),
        }
    }

    /// Waits for the next message and requires it to be the response to `id`.
    ///
    /// # Panics
    /// When something else (or nothing) arrives.
    pub async fn expect_response(&mut self, id: &RequestId) -> JsonRpcResponse {
        match self.next().await {
            Some(JsonRpcMessage::Response(r)) if r.id.as_ref() == Some(id) => r,
            other => panic!("expected the response to {id}, got {other:?}"),
        }
    }

    /// Sends raw bytes to the client, as if read from the wire.
    pub async fn send_raw(&self, bytes: &[u8]) {
        self.dispatcher.handle_incoming(bytes).await;
    }

    async fn send(&self, message: JsonRpcMessage) {
        self.send_raw(&message.to_vec()).await;
    }

    /// Answers request `id` with `result`.
    pub async fn respond(&self, id: &RequestId, result: Value) {
        self.send(JsonRpcMessage::Response(JsonRpcResponse::result(
            id.clone(),
            result,
        )))
        .await;
    }

    /// Answers request `id` with a JSON-RPC error.
    pub async fn respond_error(&self, id: &RequestId, error: JsonRpcError) {
        self.send(JsonRpcMessage::Response(JsonRpcResponse::error(
            id.clone(),
            error,
        )))
        .await;
    }

    /// Sends a notification to the client.
    pub async fn notify(&self, method: &str, params: Option<Value>) {
        self.send(JsonRpcMessage::Notification(JsonRpcNotification {
            method: method.to_owned(),
            params,
        }))
        .await;
    }

    /// Sends a server-to-client request; its answer arrives via [`MemoryPeer::next`].
    pub async fn request(&self, id: impl Into<RequestId>, method: &str, params: Option<Value>) {
        self.send(JsonRpcMessage::Request(JsonRpcRequest {
            id: id.into(),
            method: method.to_owned(),
            params,
        }))
        .await;
    }

    /// Fails the client's pending request `id` with `SessionExpired`, as an
    /// HTTP transport does on a 404 for its `Mcp-Session-Id`.
    pub fn expire_session(&self, id: &RequestId) -> bool {
        self.dispatcher.fail_request(
            id,
            TransportError::session_expired(404, "unknown session id"),
        )
    }

    /// Closes the connection from the server side.
    pub fn close(&self, reason: &str) {
        self.dispatcher.close(CloseReason::new(reason));
    }

    /// `true` while the connection is open.
    pub fn is_open(&self) -> bool {
        self.dispatcher.is_open()
    }

    /// How many requests the client has in flight.
    pub fn pending(&self) -> usize {
        self.dispatcher.pending_len()
    }

    /// Every revision the client passed to `set_protocol_version`, in order.
    pub fn protocol_versions(&self) -> Vec<ProtocolVersion> {
        self.versions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// How many times the client called `Transport::close`.
    pub fn close_calls(&self) -> usize {
        self.closes.load(Ordering::SeqCst)
    }

    /// Plays the server side of the handshake: expects `initialize`,
    /// answers with `version` and `capabilities` (server name `"mock"`),
    /// expects `notifications/initialized`; returns the `initialize` request.
    ///
    /// # Panics
    /// When the client deviates.
    pub async fn handshake(&mut self, version: &str, capabilities: Value) -> JsonRpcRequest {
        let init = self.expect_request("initialize").await;
        self.respond(
            &init.id,
            json!({
                "protocolVersion": version,
                "capabilities": capabilities,
                "serverInfo": {"name": "mock", "version": "0.0.1"},
                "instructions": "be nice",
            }),
        )
        .await;
        self.expect_notification("notifications/initialized").await;
        init
    }

    /// Answers a `server/discover` probe with `-32601`, as a handshake-revision stdio
    /// server does; returns the probe.
    ///
    /// # Panics
    /// When the next message is not `server/discover`.
    pub async fn refuse_discover(&mut self) -> JsonRpcRequest {
        let probe = self.expect_request("server/discover").await;
        self.respond_error(&probe.id, JsonRpcError::method_not_found("server/discover"))
            .await;
        probe
    }

    /// Sends bytes that are not JSON-RPC (the client must survive them).
    pub async fn send_garbage(&self) {
        self.send_raw(&Bytes::from_static(b"{not json")).await;
    }
}
