//! `tools/call`: isError is a successful call; argument and
//! structuredContent validation against the tool's schemas.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use mcp_client::{CallOptions, ClientError, RequestOptions, RequestTimeout};
use serde_json::json;
use support::*;

fn tools_page() -> serde_json::Value {
    json!({"tools": [
        {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
         "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}},
        {"name": "echo", "inputSchema": {"type": "object"}}
    ]})
}

#[tokio::test]
async fn is_error_is_ok_with_is_error() {
    let (client, mut peer) = connect_full().await;
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool(
                    "echo",
                    json!({"x": 1}).as_object().cloned(),
                    CallOptions::default(),
                )
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    assert_eq!(
        req.params.as_ref().unwrap(),
        &json!({"name": "echo", "arguments": {"x": 1}})
    );
    peer.respond(
        &req.id,
        json!({"content": [{"type": "text", "text": "it broke"}], "isError": true}),
    )
    .await;
    let result = call.await.unwrap().unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.content[0].as_text(), Some("it broke"));
}

/// Lists the tools of [`tools_page`] (the listing argument checks use).
async fn list(client: &mcp_client::Client, peer: &mut mcp_client::testing::MemoryPeer) {
    let listed = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    let list = peer.expect_request("tools/list").await;
    peer.respond(&list.id, tools_page()).await;
    listed.await.unwrap().unwrap();
}

/// Calls `add` with `arguments` and `options`; when the call goes out,
/// answers it and returns the arguments the server got.
async fn call_add(
    client: &mcp_client::Client,
    peer: &mut mcp_client::testing::MemoryPeer,
    arguments: serde_json::Value,
    options: CallOptions,
) -> Result<serde_json::Value, ClientError> {
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("add", arguments, options).await }
    });
    let sent = match tokio::time::timeout(std::time::Duration::from_millis(300), peer.next()).await
    {
        Ok(Some(mcp_types::JsonRpcMessage::Request(req))) => {
            assert_eq!(req.method, "tools/call");
            peer.respond(
                &req.id,
                json!({"content": [], "structuredContent": {"sum": 3}}),
            )
            .await;
            req.params.unwrap()["arguments"].clone()
        }
        Ok(other) => panic!("unexpected {other:?}"),
        Err(_) => serde_json::Value::Null,
    };
    call.await.unwrap().map(|_| sent)
}

