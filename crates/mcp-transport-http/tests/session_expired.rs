//! B08: `Mcp-Session-Id` is stored from the initialize reply (any header
//! case) and sent on later requests; a 404 (or a 400 saying the session is
//! unknown) to a request that carried it drops it and is `SessionExpired`;
//! a 404 without a session id is a plain HTTP error.
//!
//! Catalogue cases: B08.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

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

/// After an expiry, the new session gets its own GET stream (found by a
/// hostile server: the listener took the refused reconnection of the old
/// session's stream for "no GET stream offered" and never listened again,
/// so everything the server sent on the stream was lost for the rest of the
/// connection). The old stream's reconnection is refused with the old id
/// (404); or the POST's 404 drops the id first, and then the old listener
/// does not reconnect at all (it went out without an id, outside any
/// session, which a lenient server would have served).
async fn new_session_listens_again(reconnect_with_old_id: bool) {
    let streams = Arc::new(std::sync::Mutex::new(Vec::new()));
    let inits = Arc::new(AtomicUsize::new(0));
    let s1_gets = Arc::new(AtomicUsize::new(0));
    let server = FaultServer::start({
        let streams = streams.clone();
        move |r| {
            let id = r.rpc_id().unwrap_or_default();
            let session = r.header("mcp-session-id").map(str::to_owned);
            if r.method == http::Method::GET {
                return match session.as_deref() {
                    Some("s-2") => {
                        let (reply, tx) = Reply::sse_channel();
                        streams.lock().unwrap().push(tx);
                        reply
                    }
                    // The first stream of s-1 ends at once (a restart).
                    Some("s-1") if s1_gets.fetch_add(1, Ordering::SeqCst) == 0 => {
                        Reply::sse(vec![])
                    }
                    Some(_) => Reply::status(404),
                    None => Reply::status(400),
                };
            }
            match r.rpc_method().as_deref() {
                Some("initialize") => {
                    let n = inits.fetch_add(1, Ordering::SeqCst) + 1;
                    Reply::json(init_result(&id, "2025-06-18"))
                        .header("mcp-session-id", &format!("s-{n}"))
                }
                Some("tools/list") if session.as_deref() == Some("s-2") => {
                    Reply::json(tools_result(&id))
                }
                Some("tools/list") => Reply::status(404),
                _ => Reply::status(202),
            }
        }
    })
    .await
    .unwrap();
    let gets = |session: Option<&str>| {
        server
            .requests()
            .iter()
            .filter(|r| r.method == http::Method::GET && r.header("mcp-session-id") == session)
            .count()
    };
    let (t, mut events) = initialized(&server.url("/mcp")).await;
    if reconnect_with_old_id {
        assert!(
            eventually(|| gets(Some("s-1")) >= 2).await,
            "no reconnection with s-1"
        );
    }
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert!(err.is_session_expired(), "{err:?}");
    // Let the old listener take its refusal, or notice its session ended,
    // and stop.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(gets(None), 0, "a GET went out without a session id");
    // The client layer's recovery: initialize again, then initialized.
    initialize(&t).await.unwrap();
    assert_eq!(t.session_id().as_deref(), Some("s-2"));
    t.notify("notifications/initialized", None).await.unwrap();
    assert!(
        eventually(|| !streams.lock().unwrap().is_empty()).await,
        "no GET stream opened with s-2"
    );
    let tx = streams.lock().unwrap()[0].clone();
    tx.send(fault_http::sse_data(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
    ))
    .unwrap();
    let n = next_notification(&mut events, "the notification on s-2's stream").await;
    assert_eq!(n.method, "notifications/tools/list_changed");
    t.close().await.unwrap();
}

#[tokio::test]
async fn new_session_listens_again_after_get_404_with_the_old_id() {
    new_session_listens_again(true).await;
}

#[tokio::test]
async fn new_session_listens_again_and_no_get_goes_out_without_an_id() {
    new_session_listens_again(false).await;
}
