//! A server written for the handshake revisions sends a server-initiated request
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`) while it
//! handles a request; under 2026-07-28 it cannot, and answers Invalid
//! Request (the Python SDK: "no back-channel"). The client says so with a
//! typed error that names what to do, and tells its handler; under a
//! handshake revision, or for any other Invalid Request, the server's error
//! stays `ClientError::Server`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_client::{Client, ClientError, ClientHandler, ClientOptions, RequestContext};
use mcp_types::elicitation::{ElicitRequestParams, ElicitResult};
use mcp_types::{ErrorCode, JsonRpcError, ProtocolVersion};
use serde_json::json;

/// Records what reached it: elicitations (there must be none) and the
/// refused server requests.
#[derive(Default)]
struct Watcher {
    elicited: Mutex<usize>,
    refused: Mutex<Vec<(String, String)>>,
}

#[async_trait]
impl ClientHandler for Watcher {
    async fn elicit(
        &self,
        _params: ElicitRequestParams,
        _ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        *self.elicited.lock().unwrap() += 1;
        Err(JsonRpcError::new(ErrorCode::INTERNAL_ERROR, "not expected"))
    }

    async fn on_server_request_not_in_revision(&self, method: &str, server_request: &str) {
        self.refused
            .lock()
            .unwrap()
            .push((method.to_owned(), server_request.to_owned()));
    }
}

fn options(watcher: &Arc<Watcher>) -> ClientOptions {
    ClientOptions::new("t", "1")
        .with_handler(watcher.clone())
        .with_elicitation(mcp_client::ElicitationModes::form())
        .with_sampling(false)
        .with_roots(false)
}

/// A 2026-07-28 connection through `server/discover`.
async fn modern(options: ClientOptions) -> (Client, MemoryPeer) {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        peer.respond(
            &probe.id,
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                   "capabilities": {"tools": {}, "prompts": {}, "resources": {}}}),
        )
        .await;
        peer
    });
    let client = Client::connect(transport, options).await.unwrap();
    (client, server.await.unwrap())
}

/// What the Python SDK answers when a tool calls `ctx.elicit` (or
/// `create_message`, `list_roots`) where it has no back-channel.
fn no_back_channel(server_request: &str) -> JsonRpcError {
    JsonRpcError::new(
        ErrorCode::INVALID_REQUEST,
        format!(
            "Cannot send '{server_request}': this transport context has no back-channel for server-initiated requests."
        ),
    )
}

/// Sends `method` through `client` and answers it with `error`.
async fn refused(
    client: &Client,
    peer: &mut MemoryPeer,
    method: &'static str,
    error: JsonRpcError,
) -> ClientError {
    let answer = async {
        let request = peer.expect_request(method).await;
        peer.respond_error(&request.id, error).await;
    };
    let sent = async {
        match method {
            "tools/call" => client
                .call_tool("elicit_name", (), mcp_client::CallOptions::default())
                .await
                .map(drop),
            "prompts/get" => client
                .get_prompt("p", None, Default::default())
                .await
                .map(drop),
            "resources/read" => client
                .read_resource("file:///x", Default::default())
                .await
                .map(drop),
            other => panic!("no {other}"),
        }
    };
    let (outcome, ()) = tokio::join!(sent, answer);
    outcome.unwrap_err()
}

#[tokio::test]
async fn under_2026_07_28_the_error_says_what_happened_and_what_to_do() {
    let watcher = Arc::new(Watcher::default());
    let (client, mut peer) = modern(options(&watcher)).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let cases = [
        ("tools/call", "elicitation/create"),
        ("prompts/get", "sampling/createMessage"),
        ("resources/read", "roots/list"),
    ];
    for (method, server_request) in cases {
        let e = refused(&client, &mut peer, method, no_back_channel(server_request)).await;
        match &e {
            ClientError::ServerRequestNotInRevision {
                method: m,
                server_request: r,
                version,
                error,
                ..
            } => {
                assert_eq!(m, method);
                assert_eq!(*r, server_request);
                assert_eq!(*version, ProtocolVersion::V2026_07_28);
                assert!(error.message.contains("back-channel"), "{error:?}");
            }
            other => panic!("{method}: {other:?}"),
        }
        assert!(e.needs_handshake_revision(), "{e:?}");
        assert!(e.is_server_error(), "it is still the server's answer");
        assert_eq!(e.code(), Some(ErrorCode::INVALID_REQUEST));
        let text = e.to_string();
        for part in [
            method,
            server_request,
            "2026-07-28",
            "handshake revision",
            "VersionPreference::Handshake",
        ] {
            assert!(text.contains(part), "{part:?} not in {text:?}");
        }
        // The server's own words are the cause, shown once along the chain.
        let source = std::error::Error::source(&e).expect("source").to_string();
        assert!(source.contains("back-channel"), "{source}");
        assert!(!text.contains("back-channel"), "{text}");
    }
    assert_eq!(*watcher.elicited.lock().unwrap(), 0, "never asked");
    assert_eq!(
        *watcher.refused.lock().unwrap(),
        cases
            .iter()
            .map(|(m, r)| (m.to_string(), r.to_string()))
            .collect::<Vec<_>>(),
        "the handler is told each time"
    );
}

/// Where the advice would be wrong, the server's error stays as it came:
/// an Invalid Request naming no server request under 2026-07-28, another
/// code naming one, and the same error under a handshake revision (a
/// stateless HTTP server of the handshake revisions has no back-channel either,
/// and no other revision would help).
#[tokio::test]
async fn other_errors_stay_server_errors() {
    let watcher = Arc::new(Watcher::default());
    let (client, mut peer) = modern(options(&watcher)).await;
    for error in [
        JsonRpcError::new(ErrorCode::INVALID_REQUEST, "bad request"),
        JsonRpcError::new(ErrorCode::INTERNAL_ERROR, "elicitation/create failed"),
    ] {
        let e = refused(&client, &mut peer, "tools/call", error).await;
        assert!(matches!(e, ClientError::Server { .. }), "{e:?}");
        assert!(!e.needs_handshake_revision());
    }

    let handshake = support::legacy_options()
        .with_handler(watcher.clone())
        .with_elicitation(mcp_client::ElicitationModes::form());
    let (client, mut peer) =
        support::connect_with(handshake, "2025-11-25", json!({"tools": {}})).await;
    let e = refused(
        &client,
        &mut peer,
        "tools/call",
        no_back_channel("elicitation/create"),
    )
    .await;
    assert!(matches!(e, ClientError::Server { .. }), "{e:?}");
    assert!(
        watcher.refused.lock().unwrap().is_empty(),
        "the handler is told only of the typed error"
    );
}
