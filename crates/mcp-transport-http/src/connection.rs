//! [`Connection`]: one MCP connection to one server over HTTP, the state
//! its request path, GET listener and legacy reader share: the pooled
//! client, the URL and configuration, the session, the negotiated revision
//! and the transport mode.
//!
//! "Connection" is the MCP connection, not a TCP one: the client it holds
//! pools those. Its methods live with their concern: building a request in
//! `request.rs`, the exchange (redirects, retries) in `exchange.rs`, the
//! auth hook in `auth.rs`, error mapping in `errors.rs`, the Streamable
//! HTTP, legacy and GET-listener paths in their own files.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use http::{HeaderMap, HeaderName, HeaderValue, Uri};
use mcp_transport::TransportError;
use mcp_types::ProtocolVersion;
use tokio::task::AbortHandle;

use crate::config::HttpConfig;
use crate::connector::{HttpClient, build_client, proxy_rules};
use crate::cookies::CookieJar;
use crate::mode::ModeState;
use crate::redact::{SentSecrets, is_sensitive_name, redact_url};
use crate::wire_rules::{MCP_SESSION_ID, WireRules, wire_rules};

/// One MCP connection to one server over HTTP: what every request, the GET
/// listener and the legacy reader of that connection share.
pub(crate) struct Connection {
    /// This connection, for the tasks it starts (the GET listener, the
    /// legacy reader) to hold.
    pub(crate) me: Weak<Connection>,
    /// The pooled client every request goes through.
    pub(crate) client: HttpClient,
    /// The proxy rules, read once when the connection was made: the
    /// clients connect through them and requests take their
    /// `Proxy-Authorization` from them.
    pub(crate) proxies: Option<Arc<crate::connector::ProxyRules>>,
    /// The MCP endpoint (Streamable HTTP) or SSE URL (legacy).
    pub(crate) url: Uri,
    /// The configuration it was made from.
    pub(crate) config: HttpConfig,
    /// The configured headers, validated; secrets marked sensitive.
    pub(crate) static_headers: HeaderMap,
    /// The headers the auth hook returned, sent on every later request to
    /// the server's origin (see `auth.rs`).
    pub(crate) auth_headers: Mutex<HeaderMap>,
    /// Every secret value the connection sent (sensitive configured
    /// headers, the auth hook's credentials), hidden from whatever a
    /// server echoes back before it is shown (`errors.rs`).
    /// Shared with the dispatcher's redactor ([`SecretsRedactor`]).
    pub(crate) sent_secrets: Arc<Mutex<SentSecrets>>,
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
    /// A client that keeps no idle connection: every request it sends goes
    /// out on a new one (the re-send of a request whose reused connection
    /// failed). Built on first use.
    fresh: OnceLock<HttpClient>,
    /// The server was seen closing an idle connection as a request went out
    /// on it: from then on a request that is not safe to send twice goes out
    /// on a fresh connection.
    pub(crate) closes_idle: AtomicBool,
    /// A reply's JSON body came with another (or no) `Content-Type` and was
    /// read as JSON: warned once per connection.
    pub(crate) warned_media: AtomicBool,
    /// A JSON reply opened with a byte order mark: warned once per
    /// connection.
    pub(crate) warned_bom: AtomicBool,
    /// The cookies the server's origin set (a load balancer's sticky
    /// session), sent back on every request to that origin.
    pub(crate) cookies: CookieJar,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("url", &redact_url(&self.url.to_string()))
            .field("label", &self.config.label)
            .finish()
    }
}

/// Locks `m`. A lock poisoned by a panic on another task is used as it is:
/// the connection must not panic in turn.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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
        let mut static_headers = HeaderMap::new();
        let mut sent_secrets = SentSecrets::default();
        for (name, value) in &config.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| TransportError::protocol(format!("invalid header name {name:?}")))?;
            let mut value = HeaderValue::try_from(value.as_str()).map_err(|_| {
                // Never echo the value: it may be a secret.
                TransportError::protocol(format!("invalid value for header {name}"))
            })?;
            if is_sensitive_name(&name) {
                value.set_sensitive(true);
                sent_secrets.remember_fixed(&value);
            }
            static_headers.append(name, value);
        }
        let proxies = proxy_rules(&config.proxy);
        let client = build_client(
            proxies.clone(),
            config.timeouts.connect,
            config.max_idle_connections,
        );
        let cookies = CookieJar::new(&url);
        Ok(Arc::new_cyclic(|me| Connection {
            me: me.clone(),
            client,
            proxies,
            url,
            static_headers,
            auth_headers: Mutex::new(HeaderMap::new()),
            sent_secrets: Arc::new(Mutex::new(sent_secrets)),
            session: Mutex::new(None),
            version: Mutex::new(None),
            mode: Mutex::new(initial),
            fallback_lock: tokio::sync::Mutex::new(()),
            listener: Mutex::new(None),
            legacy_reader: Mutex::new(None),
            listener_started: AtomicBool::new(false),
            fresh: OnceLock::new(),
            closes_idle: AtomicBool::new(false),
            warned_media: AtomicBool::new(false),
            warned_bom: AtomicBool::new(false),
            cookies,
            config,
        }))
    }

    /// The client for requests that must go out on a new connection.
    pub(crate) fn fresh_client(&self) -> &HttpClient {
        self.fresh
            .get_or_init(|| build_client(self.proxies.clone(), self.config.timeouts.connect, 0))
    }

    /// `text` with every secret value the connection sent hidden: what a
    /// server sends back (an error body, a challenge) may echo one.
    pub(crate) fn scrub(&self, text: &str) -> String {
        lock(&self.sent_secrets).scrub(text).into_owned()
    }

    /// Remembers the values of `headers`, about to be sent, as secrets.
    pub(crate) fn remember_secrets(&self, headers: &HeaderMap) {
        let mut secrets = lock(&self.sent_secrets);
        for value in headers.values() {
            secrets.remember(value);
        }
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
