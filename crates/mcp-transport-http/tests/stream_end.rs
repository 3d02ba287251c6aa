//! B10: (A) a POST SSE reply that ends before the response, with no event
//! id, fails the request promptly with "No response received"; (B) a
//! result on a stream that then stays open is delivered at once. Plus: with
//! event ids, the request resumes with GET + `Last-Event-ID`.
//!
//! Catalogue cases: B10.

mod common;

use std::time::{Duration, Instant};

use common::*;
use fault_http::{FaultServer, Part, Reply, sse_data};
use http::Method;
use mcp_transport::Transport;
use serde_json::json;

#[tokio::test]
async fn a_stream_closed_before_the_response_fails_promptly() {
    for abort in [false, true] {
        let server = FaultServer::start(move |_| {
            let mut parts = vec![Part::bytes(
                "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t1\",\"progress\":1}}\n\n",
            )];
            if abort {
                parts.push(Part::Abort);
            }
            Reply::sse(parts)
        })
        .await
        .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        let start = Instant::now();
        let err = t
            .request(
                "tools/call",
                None,
                opts().with_timeout(Duration::from_secs(60)),
            )
            .await
            .unwrap_err();
        assert!(start.elapsed() < PROMPT);
        assert!(err.is_closed(), "{err:?}");
        assert!(
            err.to_string()
                .contains("No response received for request ID 0"),
            "{err}"
        );
        assert_eq!(server.count(&Method::GET), 0, "no id: no resumption");
        assert!(t.is_connected(), "the connection survives");
    }
}

#[tokio::test]
async fn b_result_on_a_stream_left_open_is_delivered_at_once() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::sse(vec![
            sse_data(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#
            )),
            Part::Pause(Duration::from_secs(120)),
        ])
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let start = Instant::now();
    let result = t
        .request("tools/call", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert!(start.elapsed() < PROMPT);
    assert_eq!(result, json!({"content": []}));
}

#[tokio::test]
async fn with_event_ids_the_request_resumes_via_get() {
    let server = FaultServer::start(|r| {
        if r.method == Method::GET {
            return Reply::sse(vec![Part::bytes(
                "id: e-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"resumed\":true}}\n\n",
            )]);
        }
        Reply::sse(vec![
            Part::bytes("id: e-1\nretry: 1\ndata:\n\n"),
            Part::Abort,
        ])
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let result = t
        .request("tools/call", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(result, json!({"resumed": true}));
    let get = server
        .requests()
        .into_iter()
        .find(|r| r.method == Method::GET)
        .unwrap();
    assert_eq!(get.header("last-event-id"), Some("e-1"));
    assert_eq!(get.header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn resumption_gives_up_after_the_retry_cap() {
    let server = FaultServer::start(|r| {
        if r.method == Method::GET {
            return Reply::status(503);
        }
        Reply::sse(vec![Part::bytes("id: e-1\ndata:\n\n")])
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t.request("tools/call", None, opts()).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("No response received for request ID 0"),
        "{err}"
    );
    assert_eq!(server.count(&Method::GET), 3, "max_retries = 3");
}

#[tokio::test]
async fn priming_events_alone_are_no_progress_and_resumption_stops() {
    // Every stream (the POST reply and each resumption GET) sends only a
    // priming event and ends: the client must run out of attempts, not
    // reconnect forever because "an event arrived".
    let server = FaultServer::start(|r| {
        if r.method == Method::GET {
            return Reply::sse(vec![Part::bytes("id: e-2\nretry: 1\ndata:\n\n")]);
        }
        Reply::sse(vec![Part::bytes("id: e-1\nretry: 1\ndata:\n\n")])
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t.request("tools/call", None, opts()).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("No response received for request ID 0"),
        "{err}"
    );
    assert_eq!(server.count(&Method::GET), 3, "max_retries = 3");
}
