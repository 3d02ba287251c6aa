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
