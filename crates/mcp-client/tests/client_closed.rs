//! `Client::closed`: resolves with the transport's reason once the
//! connection closes (server side or `Client::close`), at once when it
//! already has, and never while the connection is open.

mod support;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcp_client::{ClientHandler, CloseReason};
use support::*;
use tokio::sync::Notify;

/// Counts `on_closed` calls.
#[derive(Default)]
struct CloseCounter {
    calls: std::sync::atomic::AtomicUsize,
    notify: Notify,
}

#[async_trait]
impl ClientHandler for CloseCounter {
    async fn on_closed(&self, _reason: CloseReason) {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.notify.notify_one();
    }
}

/// Generous upper bound for a close to be seen.
const SEEN_WITHIN: Duration = Duration::from_secs(5);

#[tokio::test]
async fn resolves_with_the_reason_when_the_server_side_closes() {
    let (client, peer) = connect_full().await;
    let closed = client.closed();
    // Still open: the future is pending.
    let early = tokio::time::timeout(Duration::from_millis(100), client.closed()).await;
    assert!(
        early.is_err(),
        "closed() resolved while the connection is open"
    );

    peer.close("server exited");
    let reason = tokio::time::timeout(SEEN_WITHIN, closed)
        .await
        .expect("closed() resolves after the close");
    assert_eq!(reason.message, "server exited");
    assert!(!client.is_connected());

    // Already closed: a new future resolves at once, same reason.
    let again = tokio::time::timeout(SEEN_WITHIN, client.closed())
        .await
        .expect("resolves at once");
    assert_eq!(again.message, "server exited");
}

#[tokio::test]
async fn resolves_after_close_and_reaches_the_handler_too() {
    let handler = Arc::new(CloseCounter::default());
    let options = legacy_options().with_handler(handler.clone());
    let (client, _peer) = connect_with(options, "2025-11-25", full_caps()).await;
    let closed = tokio::spawn(client.closed());
    client.close().await.expect("close");
    let reason = tokio::time::timeout(SEEN_WITHIN, closed)
        .await
        .expect("closed() resolves after close()")
        .expect("task");
    assert!(!reason.message.is_empty());
    tokio::time::timeout(SEEN_WITHIN, handler.notify.notified())
        .await
        .expect("the handler's on_closed still runs");
    assert_eq!(handler.calls.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn dropping_every_client_resolves_the_future() {
    let (client, _peer) = connect_full().await;
    let closed = client.closed();
    drop(client);
    let reason = tokio::time::timeout(SEEN_WITHIN, closed)
        .await
        .expect("resolves when the client is dropped");
    assert_eq!(reason.message, "the client was dropped");
}
