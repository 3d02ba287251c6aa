//! [`Connection`]: one MCP connection to one server over HTTP, the state
//! its POSTs, GET listener and legacy reader share: the request path
//! ([`Exchange`]), the URL and configuration, the session, the negotiated
//! revision and the transport mode.
//!
//! "Connection" is the MCP connection, not a TCP one: the exchange's client
//! pools those.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use bytes::Bytes;
use http::{HeaderMap, Method, Uri};
use mcp_transport::TransportError;
use mcp_types::ProtocolVersion;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::config::HttpConfig;
use crate::exchange::{Exchange, HttpRequest, Reply, RequestKind, SessionHeaders};
use crate::lock::lock;
use crate::mode::ModeState;
use crate::redact::redact_url;
use crate::wire_rules::{MCP_SESSION_ID, WireRules, wire_rules};

/// One MCP connection to one server over HTTP: what every request, the GET
/// listener and the legacy reader of that connection share.
pub(crate) struct Connection {
    /// This connection, for the tasks it starts (the GET listener, the
    /// legacy reader) to hold.
    pub(crate) me: Weak<Connection>,
    /// The request path every request of the connection goes through.
    pub(crate) exchange: Exchange,
    /// The MCP endpoint (Streamable HTTP) or SSE URL (legacy).
    pub(crate) url: Uri,
    /// The configuration it was made from.
    pub(crate) config: HttpConfig,
    session: Mutex<Option<String>>,
    version: Mutex<Option<ProtocolVersion>>,
    mode: Mutex<ModeState>,
    /// Held while auto mode falls back to legacy, so that concurrent first
    /// requests open one SSE stream, not several.
    pub(crate) fallback_lock: tokio::sync::Mutex<()>,
    /// The GET listener's task, when one runs.
    pub(crate) listener: Mutex<Option<AbortHandle>>,
    /// The legacy SSE reader's task, when one runs.
    pub(crate) legacy_reader: Mutex<Option<AbortHandle>>,
    /// A GET listener was started for the current session.
    pub(crate) listener_started: AtomicBool,
    /// A reply's JSON body came with another (or no) `Content-Type` and was
    /// read as JSON: warned once per connection.
    pub(crate) warned_media: AtomicBool,
    /// A JSON reply opened with a byte order mark: warned once per
    /// connection.
    pub(crate) warned_bom: AtomicBool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("url", &redact_url(&self.url.to_string()))
            .field("label", &self.config.label)
            .finish()
    }
}

impl Connection {
    /// Validates `config` and builds the state.
    ///
    /// Errors: `Protocol` for an invalid URL or header.
    pub(crate) fn new(
        config: HttpConfig,
        initial: ModeState,
    ) -> Result<Arc<Connection>, TransportError> {
        let url: Uri = config.url.parse().map_err(|e| {
            TransportError::protocol(format!("invalid URL {}: {e}", redact_url(&config.url)))
        })?;
        match url.scheme_str() {
            Some("http") | Some("https") if url.authority().is_some() => {}
            _ => {
                return Err(TransportError::protocol(format!(
                    "URL {} is not an absolute http(s) URL",
                    redact_url(&config.url)
                )));
            }
        }
        let exchange = Exchange::new(&config, &url)?;
        Ok(Arc::new_cyclic(|me| Connection {
            me: me.clone(),
            exchange,
            url,
            session: Mutex::new(None),
            version: Mutex::new(None),
            mode: Mutex::new(initial),
            fallback_lock: tokio::sync::Mutex::new(()),
            listener: Mutex::new(None),
            legacy_reader: Mutex::new(None),
            listener_started: AtomicBool::new(false),
            warned_media: AtomicBool::new(false),
            warned_bom: AtomicBool::new(false),
            config,
        }))
    }

    /// Sends one request of the connection through its exchange, in the
    /// connection's session (see [`Exchange::send`]).
    ///
    /// Errors: as [`Exchange::send`].
    pub(crate) async fn exchange(
        &self,
        method: Method,
        url: Uri,
        body: Bytes,
        kind: RequestKind,
        deadline: Option<Instant>,
    ) -> Result<Reply, TransportError> {
        let request = HttpRequest {
            method,
            url,
            body,
            kind,
        };
        self.exchange.send(&request, self, deadline).await
    }

    /// `text` with every secret value the connection sent hidden.
    pub(crate) fn scrub(&self, text: &str) -> String {
        self.exchange.scrub(text)
    }

    /// The label, for logs.
    pub(crate) fn label(&self) -> &str {
        &self.config.label
    }

    /// The wire rules of the negotiated revision.
    pub(crate) fn rules(&self) -> WireRules {
        wire_rules(*lock(&self.version))
    }

    /// The negotiated revision, once set.
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        *lock(&self.version)
    }

    /// Records the negotiated revision.
    pub(crate) fn set_version(&self, v: ProtocolVersion) {
        *lock(&self.version) = Some(v);
    }

    /// The current `Mcp-Session-Id`.
    pub(crate) fn session(&self) -> Option<String> {
        lock(&self.session).clone()
    }

    /// Sets (or clears) the `Mcp-Session-Id`.
    pub(crate) fn set_session(&self, s: Option<String>) {
        *lock(&self.session) = s;
    }

    /// Takes the session id (for the DELETE on close).
    pub(crate) fn take_session(&self) -> Option<String> {
        lock(&self.session).take()
    }

    /// Ends the GET listener, if any, and lets the next
    /// `notifications/initialized` (or `start_listening`) open a new one.
    pub(crate) fn reset_listener(&self) {
        if let Some(task) = lock(&self.listener).take() {
            task.abort();
        }
        self.listener_started.store(false, Ordering::Release);
    }

    /// Drops the session id if it is still `sent`.
    pub(crate) fn drop_session(&self, sent: &str) {
        let mut s = lock(&self.session);
        if s.as_deref() == Some(sent) {
            *s = None;
        }
    }

    /// The current mode.
    pub(crate) fn mode(&self) -> ModeState {
        lock(&self.mode).clone()
    }

    /// Sets the mode.
    pub(crate) fn set_mode(&self, m: ModeState) {
        *lock(&self.mode) = m;
    }

    /// The `Mcp-Session-Id` a response assigned, when valid (visible ASCII).
    pub(crate) fn capture_session(&self, headers: &HeaderMap) {
        if !self.rules().sessions {
            return;
        }
        match headers.get(MCP_SESSION_ID).map(|v| v.to_str()) {
            Some(Ok(s)) if !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b)) => {
                let previous = lock(&self.session).replace(s.to_owned());
                if previous.as_deref() != Some(s) {
                    // A new session (after an expiry, say) gets its own GET
                    // stream: the old one belongs to the old session.
                    self.reset_listener();
                }
            }
            Some(_) => {
                tracing::warn!(connection = %self.label(), "ignoring an Mcp-Session-Id with characters outside visible ASCII");
                self.set_session(None);
            }
            None => self.set_session(None),
        }
    }
}

impl SessionHeaders for Connection {
    fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.version()
    }

    fn session_id(&self) -> Option<String> {
        self.session()
    }
}
