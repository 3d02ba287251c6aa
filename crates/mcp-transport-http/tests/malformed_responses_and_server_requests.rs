//! B22 (a response with both `result` and `error`, or neither, fails its
//! request and the transport survives) and B24 over HTTP (server requests
//! nobody handles get the default answer, POSTed back; the client's own
//! request with a colliding id still resolves).
//!
//! Catalogue cases: B22, B24.

mod common;

use std::time::Duration;

use common::*;
use fault_http::{FaultServer, Part, Reply, sse_data, tools_result};
use http::Method;
use mcp_transport::{Transport, TransportError};
use serde_json::json;

#[tokio::test]
async fn b22_result_and_error_together_is_malformed() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("tools/call") => Reply::json(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}},"error":{{"code":-32603,"message":"boom"}}}}"#
            )),
            Some("tools/list") => Reply::sse(vec![sse_data(&format!(r#"{{"jsonrpc":"2.0","id":{id}}}"#))]),
            Some("ping") => Reply::json(format!(r#"{{"jsonrpc":"2.0","id":{id}}}"#)),
            _ => Reply::json(tools_result(&id)),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t.request("tools/call", None, opts()).await.unwrap_err();
    assert!(matches!(err, TransportError::Malformed { .. }), "{err:?}");
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert!(matches!(err, TransportError::Malformed { .. }), "{err:?}");
    assert_eq!(
        t.request("ping", None, opts())
            .await
            .unwrap()
            .to_value()
            .unwrap(),
        json!({}),
        "neither is tolerated for ping"
    );
    assert!(t.is_connected());
}

#[tokio::test]
async fn b24_unhandled_server_requests_are_answered_by_post() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("tools/list") => Reply::sse(vec![
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}\n\n"),
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"id\":\"r-2\",\"method\":\"roots/list\"}\n\n"),
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":1}}\n\n"),
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"vendor/whatever\",\"params\":{}}\n\n"),
                Part::pause_ms(100),
                sse_data(&tools_result(&id)),
            ]),
            // Responses to the server's requests.
            None => Reply::status(202),
            _ => Reply::status(400),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    // Our request is id 0, like the server's ping.
    let tools = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let answers: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == Method::POST && r.rpc_method().is_none())
        .map(|r| r.json().unwrap())
        .collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    let by_id = |id: serde_json::Value| answers.iter().find(|a| a["id"] == id).cloned().unwrap();
    assert_eq!(by_id(json!(0))["result"], json!({}));
    assert_eq!(by_id(json!("r-2"))["error"]["code"], -32601);
    assert_eq!(by_id(json!(3))["error"]["code"], -32601);
    assert_eq!(by_id(json!(4))["error"]["code"], -32601);
}
