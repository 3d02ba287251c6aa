//! mcp-client built without its default `schema-validation` feature: tool
//! schemas are not enforced (no `jsonschema` is built), and everything else
//! a tool call does still works, including the one structuredContent check
//! that needs no schema.
//!
//! Only a build without the feature compiles these tests:
//! `cargo test -p mcpio-client --no-default-features --features test-util
//! --test without_schema_validation` (`cargo xtask test` runs it).
#![cfg(not(feature = "schema-validation"))]

mod support;

use mcp_client::{CallOptions, ClientError};
use serde_json::json;
use support::*;

fn tools_page() -> serde_json::Value {
    json!({"tools": [
        {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
         "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}}
    ]})
}

/// Arguments the input schema refuses are sent anyway, though the tool is
/// listed and argument checks are on (the default): there is no validator
/// to ask.
#[tokio::test]
async fn arguments_are_not_validated() {
    let (client, mut peer) = connect_full().await;
    let listed = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    let list = peer.expect_request("tools/list").await;
    peer.respond(&list.id, tools_page()).await;
    assert_eq!(listed.await.unwrap().unwrap().len(), 1);
    let opts = CallOptions::default();
    assert!(
        opts.validate_arguments,
        "on by default, with nothing to check"
    );
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("add", json!({"a": "one"}), opts).await }
    });
    let req = peer.expect_request("tools/call").await;
    assert_eq!(
        req.params.as_ref().unwrap(),
        &json!({"name": "add", "arguments": {"a": "one"}})
    );
    peer.respond(
        &req.id,
        json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}}),
    )
    .await;
    let result = call.await.unwrap().unwrap();
    assert_eq!(result.structured_content, Some(json!({"sum": 3})));
    assert_eq!(result.content[0].as_text(), Some("3"));
}

/// structuredContent the output schema refuses is returned as it came; a
/// result without the structuredContent its tool declares is still refused
/// (that check reads the tool's listing, not the schema), and `isError`
/// results pass.
#[tokio::test]
async fn structured_content_is_not_validated_but_must_be_present() {
    let (client, mut peer) = connect_full().await;
    let listed = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    let list = peer.expect_request("tools/list").await;
    peer.respond(&list.id, tools_page()).await;
    assert_eq!(listed.await.unwrap().unwrap().len(), 1);

    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool("add", json!({"a": 1, "b": 2}), CallOptions::default())
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(
        &req.id,
        json!({"content": [], "structuredContent": {"sum": "three"}}),
    )
    .await;
    let result = call.await.unwrap().unwrap();
    assert_eq!(result.structured_content, Some(json!({"sum": "three"})));

    for (result, refused) in [
        (json!({"content": []}), true),
        (json!({"content": [], "isError": true}), false),
    ] {
        let call = tokio::spawn({
            let client = client.clone();
            async move { client.call_tool("add", (), CallOptions::default()).await }
        });
        let req = peer.expect_request("tools/call").await;
        peer.respond(&req.id, result).await;
        let outcome = call.await.unwrap();
        if refused {
            assert!(
                matches!(outcome, Err(ClientError::InvalidStructuredContent { .. })),
                "{outcome:?}"
            );
        } else {
            assert_eq!(outcome.unwrap().is_error, Some(true));
        }
    }
}
