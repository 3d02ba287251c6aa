//! The reference `@modelcontextprotocol/server-everything` over stdio, with
//! raw JSON requests: initialize, tools/list, tools/call echo, and the
//! long-running tool with progress before the result. Skips (printing why)
//! when tests/peers/setup.sh has not installed it.
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_transport::{RequestOptions, Transport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use serde_json::{Value, json};
use support::*;

#[tokio::test]
async fn initialize_list_call_and_progress() {
    let Some((node, args)) = mcp_tests::peers::require_command(
        "server-everything",
        mcp_tests::peers::everything_stdio_command(),
    ) else {
        return;
    };
    let config = StdioConfig::new(node)
        .with_args(args)
        .with_label("everything");
    let t = StdioTransport::spawn(config).await.unwrap();
    let init = t
        .request(
            "initialize",
            Some(&json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "stdio-tests", "version": "0"}
            })),
            within(60_000),
        )
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    t.notify("notifications/initialized", None).await.unwrap();

    let tools = t
        .request("tools/list", None, within(30_000))
        .await
        .unwrap()
        .to_value()
        .unwrap();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    let long = names
        .iter()
        .find(|n| {
            n.to_lowercase()
                .replace(['-', '_'], "")
                .contains("longrunning")
        })
        .copied()
        .expect("a long-running tool");

    let echo = t
        .request(
            "tools/call",
            Some(&json!({"name": "echo", "arguments": {"message": "hi there"}})),
            within(30_000),
        )
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert!(
        echo["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hi there"),
        "{echo}"
    );

    let progress: Arc<Mutex<Vec<f64>>> = Arc::new(Mutex::new(Vec::new()));
    let seen = progress.clone();
    let options = RequestOptions::default()
        .with_timeout(Duration::from_secs(30))
        .with_progress(move |p| seen.lock().unwrap().push(p.progress));
    let result: Value = t
        .request(
            "tools/call",
            Some(&json!({"name": long, "arguments": {"duration": 1, "steps": 3}})),
            options,
        )
        .await
        .unwrap()
        .to_value()
        .unwrap();
    // The progress sink runs on the awaiting task before the request
    // resolves, so every update seen here arrived before the result. (The
    // last update may be dropped when it lands together with the result —
    // the dispatcher prefers the result.)
    let seen = progress.lock().unwrap().clone();
    assert!(
        !seen.is_empty(),
        "progress arrived before the result: {result}"
    );
    assert!(
        seen.windows(2).all(|w| w[0] < w[1]) && seen.iter().all(|p| (1.0..=3.0).contains(p)),
        "{seen:?}"
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("completed"),
        "{result}"
    );
    t.close().await.unwrap();
}
