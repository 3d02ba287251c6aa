//! Progress: the request carries a `progressToken`; updates reach the
//! callback in order; they can reset the timeout up to a total cap;
//! progress for unknown tokens goes to the handler.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::RequestOptions;
use serde_json::json;
use support::*;

#[tokio::test]
async fn updates_arrive_in_order() {
    let (client, mut peer) = connect_full().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let call = tokio::spawn({
        let client = client.clone();
        let seen = seen.clone();
        let opts = RequestOptions::default().with_progress(move |p| {
            seen.lock()
                .unwrap()
                .push((p.progress, p.total, p.message.clone()));
        });
        async move { client.call_tool("long", (), opts).await }
    });
    let req = peer.expect_request("tools/call").await;
    let token = req.params.as_ref().unwrap()["_meta"]["progressToken"].clone();
    assert!(!token.is_null(), "the request carries a progressToken");
    for i in 1..=5 {
        peer.notify(
            "notifications/progress",
            Some(json!({"progressToken": token, "progress": i, "total": 5, "message": format!("step {i}")})),
        )
        .await;
    }
    peer.respond(
        &req.id,
        json!({"content": [{"type": "text", "text": "done"}]}),
    )
    .await;
    call.await.unwrap().unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 5);
    for (i, (p, total, msg)) in seen.iter().enumerate() {
        assert_eq!(*p, (i + 1) as f64);
        assert_eq!(*total, Some(5.0));
        assert_eq!(msg.as_deref(), Some(format!("step {}", i + 1).as_str()));
    }
}

#[tokio::test]
async fn progress_resets_the_timeout_up_to_the_cap() {
    let (client, mut peer) = connect_full().await;
    let call = tokio::spawn({
        let client = client.clone();
        let opts = RequestOptions::default()
            .with_timeout(Duration::from_millis(300))
            .with_progress(|_| {})
            .with_timeout_reset_on_progress(Duration::from_millis(1_500));
        async move { client.call_tool("long", (), opts).await }
    });
    let req = peer.expect_request("tools/call").await;
    let token = req.params.as_ref().unwrap()["_meta"]["progressToken"].clone();
    // Keep it alive past the 300 ms timeout with progress every 150 ms …
    for i in 1..=4 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        peer.notify(
            "notifications/progress",
            Some(json!({"progressToken": token, "progress": i})),
        )
        .await;
    }
    assert!(!call.is_finished(), "progress kept the request alive");
    // … then stop: it times out.
    let err = call.await.unwrap().unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
}

#[tokio::test]
async fn unmatched_progress_goes_to_the_handler() {
    let handler = recorder();
    let (_client, peer) = connect_with(
        legacy_options().with_handler(handler.clone()),
        "2025-11-25",
        json!({}),
    )
    .await;
    peer.notify(
        "notifications/progress",
        Some(json!({"progressToken": "nobody", "progress": 1})),
    )
    .await;
    assert!(
        eventually(|| handler.seen() == vec!["progress \"nobody\""]).await,
        "{:?}",
        handler.seen()
    );
}
