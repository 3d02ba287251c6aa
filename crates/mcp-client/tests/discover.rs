//! The probe for either kind of revision (2026-07-28 client checklist §0): `server/discover`
//! first, then `initialize` for handshake-revision servers; per-request `_meta` for a stateless one.

use std::time::Duration;

use mcp_client::testing::memory_pair;
use mcp_client::{Client, ClientOptions, VersionPreference};
use mcp_types::{ErrorCode, JsonRpcError, ProtocolVersion};
use serde_json::json;

fn auto() -> ClientOptions {
    ClientOptions::new("dual", "1.0.0").with_version_preference(VersionPreference::Auto)
}

#[tokio::test]
async fn legacy_server_refusing_discover_gets_initialize() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.refuse_discover().await;
        let meta = &probe.params.as_ref().unwrap()["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "dual");
        assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
        let init = peer.handshake("2025-06-18", json!({"tools": {}})).await;
        assert_eq!(init.params.unwrap()["protocolVersion"], "2025-11-25");
        peer
    });
    let client = Client::connect(transport, auto()).await.unwrap();
    let peer = server.await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    assert_eq!(
        peer.protocol_versions(),
        vec![
            ProtocolVersion::V2026_07_28,
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2025_06_18
        ]
    );
}

#[tokio::test]
async fn silent_legacy_server_falls_back_after_the_probe_timeout() {
    let (transport, mut peer) = memory_pair();
    let options = auto().with_discover_timeout(Duration::from_millis(150));
    let server = tokio::spawn(async move {
        peer.expect_request("server/discover").await;
        // The probe is abandoned silently (a legacy server must see nothing
        // before initialize, not even notifications/cancelled); then initialize.
        // (`expect_request` fails on any other message, a cancellation included.)
        peer.handshake("2025-11-25", json!({})).await;
        peer
    });
    let client = Client::connect(transport, options).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    server.await.unwrap();
}

#[tokio::test]
async fn modern_server_is_used_statelessly() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        peer.respond(
            &probe.id,
            json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28", "2025-11-25"],
                "capabilities": {"tools": {}},
                "instructions": "modern",
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-srv", "version": "2"}}
            }),
        )
        .await;
        let list = peer.expect_request("tools/list").await;
        let meta = &list.params.as_ref().unwrap()["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["version"],
            "1.0.0"
        );
        peer.respond(
            &list.id,
            json!({"resultType": "complete", "tools": [], "ttlMs": 0}),
        )
        .await;
        peer
    });
    let client = Client::connect(transport, auto()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().name, "modern-srv");
    assert_eq!(client.instructions().as_deref(), Some("modern"));
    assert!(
        client
            .list_all_tools(Default::default())
            .await
            .unwrap()
            .is_empty()
    );
    let peer = server.await.unwrap();
    // logging/setLevel does not exist in 2026-07-28: refused locally. (`ping`
    // sends server/discover there: tests/ping_stateless_revision.rs.)
    let err = client
        .set_logging_level(mcp_types::logging::LoggingLevel::Info, Default::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, mcp_client::ClientError::MethodNotInRevision { .. }),
        "{err:?}"
    );
    assert_eq!(peer.pending(), 0);
}

#[tokio::test]
async fn unsupported_version_with_only_legacy_versions_uses_initialize() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        let mut e = JsonRpcError::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "unsupported");
        e.data = Some(json!({"supported": ["2025-06-18"], "requested": "2026-07-28"}));
        peer.respond_error(&probe.id, e).await;
        let init = peer.handshake("2025-06-18", json!({})).await;
        assert_eq!(init.params.unwrap()["protocolVersion"], "2025-06-18");
    });
    let client = Client::connect(transport, auto()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    server.await.unwrap();
}

