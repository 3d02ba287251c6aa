//! B02 (priming events, id-only events, bad retry), B03 (multi-line data,
//! the single optional space) and B04 (comments, keep-alives, other event
//! types, non-JSON-RPC data) on a POST SSE reply.

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

#[tokio::test]
async fn b04_comments_keepalives_and_other_event_types() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::sse(vec![
            Part::bytes(": keep-alive\r\n\r\n"),
            Part::bytes(": ping - 2025-01-01 00:00:00\r\n\r\n"),
            Part::bytes("event: ping\r\ndata: 2025-01-01 00:00:00\r\n\r\n"),
            Part::bytes("event: keepalive\ndata: {}\n\n"),
            Part::bytes("data: {\"type\":\"heartbeat\",\"ts\":1}\n\n"),
            Part::bytes(format!(
                "x-unknown-field: 1\nevent: message\ndata: {}\n\n",
                init_result(&id, "2025-06-18")
            )),
        ])
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let result = initialize(&t).await.expect("INIT still delivered");
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert!(t.is_connected());
}
