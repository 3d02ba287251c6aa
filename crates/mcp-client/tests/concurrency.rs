//! The client is cheap to clone and pipelines requests: answers may come
//! in any order and nothing waits behind another request.

mod support;

use mcp_types::JsonRpcMessage;
use serde_json::json;
use support::*;

#[tokio::test]
async fn requests_are_pipelined_and_answered_out_of_order() {
    let (client, mut peer) = connect_full().await;
    let mut calls = Vec::new();
    for i in 0..10 {
        let client = client.clone();
        calls.push(tokio::spawn(async move {
            client
                .read_resource(format!("test://r/{i}"), Default::default())
                .await
        }));
    }
    let mut requests = Vec::new();
    for _ in 0..10 {
        match peer.next().await {
            Some(JsonRpcMessage::Request(r)) => requests.push(r),
            other => panic!("{other:?}"),
        }
    }
    // All ten are in flight at once; answer them newest first.
    for r in requests.iter().rev() {
        let uri = r.params.as_ref().unwrap()["uri"].clone();
        peer.respond(&r.id, json!({"contents": [{"uri": uri, "text": "x"}]}))
            .await;
    }
    for (i, call) in calls.into_iter().enumerate() {
        let result = call.await.unwrap().unwrap();
        let v = serde_json::to_value(&result.contents[0]).unwrap();
        assert_eq!(v["uri"], format!("test://r/{i}"));
    }
}

#[tokio::test]
async fn close_fails_pending_requests_and_is_idempotent() {
    let (client, mut peer) = connect_full().await;
    let pending = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None, Default::default()).await }
    });
    peer.expect_request("tools/list").await;
    client.close().await.unwrap();
    client.close().await.unwrap();
    let err = pending.await.unwrap().unwrap_err();
    assert!(err.is_closed(), "{err:?}");
    assert!(!client.is_connected());
    assert!(
        client
            .ping(Default::default())
            .await
            .unwrap_err()
            .is_closed()
    );
}

#[tokio::test]
async fn resource_templates_expand() {
    let (client, mut peer) = connect_full().await;
    let template: mcp_types::resources::ResourceTemplate = serde_json::from_value(
        json!({"uriTemplate": "test://static/resource/{id}{?q*}", "name": "t"}),
    )
    .unwrap();
    let read = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .read_resource_template(
                    &template,
                    [
                        ("id", mcp_client::TemplateValue::from("7")),
                        (
                            "q",
                            mcp_client::TemplateValue::List(vec!["a".into(), "b c".into()]),
                        ),
                    ],
                    Default::default(),
                )
                .await
        }
    });
    let req = peer.expect_request("resources/read").await;
    assert_eq!(
        req.params.as_ref().unwrap()["uri"],
        "test://static/resource/7?q=a&q=b%20c"
    );
    peer.respond(&req.id, json!({"contents": []})).await;
    read.await.unwrap().unwrap();
}
