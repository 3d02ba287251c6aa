//! [`HttpTransport`]: the [`Transport`] over Streamable HTTP, legacy
//! HTTP+SSE, or either (auto-detection), and the [`Outbound`] its
//! dispatcher sends through, which goes the way the connection's mode says.

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use mcp_transport::{
    CloseReason, Dispatcher, Outbound, Outgoing, RequestOptions, Transport, TransportError,
    TransportEvents,
};
use mcp_types::RawParams;
use mcp_types::{ProtocolVersion, RawResult};
use serde_json::Value;

use crate::config::{HttpConfig, HttpMode};
use crate::exchange::{HttpRequest, RequestKind};
use crate::mode::ModeState;
use crate::redact::SecretsRedactor;
use crate::shared::Shared;
use crate::{legacy, listener, streamable};

/// Which transport a connection ended up speaking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActiveMode {
    /// Auto mode, before the first request settled it.
    Undecided,
    /// Streamable HTTP.
    Streamable,
    /// Legacy HTTP+SSE (2024-11-05).
    Legacy,
}

/// A connection to one remote MCP server over HTTP.
///
/// Requests, notifications, timeouts, cancellation and progress go through
/// the connection [`Dispatcher`]; this type only moves bytes (see the crate docs
/// for the wire behaviour).
///
/// # Cancel safety
/// Dropping a [`request`](Transport::request) future drops the reply
/// stream and, before 2026-07-28, POSTs `notifications/cancelled` (never for
/// `initialize`); under 2026-07-28 the dropped stream is the cancellation. Dropping the transport without [`close`](Transport::close) stops
/// its background readers but cannot send the session `DELETE`.
pub struct HttpTransport {
    /// The request path and the session, side by side.
    shared: Arc<Shared>,
    dispatcher: Arc<Dispatcher>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("label", &self.shared.label())
            .field("mode", &self.mode())
            .field("connected", &self.dispatcher.is_open())
            .finish()
    }
}

impl HttpTransport {
    /// Connects to the server of `config` in `mode`.
    ///
    /// Streamable and Auto do no I/O here (the first POST is the first
    /// contact). Legacy opens the SSE stream and waits for the `endpoint`
    /// event (up to `config.timeouts.connect`).
    ///
    /// Errors: `Protocol` for an invalid URL or header; in Legacy mode `Http`,
    /// `Io`, `Timeout{Connect}` or `Closed` from the stream set-up.
    pub async fn connect(
        config: HttpConfig,
        mode: HttpMode,
    ) -> Result<HttpTransport, TransportError> {
        let initial = match mode {
            HttpMode::Auto => ModeState::Probing,
            _ => ModeState::Streamable,
        };
        let label = config.label.clone();
        let shared = Shared::new(config, initial)?;
        let dispatcher = Dispatcher::new(Arc::new(ByMode(shared.clone())), label);
        dispatcher.set_redactor(Arc::new(SecretsRedactor(shared.exchange.secrets())));
        if mode == HttpMode::Legacy {
            let link = legacy::open(&shared, &dispatcher).await?;
            shared.session.set_mode(ModeState::Legacy(link));
        }
        Ok(HttpTransport { shared, dispatcher })
    }

    /// [`connect`](Self::connect) in [`HttpMode::Auto`]: Streamable HTTP,
    /// falling back to legacy HTTP+SSE when the first request's POST gets
    /// 400, 404 or 405 (that same request is then re-sent over legacy).
    ///
    /// Errors: as [`connect`](Self::connect).
    pub async fn connect_auto(config: HttpConfig) -> Result<HttpTransport, TransportError> {
        Self::connect(config, HttpMode::Auto).await
    }

    /// Opens the GET stream for server-initiated messages now (Streamable
    /// HTTP only; at most once per connection). It is opened automatically
    /// after `notifications/initialized` is delivered unless
    /// [`HttpConfig::listen_after_initialized`] is off.
    ///
    /// Returns at once; the GET is sent on a background task.
    pub fn start_listening(&self) {
        let _ = listener::start(&self.shared, &self.dispatcher);
    }

    /// Which transport is in use.
    pub fn mode(&self) -> ActiveMode {
        match self.shared.session.mode() {
            ModeState::Probing => ActiveMode::Undecided,
            ModeState::Streamable => ActiveMode::Streamable,
            ModeState::Legacy(_) => ActiveMode::Legacy,
        }
    }