#[tokio::test]
async fn modern_header_mismatch_is_not_a_fallback() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        peer.respond_error(
            &probe.id,
            JsonRpcError::new(ErrorCode::HEADER_MISMATCH, "header mismatch"),
        )
        .await;
        peer
    });
    let err = Client::connect(transport, auto()).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::HEADER_MISMATCH));
    let mut peer = server.await.unwrap();
    assert!(
        peer.try_next().is_none(),
        "no initialize after a stateless-revision error"
    );
}

#[tokio::test]
async fn only_modern_does_not_fall_back() {
    let (transport, mut peer) = memory_pair();
    let options =
        auto().with_version_preference(VersionPreference::Only(ProtocolVersion::V2026_07_28));
    let server = tokio::spawn(async move {
        peer.refuse_discover().await;
        peer
    });
    let err = Client::connect(transport, options).await.unwrap_err();
    assert!(err.is_version_mismatch(), "{err:?}");
    server.await.unwrap();
}

fn unsupported(requested: &str, supported: &[&str]) -> JsonRpcError {
    let mut e = JsonRpcError::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    );
    e.data = Some(json!({"supported": supported, "requested": requested}));
    e
}

fn only_stateless() -> ClientOptions {
    auto().with_version_preference(VersionPreference::Only(ProtocolVersion::V2026_07_28))
}

/// SEP-2575: a `-32022` whose `data.supported` lists the very revision the
/// client asked for is retried (once) with it, not taken as a mismatch.
#[tokio::test]
async fn unsupported_error_listing_the_asked_version_is_retried_once() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let first = peer.expect_request("server/discover").await;
        peer.respond_error(&first.id, unsupported("2026-07-28", &["2026-07-28"]))
            .await;
        let retry = peer.expect_request("server/discover").await;
        assert_ne!(retry.id, first.id, "a retry is a new request");
        assert_eq!(
            retry.params.as_ref().unwrap()["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        peer.respond(
            &retry.id,
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                   "capabilities": {}, "ttlMs": 0}),
        )
        .await;
        peer
    });
    let client = Client::connect(transport, only_stateless()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let peer = server.await.unwrap();
    assert_eq!(
        peer.protocol_versions(),
        vec![ProtocolVersion::V2026_07_28, ProtocolVersion::V2026_07_28],
        "both probes under 2026-07-28"
    );
}

#[tokio::test]
async fn a_second_unsupported_error_is_a_version_mismatch() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        for _ in 0..2 {
            let probe = peer.expect_request("server/discover").await;
            peer.respond_error(&probe.id, unsupported("2026-07-28", &["2026-07-28"]))
                .await;
        }
        peer
    });
    let err = Client::connect(transport, only_stateless())
        .await
        .unwrap_err();
    assert!(err.is_version_mismatch(), "{err:?}");
    let mut peer = server.await.unwrap();
    assert!(peer.try_next().is_none(), "no third probe, no initialize");
}

#[tokio::test]
async fn auto_retries_the_stateless_revision_then_falls_back_to_initialize() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        for _ in 0..2 {
            let probe = peer.expect_request("server/discover").await;
            peer.respond_error(
                &probe.id,
                unsupported("2026-07-28", &["2026-07-28", "2025-11-25"]),
            )
            .await;
        }
        let init = peer.handshake("2025-11-25", json!({})).await;
        assert_eq!(init.params.unwrap()["protocolVersion"], "2025-11-25");
    });
    let client = Client::connect(transport, auto()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    server.await.unwrap();
}

fn discover_result() -> serde_json::Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "slow-modern", "version": "1"}}
    })
}

fn refused_as_stateless() -> JsonRpcError {
    let mut e = JsonRpcError::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        "this server speaks 2026-07-28",
    );
    e.data = Some(json!({"supported": ["2026-07-28"], "requested": "2025-11-25"}));
    e
}

