//! An HTTP/1 reply's head (status line and headers) is read into the
//! connection's read buffer, which grows to 32 KiB at most per read: a head
//! of 16 KiB is read, one far past the limit (1 MiB) fails its request with
//! a network error that says so, and the transport goes on serving the
//! next request.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use common::*;
use fault_http::{FaultServer, Reply, init_result, tools_result};
use mcp_transport::{Transport, TransportError};

#[tokio::test]
async fn a_huge_reply_head_fails_its_request_only() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("initialize") => Reply::json(init_result(&id, "2025-06-18"))
                .header("x-padding", &"a".repeat(16 * 1024)),
            Some("ping") => Reply::json(init_result(&id, "2025-06-18"))
                .header("x-padding", &"a".repeat(1 << 20)),
            _ => Reply::json(tools_result(&id)),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    initialize(&t).await.expect("a 16 KiB head is read");
    let err = t.request("ping", None, opts()).await.unwrap_err();
    assert!(matches!(err, TransportError::Io(_)), "{err:?}");
    let shown = format!("{err:?}");
    assert!(shown.contains("too large"), "{shown}");
    let listed = t.request("tools/list", None, opts()).await.unwrap();
    assert_eq!(listed.to_value().unwrap()["tools"], serde_json::json!([]));
}
