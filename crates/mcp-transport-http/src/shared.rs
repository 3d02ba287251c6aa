//! [`Shared`]: what a transport, the `Outbound` handle its dispatcher calls and its
//! background tasks (the GET listener, the legacy reader) hold in common:
//! the request path ([`Exchange`]) and the session ([`Session`]) side by
//! side, with the URL and the configuration they were made from. Each of
//! the two owns its state; neither knows the other (the exchange reads the
//! session's headers through [`SessionHeaders`](crate::exchange::SessionHeaders)).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Weak};

use http::Uri;
use mcp_transport::TransportError;

use crate::config::HttpConfig;
use crate::exchange::Exchange;
use crate::mode::ModeState;
use crate::redact::redact_url;
use crate::session::Session;

/// One MCP connection over HTTP: its request path and its session.
pub(crate) struct Shared {
    /// Itself, for the tasks it starts (the GET listener, the legacy
    /// reader) to hold.
    pub(crate) me: Weak<Shared>,
    /// The request path every request of the connection goes through.
    pub(crate) exchange: Exchange,
    /// The session.
    pub(crate) session: Session,
    /// The MCP endpoint (Streamable HTTP) or SSE URL (legacy).
    pub(crate) url: Uri,
    /// The configuration it was made from.
    pub(crate) config: HttpConfig,
    /// A reply's JSON body came with another (or no) `Content-Type` and was
    /// read as JSON: warned once per connection.
    pub(crate) warned_media: AtomicBool,
    /// A JSON reply opened with a byte order mark: warned once per
    /// connection.
    pub(crate) warned_bom: AtomicBool,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("url", &redact_url(&self.url.to_string()))
            .field("exchange", &self.exchange)
            .field("session", &self.session)
            .finish()
    }
}

impl Shared {
    /// Validates `config` and builds the transport's state, its session in
    /// mode `initial`.
    ///
    /// Errors: `Protocol` for an invalid URL or header.
    pub(crate) fn new(
        config: HttpConfig,
        initial: ModeState,
    ) -> Result<Arc<Shared>, TransportError> {
        let url: Uri = config.url.parse().map_err(|e| {
            TransportError::misuse(format!("invalid URL {}: {e}", redact_url(&config.url)))
        })?;
        match url.scheme_str() {
            Some("http") | Some("https") if url.authority().is_some() => {}
            _ => {
                return Err(TransportError::misuse(format!(
                    "URL {} is not an absolute http(s) URL",
                    redact_url(&config.url)
                )));
            }
        }
        let exchange = Exchange::new(&config, &url)?;
        let session = Session::new(&config.label, initial);
        Ok(Arc::new_cyclic(|me| Shared {
            me: me.clone(),
            exchange,
            session,
            url,
            config,
            warned_media: AtomicBool::new(false),
            warned_bom: AtomicBool::new(false),
        }))
    }

    /// The label, for logs.
    pub(crate) fn label(&self) -> &str {
        &self.config.label
    }
}
