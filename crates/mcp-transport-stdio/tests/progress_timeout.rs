//! B26 (real time, small values: timeout 300 ms, cap 1 500 ms, progress
//! every 100 ms): progress restarts the timeout up to the absolute cap; the
//! token is matched with its exact JSON type.
//!
//! Catalogue cases: B26.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_transport::{RequestOptions, TimeoutPhase, Transport, TransportError};
use mcp_transport_stdio::StdioTransport;
use serde_json::{Value, json};
use support::*;

fn options(seen: Arc<Mutex<Vec<f64>>>) -> RequestOptions {
    RequestOptions::default()
        .with_timeout(Duration::from_millis(300))
        .with_progress(move |p| seen.lock().unwrap().push(p.progress))
        .with_timeout_reset_on_progress(Duration::from_millis(1500))
}

fn reply() -> Value {
    json!({"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"done\":true}}\n"})
}

#[tokio::test]
async fn a_steady_progress_keeps_the_request_alive() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    // 6 updates, 100 ms apart, then the result at ~650 ms (> 300 ms timeout).
    let steps =
        json!([{"progress": {"count": 6, "every_ms": 100, "total": 6}}, {"sleep_ms": 50}, reply()]);
    let result = script(&t, steps, options(seen.clone())).await.unwrap();
    assert_eq!(result["done"], true);
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    t.close().await.unwrap();
}

#[tokio::test]
async fn endless_progress_stops_at_the_total_cap_and_cancels() {
    let record = temp_path("stdin");
    let t = StdioTransport::spawn(fake(&["--record", record.to_str().unwrap()]))
        .await
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let steps = json!([{"progress": {"count": 40, "every_ms": 100}}]);
    let err = script(&t, steps, options(seen.clone())).await.unwrap_err();
    assert!(
        matches!(
            err,
            TransportError::Timeout {
                phase: TimeoutPhase::Total,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(seen.lock().unwrap().len() >= 5, "progress did arrive");
    ping(&t).await;
    t.close().await.unwrap();
    let sent = recorded(&record);
    let cancelled: Vec<&Value> = sent
        .iter()
        .filter(|m| m["method"] == "notifications/cancelled")
        .collect();
    assert_eq!(cancelled.len(), 1, "{sent:?}");
    assert_eq!(cancelled[0]["params"]["requestId"], sent[0]["id"]);
    let _ = std::fs::remove_file(record);
}

#[tokio::test]
async fn progress_for_another_token_does_not_extend_the_timeout() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    // The request's token is its integer id; "0" (a string) is another token.
    let steps = json!([{"progress": {"count": 10, "every_ms": 100, "token": "0"}}, reply()]);
    let err = script(&t, steps, options(seen.clone())).await.unwrap_err();
    assert!(
        matches!(
            err,
            TransportError::Timeout {
                phase: TimeoutPhase::Request,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(seen.lock().unwrap().is_empty());
    t.close().await.unwrap();
}
