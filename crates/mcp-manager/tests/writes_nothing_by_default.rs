//! A library writes nothing to disk unless the application asks: a
//! `Manager` built with default options, connected to a handshake-revision
//! server through the automatic preference (what the revision memory would
//! remember) and used (its tools listed, what the tool cache would keep, and
//! called), leaves `$HOME` and `$XDG_CACHE_HOME` as empty as it found them.
//!
//! The manager runs in a child process (this test binary run again), whose
//! `HOME` and `XDG_CACHE_HOME` are fresh temporary directories: the parent
//! looks at them once it has ended. The server is the scripted peer of
//! `mcp_client::testing`, put behind the manager by its transport layer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::testing::memory_pair;
use mcp_manager::{CallOptions, Manager, ManagerOptions, McpConfig};
use mcp_transport::Transport;
use serde_json::json;

/// Set in the child: run the manager instead of spawning.
const CHILD: &str = "MCP_MANAGER_WRITES_NOTHING_CHILD";

/// Everything under `dir`, as paths relative to it.
fn contents(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            found.push(path.strip_prefix(dir).unwrap().display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    found
}

#[test]
fn a_manager_with_default_options_leaves_home_and_cache_empty() {
    if std::env::var_os(CHILD).is_some() {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(use_a_manager());
        return;
    }
    // With XDG_CACHE_HOME set (it wins), and with only HOME.
    for with_xdg in [true, false] {
        let home = support::temp_dir("writes-nothing-home");
        let cache = support::temp_dir("writes-nothing-cache");
        let mut child = Command::new(std::env::current_exe().unwrap());
        child
            .args([
                "--exact",
                "a_manager_with_default_options_leaves_home_and_cache_empty",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .env("HOME", &home);
        if with_xdg {
            child.env("XDG_CACHE_HOME", &cache);
        } else {
            child.env_remove("XDG_CACHE_HOME");
        }
        let out = child.output().unwrap();
        assert!(
            out.status.success(),
            "the child failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "the child ran the manager: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(
            contents(&home),
            Vec::<String>::new(),
            "HOME (xdg: {with_xdg})"
        );
        assert_eq!(contents(&cache), Vec::<String>::new(), "XDG_CACHE_HOME");
        let _ = std::fs::remove_dir_all(&home);
        let _ = std::fs::remove_dir_all(&cache);
    }
}

/// Starts a manager with `ManagerOptions::new` and nothing else but the
/// transport layer, over a server that refuses the `server/discover` probe
/// and speaks 2025-11-25; lists and calls its tool.
async fn use_a_manager() {
    let (transport, mut peer) = memory_pair();
    let server = tokio::spawn(async move {
        peer.refuse_discover().await;
        peer.handshake("2025-11-25", json!({"tools": {}})).await;
        let list = peer.expect_request("tools/list").await;
        peer.respond(
            &list.id,
            json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        )
        .await;
        let call = peer.expect_request("tools/call").await;
        peer.respond(
            &call.id,
            json!({"content": [{"type": "text", "text": "hi"}]}),
        )
        .await;
        peer
    });
    let memory: Mutex<Option<Arc<dyn Transport>>> = Mutex::new(Some(Arc::new(transport)));
    let options = ManagerOptions::new("writes-nothing", "0.0.0").with_transport_layer(
        move |_, configured| memory.lock().unwrap().take().unwrap_or(configured),
    );
    let config = McpConfig::from_json(
        &json!({"mcpServers": {"s": {"url": "http://127.0.0.1:9/unused"}}}).to_string(),
    )
    .unwrap();
    let manager = Manager::start(config, options).await;
    assert!(manager.wait_started(Duration::from_secs(10)).await);
    assert!(
        manager.server_status("s").unwrap().is_connected(),
        "{:?}",
        manager.status()
    );
    assert_eq!(manager.tools().len(), 1);
    let result = manager
        .call_tool("s__echo", json!({}), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("hi"));
    manager.shutdown().await;
    server.await.unwrap();
}
