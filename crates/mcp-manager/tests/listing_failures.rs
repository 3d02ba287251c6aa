//! A `prompts/list` or `resources/list` that fails (at start, or in a
//! refresh after `list_changed`) leaves the server connected with that list
//! empty (or as it was), and is reported by `Manager::listing_failures`, so
//! a status can show the error instead of a count; a later successful
//! listing clears it.

mod support;

use std::time::Duration;

use mcp_manager::{CallOptions, Manager, ManagerEvent, ServerStatus};
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_listings_are_reported_until_a_listing_succeeds() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("listing-failures");
    let fail_file = dir.join("fail");
    std::fs::write(&fail_file, "resources/list\n").unwrap();
    let env = json!({"FIXTURE_FAIL_FILE": fail_file.display().to_string()});
    let config = config(json!({"fx": fixture_entry(&python, env, &[])}));
    let manager = Manager::start(config, options()).await;
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    match manager.server_status("fx").unwrap() {
        ServerStatus::Connected {
            resources, prompts, ..
        } => assert_eq!((resources, prompts), (0, 1)),
        other => panic!("{other}"),
    }
    let methods = |m: &Manager| -> Vec<(String, String)> {
        m.listing_failures("fx")
            .into_iter()
            .map(|f| (f.method, f.error))
            .collect()
    };
    let failures = methods(&manager);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].0, "resources/list");
    assert!(
        failures[0].1.contains("resources/list failed"),
        "{failures:?}"
    );
    assert!(manager.listing_failures("nope").is_empty());

    // A refresh that succeeds clears the failure.
    std::fs::write(&fail_file, "prompts/list\n").unwrap();
    let mut events = manager.events();
    let add = |tool: &'static str, text: &'static str| {
        let manager = &manager;
        async move {
            manager
                .call_tool(tool, json!({ "text": text }), CallOptions::default())
                .await
                .unwrap()
        }
    };
    add("fx__add_resource", "r1").await;
    let mut seen = Vec::new();
    expect_event(
        &mut events,
        Duration::from_secs(10),
        &mut seen,
        |e| matches!(e, ManagerEvent::ResourcesChanged { server } if server == "fx"),
    )
    .await;
    assert_eq!(methods(&manager), Vec::new());
    assert_eq!(manager.resources().len(), 2);

    // A refresh that fails is recorded; the last list stays. The prompts
    // refresh is attempted before a later resources refresh, so the event
    // of the second says the first has been tried.
    add("fx__add_prompt", "p1").await;
    add("fx__add_resource", "r2").await;
    expect_event(&mut events, Duration::from_secs(10), &mut seen, |e| {
        matches!(e, ManagerEvent::ResourcesChanged { server } if server == "fx")
            && manager.resources().len() == 3
    })
    .await;
    let failures = methods(&manager);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].0, "prompts/list");
    assert_eq!(manager.prompts().len(), 1, "the last prompt list stays");
    manager.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
