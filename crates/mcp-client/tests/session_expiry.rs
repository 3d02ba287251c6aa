//! A lost session (transport `SessionExpired`) re-initializes once and
//! retries the request once; a second loss is an error.

mod support;

use mcp_client::{ClientError, RequestOptions};
use serde_json::json;
use support::*;

#[tokio::test]
async fn reinitializes_once_and_retries() {
    let (client, mut peer) = connect_full().await;
    let list = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None, Default::default()).await }
    });
    let first = peer.expect_request("tools/list").await;
    assert!(peer.expire_session(&first.id));
    let init = peer.handshake("2025-11-25", full_caps()).await;
    assert_eq!(init.params.unwrap()["protocolVersion"], "2025-11-25");
    let retry = peer.expect_request("tools/list").await;
    assert_ne!(retry.id, first.id, "the retry has a new id");
    peer.respond(
        &retry.id,
        json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
    )
    .await;
    let tools = list.await.unwrap().unwrap();
    assert_eq!(tools.tools[0].name, "echo");
}

#[tokio::test]
async fn second_loss_is_an_error() {
    let (client, mut peer) = connect_full().await;
    let list = tokio::spawn({
        let client = client.clone();
        async move { client.list_prompts(None, Default::default()).await }
    });
    let first = peer.expect_request("prompts/list").await;
    peer.expire_session(&first.id);
    peer.handshake("2025-11-25", full_caps()).await;
    let retry = peer.expect_request("prompts/list").await;
    peer.expire_session(&retry.id);
    let err = list.await.unwrap().unwrap_err();
    assert!(
        matches!(err, ClientError::SessionLost { ref method, .. } if method == "prompts/list"),
        "{err:?}"
    );
    assert!(err.is_session_lost());
    assert!(peer.try_next().is_none(), "no third attempt");
}

#[tokio::test]
async fn concurrent_losses_share_one_reinitialization() {
    let (client, mut peer) = connect_full().await;
    let a = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None, Default::default()).await }
    });
    let first = peer.expect_request("tools/list").await;
    let b = tokio::spawn({
        let client = client.clone();
        async move { client.list_prompts(None, Default::default()).await }
    });
    let second = peer.expect_request("prompts/list").await;
    peer.expire_session(&first.id);
    // The first loss triggers exactly one handshake; hold its answer until
    // the second request has lost the session too.
    let init = peer.expect_request("initialize").await;
    peer.expire_session(&second.id);
    peer.respond(
        &init.id,
        json!({"protocolVersion": "2025-11-25", "capabilities": full_caps(), "serverInfo": {"name": "m", "version": "1"}}),
    )
    .await;
    peer.expect_notification("notifications/initialized").await;
    let mut retried = Vec::new();
    for _ in 0..2 {
        match peer.next().await {
            Some(mcp_types::JsonRpcMessage::Request(r)) => {
                let result = if r.method == "tools/list" {
                    json!({"tools": []})
                } else {
                    json!({"prompts": []})
                };
                peer.respond(&r.id, result).await;
                retried.push(r.method);
            }
            other => panic!("expected a retried request, got {other:?}"),
        }
    }
    retried.sort();
    assert_eq!(retried, vec!["prompts/list", "tools/list"]);
    a.await.unwrap().unwrap();
    b.await.unwrap().unwrap();
}

/// `tools/call` writes its arguments straight into the request: after a
/// lost session they are written again, whole, into the retry (with a new
/// id), and a second loss is `SessionLost` naming `tools/call`.
#[tokio::test]
async fn a_tool_call_is_retried_with_its_arguments() {
    let (client, mut peer) = connect_full().await;
    let text = "x".repeat(100 * 1024);
    let call = tokio::spawn({
        let client = client.clone();
        let text = text.clone();
        async move {
            client
                .call_tool("echo", json!({"text": text}), RequestOptions::default())
                .await
        }
    });
    let first = peer.expect_request("tools/call").await;
    assert!(peer.expire_session(&first.id));
    peer.handshake("2025-11-25", full_caps()).await;
    let retry = peer.expect_request("tools/call").await;
    assert_ne!(retry.id, first.id, "the retry has a new id");
    let params = retry.params.clone().unwrap();
    assert_eq!(params, first.params.unwrap(), "the same params again");
    assert_eq!(params["arguments"]["text"], text.as_str());
    assert_eq!(params["name"], "echo");
    peer.respond(
        &retry.id,
        json!({"content": [{"type": "text", "text": "ok"}]}),
    )
    .await;
    let result = call.await.unwrap().unwrap();
    assert_eq!(result.content.len(), 1);

    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool("echo", json!({"text": "y"}), RequestOptions::default())
                .await
        }
    });
    let first = peer.expect_request("tools/call").await;
    peer.expire_session(&first.id);
    peer.handshake("2025-11-25", full_caps()).await;
    let retry = peer.expect_request("tools/call").await;
    peer.expire_session(&retry.id);
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(err, ClientError::SessionLost { ref method, .. } if method == "tools/call"),
        "{err:?}"
    );
    assert!(peer.try_next().is_none(), "no third attempt");
}
