//! JSON-RPC 2.0 envelopes as MCP uses them (spec: `basic/index` § Messages).
//!
//! A message is classified by the members it carries — `method` + `id` is a
//! request, `method` alone a notification, `id` + exactly one of
//! `result`/`error` a response — never by trying shapes in order. See
//! [`JsonRpcMessage::decode`].

// One concern per file: `RequestId` (id.rs), the `ErrorCode` registry
// (error_code.rs), the envelopes and their writer (envelope/mod.rs), their
// decoding and classification (envelope/decode.rs), the words for a JSON
// value's kind in refusals (kind.rs), and `RequestBody`, the request writer that
// merges `_meta` (request_body.rs), and `RawParams`, params serialized
// ahead of their request with room for its envelope (raw_params.rs). The JSON text itself (values, escaped
// strings, the escape scan) is written by `crate::json_write`.

mod envelope;
mod error_code;
mod id;
mod kind;
mod raw_params;
mod request_body;

pub use envelope::{
    DecodeError, DecodeOptions, JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest,
    JsonRpcResponse,
};
pub use error_code::ErrorCode;
pub use id::RequestId;
pub use raw_params::{ArgumentsError, RawParams};
pub use request_body::RequestBody;

pub(crate) use id::write_id;

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";
