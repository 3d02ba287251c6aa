//! # mcp-transport
//!
//! The seam between the MCP protocol side and its transports:
//!
//! - [`Transport`]: request, notify, close, is_connected, and the
//!   [`TransportEvent`]s a transport hands to its owner (notifications,
//!   server-to-client requests answered exactly once, close, error).
//! - [`RequestOptions`]: timeout (default 30 000 ms), cancellation token,
//!   progress callback, progress-reset with a total cap.
//! - [`TransportError`]: one typed error with `is_timeout()`, `is_closed()`,
//!   `is_cancelled()`, `is_session_expired()`.
//! - [`PendingTable`] and [`Dispatcher`]: id allocation (monotonic integers,
//!   never reused), correlation, timeouts, `notifications/cancelled`,
//!   progress routing, and the dispatch of incoming messages — written once,
//!   shared by the stdio and HTTP transports through the [`Outbound`] trait.
//!
//! # Cancel safety
//! Dropping a request future before it completes sends the server
//! `notifications/cancelled` with the request id (never for `initialize`) and
//! drops the late response. A timeout or a cancelled
//! [`CancellationToken`] does the same.
//! The notification is sent from a task spawned on the current tokio runtime;
//! outside a runtime it is logged instead.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod backoff;
pub mod dispatcher;
pub mod error;
pub mod event;
pub mod options;
mod pending;
pub mod transport;

pub use backoff::{Backoff, BackoffError};
pub use dispatcher::{
    Dispatcher, Outbound, Outgoing, OutgoingKind, SKIPPED_WARNING_WINDOW,
    SKIPPED_WARNINGS_PER_WINDOW,
};
pub use error::{CloseReason, TimeoutPhase, TransportError};
pub use event::{EVENTS_CAPACITY, IncomingRequest, TransportEvent, TransportEvents};
pub use mcp_types::RawResult;
pub use options::{DEFAULT_REQUEST_TIMEOUT, Progress, ProgressSink, RequestOptions};
pub use pending::{PROGRESS_QUEUE, echo_answers};
pub use tokio_util::sync::CancellationToken;
pub use transport::Transport;
