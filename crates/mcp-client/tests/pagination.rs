//! `list_all_*` follows `nextCursor` to the end and stops on cursor loops
//! and at the page cap, keeping what arrived (more shapes in `lenient.rs`).

mod support;

use serde_json::json;
use support::*;

#[tokio::test]
async fn follows_cursors_to_the_end() {
    let (client, mut peer) = connect_full().await;
    let all = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_resources(Default::default()).await }
    });
    for (page, cursor) in [(0, Some("c1")), (1, Some("c2")), (2, None)] {
        let req = peer.expect_request("resources/list").await;
        let expected = if page == 0 {
            None
        } else {
            Some(format!("c{page}"))
        };
        assert_eq!(
            req.params
                .as_ref()
                .and_then(|p| p.get("cursor"))
                .and_then(|c| c.as_str())
                .map(str::to_owned),
            expected
        );
        let resources: Vec<_> = (0..10)
            .map(|i| json!({"uri": format!("test://r/{page}/{i}"), "name": format!("r{page}{i}")}))
            .collect();
        let mut result = json!({"resources": resources});
        if let Some(c) = cursor {
            result["nextCursor"] = json!(c);
        }
        peer.respond(&req.id, result).await;
    }
    let all = all.await.unwrap().unwrap();
    assert_eq!(all.len(), 30);
    assert_eq!(all[29].uri, "test://r/2/9");
}

#[tokio::test]
async fn repeated_cursor_stops() {
    let (client, mut peer) = connect_full().await;
    let all = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_prompts(Default::default()).await }
    });
    for _ in 0..2 {
        let req = peer.expect_request("prompts/list").await;
        peer.respond(
            &req.id,
            json!({"prompts": [{"name": "p"}], "nextCursor": "same"}),
        )
        .await;
    }
    let prompts = all.await.unwrap().unwrap();
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    assert!(peer.try_next().is_none());
}

#[tokio::test]
async fn page_cap_stops() {
    let options = legacy_options().with_max_pages(3);
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    let all = tokio::spawn({
        let client = client.clone();
        async move { client.list_all_tools(Default::default()).await }
    });
    for i in 0..3 {
        let req = peer.expect_request("tools/list").await;
        peer.respond(&req.id, json!({"tools": [], "nextCursor": format!("c{i}")}))
            .await;
    }
    assert!(all.await.unwrap().unwrap().is_empty());
    assert!(peer.try_next().is_none());
}

#[tokio::test]
async fn templates_and_tasks_paginate_too() {
    let (client, mut peer) = connect_full().await;
    let both = tokio::spawn({
        let client = client.clone();
        async move {
            (
                client.list_all_resource_templates(Default::default()).await,
                client.list_all_tasks(Default::default()).await,
            )
        }
    });
    let req = peer.expect_request("resources/templates/list").await;
    peer.respond(&req.id, json!({"resourceTemplates": [{"uriTemplate": "test://{id}", "name": "t"}], "nextCursor": "n"})).await;
    let req = peer.expect_request("resources/templates/list").await;
    peer.respond(
        &req.id,
        json!({"resourceTemplates": [{"uriTemplate": "test://x/{id}", "name": "u"}]}),
    )
    .await;
    let req = peer.expect_request("tasks/list").await;
    peer.respond(&req.id, json!({"tasks": []})).await;
    let (templates, tasks) = both.await.unwrap();
    assert_eq!(templates.unwrap().len(), 2);
    assert!(tasks.unwrap().is_empty());
}
