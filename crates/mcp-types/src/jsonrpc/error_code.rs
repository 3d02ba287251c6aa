//! [`ErrorCode`]: the registry of JSON-RPC and MCP error codes, as an
//! open newtype with named constants.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A JSON-RPC / MCP error code: an open newtype, so codes this crate does not
/// name still round-trip (spec: `basic/index` § Responses; schema `JSONRPCError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// `-32700`: invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// `-32600`: the JSON sent is not a valid request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// `-32601`: the method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// `-32602`: invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// `-32603`: internal JSON-RPC error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// `-32002`: resource not found (MCP, `server/resources` § Error Handling).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// `-32042`: URL elicitation required (MCP 2025-11-25, `client/elicitation`).
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// `-32020`: a header does not match the body (MCP 2026-07-28).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// `-32021`: a required client capability is missing (MCP 2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// `-32022`: the requested protocol version is unsupported (MCP 2026-07-28);
    /// `data.supported` lists what the server speaks.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// The code's name in the spec, when it is one this crate knows.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::PARSE_ERROR => "Parse error",
            Self::INVALID_REQUEST => "Invalid Request",
            Self::METHOD_NOT_FOUND => "Method not found",
            Self::INVALID_PARAMS => "Invalid params",
            Self::INTERNAL_ERROR => "Internal error",
            Self::RESOURCE_NOT_FOUND => "Resource not found",
            Self::URL_ELICITATION_REQUIRED => "URL elicitation required",
            Self::HEADER_MISMATCH => "Header mismatch",
            Self::MISSING_REQUIRED_CLIENT_CAPABILITY => "Missing required client capability",
            Self::UNSUPPORTED_PROTOCOL_VERSION => "Unsupported protocol version",
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
