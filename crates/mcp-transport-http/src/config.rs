//! Configuration of an HTTP connection to one MCP server.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::auth::AuthProvider;
use crate::redact::redact_url;
use mcp_transport::Backoff;

/// Attempts of the default reconnection policy: 5 (the manager's default,
/// [`Backoff::default`], allows 8: a stream resumed in the middle of one
/// request gives up sooner than a server is given up on).
const RECONNECT_ATTEMPTS: u32 = 5;

/// The default bound on one SSE event or JSON response body: 64 MiB.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// The default number of redirect hops followed (307/308 only).
pub const DEFAULT_MAX_REDIRECTS: usize = 5;

/// Default idle connections kept per host ([`HttpConfig::max_idle_connections`]).
pub const DEFAULT_MAX_IDLE_CONNECTIONS: usize = 32;

/// How many bytes of a non-2xx body are kept in [`TransportError::Http`](mcp_transport::TransportError::Http): 4 KiB.
pub const ERROR_BODY_LIMIT: usize = 4 * 1024;

/// The longest wait (ms) for the body of a non-2xx reply, read only to
/// explain the error: past it, the error carries what arrived so far. A
/// send that has its own deadline (the notify or connect timeout) stops
/// at that deadline if it comes first.
pub const ERROR_BODY_WAIT: Duration = Duration::from_millis(2_000);

/// Which HTTP transport to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpMode {
    /// Streamable HTTP (2025-03-26 and later): POST every message to the URL.
    Streamable,
    /// The legacy HTTP+SSE transport (2024-11-05): GET the URL, wait for the
    /// `endpoint` event, POST messages there.
    Legacy,
    /// The spec's backwards-compatibility rule: the first request is POSTed
    /// as Streamable HTTP; a 400, 404 or 405 reply switches the transport to
    /// legacy HTTP+SSE on the same URL and re-sends that same request there.
    /// 401/403 are authorization errors, never a fallback.
    Auto,
}

/// Where proxy settings come from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProxySetting {
    /// `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` / `NO_PROXY` (either case),
    /// as curl reads them, read once when the connection is made. The
    /// default. `NO_PROXY` takes every form curl and Go accept: `*`, a
    /// domain (with its subdomains; a leading `.` or `*.` means the same),
    /// an IP address, a CIDR range (`10.0.0.0/8`, `fd00::/8`), each with an
    /// optional port (`example.com:8080`, `[::1]:8080`), separated by
    /// commas with any white space around them.
    #[default]
    FromEnv,
    /// Connect directly.
    None,
    /// Use this proxy URL for every destination (e.g. `http://proxy:3128`).
    Url(String),
}

/// Timeouts of the HTTP transport. The per-request timeout is a
/// [`RequestOptions`](mcp_transport::RequestOptions) matter, not a config one.
///
/// ```
/// use std::time::Duration;
/// use mcp_transport_http::HttpTimeouts;
/// let timeouts = HttpTimeouts::default()
///     .with_connect(Duration::from_secs(3))
///     .with_sse_idle(Some(Duration::from_secs(60)));
/// assert_eq!(timeouts.notify, Duration::from_secs(30));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpTimeouts {
    /// TCP connect (and, for legacy HTTP+SSE, the wait for the `endpoint`
    /// event). Default 10 000 ms. Phase: `connect`.
    pub connect: Duration,
    /// Delivering a notification or a response (until the reply status).
    /// Default 30 000 ms. Phase: `notify`.
    pub notify: Duration,
    /// Longest silence (not even a comment) allowed on an SSE response to a
    /// request before it fails. Default `None` (the request timeout governs).
    /// Phase: `SSE response`.
    pub sse_idle: Option<Duration>,
    /// The `DELETE` of the session on close. Default 5 000 ms.
    pub close: Duration,
    /// How long the delivery of `notifications/initialized` waits for the
    /// GET stream it opens to be answered (response headers, a refusal or
    /// an error), so that requests sent after the handshake find the stream
    /// in place. Past it the handshake completes anyway and the GET keeps
    /// going in the background. Default 5 000 ms. Not an error phase.
    pub listen: Duration,
}

