//! B25: on timeout, and when the caller drops the future, exactly one
//! `notifications/cancelled` with the id and a reason; never for
//! `initialize`; the late response is ignored; the id is never reused.
//! The transport kit (`transport_kit.rs`) checks the dropped future and
//! `initialize`; here, what the kit does not: the timeout's reason, and a
//! drop right before `close()`.
//!
//! Catalogue cases: B25.
mod support;

use std::time::Duration;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::{Value, json};
use support::*;

fn late_answer() -> Value {
    json!([{"sleep_ms": 1000}, {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"content\":[]}}\n"}])
}

fn cancels(sent: &[Value]) -> Vec<&Value> {
    sent.iter()
        .filter(|m| m["method"] == "notifications/cancelled")
        .collect()
}

#[tokio::test]
async fn timeout_sends_one_cancelled_and_ignores_the_late_response() {
    let record = temp_path("stdin");
    let t = StdioTransport::spawn(fake(&["--record", record.to_str().unwrap()]))
        .await
        .unwrap();
    let err = script(&t, late_answer(), within(300)).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    // Let the late response arrive, then use the connection again.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(t.is_connected());
    ping(&t).await;
    t.close().await.unwrap();

    let sent = recorded(&record);
    let id = sent[0]["id"].clone();
    assert!(id.is_i64());
    let cancelled = cancels(&sent);
    assert_eq!(cancelled.len(), 1, "{sent:?}");
    assert_eq!(
        cancelled[0]["params"],
        json!({"requestId": id, "reason": "timeout"})
    );
    let reused = sent
        .iter()
        .filter(|m| m.get("method").is_some() && m.get("id") == Some(&id))
        .count();
    assert_eq!(reused, 1, "the id is never reused");
    let _ = std::fs::remove_file(record);
}

#[tokio::test]
async fn a_request_dropped_right_before_close_still_sends_cancelled() {
    // Found by the CLI's Ctrl-C path: a drop followed at once by close() must
    // not lose the notification (it is queued synchronously, ahead of EOF).
    let record = temp_path("stdin");
    let t = StdioTransport::spawn(fake(&["--record", record.to_str().unwrap()]))
        .await
        .unwrap();
    let dropped = tokio::time::timeout(
        Duration::from_millis(200),
        script(&t, late_answer(), within(30_000)),
    )
    .await;
    assert!(dropped.is_err(), "the future was dropped while pending");
    t.close().await.unwrap();

    let sent = recorded(&record);
    let cancelled = cancels(&sent);
    assert_eq!(cancelled.len(), 1, "{sent:?}");
    assert_eq!(cancelled[0]["params"]["requestId"], sent[0]["id"]);
    let _ = std::fs::remove_file(record);
}
