//! # mcp-types
//!
//! JSON-RPC 2.0 envelopes and every Model Context Protocol schema type, for
//! all revisions this stack speaks: 2024-11-05, 2025-03-26, 2025-06-18,
//! 2025-11-25 and 2026-07-28. One set of Rust types covers them all: a field
//! a later revision added is optional.
//!
//! Pure data: serde and serde_json only, no I/O, no async runtime.
//!
//! - [`jsonrpc`]: [`RequestId`], the envelopes and [`JsonRpcMessage::decode`],
//!   which classifies a message by its members, never by trial.
//! - [`version`]: [`ProtocolVersion`] and its per-revision rules.
//! - [`method`]: the [`Request`] / [`Notification`] traits tying a method name
//!   to its params and result types.
//! - One module per section of the spec: [`lifecycle`], [`tools`],
//!   [`resources`], [`prompts`], [`completion`], [`logging`], [`sampling`],
//!   [`elicitation`], [`roots`], [`tasks`], [`discovery`], plus [`content`]
//!   and [`notifications`] (progress, cancellation, list changes).
//! - 2026-07-28 additions: [`input`] (multi round-trip `input_required`
//!   results), [`subscriptions`] (`subscriptions/listen`) and [`errors`]
//!   (typed `data` of the new error codes).
//!
//! Tolerance: [`lenient`] lists what is forgiven in what servers send
//! (lone surrogate escapes, members with an obvious empty default, one bad
//! entry of a listing) and how.
//!
//! Forward compatibility: types that carry `_meta` keep unknown members
//! through a decode/encode round trip; an unknown content block decodes to
//! [`content::ContentBlock::Unknown`]; `inputSchema`, `outputSchema` and
//! `structuredContent` are raw JSON.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod base;
pub mod completion;
pub mod content;
mod de;
pub mod discovery;
pub mod elicitation;
pub mod errors;
pub mod input;
mod json_write;
pub mod jsonrpc;
pub mod lenient;
pub mod lifecycle;
pub mod logging;
pub mod method;
pub mod notifications;
pub mod prompts;
pub mod raw;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
pub mod version;

pub use base::{
    Cursor, EmptyParams, EmptyResult, Implementation, Meta, Paginated, PaginatedParams,
    ProgressToken,
};
pub use jsonrpc::{
    DecodeError, DecodeOptions, ErrorCode, JsonRpcError, JsonRpcMessage, JsonRpcNotification,
    JsonRpcRequest, JsonRpcResponse, RequestId,
};
pub use method::{Notification, Request};
pub use raw::{Decoded, RawResult, answered_ids, decode_frame, invalid_request};
pub use version::ProtocolVersion;
