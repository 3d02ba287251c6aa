//! Server text in log lines (`--verbose`, `MCP_LOG`) cannot act on the
//! terminal: a stderr tail, a server's name or a skipped stdout line reach
//! the log as field values, and those are shown escaped like the rest.
mod support;

#[test]
fn server_text_in_log_fields_is_escaped() {
    let dir = support::temp_dir("log-escapes");
    let script = dir.join("die.sh");
    std::fs::write(
        &script,
        "printf '\\033[32mready\\033[0m\\n'; printf 'boom \\033]0;owned\\007 \\033[2J\\n' >&2; exit 3\n",
    )
    .unwrap();
    let line = format!("sh {}", script.display());
    let run = support::mcp(&["--verbose", "--stdio", &line, "tools"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("owned"), "the tail is logged: {run:?}");
    assert!(
        !run.stderr.contains('\u{1b}') && !run.stderr.contains('\u{7}'),
        "raw control characters on stderr: {:?}",
        run.stderr
    );
}
