//! A stdio server that fails to start (startup timeout, or an error answer
//! to the handshake) is ended at once: no stdin-EOF grace or SIGTERM wait
//! for a server that never completed the handshake, and no process left.

mod support;

use std::time::{Duration, Instant};

use mcp_manager::{Manager, McpConfig, ServerStatus};
use serde_json::json;
use support::*;

/// Answers every request with a JSON-RPC error; ignores SIGTERM and stdin
/// EOF, so only SIGKILL ends it.
const REFUSING_SERVER: &str = r#"
import json, os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(os.environ["PID_FILE"], "a") as f:
    f.write(f"{os.getpid()}\n")
for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        err = {"code": -32603, "message": "refusing to start"}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": err}) + "\n")
        sys.stdout.flush()
while True:
    time.sleep(1000)
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_start_is_killed_promptly_and_leaves_no_process() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("failed-start");
    let pid_file = dir.join("pids");
    let pid_env = pid_file.display().to_string();
    // Never answers; `sleep` inherits the ignored SIGTERM.
    let hang_cmd = format!("trap '' TERM; echo $$ >> {pid_env}; exec sleep 1000");
    let servers = json!({
        "hang": {"command": "sh", "args": ["-c", hang_cmd], "startupTimeout": 500},
        "refuse": {"command": python, "args": ["-c", REFUSING_SERVER],
                   "env": {"PID_FILE": pid_env}, "startupTimeout": 10000},
    });
    let config = McpConfig::from_json(&json!({ "mcpServers": servers }).to_string()).unwrap();
    // A long grace: the old close() path (stdin EOF, 5 s, SIGTERM, 1 s,
    // SIGKILL) would take over 6 s per server.
    let opts = options()
        .with_stdio_shutdown_grace(Duration::from_secs(5))
        .with_shutdown_timeout(Duration::from_secs(10));

    let started = Instant::now();
    let manager = Manager::start(config, opts).await;
    let mut failed_after = std::collections::BTreeMap::new();
    let deadline = started + Duration::from_secs(20);
    while failed_after.len() < 2 && Instant::now() < deadline {
        for name in ["hang", "refuse"] {
            if let Some(ServerStatus::Failed { why }) = manager.server_status(name) {
                failed_after
                    .entry(name)
                    .or_insert_with(|| (started.elapsed(), why));
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pids = read_pids(&pid_file);
    let left = wait_gone(&pids, Duration::from_millis(1500)).await;
    manager.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);

    let (hang_after, hang_why) = failed_after.get("hang").expect("hang failed");
    assert!(hang_why.contains("startup timed out"), "{hang_why}");
    let (refuse_after, refuse_why) = failed_after.get("refuse").expect("refuse failed");
    assert!(refuse_why.contains("handshake failed"), "{refuse_why}");
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert!(left.is_empty(), "left behind: {left:?}");
    // Generous bounds: the failure is reported (after the cleanup) well
    // inside the 5 s grace the old path waited.
    assert!(
        *hang_after < Duration::from_millis(500 + 1500),
        "startup timeout reported after {hang_after:?}"
    );
    assert!(
        *refuse_after < Duration::from_millis(1500),
        "handshake failure reported after {refuse_after:?}"
    );
}
