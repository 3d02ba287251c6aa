//! SIGINT during a call: exit code 130, and the server is sent
//! notifications/cancelled (the demo server logs it; `--verbose` shows the
//! server's stderr).
mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn sigint_cancels_the_call() {
    let dir = support::temp_dir("ctrlc");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args([
            "--verbose",
            "call",
            "countdown",
            "steps=1000",
            "interval_ms=20",
        ])
        .current_dir(&dir)
        .env_remove("MCP_LOG")
        // The revision memory in the test's own directory, not the user's cache.
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    // Wait until the tool runs (first progress line), then interrupt.
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.expect("read stderr");
        let started = line.starts_with("progress: ");
        seen.push(line);
        if started {
            break;
        }
    }
    assert!(
        seen.last().is_some_and(|l| l.starts_with("progress: ")),
        "no progress: {seen:?}"
    );
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let run = support::finish(child);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(130), "{run:?}");
    let text = rest.join("\n");
    assert!(text.contains("interrupted"), "{text}");
    assert!(
        text.contains("client cancelled a request"),
        "the demo server did not log notifications/cancelled:\n{text}"
    );
    assert!(!run.stdout.contains("Countdown finished"));
}
