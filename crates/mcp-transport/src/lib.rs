//! # mcp-transport
//!
//! The seam between the MCP protocol side (`mcp-client`) and the transports
//! that carry its JSON-RPC messages (stdio, Streamable HTTP, legacy
//! HTTP+SSE). A transport implements [`Transport`]; the rules every
//! transport must follow the same way — request ids, correlation, timeouts,
//! `notifications/cancelled`, progress routing, the answer to a server
//! request nobody handles — are written once, in the [`Dispatcher`] a
//! transport owns. The transport supplies only an [`Outbound`]: how bytes
//! reach the peer; everything it reads goes back through
//! [`Dispatcher::handle_frame`].
//!
//! A complete transport, kept in memory: its peer answers every request at
//! once.
//!
//! ```
//! use std::borrow::Cow;
//! use std::sync::Arc;
//!
//! use async_trait::async_trait;
//! use bytes::Bytes;
//! use mcp_transport::{
//!     CloseReason, Dispatcher, Outbound, Outgoing, OutgoingKind, RawResult, RequestOptions,
//!     Transport, TransportError, TransportEvents, WireTap,
//! };
//! use mcp_types::ProtocolVersion;
//! use mcp_types::RawParams;
//! use serde_json::{Value, json};
//!
//! /// How bytes reach the peer. Here the peer answers each request with an
//! /// empty tool list, fed back in as a transport feeds what it reads.
//! struct Loopback;
//!
//! #[async_trait]
//! impl Outbound for Loopback {
//!     async fn send(
//!         &self,
//!         message: Outgoing,
//!         dispatcher: &Arc<Dispatcher>,
//!     ) -> Result<(), TransportError> {
//!         if let (OutgoingKind::Request, Some(id)) = (message.kind, &message.id) {
//!             let reply = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[]}}}}"#);
//!             dispatcher.handle_frame(Bytes::from(reply)).await;
//!         }
//!         Ok(())
//!     }
//! }
//!
//! /// The transport: the dispatcher does the rest.
//! #[derive(Debug)]
//! struct InMemory(Arc<Dispatcher>);
//!
//! #[async_trait]
//! impl Transport for InMemory {
//!     async fn request(
//!         &self,
//!         method: &str,
//!         params: Option<&Value>,
//!         options: RequestOptions,
//!     ) -> Result<RawResult, TransportError> {
//!         self.0.request(method, params, options).await
//!     }
//!     async fn request_raw(
//!         &self,
//!         method: &str,
//!         params: RawParams,
//!         options: RequestOptions,
//!     ) -> Result<RawResult, TransportError> {
//!         self.0.request_raw(method, params, options).await
//!     }
//!     async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError> {
//!         self.0.notify(method, params).await
//!     }
//!     fn dispatcher(&self) -> Option<&Arc<Dispatcher>> {
//!         Some(&self.0)
//!     }
//!     async fn close(&self) -> Result<(), TransportError> {
//!         self.0.close(CloseReason::new("closed by the client"));
//!         Ok(())
//!     }
//!     fn is_connected(&self) -> bool {
//!         self.0.is_open()
//!     }
//!     fn wire_kind(&self) -> Option<&'static str> {
//!         Some("in memory")
//!     }
//!     fn take_events(&self) -> Option<TransportEvents> {
//!         self.0.take_events()
//!     }
//!     fn set_protocol_version(&self, version: ProtocolVersion) {
//!         self.0.set_protocol_version(version)
//!     }
//!     fn sends_metadata_headers(&self) -> bool {
//!         false
//!     }
//!     fn session_id(&self) -> Option<String> {
//!         None
//!     }
//!     fn set_wire_tap(&self, tap: Arc<dyn WireTap>) -> bool {
//!         self.0.set_wire_tap(tap)
//!     }
//!     fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
//!         self.0.redact(text)
//!     }
//!     fn pending_requests(&self) -> usize {
//!         self.0.pending_len()
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let transport = InMemory(Dispatcher::new(Arc::new(Loopback), "in-memory"));
//! let result = transport
//!     .request("tools/list", None, RequestOptions::default())
//!     .await?;
//! assert_eq!(result.to_value()?, json!({ "tools": [] }));
//! transport.close().await?;
//! assert!(!transport.is_connected());
//! # Ok(())
//! # }
//! ```
//!
//! # What is here
//! - [`Transport`]: request, notify, close, is_connected, and the
//!   [`TransportEvent`]s a transport hands to its owner (notifications,
//!   server-to-client requests answered exactly once, close, error).
//! - [`Dispatcher`], [`Outbound`], [`Outgoing`] (its bytes a [`Body`]):
//!   what a transport author uses. The dispatcher allocates ids (monotonic
//!   integers, never reused), correlates responses, runs timeouts and
//!   cancellation, routes progress and dispatches incoming messages; a
//!   transport that only forwards its requests to it says so
//!   ([`Transport::dispatcher`]), and the client then calls it directly.
//! - [`RequestOptions`]: timeout (default 30 000 ms), cancellation token,
//!   progress callback, progress-reset with a total cap.
//! - [`TransportError`]: one typed error with `is_timeout()`, `is_closed()`,
//!   `is_cancelled()`, `is_session_expired()`; its `Display` says its own
//!   level, the cause is its `source()`.
//! - [`Backoff`]: the retry policy of every reconnection (the HTTP
//!   transport's stream resumption, the manager's restarts).
//! - `testkit` (feature `testkit`): the contract checks a transport author
//!   runs against their own transport (`docs/transports.md`).
//!
//! # Cancel safety
//! Dropping a request future before it completes sends the server
//! `notifications/cancelled` with the request id (never for `initialize`) and
//! drops the late response. A timeout or a cancelled
//! [`CancellationToken`] does the same.
//! The notification is sent from a task spawned on the current tokio runtime;
//! outside a runtime it is logged instead.

mod backoff;
mod body;
pub mod bom;
mod dispatcher;
mod error;
mod event;
mod options;
mod pause_clock;
mod pending;
mod tap;
#[cfg(feature = "testkit")]
pub mod testkit;
mod transport;

pub use backoff::{Backoff, BackoffError};
pub use body::Body;
pub use dispatcher::{
    Dispatcher, Outbound, Outgoing, OutgoingKind, SKIPPED_WARNING_WINDOW,
    SKIPPED_WARNINGS_PER_WINDOW,
};
pub use error::AuthErrorKind;
pub use error::{CloseReason, TimeoutPhase, TransportError};
pub use event::{EVENTS_CAPACITY, IncomingRequest, TransportEvent, TransportEvents};
pub use mcp_types::RawResult;
pub use options::{
    DEFAULT_REQUEST_TIMEOUT, Progress, ProgressSink, RequestOptions, RequestTimeout,
};
pub use pending::{PROGRESS_QUEUE, echo_answers};
pub use tap::{Redactor, TapEvent, WireTap};
pub use tokio_util::sync::CancellationToken;
pub use transport::Transport;

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
