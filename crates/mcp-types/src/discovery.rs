//! Server discovery (2026-07-28, spec `basic/lifecycle` § Discovery; schema
//! `DiscoverRequest`, `DiscoverResult`): the stateless replacement for
//! `initialize`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{CacheScope, EmptyParams, Meta, ResultType};
use crate::lifecycle::ServerCapabilities;
use crate::method::Request;

/// Result of `server/discover` (schema `DiscoverResult`). The server's
/// [`crate::base::Implementation`] is in `_meta` under
/// [`crate::base::META_SERVER_INFO`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Revisions the server speaks, e.g. `["2026-07-28"]`.
    pub supported_versions: Vec<String>,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// How long the result may be cached, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the cached result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `server/discover` (client → server, 2026-07-28).
#[derive(Debug)]
pub enum Discover {}

impl Request for Discover {
    const METHOD: &'static str = "server/discover";
    type Params = EmptyParams;
    type Result = DiscoverResult;
}
