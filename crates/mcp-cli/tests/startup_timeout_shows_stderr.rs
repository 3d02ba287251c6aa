//! A stdio server that never answers the handshake: the startup-timeout
//! message carries the server's last stderr lines (its reason, usually).
mod support;

use std::time::{Duration, Instant};

#[test]
fn startup_timeout_message_has_the_stderr_tail() {
    let script = "echo 'fatal: API_KEY is not set' >&2; echo not-json; exec sleep 30";
    let server = format!("sh -c \"{script}\"");
    let start = Instant::now();
    let run = support::mcp(&["--timeout", "2", "--stdio", &server, "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("startup timed out after 2000 ms"),
        "{run:?}"
    );
    assert!(
        run.stderr
            .contains("stderr tail:\n  | fatal: API_KEY is not set"),
        "{run:?}"
    );
    // 2 s timeout plus the shutdown of a server that ignores stdin EOF.
    assert!(start.elapsed() < Duration::from_secs(30), "{run:?}");
}
