//! Ctrl-C against a server that ignores notifications/cancelled and does
//! not end when its input closes: `mcp` says what it waits for (the server,
//! by name, and when it will be stopped) instead of sitting silent, and
//! still exits 130. A second Ctrl-C kills the server at once.
#![allow(
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A stdio server (python3, standard library only) whose tool `hang` never
/// answers; it writes `started` once the call arrived, and ignores both
/// notifications/cancelled and the end of its input (SIGTERM ends it,
/// unless `TERM_LOG` is set: then it writes `term` and runs on).
const SERVER: &str = r#"
import json, os, signal, sys, time
open("pid", "w").write(str(os.getpid()))
if os.environ.get("TERM_LOG"):
    signal.signal(signal.SIGTERM, lambda *_: open("term", "w").close())
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

/// `mcp call hang` on the stubborn server in `dir`, once the call reached
/// it; `None` (the test skips) without python3.
fn start_hanging_call(dir: &Path, term_log: bool) -> Option<Child> {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("SKIP: python3 is not installed; the stubborn server needs it");
        return None;
    }
    std::fs::write(dir.join("stubborn.py"), SERVER).expect("write the server");
    let mut mcp = Command::new(env!("CARGO_BIN_EXE_mcp"));
    mcp.args(["--stdio", "python3 stubborn.py", "call", "hang"])
        .current_dir(dir)
        .env_remove("MCP_LOG")
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if term_log {
        mcp.env("TERM_LOG", "1");
    }
    let child = mcp.spawn().expect("spawn mcp");
    let start = Instant::now();
    while !dir.join("started").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the call never reached the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(child)
}

fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

#[test]
fn ctrl_c_says_what_it_waits_for() {
    let dir = support::temp_dir("ctrlc-slow");
    let Some(child) = start_hanging_call(&dir, false) else {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    interrupt(&child);
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

/// The second Ctrl-C, pressed while `mcp` waits for the server (which
/// would survive SIGTERM), kills it at once: the server never sees the
/// SIGTERM of the sequence (due 2 s after the first Ctrl-C), `mcp` says it
/// kills the servers, exits 130, and leaves no server behind.
#[test]
fn a_second_ctrl_c_kills_the_server_at_once() {
    let dir = support::temp_dir("ctrlc-twice");
    let Some(mut child) = start_hanging_call(&dir, true) else {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    let server = std::fs::read_to_string(dir.join("pid")).expect("the server's pid");
    interrupt(&child);
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.expect("read stderr");
        let waiting = line.starts_with("mcp: waiting for server stubborn");
        seen.push(line);
        if waiting {
            break;
        }
    }
    assert!(
        seen.last()
            .is_some_and(|l| l.contains("press Ctrl-C again")),
        "no notice of the wait: {seen:?}"
    );
    interrupt(&child);
    seen.extend(lines.map_while(Result::ok));
    let run = support::finish(child);
    let term_seen = dir.join("term").exists();
    let _ = std::fs::remove_dir_all(&dir);
    // Gone, or a zombie until its new parent reaps it.
    let proc = Path::new("/proc").join(server.trim());
    let start = Instant::now();
    while std::fs::read_to_string(proc.join("stat")).is_ok_and(|stat| !stat.contains(") Z ")) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the server {} outlived mcp",
            server.trim()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(run.code, Some(130), "{run:?} {seen:?}");
    assert!(
        seen.iter()
            .any(|l| l.starts_with("mcp: killing the servers still running")),
        "{seen:?}"
    );
    assert!(
        !term_seen,
        "the server was sent SIGTERM: mcp waited out the grace instead of killing it"
    );
}
