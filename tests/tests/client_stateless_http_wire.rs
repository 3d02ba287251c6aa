//! What the client puts on the wire under 2026-07-28 over Streamable HTTP,
//! against the scriptable fault server: request-metadata headers
//! (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` with the base64 value
//! encoding), tools with invalid `x-mcp-header` left out, the `-32020`
//! refresh-and-retry, the `-32022` re-negotiation, no session machinery,
//! and a timeout that drops the stream instead of POSTing
//! `notifications/cancelled`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use fault_http::{FaultServer, Recorded, Reply, init_result};
use http::Method;
use mcp_client::{CallOptions, Client, ClientOptions, RequestOptions};
use mcp_transport_http::{HttpConfig, HttpTransport};
use mcp_types::ProtocolVersion;
use serde_json::{Value, json};

fn ok(id: &Value, result: Value) -> Reply {
    Reply::json(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

fn rpc_error(id: &Value, code: i64, data: Value) -> Reply {
    Reply::json(
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "refused", "data": data}})
            .to_string(),
    )
    .with_status(400)
}

fn discover(id: &Value, versions: &[&str]) -> Reply {
    ok(
        id,
        json!({"resultType": "complete", "supportedVersions": versions,
               "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
               "ttlMs": 60000, "cacheScope": "public",
               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fault", "version": "1"}}}),
    )
}

fn annotated_tools() -> Value {
    json!([
        {"name": "route", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "loc": {"type": "object", "properties": {"zone": {"type": "boolean", "x-mcp-header": "Zone"}}},
            "note": {"type": "string"}}}},
        {"name": "bad", "inputSchema": {"type": "object", "properties": {
            "x": {"type": "number", "x-mcp-header": "X"}}}},
        {"name": "plain", "inputSchema": {"type": "object"}}
    ])
}

fn text_result(id: &Value, text: &str) -> Reply {
    ok(
        id,
        json!({"resultType": "complete", "content": [{"type": "text", "text": text}]}),
    )
}

async fn connect(server: &FaultServer, options: ClientOptions) -> Client {
    let transport = HttpTransport::connect_auto(HttpConfig::new(server.url("/mcp")))
        .await
        .expect("transport");
    tokio::time::timeout(Duration::from_secs(10), Client::connect(transport, options))
        .await
        .expect("connect in time")
        .expect("connect")
}

fn options() -> ClientOptions {
    ClientOptions::new("wire-test", "0.0.0")
}

fn calls(server: &FaultServer, method: &str) -> Vec<Recorded> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.is_call(method))
        .collect()
}

#[tokio::test]
async fn request_metadata_headers_are_sent_and_encoded() {
    let server = FaultServer::start(|req| {
        let id = req.rpc_id().unwrap_or(Value::Null);
        match req.rpc_method().as_deref() {
            Some("server/discover") => discover(&id, &["2026-07-28"]),
            Some("tools/list") => ok(&id, json!({"resultType": "complete", "tools": annotated_tools()})),
            Some("tools/call") => text_result(&id, "ok"),
            Some("prompts/get") => ok(
                &id,
                json!({"resultType": "complete", "messages": [{"role": "user", "content": {"type": "text", "text": "p"}}]}),
            ),
            Some("resources/read") => ok(
                &id,
                json!({"resultType": "complete", "contents": [{"uri": "x", "text": "r"}]}),
            ),
            _ => Reply::status(202),
        }
    })
    .await
    .expect("bind");
    let client = connect(&server, options()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().name, "fault");
    assert_eq!(client.negotiated().discover_ttl_ms, Some(60_000));

    // §3.8: `bad` (x-mcp-header on a number) is not exposed.
    let names: Vec<_> = client
        .list_all_tools(Default::default())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["route", "plain"]);

    let args = json!({"region": "Zürich", "count": 42, "loc": {"zone": true}, "note": "n"});
    client
        .call_tool("route", args.as_object().cloned(), CallOptions::default())
        .await
        .expect("tools/call");
    // `count: null` is not an integer: sent unchecked, to see that a null
    // value sends no header.
    let args = json!({"region": "=?base64?eA==?=", "count": null});
    client
        .call_tool(
            "route",
            args.as_object().cloned(),
            CallOptions::default().with_validate_arguments(false),
        )
        .await
        .expect("tools/call");
    client
        .get_prompt("  spaced", None, Default::default())
        .await
        .expect("prompts/get");
    client
        .read_resource("file:///tmp/a b.txt", Default::default())
        .await
        .expect("resources/read");

    let call = calls(&server, "tools/call");
    assert_eq!(
        call.len(),
        2,
        "no extra tools/list or retry: the tool was cached"
    );
    let first = &call[0];
    assert_eq!(first.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(first.header("mcp-method"), Some("tools/call"));
    assert_eq!(first.header("mcp-name"), Some("route"));
    assert_eq!(
        first.header("mcp-param-region"),
        Some("=?base64?WsO8cmljaA==?=")
    );
    assert_eq!(first.header("mcp-param-count"), Some("42"));
    assert_eq!(first.header("mcp-param-zone"), Some("true"));
    let second = &call[1];
    // A plain value that looks encoded is encoded; a null value sends no header.
    assert_eq!(
        second.header("mcp-param-region"),
        Some("=?base64?PT9iYXNlNjQ/ZUE9PT89?=")
    );
    assert_eq!(second.header("mcp-param-count"), None);
    assert_eq!(second.header("mcp-param-zone"), None);

    let prompt = &calls(&server, "prompts/get")[0];
    assert_eq!(prompt.header("mcp-name"), Some("=?base64?ICBzcGFjZWQ=?="));
    let read = &calls(&server, "resources/read")[0];
    assert_eq!(read.header("mcp-name"), Some("file:///tmp/a b.txt"));
    assert_eq!(read.header("mcp-method"), Some("resources/read"));

    // §3.12: no session machinery at all.
    for r in server.requests() {
        assert_eq!(r.method, Method::POST, "only POSTs: {r:?}");
        assert_eq!(r.header("mcp-session-id"), None);
        assert_ne!(r.rpc_method().as_deref(), Some("notifications/initialized"));
        assert_ne!(r.rpc_method().as_deref(), Some("initialize"));
    }
    client.close().await.unwrap();
    assert_eq!(server.count(&Method::DELETE), 0);
    assert_eq!(server.count(&Method::GET), 0);
}

