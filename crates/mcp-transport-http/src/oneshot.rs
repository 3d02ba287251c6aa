//! A single JSON-RPC call over Streamable HTTP, on the same code path as
//! [`HttpTransport`] (same POST, parser, limits and errors).

use mcp_transport::{RequestOptions, Transport, TransportError};
use mcp_types::{ProtocolVersion, RawResult};
use serde_json::Value;

use crate::config::{HttpConfig, HttpMode};
use crate::transport::HttpTransport;

/// Options of the one-shot [`call`]: what its single POST carries besides
/// the message.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OneShotOptions {
    /// Extra headers (e.g. `Authorization`).
    pub headers: Vec<(String, String)>,
    /// Timeout, cancellation and progress of the call.
    pub request: RequestOptions,
    /// Send `MCP-Protocol-Version` for this revision.
    pub protocol_version: Option<ProtocolVersion>,
    /// Send this `Mcp-Session-Id`.
    pub session_id: Option<String>,
}

impl OneShotOptions {
    /// Adds a header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the request options.
    pub fn with_request(mut self, request: RequestOptions) -> Self {
        self.request = request;
        self
    }

    /// Sets the protocol revision header.
    pub fn with_protocol_version(mut self, v: ProtocolVersion) -> Self {
        self.protocol_version = Some(v);
        self
    }

    /// Sends `session` as the `Mcp-Session-Id` (a call inside a session the
    /// caller already has).
    pub fn with_session_id(mut self, session: impl Into<String>) -> Self {
        self.session_id = Some(session.into());
        self
    }
}

/// POSTs one JSON-RPC request `method` with `params` to `url` and returns
/// its result, unparsed (as [`Transport::request`]). No handshake is made; no GET stream is opened; nothing is
/// deleted afterwards.
///
/// Errors: as [`Transport::request`]: `JsonRpc`, `Http`, `SessionExpired`,
/// `Timeout`, `Closed` ("No response received for request ID …"),
/// `MessageTooLarge`, `Protocol`, `Io`.
pub async fn call(
    url: &str,
    method: &str,
    params: Option<&Value>,
    options: OneShotOptions,
) -> Result<RawResult, TransportError> {
    let mut config = HttpConfig::new(url).with_listen_after_initialized(false);
    config.headers = options.headers;
    let transport = HttpTransport::connect(config, HttpMode::Streamable).await?;
    if let Some(v) = options.protocol_version {
        transport.set_protocol_version(v);
    }
    transport.set_session_id(options.session_id);
    let result = transport.request(method, params, options.request).await;
    transport.close_local("one-shot call finished");
    result
}