/// A server that speaks both kinds of revision that starts slowly (a cold `uvx`, a model loading):
/// silent past the probe's silence timeout, then it reads its stdin in
/// order, answers the probe (committing to 2026-07-28) and refuses the
/// `initialize` that went out meanwhile with -32022. The probe's late answer
/// decides the kind of revision, in every order the two answers may arrive in.
#[tokio::test]
async fn slow_dual_era_server_is_modern_whatever_answers_first() {
    for probe_first in [true, false] {
        let (transport, mut peer) = memory_pair();
        let options = auto().with_discover_timeout(Duration::from_millis(100));
        let server = tokio::spawn(async move {
            let probe = peer.expect_request("server/discover").await;
            let init = peer.expect_request("initialize").await;
            if probe_first {
                peer.respond(&probe.id, discover_result()).await;
                peer.respond_error(&init.id, refused_as_stateless()).await;
            } else {
                peer.respond_error(&init.id, refused_as_stateless()).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
                peer.respond(&probe.id, discover_result()).await;
            }
            let ping = peer.expect_request("tools/list").await;
            peer.respond(&ping.id, json!({"tools": []})).await;
            peer
        });
        let client = Client::connect(transport, options)
            .await
            .unwrap_or_else(|e| panic!("probe_first={probe_first}: {e}"));
        assert_eq!(
            client.protocol_version(),
            ProtocolVersion::V2026_07_28,
            "probe_first={probe_first}"
        );
        assert_eq!(client.server_info().name, "slow-modern");
        client.list_tools(None, Default::default()).await.unwrap();
        let peer = server.await.unwrap();
        assert_eq!(
            peer.protocol_versions().last(),
            Some(&ProtocolVersion::V2026_07_28),
            "probe_first={probe_first}: the transport is left on the probe's revision"
        );
    }
}

/// A silent legacy server (it ignores the unknown probe) is still reached
/// after the silence timeout, with the probe left open; and one that answers
/// the probe late with -32601 gets the handshake it answered.
#[tokio::test]
async fn slow_legacy_server_is_reached_whatever_answers_first() {
    for late_refusal in [false, true] {
        let (transport, mut peer) = memory_pair();
        let options = auto().with_discover_timeout(Duration::from_millis(100));
        let server = tokio::spawn(async move {
            let probe = peer.expect_request("server/discover").await;
            if late_refusal {
                tokio::time::sleep(Duration::from_millis(150)).await;
                peer.respond_error(&probe.id, JsonRpcError::method_not_found("server/discover"))
                    .await;
            }
            peer.handshake("2025-06-18", json!({})).await;
            peer
        });
        let client = Client::connect(transport, options)
            .await
            .unwrap_or_else(|e| panic!("late_refusal={late_refusal}: {e}"));
        assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
        server.await.unwrap();
    }
}

/// `initialize` refused with -32022 after a handshake verdict (the probe was
/// answered with an error a legacy server gives) means the server is stateless
/// after all: it is probed again instead of reported as a version mismatch.
#[tokio::test]
async fn initialize_refused_with_32022_probes_again() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        peer.refuse_discover().await;
        let init = peer.expect_request("initialize").await;
        peer.respond_error(&init.id, refused_as_stateless()).await;
        let probe = peer.expect_request("server/discover").await;
        peer.respond(&probe.id, discover_result()).await;
        peer
    });
    let client = Client::connect(transport, auto()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    server.await.unwrap();
}

/// With the handshake revisions asked for, -32022 from `initialize` is a version
/// mismatch naming what the server speaks.
#[tokio::test]
async fn legacy_preference_reports_a_modern_only_server() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let init = peer.expect_request("initialize").await;
        peer.respond_error(&init.id, refused_as_stateless()).await;
        peer
    });
    let options = auto().with_version_preference(VersionPreference::Handshake);
    let err = Client::connect(transport, options).await.unwrap_err();
    assert!(err.is_version_mismatch(), "{err:?}");
    assert!(err.to_string().contains("2026-07-28"), "{err}");
    server.await.unwrap();
}
