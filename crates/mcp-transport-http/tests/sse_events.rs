//! B02 (priming events, id-only events, bad retry), B03 (multi-line data,
//! the single optional space) and B04 (comments, keep-alives, other event
//! types, non-JSON-RPC data) on a POST SSE reply.
//!
//! Catalogue cases: B02, B03, B04.

mod common;

use common::*;
use fault_http::{FaultServer, Part, Reply, init_result, sse_data, tools_result};
use http::Method;
use mcp_transport::Transport;
use serde_json::json;

#[tokio::test]
async fn b02_priming_events_are_skipped_and_ids_tracked() {
    let warnings = capture_warnings();
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.method == Method::GET {
            // The resumption of the tools/list stream.
            return Reply::sse(vec![sse_data(&tools_result(&json!(1)))]);
        }
        if r.is_call("tools/list") {
            // Priming events, then the stream ends without the response.
            return Reply::sse(vec![Part::bytes(
                "id: p-0\nretry: 2500\ndata:\n\nid: p-0b\n\nretry: soon\n\nid: p-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n",
            )]);
        }
        Reply::sse(vec![Part::bytes(format!(
            "id: p-0\nretry: 2500\ndata:\n\nid: p-0b\n\nretry: soon\n\nid: p-1\nevent: message\ndata: {}\n\n",
            init_result(&id, "2025-06-18")
        ))])
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let result = initialize(&t).await.expect("one result");
    assert_eq!(result["serverInfo"]["name"], "fake");
    // The resumed request proves the stored Last-Event-ID.
    let tools = t
        .request("tools/list", None, opts())
        .await
        .expect("resumed")
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
    let gets: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == Method::GET)
        .collect();
    assert_eq!(gets.len(), 1);
    assert_eq!(gets[0].header("last-event-id"), Some("p-1"));
    assert_eq!(warnings.text(), "", "no warning for priming events");
}

/// B02's `retry: 2500` becomes the reconnect delay (`retry: soon` after it
/// is ignored): the tools/list stream ends without its response, and the
/// resuming GET waits 2500 ms (no jitter here; the policy's bounds allow
/// it). A lower bound only: a slow machine makes it longer, never shorter.
#[tokio::test]
async fn b02_retry_sets_the_reconnect_delay() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.method == Method::GET {
            return Reply::sse(vec![sse_data(&tools_result(&json!(0)))]);
        }
        Reply::sse(vec![Part::bytes(format!(
            "id: p-0\nretry: 2500\ndata:\n\nid: p-0b\n\nretry: soon\n\nid: p-1\n\n{}",
            if r.is_call("tools/list") {
                String::new()
            } else {
                format!("data: {}\n\n", init_result(&id, "2025-06-18"))
            }
        ))])
    })
    .await
    .unwrap();
    let backoff = mcp_transport_http::Backoff::new(
        std::time::Duration::from_millis(10),
        std::time::Duration::from_secs(10),
        Some(3),
        0.0,
    )
    .unwrap();
    let config = config(&server.url("/mcp")).with_reconnect(backoff);
    let t = mcp_transport_http::HttpTransport::connect(
        config,
        mcp_transport_http::HttpMode::Streamable,
    )
    .await
    .unwrap();
    let started = std::time::Instant::now();
    t.request("tools/list", None, opts())
        .await
        .expect("resumed");
    let waited = started.elapsed();
    assert!(
        waited >= std::time::Duration::from_millis(2_400),
        "resumed after {waited:?}, not after the 2500 ms retry"
    );
}

#[tokio::test]
async fn b03_multiline_data_joined_with_newline() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::sse(vec![Part::bytes(format!(
            "event: message\ndata: {{\"jsonrpc\":\"2.0\",\ndata:\"id\":{id},\ndata:  \"result\":{{\"tools\":[]}}}}\n\n"
        ))])
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let tools = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
}

/// B04's events before a message: comments, keep-alives, other event
/// types, and a `message` event whose data is not JSON-RPC.
fn b04_noise() -> Vec<Part> {
    vec![
        Part::bytes(": keep-alive\r\n\r\n"),
        Part::bytes(": ping - 2025-01-01 00:00:00\r\n\r\n"),
        Part::bytes("event: ping\r\ndata: 2025-01-01 00:00:00\r\n\r\n"),
        Part::bytes("event: keepalive\ndata: {}\n\n"),
        Part::bytes("data: {\"type\":\"heartbeat\",\"ts\":1}\n\n"),
    ]
}

/// Exactly one warning, for the `message` event that is not JSON-RPC.
fn assert_one_warning_for_the_heartbeat(text: &str) {
    let lines: Vec<_> = text.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].contains("heartbeat"), "{text}");
}

#[tokio::test]
async fn b04_comments_keepalives_and_other_event_types() {
    let warnings = capture_warnings();
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        let mut parts = b04_noise();
        parts.push(Part::bytes(format!(
            "x-unknown-field: 1\nevent: message\ndata: {}\n\n",
            init_result(&id, "2025-06-18")
        )));
        Reply::sse(parts)
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let result = initialize(&t).await.expect("INIT still delivered");
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert!(t.is_connected());
    assert_one_warning_for_the_heartbeat(&warnings.text());
}

/// The same on the standalone GET stream: the noise is skipped (one
/// warning), the stream stays open and the notification after it arrives.
#[tokio::test]
async fn b04_on_the_get_stream() {
    let warnings = capture_warnings();
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.method == Method::GET {
            let mut parts = b04_noise();
            parts.push(sse_data(
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
            ));
            parts.push(Part::pause_ms(60_000));
            return Reply::sse(parts);
        }
        match r.rpc_method().as_deref() {
            Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let (t, mut events) = initialized(&server.url("/mcp")).await;
    let n = next_notification(&mut events, "the notification after the noise").await;
    assert_eq!(n.method, "notifications/tools/list_changed");
    assert_one_warning_for_the_heartbeat(&warnings.text());
    t.close().await.unwrap();
}
