//! A server written for the handshake revisions that sends a server request
//! (`ctx.elicit` in the Python SDK) cannot reach the client under 2026-07-28:
//! the error names the fix (`--protocol-version handshake`), and with it the
//! same tool works; the next run (same cache directory) connects the server
//! in a handshake revision by itself. Against the Python SDK's server that speaks both kinds of revision
//! over stdio (skipped, saying why, when it is not installed).
mod support;

use mcp_tests::peers::{python_stdio_command, require_command};

#[test]
fn the_error_names_the_fix_and_the_fix_works() {
    let Some((python, args)) = require_command("py_server.py (stdio)", python_stdio_command())
    else {
        return;
    };
    let line = std::iter::once(python)
        .chain(args)
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let dir = support::temp_dir("server-requests");
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "elicit_name"]);
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains("--protocol-version handshake"),
        "the error names the fix: {run:?}"
    );
    assert!(
        run.stderr.contains("could not send elicitation/create")
            && run.stderr.contains("back-channel"),
        "the error says what happened, with the server's words: {run:?}"
    );
    // Remembered: the next run sends `initialize` and the request arrives.
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "elicit_name"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "decline", "{run:?}");
    let _ = std::fs::remove_dir_all(&dir);
    // Not interactive (stdin is not a terminal): the form is declined, and the
    // tool says so; what matters is that the request reached the client.
    let run = support::mcp(&[
        "--stdio",
        &line,
        "--protocol-version",
        "handshake",
        "call",
        "elicit_name",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "decline", "{run:?}");
    assert!(
        run.stderr.contains("declined an elicitation request"),
        "{run:?}"
    );
}
