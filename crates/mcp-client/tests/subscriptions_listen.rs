//! `Client::listen` (`subscriptions/listen`, spec 2026-07-28 §5): the
//! request shape, the acknowledgement, notification delivery to the
//! subscription and the handler, the end of a subscription, and dropping it
//! (`notifications/cancelled` with the listen id on a connection like
//! stdio); `MethodNotInRevision` on older revisions.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::time::Duration;

use mcp_client::ServerFault;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_client::{Client, ClientError, ClientOptions, SubscriptionEvent, VersionPreference};
use mcp_types::subscriptions::SubscriptionFilter;
use mcp_types::{ErrorCode, JsonRpcError, JsonRpcRequest, RequestId};
use serde_json::{Value, json};
use support::*;

const SUB_ID: &str = "io.modelcontextprotocol/subscriptionId";

fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1"}}
    })
}

async fn connect_stateless(options: ClientOptions) -> (Client, MemoryPeer) {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        let probe = peer.expect_request("server/discover").await;
        peer.respond(&probe.id, discover_result()).await;
        peer
    });
    let options = options.with_version_preference(VersionPreference::Auto);
    let client = Client::connect(transport, options).await.expect("connect");
    (client, server.await.expect("peer task"))
}

fn filter() -> SubscriptionFilter {
    SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resource_subscriptions: Some(vec!["file:///a".into()]),
        ..Default::default()
    }
}

fn id_value(id: &RequestId) -> Value {
    serde_json::to_value(id).expect("id encodes")
}

/// Plays the server side of a listen: expects the request, acknowledges
/// `granted`; returns the request.
async fn accept_listen(peer: &mut MemoryPeer, granted: Value) -> JsonRpcRequest {
    let listen = peer.expect_request("subscriptions/listen").await;
    peer.notify(
        "notifications/subscriptions/acknowledged",
        Some(json!({"_meta": {SUB_ID: id_value(&listen.id)}, "notifications": granted})),
    )
    .await;
    listen
}

#[tokio::test]
async fn listen_sends_the_filter_and_returns_the_granted_subset() {
    let (client, mut peer) = connect_stateless(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let listen = accept_listen(
            &mut peer,
            json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]}),
        )
        .await;
        (peer, listen)
    });
    let subscription = client
        .listen(filter(), Default::default())
        .await
        .expect("acknowledged");
    let (peer, listen) = server.await.expect("peer task");
    let params = listen.params.as_ref().expect("params");
    assert_eq!(
        params["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true,
               "resourceSubscriptions": ["file:///a"]})
    );
    assert_eq!(
        params["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(subscription.id(), Some(&listen.id));
    assert_eq!(subscription.requested(), &filter());
    assert_eq!(subscription.granted().tools_list_changed, Some(true));
    assert_eq!(
        subscription.granted().prompts_list_changed,
        None,
        "prompts were not granted"
    );
    // The listen stays in flight: no timeout applies to it.
    assert_eq!(peer.pending(), 1);
}

#[tokio::test]
async fn notifications_reach_the_subscription_and_the_handler() {
    let handler = recorder();
    let (client, mut peer) =
        connect_stateless(ClientOptions::new("t", "1").with_handler(handler.clone())).await;
    let server = tokio::spawn(async move {
        let listen = accept_listen(
            &mut peer,
            json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]}),
        )
        .await;
        (peer, listen)
    });
    let mut subscription = client
        .listen(filter(), Default::default())
        .await
        .expect("acknowledged");
    let (peer, listen) = server.await.expect("peer task");
    let meta = json!({SUB_ID: id_value(&listen.id)});
    peer.notify(
        "notifications/tools/list_changed",
        Some(json!({"_meta": meta})),
    )
    .await;
    peer.notify(
        "notifications/resources/updated",
        Some(json!({"uri": "file:///a/b", "_meta": meta})),
    )
    .await;
    // Tagged with another id: not this subscription's (the handler still sees it).
    peer.notify(
        "notifications/tools/list_changed",
        Some(json!({"_meta": {SUB_ID: "other"}})),
    )
    .await;
    let first = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("in time");
    assert!(
        matches!(first, Some(SubscriptionEvent::ToolsListChanged)),
        "{first:?}"
    );
    let second = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("in time");
    match second {
        Some(SubscriptionEvent::ResourceUpdated(p)) => assert_eq!(p.uri, "file:///a/b"),
        other => panic!("expected resources/updated, got {other:?}"),
    }
    assert!(
        eventually(|| handler.seen()
            == vec![
                "tools/list_changed",
                "updated file:///a/b",
                "tools/list_changed"
            ])
        .await,
        "{:?}",
        handler.seen()
    );
    // The acknowledgement was consumed by the client, not handed on.
    assert!(!handler.seen().iter().any(|s| s.contains("acknowledged")));
    // The third notification did not reach this subscription.
    let more = tokio::time::timeout(Duration::from_millis(200), subscription.next()).await;
    assert!(more.is_err(), "unexpected event {more:?}");
}

