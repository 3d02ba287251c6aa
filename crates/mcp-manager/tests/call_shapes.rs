//! The manager's calls have the client's shapes: `call_tool` takes any
//! `Serialize` that makes a JSON object and a `CallOptions` or a plain
//! `RequestOptions`; `get_prompt` and `read_resource` take the
//! `RequestOptions` the client's take, and honour them (a timeout here).
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
use std::time::{Duration, Instant};

use mcp_client::RequestOptions;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_manager::{CallOptions, Manager, ManagerOptions, VersionPreference};
use mcp_transport::Transport;
use mcp_types::JsonRpcMessage;
use serde::Serialize;
use serde_json::{Value, json};
use support::*;

#[derive(Serialize)]
struct Add {
    a: i64,
    b: i64,
}

/// Answers `tools/call` with the arguments it got; leaves `prompts/get`
/// and `resources/read` unanswered (the caller's timeout ends them).
async fn serve(mut peer: MemoryPeer) {
    peer.handshake(
        "2025-11-25",
        json!({"tools": {}, "prompts": {}, "resources": {}}),
    )
    .await;
    while let Some(message) = next_or_end(&mut peer).await {
        let JsonRpcMessage::Request(request) = message else {
            continue;
        };
        let result = match request.method.as_str() {
            "tools/list" => json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}),
            "prompts/list" => json!({"prompts": [{"name": "p"}]}),
            "resources/list" => json!({"resources": []}),
            "tools/call" => {
                let arguments = request.params.as_ref().unwrap()["arguments"].to_string();
                json!({"content": [{"type": "text", "text": arguments}]})
            }
            _ => continue,
        };
        peer.respond(&request.id, result).await;
    }
}

/// The next message, waiting as long as the connection is open.
async fn next_or_end(peer: &mut MemoryPeer) -> Option<JsonRpcMessage> {
    loop {
        if let Some(m) = peer.next().await {
            return Some(m);
        }
        if !peer.is_open() {
            return None;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_take_the_clients_shapes_and_options() {
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
        config(json!({"s": {"url": "http://127.0.0.1:9/unused"}})),
        options,
    )
    .await;
    assert!(manager.wait_started(Duration::from_secs(10)).await);

    let text = |r: mcp_types::tools::CallToolResult| -> Value {
        serde_json::from_str(r.content[0].as_text().unwrap()).unwrap()
    };
    let r = manager
        .call_tool("s__add", Add { a: 2, b: 3 }, RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(text(r), json!({"a": 2, "b": 3}), "a struct");
    let r = manager
        .call_tool("s__add", json!({"a": 1}), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(text(r), json!({"a": 1}), "a json! object");
    let e = manager
        .call_tool("s__add", [1, 2], CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            e.client_error(),
            Some(mcp_client::ClientError::ArgumentsNotAnObject { .. })
        ),
        "{e:?}"
    );

    let short = || RequestOptions::default().with_timeout(Duration::from_millis(200));
    let started = Instant::now();
    let e = manager.get_prompt("s__p", None, short()).await.unwrap_err();
    assert!(e.client_error().is_some_and(|c| c.is_timeout()), "{e:?}");
    let e = manager
        .read_resource("s", "file:///x", short())
        .await
        .unwrap_err();
    assert!(e.client_error().is_some_and(|c| c.is_timeout()), "{e:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the caller's timeout, not the client's default"
    );
    manager.shutdown().await;
    // The peer waits for messages that no longer come.
    server.abort();
}
