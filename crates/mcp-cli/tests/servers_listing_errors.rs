//! `mcp servers` against a server whose `prompts/list` or `resources/list`
//! answers an error: the error is shown instead of a count (a count of 0
//! would say the server has none), in the text and the JSON output; the
//! other counts and the exit code (the server is connected) are unchanged.
//! The server is a few lines of Python speaking JSON-RPC over stdio, written
//! at test time; skipped, saying so, without the tests/peers venv.
mod support;

use mcp_tests::peers::{python_bin, require_command};
use serde_json::{Value, json};

/// Answers the handshake and the three listings (one tool, one prompt, two
/// resources); the methods named on its command line answer -32603.
const SERVER: &str = r#"
import json, sys

FAIL = set(sys.argv[1:])
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method, rid = msg["method"], msg["id"]
    reply = {"jsonrpc": "2.0", "id": rid}
    if method in FAIL:
        reply["error"] = {"code": -32603, "message": method + " exploded"}
    elif method == "initialize":
        reply["result"] = {"protocolVersion": "2025-06-18",
                           "serverInfo": {"name": "lists", "version": "1"},
                           "capabilities": {"tools": {}, "prompts": {}, "resources": {}}}
    elif method == "tools/list":
        reply["result"] = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    elif method == "prompts/list":
        reply["result"] = {"prompts": [{"name": "p"}]}
    elif method == "resources/list":
        reply["result"] = {"resources": [{"uri": "x:/a", "name": "a"}, {"uri": "x:/b", "name": "b"}]}
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": "Method not found"}
    print(json.dumps(reply), flush=True)
"#;

#[test]
fn a_failed_listing_shows_its_error_not_a_count() {
    let python = python_bin().map(|p| (p.display().to_string(), Vec::new()));
    let Some((python, _)) = require_command("tests/peers/.venv (Python)", python) else {
        return;
    };
    let dir = support::temp_dir("listing-errors");
    let script = dir.join("lists.py");
    std::fs::write(&script, SERVER).expect("write lists.py");
    let err = |method: &str| {
        format!("server answered {method} with an error: MCP error -32603: {method} exploded")
    };
    // (methods that fail, the text counts, the JSON counts)
    let rows = [
        (
            "",
            "tools: 1  resources: 2  prompts: 1".to_owned(),
            json!([1, 2, 1]),
        ),
        (
            "resources/list",
            format!(
                "tools: 1  resources: failed ({})  prompts: 1",
                err("resources/list")
            ),
            json!([1, {"error": err("resources/list")}, 1]),
        ),
        (
            "prompts/list",
            format!(
                "tools: 1  resources: 2  prompts: failed ({})",
                err("prompts/list")
            ),
            json!([1, 2, {"error": err("prompts/list")}]),
        ),
        (
            "prompts/list resources/list",
            format!(
                "tools: 1  resources: failed ({})  prompts: failed ({})",
                err("resources/list"),
                err("prompts/list")
            ),
            json!([1, {"error": err("resources/list")}, {"error": err("prompts/list")}]),
        ),
    ];
    for (failing, text, counts) in rows {
        let line = format!("'{}' '{}' {failing}", python, script.display());
        let run = support::mcp(&["--stdio", &line, "servers"]);
        assert_eq!(run.code, Some(0), "failing {failing:?}: {run:?}");
        assert_eq!(
            run.stdout.trim_end(),
            format!("lists  connected  2025-06-18  lists 1  {text}"),
            "failing {failing:?}: {run:?}"
        );
        let run = support::mcp(&["--json", "--stdio", &line, "servers"]);
        assert_eq!(run.code, Some(0), "failing {failing:?}: {run:?}");
        let rows: Value = serde_json::from_str(&run.stdout).expect("JSON output");
        let row = &rows[0];
        assert_eq!(
            json!([row["tools"], row["resources"], row["prompts"]]),
            counts,
            "failing {failing:?}: {run:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
