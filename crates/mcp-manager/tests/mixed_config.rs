//! A config mixing server-everything (stdio), the Python SDK server (HTTP),
//! the fixture server, two servers that never answer `initialize`, a
//! command that does not exist, a disabled entry and an invalid entry:
//! per-server status, the namespace, calls through it, independence of
//! slow servers, and a clean shutdown.

mod support;

use std::time::{Duration, Instant};

use mcp_client::VersionPreference;
use mcp_manager::naming::is_valid_name;
use mcp_manager::{CallOptions, Manager, McpConfig, ServerStatus};
use mcp_tests::peers;
use serde_json::{Map, Value, json};
use support::*;

fn args(v: Value) -> Option<Map<String, Value>> {
    v.as_object().cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_config_statuses_namespace_and_shutdown() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("mixed");
    let hang_pids = dir.join("hang.pids");
    let hang_cmd = format!("echo $$ >> {}; exec sleep 1000", hang_pids.display());

    let mut servers = json!({
        "fixture": fixture_entry(&python, json!({"FIXTURE_LABEL": "fx"}), &[]),
        "hang": {"command": "sh", "args": ["-c", hang_cmd], "startupTimeout": 1000},
        "slowpoke": {"command": "sh", "args": ["-c", hang_cmd], "startupTimeout": 60000},
        "missing": {"command": "/nonexistent/definitely-not-here-mcp"},
        "off": {"command": "cat", "disabled": true},
        "broken": {"type": "carrier-pigeon", "url": "http://127.0.0.1:1/"},
    });
    let everything = peers::require_command("server-everything", peers::everything_stdio_command());
    if let Some((program, argv)) = &everything {
        servers["everything"] = json!({"command": program, "args": argv, "startupTimeout": 30000});
    }
    let py = peers::skip_if_missing(peers::spawn_python_server(
        peers::PyTransport::StreamableHttp,
        peers::PyOptions::default(),
    ));
    if let Some(guard) = &py {
        servers["py"] = json!({"type": "http", "url": guard.url()});
    }

    let config = McpConfig::from_json(&json!({ "mcpServers": servers }).to_string()).unwrap();
    assert_eq!(config.errors.len(), 1, "{:?}", config.errors);
    assert_eq!(config.errors[0].path, "mcpServers.broken.type");
    assert!(!config.servers.contains_key("broken"));

    let started = Instant::now();
    // Handshake revisions only: over HTTP, 2026-07-28 needs the `Mcp-Name`
    // header, which mcp-transport-http does not send yet (the Python SDK
    // answers -32020); the manager's behaviour does not depend on the revision.
    let mut opts = options();
    opts.client = opts
        .client
        .with_version_preference(VersionPreference::Handshake);
    let manager = Manager::start(config, opts).await;
    assert!(manager.server_status("broken").is_none());
    assert_eq!(manager.server_status("off"), Some(ServerStatus::Disabled));

    // The fast servers connect while `slowpoke` (60 s startup timeout) is
    // still starting: one hanging server delays no other.
    let mut connected = vec!["fixture"];
    if everything.is_some() {
        connected.push("everything");
    }
    if py.is_some() {
        connected.push("py");
    }
    let mut events = manager.events();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let status = manager.status();
        let done = connected.iter().all(|s| status[*s].is_connected())
            && matches!(status["hang"], ServerStatus::Failed { .. })
            && matches!(status["missing"], ServerStatus::Failed { .. });
        if done {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "servers did not settle: {status:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(started.elapsed() < Duration::from_secs(30));
    let status = manager.status();
    assert_eq!(status["slowpoke"], ServerStatus::Starting, "{status:#?}");
    assert_eq!(status["off"], ServerStatus::Disabled);
    for s in &connected {
        match &status[*s] {
            ServerStatus::Connected { tools, .. } => assert!(*tools > 0, "{s}: {status:#?}"),
            other => panic!("{s}: {other}"),
        }
    }
    match &status["hang"] {
        ServerStatus::Failed { why } => assert!(why.contains("timed out after 1000 ms"), "{why}"),
        other => panic!("{other}"),
    }
    match &status["missing"] {
        ServerStatus::Failed { why } => assert!(why.contains("definitely-not-here-mcp"), "{why}"),
        other => panic!("{other}"),
    }
    // A Failed event was broadcast for `hang` (or had already been, before we subscribed).
    drop(events.try_recv());

    // The namespace: valid, unique, reversible; nothing from failed servers.
    let tools = manager.tools();
    let mut seen = std::collections::BTreeSet::new();
    for t in &tools {
        assert!(is_valid_name(&t.qualified_name), "{}", t.qualified_name);
        assert!(
            seen.insert(t.qualified_name.clone()),
            "duplicate {}",
            t.qualified_name
        );
        assert!(!t.cached);
        assert_eq!(
            manager.resolve_tool(&t.qualified_name),
            Some((t.server.clone(), t.tool.name.clone()))
        );
        assert!(connected.contains(&t.server.as_str()), "{}", t.server);
    }
    assert_eq!(
        manager.resolve_tool("fixture__echo"),
        Some(("fixture".into(), "echo".into()))
    );
    let r = manager
        .call_tool(
            "fixture__echo",
            args(json!({"text": "hi"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "fx:hi");
    assert!(
        manager
            .prompts()
            .iter()
            .any(|p| p.qualified_name == "fixture__greet")
    );
    assert!(manager.resource("fixture", "fixture://a").is_some());

    if everything.is_some() {
        assert!(seen.contains("everything__echo"), "{seen:?}");
        let r = manager
            .call_tool(
                "everything__echo",
                args(json!({"message": "hello"})),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert!(first_text(&r).contains("hello"), "{r:?}");
    }
    if py.is_some() {
        assert!(
            seen.contains("py__echo") && seen.contains("py__add"),
            "{seen:?}"
        );
        let r = manager
            .call_tool(
                "py__echo",
                args(json!({"text": "over http"})),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert!(first_text(&r).contains("over http"), "{r:?}");
        let p = manager
            .get_prompt(
                "py__greet",
                Some([("name".to_owned(), "Ada".to_owned())].into()),
                Default::default(),
            )
            .await
            .unwrap();
        assert!(!p.messages.is_empty());
    }

    // Calls to unavailable servers fail without waiting.
    let e = manager
        .call_tool("nope__x", (), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(e, mcp_manager::ManagerError::UnknownName { .. }),
        "{e}"
    );
    let e = manager
        .wait_for_client("missing", mcp_manager::UnavailablePolicy::default())
        .await
        .unwrap_err();
    assert!(e.is_unavailable(), "{e}");

    // Shutdown: every process ends, including the one still starting.
    let mut pids: Vec<u32> = connected.iter().filter_map(|s| manager.pid(s)).collect();
    // stdio servers have a pid (fixture, everything), HTTP ones none
    assert_eq!(
        pids.len(),
        1 + usize::from(everything.is_some()),
        "{pids:?}"
    );
    assert_eq!(manager.pid("py"), None);
    pids.extend(read_pids(&hang_pids));
    assert_eq!(
        read_pids(&hang_pids).len(),
        2,
        "both hanging servers were spawned"
    );
    let t = Instant::now();
    manager.shutdown().await;
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "shutdown took {:?}",
        t.elapsed()
    );
    let left = wait_gone(&pids, Duration::from_secs(5)).await;
    assert!(left.is_empty(), "processes left behind: {left:?}");
    for (name, s) in manager.status() {
        if name == "off" {
            assert_eq!(s, ServerStatus::Disabled);
        } else {
            assert_eq!(s, ServerStatus::Stopped, "{name}");
        }
    }
    assert!(
        manager.tools().iter().all(|t| t.cached),
        "after shutdown every tool is cached"
    );
    let e = manager
        .call_tool("fixture__echo", (), CallOptions::default())
        .await
        .unwrap_err();
    assert!(e.is_unavailable(), "{e}");
    drop(py);
    let _ = std::fs::remove_dir_all(&dir);
}
