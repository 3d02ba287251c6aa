//! `mcp log`, `mcp watch`, `mcp tasks` and `mcp task`.
//!
//! `log` and `watch` run against a small scripted stdio server (Python,
//! written by the test) that answers `logging/setLevel` with one message per
//! level at or above the one set, and `resources/subscribe` with an update
//! of that URI and a tools list change, then ends its output: the command
//! prints each, one line (or one JSON object) each, and ends when the
//! connection closes. Against the demo server `log` follows until Ctrl-C
//! (exit 130). On 2026-07-28 `watch` opens a `subscriptions/listen` that the
//! Python SDK server acknowledges, granting the URI. `tasks` and `task` run
//! against server-everything and the demo, which has no tasks. (A peer that
//! is not installed is skipped, saying so.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_tests::peers::{everything_stdio_command, python_stdio_command, require_command};
use serde_json::Value;

/// A handshake-revision server: `server/discover` is unknown to it.
const PEER: &str = r#"
import json, sys
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"logging": {}, "tools": {"listChanged": True},
                             "resources": {"subscribe": True, "listChanged": True}},
            "serverInfo": {"name": "peer", "version": "1"}}})
    elif method == "logging/setLevel":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
        floor = LEVELS.index(msg["params"]["level"])
        for level in LEVELS[:5]:
            if LEVELS.index(level) >= floor:
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": level, "logger": "db", "data": "at " + level}})
        break
    elif method == "resources/subscribe":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
        send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
              "params": {"uri": msg["params"]["uri"]}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        break
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})
"#;

fn peer(dir: &Path) -> String {
    let path: PathBuf = dir.join("peer.py");
    std::fs::write(&path, PEER).unwrap();
    format!("python3 '{}'", path.display())
}

#[test]
fn log_sets_the_level_and_prints_each_message() {
    let dir = support::temp_dir("log");
    let line = peer(&dir);
    let run = support::mcp_in(&dir, &["--stdio", &line, "log", "--level", "warning"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout, "peer  warning  db: at warning\npeer  error  db: at error\n",
        "{run:?}"
    );
    assert!(run.stderr.contains("peer: connection closed"), "{run:?}");

    let run = support::mcp_in(
        &dir,
        &["--stdio", &line, "--json", "log", "--level", "error"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        [serde_json::json!({
            "server": "peer", "event": "notifications/message",
            "level": "error", "logger": "db", "data": "at error"
        })]
    );

    let run = support::mcp_in(&dir, &["--stdio", &line, "log", "--level", "loud"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("expected one of debug, info"),
        "{run:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_subscribes_and_prints_updates_and_list_changes() {
    let dir = support::temp_dir("watch");
    let line = peer(&dir);
    let run = support::mcp_in(&dir, &["--stdio", &line, "watch", "file:///notes.txt"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout, "peer  resources/updated  file:///notes.txt\npeer  tools/list_changed\n",
        "{run:?}"
    );
    let run = support::mcp_in(&dir, &["--stdio", &line, "watch", "file:///a", "--json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["event"], "notifications/resources/updated");
    assert_eq!(lines[0]["uri"], "file:///a");
    assert_eq!(lines[1]["event"], "notifications/tools/list_changed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn log_follows_the_demo_until_ctrl_c() {
    let dir = support::temp_dir("log-demo");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["log", "--level", "debug"])
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("HOME", &dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "mcp log ended by itself"
    );
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let run = support::finish(child);
    assert_eq!(run.code, Some(130), "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tasks_are_listed_and_asked_about() {
    // The demo offers no tasks.
    let run = support::mcp(&["tasks"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no server offers tasks"), "{run:?}");
    let run = support::mcp(&["tasks", "demo"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("demo does not offer tasks"), "{run:?}");
    let run = support::mcp(&["task", "get"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("usage: mcp task"), "{run:?}");

    let Some((program, args)) =
        require_command("server-everything (stdio)", everything_stdio_command())
    else {
        return;
    };
    let line = std::iter::once(program)
        .chain(args)
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ");
    // A new process is a new session: it has no tasks yet.
    let run = support::mcp(&["--stdio", &line, "tasks"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "no tasks", "{run:?}");
    let run = support::mcp(&["--stdio", &line, "--json", "tasks"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "[]", "{run:?}");
    for action in ["get", "result", "cancel"] {
        let run = support::mcp(&["--stdio", &line, "task", action, "no-such-task"]);
        assert_eq!(run.code, Some(2), "{action}: {run:?}");
        assert!(
            run.stderr.contains("no-such-task")
                || run.stderr.contains("not found")
                || run.stderr.contains("MCP error"),
            "{action}: {run:?}"
        );
    }
    let run = support::mcp(&["--stdio", &line, "task", "finish", "x"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("expected get, result or cancel"),
        "{run:?}"
    );
}

#[test]
fn watch_listens_on_2026_07_28() {
    use std::io::BufRead as _;
    let Some((python, args)) = require_command("py_server.py (stdio)", python_stdio_command())
    else {
        return;
    };
    let line = std::iter::once(python)
        .chain(args)
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let dir = support::temp_dir("watch-2026");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["--stdio", &line, "watch", "peer://static/greeting"])
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("HOME", &dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The line comes once the server acknowledged the listen.
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("mcp: watching") {
        let mut next = String::new();
        if stderr.read_line(&mut next).unwrap() == 0 {
            break;
        }
        said.push_str(&next);
    }
    assert!(
        said.contains("mcp: watching peer://static/greeting and list changes"),
        "{said}"
    );
    assert!(!said.contains("did not grant"), "{said}");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let run = support::finish(child);
    assert_eq!(run.code, Some(130), "{said}{run:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
