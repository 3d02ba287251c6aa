//! Ctrl-C against a server that ignores notifications/cancelled and does
//! not end when its input closes: `mcp` says what it waits for (the server,
//! by name, and when it will be stopped) instead of sitting silent, and
//! still exits 130.
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A stdio server (python3, standard library only) whose tool `hang` never
/// answers; it writes `started` once the call arrived, and ignores both
/// notifications/cancelled and the end of its input (SIGTERM ends it).
const SERVER: &str = r#"
import json, sys, time
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": m["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "stubborn", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": "hang", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        open("started", "w").close()
    elif method is not None and mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
time.sleep(60)
"#;

#[test]
fn ctrl_c_says_what_it_waits_for() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("SKIP: python3 is not installed; the stubborn server needs it");
        return;
    }
    let dir = support::temp_dir("ctrlc-slow");
    std::fs::write(dir.join("stubborn.py"), SERVER).expect("write the server");
    let child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["--stdio", "python3 stubborn.py", "call", "hang"])
        .current_dir(&dir)
        .env_remove("MCP_LOG")
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    let start = Instant::now();
    while !dir.join("started").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the call never reached the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let run = support::finish(child);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(130), "{run:?}");
    assert!(
        run.stderr
            .contains("mcp: waiting for server stubborn to exit (the request was cancelled"),
        "{run:?}"
    );
    assert!(run.stderr.contains("SIGTERM after 2 s"), "{run:?}");
}