#[tokio::test]
async fn dropping_the_subscription_sends_cancelled_with_the_listen_id() {
    let (client, mut peer) = connect_stateless(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let listen = accept_listen(&mut peer, json!({"toolsListChanged": true})).await;
        (peer, listen)
    });
    let subscription = client
        .listen(filter(), Default::default())
        .await
        .expect("acknowledged");
    let (mut peer, listen) = server.await.expect("peer task");
    drop(subscription);
    let cancelled = peer.expect_notification("notifications/cancelled").await;
    assert_eq!(
        cancelled.params.as_ref().expect("params")["requestId"],
        id_value(&listen.id)
    );
    assert!(eventually(|| peer.pending() == 0).await);
    // A late notification for it goes to the handler only; the client lives on.
    peer.notify(
        "notifications/tools/list_changed",
        Some(json!({"_meta": {SUB_ID: id_value(&listen.id)}})),
    )
    .await;
    assert!(client.is_connected());
}

#[tokio::test]
async fn the_server_ends_the_subscription() {
    let (client, mut peer) = connect_stateless(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let first = accept_listen(&mut peer, json!({"toolsListChanged": true})).await;
        (peer, first)
    });
    let mut graceful = client
        .listen(filter(), Default::default())
        .await
        .expect("acknowledged");
    let (mut peer, first) = server.await.expect("peer task");

    // Graceful closure: a response to the listen request.
    peer.respond(
        &first.id,
        json!({"resultType": "complete", "_meta": {SUB_ID: id_value(&first.id)}}),
    )
    .await;
    let end = tokio::time::timeout(Duration::from_secs(5), graceful.next())
        .await
        .expect("in time");
    assert!(matches!(end, Some(SubscriptionEvent::Ended(_))), "{end:?}");
    assert!(
        graceful.next().await.is_none(),
        "nothing after the final event"
    );

    // A server `notifications/cancelled` for the listen (stdio).
    let server = tokio::spawn(async move {
        let second = accept_listen(&mut peer, json!({"toolsListChanged": true})).await;
        (peer, second)
    });
    let mut cancelled = client
        .listen(filter(), Default::default())
        .await
        .expect("acknowledged");
    let (peer, second) = server.await.expect("peer task");
    peer.notify(
        "notifications/cancelled",
        Some(json!({"requestId": id_value(&second.id), "reason": "shutting down"})),
    )
    .await;
    let end = tokio::time::timeout(Duration::from_secs(5), cancelled.next())
        .await
        .expect("in time");
    match end {
        Some(SubscriptionEvent::CancelledByServer { reason }) => {
            assert_eq!(reason.as_deref(), Some("shutting down"))
        }
        other => panic!("expected the server's cancellation, got {other:?}"),
    }
    assert!(cancelled.next().await.is_none());
}

#[tokio::test]
async fn a_refused_listen_is_an_error() {
    let (client, mut peer) = connect_stateless(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let listen = peer.expect_request("subscriptions/listen").await;
        peer.respond_error(
            &listen.id,
            JsonRpcError::method_not_found("subscriptions/listen"),
        )
        .await;
        peer
    });
    let err = client
        .listen(filter(), Default::default())
        .await
        .expect_err("refused");
    assert_eq!(
        err.server_error().map(|e| e.code),
        Some(ErrorCode::METHOD_NOT_FOUND),
        "{err:?}"
    );
    let peer = server.await.expect("peer task");
    assert_eq!(peer.pending(), 0);
}

