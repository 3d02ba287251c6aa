//! Which transport a connection speaks right now: Streamable HTTP, legacy
//! HTTP+SSE (with the endpoint its `endpoint` event named), or not decided
//! yet (auto-detection before the first request settled it).
//!
//! Its own module because the connection state holds it and the legacy
//! transport creates its [`LegacyLink`]: here, neither has to import the
//! other.

use std::sync::Arc;

use http::Uri;

/// Which transport the connection speaks right now.
#[derive(Debug, Clone)]
pub(crate) enum ModeState {
    /// Auto mode before the first request settled it.
    Probing,
    /// Streamable HTTP.
    Streamable,
    /// Legacy HTTP+SSE, with the endpoint to POST to.
    Legacy(Arc<LegacyLink>),
}

/// An open legacy connection: where to POST.
#[derive(Debug)]
pub(crate) struct LegacyLink {
    /// The `endpoint` URL, resolved against the SSE URL.
    pub(crate) endpoint: Uri,
}
