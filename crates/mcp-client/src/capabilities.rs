//! Which server capability each client-to-server method needs (spec
//! 2025-11-25 `basic/lifecycle` § Capability Negotiation; checklist LC-10),
//! and which methods exist in which revision. Pure functions, no I/O.

use mcp_types::ProtocolVersion;
use mcp_types::lifecycle::ServerCapabilities;
use mcp_types::skills::SkillsCapability;

/// The capability path `method` needs that `caps` lacks, or `None` when the
/// method may be sent. Methods this table does not know are allowed.
pub fn missing_capability(
    method: &str,
    caps: &ServerCapabilities,
    version: ProtocolVersion,
) -> Option<&'static str> {
    let tasks = caps.tasks.as_ref();
    let (needed, present) = match method {
        "tools/list" | "tools/call" => ("tools", caps.tools.is_some()),
        "resources/list" | "resources/templates/list" | "resources/read" => {
            ("resources", caps.resources.is_some())
        }
        "resources/subscribe" | "resources/unsubscribe" => (
            "resources.subscribe",
            caps.resources
                .as_ref()
                .is_some_and(|r| r.subscribe == Some(true)),
        ),
        "prompts/list" | "prompts/get" => ("prompts", caps.prompts.is_some()),
        "logging/setLevel" => ("logging", caps.logging.is_some()),
        // 2024-11-05 had completion without a capability flag (COMP-1).
        "completion/complete" if version > ProtocolVersion::V2024_11_05 => {
            ("completions", caps.completions.is_some())
        }
        "tasks/get" | "tasks/result" => ("tasks", tasks.is_some()),
        "tasks/list" => ("tasks.list", tasks.is_some_and(|t| t.list.is_some())),
        "tasks/cancel" => ("tasks.cancel", tasks.is_some_and(|t| t.cancel.is_some())),
        // An extension's methods need the server's declaration, in any revision.
        "skills/list" | "skills/get" => (
            "extensions[\"io.modelcontextprotocol/skills\"]",
            SkillsCapability::of(caps).is_some(),
        ),
        _ => return None,
    };
    (!present).then_some(needed)
}

/// `true` when the capability for task-augmented `tools/call` was declared
/// (`tasks.requests.tools.call`, 2025-11-25).
pub fn supports_tool_tasks(caps: &ServerCapabilities) -> bool {
    caps.tasks
        .as_ref()
        .and_then(|t| t.requests.as_ref())
        .and_then(|r| r.tools.as_ref())
        .is_some_and(|t| t.contains_key("call"))
}

/// `false` when `method` does not exist in `version` (e.g. `ping` and
/// `logging/setLevel` in 2026-07-28, tasks outside 2025-11-25,
/// `server/discover` before 2026-07-28).
pub fn exists_in(method: &str, version: ProtocolVersion) -> bool {
    match method {
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            !version.is_stateless()
        }
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => version.has_tasks(),
        "server/discover" | "subscriptions/listen" => version.is_stateless(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caps(v: serde_json::Value) -> ServerCapabilities {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn gates() {
        let v = ProtocolVersion::V2025_11_25;
        let c = caps(json!({"tools": {}, "resources": {}}));
        assert_eq!(missing_capability("tools/call", &c, v), None);
        assert_eq!(missing_capability("prompts/list", &c, v), Some("prompts"));
        assert_eq!(
            missing_capability("resources/subscribe", &c, v),
            Some("resources.subscribe")
        );
        assert_eq!(
            missing_capability("completion/complete", &c, v),
            Some("completions")
        );
        assert_eq!(
            missing_capability("completion/complete", &c, ProtocolVersion::V2024_11_05),
            None
        );
        assert_eq!(missing_capability("ping", &c, v), None);
        assert_eq!(missing_capability("x/unknown", &c, v), None);
        let c = caps(json!({"tasks": {"list": {}, "requests": {"tools": {"call": {}}}}}));
        assert!(supports_tool_tasks(&c));
        assert_eq!(
            missing_capability("tasks/cancel", &c, v),
            Some("tasks.cancel")
        );
        assert_eq!(missing_capability("tasks/list", &c, v), None);
        let skills = "extensions[\"io.modelcontextprotocol/skills\"]";
        assert_eq!(missing_capability("skills/list", &c, v), Some(skills));
        let c = caps(json!({"extensions": {"io.modelcontextprotocol/skills": {}}}));
        for v in ProtocolVersion::ALL {
            assert_eq!(missing_capability("skills/get", &c, v), None);
            assert!(exists_in("skills/list", v));
        }
    }

    #[test]
    fn revisions() {
        assert!(!exists_in("ping", ProtocolVersion::V2026_07_28));
        assert!(exists_in("ping", ProtocolVersion::V2024_11_05));
        assert!(!exists_in("tasks/get", ProtocolVersion::V2025_06_18));
        assert!(exists_in("tasks/get", ProtocolVersion::V2025_11_25));
    }
}
