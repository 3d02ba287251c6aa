//! Against real servers on 127.0.0.1: `@modelcontextprotocol/server-everything`
//! (streamableHttp and sse) and the Python `mcp` SDK server
//! (`tests/peers/py_server.py`: streamable-http with SSE replies, with JSON
//! replies, stateless; and sse). Each test prints why and skips when the
//! peer is not installed (`tests/peers/setup.sh`), unless
//! `MCP_PEERS_REQUIRED=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mcp_tests::peers::{
    EverythingHttp, PeerGuard, PyOptions, PyTransport, skip_if_missing, spawn_everything_http,
    spawn_python_server,
};
use mcp_transport::{RequestOptions, Transport};
use mcp_transport_http::{ActiveMode, HttpConfig, HttpMode, HttpTransport, ProxySetting};
use mcp_types::ProtocolVersion;
use serde_json::{Value, json};

async fn start(
    spawn: impl FnOnce() -> Result<PeerGuard, mcp_tests::peers::PeerError> + Send + 'static,
) -> Option<PeerGuard> {
    let result = tokio::task::spawn_blocking(spawn)
        .await
        .expect("spawn task");
    skip_if_missing(result)
}

async fn handshake(url: &str, mode: HttpMode) -> HttpTransport {
    let config = HttpConfig::new(url).with_proxy(ProxySetting::None);
    let t = HttpTransport::connect(config, mode).await.expect("connect");
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
    t.set_protocol_version(version);
    t.notify("notifications/initialized", None)
        .await
        .expect("initialized");
    t
}

fn tool_names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// tools/list, tools/call echo, and a tool with progress (which must reach
/// the sink before the result; `steps == 0`: not checked).
async fn exercise(t: &HttpTransport, progress_tool: &str, progress_args: Value, steps: usize) {
    let tools = t
        .request("tools/list", None, opts())
        .await
        .expect("tools/list")
        .to_value()
        .unwrap();
    let names = tool_names(&tools);
    assert!(names.iter().any(|n| n == "echo"), "{names:?}");
    let echoed = t
        .request(
            "tools/call",
            Some(&json!({"name": "echo", "arguments": {"message": "héllo", "text": "héllo"}})),
            opts(),
        )
        .await
        .expect("tools/call echo")
        .to_value()
        .unwrap();
    assert!(text_of(&echoed).contains("héllo"), "{echoed}");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let result = t
        .request(
            "tools/call",
            Some(&json!({"name": progress_tool, "arguments": progress_args})),
            RequestOptions::default()
                .with_timeout(Duration::from_secs(30))
                .with_progress(move |p| sink.lock().unwrap().push(p.progress)),
        )
        .await
        .expect("progress tool")
        .to_value()
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    assert!(!text_of(&result).is_empty(), "{result}");
    if steps == 0 {
        // A JSON reply cannot carry progress; the server may send it on the
        // GET stream, where it can arrive after the result.
        return;
    }
    assert_eq!(
        seen.len(),
        steps,
        "every progress update arrived before the result: {seen:?} / {result}"
    );
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_streamable_http() {
    let Some(peer) = start(|| spawn_everything_http(EverythingHttp::StreamableHttp)).await else {
        return;
    };
    let t = handshake(peer.url(), HttpMode::Streamable).await;
    assert!(
        t.session_id().is_some(),
        "server-everything assigns a session"
    );
    exercise(
        &t,
        "trigger-long-running-operation",
        json!({"duration": 1, "steps": 3}),
        3,
    )
    .await;
    t.close().await.unwrap();
    assert!(!t.is_connected());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_sse_legacy_and_auto() {
    let Some(peer) = start(|| spawn_everything_http(EverythingHttp::Sse)).await else {
        return;
    };
    let t = handshake(peer.url(), HttpMode::Legacy).await;
    exercise(
        &t,
        "trigger-long-running-operation",
        json!({"duration": 1, "steps": 3}),
        3,
    )
    .await;
    t.close().await.unwrap();
    let t = handshake(peer.url(), HttpMode::Auto).await;
    assert_eq!(t.mode(), ActiveMode::Legacy, "the POST probe fell back");
    let tools = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert!(tool_names(&tools).iter().any(|n| n == "echo"));
    t.close().await.unwrap();
}

async fn python_streamable(opts_: PyOptions) {
    let Some(peer) = start(move || spawn_python_server(PyTransport::StreamableHttp, opts_)).await
    else {
        return;
    };
    let t = handshake(peer.url(), HttpMode::Auto).await;
    assert_eq!(t.mode(), ActiveMode::Streamable);
    assert_eq!(t.session_id().is_some(), !opts_.stateless);
    let steps = if opts_.json_response { 0 } else { 3 };
    exercise(&t, "progress", json!({"steps": 3, "delay_ms": 10}), steps).await;
    let sum = t
        .request(
            "tools/call",
            Some(&json!({"name": "add", "arguments": {"a": 2, "b": 3}})),
            opts(),
        )
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(text_of(&sum), "5");
    t.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_streamable_http_sse_replies() {
    python_streamable(PyOptions::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_streamable_http_json_replies() {
    python_streamable(PyOptions {
        json_response: true,
        ..PyOptions::default()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_streamable_http_stateless() {
    python_streamable(PyOptions {
        stateless: true,
        ..PyOptions::default()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sse_legacy() {
    let Some(peer) = start(|| spawn_python_server(PyTransport::Sse, PyOptions::default())).await
    else {
        return;
    };
    let t = handshake(peer.url(), HttpMode::Legacy).await;
    exercise(&t, "progress", json!({"steps": 3, "delay_ms": 10}), 3).await;
    t.close().await.unwrap();
}
