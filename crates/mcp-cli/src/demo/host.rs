//! What a demo tool may ask of the server running it: its log, a
//! notification or a request to the client, and what the client declared.
//! The tools take any host, so they import nothing of the server.

use mcp_types::ProtocolVersion;
use mcp_types::logging::LoggingLevel;
use serde_json::Value;

use super::params::Outcome;

/// The server as the demo tools see it.
pub(super) trait ToolHost: Send + Sync {
    /// The revision the client negotiated, once it did.
    fn version(&self) -> Option<ProtocolVersion>;
    /// `true` when the client declared form-mode elicitation.
    fn client_supports_form_elicitation(&self) -> bool;
    /// Sends `notifications/message` at `level` when the client's level lets it through.
    fn log(&self, level: LoggingLevel, data: Value) -> impl Future<Output = ()> + Send;
    /// Sends the notification `method` to the client.
    fn notify(&self, method: &str, params: Value) -> impl Future<Output = ()> + Send;
    /// Sends the request `method` to the client and waits for its answer.
    fn request(&self, method: &str, params: Value) -> impl Future<Output = Outcome> + Send;
}
