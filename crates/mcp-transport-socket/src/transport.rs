//! [`SocketTransport`]: the `Outbound` (a queue to the writer task), the
//! writer task, the reader task, and the `Transport` methods, each handed
//! to the shared [`Dispatcher`].

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mcp_transport::{
    Body, CloseReason, Dispatcher, Outbound, Outgoing, OutgoingKind, RawResult, RequestOptions,
    TimeoutPhase, Transport, TransportError, TransportEvents, WireTap,
};
use mcp_transport_stdio::framing::{Frame, LineFramer, sniff_id};
use mcp_types::ProtocolVersion;
use mcp_types::RawParams;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::address::SocketAddress;

/// The longest message line accepted from the server by default: 64 MiB
/// (67 108 864 bytes), as over stdio.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// How long [`SocketTransport::connect`] waits for the connection by
/// default: 10 000 ms.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_millis(10_000);

/// Messages queued for the writer task: 256; a full queue makes senders
/// wait (a peer that stops reading applies backpressure).
pub const WRITE_QUEUE: usize = 256;

/// How long a notification or a response waits for room in the queue:
/// 30 000 ms, then [`TransportError::Timeout`] with phase `Notify`.
pub const NOTIFY_TIMEOUT: Duration = Duration::from_millis(30_000);

/// How long `close()` lets the writer send what is queued before it drops
/// the connection: 2 000 ms.
pub const CLOSE_GRACE: Duration = Duration::from_millis(2_000);

/// How to reach a socket server, and the limits of the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SocketConfig {
    /// Where the server listens.
    pub address: SocketAddress,
    /// Names the connection in logs and errors (default: the address).
    pub label: String,
    /// The longest line accepted from the server, in bytes (default
    /// [`DEFAULT_MAX_LINE_BYTES`]); a longer one fails the request it
    /// answers with `MessageTooLarge`.
    pub max_line_bytes: usize,
    /// How long connecting may take (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub connect_timeout: Duration,
}

impl SocketConfig {
    /// Connects to `address` with the default limits, labelled by it.
    pub fn new(address: SocketAddress) -> Self {
        SocketConfig {
            label: address.to_string(),
            address,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// Sets the label naming the connection in logs.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the longest line accepted from the server, in bytes.
    pub fn with_max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// Sets how long connecting may take.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
}

/// Hands each message to the writer task, in order, whole.
struct SocketOutbound {
    tx: mpsc::Sender<Body>,
}

#[async_trait]
impl Outbound for SocketOutbound {
    async fn send(
        &self,
        message: Outgoing,
        dispatcher: &Arc<Dispatcher>,
    ) -> Result<(), TransportError> {
        let gone = || {
            TransportError::Closed(
                dispatcher
                    .close_reason()
                    .cloned()
                    .unwrap_or_else(|| CloseReason::new("the connection's writer stopped")),
            )
        };
        // Queuing is all there is to it: a dropped `send` either queued the
        // message whole or not at all, so lines never interleave.
        if message.kind == OutgoingKind::Request {
            // The request's own timeout bounds this wait.
            return self.tx.send(message.body).await.map_err(|_| gone());
        }
        match tokio::time::timeout(NOTIFY_TIMEOUT, self.tx.send(message.body)).await {
            Ok(sent) => sent.map_err(|_| gone()),
            Err(_) => Err(TransportError::timeout(
                NOTIFY_TIMEOUT,
                TimeoutPhase::Notify,
            )),
        }
    }

    fn try_send_now(&self, message: Outgoing) -> Result<(), Outgoing> {
        match self.tx.try_send(message.body.clone()) {
            Ok(()) => Ok(()),
            Err(_) => Err(message),
        }
    }
}

/// An MCP connection over a connected byte stream (a TCP or Unix-domain
/// socket): one JSON-RPC message per line, as over stdio (spec
/// `basic/transports` § stdio framing; the socket is a custom transport in
/// the spec's terms, § Custom Transports). See the [crate docs](crate).
pub struct SocketTransport {
    dispatcher: Arc<Dispatcher>,
    /// Ends the reader at once, and the writer after what is queued.
    closing: CancellationToken,
    /// Ends the writer without waiting (a drop, or a close past its grace).
    abort: CancellationToken,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl fmt::Debug for SocketTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SocketTransport")
            .field("label", &self.dispatcher.label())
            .field("connected", &self.dispatcher.is_open())
            .finish()
    }
}

impl SocketTransport {
    /// Connects to the server at `config.address` (the MCP handshake is
    /// the caller's: pass the transport to `mcp_client::Client::connect`).
    /// TCP connections get `TCP_NODELAY`. Must run inside a tokio runtime.
    ///
    /// Errors: [`TransportError::Io`] when the connection is refused or
    /// the address does not resolve; [`TransportError::Timeout`] (phase
    /// `Connect`) after `config.connect_timeout`;
    /// [`TransportError::Misuse`] for a Unix socket path off Unix.
    pub async fn connect(config: SocketConfig) -> Result<Self, TransportError> {
        let connecting = async {
            match &config.address {
                SocketAddress::Tcp(address) => {
                    let stream = tokio::net::TcpStream::connect(address.as_str())
                        .await
                        .map_err(|e| io_error(e, &config.address))?;
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!(server = %config.label, error = %e, "TCP_NODELAY not set");
                    }
                    Ok(SocketTransport::from_stream(
                        stream,
                        config.label.clone(),
                        config.max_line_bytes,
                    ))
                }
                #[cfg(unix)]
                SocketAddress::Unix(path) => {
                    let stream = tokio::net::UnixStream::connect(path)
                        .await
                        .map_err(|e| io_error(e, &config.address))?;
                    Ok(SocketTransport::from_stream(
                        stream,
                        config.label.clone(),
                        config.max_line_bytes,
                    ))
                }
                #[cfg(not(unix))]
                SocketAddress::Unix(path) => Err(TransportError::misuse(format!(
                    "{} is a Unix-domain socket path; this system has none",
                    path.display()
                ))),
            }
        };
        match tokio::time::timeout(config.connect_timeout, connecting).await {
            Ok(result) => result,
            Err(_) => Err(TransportError::timeout(
                config.connect_timeout,
                TimeoutPhase::Connect,
            )),
        }
    }