impl Default for HttpTimeouts {
    fn default() -> Self {
        HttpTimeouts {
            connect: Duration::from_millis(10_000),
            notify: Duration::from_millis(30_000),
            sse_idle: None,
            close: Duration::from_millis(5_000),
            listen: Duration::from_millis(5_000),
        }
    }
}

impl HttpTimeouts {
    /// Sets the TCP connect timeout (also the legacy `endpoint` wait).
    pub fn with_connect(mut self, timeout: Duration) -> Self {
        self.connect = timeout;
        self
    }

    /// Sets the timeout of delivering a notification or a response.
    pub fn with_notify(mut self, timeout: Duration) -> Self {
        self.notify = timeout;
        self
    }

    /// Sets the longest silence allowed on an SSE response (`None`: no
    /// bound but the request's own timeout).
    pub fn with_sse_idle(mut self, timeout: Option<Duration>) -> Self {
        self.sse_idle = timeout;
        self
    }

    /// Sets the timeout of the session `DELETE` on close.
    pub fn with_close(mut self, timeout: Duration) -> Self {
        self.close = timeout;
        self
    }

    /// Sets how long the delivery of `notifications/initialized` waits for
    /// the GET stream to be answered.
    pub fn with_listen(mut self, timeout: Duration) -> Self {
        self.listen = timeout;
        self
    }
}

/// How a 429 (Too Many Requests) or 503 (Service Unavailable) reply with
/// a `Retry-After` header is retried, on every request the client sends
/// (the handshake included), as curl's `--retry` does: the request is sent
/// again after the wait the server asked for, when that wait is at most
/// [`max_wait`](Self::max_wait), at most [`max_retries`](Self::max_retries)
/// times, and never past the send's own deadline (a notification's
/// `notify` timeout; a request's own timeout ends the wait with its
/// `Timeout` error). Otherwise the reply is the request's error
/// (`TransportError::Http`). A 429/503 without `Retry-After` is not
/// retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryAfterPolicy {
    /// Retries of one request. Default 3; 0 turns retrying off.
    pub max_retries: u32,
    /// The longest single wait honoured. Default 10 000 ms: a server asking
    /// for an hour gets its refusal reported at once instead.
    pub max_wait: Duration,
}

impl Default for RetryAfterPolicy {
    fn default() -> Self {
        RetryAfterPolicy {
            max_retries: 3,
            max_wait: Duration::from_millis(10_000),
        }
    }
}

impl RetryAfterPolicy {
    /// A policy of `max_retries` retries, each waiting at most `max_wait`.
    pub fn new(max_retries: u32, max_wait: Duration) -> RetryAfterPolicy {
        RetryAfterPolicy {
            max_retries,
            max_wait,
        }
    }

    /// Sets the number of retries of one request (0 turns retrying off).
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Sets the longest single wait honoured.
    pub fn with_max_wait(mut self, wait: Duration) -> Self {
        self.max_wait = wait;
        self
    }
}

