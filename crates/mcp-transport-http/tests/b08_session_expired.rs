//! B08: `Mcp-Session-Id` is stored from the initialize reply (any header
//! case) and sent on later requests; a 404 (or a 400 saying the session is
//! unknown) to a request that carried it drops it and is `SessionExpired`;
//! a 404 without a session id is a plain HTTP error.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use fault_http::{FaultServer, Reply, init_result, tools_result};
use mcp_transport::Transport;
use serde_json::json;

fn session_server(expired: fn() -> Reply) -> impl Fn(&fault_http::Recorded) -> Reply {
    let inits = Arc::new(AtomicUsize::new(0));
    move |r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("initialize") => {
                assert_eq!(
                    r.header("mcp-session-id"),
                    None,
                    "initialize never carries a session"
                );
                let n = inits.fetch_add(1, Ordering::SeqCst) + 1;
                Reply::json(init_result(&id, "2025-06-18"))
                    .header("mcp-session-id", &format!("s-{n}"))
            }
            Some("tools/list") if r.header("mcp-session-id") == Some("s-2") => {
                Reply::json(tools_result(&id))
            }
            Some("tools/list") => expired(),
            _ => Reply::status(202),
        }
    }
}

async fn expire_then_reinitialize(expired: fn() -> Reply) {
    let server = FaultServer::start(session_server(expired)).await.unwrap();
    let t = streamable(&server.url("/mcp")).await;
    initialize(&t).await.unwrap();
    assert_eq!(t.session_id().as_deref(), Some("s-1"));
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert!(err.is_session_expired(), "{err:?}");
    assert_eq!(t.session_id(), None, "the stale id is dropped");
    // What the client layer does: initialize again, then retry once.
    initialize(&t).await.unwrap();
    assert_eq!(t.session_id().as_deref(), Some("s-2"));
    assert_eq!(
        t.request("tools/list", None, opts())
            .await
            .unwrap()
            .to_value()
            .unwrap(),
        json!({"tools": []})
    );
    let sent: Vec<_> = server
        .requests()
        .iter()
        .filter(|r| r.is_call("tools/list"))
        .map(|r| r.header("mcp-session-id").map(str::to_owned))
        .collect();
    assert_eq!(sent, [Some("s-1".to_owned()), Some("s-2".to_owned())]);
}

#[tokio::test]
async fn not_found_404() {
    expire_then_reinitialize(|| {
        Reply::json(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}"#,
        )
        .with_status(404)
    })
    .await;
}

#[tokio::test]
async fn bad_request_400_saying_session_unknown() {
    expire_then_reinitialize(|| {
        Reply::status(400).body("Bad Request: No valid session ID provided")
    })
    .await;
}

#[tokio::test]
async fn not_found_without_session_is_a_plain_error() {
    let server = FaultServer::start(|_| Reply::status(404).body("no such endpoint"))
        .await
        .unwrap();
    let t = streamable(&server.url("/wrong")).await;
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert!(!err.is_session_expired());
    assert_eq!(err.http_status(), Some(404));
}
