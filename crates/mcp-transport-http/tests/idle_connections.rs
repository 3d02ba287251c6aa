//! `HttpConfig::max_idle_connections`: after a burst of concurrent requests
//! (HTTP/1.1: one connection each), the connections beyond the limit are
//! closed as their requests end; up to the limit stay open for reuse.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::time::{Duration, Instant};

use common::*;
use fault_http::{FaultServer, Part, Reply, sse_data};
use mcp_transport::Transport;
use mcp_transport_http::{DEFAULT_MAX_IDLE_CONNECTIONS, HttpMode, HttpTransport};

/// A server whose every reply comes after 200 ms, so that concurrent
/// requests each need their own connection.
async fn slow_server() -> FaultServer {
    FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::sse(vec![
            Part::Pause(Duration::from_millis(200)),
            sse_data(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[]}}}}"#
            )),
        ])
    })
    .await
    .expect("fault server")
}

/// Sends `n` concurrent requests, then waits until the server's open
/// connections stop changing; returns (connections accepted, still open).
async fn burst(max_idle: usize, n: usize) -> (usize, usize) {
    let server = slow_server().await;
    let config = config(&server.url("/mcp"))
        .with_listen_after_initialized(false)
        .with_max_idle_connections(max_idle);
    let t = std::sync::Arc::new(
        HttpTransport::connect(config, HttpMode::Streamable)
            .await
            .expect("connect"),
    );
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..n {
        let t = t.clone();
        calls.spawn(async move { t.request("tools/list", None, opts()).await });
    }
    while let Some(result) = calls.join_next().await {
        result.expect("joined").expect("every request succeeds");
    }
    // Closing is asynchronous: wait for the count to settle.
    let start = Instant::now();
    let mut last = server.open_connections();
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = server.open_connections();
        if (now == last && now <= max_idle) || start.elapsed() > PROMPT {
            break;
        }
        last = now;
    }
    let counts = (server.connections(), server.open_connections());
    t.close().await.expect("close");
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_idle_limit_are_closed_after_a_burst() {
    let (accepted, open) = burst(4, 24).await;
    assert!(
        accepted >= 12,
        "the burst used many connections: {accepted}"
    );
    assert!(open <= 4, "{open} of {accepted} connections left open");
    assert!(open >= 1, "some are kept for reuse");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn up_to_the_limit_they_stay_open_for_reuse() {
    assert_eq!(DEFAULT_MAX_IDLE_CONNECTIONS, 32);
    let (accepted, open) = burst(DEFAULT_MAX_IDLE_CONNECTIONS, 24).await;
    assert!(
        accepted >= 12,
        "the burst used many connections: {accepted}"
    );
    assert_eq!(open, accepted, "all {accepted} kept idle under the limit");
}