/// The configuration of one HTTP connection.
///
/// ```
/// use mcp_transport_http::HttpConfig;
/// let config = HttpConfig::new("https://example.com/mcp")
///     .with_header("Authorization", "Bearer secret")
///     .with_label("example");
/// // Header values never appear in Debug output.
/// assert!(!format!("{config:?}").contains("secret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    /// The MCP endpoint (Streamable HTTP) or SSE URL (legacy).
    pub url: String,
    /// Static headers sent with every request (e.g. `Authorization`). They
    /// are merged with the transport's own headers and never replace
    /// `Accept`, `Content-Type`, `Mcp-Session-Id`, `MCP-Protocol-Version` or
    /// `Last-Event-ID`.
    pub headers: Vec<(String, String)>,
    /// Timeouts.
    pub timeouts: HttpTimeouts,
    /// The largest SSE event or JSON response body accepted, in bytes
    /// (default [`DEFAULT_MAX_EVENT_BYTES`], 64 MiB). Past it the request
    /// fails with `MessageTooLarge`; the connection survives.
    pub max_event_bytes: usize,
    /// Reconnection policy of resumed SSE streams and of the GET listener
    /// (default: 500 ms doubling to 30 000 ms, jitter 0.5, 5 attempts; the
    /// server's `retry:` hint, clamped, replaces the 500 ms).
    pub reconnect: Backoff,
    /// Called on 401/403.
    pub auth_provider: Option<Arc<dyn AuthProvider>>,
    /// The connection's name in logs.
    pub label: String,
    /// Proxy settings (default: from the environment).
    pub proxy: ProxySetting,
    /// Open the GET stream for server-initiated messages once
    /// `notifications/initialized` was delivered (default `true`). The
    /// delivery of that notification then completes only once the GET was
    /// answered (bounded by [`HttpTimeouts::listen`]).
    pub listen_after_initialized: bool,
    /// Redirect hops followed, 307/308 only (default 5).
    pub max_redirects: usize,
    /// Idle connections kept open per host for reuse (default
    /// [`DEFAULT_MAX_IDLE_CONNECTIONS`], 32). HTTP/1.1 needs a connection
    /// per request in flight; past a burst, the connections beyond this
    /// are closed as their requests end instead of being kept (with their
    /// buffers) for the 90 s idle timeout.
    pub max_idle_connections: usize,
    /// Retrying of 429/503 replies with `Retry-After` (default: 3 retries,
    /// each wait at most 10 s; see [`RetryAfterPolicy`]).
    pub retry_after: RetryAfterPolicy,
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("HttpConfig")
            .field("url", &redact_url(&self.url))
            .field("headers", &header_names)
            .field("timeouts", &self.timeouts)
            .field("max_event_bytes", &self.max_event_bytes)
            .field("reconnect", &self.reconnect)
            .field("auth_provider", &self.auth_provider.is_some())
            .field("label", &self.label)
            .field("proxy", &self.proxy)
            .field("listen_after_initialized", &self.listen_after_initialized)
            .field("max_redirects", &self.max_redirects)
            .field("max_idle_connections", &self.max_idle_connections)
            .field("retry_after", &self.retry_after)
            .finish()
    }
}

impl HttpConfig {
    /// A configuration with defaults for `url`; the label is the URL without
    /// credentials.
    pub fn new(url: impl Into<String>) -> HttpConfig {
        let url = url.into();
        HttpConfig {
            label: redact_url(&url),
            url,
            headers: Vec::new(),
            timeouts: HttpTimeouts::default(),
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
            reconnect: Backoff::default().with_max_attempts(Some(RECONNECT_ATTEMPTS)),
            auth_provider: None,
            proxy: ProxySetting::default(),
            listen_after_initialized: true,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            max_idle_connections: DEFAULT_MAX_IDLE_CONNECTIONS,
            retry_after: RetryAfterPolicy::default(),
        }
    }

    /// Adds a static header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the label.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the timeouts.
    pub fn with_timeouts(mut self, timeouts: HttpTimeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Sets the event/body size bound, in bytes.
    pub fn with_max_event_bytes(mut self, bytes: usize) -> Self {
        self.max_event_bytes = bytes;
        self
    }

    /// Sets the reconnection policy.
    pub fn with_reconnect(mut self, backoff: Backoff) -> Self {
        self.reconnect = backoff;
        self
    }

    /// Sets the auth-provider hook.
    pub fn with_auth_provider(mut self, provider: Arc<dyn AuthProvider>) -> Self {
        self.auth_provider = Some(provider);
        self
    }

    /// Sets the proxy setting.
    pub fn with_proxy(mut self, proxy: ProxySetting) -> Self {
        self.proxy = proxy;
        self
    }

    /// Whether to open the GET stream after `notifications/initialized`.
    pub fn with_listen_after_initialized(mut self, yes: bool) -> Self {
        self.listen_after_initialized = yes;
        self
    }

    /// Sets how many redirect hops (307/308) are followed.
    pub fn with_max_redirects(mut self, hops: usize) -> Self {
        self.max_redirects = hops;
        self
    }

    /// Sets how many idle connections are kept per host.
    pub fn with_max_idle_connections(mut self, connections: usize) -> Self {
        self.max_idle_connections = connections;
        self
    }

    /// Sets the retrying of 429/503 replies with `Retry-After`.
    pub fn with_retry_after(mut self, policy: RetryAfterPolicy) -> Self {
        self.retry_after = policy;
        self
    }
}
