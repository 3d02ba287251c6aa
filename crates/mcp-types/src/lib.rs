//! # mcp-types
//!
//! The messages of the Model Context Protocol as Rust types: JSON-RPC 2.0
//! envelopes, and every MCP schema type of every revision this stack
//! speaks (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28).
//! One set of types covers them all: a field a later revision added is
//! optional. A transport uses it to frame and classify what it reads, a
//! client to build requests and read results by the method it sent.
//!
//! Pure data: serde and serde_json only, no I/O, no async runtime.
//!
//! ```
//! use bytes::Bytes;
//! use mcp_types::content::ContentBlock;
//! use mcp_types::tools::{CallTool, CallToolRequestParams, CallToolResult};
//! use mcp_types::{
//!     DecodeOptions, Decoded, JsonRpcMessage, JsonRpcRequest, ProtocolVersion, RequestId,
//!     Request, decode_frame,
//! };
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A request: the method's params type, in a JSON-RPC envelope.
//! let arguments = serde_json::json!({"a": 2, "b": 3}).as_object().cloned();
//! let params = CallToolRequestParams::new("add", arguments);
//! let request = JsonRpcMessage::Request(JsonRpcRequest {
//!     id: RequestId::Number(1),
//!     method: CallTool::METHOD.into(),
//!     params: Some(serde_json::to_value(&params)?),
//! });
//! assert_eq!(
//!     String::from_utf8(request.to_vec())?,
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":2,"b":3},"name":"add"}}"#
//! );
//!
//! // The answer, as a transport reads it: a response keeps its `result`
//! // as raw bytes until the caller parses it as the method's result type.
//! let options = DecodeOptions {
//!     allow_batch: ProtocolVersion::V2025_11_25.allows_batch(),
//! };
//! let frame = Bytes::from_static(
//!     br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"5"}]}}"#,
//! );
//! let Decoded::Response { id, outcome } = decode_frame(&frame, options)? else {
//!     panic!("not a response");
//! };
//! assert_eq!(id, RequestId::Number(1));
//! let result: <CallTool as Request>::Result = outcome?.parse()?;
//! let CallToolResult { content, .. } = result;
//! assert!(matches!(&content[..], [ContentBlock::Text(t)] if t.text == "5"));
//!
//! // Anything else is classified by its members, never by trial.
//! let message = JsonRpcMessage::decode(
//!     br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}"#,
//! )?;
//! assert_eq!(message.method(), Some("notifications/progress"));
//! # Ok(())
//! # }
//! ```
//!
//! # What is where
//!
//! - [`RequestId`], the envelopes and [`JsonRpcMessage::decode`],
//!   which classifies a message by its members, never by trial.
//! - [`decode_frame`] and [`RawResult`], a response whose `result`
//!   stays as the bytes it arrived in until it is parsed once, straight
//!   into the type the caller expects.
//! - [`ProtocolVersion`] and its per-revision rules.
//! - The [`Request`] / [`Notification`] traits tying a method name to its
//!   params and result types, and [`REQUEST_METHODS`].
//! - One module per section of the spec: [`lifecycle`], [`tools`],
//!   [`resources`], [`prompts`], [`completion`], [`logging`], [`sampling`],
//!   [`elicitation`], [`roots`], [`tasks`], [`discovery`], plus [`content`]
//!   and [`notifications`] (progress, cancellation, list changes).
//! - 2026-07-28 additions: [`input`] (multi round-trip `input_required`
//!   results), [`subscriptions`] (`subscriptions/listen`) and [`errors`]
//!   (typed `data` of the new error codes).
//! - Extensions: [`skills`] (`io.modelcontextprotocol/skills`: `skills/list`,
//!   `skills/get`, skill entries with their `sha256:` digests).
//!
//! # Tolerance
//!
//! [`lenient`] lists what is forgiven in what servers send (lone surrogate
//! escapes, members with an obvious empty default, one bad entry of a
//! listing) and how.
//!
//! # Forward compatibility
//!
//! Types that carry `_meta` keep unknown members through a decode/encode
//! round trip; an unknown content block decodes to
//! [`content::ContentBlock::Unknown`]; `inputSchema`, `outputSchema` and
//! `structuredContent` are raw JSON.

mod base;
pub mod completion;
pub mod content;
mod de;
pub mod discovery;
pub mod elicitation;
mod entry_problem;
pub mod errors;
pub mod input;
mod json_write;
mod jsonrpc;
pub mod lenient;
pub mod lifecycle;
pub mod logging;
mod method;
pub mod notifications;
pub mod prompts;
mod raw;
mod request_methods;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod skills;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
mod version;

pub use base::{
    Annotations, CacheScope, Cursor, EmptyParams, EmptyResult, Icon, Implementation, JsonObject,
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN,
    META_PROTOCOL_VERSION, META_RELATED_TASK, META_SERVER_INFO, META_SUBSCRIPTION_ID, Meta,
    NotificationParams, Paginated, PaginatedParams, ProgressToken, ResultType, Role,
    with_params_meta,
};
pub use json_write::json_type;
pub use jsonrpc::{
    ArgumentsError, DecodeError, DecodeOptions, ErrorCode, JSONRPC_VERSION, JsonRpcError,
    JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RawParams, RequestBody,
    RequestId,
};
pub use method::{Notification, Request};
pub use raw::{Decoded, RawResult, answered_ids, decode_frame, invalid_request};
pub use request_methods::REQUEST_METHODS;
pub use version::ProtocolVersion;

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
