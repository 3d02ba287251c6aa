//! `--url`: reaching a remote server over HTTP.

use std::sync::Arc;

use mcp_transport::Transport;

use crate::connect::ConnectError;

/// Opens an HTTP transport to `url` (Streamable HTTP, or HTTP+SSE when `sse`).
///
/// Errors: always [`ConnectError::Unsupported`] until `mcp-transport-http`
/// provides its transport.
pub async fn connect(
    _name: &str,
    url: &str,
    _headers: &[(String, String)],
    _sse: bool,
) -> Result<Arc<dyn Transport>, ConnectError> {
    Err(ConnectError::Unsupported(format!(
        "cannot reach {url}: this build has no HTTP transport yet"
    )))
}
