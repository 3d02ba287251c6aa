//! B12: POSTs always carry `Accept: application/json, text/event-stream`
//! (configured headers are merged, never replace it), GETs carry
//! `Accept: text/event-stream`, and every request after the initialize
//! reply — `notifications/initialized`, the first GET, the DELETE — carries
//! the negotiated `MCP-Protocol-Version`.
//!
//! Catalogue cases: B12.

mod common;

use std::time::Duration;

use common::*;
use fault_http::{FaultServer, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::Transport;
use mcp_transport_http::{HttpMode, HttpTransport};
use mcp_types::ProtocolVersion;

#[tokio::test]
async fn strict_server_sees_the_headers_it_requires() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        let accept = r.header("accept").unwrap_or_default();
        if r.method == Method::POST && !(accept.contains("application/json") && accept.contains("text/event-stream")) {
            return Reply::json(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Not Acceptable"}}"#).with_status(406);
        }
        if r.rpc_method().as_deref() == Some("initialize") {
            return Reply::json(init_result(&id, "2025-06-18")).header("mcp-session-id", "s-1");
        }
        if r.header("mcp-protocol-version") != Some("2025-06-18") {
            return Reply::json(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unsupported protocol version"}}"#).with_status(400);
        }
        match (r.method.as_str(), r.rpc_method().as_deref()) {
            ("GET", _) => Reply::status(405),
            ("DELETE", _) => Reply::status(200),
            (_, Some("tools/list")) => Reply::json(tools_result(&id)),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let config = config(&server.url("/mcp"))
        .with_header("Accept", "application/json")
        .with_header("Authorization", "Bearer token-1")
        .with_header("X-Custom", "yes");
    let t = HttpTransport::connect(config, HttpMode::Streamable)
        .await
        .unwrap();
    let init = t
        .request("initialize", Some(&init_params("2025-11-25")), opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    t.set_protocol_version(ProtocolVersion::V2025_06_18);
    t.notify("notifications/initialized", None).await.unwrap();
    t.request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    t.close().await.unwrap();

    let requests = server.requests();
    assert!(
        requests
            .iter()
            .all(|r| r.header("authorization") == Some("Bearer token-1"))
    );
    assert!(requests.iter().all(|r| r.header("x-custom") == Some("yes")));
    for r in &requests {
        match r.method.as_str() {
            "POST" => {
                assert_eq!(
                    r.header("accept"),
                    Some("application/json, text/event-stream")
                );
                assert_eq!(r.header("content-type"), Some("application/json"));
            }
            "GET" => assert_eq!(r.header("accept"), Some("text/event-stream")),
            _ => {}
        }
        if r.rpc_method().as_deref() != Some("initialize") {
            assert_eq!(
                r.header("mcp-protocol-version"),
                Some("2025-06-18"),
                "{} {:?}",
                r.method,
                r.rpc_method()
            );
            assert_eq!(r.header("mcp-session-id"), Some("s-1"));
        }
    }
    // The GET listener runs concurrently: compare counts, not order.
    let mut methods: Vec<_> = requests
        .iter()
        .map(|r| r.method.as_str().to_owned())
        .collect();
    methods.sort();
    assert_eq!(
        methods,
        ["DELETE", "GET", "POST", "POST", "POST"]
            .map(String::from)
            .to_vec()
    );
}

#[tokio::test]
async fn a_406_is_an_http_error() {
    let server = FaultServer::start(|_| {
        Reply::json(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Not Acceptable"}}"#,
        )
        .with_status(406)
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert_eq!(err.http_status(), Some(406));
    let text = err.to_string();
    assert!(text.contains("Not Acceptable"), "{text}");
    // The error names the header and what was sent (B12).
    assert!(
        text.contains("Accept header") && text.contains("application/json, text/event-stream"),
        "{text}"
    );
}

/// A 400 about the protocol version names `MCP-Protocol-Version` and the
/// value sent (B12); a 400 about something else gets no such note.
#[tokio::test]
async fn a_400_about_the_version_names_the_header() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
            Some("tools/list") => Reply::json(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unsupported protocol version"}}"#,
            )
            .with_status(400),
            _ => Reply::json(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad cursor"}}"#,
            )
            .with_status(400),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    initialize(&t).await.unwrap();
    t.set_protocol_version(ProtocolVersion::V2025_06_18);
    let text = t
        .request("tools/list", None, opts())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("MCP-Protocol-Version header") && text.contains("2025-06-18"),
        "{text}"
    );
    let text = t
        .request("prompts/list", None, opts())
        .await
        .unwrap_err()
        .to_string();
    assert!(!text.contains("MCP-Protocol-Version"), "{text}");
}

/// A JSON-RPC error in a 4xx body answers its request also when the server
/// echoed our integer id as a string (`"id":"2"`), as on the other reply
/// paths: the request gets the server's error, not a bare HTTP error.
#[tokio::test]
async fn error_body_with_an_integer_id_echoed_as_a_string_is_the_server_error() {
    let server = fault_http::FaultServer::start(|r: &fault_http::Recorded| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("initialize") => {
                fault_http::Reply::json(fault_http::init_result(&id, "2025-06-18"))
            }
            Some("tools/call") => fault_http::Reply::json(format!(
                r#"{{"jsonrpc":"2.0","id":"{id}","error":{{"code":-32602,"message":"bad args here"}}}}"#
            ))
            .with_status(400),
            _ => fault_http::Reply::status(202),
        }
    })
    .await
    .unwrap();
    let (t, _events) = initialized(&server.url("/mcp")).await;
    let err = t
        .request(
            "tools/call",
            Some(&serde_json::json!({"name": "x"})),
            opts(),
        )
        .await
        .unwrap_err();
    match err {
        mcp_transport::TransportError::JsonRpc(e) => assert_eq!(e.message, "bad args here"),
        other => panic!("expected the server's error, got {other:?}"),
    }
}
