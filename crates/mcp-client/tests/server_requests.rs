//! Server-to-client requests: ping, roots, sampling, elicitation, unknown
//! methods; capability checks; concurrency of handlers.

mod support;

use std::sync::Arc;

use mcp_types::{ErrorCode, JsonRpcMessage, RequestId};
use serde_json::{Value, json};
use support::*;

async fn ask(
    peer: &mut mcp_client::testing::MemoryPeer,
    id: i64,
    method: &str,
    params: Option<Value>,
) -> Result<Value, mcp_types::JsonRpcError> {
    peer.request(id, method, params).await;
    peer.expect_response(&RequestId::from(id)).await.outcome
}

fn sampling_params() -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10})
}

#[tokio::test]
async fn everything_declared_is_answered_by_the_handler() {
    let handler = recorder();
    let options = legacy_options()
        .with_handler(handler.clone())
        .with_roots(true)
        .with_sampling(true)
        .with_elicitation(mcp_client::ElicitationModes::form_and_url());
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;

    assert_eq!(ask(&mut peer, 1, "ping", None).await, Ok(json!({})));
    let roots = ask(&mut peer, 2, "roots/list", None).await.unwrap();
    assert_eq!(roots["roots"][0]["uri"], "file:///work");
    let msg = ask(
        &mut peer,
        3,
        "sampling/createMessage",
        Some(sampling_params()),
    )
    .await
    .unwrap();
    assert_eq!(msg["model"], "test-model");
    assert_eq!(msg["content"]["text"], "hello");
    let form = ask(
        &mut peer,
        4,
        "elicitation/create",
        Some(json!({"message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}})),
    )
    .await
    .unwrap();
    assert_eq!(
        form,
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    let url = ask(
        &mut peer,
        5,
        "elicitation/create",
        Some(json!({"mode": "url", "message": "log in", "url": "https://example.com/x", "elicitationId": "e1"})),
    )
    .await
    .unwrap();
    assert_eq!(url, json!({"action": "accept"}));
    let unknown = ask(&mut peer, 6, "foo/bar", None).await.unwrap_err();
    assert_eq!(unknown.code, ErrorCode::METHOD_NOT_FOUND);
    assert_eq!(
        handler.seen(),
        vec![
            "roots/list",
            "sampling/createMessage",
            "elicit/form",
            "elicit/url https://example.com/x"
        ]
    );
}

#[tokio::test]
async fn undeclared_capabilities_get_method_not_found() {
    let handler = recorder();
    let options = legacy_options().with_handler(handler.clone());
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;
    for (id, method, params) in [
        (1, "roots/list", None),
        (2, "sampling/createMessage", Some(sampling_params())),
        (
            3,
            "elicitation/create",
            Some(json!({"message": "m", "requestedSchema": {"type": "object"}})),
        ),
    ] {
        let err = ask(&mut peer, id, method, params).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::METHOD_NOT_FOUND, "{method}");
    }
    assert!(handler.seen().is_empty(), "the handler was not called");
    assert_eq!(ask(&mut peer, 4, "ping", None).await, Ok(json!({})));
}

#[tokio::test]
async fn undeclared_elicitation_mode_is_invalid_params() {
    let handler = recorder();
    let options = legacy_options()
        .with_handler(handler.clone())
        .with_elicitation(mcp_client::ElicitationModes::form());
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;
    let err = ask(
        &mut peer,
        1,
        "elicitation/create",
        Some(json!({"mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "e"})),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    let err = ask(
        &mut peer,
        2,
        "elicitation/create",
        Some(json!({"mode": "telepathy", "message": "m"})),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    // Form mode (declared) still works.
    ask(
        &mut peer,
        3,
        "elicitation/create",
        Some(json!({"message": "m", "requestedSchema": {"type": "object"}})),
    )
    .await
    .unwrap();
    assert_eq!(handler.seen(), vec!["elicit/form"]);
}

#[tokio::test]
async fn bad_params_are_invalid_params() {
    let options = legacy_options()
        .with_handler(recorder())
        .with_sampling(false);
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;
    let err = ask(
        &mut peer,
        1,
        "sampling/createMessage",
        Some(json!({"messages": "nope"})),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    // tools in sampling were not declared
    let mut p = sampling_params();
    p["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    let err = ask(&mut peer, 2, "sampling/createMessage", Some(p))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn tool_use_without_tool_result_is_invalid_params() {
    let handler = recorder();
    let options = legacy_options()
        .with_handler(handler.clone())
        .with_sampling(true);
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;
    let params = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "weather?"}},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "weather", "input": {}}]},
            {"role": "user", "content": [{"type": "text", "text": "no result here"}]}
        ],
        "maxTokens": 10,
        "tools": [{"name": "weather", "inputSchema": {"type": "object"}}]
    });
    let err = ask(&mut peer, 1, "sampling/createMessage", Some(params))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    let ok = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "weather?"}},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "weather", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "u1", "content": [{"type": "text", "text": "sunny"}]}]}
        ],
        "maxTokens": 10,
        "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
        "toolChoice": {"mode": "auto"}
    });
    let result = ask(&mut peer, 2, "sampling/createMessage", Some(ok))
        .await
        .unwrap();
    assert_eq!(result["content"]["text"], "used tools");
}

#[tokio::test]
async fn slow_sampling_does_not_block_ping() {
    let handler = Arc::new(Recorder {
        sampling_delay_ms: 2_000,
        ..Default::default()
    });
    let options = legacy_options()
        .with_handler(handler.clone())
        .with_sampling(false);
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({})).await;
    peer.request(1, "sampling/createMessage", Some(sampling_params()))
        .await;
    peer.request(2, "ping", None).await;
    let first = peer.next().await;
    assert!(
        matches!(&first, Some(JsonRpcMessage::Response(r)) if r.id == Some(RequestId::from(2))),
        "ping is answered first: {first:?}"
    );
    let second = peer.next().await;
    assert!(
        matches!(&second, Some(JsonRpcMessage::Response(r)) if r.id == Some(RequestId::from(1)))
    );
}

#[tokio::test]
async fn garbage_and_unknown_notifications_do_not_kill_the_loop() {
    let handler = recorder();
    let options = legacy_options().with_handler(handler.clone());
    let (client, mut peer) = connect_with(options, "2025-11-25", json!({"tools": {}})).await;
    peer.send_garbage().await;
    peer.notify("notifications/whatever", Some(json!({"x": 1})))
        .await;
    peer.notify("notifications/message", Some(json!({"level": 5})))
        .await; // bad params
    peer.request("str-id", "ping", None).await;
    assert_eq!(
        peer.expect_response(&RequestId::from("str-id"))
            .await
            .outcome,
        Ok(json!({}))
    );
    assert!(eventually(|| handler.seen().len() >= 2).await);
    assert_eq!(
        handler.seen(),
        vec![
            "unknown notifications/whatever",
            "unknown notifications/message"
        ]
    );
    // Requests still work.
    let list = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None, Default::default()).await }
    });
    let req = peer.expect_request("tools/list").await;
    peer.respond(&req.id, json!({"tools": []})).await;
    list.await.unwrap().unwrap();
}
