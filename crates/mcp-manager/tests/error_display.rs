//! A manager error prints its reason: `println!("{e}")` of a failed call
//! says which server and what the server (or the connection) said, and a
//! chain printer ([`mcp_manager::error_chain`]) says each fact once.
//!
//! The server is the scripted peer of `mcp_client::testing`, put behind the
//! manager by its transport layer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::RequestOptions;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_manager::{CallOptions, Manager, ManagerOptions, VersionPreference, error_chain};
use mcp_transport::Transport;
use mcp_types::{ErrorCode, JsonRpcError, JsonRpcMessage};
use serde_json::json;
use support::*;

/// Answers `tools/call` with a JSON-RPC error; leaves `prompts/get`
/// unanswered (the caller's timeout ends it).
async fn serve(mut peer: MemoryPeer) {
    peer.handshake("2025-11-25", json!({"tools": {}, "prompts": {}}))
        .await;
    loop {
        let Some(message) = peer.next().await else {
            if !peer.is_open() {
                return;
            }
            continue;
        };
        let JsonRpcMessage::Request(request) = message else {
            continue;
        };
        match request.method.as_str() {
            "tools/list" => {
                peer.respond(
                    &request.id,
                    json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
                )
                .await;
            }
            "prompts/list" => {
                peer.respond(&request.id, json!({"prompts": [{"name": "p"}]}))
                    .await
            }
            "tools/call" => {
                peer.respond_error(
                    &request.id,
                    JsonRpcError::new(ErrorCode(-32042), "the flux capacitor is off"),
                )
                .await;
            }
            _ => {}
        }
    }
}

/// Every level of `e`'s chain, `e` first.
fn levels(e: &dyn std::error::Error) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        out.push(s.to_string());
        source = s.source();
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_error_is_in_the_managers_display_once() {
    let (transport, peer) = memory_pair();
    let server = tokio::spawn(serve(peer));
    let memory: Mutex<Option<Arc<dyn Transport>>> = Mutex::new(Some(Arc::new(transport)));
    let mut options: ManagerOptions = options().with_transport_layer(move |_, configured| {
        memory.lock().unwrap().take().unwrap_or(configured)
    });
    options.client = options
        .client
        .with_version_preference(VersionPreference::Handshake);
    let manager = Manager::start(
        config(json!({"py": {"url": "http://127.0.0.1:9/unused"}})),
        options,
    )
    .await;
    assert!(manager.wait_started(Duration::from_secs(10)).await);

    let server_error = manager
        .call_tool("py__t", json!({}), CallOptions::default())
        .await
        .unwrap_err();
    let timeout = manager
        .get_prompt(
            "py__p",
            None,
            RequestOptions::default().with_timeout(Duration::from_millis(200)),
        )
        .await
        .unwrap_err();
    for e in [&server_error, &timeout] {
        let client = e.client_error().expect("a client error");
        let shown = e.to_string();
        assert_eq!(shown, format!("server \"py\": {client}"), "{e:?}");
        // Each level of the chain says its own thing.
        let chain = levels(e);
        for pair in chain.windows(2) {
            assert!(!pair[0].ends_with(&pair[1]), "{chain:?}");
        }
        let line = error_chain(e);
        assert_eq!(line.matches(&client.to_string()).count(), 1, "{line}");
    }
    let shown = server_error.to_string();
    assert!(shown.contains("-32042"), "{shown}");
    assert!(shown.contains("the flux capacitor is off"), "{shown}");

    manager.shutdown().await;
    server.abort();
}
