//! Typed `data` of the MCP-specific JSON-RPC errors (spec 2026-07-28
//! `basic/index` § Errors; schema `UnsupportedProtocolVersionError`,
//! `MissingRequiredClientCapabilityError`; 2025-11-25
//! `URLElicitationRequiredError`, see
//! [`crate::elicitation::UrlElicitationRequiredData`]). Read them from
//! [`crate::JsonRpcError::data`] with `serde_json::from_value`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::lifecycle::ClientCapabilities;

/// `data` of `-32022` unsupported protocol version.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// Revisions the server speaks; retry with one of them.
    pub supported: Vec<String>,
    /// The revision the client asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `data` of `-32021` missing required client capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the server needs for this request.
    pub required_capabilities: ClientCapabilities,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
