//! `notifications/{tools,prompts,resources}/list_changed` refresh that
//! server's part of the namespace (tools: and its cache), with a
//! `ToolsChanged` / `PromptsChanged` / `ResourcesChanged` event.

mod support;

use std::time::Duration;

use mcp_manager::{CallOptions, Manager, ManagerEvent, ServerStatus};
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_refreshes_the_namespace() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("listchanged");
    let config = config(json!({
        "dyn": fixture_entry(&python, json!({}), &[]),
        "other": fixture_entry(&python, json!({}), &[]),
    }));
    let manager = Manager::start(config, options().with_cache_dir(Some(dir.clone()))).await;
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    let before = manager.tools().len();
    assert!(manager.resolve_tool("dyn__brand_new").is_none());
    let mut events = manager.events();

    let r = manager
        .call_tool(
            "dyn__add_tool",
            json!({"text": "brand.new"}),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "added");
    let mut seen = Vec::new();
    expect_event(
        &mut events,
        Duration::from_secs(10),
        &mut seen,
        // (the first start's ToolsChanged may still be in the channel)
        |e| {
            matches!(e, ManagerEvent::ToolsChanged { server } if server == "dyn")
                && manager.resolve_tool("dyn__brand_new").is_some()
        },
    )
    .await;
    assert_eq!(manager.tools().len(), before + 1);
    // sanitized name, mapping back to the server's own name
    assert_eq!(
        manager.resolve_tool("dyn__brand_new"),
        Some(("dyn".to_owned(), "brand.new".to_owned()))
    );
    match manager.server_status("dyn").unwrap() {
        ServerStatus::Connected { tools, .. } => assert_eq!(tools, 7),
        other => panic!("{other}"),
    }
    let r = manager
        .call_tool(
            "dyn__brand_new",
            json!({"text": "y"}),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "fixture:y");
    // the other server's part is untouched
    assert!(manager.resolve_tool("other__brand_new").is_none());

    // prompts and resources likewise
    let arg = |t: &str| json!({ "text": t });
    manager
        .call_tool("dyn__add_prompt", arg("later"), CallOptions::default())
        .await
        .unwrap();
    expect_event(
        &mut events,
        Duration::from_secs(10),
        &mut seen,
        |e| matches!(e, ManagerEvent::PromptsChanged { server } if server == "dyn"),
    )
    .await;
    assert!(
        manager
            .prompts()
            .iter()
            .any(|p| p.qualified_name == "dyn__later")
    );
    let p = manager
        .get_prompt("dyn__later", None, Default::default())
        .await
        .unwrap();
    assert_eq!(p.messages.len(), 1);
    manager
        .call_tool("dyn__add_resource", arg("b"), CallOptions::default())
        .await
        .unwrap();
    expect_event(
        &mut events,
        Duration::from_secs(10),
        &mut seen,
        |e| matches!(e, ManagerEvent::ResourcesChanged { server } if server == "dyn"),
    )
    .await;
    let entry = manager
        .resource("dyn", "fixture://b")
        .expect("new resource listed");
    assert_eq!(entry.qualified_name, "dyn__b");
    let r = manager
        .read_resource("dyn", "fixture://b", Default::default())
        .await
        .unwrap();
    assert_eq!(r.contents.len(), 1);
    assert!(manager.resource("other", "fixture://b").is_none());
    match manager.server_status("dyn").unwrap() {
        ServerStatus::Connected {
            tools,
            prompts,
            resources,
            ..
        } => {
            assert_eq!((tools, prompts, resources), (7, 2, 2));
        }
        other => panic!("{other}"),
    }
    manager.shutdown().await;

    // the refreshed list was cached
    let cache = mcp_manager::cache::ToolCache::new(&dir);
    let cfg = manager.server_config("dyn").unwrap();
    let cached = cache.load(cfg).unwrap();
    assert!(cached.iter().any(|t| t.name == "brand.new"));
    let _ = std::fs::remove_dir_all(&dir);
}
