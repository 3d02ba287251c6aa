//! A remote server that goes away: the transport-level failure of a call
//! triggers a health check, the server is marked disconnected, reconnection
//! is attempted with backoff, and the server ends `Failed` when it does not
//! come back. Uses the Python SDK server over Streamable HTTP.

mod support;

use std::time::Duration;

use mcp_client::VersionPreference;
use mcp_manager::{CallOptions, Manager, ManagerEvent, ServerStatus};
use mcp_tests::peers;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dead_http_server_is_detected_and_given_up() {
    let Some(guard) = peers::skip_if_missing(peers::spawn_python_server(
        peers::PyTransport::StreamableHttp,
        peers::PyOptions::default(),
    )) else {
        return;
    };
    let config = config(json!({"py": {"type": "http", "url": guard.url(), "timeout": 5000}}));
    let mut opts = options();
    // see mixed_config.rs: 2026-07-28 over HTTP needs `Mcp-Name`, not sent yet
    opts.client = opts
        .client
        .with_version_preference(VersionPreference::Handshake);
    let manager = Manager::start(config, opts).await;
    let mut events = manager.events();
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    assert!(
        manager.server_status("py").unwrap().is_connected(),
        "{:?}",
        manager.status()
    );
    let r = manager
        .call_tool("py__echo", json!({"text": "alive"}), CallOptions::default())
        .await
        .unwrap();
    assert!(first_text(&r).contains("alive"));

    drop(guard); // kills the server's process group
    let e = manager
        .call_tool("py__echo", json!({"text": "dead"}), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        e.client_error()
            .is_some_and(|c| c.transport_error().is_some()),
        "{e:?}"
    );

    let mut seen = Vec::new();
    let limit = Duration::from_secs(30);
    let d = expect_event(&mut events, limit, &mut seen, |e| {
        matches!(e, ManagerEvent::Disconnected { .. })
    })
    .await;
    let ManagerEvent::Disconnected { reason, .. } = d else {
        unreachable!()
    };
    assert!(reason.contains("health check failed"), "{reason}");
    expect_event(&mut events, limit, &mut seen, |e| {
        matches!(e, ManagerEvent::Failed { .. })
    })
    .await;
    let attempts = seen
        .iter()
        .filter(|e| matches!(e, ManagerEvent::Reconnecting { .. }))
        .count();
    assert_eq!(attempts, 4, "max_attempts of the test backoff: {seen:#?}");
    assert!(matches!(
        manager.server_status("py"),
        Some(ServerStatus::Failed { .. })
    ));
    manager.shutdown().await;
}
