//! Per-request options: timeout, cancellation and progress (spec:
//! `basic/lifecycle` § Timeouts, `basic/utilities/cancellation`,
//! `basic/utilities/progress`).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// The default per-request timeout: 30 000 ms.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_millis(30_000);

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

/// Options for one request.
///
/// ```
/// use std::time::Duration;
/// use mcp_transport::RequestOptions;
/// let opts = RequestOptions::default()
///     .with_timeout(Duration::from_secs(2))
///     .with_progress(|p| println!("{}/{:?}", p.progress, p.total))
///     .reset_timeout_on_progress(Duration::from_secs(60));
/// assert!(opts.progress.is_some());
/// ```
#[derive(Clone)]
pub struct RequestOptions {
    /// How long to wait for the response; `None` waits without limit.
    /// Default [`DEFAULT_REQUEST_TIMEOUT`] (30 000 ms).
    pub timeout: Option<Duration>,
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
            timeout: Some(DEFAULT_REQUEST_TIMEOUT),
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

    /// Sets the per-request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Waits for the response without a timeout.
    pub fn without_timeout(mut self) -> Self {
        self.timeout = None;
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

    /// Lets progress restart the timeout, up to `max_total` from the start.
    pub fn reset_timeout_on_progress(mut self, max_total: Duration) -> Self {
        self.reset_timeout_on_progress = true;
        self.max_total_timeout = Some(max_total);
        self
    }
}
