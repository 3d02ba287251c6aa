//! `tools/call` arguments: anything that serializes to a JSON object is
//! sent as `arguments`; nothing (`()`, `None`, `null`) sends none; a
//! non-object is refused with a typed error before anything is sent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_client::{Client, ClientError, RequestOptions};
use serde::Serialize;
use serde_json::{Map, Value, json};
use support::*;

#[derive(Serialize)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Serialize)]
struct Borrowed<'a> {
    message: &'a str,
}

/// Calls `echo` with `arguments` and returns the `arguments` member the
/// server received (`None` when absent).
async fn sent_arguments(
    client: &Client,
    peer: &mut mcp_client::testing::MemoryPeer,
    arguments: impl Serialize + Send + 'static,
) -> Option<Value> {
    let call = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .call_tool("echo", arguments, RequestOptions::default())
                .await
        }
    });
    let req = peer.expect_request("tools/call").await;
    peer.respond(&req.id, json!({"content": []})).await;
    call.await.unwrap().expect("call");
    let params = req.params.expect("params");
    assert_eq!(params["name"], "echo");
    params.get("arguments").cloned()
}

#[tokio::test]
async fn objects_of_every_shape_are_sent_as_arguments() {
    let (client, mut peer) = connect_full().await;
    let expected = json!({"a": 2, "b": 3});
    let map: Map<String, Value> = expected.as_object().cloned().unwrap();
    let btree: BTreeMap<&str, i64> = BTreeMap::from([("a", 2), ("b", 3)]);
    let got = [
        (
            "struct",
            sent_arguments(&client, &mut peer, Add { a: 2, b: 3 }).await,
        ),
        (
            "json! object",
            sent_arguments(&client, &mut peer, expected.clone()).await,
        ),
        (
            "serde_json map",
            sent_arguments(&client, &mut peer, map.clone()).await,
        ),
        (
            "Some(map)",
            sent_arguments(&client, &mut peer, Some(map)).await,
        ),
        ("BTreeMap", sent_arguments(&client, &mut peer, btree).await),
    ];
    for (what, sent) in got {
        assert_eq!(sent.as_ref(), Some(&expected), "{what}");
    }
    let message = String::from("hi");
    let call = client.call_tool(
        "echo",
        Borrowed { message: &message },
        RequestOptions::default(),
    );
    let answer = async {
        let req = peer.expect_request("tools/call").await;
        assert_eq!(req.params.unwrap()["arguments"], json!({"message": "hi"}));
        peer.respond(&req.id, json!({"content": []})).await;
    };
    let (result, ()) = tokio::join!(call, answer);
    result.expect("a struct borrowing its fields");
    // Raw JSON is sent as it is, whitespace around it or not.
    let raw = serde_json::value::RawValue::from_string(" {\"a\": 2, \"b\": 3}".into()).unwrap();
    let sent = sent_arguments(&client, &mut peer, raw).await;
    assert_eq!(sent.as_ref(), Some(&expected), "RawValue");
    let empty = sent_arguments(&client, &mut peer, json!({})).await;
    assert_eq!(empty, Some(json!({})), "an empty object is still sent");
}

#[tokio::test]
async fn nothing_sends_no_arguments() {
    let (client, mut peer) = connect_full().await;
    assert_eq!(sent_arguments(&client, &mut peer, ()).await, None, "()");
    assert_eq!(
        sent_arguments(&client, &mut peer, None::<Map<String, Value>>).await,
        None,
        "None"
    );
    assert_eq!(
        sent_arguments(&client, &mut peer, Value::Null).await,
        None,
        "null"
    );
}

/// A non-object is refused with `ArgumentsNotAnObject` naming its type,
/// and nothing reaches the transport (it is not taken for "no arguments").
#[tokio::test]
async fn a_non_object_is_refused_before_anything_is_sent() {
    let (client, mut peer) = connect_full().await;
    let cases: Vec<(&str, Value, &str)> = vec![
        ("array", json!([1, 2]), "array"),
        ("string", json!("a=1"), "string"),
        ("number", json!(3), "number"),
        ("boolean", json!(true), "boolean"),
    ];
    for (what, arguments, found_type) in cases {
        let err = client
            .call_tool("echo", arguments, RequestOptions::default())
            .await
            .unwrap_err();
        match &err {
            ClientError::ArgumentsNotAnObject { tool, found, .. } => {
                assert_eq!(tool, "echo", "{what}");
                assert_eq!(*found, found_type, "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        assert!(err.to_string().contains(found_type), "{what}: {err}");
    }
    // Typed values that are not objects are refused the same way, and so
    // is the task-augmented call.
    let err = client
        .call_tool("echo", vec![1, 2], RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            ClientError::ArgumentsNotAnObject { found: "array", .. }
        ),
        "{err:?}"
    );
    let err = client
        .call_tool_as_task(
            "echo",
            "text",
            Default::default(),
            RequestOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            ClientError::ArgumentsNotAnObject {
                found: "string",
                ..
            }
        ),
        "{err:?}"
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(peer.try_next().is_none(), "nothing was sent");
}
