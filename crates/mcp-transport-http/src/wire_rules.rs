//! The per-revision wire rules of the Streamable HTTP transport, in one
//! place (spec `basic/transports` of each revision).
//!
//! | revision    | `MCP-Protocol-Version` | `Mcp-Session-Id` | `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` | resume (`Last-Event-ID`) | POST `notifications/cancelled` |
//! |-------------|------------------------|------------------|-----------------------------------------|--------------------------|--------------------------------|
//! | (none yet)  | no                     | accepted         | no                                      | yes                      | yes                            |
//! | 2024-11-05  | no (legacy HTTP+SSE)   | if assigned      | no                                      | yes                      | yes                            |
//! | 2025-03-26  | no                     | yes              | no                                      | yes                      | yes                            |
//! | 2025-06-18  | yes                    | yes              | no                                      | yes                      | yes                            |
//! | 2025-11-25  | yes                    | yes              | no                                      | yes                      | yes                            |
//! | 2026-07-28  | yes                    | no (stateless)   | yes                                     | no                       | no: dropping the reply stream cancels |
//!
//! 2024-11-05 predates Streamable HTTP and its sessions, yet servers built on
//! Streamable HTTP SDKs that answer `initialize` with it (a hard-coded
//! version, a pinned client's request echoed) assign an `Mcp-Session-Id`
//! and refuse every later request without it: the id a server assigned is
//! sent back under every revision but the stateless one.
//!
//! Under 2026-07-28 there is also no GET stream (`subscriptions/listen`
//! replaces it; the GET listener only starts after
//! `notifications/initialized`, which 2026-07-28 never sends) and no
//! session `DELETE` (there is no session id to delete).

use mcp_types::ProtocolVersion;

/// `Mcp-Session-Id` (spec: Session Management).
pub const MCP_SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version` (spec 2025-06-18 on: Protocol Version Header).
pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method` (2026-07-28).
pub const MCP_METHOD: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28): `params.name` of `tools/call` and
/// `prompts/get`, `params.uri` of `resources/read`, `params.taskId` of the
/// tasks extension's requests; computed by the protocol side.
pub const MCP_NAME: &str = "mcp-name";
/// The prefix of `Mcp-Param-{Name}` headers (2026-07-28, from the
/// `x-mcp-header` annotations of a tool's `inputSchema`).
pub const MCP_PARAM_PREFIX: &str = "mcp-param-";
/// `Mcp-Auth-Server`: an authorization hint some servers send with 401.
pub const MCP_AUTH_SERVER: &str = "mcp-auth-server";
/// `Last-Event-ID` (WHATWG SSE; spec: Resumability and Redelivery).
pub const LAST_EVENT_ID: &str = "last-event-id";
/// The `Accept` of every POST.
pub const ACCEPT_POST: &str = "application/json, text/event-stream";
/// The `Accept` of every GET.
pub const ACCEPT_SSE: &str = "text/event-stream";

/// What the wire looks like under one revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WireRules {
    /// Send `MCP-Protocol-Version: <revision>` on every request (POST, GET, DELETE).
    pub version_header: bool,
    /// Keep and send the `Mcp-Session-Id` the server assigns at initialize.
    pub sessions: bool,
    /// Send the request's method in `Mcp-Method`, and the request-metadata
    /// headers the protocol side computed (`Mcp-Name`, `Mcp-Param-*`,
    /// values encoded by [`crate::header_value::encode`]).
    pub method_header: bool,
    /// Resume a broken SSE reply with GET + `Last-Event-ID`. 2026-07-28 has
    /// no resumption: a broken reply stream loses the request.
    pub resumable: bool,
    /// POST `notifications/cancelled` when a request is abandoned. 2026-07-28
    /// defines no client notifications over HTTP: the dropped reply stream
    /// is the cancellation (spec 2026-07-28 `basic/transports` §
    /// Cancellation).
    pub cancel_notification: bool,
}

/// The rules for the negotiated revision (`None` before negotiation).
pub fn wire_rules(version: Option<ProtocolVersion>) -> WireRules {
    match version {
        None => WireRules {
            version_header: false,
            sessions: true,
            method_header: false,
            resumable: true,
            cancel_notification: true,
        },
        Some(v) => WireRules {
            version_header: v.sends_version_header(),
            sessions: v.has_sessions() || v == ProtocolVersion::V2024_11_05,
            method_header: v.is_stateless(),
            resumable: !v.is_stateless(),
            cancel_notification: !v.is_stateless(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_revisions() {
        let r = wire_rules(Some(ProtocolVersion::V2025_06_18));
        assert!(r.version_header && r.sessions && !r.method_header);
        let r = wire_rules(Some(ProtocolVersion::V2025_03_26));
        assert!(!r.version_header && r.sessions);
        let r = wire_rules(Some(ProtocolVersion::V2026_07_28));
        assert!(r.version_header && !r.sessions && r.method_header);
        assert!(!r.resumable && !r.cancel_notification);
        let r = wire_rules(None);
        assert!(!r.version_header && r.sessions);
        let r = wire_rules(Some(ProtocolVersion::V2024_11_05));
        assert!(!r.version_header && r.sessions && !r.method_header);
    }
}
