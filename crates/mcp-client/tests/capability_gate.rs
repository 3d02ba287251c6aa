//! A method whose server capability is missing fails locally, without a
//! round trip, unless strictness is turned off.

mod support;

use mcp_client::{CallOptions, ClientError};
use mcp_types::logging::LoggingLevel;
use serde_json::json;
use support::*;

#[tokio::test]
async fn missing_capabilities_fail_without_a_round_trip() {
    let (client, mut peer) =
        connect_with(legacy_options(), "2025-11-25", json!({"tools": {}})).await;
    let cases = [
        client
            .list_prompts(None, Default::default())
            .await
            .unwrap_err(),
        client
            .list_resources(None, Default::default())
            .await
            .unwrap_err(),
        client
            .read_resource("file:///x", Default::default())
            .await
            .unwrap_err(),
        client
            .subscribe("file:///x", Default::default())
            .await
            .unwrap_err(),
        client
            .set_logging_level(LoggingLevel::Info, Default::default())
            .await
            .unwrap_err(),
        client.get_task("t1", Default::default()).await.unwrap_err(),
        client
            .call_tool_as_task("t", (), Default::default(), Default::default())
            .await
            .unwrap_err(),
    ];
    for err in &cases {
        assert!(err.is_capability_not_supported(), "{err:?}");
    }
    match &cases[0] {
        ClientError::CapabilityNotSupported {
            capability, method, ..
        } => {
            assert_eq!(*capability, "prompts");
            assert_eq!(method, "prompts/list");
        }
        other => panic!("{other:?}"),
    }
    assert!(peer.try_next().is_none(), "nothing was sent");
    // A declared capability goes through.
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("echo", (), CallOptions::default()).await }
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(&req.id, json!({"content": []})).await;
    call.await.unwrap().unwrap();
}

#[tokio::test]
async fn resources_without_subscribe_refuse_subscribe() {
    let (client, mut peer) = connect_with(
        legacy_options(),
        "2025-11-25",
        json!({"resources": {"subscribe": false}}),
    )
    .await;
    let err = client
        .unsubscribe("file:///a", Default::default())
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        ClientError::CapabilityNotSupported {
            capability: "resources.subscribe",
            ..
        }
    ));
    assert!(peer.try_next().is_none());
}

#[tokio::test]
async fn lenient_mode_sends_anyway() {
    let options = legacy_options().with_strict_capabilities(false);
    let (client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;
    let list = tokio::spawn({
        let client = client.clone();
        async move { client.list_prompts(None, Default::default()).await }
    });
    let req = peer.expect_request("prompts/list").await;
    peer.respond_error(
        &req.id,
        mcp_types::JsonRpcError::method_not_found("prompts/list"),
    )
    .await;
    let err = list.await.unwrap().unwrap_err();
    assert!(err.is_method_not_found(), "{err:?}");
}

#[tokio::test]
async fn completion_needs_no_flag_in_2024_11_05() {
    let (client, mut peer) =
        connect_with(legacy_options(), "2024-11-05", json!({"prompts": {}})).await;
    let complete = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .complete(
                    serde_json::from_value(json!({
                        "ref": {"type": "ref/prompt", "name": "p"},
                        "argument": {"name": "a", "value": "x"}
                    }))
                    .unwrap(),
                    Default::default(),
                )
                .await
        }
    });
    let req = peer.expect_request("completion/complete").await;
    assert_eq!(req.params.as_ref().unwrap()["ref"]["type"], "ref/prompt");
    peer.respond(
        &req.id,
        json!({"completion": {"values": ["xa", "xb"], "hasMore": false}}),
    )
    .await;
    let result = complete.await.unwrap().unwrap();
    assert_eq!(result.completion.values, vec!["xa", "xb"]);
}
