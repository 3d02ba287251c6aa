//! The revision memory between runs: a handshake server is asked for `initialize`
//! at once on the next run (no `server/discover` first); when the server
//! behind the same entry turns out to speak only 2026-07-28, the memory is
//! dropped and the server probed again within the same run. A scripted
//! stdio server (python3) records every method it receives; skipped, saying
//! why, without python3.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::process::{Command, Stdio};

const SERVER: &str = r#"
import json, os, sys
mode = os.environ["MODE"]
log = open(os.environ["METHODS"], "a")
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    method = msg.get("method")
    log.write(f"{method}\n"); log.flush()
    if "id" not in msg:
        continue
    i = msg["id"]
    if mode == "old":
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": "2025-06-18",
                  "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": i, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "Method not found"}})
    else:
        if method == "server/discover":
            send({"jsonrpc": "2.0", "id": i, "result": {"resultType": "complete",
                  "supportedVersions": ["2026-07-28"], "capabilities": {},
                  "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "new", "version": "2"}}}})
        else:
            send({"jsonrpc": "2.0", "id": i, "error": {"code": -32022,
                  "message": "Unsupported protocol version",
                  "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}})
"#;

fn python3() -> Option<String> {
    let ok = Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIP: python3 is not installed; the revision memory test needs it");
    }
    ok.then(|| "python3".to_owned())
}

/// Runs `mcp --config servers.json ping` with `MODE` set; returns the run and
/// the methods the server received.
fn ping(dir: &std::path::Path, mode: &str) -> (support::Run, Vec<String>) {
    let methods = dir.join("methods.log");
    let _ = std::fs::remove_file(&methods);
    let child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["--config", "servers.json", "ping"])
        .current_dir(dir)
        .env_remove("MCP_LOG")
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("MODE", mode)
        .env("METHODS", &methods)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    let run = support::finish(child);
    let seen = std::fs::read_to_string(&methods)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    (run, seen)
}

#[test]
fn a_handshake_verdict_is_remembered_and_dropped_when_it_proves_wrong() {
    let Some(python) = python3() else {
        return;
    };
    let dir = support::temp_dir("era");
    std::fs::write(dir.join("server.py"), SERVER).unwrap();
    std::fs::write(
        dir.join("servers.json"),
        format!(
            r#"{{"mcpServers": {{"s": {{"command": "{python}", "args": ["server.py"],
                "env": {{"MODE": "${{MODE}}", "METHODS": "${{METHODS}}"}}}}}}}}"#
        ),
    )
    .unwrap();

    let (run, seen) = ping(&dir, "old");
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        seen.first().map(String::as_str),
        Some("server/discover"),
        "first run probes: {seen:?}"
    );

    let (run, seen) = ping(&dir, "old");
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        seen,
        ["initialize", "notifications/initialized", "ping"],
        "the second run goes straight to the handshake"
    );

    // The same entry now runs a server that speaks only 2026-07-28.
    let (run, seen) = ping(&dir, "new");
    assert_eq!(
        run.code,
        Some(0),
        "the wrong memory costs a retry, not the run: {run:?}"
    );
    assert_eq!(
        seen.first().map(String::as_str),
        Some("initialize"),
        "{seen:?}"
    );
    assert!(
        seen.contains(&"server/discover".to_owned()),
        "probed again: {seen:?}"
    );

    let (run, seen) = ping(&dir, "new");
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        seen.first().map(String::as_str),
        Some("server/discover"),
        "nothing is remembered for a stateless server: {seen:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
