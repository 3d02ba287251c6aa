//! `mcp call ask_name` against the Python SDK's test server, end to end, in
//! every revision that has elicitation: under 2026-07-28 the question comes
//! inside a multi round-trip result, in a handshake revision as an
//! `elicitation/create` server request. Either way the form is answered on
//! a terminal and the tool greets the name, or is declined without one.
//! Also after `mcp` remembered the server as a handshake-era one (a run of
//! `elicit_name` teaches it that), when the next plain `mcp call ask_name`
//! connects in a handshake revision by itself.
//!
//! Skipped, saying why, when the Python peer is not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::path::Path;
use std::process::Command;

use mcp_tests::peers::{python_stdio_command, require_command};
use rexpect::reader::Options;
use rexpect::session::spawn_with_options;

/// The Python server as one `--stdio` command line (each word quoted).
fn server_line() -> Option<String> {
    let (python, args) = require_command("py_server.py (stdio)", python_stdio_command())?;
    Some(
        std::iter::once(python)
            .chain(args)
            .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// `mcp args` on a pseudo-terminal in `dir`: answers "yes, fill in the form"
/// and `name` = Ada, and returns everything printed up to `EXIT=<code>`.
fn answered_on_a_terminal(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("stty rows 40 cols 200; \"$0\" \"$@\"; echo \"EXIT=$?\"")
        .arg(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .current_dir(dir)
        .env_remove("MCP_LOG")
        .env_remove("MCP_NO_INPUT")
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("MCP_CREDENTIALS_DIR", dir.join(".credentials"))
        .env("TERM", "xterm");
    let mut p = spawn_with_options(
        cmd,
        Options::new()
            .timeout_ms(Some(30_000))
            .strip_ansi_escape_codes(true),
    )
    .expect("spawn on a pty");
    p.exp_string("What is your name?")
        .expect("the server's question is shown");
    p.exp_string("to filter]").expect("the choice");
    p.send("\r").unwrap();
    p.flush().unwrap();
    // The field's title, else its key: the Python SDK titles it "Name".
    p.exp_regex(r"\? [Nn]ame").expect("the name field");
    p.send("Ada\r").unwrap();
    p.flush().unwrap();
    let (before, exit) = p.exp_regex(r"EXIT=\d+").expect("mcp ends");
    format!("{before}{exit}")
}

#[test]
fn ask_name_answered_in_every_revision_with_elicitation() {
    let Some(line) = server_line() else {
        return;
    };
    for (revision, greeting) in [
        ("2026-07-28", "hello Ada (state asked-once)"),
        ("handshake", "hello Ada"),
        ("2025-06-18", "hello Ada"),
    ] {
        let dir = support::temp_dir("ask-name");
        let args = [
            "--stdio",
            &line,
            "--protocol-version",
            revision,
            "call",
            "ask_name",
        ];
        let run = support::mcp_in(&dir, &args);
        assert_eq!(run.code, Some(0), "{revision}, not interactive: {run:?}");
        assert_eq!(run.stdout.trim(), "declined", "{revision}: {run:?}");
        assert!(
            run.stderr.contains("declined an elicitation request"),
            "{revision}: the question reached the client: {run:?}"
        );

        let screen = answered_on_a_terminal(&dir, &args);
        assert!(
            screen.contains(greeting) && !screen.contains("invalid result"),
            "{revision}: {screen}"
        );
        assert!(screen.ends_with("EXIT=0"), "{revision}: {screen}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The way the fault showed itself in plain `mcp call`: once `mcp` has
/// remembered the server as a handshake-era one, `ask_name` still works.
#[test]
fn ask_name_after_the_handshake_revision_was_remembered() {
    let Some(line) = server_line() else {
        return;
    };
    let dir = support::temp_dir("ask-name-remembered");
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "elicit_name"]);
    assert!(
        run.stderr.contains("--protocol-version handshake"),
        "elicit_name teaches mcp the handshake revision: {run:?}"
    );
    let run = support::mcp_in(&dir, &["--stdio", &line, "call", "ask_name"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "declined", "{run:?}");

    let screen = answered_on_a_terminal(&dir, &["--stdio", &line, "call", "ask_name"]);
    assert!(screen.contains("hello Ada"), "{screen}");
    assert!(screen.ends_with("EXIT=0"), "{screen}");
    let _ = std::fs::remove_dir_all(&dir);
}
