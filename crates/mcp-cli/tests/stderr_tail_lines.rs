//! A failed stdio server's stderr tail is shown as the lines it wrote, each
//! set out under the message it explains (never a literal `\n`, never a
//! line that could pass for a row of its own), wherever it is printed:
//! `servers` and `ping` rows, the failure of a command, the startup-timeout
//! message. Each line's control characters are still escaped on stderr.
mod support;

/// A server that writes three lines to stderr (one with an escape
/// sequence, one that looks like a row) and exits.
const DYING: &str = r#"sh -c "echo 'Traceback (most recent call last):' >&2; printf 'bad \033[2Jkey\n' >&2; echo 'demo  connected  2025-11-25' >&2; exit 1""#;

#[test]
fn a_stderr_tail_is_shown_as_lines() {
    let servers = support::mcp(&["--stdio", DYING, "servers"]);
    assert_eq!(servers.code, Some(2), "{servers:?}");
    assert!(!servers.stdout.contains("\\n"), "{servers:?}");
    let rows: Vec<&str> = servers.stdout.lines().collect();
    assert_eq!(rows.len(), 4, "{servers:?}");
    assert!(
        rows[0].starts_with("sh  failed: ") && rows[0].ends_with("; stderr tail:"),
        "{servers:?}"
    );
    assert_eq!(rows[1], "  | Traceback (most recent call last):");
    // Piped stdout is as sent; the line still stands under the row.
    assert_eq!(rows[2], "  | bad \u{1b}[2Jkey");
    assert_eq!(rows[3], "  | demo  connected  2025-11-25");

    let ping = support::mcp(&["--stdio", DYING, "ping"]);
    assert_eq!(ping.code, Some(2), "{ping:?}");
    assert!(
        ping.stdout
            .ends_with("; stderr tail:\n  | Traceback (most recent call last):\n  | bad \u{1b}[2Jkey\n  | demo  connected  2025-11-25\n"),
        "{ping:?}"
    );

    // On stderr, each line is escaped.
    let tools = support::mcp(&["--stdio", DYING, "tools"]);
    assert_eq!(tools.code, Some(2), "{tools:?}");
    assert!(
        tools
            .stderr
            .contains("; stderr tail:\n  | Traceback (most recent call last):\n  | bad \\u{1b}[2Jkey\n  | demo  connected  2025-11-25\n"),
        "{tools:?}"
    );
    assert!(!tools.stderr.contains('\u{1b}'), "{tools:?}");
    let call = support::mcp(&["--stdio", DYING, "call", "sh", "x"]);
    assert!(
        call.stderr.contains("was not started: handshake failed"),
        "{call:?}"
    );
    assert!(
        call.stderr.contains("stderr tail:\n  | Traceback"),
        "{call:?}"
    );

    // `--json` keeps the tail as the server wrote it.
    let json = support::mcp(&["--stdio", DYING, "--json", "servers"]);
    let rows: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let error = rows[0]["error"].as_str().unwrap_or_default();
    assert!(
        error.ends_with("stderr tail:\nTraceback (most recent call last):\nbad \u{1b}[2Jkey\ndemo  connected  2025-11-25"),
        "{json:?}"
    );
}

/// The startup-timeout message carries the tail's first line on its own
/// line as well.
#[test]
fn a_startup_timeout_tail_is_shown_as_lines() {
    let server =
        r#"sh -c "echo 'fatal: API_KEY is not set' >&2; echo 'see --help' >&2; exec sleep 30""#;
    let run = support::mcp(&["--timeout", "1", "--stdio", server, "servers"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stdout
            .ends_with("; stderr tail:\n  | fatal: API_KEY is not set\n  | see --help\n"),
        "{run:?}"
    );
}
