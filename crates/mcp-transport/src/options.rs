//! Per-request options: timeout, cancellation and progress (spec:
//! `basic/lifecycle` § Timeouts, `basic/utilities/cancellation`,
//! `basic/utilities/progress`).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// The default per-request timeout: 30 000 ms. What
/// [`RequestTimeout::Inherit`] means to a transport used directly (a client
/// has its own configured default).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_millis(30_000);

/// How long one request waits for its response (spec `basic/lifecycle` §
/// Timeouts).
///
/// The default, [`RequestTimeout::Inherit`], takes the sender's configured
/// timeout: a client's request timeout, or [`DEFAULT_REQUEST_TIMEOUT`] for a
/// [`crate::Transport`] used directly. So default options never replace a
/// configured timeout with another number.
///
/// ```
/// use std::time::Duration;
/// use mcp_transport::RequestTimeout;
/// let configured = Duration::from_secs(60);
/// assert_eq!(RequestTimeout::Inherit.resolve(configured), Some(configured));
/// assert_eq!(RequestTimeout::After(Duration::from_secs(2)).resolve(configured), Some(Duration::from_secs(2)));
/// assert_eq!(RequestTimeout::Unlimited.resolve(configured), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RequestTimeout {
    /// The sender's configured timeout (the default).
    #[default]
    Inherit,
    /// This long, whatever is configured.
    After(Duration),
    /// No limit: the request waits until it is answered, cancelled or
    /// dropped ([`RequestOptions::max_total_timeout`] still applies).
    Unlimited,
}

impl RequestTimeout {
    /// The timeout to apply, given the sender's configured one: `None` for
    /// no limit.
    pub fn resolve(self, configured: Duration) -> Option<Duration> {
        match self {
            RequestTimeout::Inherit => Some(configured),
            RequestTimeout::After(timeout) => Some(timeout),
            RequestTimeout::Unlimited => None,
        }
    }
}

impl From<Duration> for RequestTimeout {
    fn from(timeout: Duration) -> Self {
        RequestTimeout::After(timeout)
    }
}

/// One `notifications/progress` update for a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far; increases with every notification.
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable message (2025-03-26 on).
    pub message: Option<String>,
}

/// A callback receiving a request's progress updates, in arrival order, on
/// the task that awaits the request.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Options for one request: timeout, cancellation, progress. Every request
/// method of the client takes them; [`RequestOptions::default`] is cheap
/// (nothing allocated) and changes nothing (the timeout is inherited).
///
/// The timeout (and the total cap) counts only the time the server is
/// waited on: while the client answers a server request on the same
/// connection (`elicitation/create`, `sampling/createMessage`, `roots/list`,
/// `ping`; from its arrival until the answer is sent, or until it is
/// discarded) the timers of every request in flight on that connection stand
/// still, and run on with the time they had left once it is answered. So a
/// person may take a minute over a form a 30 s tool call asked for. Every
/// request is paused, not only the one the server request serves, because
/// over stdio nothing on the wire ties a server request to ours. A
/// multi round-trip request (2026-07-28) needs no pause: each round is a new
/// request with its own timeout, and the input is answered between rounds.
/// [`TransportError::Timeout`](crate::TransportError::Timeout)'s `ms` is the
/// time counted, pauses left out.
///
/// ```
/// use std::time::Duration;
/// use mcp_transport::{RequestOptions, RequestTimeout};
/// let opts = RequestOptions::default()
///     .with_timeout(Duration::from_secs(2))
///     .with_progress(|p| println!("{}/{:?}", p.progress, p.total))
///     .with_timeout_reset_on_progress(Duration::from_secs(60));
/// assert!(opts.progress.is_some());
/// assert_eq!(opts.timeout, RequestTimeout::After(Duration::from_secs(2)));
/// assert_eq!(RequestOptions::default().timeout, RequestTimeout::Inherit);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct RequestOptions {
    /// How long to wait for the response. Default
    /// [`RequestTimeout::Inherit`]: the sender's configured timeout.
    pub timeout: RequestTimeout,
    /// When set, each progress notification restarts `timeout`…
    pub reset_timeout_on_progress: bool,
    /// …but never past this absolute cap, measured from the start.
    pub max_total_timeout: Option<Duration>,
    /// Cancels the request: it fails with `Cancelled` and the peer is sent
    /// `notifications/cancelled`.
    pub cancel: Option<CancellationToken>,
    /// Receives progress. When set, the request carries
    /// `params._meta.progressToken` (the request id).
    pub progress: Option<ProgressSink>,
    /// Whether abandoning the request (timeout, cancel, drop) tells the peer
    /// with `notifications/cancelled`. Default `true`; `initialize` never does,
    /// whatever this says. The client turns it off for a probe sent before
    /// the peer's revision is known (`server/discover` to a possibly legacy
    /// server, which must see nothing before `initialize`).
    pub cancel_notification: bool,
    /// HTTP request-metadata headers for this request, computed by the
    /// protocol side (2026-07-28 `basic/transports` § Request Metadata:
    /// `Mcp-Name`, `Mcp-Param-{Name}`), as `(name, value)` pairs of raw
    /// UTF-8 text. A transport that sends HTTP headers applies the header
    /// value encoding (`=?base64?…?=`) itself; transports without headers
    /// (stdio) ignore them. Default: empty.
    pub metadata_headers: Vec<(String, String)>,
    /// `_meta` members written into the request's `params._meta` where the
    /// params lack them, as the request is serialized (so the params are
    /// not copied to add them). The protocol side's per-request `_meta`
    /// (2026-07-28: protocol version, client capabilities and info);
    /// shared, so one map serves every request of a session. Default: none.
    pub params_meta: Option<Arc<Map<String, Value>>>,
}

