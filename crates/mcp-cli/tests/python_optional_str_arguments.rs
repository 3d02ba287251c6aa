//! B36 against a real Python SDK (FastMCP / MCPServer) server over stdio:
//! `Optional[str]`, `str | None`, an optional `Literal` of strings and an
//! optional string `Enum` (a `$ref` into `$defs`) are sent as strings even
//! when the value looks like a number or a boolean, and `Optional[int]` as a
//! number. Pydantic rejects a number for a `str` parameter, so a client that
//! sends `zip=12345` as `12345` gets a tool error instead of a result.
//! Skipped, saying so, when the Python venv is not installed.
//!
//! Catalogue cases: B36.
mod support;

use mcp_tests::peers::{python_bin, require_command};
use serde_json::{Value, json};

/// The server, written to a temp dir at test time: one tool that reports the
/// Python type and value each argument arrived as.
const SERVER: &str = r#"
import enum
import json
from typing import Literal, Optional

try:  # mcp >= 2: FastMCP was renamed MCPServer.
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server


class Shelf(str, enum.Enum):
    A = "1"
    B = "2"


server = Server(name="b36-peer")


@server.tool(description="Report the type and value each argument arrived as.")
def lookup(
    id: str,
    zip: Optional[str] = None,
    code: str | None = None,
    count: Optional[int] = None,
    level: Optional[Literal["1", "2"]] = None,
    shelf: Optional[Shelf] = None,
) -> str:
    got = {"id": id, "zip": zip, "code": code, "count": count, "level": level,
           "shelf": shelf.value if shelf is not None else None}
    return json.dumps({k: [type(v).__name__, v] for k, v in got.items()}, sort_keys=True)


if __name__ == "__main__":
    server.run("stdio")
"#;

#[test]
fn b36_optional_str_parameters_of_a_python_sdk_server_get_strings() {
    let python = python_bin().map(|p| (p.display().to_string(), Vec::new()));
    let Some((python, _)) = require_command("tests/peers/.venv (Python mcp SDK)", python) else {
        return;
    };
    let dir = support::temp_dir("b36");
    let script = dir.join("server.py");
    std::fs::write(&script, SERVER).expect("write server.py");
    let line = format!("'{}' '{}'", python, script.display());
    let run = support::mcp(&[
        "--stdio",
        &line,
        "call",
        "lookup",
        "zip=12345",
        "code=123",
        "count=42",
        "id=42",
        "level=1",
        "shelf=2",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(0), "{run:?}");
    let got: Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("the tool's text is not JSON ({e}): {run:?}"));
    assert_eq!(
        got,
        json!({
            "id": ["str", "42"],
            "zip": ["str", "12345"],
            "code": ["str", "123"],
            "count": ["int", 42],
            "level": ["str", "1"],
            "shelf": ["str", "2"],
        }),
        "{run:?}"
    );
}
