//! The `initialize` handshake: happy path, older revisions, mismatches,
//! and traffic the client must accept while it is in progress.

mod support;

use mcp_client::testing::memory_pair;
use mcp_client::{Client, ClientError, ElicitationModes, VersionPreference};
use mcp_types::{ErrorCode, JsonRpcError, JsonRpcMessage, ProtocolVersion};
use serde_json::json;
use support::*;

#[tokio::test]
async fn happy_path_sends_initialize_then_initialized() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let init = peer.handshake("2025-11-25", full_caps()).await;
        (init, peer)
    });
    let options = legacy_options()
        .with_roots(true)
        .with_sampling(true)
        .with_elicitation(ElicitationModes::form_and_url());
    let client = Client::connect(transport, options).await.unwrap();
    let (init, peer) = server.await.unwrap();

    let p = init.params.unwrap();
    assert_eq!(p["protocolVersion"], "2025-11-25");
    assert_eq!(
        p["clientInfo"],
        json!({"name": "test-client", "title": "Test Client", "version": "0.1.0"})
    );
    assert_eq!(
        p["capabilities"],
        json!({"roots": {"listChanged": true}, "sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}})
    );
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server_info().name, "mock");
    assert_eq!(client.instructions().as_deref(), Some("be nice"));
    assert!(client.server_capabilities().tools.is_some());
    assert_eq!(
        peer.protocol_versions().last(),
        Some(&ProtocolVersion::V2025_11_25)
    );
    assert!(client.is_connected());
}

#[tokio::test]
async fn no_capabilities_declared_without_handlers() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move { peer.handshake("2025-11-25", json!({})).await });
    Client::connect(transport, legacy_options()).await.unwrap();
    let init = server.await.unwrap();
    assert_eq!(init.params.unwrap()["capabilities"], json!({}));
}

#[tokio::test]
async fn older_revision_is_accepted() {
    let (client, peer) = connect_with(legacy_options(), "2024-11-05", json!({"tools": {}})).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2024_11_05);
    assert_eq!(
        peer.protocol_versions().last(),
        Some(&ProtocolVersion::V2024_11_05)
    );
}

#[tokio::test]
async fn elicitation_is_not_declared_to_older_revisions() {
    let options = legacy_options()
        .with_elicitation(ElicitationModes::form_and_url())
        .with_sampling(true);
    let (client, _peer) = connect_with(options, "2025-03-26", json!({})).await;
    let caps = client.client_capabilities();
    assert!(caps.elicitation.is_none());
    assert!(caps.sampling.unwrap().tools.is_none());
}

#[tokio::test]
async fn unknown_revision_fails_naming_both_and_closes() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let init = peer.expect_request("initialize").await;
        peer.respond(
            &init.id,
            json!({"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}),
        )
        .await;
        // No notifications/initialized may follow.
        let next = peer.next().await;
        (peer, next)
    });
    let err = Client::connect(transport, legacy_options())
        .await
        .unwrap_err();
    match &err {
        ClientError::VersionMismatch { ours, theirs, .. } => {
            assert_eq!(theirs, "1999-01-01");
            assert!(ours.contains(&"2025-11-25".to_owned()), "{ours:?}");
        }
        other => panic!("expected a version mismatch, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("1999-01-01") && msg.contains("2025-11-25"),
        "{msg}"
    );
    let (peer, next) = server.await.unwrap();
    assert!(next.is_none(), "nothing after a mismatch, got {next:?}");
    assert_eq!(peer.close_calls(), 1);
    assert!(!peer.is_open());
}

#[tokio::test]
async fn only_preference_rejects_a_different_revision() {
    let options = legacy_options()
        .with_version_preference(VersionPreference::Only(ProtocolVersion::V2025_06_18));
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let init = peer.expect_request("initialize").await;
        assert_eq!(
            init.params.as_ref().unwrap()["protocolVersion"],
            "2025-06-18"
        );
        peer.respond(
            &init.id,
            json!({"protocolVersion": "2025-03-26", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}),
        )
        .await;
        peer
    });
    let err = Client::connect(transport, options).await.unwrap_err();
    assert!(err.is_version_mismatch(), "{err:?}");
    server.await.unwrap();
}

#[tokio::test]
async fn unsupported_version_error_is_retried_once_with_a_listed_version() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let init = peer.expect_request("initialize").await;
        let mut e = JsonRpcError::new(ErrorCode::INVALID_PARAMS, "Unsupported protocol version");
        e.data = Some(json!({"supported": ["2025-03-26"], "requested": "2025-11-25"}));
        peer.respond_error(&init.id, e).await;
        let again = peer.expect_request("initialize").await;
        assert_eq!(
            again.params.as_ref().unwrap()["protocolVersion"],
            "2025-03-26"
        );
        peer.respond(
            &again.id,
            json!({"protocolVersion": "2025-03-26", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}),
        )
        .await;
        peer.expect_notification("notifications/initialized").await;
    });
    let client = Client::connect(transport, legacy_options()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_03_26);
    server.await.unwrap();
}

#[tokio::test]
async fn initialize_error_is_a_server_error() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let init = peer.expect_request("initialize").await;
        peer.respond_error(
            &init.id,
            JsonRpcError::new(ErrorCode::INTERNAL_ERROR, "boom"),
        )
        .await;
        peer
    });
    let err = Client::connect(transport, legacy_options())
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::INTERNAL_ERROR));
    server.await.unwrap();
}

#[tokio::test]
async fn initialize_times_out_without_cancelling_it() {
    let (transport, mut peer) = memory_pair();
    let options = legacy_options().with_initialize_timeout(std::time::Duration::from_millis(100));
    let err = Client::connect(transport, options).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    let init = peer.expect_request("initialize").await;
    assert_eq!(init.method, "initialize");
    // initialize is never cancelled (spec basic/utilities/cancellation).
    assert!(peer.try_next().is_none());
}

#[tokio::test]
async fn ping_and_logs_are_handled_during_the_handshake() {
    let (transport, mut peer) = memory_pair();
    let handler = recorder();
    let options = legacy_options().with_handler(handler.clone());
    let server = tokio::spawn(async move {
        let init = peer.expect_request("initialize").await;
        peer.request(99, "ping", None).await;
        let pong = peer.expect_response(&99.into()).await;
        assert_eq!(pong.outcome, Ok(json!({})));
        peer.notify(
            "notifications/message",
            Some(json!({"level": "info", "data": "starting"})),
        )
        .await;
        peer.respond(
            &init.id,
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}),
        )
        .await;
        peer.expect_notification("notifications/initialized").await;
        peer
    });
    let _client = Client::connect(transport, options).await.unwrap();
    let _peer = server.await.unwrap();
    assert!(
        eventually(|| handler.seen().contains(&"log \"starting\"".to_owned())).await,
        "{:?}",
        handler.seen()
    );
}

#[tokio::test]
async fn only_initialize_goes_out_before_the_result() {
    let (transport, mut peer) = memory_pair();
    let connect = tokio::spawn(Client::connect(transport, legacy_options()));
    let init = peer.expect_request("initialize").await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(
        peer.try_next().is_none(),
        "nothing but initialize before its result"
    );
    peer.respond(
        &init.id,
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}),
    )
    .await;
    assert!(
        matches!(peer.next().await, Some(JsonRpcMessage::Notification(n)) if n.method == "notifications/initialized")
    );
    let client = connect.await.unwrap().unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
}
