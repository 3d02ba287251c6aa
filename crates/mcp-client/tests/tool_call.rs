//! `tools/call`: isError is a successful call; argument and
//! structuredContent validation against the tool's schemas.

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

#[tokio::test]
async fn invalid_arguments_fail_before_sending() {
    let (client, mut peer) = connect_full().await;
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            let opts = CallOptions::default().with_validate_arguments(true);
            client
                .call_tool("add", json!({"a": "one"}).as_object().cloned(), opts)
                .await
        }
    });
    // The tool is not cached yet: the client lists tools first.
    let list = peer.expect_request("tools/list").await;
    peer.respond(&list.id, tools_page()).await;
    let err = call.await.unwrap().unwrap_err();
    match err {
        ClientError::InvalidArguments { tool, errors, .. } => {
            assert_eq!(tool, "add");
            assert_eq!(errors.len(), 2, "{errors:?}"); // a is not a number, b missing
        }
        other => panic!("{other:?}"),
    }
    assert!(peer.try_next().is_none(), "tools/call was not sent");
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
                let opts = CallOptions::default().with_validate_arguments(true);
                client
                    .call_tool("add", json!({"a": 1, "b": 2}).as_object().cloned(), opts)
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
            async move { client.call_tool("add", (), CallOptions::default()).await }
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
                    (),
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
    // (A missing `content` is `[]` in the handshake era; one of the wrong
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