    /// A transport over a stream connected already: a socket passed in by
    /// socket activation, one end of a `tokio::io::duplex`, any byte
    /// stream. `label` names it in logs; lines from the peer longer than
    /// `max_line_bytes` fail the request they answer. Must run inside a
    /// tokio runtime (it starts the reader and writer tasks).
    pub fn from_stream(
        stream: impl AsyncRead + AsyncWrite + Send + 'static,
        label: impl Into<String>,
        max_line_bytes: usize,
    ) -> Self {
        let label: String = label.into();
        let (read, write) = tokio::io::split(stream);
        let (tx, rx) = mpsc::channel(WRITE_QUEUE);
        let dispatcher = Dispatcher::new(Arc::new(SocketOutbound { tx }), label.clone());
        let closing = CancellationToken::new();
        let abort = CancellationToken::new();
        tokio::spawn(read_loop(
            read,
            dispatcher.clone(),
            max_line_bytes,
            closing.clone(),
        ));
        let writer = tokio::spawn(write_loop(
            write,
            rx,
            dispatcher.clone(),
            closing.clone(),
            abort.clone(),
        ));
        SocketTransport {
            dispatcher,
            closing,
            abort,
            writer: Mutex::new(Some(writer)),
        }
    }

    /// Why the connection closed, once it has.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.dispatcher.close_reason().cloned()
    }
}

/// An I/O error that names the address it was about.
fn io_error(error: std::io::Error, address: &SocketAddress) -> TransportError {
    TransportError::Io(Arc::new(std::io::Error::new(
        error.kind(),
        format!("connecting to {address}: {error}"),
    )))
}

/// Writes each queued message and its `\n`; flushes when the queue is
/// empty, so a burst goes out in few writes. On `closing` it writes what
/// is queued and shuts the write half down (the peer reads the end of the
/// stream); on `abort` it stops at once.
async fn write_loop(
    write: impl AsyncWrite + Send,
    mut rx: mpsc::Receiver<Body>,
    dispatcher: Arc<Dispatcher>,
    closing: CancellationToken,
    abort: CancellationToken,
) {
    let out = BufWriter::new(write);
    let mut out = std::pin::pin!(out);
    let failed = |e: std::io::Error| {
        let reason = CloseReason::new(format!("writing to the socket failed: {e}"));
        if dispatcher.close(reason) {
            tracing::info!(server = %dispatcher.label(), error = %e, "socket connection ended");
        }
    };
    loop {
        let body = tokio::select! {
            biased;
            _ = abort.cancelled() => return,
            body = rx.recv() => body,
            _ = closing.cancelled() => None,
        };
        let Some(body) = body else { break };
        let written = async {
            out.write_all(&body).await?;
            out.write_all(b"\n").await?;
            if rx.is_empty() {
                out.flush().await?;
            }
            Ok::<(), std::io::Error>(())
        };
        let written = tokio::select! {
            biased;
            _ = abort.cancelled() => return,
            w = written => w,
        };
        if let Err(e) = written {
            failed(e);
            return;
        }
    }
    // Closing: what was queued before the close still goes out (a
    // `notifications/cancelled` of a request dropped just before it).
    let drain = async {
        while let Ok(body) = rx.try_recv() {
            out.write_all(&body).await?;
            out.write_all(b"\n").await?;
        }
        out.flush().await?;
        out.shutdown().await
    };
    tokio::select! {
        biased;
        _ = abort.cancelled() => {}
        r = drain => if let Err(e) = r {
            tracing::debug!(server = %dispatcher.label(), error = %e, "the socket's last writes failed");
        },
    }
}

