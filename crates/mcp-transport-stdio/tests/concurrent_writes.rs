//! Concurrent requests never interleave their bytes on stdin.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_large_echoes_round_trip() {
    let t = std::sync::Arc::new(StdioTransport::spawn(fake(&[])).await.unwrap());
    let mut tasks = Vec::new();
    for i in 0..50 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            let payload = format!("{i}:{}", "y".repeat(100_000 + i));
            let result = t
                .request("echo", Some(&json!({ "p": payload })), within(30_000))
                .await
                .unwrap()
                .to_value()
                .unwrap();
            assert_eq!(result["echo"]["p"], payload.as_str());
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    t.close().await.unwrap();
}
