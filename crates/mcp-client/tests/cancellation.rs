//! Dropping a call, cancelling its token, or its timeout sends
//! `notifications/cancelled` exactly once with the request's id.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::time::Duration;

use mcp_client::{CancellationToken, RequestOptions};
use mcp_types::{JsonRpcMessage, RequestId};
use serde_json::json;
use support::*;

async fn expect_cancelled(peer: &mut mcp_client::testing::MemoryPeer, id: &RequestId) {
    let n = peer.expect_notification("notifications/cancelled").await;
    let params = n.params.unwrap();
    assert_eq!(
        RequestId::from_value(&params["requestId"]).as_ref(),
        Some(id)
    );
    // Exactly once: nothing else follows.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        peer.try_next().is_none(),
        "a single notifications/cancelled"
    );
}

#[tokio::test]
async fn dropping_the_future_cancels_once() {
    let (client, mut peer) = connect_full().await;
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool("slow", (), RequestOptions::default())
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    call.abort();
    let _ = call.await;
    expect_cancelled(&mut peer, &req.id).await;
    // A late response is dropped; the connection carries on.
    peer.respond(&req.id, json!({"content": []})).await;
    let ping = tokio::spawn({
        let client = client.clone();
        async move { client.ping(Default::default()).await }
    });
    let p = peer.expect_request("ping").await;
    peer.respond(&p.id, json!({})).await;
    ping.await.unwrap().unwrap();
}

#[tokio::test]
async fn cancel_token_cancels_once() {
    let (client, mut peer) = connect_full().await;
    let token = CancellationToken::new();
    let call = tokio::spawn({
        let client = client.clone();
        let opts = RequestOptions::default().with_cancel(token.clone());
        async move { client.call_tool("slow", (), opts).await }
    });
    let req = peer.expect_request("tools/call").await;
    token.cancel();
    let err = call.await.unwrap().unwrap_err();
    assert!(err.is_cancelled(), "{err:?}");
    expect_cancelled(&mut peer, &req.id).await;
}

#[tokio::test]
async fn timeout_cancels_once() {
    let (client, mut peer) = connect_full().await;
    let call = tokio::spawn({
        let client = client.clone();
        let opts = RequestOptions::default().with_timeout(Duration::from_millis(100));
        async move { client.call_tool("slow", (), opts).await }
    });
    let req = peer.expect_request("tools/call").await;
    let err = call.await.unwrap().unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    expect_cancelled(&mut peer, &req.id).await;
}

#[tokio::test]
async fn client_default_timeout_applies_to_typed_methods() {
    let options = legacy_options().with_request_timeout(Duration::from_millis(100));
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    let list = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None, Default::default()).await }
    });
    let req = peer.expect_request("tools/list").await;
    assert!(list.await.unwrap().unwrap_err().is_timeout());
    expect_cancelled(&mut peer, &req.id).await;
}

#[tokio::test]
async fn server_cancellation_reaches_the_handler_and_gets_no_answer() {
    use async_trait::async_trait;
    use mcp_client::{ClientHandler, RequestContext};
    use mcp_types::roots::ListRootsResult;
    struct WaitsForCancel(std::sync::Arc<std::sync::atomic::AtomicBool>);
    #[async_trait]
    impl ClientHandler for WaitsForCancel {
        async fn list_roots(
            &self,
            ctx: RequestContext,
        ) -> Result<ListRootsResult, mcp_types::JsonRpcError> {
            ctx.cancel.cancelled().await;
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            Err(mcp_types::JsonRpcError::new(
                mcp_types::ErrorCode::INTERNAL_ERROR,
                "cancelled",
            ))
        }
    }
    let saw_cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let options = legacy_options()
        .with_handler(std::sync::Arc::new(WaitsForCancel(saw_cancel.clone())))
        .with_roots(false);
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;
    peer.request(7, "roots/list", None).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    peer.notify(
        "notifications/cancelled",
        Some(json!({"requestId": 7, "reason": "changed my mind"})),
    )
    .await;
    assert!(
        eventually(|| saw_cancel.load(std::sync::atomic::Ordering::SeqCst)).await,
        "the handler's context was cancelled"
    );
    // The spec says the receiver SHOULD NOT answer a cancelled request.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        peer.try_next().is_none(),
        "no answer to a request the server cancelled"
    );
    // The connection still works.
    peer.request(8, "ping", None).await;
    match peer.next().await {
        Some(JsonRpcMessage::Response(r)) => assert_eq!(r.outcome, Ok(json!({}))),
        other => panic!("{other:?}"),
    }
}
