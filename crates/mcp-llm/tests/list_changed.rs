//! A server's `notifications/tools/list_changed` through a real `Client`
//! (a scripted server peer over the in-memory transport): the definitions'
//! version moves, a call by a name the server no longer offers gets a
//! tool-result error saying the tools changed (nothing is sent), and
//! definitions made again route the new tools.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::time::Duration;

use mcp_client::testing::memory_pair;
use mcp_client::{Client, ClientOptions, VersionPreference};
use mcp_llm::{CallStatus, Clients, Dialect, RequestOptions, Toolset, ToolsetOptions};
use mcp_types::JsonRpcMessage;
use serde_json::{Value, json};

fn tools(names: &[&str]) -> Value {
    let list: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    json!({ "tools": list })
}

#[tokio::test]
async fn a_stale_name_after_list_changed_is_a_tool_result_error() {
    let (transport, mut peer) = memory_pair();
    let (go, changed) = tokio::sync::oneshot::channel::<()>();
    let (seen, mut calls) = tokio::sync::mpsc::unbounded_channel::<String>();
    let server = tokio::spawn(async move {
        peer.handshake("2025-11-25", json!({"tools": {"listChanged": true}}))
            .await;
        let list = peer.expect_request("tools/list").await;
        peer.respond(&list.id, tools(&["old", "kept"])).await;
        changed.await.unwrap();
        peer.notify("notifications/tools/list_changed", None).await;
        while let Some(message) = peer.next().await {
            if let JsonRpcMessage::Request(r) = message {
                match r.method.as_str() {
                    "tools/list" => peer.respond(&r.id, tools(&["kept", "new"])).await,
                    "tools/call" => {
                        let params = r.params.clone().unwrap_or_default();
                        let name = params["name"].as_str().unwrap().to_owned();
                        seen.send(name.clone()).unwrap();
                        peer.respond(
                            &r.id,
                            json!({"content": [{"type": "text", "text": format!("ran {name}")}]}),
                        )
                        .await;
                    }
                    _ => {}
                }
            }
        }
    });
    let options =
        ClientOptions::new("t", "1").with_version_preference(VersionPreference::Handshake);
    let client = Client::connect(transport, options).await.unwrap();
    let source = Clients::one("srv", client.clone());
    let set = Toolset::from_source(&source, ToolsetOptions::new(Dialect::OpenAiChat))
        .await
        .unwrap();
    assert_eq!(set.definitions().len(), 2);
    assert!(set.is_current(&source).await);

    go.send(()).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while set.is_current(&source).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the version never moved"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let call = |name: &str| json!({"id": "c", "type": "function", "function": {"name": name, "arguments": "{}"}});
    let out = set
        .call(&source, &call("old"), RequestOptions::default())
        .await;
    assert_eq!(out.status, CallStatus::ToolsChanged, "{:?}", out.result);
    assert!(
        out.result.text().contains("tools changed"),
        "{}",
        out.result.text()
    );
    // A name that is still there, unchanged, still works from the old definitions.
    let out = set
        .call(&source, &call("kept"), RequestOptions::default())
        .await;
    assert_eq!(out.status, CallStatus::Ok, "{:?}", out.result);
    // `new` was never offered by these definitions: the tools changed.
    let out = set
        .call(&source, &call("new"), RequestOptions::default())
        .await;
    assert_eq!(out.status, CallStatus::ToolsChanged, "{:?}", out.result);

    let fresh = Toolset::from_source(&source, ToolsetOptions::new(Dialect::OpenAiChat))
        .await
        .unwrap();
    assert_ne!(fresh.version(), set.version());
    let out = fresh
        .call(&source, &call("new"), RequestOptions::default())
        .await;
    assert_eq!(out.status, CallStatus::Ok, "{:?}", out.result);
    assert_eq!(out.result.text(), "ran new");

    client.close().await.unwrap();
    server.abort();
    let mut sent = Vec::new();
    while let Ok(name) = calls.try_recv() {
        sent.push(name);
    }
    assert_eq!(sent, ["kept", "new"], "the stale names were never sent");
}
