//! `mcp ping` against a 2026-07-28 server (the Python SDK's py_server.py
//! over stdio; skipped with a printed reason when it is not installed):
//! `ping` does not exist there, so the client checks with server/discover.
mod support;

use mcp_tests::peers::{python_stdio_command, require_command};

#[test]
fn ping_works_on_a_stateless_revision() {
    let Some((python, args)) = require_command("py_server.py (stdio)", python_stdio_command())
    else {
        return;
    };
    let mut words = vec![python];
    words.extend(args);
    let line = words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let run = support::mcp(&["--stdio", &line, "servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("2026-07-28"), "{run:?}");
    let run = support::mcp(&["--stdio", &line, "ping"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains(": ok ("), "{run:?}");
}
