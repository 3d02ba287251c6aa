//! Health and recovery: a server that crashes at runtime is reconnected
//! with backoff and re-listed; the request in flight fails cleanly; a
//! server that cannot come back is retried `max_attempts` times with
//! growing, capped delays, then `Failed`.

mod support;

use std::time::Duration;

use mcp_manager::{Backoff, CallOptions, Manager, ManagerEvent, ServerStatus};
use serde_json::json;
use support::*;

fn text(s: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    json!({ "text": s }).as_object().cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_after_n_calls_reconnects_and_calls_continue() {
    let Some(python) = python3() else { return };
    let config = config(json!({
        "crashy": fixture_entry(&python, json!({}), &["--crash-after", "2"]),
        "steady": fixture_entry(&python, json!({"FIXTURE_LABEL": "steady"}), &[]),
    }));
    let manager = Manager::start(config, options()).await;
    let mut events = manager.events();
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    let first_pid = manager.pid("crashy").unwrap();

    for i in 0..2 {
        let r = manager
            .call_tool("crashy__echo", text(&i.to_string()), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(first_text(&r), format!("fixture:{i}"));
    }
    // The process exits after the 2nd answer: noticed, reconnected, re-listed.
    let mut seen = Vec::new();
    let limit = Duration::from_secs(15);
    expect_event(
        &mut events,
        limit,
        &mut seen,
        |e| matches!(e, ManagerEvent::Disconnected { server, .. } if server == "crashy"),
    )
    .await;
    let e = expect_event(
        &mut events,
        limit,
        &mut seen,
        |e| matches!(e, ManagerEvent::Reconnecting { server, .. } if server == "crashy"),
    )
    .await;
    let ManagerEvent::Reconnecting { attempt, delay, .. } = e else {
        unreachable!()
    };
    assert_eq!(attempt, 1);
    assert!(
        delay <= Duration::from_millis(100),
        "first delay within the base: {delay:?}"
    );
    expect_event(
        &mut events,
        limit,
        &mut seen,
        |e| matches!(e, ManagerEvent::Connected { server, .. } if server == "crashy"),
    )
    .await;
    assert!(manager.server_status("crashy").unwrap().is_connected());
    let second_pid = manager.pid("crashy").unwrap();
    assert_ne!(first_pid, second_pid, "a new process");
    assert!(!alive(first_pid), "the crashed process was reaped");
    assert!(
        manager
            .tools()
            .iter()
            .any(|t| t.qualified_name == "crashy__echo" && !t.cached)
    );
    // The other server was not affected.
    let from = seen
        .iter()
        .position(|e| matches!(e, ManagerEvent::Disconnected { .. }))
        .unwrap();
    assert!(
        seen[from..].iter().all(|e| e.server() == "crashy"),
        "{seen:#?}"
    );
    assert_eq!(
        manager.server_status("steady").map(|s| s.is_connected()),
        Some(true)
    );

    // Calls work again (the new process allows 2 more).
    let r = manager
        .call_tool("crashy__whoami", (), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(first_text(&r), second_pid.to_string());

    // A request in flight when the server dies fails cleanly with a closed error…
    let e = manager
        .call_tool("crashy__crash", (), CallOptions::default())
        .await
        .unwrap_err();
    let client_error = e.client_error().unwrap_or_else(|| panic!("{e}"));
    assert!(client_error.is_closed(), "{e:?}");
    // …and a call made right after waits for the reconnection.
    let r = manager
        .call_tool("crashy__echo", text("back"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(first_text(&r), "fixture:back");
    let r = manager
        .call_tool("steady__echo", text("s"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(first_text(&r), "steady:s");

    let pids: Vec<u32> = ["crashy", "steady"]
        .iter()
        .filter_map(|s| manager.pid(s))
        .collect();
    manager.shutdown().await;
    assert!(wait_gone(&pids, Duration::from_secs(5)).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gives_up_after_max_attempts_with_growing_capped_delays() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("giveup");
    let once = dir.join("once");
    // The first process starts; every later one refuses (exit 1 at once).
    let config = config(json!({
        "fragile": fixture_entry(&python, json!({"FIXTURE_ONCE_FILE": once.display().to_string()}), &[]),
    }));
    let backoff = Backoff::new(
        Duration::from_millis(100),
        Duration::from_millis(300),
        Some(4),
        0.5,
    )
    .unwrap();
    let manager = Manager::start(config, options().with_backoff(backoff)).await;
    let mut events = manager.events();
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    assert!(manager.server_status("fragile").unwrap().is_connected());

    let e = manager
        .call_tool("fragile__crash", (), CallOptions::default())
        .await
        .unwrap_err();
    assert!(e.client_error().is_some_and(|c| c.is_closed()), "{e:?}");

    let mut seen = Vec::new();
    let failed = expect_event(&mut events, Duration::from_secs(20), &mut seen, |e| {
        matches!(e, ManagerEvent::Failed { .. })
    })
    .await;
    let ManagerEvent::Failed { why, .. } = failed else {
        unreachable!()
    };
    assert!(
        why.contains("gave up after 4 reconnection attempts"),
        "{why}"
    );
    let delays: Vec<(u32, Duration)> = seen
        .iter()
        .filter_map(|e| match e {
            ManagerEvent::Reconnecting { attempt, delay, .. } => Some((*attempt, *delay)),
            _ => None,
        })
        .collect();
    assert_eq!(
        delays.iter().map(|d| d.0).collect::<Vec<_>>(),
        [1, 2, 3, 4],
        "{seen:#?}"
    );
    for (attempt, delay) in &delays {
        let ceiling = backoff.ceiling(*attempt);
        assert!(
            *delay <= ceiling,
            "attempt {attempt}: {delay:?} > {ceiling:?}"
        );
        assert!(
            *delay + Duration::from_millis(1) >= ceiling / 2,
            "attempt {attempt}: {delay:?} below the jitter band"
        );
        assert!(*delay <= backoff.cap());
    }
    assert_eq!(backoff.ceiling(3), backoff.cap(), "the cap is reached");
    match manager.server_status("fragile").unwrap() {
        ServerStatus::Failed { why } => assert!(
            why.contains("once-file") || why.contains("gave up"),
            "{why}"
        ),
        other => panic!("{other}"),
    }
    // Its tools leave the namespace; its client is unavailable at once.
    assert!(manager.tools().is_empty(), "{:?}", manager.tools());
    let e = manager
        .call_tool("fragile__echo", (), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(e, mcp_manager::ManagerError::UnknownName { .. }),
        "{e}"
    );
    let e = manager
        .wait_for_client("fragile", mcp_manager::UnavailablePolicy::default())
        .await
        .unwrap_err();
    assert!(e.is_unavailable(), "{e}");
    manager.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