/// Frames what the server sends and hands each line to the dispatcher;
/// the end of the stream (or a read error) closes the connection.
async fn read_loop(
    mut read: impl AsyncRead + Send + Unpin,
    dispatcher: Arc<Dispatcher>,
    max_line_bytes: usize,
    closing: CancellationToken,
) {
    let label = dispatcher.label().to_owned();
    let mut framer = LineFramer::new(max_line_bytes).with_source(format!("socket server {label}"));
    let why = loop {
        let read = tokio::select! {
            biased;
            _ = closing.cancelled() => return,
            r = read.read_buf(framer.read_buffer()) => r,
        };
        match read {
            Ok(0) => break "the server closed the connection".to_owned(),
            Ok(_) => {}
            Err(e) => break format!("reading from the socket failed: {e}"),
        }
        while let Some(frame) = framer.next_frame() {
            deliver(&dispatcher, frame).await;
        }
    };
    let mut frames = Vec::new();
    framer.finish(&mut frames);
    for frame in frames {
        deliver(&dispatcher, frame).await;
    }
    if dispatcher.close(CloseReason::new(why.clone())) {
        tracing::info!(server = %label, reason = %why, "socket connection ended");
    }
}

/// One frame to the dispatcher; a line over the limit fails the request
/// it answers when its first bytes show the id.
async fn deliver(dispatcher: &Arc<Dispatcher>, frame: Frame) {
    match frame {
        Frame::Line(line) => dispatcher.handle_frame(line).await,
        Frame::TooLong { prefix, limit } => match sniff_id(&prefix) {
            Some(id) if dispatcher.fail_request(&id, TransportError::message_too_large(limit)) => {
                tracing::warn!(server = %dispatcher.label(), %id, limit, "response over the line limit discarded; its request fails");
            }
            _ => {
                tracing::warn!(server = %dispatcher.label(), limit, "line over the limit discarded");
            }
        },
    }
}

#[async_trait]
impl Transport for SocketTransport {
    async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        self.dispatcher.request(method, params, options).await
    }

    async fn request_raw(
        &self,
        method: &str,
        params: RawParams,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        self.dispatcher.request_raw(method, params, options).await
    }

    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError> {
        self.dispatcher.notify(method, params).await
    }

    fn dispatcher(&self) -> Option<&Arc<Dispatcher>> {
        Some(&self.dispatcher)
    }

    /// Fails pending requests with `Closed("closed by the client")`, writes
    /// what was queued (for at most [`CLOSE_GRACE`]) and shuts the socket's
    /// write half, so the server reads the end of its input. Closing again
    /// returns at once.
    async fn close(&self) -> Result<(), TransportError> {
        self.dispatcher
            .close(CloseReason::new("closed by the client"));
        self.closing.cancel();
        let writer = self.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(mut writer) = writer
            && tokio::time::timeout(CLOSE_GRACE, &mut writer)
                .await
                .is_err()
        {
            tracing::debug!(server = %self.dispatcher.label(), "the socket's writer did not finish in time; dropping the connection");
            self.abort.cancel();
            let _ = writer.await;
        }
        Ok(())
    }

    fn is_connected(&self) -> bool {
        self.dispatcher.is_open()
    }
    fn wire_kind(&self) -> Option<&'static str> {
        Some("socket")
    }

    fn take_events(&self) -> Option<TransportEvents> {
        self.dispatcher.take_events()
    }

    fn set_protocol_version(&self, version: ProtocolVersion) {
        self.dispatcher.set_protocol_version(version);
    }

    /// No HTTP, so no request-metadata headers.
    fn sends_metadata_headers(&self) -> bool {
        false
    }

    /// A socket has no sessions.
    fn session_id(&self) -> Option<String> {
        None
    }

    fn set_wire_tap(&self, tap: Arc<dyn WireTap>) -> bool {
        self.dispatcher.set_wire_tap(tap)
    }

    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.dispatcher.redact(text)
    }

    fn pending_requests(&self) -> usize {
        self.dispatcher.pending_len()
    }
}

impl Drop for SocketTransport {
    /// Without `close()`: pending requests fail with `Closed`, and the
    /// connection's tasks end, dropping the socket.
    fn drop(&mut self) {
        self.dispatcher
            .close(CloseReason::new("transport dropped without close()"));
        self.closing.cancel();
        self.abort.cancel();
    }
}
