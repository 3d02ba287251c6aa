//! `--url` and remote config entries: reaching a server over HTTP.

use std::sync::Arc;

use mcp_transport::Transport;
use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};

use crate::connect::ConnectError;

/// Opens an HTTP transport to `url`: Streamable HTTP with the spec's
/// fallback to HTTP+SSE on 400/404/405, or HTTP+SSE only when `sse`.
///
/// Errors: an invalid URL or header, or (HTTP+SSE) a stream that does not open.
pub async fn connect(
    name: &str,
    url: &str,
    headers: &[(String, String)],
    sse: bool,
) -> Result<Arc<dyn Transport>, ConnectError> {
    let mut config = HttpConfig::new(url).with_label(name);
    for (k, v) in headers {
        config = config.with_header(k.clone(), v.clone());
    }
    let mode = if sse {
        HttpMode::Legacy
    } else {
        HttpMode::Auto
    };
    Ok(Arc::new(HttpTransport::connect(config, mode).await?))
}
