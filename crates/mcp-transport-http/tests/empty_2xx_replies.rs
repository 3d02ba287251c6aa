//! B06: any 2xx (empty, 204, junk JSON, odd Content-Type) completes a
//! notification POST; the next tools/list still works. A non-2xx fails only
//! that send.
//!
//! Catalogue cases: B06.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use common::*;
use fault_http::{FaultServer, Reply, init_result, tools_result};
use mcp_transport::Transport;
use serde_json::json;

async fn play(reply: fn() -> Reply) {
    let server = FaultServer::start(move |r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
            Some("tools/list") => Reply::json(tools_result(&id)),
            Some("notifications/initialized") => reply(),
            _ => Reply::status(405),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    initialize(&t).await.unwrap();
    t.notify("notifications/initialized", None)
        .await
        .expect("any 2xx is delivered");
    let tools = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
    t.close().await.unwrap();
}

#[tokio::test]
async fn accepted_202_empty() {
    play(|| Reply::status(202)).await;
}

#[tokio::test]
async fn ok_200_empty() {
    play(|| Reply::status(200)).await;
}

#[tokio::test]
async fn no_content_204() {
    play(|| Reply::status(204)).await;
}

#[tokio::test]
async fn ok_200_jsonrpc_junk() {
    play(|| Reply::json(r#"{"jsonrpc":"2.0","id":null}"#)).await;
}

#[tokio::test]
async fn accepted_202_with_json_body() {
    play(|| Reply::json(r#"{"accepted":true}"#).with_status(202)).await;
}

#[tokio::test]
async fn non_2xx_fails_only_that_send() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("tools/list") => Reply::json(tools_result(&id)),
            _ => Reply::status(500).body("oops"),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t
        .notify("notifications/roots/list_changed", None)
        .await
        .unwrap_err();
    assert_eq!(err.http_status(), Some(500));
    assert!(err.to_string().contains("oops"), "{err}");
    assert!(t.request("tools/list", None, opts()).await.is_ok());
}

/// A 2xx reply to a request that holds no response (empty, `{}`, blank,
/// another message, no Content-Type) fails that request saying so, as a
/// typed protocol error: not "connection closed", which is not what
/// happened. The connection lives on.
#[tokio::test]
async fn request_reply_without_response_says_so() {
    type Make = fn() -> Reply;
    let replies: [(&str, Make); 6] = [
        ("200 empty", || Reply::status(200)),
        ("200 empty json", || Reply::json("")),
        ("200 {}", || Reply::json("{}")),
        ("200 blank json", || Reply::json(" \r\n")),
        ("200 another message", || {
            Reply::json(
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
            )
        }),
        ("202 body without type", || Reply::status(202).body("ok")),
    ];
    for (name, reply) in replies {
        let server = FaultServer::start(move |r| {
            let id = r.rpc_id().unwrap_or_default();
            match r.rpc_method().as_deref() {
                Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
                Some("tools/list") => reply(),
                Some("ping") => {
                    Reply::json(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#))
                }
                _ => Reply::status(202),
            }
        })
        .await
        .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        initialize(&t).await.unwrap();
        let err = t.request("tools/list", None, opts()).await.unwrap_err();
        assert!(
            matches!(
                err,
                mcp_transport::TransportError::Protocol {
                    request: Some(_),
                    ..
                }
            ),
            "{name}: {err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("held no response") && !text.contains("connection closed"),
            "{name}: {text}"
        );
        assert!(t.is_connected(), "{name}");
        assert!(t.request("ping", None, opts()).await.is_ok(), "{name}");
        t.close().await.unwrap();
    }
}