    /// Uses `session` as the `Mcp-Session-Id` (e.g. a one-shot call inside
    /// a session the caller already has).
    pub fn set_session_id(&self, session: Option<String>) {
        self.shared.session.set_session_id(session);
    }

    /// Closes locally: stops background readers and fails pending requests,
    /// without the session `DELETE`.
    pub(crate) fn close_local(&self, reason: &str) {
        self.shared.session.stop_tasks();
        self.dispatcher.close(CloseReason::new(reason));
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        self.shared.session.stop_tasks();
    }
}

#[async_trait]
impl Transport for HttpTransport {
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

    /// Stops the GET listener (and the legacy reader), sends `DELETE` with
    /// the `Mcp-Session-Id` when there is one (405 and errors are ignored),
    /// then fails pending requests with `Closed`.
    async fn close(&self) -> Result<(), TransportError> {
        let shared = &self.shared;
        shared.session.stop_tasks();
        let streamable = !matches!(shared.session.mode(), ModeState::Legacy(_));
        if self.dispatcher.is_open()
            && streamable
            && let Some(session) = shared.session.session_id()
        {
            let limit = shared.config.timeouts.close;
            let request = HttpRequest::new(shared.url.clone(), Bytes::new(), RequestKind::Delete);
            let deadline = tokio::time::Instant::now() + limit;
            let delete = shared
                .exchange
                .send(&request, &shared.session, Some(deadline));
            match tokio::time::timeout(limit, delete).await {
                Ok(Ok(reply)) => {
                    tracing::debug!(connection = %shared.label(), status = reply.response.status().as_u16(), "session DELETE answered")
                }
                Ok(Err(e)) => {
                    tracing::debug!(connection = %shared.label(), error = %e, "session DELETE failed")
                }
                Err(_) => {
                    tracing::debug!(connection = %shared.label(), "session DELETE timed out")
                }
            }
            let _ = session;
            shared.session.take_session_id();
        }
        // After the DELETE, which a sticky session's cookie must route too.
        shared.exchange.forget_cookies();
        self.dispatcher
            .close(CloseReason::new("closed by the client"));
        Ok(())
    }

    fn is_connected(&self) -> bool {
        self.dispatcher.is_open()
    }

    fn take_events(&self) -> Option<TransportEvents> {
        self.dispatcher.take_events()
    }

    fn set_protocol_version(&self, version: ProtocolVersion) {
        self.shared.session.set_version(version);
        self.dispatcher.set_protocol_version(version);
    }

    fn wire_kind(&self) -> Option<&'static str> {
        Some(match self.mode() {
            ActiveMode::Streamable => "Streamable HTTP",
            ActiveMode::Legacy => "HTTP+SSE (2024-11-05)",
            // Auto mode before its first request settled it.
            ActiveMode::Undecided => "HTTP (Streamable HTTP or HTTP+SSE, not settled yet)",
        })
    }

    fn session_id(&self) -> Option<String> {
        self.shared.session.session_id()
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

    /// `true` on Streamable HTTP under 2026-07-28 (`Mcp-Name`, `Mcp-Param-*`).
    fn sends_metadata_headers(&self) -> bool {
        self.shared.session.rules().method_header
            && !matches!(self.shared.session.mode(), ModeState::Legacy(_))
    }
}

/// The dispatcher's way out: each message goes the way the connection's
/// mode says. A type of its own beside the transport, because the choice
/// between the modes belongs here and not to [`Shared`], which the modes'
/// own files build on.
struct ByMode(Arc<Shared>);

#[async_trait]
impl Outbound for ByMode {
    async fn send(
        &self,
        message: Outgoing,
        dispatcher: &Arc<Dispatcher>,
    ) -> Result<(), TransportError> {
        let shared = &*self.0;
        match shared.session.mode() {
            ModeState::Legacy(link) => legacy::send(shared, &link, message).await,
            ModeState::Streamable => streamable::send(shared, message, dispatcher, false).await,
            ModeState::Probing => {
                // Only a refused `initialize` means "a server from before
                // Streamable HTTP" (spec 2025-03-26 `basic/transports` §
                // Backwards Compatibility). A refused `server/discover` probe
                // (2026-07-28) is the client layer's business: it falls back
                // to `initialize`, which then decides the transport.
                streamable::send(shared, message, dispatcher, true).await
            }
        }
    }
}
