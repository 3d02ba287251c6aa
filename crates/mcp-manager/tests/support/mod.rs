//! Helpers shared by the mcp-manager integration tests.
#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::path::Path;
use std::time::{Duration, Instant};

use mcp_manager::{Backoff, ManagerEvent, ManagerOptions, McpConfig};
use serde_json::{Value, json};
use tokio::sync::broadcast;

#[allow(unused_imports)] // each test file uses a subset
pub(crate) use mcp_tests::temp_dir;

/// `python3` on PATH, or `None` after printing why the test skips.
pub(crate) fn python3() -> Option<String> {
    let path = std::env::var_os("PATH")?;
    let found = std::env::split_paths(&path)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            !mcp_tests::peers::peers_required(),
            "python3 is required (MCP_PEERS_REQUIRED=1)"
        );
        eprintln!("skipped: python3 not found on PATH (needed by the fixture server)");
    }
    found.map(|p| p.display().to_string())
}

/// The fixture server script.
pub(crate) fn fixture_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fixture_server.py")
        .display()
        .to_string()
}

/// An `mcpServers` entry running the fixture with `env` and extra `args`.
pub(crate) fn fixture_entry(python: &str, env: Value, args: &[&str]) -> Value {
    let mut all = vec![fixture_script()];
    all.extend(args.iter().map(|s| s.to_string()));
    json!({"command": python, "args": all, "env": env, "startupTimeout": 15000})
}

/// Parses `{"mcpServers": servers}`, asserting no entry error.
pub(crate) fn config(servers: Value) -> McpConfig {
    let c = McpConfig::from_json(&json!({ "mcpServers": servers }).to_string()).unwrap();
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    c
}

/// Options for tests: no cache, short graces, fast backoff.
pub(crate) fn options() -> ManagerOptions {
    ManagerOptions::new("mcp-manager-tests", "0.0.0")
        .with_cache_dir(None)
        .with_revision_dir(None)
        .with_stdio_shutdown_grace(Duration::from_millis(300))
        .with_backoff(
            Backoff::new(
                Duration::from_millis(100),
                Duration::from_millis(400),
                Some(4),
                0.5,
            )
            .unwrap(),
        )
}

/// `true` while process `pid` exists and is not a zombie.
pub(crate) fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // state is the field after the parenthesised command name
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
            .unwrap_or(true),
        Err(_) => false,
    }
}

/// Waits up to `limit` for every pid to be gone; returns the survivors.
pub(crate) async fn wait_gone(pids: &[u32], limit: Duration) -> Vec<u32> {
    let deadline = Instant::now() + limit;
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Pids listed one per line in `file` (empty when absent).
pub(crate) fn read_pids(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// The next event matching `pred` within `limit`, collecting every event
/// seen on the way (the match included) into `seen`.
pub(crate) async fn expect_event(
    rx: &mut broadcast::Receiver<ManagerEvent>,
    limit: Duration,
    seen: &mut Vec<ManagerEvent>,
    pred: impl Fn(&ManagerEvent) -> bool,
) -> ManagerEvent {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Ok(e)) => {
                seen.push(e.clone());
                if pred(&e) {
                    return e;
                }
            }
            Ok(Err(broadcast::error::RecvError::Lagged(n))) => panic!("lagged {n} events"),
            Ok(Err(e)) => panic!("event channel: {e}; seen {seen:#?}"),
            Err(_) => panic!("no matching event within {limit:?}; seen {seen:#?}"),
        }
    }
}

/// The text of the first content block of a tool result.
pub(crate) fn first_text(result: &mcp_types::tools::CallToolResult) -> String {
    let v = serde_json::to_value(&result.content[0]).unwrap();
    v["text"].as_str().unwrap_or_default().to_owned()
}
