//! One namespace over several servers: colliding names get distinct,
//! valid, deterministic qualified names that route to the right server.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::time::Duration;

use mcp_manager::naming::is_valid_name;
use mcp_manager::{CallOptions, Manager};
use serde_json::json;
use support::*;

async fn qualified_names(python: &str) -> Vec<(String, String, String)> {
    // "a.b" and "a_b" both sanitize to "a_b"; each has "echo" and "x.y" / "x_y".
    let config = config(json!({
        "a.b": fixture_entry(python, json!({"FIXTURE_LABEL": "dot", "FIXTURE_TOOLS": "x.y"}), &[]),
        "a_b": fixture_entry(python, json!({"FIXTURE_LABEL": "underscore", "FIXTURE_TOOLS": "x_y"}), &[]),
    }));
    let manager = Manager::start(config, options()).await;
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    let names = manager
        .tools()
        .into_iter()
        .map(|t| (t.qualified_name, t.server, t.tool.name.clone()))
        .collect::<Vec<_>>();

    for (q, server, tool) in &names {
        assert!(is_valid_name(q), "{q}");
        assert_eq!(
            manager.resolve_tool(q),
            Some((server.clone(), tool.clone()))
        );
    }
    let unique: std::collections::BTreeSet<_> = names.iter().map(|n| &n.0).collect();
    assert_eq!(unique.len(), names.len(), "{names:#?}");
    assert_eq!(names.len(), 14, "7 tools per server: {names:#?}");

    // the verbatim name keeps the plain form
    assert_eq!(
        manager.resolve_tool("a_b__echo"),
        Some(("a_b".into(), "echo".into()))
    );
    assert_eq!(
        manager.resolve_tool("a_b__x_y"),
        Some(("a_b".into(), "x_y".into()))
    );
    // each routes to its own server
    for (q, server, tool) in &names {
        if tool == "echo" || tool.starts_with('x') {
            let r = manager
                .call_tool(q, json!({"text": "t"}), CallOptions::default())
                .await
                .unwrap();
            let label = if server == "a.b" { "dot" } else { "underscore" };
            assert_eq!(first_text(&r), format!("{label}:t"), "{q}");
        }
    }
    manager.shutdown().await;
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn collisions_are_disambiguated_deterministically() {
    let Some(python) = python3() else { return };
    let first = qualified_names(&python).await;
    // A second run (servers connecting in another order) gives the same names.
    let second = qualified_names(&python).await;
    assert_eq!(first, second);
}

/// Whoever sees a server `Connected` finds its tools in the namespace, at
/// every moment of a start: the namespace is rebuilt when read after the
/// lists changed, and the lists change before the status does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connected_server_has_its_tools_in_the_namespace_at_once() {
    let Some(python) = python3() else { return };
    let servers: serde_json::Map<String, serde_json::Value> = (0..8)
        .map(|i| {
            let label = format!("l{i}");
            (
                format!("s{i}"),
                fixture_entry(&python, json!({"FIXTURE_LABEL": label}), &[]),
            )
        })
        .collect();
    let manager = Manager::start(config(serde_json::Value::Object(servers)), options()).await;
    let watcher = {
        let manager = manager.clone();
        tokio::spawn(async move {
            let mut connected_seen = 0;
            loop {
                // The status first, then the namespace.
                let status = manager.status();
                let namespace = manager.namespace();
                for (server, s) in &status {
                    if let mcp_manager::ServerStatus::Connected { tools, .. } = s {
                        let have = namespace
                            .tools()
                            .iter()
                            .filter(|t| &t.server == server)
                            .count();
                        assert_eq!(have, *tools, "{server} is connected with {tools} tools");
                        connected_seen += 1;
                    }
                }
                if status
                    .values()
                    .all(|s| !matches!(s, mcp_manager::ServerStatus::Starting))
                {
                    return connected_seen;
                }
                tokio::task::yield_now().await;
            }
        })
    };
    assert!(manager.wait_started(Duration::from_secs(30)).await);
    let connected_seen = tokio::time::timeout(Duration::from_secs(30), watcher)
        .await
        .expect("the watcher ends once all started")
        .expect("no server was seen connected without its tools");
    assert!(
        connected_seen >= 8,
        "every server was checked at least once"
    );
    manager.shutdown().await;
}