/// With the tools listed, arguments that do not match the tool's
/// inputSchema are refused by default, before anything is sent, with the
/// path of each violation and without the values; arguments that match
/// are sent.
#[tokio::test]
async fn invalid_arguments_fail_before_sending() {
    let (client, mut peer) = connect_full().await;
    list(&client, &mut peer).await;
    let err = call_add(
        &client,
        &mut peer,
        json!({"a": "secret-one"}),
        CallOptions::default(),
    )
    .await
    .unwrap_err();
    match &err {
        ClientError::InvalidArguments {
            tool, violations, ..
        } => {
            assert_eq!(tool, "add");
            // `a` is not a number; `b`, required, is missing (at the root).
            let paths: Vec<&str> = violations.iter().map(|v| v.path.as_str()).collect();
            assert_eq!(paths.len(), 2, "{violations:?}");
            assert!(
                paths.contains(&"/a") && paths.contains(&""),
                "{violations:?}"
            );
            assert!(
                violations.iter().any(|v| v.message.contains("\"b\"")),
                "{violations:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains("/a: ") && text.contains("(root): "), "{text}");
    assert!(
        !text.contains("secret-one"),
        "the value is not shown: {text}"
    );
    assert_eq!(err.schema_violations().map(<[_]>::len), Some(2));
    assert!(peer.try_next().is_none(), "tools/call was not sent");

    let sent = call_add(
        &client,
        &mut peer,
        json!({"a": 1, "b": 2}),
        CallOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(sent, json!({"a": 1, "b": 2}), "valid arguments are sent");
}

/// The check can be turned off per call and per client; a tool no current
/// listing has (none yet, not listed, or a `list_changed` since) and a
/// schema that does not compile never refuse a call: the arguments are
/// sent unchecked.
#[tokio::test]
async fn unchecked_arguments_are_sent() {
    let bad = || json!({"a": "one"});
    let (client, mut peer) = connect_full().await;
    // No listing yet: nothing to check against, and none is fetched.
    assert_eq!(
        call_add(&client, &mut peer, bad(), CallOptions::default())
            .await
            .unwrap(),
        bad()
    );
    list(&client, &mut peer).await;
    let off = CallOptions::default().with_validate_arguments(false);
    assert_eq!(
        call_add(&client, &mut peer, bad(), off).await.unwrap(),
        bad(),
        "per call"
    );
    // A list_changed: the schema may have changed, so it is not used.
    peer.notify("notifications/tools/list_changed", None).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while client.cached_tools().is_some() {
        assert!(
            std::time::Instant::now() < deadline,
            "list_changed not seen"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(
        call_add(&client, &mut peer, bad(), CallOptions::default())
            .await
            .unwrap(),
        bad(),
        "stale listing"
    );

    let (client, mut peer) = connect_with(
        legacy_options().with_validate_arguments(false),
        "2025-11-25",
        full_caps(),
    )
    .await;
    list(&client, &mut peer).await;
    assert_eq!(
        call_add(&client, &mut peer, bad(), CallOptions::default())
            .await
            .unwrap(),
        bad(),
        "per client"
    );

    // A schema that does not compile (a `pattern` that is no regular
    // expression) is not a reason to refuse.
    let (client, mut peer) = connect_full().await;
    let listed = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    let list = peer.expect_request("tools/list").await;
    peer.respond(
        &list.id,
        json!({"tools": [{"name": "add", "inputSchema":
            {"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}}]}),
    )
    .await;
    listed.await.unwrap().unwrap();
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool("add", json!({"a": 1}), CallOptions::default())
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    assert_eq!(req.params.unwrap()["arguments"], json!({"a": 1}));
    peer.respond(&req.id, json!({"content": []})).await;
    call.await.unwrap().unwrap();
}

#[tokio::test]
async fn structured_content_is_validated_against_the_output_schema() {
    let (client, mut peer) = connect_full().await;
    let listed = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    let list = peer.expect_request("tools/list").await;
    peer.respond(&list.id, tools_page()).await;
    assert_eq!(listed.await.unwrap().unwrap().len(), 2);
    assert_eq!(client.cached_tools().unwrap().len(), 2);

    for (structured, valid) in [(json!({"sum": 3}), true), (json!({"sum": "three"}), false)] {
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
            json!({"content": [], "structuredContent": structured}),
        )
        .await;
        let outcome = call.await.unwrap();
        if valid {
            assert_eq!(outcome.unwrap().structured_content, Some(json!({"sum": 3})));
        } else {
            assert!(
                matches!(outcome, Err(ClientError::InvalidStructuredContent { .. })),
                "{outcome:?}"
            );
        }
    }

    // Missing structuredContent is invalid too, unless isError.
    for (result, ok) in [
        (json!({"content": []}), false),
        (json!({"content": [], "isError": true}), true),
    ] {
        let call = tokio::spawn({
            let client = client.clone();
            async move {
                client
                    .call_tool("add", json!({"a": 1, "b": 2}), CallOptions::default())
                    .await
            }
        });
        let req = peer.expect_request("tools/call").await;
        peer.respond(&req.id, result).await;
        assert_eq!(call.await.unwrap().is_ok(), ok);
    }

    // Validation can be turned off.
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool(
                    "add",
                    json!({"a": 1, "b": 2}),
                    CallOptions::default().with_validate_output(false),
                )
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(
        &req.id,
        json!({"content": [], "structuredContent": {"sum": "x"}}),
    )
    .await;
    call.await.unwrap().unwrap();
}

#[tokio::test]
async fn protocol_errors_are_server_errors_and_results_decode_by_method() {
    let (client, mut peer) = connect_full().await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("nope", (), CallOptions::default()).await }
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond_error(
        &req.id,
        mcp_types::JsonRpcError::new(mcp_types::ErrorCode::INVALID_PARAMS, "Unknown tool: nope"),
    )
    .await;
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.code(), Some(mcp_types::ErrorCode::INVALID_PARAMS));

    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("echo", (), CallOptions::default()).await }
    });
    let req = peer.expect_request("tools/call").await;
    // (A missing `content` is `[]` in a handshake revision; one of the wrong
    // type is not forgiven.)
    peer.respond(&req.id, json!({"content": "wrong shape"}))
        .await;
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(err, ClientError::Decode { ref method, .. } if method == "tools/call"),
        "{err:?}"
    );
}

#[tokio::test]
async fn generic_request_decodes_by_the_method_sent() {
    use mcp_types::prompts::{GetPrompt, GetPromptRequestParams};
    let (client, mut peer) = connect_full().await;
    let get = tokio::spawn({
        let client = client.clone();
        async move {
            let params = GetPromptRequestParams {
                name: "greet".into(),
                ..Default::default()
            };
            client
                .request::<GetPrompt>(params, Default::default())
                .await
        }
    });
    let req = peer.expect_request("prompts/get").await;
    peer.respond(
        &req.id,
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
    )
    .await;
    let result = get.await.unwrap().unwrap();
    assert_eq!(result.messages.len(), 1);
}

/// The timeout of a `tools/call`: the client's configured one unless the
/// caller set one, by a builder method or by assigning `request.timeout`;
/// default options never replace it with another number.
#[tokio::test(start_paused = true)]
async fn call_timeout_is_the_callers_when_set_in_any_way() {
    use std::time::Duration;
    let short = Duration::from_millis(200);
    let long = Duration::from_secs(3600);
    let assigned = |timeout: RequestTimeout| {
        let mut options = CallOptions::default();
        options.request.timeout = timeout;
        options
    };
    // (client default, options, times out)
    let cases: Vec<(&str, Duration, CallOptions, bool)> = vec![
        (
            "assigned short",
            long,
            assigned(RequestTimeout::After(short)),
            true,
        ),
        (
            "with_timeout short",
            long,
            RequestOptions::default().with_timeout(short).into(),
            true,
        ),
        (
            "untouched: the client default",
            short,
            CallOptions::default(),
            true,
        ),
        (
            "plain request options: the client default",
            short,
            RequestOptions::default().into(),
            true,
        ),
        (
            "default request options, long client default",
            long,
            RequestOptions::default().into(),
            false,
        ),
        (
            "assigned Unlimited: no limit",
            short,
            assigned(RequestTimeout::Unlimited),
            false,
        ),
        (
            "without_timeout",
            short,
            RequestOptions::default().without_timeout().into(),
            false,
        ),
        (
            "assigned long",
            short,
            assigned(RequestTimeout::After(long)),
            false,
        ),
    ];
    for (what, client_default, options, times_out) in cases {
        let (client, mut peer) = connect_with(
            legacy_options().with_request_timeout(client_default),
            "2025-11-25",
            full_caps(),
        )
        .await;
        let call = tokio::spawn({
            let client = client.clone();
            async move { client.call_tool("echo", (), options).await }
        });
        peer.expect_request("tools/call").await;
        // Paused time: this sleeps past the short timeout at once.
        tokio::time::sleep(Duration::from_secs(10)).await;
        if times_out {
            let err = call.await.unwrap().unwrap_err();
            assert!(err.is_timeout(), "{what}: {err:?}");
        } else {
            assert!(!call.is_finished(), "{what}: the call ended");
            call.abort();
        }
    }
}
