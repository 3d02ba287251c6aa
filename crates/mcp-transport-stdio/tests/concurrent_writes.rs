//! Concurrent requests never interleave their bytes on stdin.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

/// Sends `payload` to the fake's `echo` and checks it came back whole.
async fn echo_whole(t: &StdioTransport, payload: &str) {
    let result = t
        .request("echo", Some(&json!({ "p": payload })), within(30_000))
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(result["echo"]["p"], payload);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_large_echoes_round_trip() {
    let t = std::sync::Arc::new(StdioTransport::spawn(fake(&[])).await.unwrap());
    let mut tasks = Vec::new();
    for i in 0..50 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            let payload = format!("{i}:{}", "y".repeat(100_000 + i));
            echo_whole(&t, &payload).await;
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    t.close().await.unwrap();
}

/// Messages larger than the pipe (256 KiB) mixed with small ones: a sender
/// that finds the queue empty writes straight to stdin, a short write
/// leaves the rest first in the writer task's queue, and every other sender
/// waits behind it; each request still reaches the server whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_writes_longer_than_the_pipe_keep_messages_whole() {
    let t = std::sync::Arc::new(StdioTransport::spawn(fake(&[])).await.unwrap());
    for round in 0..3 {
        let mut tasks = Vec::new();
        for i in 0..24 {
            let t = t.clone();
            tasks.push(tokio::spawn(async move {
                let len = if i % 3 == 0 { 600_000 + i } else { 10 + i };
                let payload = format!("{round}.{i}:{}", "z".repeat(len));
                echo_whole(&t, &payload).await;
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
    }
    // One at a time, each alone in the pipe: whole direct writes and short
    // ones, then a small message right after a long one.
    for len in [300_000, 10, 1_000_000, 5] {
        let payload = "w".repeat(len);
        echo_whole(&t, &payload).await;
    }
    t.close().await.unwrap();
}

/// Many requests in flight at once are gathered by the writer task into
/// vectored writes of several messages (small ones, and ones that fill the
/// pipe so a write stops inside a message or between a body and its
/// newline); each still reaches the server whole, and answers come back
/// to the right callers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batched_writes_of_many_in_flight_keep_messages_whole() {
    let t = std::sync::Arc::new(StdioTransport::spawn(fake(&[])).await.unwrap());
    let mut tasks = Vec::new();
    for i in 0..300 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            let len = match i % 50 {
                0 => 300_000 + i,
                7 => 65_536 - 40 + i % 3,
                _ => i,
            };
            let payload = format!("{i}:{}", "b".repeat(len));
            echo_whole(&t, &payload).await;
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(t.pending_requests(), 0);
    t.close().await.unwrap();
}
