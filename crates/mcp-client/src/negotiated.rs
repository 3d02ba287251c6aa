//! [`Negotiated`]: what negotiation agreed on for one connection, and the
//! per-request `_meta` a stateless revision needs on every request.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_types::ProtocolVersion;
use mcp_types::lifecycle::{ClientCapabilities, ServerCapabilities};
use mcp_types::{
    CacheScope, Implementation, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
};
use serde_json::{Map, Value};

/// The outcome of negotiation: what both sides agreed on for this
/// connection (spec `basic/lifecycle` § Initialization; 2026-07-28
/// `server/discover`).
#[derive(Debug, Clone)]
pub struct Negotiated {
    /// The negotiated revision.
    pub protocol_version: ProtocolVersion,
    /// The server's `serverInfo` (2026-07-28: from the discover result's
    /// `_meta["io.modelcontextprotocol/serverInfo"]`, empty when absent).
    pub server_info: Implementation,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// The server's `instructions`, a hint that may go into the model's system prompt.
    pub instructions: Option<String>,
    /// The capabilities this client declared for this revision.
    pub client_capabilities: ClientCapabilities,
    /// 2026-07-28: the discover result's `ttlMs` — how long, in ms from
    /// [`Negotiated::negotiated_at`], the revision and capabilities may be
    /// trusted (spec `server/utilities/caching`; absent means 0, stale at
    /// once). `None` for handshake revisions and servers that sent none.
    pub discover_ttl_ms: Option<u64>,
    /// 2026-07-28: the discover result's `cacheScope` (`"public"` or
    /// `"private"`; treat absent as `"private"`).
    pub discover_cache_scope: Option<CacheScope>,
    /// When this negotiation completed (local clock).
    pub negotiated_at: Instant,
    /// 2026-07-28: the `_meta` members of every request, built once.
    pub(crate) request_meta: Option<Arc<Map<String, Value>>>,
}

impl Negotiated {
    /// `true` for the stateless revision (2026-07-28): no session, per-request `_meta`.
    pub fn is_stateless(&self) -> bool {
        self.protocol_version.is_stateless()
    }

    /// `true` while the discover result is fresh: `ttlMs` has not elapsed
    /// since [`Negotiated::negotiated_at`] (spec 2026-07-28
    /// `server/utilities/caching` § TTL; absent or 0 is stale at once).
    /// Always `false` for handshake revisions. The client does not re-probe
    /// on its own; a host may call `server/discover` again when stale.
    pub fn discover_is_fresh(&self) -> bool {
        match self.discover_ttl_ms {
            Some(ms) if ms > 0 => self.negotiated_at.elapsed() < Duration::from_millis(ms),
            _ => false,
        }
    }

    /// The `_meta` members the negotiated revision requires on every
    /// request: for 2026-07-28 `io.modelcontextprotocol/protocolVersion`,
    /// `…/clientCapabilities` and `…/clientInfo`, built once per session
    /// and shared; `None` for handshake revisions. Handed to the transport
    /// as [`mcp_transport::RequestOptions::params_meta`], which writes them into
    /// `params._meta` where the caller did not set them.
    pub fn request_meta(&self) -> Option<Arc<Map<String, Value>>> {
        self.request_meta.clone()
    }
}

/// The 2026-07-28 per-request `_meta` members for a revision that needs
/// them (`None` for handshake revisions).
pub(crate) fn request_meta_for(
    version: ProtocolVersion,
    caps: &ClientCapabilities,
    info: &Implementation,
) -> Option<Arc<Map<String, Value>>> {
    version
        .is_stateless()
        .then(|| Arc::new(stateless_meta(version, caps, info)))
}

/// `io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities`,
/// `…/clientInfo`.
pub(crate) fn stateless_meta(
    version: ProtocolVersion,
    caps: &ClientCapabilities,
    info: &Implementation,
) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(
        META_PROTOCOL_VERSION.into(),
        Value::String(version.as_str().to_owned()),
    );
    meta.insert(
        META_CLIENT_CAPABILITIES.into(),
        serde_json::to_value(caps).unwrap_or_default(),
    );
    meta.insert(
        META_CLIENT_INFO.into(),
        serde_json::to_value(info).unwrap_or_default(),
    );
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn modern_meta_is_added_without_overwriting() {
        let caps = ClientCapabilities::default();
        let info = Implementation::new("c", "1");
        let meta = stateless_meta(ProtocolVersion::V2026_07_28, &caps, &info);
        let params = json!({"name": "t", "_meta": {"progressToken": 3}});
        let body = mcp_types::RequestBody {
            id: &mcp_types::RequestId::Number(0),
            method: "tools/call",
            params: Some(&params),
            meta_defaults: Some(&meta),
            meta_overrides: &[],
        };
        let sent: Value = serde_json::from_slice(&body.to_vec()).unwrap();
        let v = &sent["params"];
        assert_eq!(v["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(v["_meta"]["progressToken"], 3);
        assert_eq!(v["_meta"][META_CLIENT_INFO]["name"], "c");
        assert_eq!(v["_meta"][META_CLIENT_CAPABILITIES], json!({}));
        assert_eq!(v["name"], "t");
    }
}
