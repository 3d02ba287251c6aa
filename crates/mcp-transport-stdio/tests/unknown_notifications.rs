//! B23: unknown or vendor notifications reach the events receiver and are
//! never answered; tools/list works afterwards.
//!
//! Catalogue cases: B23.
mod support;

use std::time::Duration;

use mcp_transport::{Transport, TransportEvent};
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn unknown_notifications_are_delivered_not_answered() {
    let record = temp_path("stdin");
    let t = StdioTransport::spawn(fake(&["--record", record.to_str().unwrap()]))
        .await
        .unwrap();
    let mut events = t.take_events().unwrap();
    let steps = json!([
        {"write": "{\"jsonrpc\":\"2.0\",\"method\":\"codex/event\",\"params\":{\"msg\":{\"type\":\"task_started\"}}}\n"},
        {"write": "{\"jsonrpc\":\"2.0\",\"method\":\"window/logMessage\",\"params\":{\"type\":3,\"message\":\"hello\"}}\n"},
        {"write": "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"verbose\",\"data\":{\"x\":1}}}\n"},
        {"write": "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n"},
        {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"tools\":[]}}\n"}
    ]);
    let result = script(&t, steps, within(5_000)).await.unwrap();
    assert_eq!(result, json!({"tools": []}));
    let mut methods = Vec::new();
    while methods.len() < 4 {
        match tokio::time::timeout(Duration::from_secs(5), events.recv()).await {
            Ok(Some(TransportEvent::Notification(n))) => methods.push(n.method),
            other => panic!("expected a notification event, got {other:?}"),
        }
    }
    assert_eq!(
        methods,
        [
            "codex/event",
            "window/logMessage",
            "notifications/message",
            "ping"
        ]
    );
    let tools = t
        .request("tools/list", None, within(5_000))
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
    t.close().await.unwrap();
    let sent: Vec<String> = recorded(&record)
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("<response>").to_owned())
        .collect();
    assert_eq!(sent, ["script", "tools/list"], "nothing was written back");
    let _ = std::fs::remove_file(record);
}
