//! MCP protocol revisions (spec: `basic/lifecycle` § Version Negotiation and,
//! for 2026-07-28, `basic/versioning`).
//!
//! Every rule that differs between revisions is a method here, so a transport
//! or the client asks the negotiated revision instead of comparing strings.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One MCP revision this crate speaks, ordered oldest to newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: the first revision; HTTP+SSE transport.
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, JSON-RPC batches, tool annotations.
    V2025_03_26,
    /// 2025-06-18: elicitation, structured tool output, `MCP-Protocol-Version` header; no batches.
    V2025_06_18,
    /// 2025-11-25: tasks, URL elicitation, tools in sampling, icons.
    V2025_11_25,
    /// 2026-07-28: stateless; `server/discover`, per-request `_meta`, no sessions.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every supported revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest revision.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The newest revision that uses the `initialize` handshake.
    pub const LATEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The wire string, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire string; `None` for a revision this crate does not speak.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// `true` for the stateless revisions (2026-07-28 on): no `initialize`,
    /// the version travels in every request's `_meta`.
    pub const fn is_stateless(self) -> bool {
        matches!(self, ProtocolVersion::V2026_07_28)
    }

    /// `true` where a connection starts with `initialize` (2024-11-05 … 2025-11-25).
    pub const fn uses_handshake(self) -> bool {
        !self.is_stateless()
    }

    /// `true` where a JSON array may carry a batch (2025-03-26 only).
    pub const fn allows_batch(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// `true` where HTTP requests after initialization carry the
    /// `MCP-Protocol-Version` header (2025-06-18 on; the spec also lets a
    /// client send it to 2025-03-26 servers, which ignore it).
    pub const fn sends_version_header(self) -> bool {
        !matches!(
            self,
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26
        )
    }

    /// `true` where Streamable HTTP may hand out an `Mcp-Session-Id`
    /// (2025-03-26 … 2025-11-25).
    pub const fn has_sessions(self) -> bool {
        matches!(
            self,
            ProtocolVersion::V2025_03_26
                | ProtocolVersion::V2025_06_18
                | ProtocolVersion::V2025_11_25
        )
    }

    /// `true` where servers may send `elicitation/create` (2025-06-18 on).
    pub const fn has_elicitation(self) -> bool {
        matches!(
            self,
            ProtocolVersion::V2025_06_18
                | ProtocolVersion::V2025_11_25
                | ProtocolVersion::V2026_07_28
        )
    }

    /// `true` where tasks exist (2025-11-25, experimental).
    pub const fn has_tasks(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ProtocolVersion::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unsupported protocol version {s:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_and_parse_roundtrip() {
        for w in ProtocolVersion::ALL.windows(2) {
            assert!(w[0] < w[1]);
        }
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        assert_eq!(ProtocolVersion::parse("2099-01-01"), None);
    }

    #[test]
    fn per_revision_rules() {
        assert!(ProtocolVersion::V2025_03_26.allows_batch());
        assert!(!ProtocolVersion::V2025_06_18.allows_batch());
        assert!(ProtocolVersion::V2026_07_28.is_stateless());
        assert!(!ProtocolVersion::V2026_07_28.has_sessions());
        assert!(!ProtocolVersion::V2025_03_26.sends_version_header());
        assert!(ProtocolVersion::V2025_06_18.sends_version_header());
    }
}
