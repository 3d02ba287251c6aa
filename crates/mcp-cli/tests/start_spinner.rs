//! A server that is slow to start is not met with silence: on a terminal a
//! spinner names it until it is up (and is gone after); with stderr not a
//! terminal nothing extra is printed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::process::Command;

use rexpect::reader::Options;
use rexpect::session::spawn_with_options;

/// A stdio server (python3, standard library only) that takes 1.5 s before
/// it reads its input, then answers the handshake and lists one tool.
const SERVER: &str = r#"
import json, sys, time
time.sleep(1.5)
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": m["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "slow", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": "poke", "inputSchema": {"type": "object"}}]}})
    elif method is not None and mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
"#;

#[test]
fn a_slow_start_shows_a_spinner_on_a_terminal_only() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("SKIP: python3 is not installed; the slow server needs it");
        return;
    }
    let dir = support::temp_dir("spinner");
    std::fs::write(dir.join("slow_start.py"), SERVER).unwrap();
    let args = ["--stdio", "python3 slow_start.py", "tools"];

    // On a terminal: the spinner names the server, then the listing.
    let script = "stty rows 40 cols 100; \"$0\" \"$@\"; echo \"EXIT=$?\"";
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .current_dir(&dir)
        .env_remove("MCP_LOG")
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("TERM", "xterm");
    let mut p = spawn_with_options(
        cmd,
        Options::new()
            .timeout_ms(Some(30_000))
            .strip_ansi_escape_codes(true),
    )
    .expect("spawn on a pty");
    p.exp_string("starting slow_start")
        .expect("the spinner names the server");
    p.exp_string("poke").expect("the listing");
    p.exp_string("EXIT=0").expect("exit 0");

    // Not a terminal: only the listing.
    let run = support::mcp_in(&dir, &args);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("poke"), "{run:?}");
    assert!(!run.stderr.contains("starting"), "{run:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