impl Default for RequestOptions {
    fn default() -> Self {
        RequestOptions {
            timeout: RequestTimeout::Inherit,
            reset_timeout_on_progress: false,
            max_total_timeout: None,
            cancel: None,
            progress: None,
            cancel_notification: true,
            metadata_headers: Vec::new(),
            params_meta: None,
        }
    }
}

impl fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("cancel", &self.cancel.is_some())
            .field("progress", &self.progress.is_some())
            .field("cancel_notification", &self.cancel_notification)
            // Names only: values are argument data.
            .field(
                "metadata_headers",
                &self
                    .metadata_headers
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>(),
            )
            .field(
                "params_meta",
                &self
                    .params_meta
                    .as_ref()
                    .map(|m| m.keys().map(String::as_str).collect::<Vec<_>>()),
            )
            .finish()
    }
}

impl RequestOptions {
    /// Sets [`RequestOptions::params_meta`].
    pub fn with_params_meta(mut self, meta: Arc<Map<String, Value>>) -> Self {
        self.params_meta = Some(meta);
        self
    }

    /// Sets the per-request timeout, in place of the configured one.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = RequestTimeout::After(timeout);
        self
    }

    /// Waits for the response without a timeout
    /// ([`RequestTimeout::Unlimited`]; a total cap set with
    /// [`RequestOptions::with_timeout_reset_on_progress`] still applies).
    pub fn without_timeout(mut self) -> Self {
        self.timeout = RequestTimeout::Unlimited;
        self
    }

    /// Sets the cancellation token.
    pub fn with_cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sets the progress callback (and so asks for progress).
    pub fn with_progress(mut self, sink: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }

    /// Abandoning this request will not send `notifications/cancelled`.
    pub fn without_cancel_notification(mut self) -> Self {
        self.cancel_notification = false;
        self
    }

    /// Adds one HTTP request-metadata header (see
    /// [`RequestOptions::metadata_headers`]).
    pub fn with_metadata_header(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        self.metadata_headers.push((name.into(), value.into()));
        self
    }

    /// Lets each progress notification restart the timeout, never past
    /// `max_total` from the start (sets
    /// [`RequestOptions::reset_timeout_on_progress`] and
    /// [`RequestOptions::max_total_timeout`]).
    pub fn with_timeout_reset_on_progress(mut self, max_total: Duration) -> Self {
        self.reset_timeout_on_progress = true;
        self.max_total_timeout = Some(max_total);
        self
    }
}
