//! # mcp-client
//!
//! The client side of the Model Context Protocol over any
//! [`mcp_transport::Transport`]: version negotiation (handshake revisions
//! 2024-11-05 … 2025-11-25, and the stateless 2026-07-28 through a
//! `server/discover` probe), typed methods for everything a server offers,
//! answers to server-to-client requests through a [`ClientHandler`], and
//! notification dispatch.
//!
//! ```no_run
//! # async fn demo(transport: impl mcp_transport::Transport) -> Result<(), mcp_client::ClientError> {
//! use mcp_client::{CallOptions, Client, ClientOptions};
//! let client = Client::connect(transport, ClientOptions::new("my-host", "1.0.0")).await?;
//! for tool in client.list_all_tools().await? {
//!     println!("{}", tool.name);
//! }
//! let args = serde_json::json!({"message": "hi"}).as_object().cloned();
//! let result = client.call_tool("echo", args, CallOptions::default()).await?;
//! if result.is_error == Some(true) {
//!     eprintln!("the tool failed: {:?}", result.content);
//! }
//! client.close().await?;
//! # Ok(()) }
//! ```
//!
//! - [`Client`]: connect, [`Client::closed`] (await the connection's
//!   close), typed methods (`ping`, `list_tools` / `list_all_tools`,
//!   `call_tool`, resources, templates, prompts, `complete`,
//!   `set_logging_level`, the 2025-11-25 tasks: `call_tool_as_task`,
//!   `get_task`, `tool_task_result`, `list_tasks`, `cancel_task`), the
//!   generic [`Client::request`].
//! - [`listing`]: whole listings ([`Client::tools_listing`] and the like)
//!   that keep what arrived: an entry that does not decode is left out and
//!   reported ([`Listing::problems`]), a listing that does not end is cut
//!   short with what came before ([`Listing::incomplete`]).
//! - [`ClientOptions`] / [`VersionPreference`]: identity, declared
//!   capabilities, timeouts, capability strictness, revision preference.
//! - [`ClientHandler`]: roots, sampling, elicitation, notifications.
//! - [`negotiate`]: the one seam between the handshake era and 2026-07-28.
//! - [`template`]: RFC 6570 expansion of resource templates.
//! - [`ClientError`]: typed errors with `is_*` questions.
//!
//! # Feature flags
//! - `test-util`: the `testing` module, an in-memory transport on the real
//!   dispatcher and a scriptable server peer.
//!
//! # Cancel safety
//! Every request method of [`Client`] is cancel safe in this sense:
//! dropping its future before it completes sends the server
//! `notifications/cancelled` with that request's id, exactly once, and the
//! late response is dropped. A timeout or a cancelled
//! [`CancellationToken`] (in
//! [`CallOptions`] or [`mcp_transport::RequestOptions`]) does the same, and
//! the call fails with a timeout / cancelled error. `initialize` is never
//! cancelled (spec `basic/utilities/cancellation`). The notification is sent
//! from a task on the current tokio runtime.
//!
//! # 2026-07-28
//! Per-request `_meta`; over HTTP the request-metadata headers
//! ([`request_metadata`]: `Mcp-Name`, `Mcp-Param-*` from `x-mcp-header`,
//! tools with invalid annotations left out of `tools/list`, `-32020`
//! answered by refreshing `tools/list` and retrying once); `-32022` on a
//! later request re-negotiates and retries once; multi round-trip results
//! (`resultType: "input_required"`) are completed through the
//! [`ClientHandler`] (elicitation, sampling, roots) and retried with
//! `inputResponses`, at most [`ClientOptions::max_input_rounds`] rounds.
//! Change notifications come through [`Client::listen`]
//! (`subscriptions/listen`, see [`subscription`]).
//!
//! # Not yet supported
//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`); the
//! 2025-11-25 `tasks/*` methods above are supported.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod capabilities;
mod client;
mod dispatch;
pub mod error;
pub mod handler;
pub mod listing;
mod mrtr;
pub mod negotiate;
pub mod options;
pub mod request_metadata;
mod schema;
pub mod subscription;
pub mod template;
#[cfg(feature = "test-util")]
pub mod testing;

pub use client::Client;
pub use error::ClientError;
pub use handler::{ClientHandler, NoopHandler, RequestContext};
pub use listing::{Incomplete, Listing};
pub use mcp_transport::{CancellationToken, CloseReason, Progress, RequestOptions};
pub use negotiate::Negotiated;
pub use options::{CallOptions, ClientOptions, TaskOptions, VersionPreference};
pub use subscription::{Subscription, SubscriptionEvent};
pub use template::TemplateValue;
