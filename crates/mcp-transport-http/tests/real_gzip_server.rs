//! B34 against a real server that compresses: the Python `mcp` SDK server
//! (`tests/peers/py_server.py --gzip`) behind Starlette's GZipMiddleware,
//! every reply gzip-compressed (event streams too), with SSE replies and
//! with JSON replies. Skips, saying why, when the peer is not installed
//! (`tests/peers/setup.sh`), unless `MCP_PEERS_REQUIRED=1`.
//!
//! Catalogue cases: B34.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use common::*;
use mcp_tests::peers::{skip_if_missing, spawn_python_gzip_server};
use mcp_transport::Transport;
use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport, ProxySetting};
use mcp_types::ProtocolVersion;
use serde_json::json;

async fn against_gzip_server(json_response: bool) {
    let Some(peer) = skip_if_missing(
        tokio::task::spawn_blocking(move || spawn_python_gzip_server(json_response))
            .await
            .unwrap(),
    ) else {
        return;
    };
    // The transport's debug lines show that replies did arrive compressed
    // (current-thread runtime: the subscriber sees every task).
    let log = capture_at(tracing::Level::DEBUG);

    let config = HttpConfig::new(peer.url()).with_proxy(ProxySetting::None);
    let t = HttpTransport::connect(config, HttpMode::Auto)
        .await
        .unwrap();
    let init = t
        .request("initialize", Some(&init_params("2025-06-18")), opts())
        .await
        .expect("initialize")
        .to_value()
        .unwrap();
    let version = init["protocolVersion"]
        .as_str()
        .and_then(ProtocolVersion::parse)
        .expect("a known revision");
    assert_eq!(init["serverInfo"]["name"], "py-peer");
    t.set_protocol_version(version);
    t.notify("notifications/initialized", None).await.unwrap();
    let tools = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    // A reply big enough to span several compressed chunks.
    let text = "compressed ".repeat(5_000);
    let call = t
        .request(
            "tools/call",
            Some(&json!({"name": "echo", "arguments": {"text": text}})),
            opts(),
        )
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(call["content"][0]["text"], text.as_str());
    t.close().await.unwrap();
    let log = log.text();
    assert!(
        log.contains("decoding a compressed reply"),
        "the server did not compress: {log}"
    );
}

#[tokio::test]
async fn b34_python_sdk_behind_gzip_middleware_sse_replies() {
    against_gzip_server(false).await;
}

#[tokio::test]
async fn b34_python_sdk_behind_gzip_middleware_json_replies() {
    against_gzip_server(true).await;
}
