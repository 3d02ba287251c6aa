//! The on-disk tool cache: a second start lists the last known tools of a
//! server still starting, marked cached; a call to one waits for the
//! connection (or fails fast, by option); once connected the tools are
//! fresh.

mod support;

use std::time::{Duration, Instant};

use mcp_manager::{CallOptions, Manager, ManagerError, ServerStatus, UnavailablePolicy};
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_tools_are_listed_and_calls_wait_for_the_connection() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("cache");
    let cache_dir = dir.join("cache");
    // The delay is in an env value, which is not part of the cache key.
    let entry = |delay_ms: u64| {
        fixture_entry(
            &python,
            json!({"FIXTURE_TOOLS": "special", "INIT_DELAY_MS": delay_ms.to_string()}),
            &[],
        )
    };

    // 1st run: connects and writes the cache.
    let opts = || options().with_cache_dir(Some(cache_dir.clone()));
    let manager = Manager::start(config(json!({"slow": entry(0)})), opts()).await;
    assert!(manager.tools().is_empty(), "no cache yet");
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    assert!(manager.server_status("slow").unwrap().is_connected());
    let fresh: Vec<String> = manager
        .tools()
        .iter()
        .map(|t| t.qualified_name.clone())
        .collect();
    assert!(
        fresh.contains(&"slow__special".to_owned()),
        "{fresh:?} {:?}",
        manager.status()
    );
    manager.shutdown().await;
    let files: Vec<_> = std::fs::read_dir(&cache_dir).unwrap().collect();
    assert_eq!(files.len(), 1, "one cache file");

    // 2nd run: the server takes 1.5 s to answer initialize.
    let manager = Manager::start(config(json!({"slow": entry(1500)})), opts()).await;
    assert_eq!(manager.server_status("slow"), Some(ServerStatus::Starting));
    let cached = manager.tools();
    let names: Vec<String> = cached.iter().map(|t| t.qualified_name.clone()).collect();
    assert_eq!(names, fresh, "the last known tools, under the same names");
    assert!(cached.iter().all(|t| t.cached), "marked cached");

    // A call to a cached tool waits for the connection instead of failing.
    let t = Instant::now();
    let r = manager
        .call_tool(
            "slow__special",
            json!({"text": "x"}),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "fixture:x");
    assert!(t.elapsed() < Duration::from_secs(20));
    assert!(manager.server_status("slow").unwrap().is_connected());
    assert!(
        manager.tools().iter().all(|t| !t.cached),
        "fresh after connecting"
    );
    manager.shutdown().await;

    // Fail-fast policy: the same call fails at once while starting.
    let manager = Manager::start(
        config(json!({"slow": entry(1500)})),
        opts().with_unavailable(UnavailablePolicy::FailFast),
    )
    .await;
    assert!(manager.tools().iter().all(|t| t.cached));
    let e = manager
        .call_tool("slow__special", (), CallOptions::default())
        .await
        .unwrap_err();
    match &e {
        ManagerError::Unavailable { server, status, .. } => {
            assert_eq!(server, "slow");
            assert_eq!(*status, ServerStatus::Starting);
        }
        other => panic!("{other}"),
    }
    manager.shutdown().await;

    // A bounded wait shorter than the startup gives WaitTimeout.
    let manager = Manager::start(
        config(json!({"slow": entry(3000)})),
        opts().with_unavailable(UnavailablePolicy::Wait(Duration::from_millis(300))),
    )
    .await;
    let e = manager
        .call_tool("slow__special", (), CallOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(e, ManagerError::WaitTimeout { .. }), "{e}");
    assert!(e.is_unavailable());
    manager.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
