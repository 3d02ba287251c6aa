//! The default client (`VersionPreference::Auto`: probe `server/discover`,
//! fall back to `initialize`, and over HTTP to the legacy HTTP+SSE
//! transport) against every real peer on every transport it offers.
//!
//! What each peer must negotiate is pinned: the Python SDK (mcp 2.x) speaks
//! the stateless 2026-07-28 revision; server-everything speaks the handshake
//! revisions; its `sse` mode is only reachable through the legacy fallback.

use std::time::{Duration, Instant};

use mcp_client::{CallOptions, Client, ClientOptions};
use mcp_tests::peers::{self, EverythingHttp, PyOptions, PyTransport};
use mcp_transport_http::{HttpConfig, HttpTransport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use mcp_types::ProtocolVersion;
use serde_json::{Map, Value, json};

fn options() -> ClientOptions {
    ClientOptions::new("negotiation-test", "0.0.0")
}

fn args(v: Value) -> Option<Map<String, Value>> {
    v.as_object().cloned()
}

/// Lists tools and calls `tool` with `arguments`; returns the first text block.
async fn exercise(client: &Client, tool: &str, arguments: Value) -> String {
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == tool), "{tool} is listed");
    let result = client
        .call_tool(tool, args(arguments), CallOptions::default())
        .await
        .expect("tools/call");
    assert!(!result.is_error.unwrap_or(false));
    serde_json::to_value(&result.content[0]).unwrap()["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn http_client(url: &str) -> Client {
    let transport = HttpTransport::connect_auto(HttpConfig::new(url))
        .await
        .expect("transport");
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        Client::connect(transport, options()),
    )
    .await
    .expect("connect in time")
    .expect("connect");
    client
}

#[tokio::test]
async fn python_streamable_http_negotiates_stateless_revision() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        PyOptions::default(),
    )) else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(exercise(&client, "echo", json!({"text": "hi"})).await, "hi");
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_stateless_json_negotiates() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        PyOptions {
            json_response: true,
            stateless: true,
        },
    )) else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert_eq!(
        exercise(&client, "echo", json!({"text": "json"})).await,
        "json"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_sse_falls_back_to_legacy_transport() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::Sse,
        PyOptions::default(),
    )) else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert!(client.protocol_version().uses_handshake());
    assert_eq!(
        exercise(&client, "echo", json!({"text": "legacy"})).await,
        "legacy"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn everything_streamable_http_negotiates_handshake_revision() {
    let Some(peer) =
        peers::skip_if_missing(peers::spawn_everything_http(EverythingHttp::StreamableHttp))
    else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert!(client.protocol_version().uses_handshake());
    assert_eq!(
        exercise(&client, "echo", json!({"message": "x"})).await,
        "Echo: x"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn everything_sse_falls_back_to_legacy_transport() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_everything_http(EverythingHttp::Sse))
    else {
        return;
    };
    let client = http_client(peer.url()).await;
    assert!(client.protocol_version().uses_handshake());
    assert_eq!(
        exercise(&client, "echo", json!({"message": "y"})).await,
        "Echo: y"
    );
    client.close().await.unwrap();
}

async fn stdio_client(command: String, arguments: Vec<String>) -> (Client, Duration) {
    let transport = StdioTransport::spawn(StdioConfig::new(command).args(arguments))
        .await
        .expect("spawn");
    let start = Instant::now();
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        Client::connect(transport, options()),
    )
    .await
    .expect("connect in time")
    .expect("connect");
    (client, start.elapsed())
}

#[tokio::test]
async fn everything_stdio_refuses_the_probe_and_falls_back_without_waiting() {
    let Some((command, arguments)) = peers::everything_stdio_command() else {
        return;
    };
    let (client, took) = stdio_client(command, arguments).await;
    assert!(client.protocol_version().uses_handshake());
    // The probe's 3 s timeout must not be what ended it: the server answers it.
    assert!(took < Duration::from_millis(2_900), "connect took {took:?}");
    assert_eq!(
        exercise(&client, "echo", json!({"message": "z"})).await,
        "Echo: z"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn python_stdio_negotiates_stateless_revision() {
    let Some((command, arguments)) = peers::python_stdio_command() else {
        return;
    };
    let (client, _) = stdio_client(command, arguments).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(exercise(&client, "echo", json!({"text": "s"})).await, "s");
    client.close().await.unwrap();
}
