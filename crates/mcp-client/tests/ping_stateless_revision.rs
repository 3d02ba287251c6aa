//! `Client::ping` on 2026-07-28, where `ping` was removed (spec 2026-07-28
//! § Deprecated vs removed): the liveness check is a `server/discover`
//! round trip; on a handshake revision it is still `ping`.

use mcp_client::testing::memory_pair;
use mcp_client::{Client, ClientOptions, VersionPreference};
use mcp_types::{ErrorCode, JsonRpcError, ProtocolVersion};
use serde_json::json;

fn auto() -> ClientOptions {
    ClientOptions::new("pinger", "1.0.0").with_version_preference(VersionPreference::Auto)
}

fn discover_result() -> serde_json::Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1"}}
    })
}

#[tokio::test]
async fn ping_on_2026_07_28_sends_server_discover() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        peer.respond(&probe.id, discover_result()).await;
        // The ping: a second server/discover (expect_request fails on `ping`).
        let again = peer.expect_request("server/discover").await;
        let meta = &again.params.as_ref().unwrap()["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        peer.respond(&again.id, discover_result()).await;
        // A third one, answered with an error: ping reports it.
        let failing = peer.expect_request("server/discover").await;
        peer.respond_error(
            &failing.id,
            JsonRpcError::new(ErrorCode::INTERNAL_ERROR, "down"),
        )
        .await;
        peer
    });
    let client = Client::connect(transport, auto()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    client
        .ping(Default::default())
        .await
        .expect("ping answered by server/discover");
    let err = client.ping(Default::default()).await.unwrap_err();
    assert!(format!("{err:?}").contains("down"), "{err:?}");
    let peer = server.await.unwrap();
    assert_eq!(peer.pending(), 0);
}

#[tokio::test]
async fn ping_on_a_handshake_revision_is_ping() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        peer.refuse_discover().await;
        peer.handshake("2025-11-25", json!({})).await;
        let ping = peer.expect_request("ping").await;
        peer.respond(&ping.id, json!({})).await;
        peer
    });
    let client = Client::connect(transport, auto()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    client.ping(Default::default()).await.expect("ping");
    server.await.unwrap();
}
