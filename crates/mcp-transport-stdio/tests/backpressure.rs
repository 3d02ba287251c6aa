//! A server that never reads its stdin makes senders wait (bounded queue,
//! bounded memory) instead of buffering without limit; close() still ends it.
mod support;

use std::time::Duration;

use mcp_transport::Transport;
use mcp_transport_stdio::{StdioConfig, StdioTransport, WRITE_QUEUE};
use serde_json::json;

#[tokio::test]
async fn a_stalled_server_applies_backpressure() {
    let config = StdioConfig::new("sh")
        .with_args(["-c", "sleep 30"])
        .with_shutdown_grace(Duration::from_millis(200));
    let t = StdioTransport::spawn(config).await.unwrap();
    let blob = "x".repeat(64 * 1024);
    let mut sent = 0usize;
    let blocked = loop {
        let send = t.notify("vendor/blob", Some(json!({ "data": blob })));
        match tokio::time::timeout(Duration::from_millis(500), send).await {
            Ok(result) => {
                result.unwrap();
                sent += 1;
                assert!(sent <= WRITE_QUEUE + 64, "the queue grew past its bound");
            }
            Err(_) => break sent,
        }
    };
    assert!(blocked >= 1, "some messages fit in the pipe and the queue");
    tokio::time::timeout(Duration::from_secs(10), t.close())
        .await
        .expect("close completes despite the stalled writer")
        .unwrap();
}

/// A request that times out against a server that stopped reading fails
/// at its own deadline: the `notifications/cancelled` that follows the
/// timeout is queued behind the stalled writes, not waited for (that wait
/// could last the 30 s `NOTIFY_TIMEOUT`). The 15 s watchdog only tells a
/// held-back error from a prompt one (each times out after 300 ms).
#[tokio::test]
async fn a_timeout_is_not_held_back_by_its_cancellation() {
    let config = StdioConfig::new("sh")
        .with_args(["-c", "sleep 60"])
        .with_shutdown_grace(Duration::from_millis(200));
    let t = std::sync::Arc::new(StdioTransport::spawn(config).await.unwrap());
    let blob = json!({ "data": "x".repeat(64 * 1024) });
    // Fill the pipe and the write queue, so the cancellations find no room.
    loop {
        let send = t.notify("vendor/blob", Some(blob.clone()));
        if tokio::time::timeout(Duration::from_millis(300), send)
            .await
            .is_err()
        {
            break;
        }
    }
    let mut calls = Vec::new();
    for _ in 0..8 {
        let t = t.clone();
        let blob = blob.clone();
        calls.push(tokio::spawn(async move {
            let options =
                mcp_transport::RequestOptions::default().with_timeout(Duration::from_millis(300));
            t.request("vendor/slow", Some(&blob), options).await
        }));
    }
    let outcomes = tokio::time::timeout(Duration::from_secs(15), async {
        let mut out = Vec::new();
        for c in calls {
            out.push(c.await.unwrap());
        }
        out
    })
    .await
    .expect("every timeout is reported, none waits for its cancellation to be written");
    for outcome in outcomes {
        assert!(outcome.unwrap_err().is_timeout());
    }
    tokio::time::timeout(Duration::from_secs(10), t.close())
        .await
        .expect("close completes despite the stalled writer")
        .unwrap();
}
