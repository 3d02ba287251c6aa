//! # mcp-client
//!
//! The client side of the Model Context Protocol over any
//! [`mcp_transport::Transport`] (stdio, HTTP, or your own): it negotiates
//! the protocol revision with the server (handshake revisions 2024-11-05 …
//! 2025-11-25, and the stateless 2026-07-28 through a `server/discover`
//! probe), offers a typed method for everything a server offers (tools,
//! resources, prompts, completion, logging, tasks), answers the server's
//! own requests (roots, sampling, elicitation) through a [`ClientHandler`],
//! and hands its notifications to that handler.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_client::ClientError> {
//! use mcp_client::testing::memory_pair;
//! use mcp_client::{Client, ClientOptions, RequestOptions, VersionPreference};
//! use serde_json::json;
//!
//! // An in-memory transport and a scripted server on its other end; a
//! // real program passes a `StdioTransport` or an `HttpTransport` instead.
//! let (transport, mut server) = memory_pair();
//! let script = tokio::spawn(async move {
//!     server.handshake("2025-11-25", json!({"tools": {}})).await;
//!     let list = server.expect_request("tools/list").await;
//!     let tools = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]});
//!     server.respond(&list.id, tools).await;
//!     let call = server.expect_request("tools/call").await;
//!     let text = call.params.as_ref().unwrap()["arguments"]["message"].clone();
//!     server.respond(&call.id, json!({"content": [{"type": "text", "text": text}]})).await;
//! });
//!
//! let options = ClientOptions::new("my-host", "1.0.0")
//!     .with_version_preference(VersionPreference::Handshake);
//! let client = Client::connect(transport, options).await?;
//! assert_eq!(client.protocol_version().as_str(), "2025-11-25");
//!
//! // Every request method takes `RequestOptions` (timeout, cancellation,
//! // progress); the default keeps the client's configured timeout.
//! let tools = client.list_all_tools(RequestOptions::default()).await?;
//! assert_eq!(tools[0].name, "echo");
//!
//! // Tool arguments: anything that serializes to a JSON object.
//! let result = client
//!     .call_tool("echo", json!({"message": "hi"}), RequestOptions::default())
//!     .await?;
//! assert_eq!(result.is_error, None);
//! assert_eq!(result.content[0].as_text(), Some("hi"));
//! script.await.unwrap();
//! # Ok(()) }
//! ```
//!
//! - [`Client`]: connect, [`Client::closed`] (await the connection's
//!   close), typed methods (`ping`, `list_tools` / `list_all_tools`,
//!   `call_tool`, resources, templates, prompts, `complete`,
//!   `set_logging_level`, the 2025-11-25 tasks: `call_tool_as_task`,
//!   `get_task`, `tool_task_result`, `list_tasks`, `cancel_task`), the
//!   generic [`Client::request`].
//! - [`RequestOptions`]: the one options type of every request method
//!   (listings, reads, `ping`, `call_tool` …): a per-call
//!   [`RequestTimeout`] (inherit the client's, a duration, or none), a
//!   [`CancellationToken`], a progress callback. [`CallOptions`] adds what
//!   only `tools/call` has, its schema checks; `call_tool` takes either.
//! - [`Listing`]: whole listings ([`Client::tools_listing`] and the like)
//!   that keep what arrived: an entry that does not decode is left out and
//!   reported ([`Listing::problems`]), a listing that does not end is cut
//!   short with what came before ([`Listing::incomplete`]).
//! - [`ClientOptions`] / [`VersionPreference`]: identity, declared
//!   capabilities, timeouts, capability strictness, revision preference.
//! - [`ClientHandler`]: roots, sampling, elicitation, notifications.
//! - [`Negotiated`]: what negotiation settled, the one seam between the
//!   handshake revisions and the stateless revision 2026-07-28.
//! - Skills: the skills extension (`io.modelcontextprotocol/skills`):
//!   [`Client::list_skills`], [`Client::get_skill`] and
//!   [`Client::load_skill`], which verifies `SKILL.md` (size, SHA-256,
//!   frontmatter) before anything of the skill is returned; a
//!   [`LoadedSkill`] reads its supporting files, each verified.
//! - [`expand_template`] / [`TemplateValue`]: RFC 6570 expansion of
//!   resource templates.
//! - [`ClientError`]: typed errors with `is_*` questions.
//!
//! # Feature flags
//! - `schema-validation` (default): tool arguments and `structuredContent`
//!   are checked against the tool's `inputSchema` / `outputSchema` with the
//!   `jsonschema` crate, both by default: arguments before the call is sent
//!   (when the tool is in the current listing), the result when it arrives
//!   ([`CallOptions`], [`ClientOptions::validate_arguments`]). Without it no
//!   schema is enforced and `jsonschema` is not built; a result without the
//!   `structuredContent` its tool declares is still refused.
//! - `test-util`: the `testing` module, an in-memory transport on the real
//!   dispatcher and a scriptable server peer.
//!
//! # Cancel safety
//! Every request method of [`Client`] is cancel safe in this sense:
//! dropping its future before it completes sends the server
//! `notifications/cancelled` with that request's id, exactly once, and the
//! late response is dropped. A timeout or a cancelled
//! [`CancellationToken`] (in the [`RequestOptions`] every request method
//! takes) does the same, and the call fails with a timeout / cancelled
//! error. `initialize` is never
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
//! (`subscriptions/listen`, see [`Subscription`]).
//!
//! # Not yet supported
//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`); the
//! 2025-11-25 `tasks/*` methods above are supported. Of the skills
//! extension: `resources/directory/read` and loading `"dynamic"` skills.

pub mod capabilities;
mod client;
mod codec;
mod connection;
mod error;
mod handler;
mod known_tools;
mod list_changes;
mod listing;
mod mrtr;
mod negotiate;
mod negotiated;
mod options;
mod receive_loop;
pub mod request_metadata;
mod server_requests;
mod template;
#[cfg(feature = "test-util")]
pub mod testing;
mod validation;

pub use client::Client;
pub use client::skills::{LoadedSkill, SkillFile, SkillMismatch};
pub use client::subscription::{SUBSCRIPTION_BUFFER, Subscription, SubscriptionEvent};
pub use error::{
    ClientError, Incompatibility, MAX_REPORTED_VIOLATIONS, MAX_SERVER_MESSAGE_CHARS,
    SchemaViolation, ServerFault,
};
pub use handler::{ClientHandler, NoopHandler, RequestContext};
pub use listing::{Incomplete, Listing};
pub use mcp_transport::{CancellationToken, CloseReason, Progress, RequestOptions, RequestTimeout};
pub use negotiate::Negotiated;
pub use options::{
    CallOptions, ClientOptions, DEFAULT_DISCOVER_TIMEOUT, DEFAULT_INITIALIZE_TIMEOUT,
    DEFAULT_MAX_INPUT_ROUNDS, DEFAULT_MAX_PAGES, DEFAULT_REFRESH_DEBOUNCE, ElicitationModes,
    VersionPreference,
};
pub use template::{TemplateValue, expand_template, template_variables};

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
