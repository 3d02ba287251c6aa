//! A server written for the handshake revisions that negotiated 2026-07-28 cannot
//! send its `elicitation/create` there (it answers the tool call with
//! Invalid Request, "no back-channel"). The manager remembers that for the
//! server: its next connection (a reconnection here; the next manager's
//! with the revision memory on) sends `initialize` at once, and the elicitation
//! reaches the host's handler.
//!
//! The server is the scripted peer of `mcp_client::testing`, put behind the
//! manager by its transport layer, one peer per connection.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_client::{ClientHandler, RequestContext};
use mcp_manager::{
    CallOptions, ElicitationModes, Manager, ManagerError, ManagerOptions, McpConfig,
};
use mcp_transport::Transport;
use mcp_types::elicitation::{ElicitRequestParams, ElicitResult};
use mcp_types::{ErrorCode, JsonRpcError, JsonRpcMessage, ProtocolVersion};
use serde_json::json;
use support::*;

/// Answers every form with `{"name": "Ada"}` and counts the forms.
#[derive(Default)]
struct NameGiver {
    asked: Mutex<usize>,
}

#[async_trait]
impl ClientHandler for NameGiver {
    async fn elicit(
        &self,
        _params: ElicitRequestParams,
        _ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        *self.asked.lock().unwrap() += 1;
        let mut content = serde_json::Map::new();
        content.insert("name".into(), "Ada".into());
        Ok(ElicitResult::accept(content))
    }
}

fn tools() -> serde_json::Value {
    json!({"tools": [{"name": "elicit_name", "inputSchema": {"type": "object"}}]})
}

/// A connection that negotiates 2026-07-28 and answers the tool call as
/// the Python SDK does where a server request has no back-channel.
async fn stateless_without_back_channel(mut peer: MemoryPeer) -> MemoryPeer {
    let probe = peer.expect_request("server/discover").await;
    peer.respond(
        &probe.id,
        json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
               "capabilities": {"tools": {}}, "serverInfo": {"name": "py", "version": "2"}}),
    )
    .await;
    let list = peer.expect_request("tools/list").await;
    peer.respond(&list.id, tools()).await;
    let call = peer.expect_request("tools/call").await;
    peer.respond_error(
        &call.id,
        JsonRpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Cannot send 'elicitation/create': this transport context has no back-channel for server-initiated requests.",
        ),
    )
    .await;
    peer
}

/// A connection in a handshake revision (it panics when the client probes
/// first): the tool call sends `elicitation/create` and greets the name.
async fn handshake_with_elicitation(mut peer: MemoryPeer) -> MemoryPeer {
    peer.handshake("2025-11-25", json!({"tools": {}})).await;
    let list = peer.expect_request("tools/list").await;
    peer.respond(&list.id, tools()).await;
    let call = peer.expect_request("tools/call").await;
    peer.request(
        "ask-1",
        "elicitation/create",
        Some(
            json!({"mode": "form", "message": "Your name?", "requestedSchema":
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}),
        ),
    )
    .await;
    let answer = match peer.next().await {
        Some(JsonRpcMessage::Response(r)) => r,
        other => panic!("expected the elicitation's answer, got {other:?}"),
    };
    let name = answer.outcome.expect("accepted")["content"]["name"].clone();
    peer.respond(
        &call.id,
        json!({"content": [{"type": "text", "text": format!("hello {}", name.as_str().unwrap())}]}),
    )
    .await;
    peer
}

/// A manager over one server `s`, each connection on the next of
/// `transports`, with the revision memory in `revision_dir` (none: `None`).
async fn manager(
    transports: Vec<Arc<dyn Transport>>,
    handler: Arc<NameGiver>,
    revision_dir: Option<PathBuf>,
) -> Manager {
    let queue = Mutex::new(VecDeque::from(transports));
    let mut options: ManagerOptions = options()
        .with_revision_dir(revision_dir)
        .with_transport_layer(move |_, configured| {
            queue.lock().unwrap().pop_front().unwrap_or(configured)
        });
    options.client = options
        .client
        .with_handler(handler)
        .with_elicitation(ElicitationModes::form());
    let config: McpConfig = config(json!({"s": {"url": "http://127.0.0.1:9/unused"}}));
    let manager = Manager::start(config, options).await;
    assert!(manager.wait_started(Duration::from_secs(10)).await);
    manager
}

async fn call(manager: &Manager) -> Result<String, ManagerError> {
    let result = manager
        .call_tool("s__elicit_name", (), CallOptions::default())
        .await?;
    Ok(result.content[0].as_text().unwrap_or_default().to_owned())
}

/// Waits until `s` is connected again, in `version`.
async fn connected_in(manager: &Manager, version: ProtocolVersion) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(client) = manager.client("s")
            && client.is_connected()
            && client.protocol_version() == version
        {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not connected in {version}: {:?}",
            manager.status()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn refused_for_its_revision(outcome: Result<String, ManagerError>) {
    match outcome {
        Err(ManagerError::Client { source, .. }) if source.needs_handshake_revision() => {}
        other => panic!("expected ServerRequestNotInRevision, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_connection_uses_the_handshake_revision() {
    let (first, first_peer) = memory_pair();
    let (second, second_peer) = memory_pair();
    let modern = tokio::spawn(stateless_without_back_channel(first_peer));
    let handshake = tokio::spawn(handshake_with_elicitation(second_peer));
    let handler = Arc::new(NameGiver::default());
    let manager = manager(
        vec![Arc::new(first), Arc::new(second)],
        handler.clone(),
        None,
    )
    .await;
    connected_in(&manager, ProtocolVersion::V2026_07_28).await;

    refused_for_its_revision(call(&manager).await);
    assert_eq!(*handler.asked.lock().unwrap(), 0);

    // The server goes away; the manager connects it again, in the
    // a handshake revision without a probe (the peer panics on server/discover).
    modern.await.unwrap().close("restarted");
    connected_in(&manager, ProtocolVersion::V2025_11_25).await;
    assert_eq!(call(&manager).await.unwrap(), "hello Ada");
    assert_eq!(*handler.asked.lock().unwrap(), 1, "the handler was asked");
    manager.shutdown().await;
    handshake.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_revision_memory_keeps_it_for_the_next_manager() {
    let dir = temp_dir("server-requests-era");
    let eras = dir.join("revisions");
    let (first, first_peer) = memory_pair();
    let modern = tokio::spawn(stateless_without_back_channel(first_peer));
    let handler = Arc::new(NameGiver::default());
    let manager_1 = manager(vec![Arc::new(first)], handler.clone(), Some(eras.clone())).await;
    refused_for_its_revision(call(&manager_1).await);
    manager_1.shutdown().await;
    modern.await.unwrap();
    let written: Vec<_> = std::fs::read_dir(&eras).unwrap().collect();
    assert_eq!(written.len(), 1, "one verdict for the one server");

    let (second, second_peer) = memory_pair();
    let handshake = tokio::spawn(handshake_with_elicitation(second_peer));
    let manager_2 = manager(vec![Arc::new(second)], handler.clone(), Some(eras)).await;
    connected_in(&manager_2, ProtocolVersion::V2025_11_25).await;
    assert_eq!(call(&manager_2).await.unwrap(), "hello Ada");
    manager_2.shutdown().await;
    handshake.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
