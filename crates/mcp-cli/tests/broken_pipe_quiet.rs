//! A closed stdout (`mcp --json tools | head -1`) ends `mcp` quietly with
//! exit code 141 (128 + SIGPIPE), never a panic.
mod support;

use std::process::{Command, Stdio};

#[test]
fn closed_stdout_exits_141_without_a_panic() {
    let dir = support::temp_dir("epipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["--json", "tools"])
        .current_dir(&dir)
        .env_remove("MCP_LOG")
        // The revision memory in the test's own directory, not the user's cache.
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    // Close the reading end before mcp writes anything.
    drop(child.stdout.take());
    let run = support::finish(child);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(141), "{run:?}");
    assert!(!run.stderr.contains("panicked"), "{run:?}");
    assert!(run.stderr.trim().is_empty(), "{run:?}");
}
