//! Notifications reach the handler; `tools/list_changed` refreshes the
//! cached tool list (debounced) when configured and advertised.

mod support;

use std::time::Duration;

use serde_json::json;
use support::*;

#[tokio::test]
async fn list_changed_refreshes_once_after_a_burst() {
    let handler = recorder();
    let options = legacy_options()
        .with_handler(handler.clone())
        .with_auto_refresh_tools(true);
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    for _ in 0..5 {
        peer.notify("notifications/tools/list_changed", None).await;
    }
    let req = peer.expect_request("tools/list").await;
    peer.respond(
        &req.id,
        json!({"tools": [{"name": "new", "inputSchema": {"type": "object"}}]}),
    )
    .await;
    assert!(eventually(|| client.cached_tools().is_some_and(|t| t[0].name == "new")).await);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(peer.try_next().is_none(), "one refresh for the burst");
    assert_eq!(
        handler
            .seen()
            .iter()
            .filter(|s| *s == "tools/list_changed")
            .count(),
        5
    );
}

#[tokio::test]
async fn no_refresh_when_not_advertised() {
    let options = legacy_options().with_auto_refresh_tools(true);
    let (_client, mut peer) = connect_with(options, "2025-11-25", json!({"tools": {}})).await;
    peer.notify("notifications/tools/list_changed", None).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(peer.try_next().is_none());
}

#[tokio::test]
async fn resource_updates_and_subscriptions() {
    let handler = recorder();
    let (client, mut peer) = connect_with(
        legacy_options().with_handler(handler.clone()),
        "2025-11-25",
        full_caps(),
    )
    .await;
    let sub = tokio::spawn({
        let client = client.clone();
        async move { client.subscribe("test://a", Default::default()).await }
    });
    let req = peer.expect_request("resources/subscribe").await;
    assert_eq!(req.params.as_ref().unwrap()["uri"], "test://a");
    peer.respond(&req.id, json!({})).await;
    sub.await.unwrap().unwrap();
    peer.notify(
        "notifications/resources/updated",
        Some(json!({"uri": "test://a"})),
    )
    .await;
    assert!(eventually(|| handler.seen() == vec!["updated test://a"]).await);
}
