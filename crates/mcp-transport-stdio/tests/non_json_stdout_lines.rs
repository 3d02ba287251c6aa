//! B14: log lines, banners, blank lines and non-JSON-RPC JSON on stdout are
//! skipped; nothing is written back; initialize succeeds.
//!
//! Catalogue cases: B14.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn junk_lines_are_skipped_and_never_answered() {
    let record = temp_path("stdin");
    let startup = json!([
        {"write": "MyServer v1.2 listening on stdio\n"},
        {"write": "\n"},
        {"write": "\r\n"},
        {"write": "[2025-07-01 12:00:00] [W] deprecated option\n"},
        {"write": "{\"level\":\"info\",\"msg\":\"ready\"}\n"}
    ])
    .to_string();
    let t = StdioTransport::spawn(fake(&[
        "--record",
        record.to_str().unwrap(),
        "--startup",
        &startup,
    ]))
    .await
    .unwrap();
    let init = initialize(&t).await;
    assert_eq!(init["serverInfo"]["name"], "fake");
    t.notify("notifications/initialized", None).await.unwrap();
    assert!(t.is_connected());
    t.close().await.unwrap();

    let sent = recorded(&record);
    let methods: Vec<&str> = sent
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("<response>"))
        .collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized"],
        "nothing between initialize and notifications/initialized"
    );
    let _ = std::fs::remove_file(record);
}