/// A server that answers the listen before acknowledging it broke the
/// protocol: the listen fails with that fault, not a timeout.
#[tokio::test]
async fn a_listen_answered_before_its_acknowledgement_is_the_servers_fault() {
    let (client, mut peer) = connect_stateless(ClientOptions::new("t", "1")).await;
    let server = tokio::spawn(async move {
        let listen = peer.expect_request("subscriptions/listen").await;
        peer.respond(&listen.id, json!({"resultType": "complete"}))
            .await;
        peer
    });
    let err = client
        .listen(filter(), Default::default())
        .await
        .expect_err("not acknowledged");
    assert_eq!(
        err.server_fault(),
        Some(&ServerFault::ListenEndedUnacknowledged),
        "{err:?}"
    );
    server.await.expect("peer task");
}

#[tokio::test]
async fn no_acknowledgement_times_out_and_cancels_the_listen() {
    let options = ClientOptions::new("t", "1").with_request_timeout(Duration::from_millis(200));
    let (client, mut peer) = connect_stateless(options).await;
    let err = client
        .listen(filter(), Default::default())
        .await
        .expect_err("no ack");
    assert!(err.is_timeout(), "{err:?}");
    let listen = peer.expect_request("subscriptions/listen").await;
    let cancelled = peer.expect_notification("notifications/cancelled").await;
    assert_eq!(
        cancelled.params.as_ref().expect("params")["requestId"],
        id_value(&listen.id)
    );
}

#[tokio::test]
async fn listen_is_not_in_older_revisions() {
    let (client, mut peer) = connect_with(legacy_options(), "2025-11-25", full_caps()).await;
    let err = client
        .listen(filter(), Default::default())
        .await
        .expect_err("not in 2025-11-25");
    assert!(
        matches!(err, ClientError::MethodNotInRevision { ref method, .. } if method == "subscriptions/listen"),
        "{err:?}"
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(peer.try_next().is_none(), "nothing was sent");
}

/// `listen` takes the same `RequestOptions` as every request method: their
/// cancel token ends the subscription (with a cancelled error, and
/// `notifications/cancelled` for the listen), their timeout bounds the wait
/// for the acknowledgement in place of the client's request timeout.
#[tokio::test(start_paused = true)]
async fn listen_options_cancel_the_subscription_and_bound_the_acknowledgement() {
    let (client, mut peer) = connect_stateless(ClientOptions::new("t", "1")).await;
    let token = mcp_client::CancellationToken::new();
    let server = tokio::spawn(async move {
        let listen = accept_listen(&mut peer, json!({"toolsListChanged": true})).await;
        (peer, listen)
    });
    let options = mcp_client::RequestOptions::default().with_cancel(token.clone());
    let mut subscription = client
        .listen(filter(), options)
        .await
        .expect("acknowledged");
    let (mut peer, listen) = server.await.expect("peer task");
    // Acknowledged long after the per-request timeout would have passed:
    // the listen itself has no timeout.
    tokio::time::sleep(Duration::from_secs(3600)).await;
    token.cancel();
    match tokio::time::timeout(Duration::from_secs(5), subscription.next()).await {
        Ok(Some(SubscriptionEvent::Failed(e))) => assert!(e.is_cancelled(), "{e:?}"),
        other => panic!("expected a cancelled end, got {other:?}"),
    }
    let note = peer.expect_notification("notifications/cancelled").await;
    assert_eq!(
        note.params.expect("params")["requestId"],
        id_value(&listen.id)
    );

    // A per-call timeout bounds the acknowledgement even when the client's
    // own is an hour; without a timeout it waits as long as it takes.
    let options = ClientOptions::new("t", "1").with_request_timeout(Duration::from_secs(3600));
    let (client, mut peer) = connect_stateless(options).await;
    let short = mcp_client::RequestOptions::default().with_timeout(Duration::from_millis(200));
    let listen = tokio::spawn({
        let client = client.clone();
        async move { client.listen(filter(), short).await.map(drop) }
    });
    peer.expect_request("subscriptions/listen").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let err = listen.await.unwrap().unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    peer.expect_notification("notifications/cancelled").await;
    let unlimited = mcp_client::RequestOptions::default().without_timeout();
    let listen = tokio::spawn({
        let client = client.clone();
        async move { client.listen(filter(), unlimited).await.map(drop) }
    });
    peer.expect_request("subscriptions/listen").await;
    tokio::time::sleep(Duration::from_secs(7200)).await;
    assert!(!listen.is_finished(), "no timeout: still waiting");
    listen.abort();
}
