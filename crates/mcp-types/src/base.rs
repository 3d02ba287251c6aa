//! Shared base types (spec: `basic/index`, schema `ProgressToken`, `Cursor`,
//! `_meta`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::jsonrpc::RequestId;

/// The `_meta` object: free-form, keys namespaced by their owner.
pub type Meta = Map<String, Value>;

/// A progress token (schema `ProgressToken`: string or integer). It has the
/// same shape and equality rules as a [`RequestId`]: `1` and `"1"` differ.
pub type ProgressToken = RequestId;

/// An opaque pagination cursor (schema `Cursor`).
pub type Cursor = String;

/// Params of a request that takes none but the optional `_meta`
/// (e.g. `ping`, `tools/list` without a cursor is [`crate::PaginatedParams`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An empty result, as `ping` and `notifications/*` acknowledgements return
/// (schema `EmptyResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
