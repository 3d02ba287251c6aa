//! The per-revision wire rules of the Streamable HTTP transport, in one
//! place (spec `basic/transports` of each revision).
//!
//! | revision    | `MCP-Protocol-Version` | `Mcp-Session-Id` | `Mcp-Method` |
//! |-------------|------------------------|------------------|--------------|
//! | (none yet)  | no                     | accepted         | no           |
//! | 2024-11-05  | no (legacy HTTP+SSE)   | no               | no           |
//! | 2025-03-26  | no                     | yes              | no           |
//! | 2025-06-18  | yes                    | yes              | no           |
//! | 2025-11-25  | yes                    | yes              | no           |
//! | 2026-07-28  | yes                    | no (stateless)   | yes          |

use mcp_types::ProtocolVersion;

/// `Mcp-Session-Id` (spec: Session Management).
pub const MCP_SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version` (spec 2025-06-18 on: Protocol Version Header).
pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method` (2026-07-28).
pub const MCP_METHOD: &str = "mcp-method";
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
pub struct WireRules {
    /// Send `MCP-Protocol-Version: <revision>` on every request (POST, GET, DELETE).
    pub version_header: bool,
    /// Keep and send the `Mcp-Session-Id` the server assigns at initialize.
    pub sessions: bool,
    /// Send the request's method in `Mcp-Method`.
    pub method_header: bool,
}

/// The rules for the negotiated revision (`None` before negotiation).
pub fn wire_rules(version: Option<ProtocolVersion>) -> WireRules {
    match version {
        None => WireRules {
            version_header: false,
            sessions: true,
            method_header: false,
        },
        Some(v) => WireRules {
            version_header: v.sends_version_header(),
            sessions: v.has_sessions(),
            method_header: v.is_stateless(),
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
        let r = wire_rules(None);
        assert!(!r.version_header && r.sessions);
    }
}