#[tokio::test]
async fn header_mismatch_refreshes_the_tool_list_and_retries_once() {
    let lists = Arc::new(AtomicUsize::new(0));
    let seen = lists.clone();
    let server = FaultServer::start(move |req| {
        let id = req.rpc_id().unwrap_or(Value::Null);
        match req.rpc_method().as_deref() {
            Some("server/discover") => discover(&id, &["2026-07-28"]),
            Some("tools/list") => {
                // The first listing is stale: `route` had no annotation yet.
                let tools = if seen.fetch_add(1, Ordering::SeqCst) == 0 {
                    json!([{"name": "route", "inputSchema": {"type": "object"}}])
                } else {
                    annotated_tools()
                };
                ok(&id, json!({"resultType": "complete", "tools": tools}))
            }
            Some("tools/call") => match req.header("mcp-param-region") {
                Some("eu") => text_result(&id, "routed"),
                _ => rpc_error(&id, -32020, Value::Null),
            },
            _ => Reply::status(202),
        }
    })
    .await
    .expect("bind");
    let client = connect(&server, options()).await;
    client.list_all_tools(Default::default()).await.unwrap();
    let result = client
        .call_tool(
            "route",
            json!({"region": "eu"}).as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .expect("retried after -32020");
    assert_eq!(result.content.len(), 1);
    let call = calls(&server, "tools/call");
    assert_eq!(call.len(), 2);
    assert_eq!(call[0].header("mcp-param-region"), None);
    assert_eq!(call[1].header("mcp-param-region"), Some("eu"));
    assert_ne!(
        call[0].rpc_id(),
        call[1].rpc_id(),
        "the retry is a new request"
    );
    assert_eq!(lists.load(Ordering::SeqCst), 2);

    // A mismatch that a refresh cannot fix fails after one retry.
    let err = client
        .call_tool(
            "route",
            json!({"region": "us"}).as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .expect_err("still refused");
    assert_eq!(err.code(), Some(mcp_types::ErrorCode::HEADER_MISMATCH));
    assert_eq!(calls(&server, "tools/call").len(), 4);
    client.close().await.unwrap();
}

#[tokio::test]
async fn unknown_tool_is_listed_before_the_first_call() {
    let server = FaultServer::start(|req| {
        let id = req.rpc_id().unwrap_or(Value::Null);
        match req.rpc_method().as_deref() {
            Some("server/discover") => discover(&id, &["2026-07-28"]),
            Some("tools/list") => ok(
                &id,
                json!({"resultType": "complete", "tools": annotated_tools()}),
            ),
            Some("tools/call") => text_result(&id, "ok"),
            _ => Reply::status(202),
        }
    })
    .await
    .expect("bind");
    let client = connect(&server, options()).await;
    client
        .call_tool(
            "route",
            json!({"region": "ap"}).as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(calls(&server, "tools/list").len(), 1);
    assert_eq!(
        calls(&server, "tools/call")[0].header("mcp-param-region"),
        Some("ap")
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn unsupported_version_on_a_later_request_renegotiates_and_retries() {
    let discovers = Arc::new(AtomicUsize::new(0));
    let seen = discovers.clone();
    let server = FaultServer::start(move |req| {
        let id = req.rpc_id().unwrap_or(Value::Null);
        match req.rpc_method().as_deref() {
            Some("server/discover") => {
                if seen.fetch_add(1, Ordering::SeqCst) == 0 {
                    discover(&id, &["2026-07-28"])
                } else {
                    // The server was downgraded in between.
                    rpc_error(
                        &id,
                        -32022,
                        json!({"supported": ["2025-11-25"], "requested": "2026-07-28"}),
                    )
                }
            }
            Some("initialize") => Reply::json(init_result(&id, "2025-11-25")),
            Some("tools/list") => ok(&id, json!({"tools": []})),
            Some("tools/call") => {
                if req.header("mcp-protocol-version") == Some("2026-07-28") {
                    rpc_error(
                        &id,
                        -32022,
                        json!({"supported": ["2025-11-25"], "requested": "2026-07-28"}),
                    )
                } else {
                    text_result(&id, "legacy ok")
                }
            }
            _ => Reply::status(202),
        }
    })
    .await
    .expect("bind");
    let client = connect(&server, options()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let result = client
        .call_tool("echo", (), CallOptions::default())
        .await
        .expect("retried under the re-negotiated revision");
    assert_eq!(
        serde_json::to_value(&result.content[0]).unwrap()["text"],
        "legacy ok"
    );
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(discovers.load(Ordering::SeqCst), 2);
    let call = calls(&server, "tools/call");
    assert_eq!(call.len(), 2);
    assert_eq!(call[1].header("mcp-protocol-version"), Some("2025-11-25"));
    assert!(call[1].json().unwrap()["params"].get("_meta").is_none());
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_timed_out_request_drops_its_stream_without_a_cancel_notification() {
    let holds = Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = holds.clone();
    let server = FaultServer::start(move |req| {
        let id = req.rpc_id().unwrap_or(Value::Null);
        match req.rpc_method().as_deref() {
            Some("server/discover") => discover(&id, &["2026-07-28"]),
            Some("tools/list") => ok(&id, json!({"resultType": "complete", "tools": []})),
            Some("tools/call") => {
                // Never answered: the stream stays open until the client drops it.
                let (reply, tx) = Reply::sse_channel();
                keep.lock().unwrap().push(tx);
                reply
            }
            _ => Reply::status(202),
        }
    })
    .await
    .expect("bind");
    let client = connect(&server, options()).await;
    client.list_all_tools(Default::default()).await.unwrap();
    let err = client
        .call_tool(
            "slow",
            (),
            RequestOptions::default().with_timeout(Duration::from_millis(300)),
        )
        .await
        .expect_err("times out");
    assert!(err.is_timeout(), "{err:?}");
    // The server learns of the cancellation from the closed connection: a
    // keep-alive comment written to it fails, and the reply body (with its
    // receiver) is dropped.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let closed = holds.lock().unwrap().iter().all(|tx| {
            let _ = tx.send(fault_http::Part::bytes(":\n\n"));
            tx.is_closed()
        });
        if closed {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the reply stream was not closed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancels = server
        .requests()
        .into_iter()
        .filter(|r| r.rpc_method().as_deref() == Some("notifications/cancelled"))
        .count();
    assert_eq!(
        cancels, 0,
        "2026-07-28 over HTTP never POSTs notifications/cancelled"
    );
    client.close().await.unwrap();
}

/// A handshake-revision server that answers the `server/discover` POST with a 2xx
/// holding no response (an empty 202, an empty 200, `{}`) is reached with
/// `initialize`: such a reply is no modern signal (checklist §0 2f).
#[tokio::test]
async fn probe_answered_with_no_response_falls_back_to_initialize() {
    for reply in [
        || Reply::status(202),
        || Reply::status(200),
        || Reply::json("{}"),
    ] {
        let server = FaultServer::start(move |r: &Recorded| {
            let id = r.rpc_id().unwrap_or_default();
            match r.rpc_method().as_deref() {
                Some("server/discover") => reply(),
                Some("initialize") => Reply::json(init_result(&id, "2025-11-25")),
                _ => Reply::status(202),
            }
        })
        .await
        .unwrap();
        let client = connect(&server, ClientOptions::new("t", "1")).await;
        assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    }
}
