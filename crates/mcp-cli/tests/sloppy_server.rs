//! `mcp` against a sloppy handshake-revision stdio server (a small Python
//! script written at test time): one bad tool costs one warning and the
//! rest is listed (and callable); a `nextCursor` that never advances keeps
//! the tool listed (B31); a tool result without `content` (B32) and one
//! with lone surrogate escapes (B33) are shown. Skips when `python3` is
//! not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

const SERVER: &str = r#"
import json, sys
mode = sys.argv[1]
def tool(name, **extra):
    return dict(name=name, inputSchema={"type": "object", "properties": {}}, **extra)
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    i, method = m["id"], m["method"]
    r = None
    if method == "initialize":
        caps = {} if mode == "nocaps" else {"tools": {}}
        r = {"protocolVersion": "2025-11-25", "capabilities": caps,
             "serverInfo": {"name": "sloppy", "version": "1"}}
    elif method == "tools/list" and mode == "loop":
        r = {"tools": [tool("only_tool")], "nextCursor": "abc"}
    elif method == "tools/list":
        things = {"type": "object", "properties": {"things": {"type": "array", "items": {"type": "string"}}},
                  "required": ["things"], "additionalProperties": False}
        r = {"tools": [tool("good_one"), {"name": "bad_one"}, {"inputSchema": {}},
                       tool("things", outputSchema=things), tool("text")]}
    elif method == "tools/call" and m["params"]["name"] == "things":
        r = {"structuredContent": {"things": ["a", "b"]}}
    elif method == "tools/call" and m["params"]["name"] == "text":
        text = r'bad high [\ud83d] bad low [\udc00] good pair [\ud83d\ude00]'
        sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}\n'
                         % (json.dumps(i), text))
        sys.stdout.flush()
        continue
    elif method == "tools/call":
        r = {"content": [{"type": "text", "text": "called " + m["params"]["name"]}]}
    if r is None:
        out = {"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "Method not found"}}
    else:
        out = {"jsonrpc": "2.0", "id": i, "result": r}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

fn python() -> Option<&'static str> {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 is not installed");
    }
    ok.then_some("python3")
}

/// Writes the server script into `dir`; returns the `--stdio` line.
fn server_line(dir: &Path, mode: &str) -> Option<String> {
    let python = python()?;
    let script: PathBuf = dir.join("sloppy_server.py");
    std::fs::write(&script, SERVER).expect("write the server script");
    Some(format!("{python} {} {mode}", script.display()))
}

#[test]
fn a_bad_tool_costs_one_warning_and_the_rest_is_listed() {
    let dir = support::temp_dir("sloppy-list");
    let Some(line) = server_line(&dir, "bad-entries") else {
        return;
    };
    let run = support::mcp_in(&dir, &["--stdio", &line, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    for name in ["good_one", "things", "text"] {
        assert!(run.stdout.contains(name), "{name} not listed: {run:?}");
    }
    assert!(!run.stdout.contains("bad_one"), "{run:?}");
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("mcp: warning: "))
        .collect();
    assert_eq!(warnings.len(), 2, "one warning per dropped entry: {run:?}");
    assert!(
        warnings[0].contains("tools entry 1 (\"bad_one\")")
            && warnings[0].contains("`inputSchema`"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("tools entry 2") && warnings[1].contains("`name`"),
        "{warnings:?}"
    );

    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "good_one"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "called good_one\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// B31 through the command line: `mcp call only_tool` works although
/// every `tools/list` page names the same `nextCursor`; a warning says
/// the list may be incomplete.
#[test]
fn b31_call_a_tool_listed_with_a_cursor_that_never_advances() {
    let dir = support::temp_dir("sloppy-b31");
    let Some(line) = server_line(&dir, "loop") else {
        return;
    };
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "only_tool"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "called only_tool\n");
    assert!(
        run.stderr.contains("repeated a cursor") && run.stderr.contains("may be incomplete"),
        "{run:?}"
    );
    let run = support::mcp_in(&dir, &["--stdio", &line, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.matches("only_tool").count(), 1, "{run:?}");
    // Reading the list twice (to say what is available) warns once.
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "nope"]);
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("available: only_tool"), "{run:?}");
    assert_eq!(
        run.stderr.matches("may be incomplete").count(),
        1,
        "{run:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// B32 through the command line: the structured content of a result
/// without `content` is shown.
#[test]
fn b32_call_a_tool_answering_structured_content_only() {
    let dir = support::temp_dir("sloppy-b32");
    let Some(line) = server_line(&dir, "bad-entries") else {
        return;
    };
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "things"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("things") && run.stdout.contains("\"b\""),
        "{run:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// B33 through the command line: lone surrogates are shown as U+FFFD.
#[test]
fn b33_call_a_tool_answering_lone_surrogates() {
    let dir = support::temp_dir("sloppy-b33");
    let Some(line) = server_line(&dir, "bad-entries") else {
        return;
    };
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "text"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout,
        "bad high [\u{fffd}] bad low [\u{fffd}] good pair [\u{1f600}]\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A server that declares no tools capability: `tools` says so rather than
/// printing nothing, and `call` names what is available as "none" rather
/// than an empty list.
#[test]
fn a_server_without_tools_says_so() {
    let dir = support::temp_dir("sloppy-nocaps");
    let Some(line) = server_line(&dir, "nocaps") else {
        return;
    };
    let run = support::mcp_in(&dir, &["--stdio", &line, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "(no tools capability)\n", "{run:?}");
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "echo"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr
            .contains("no tool named \"echo\" (available: none)"),
        "{run:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
