//! A config file with one bad entry (unknown `type`) and one good one (the
//! demo server): the bad entry is reported on stderr as a warning with its
//! JSON path, and commands still work with the good server.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

fn write_config(dir: &std::path::Path) -> std::path::PathBuf {
    let exe = env!("CARGO_BIN_EXE_mcp");
    let config = serde_json::json!({"mcpServers": {
        "broken": {"type": "carrier-pigeon", "url": "http://127.0.0.1:9/mcp"},
        "good": {"command": exe, "args": ["serve-demo"]}
    }});
    let path = dir.join("servers.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    path
}

#[test]
fn bad_entry_is_a_warning_and_the_good_server_works() {
    let dir = support::temp_dir("bad-entry");
    let config = write_config(&dir);
    let config = config.to_str().expect("utf-8 path");

    let run = support::mcp_in(&dir, &["--config", config, "call", "echo", "message=hi"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "hi\n");
    assert!(
        run.stderr.contains("mcp: warning: ")
            && run
                .stderr
                .contains("mcpServers.broken.type: unknown type \"carrier-pigeon\""),
        "{}",
        run.stderr
    );

    let run = support::mcp_in(&dir, &["--config", config, "servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.starts_with("good  connected  "),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("broken"), "{}", run.stdout);
    assert!(
        run.stderr.contains("mcpServers.broken.type"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_bad_entries_is_a_failure_after_the_warnings() {
    let dir = support::temp_dir("all-bad");
    let path = dir.join("servers.json");
    std::fs::write(&path, r#"{"mcpServers": {"x": {"args": ["no command"]}}}"#)
        .expect("write config");
    let run = support::mcp_in(&dir, &["--config", path.to_str().expect("utf-8"), "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("mcpServers.x"), "{}", run.stderr);
    // Not "no enabled server": the entry was rejected, not disabled.
    assert!(
        run.stderr.contains("entries were rejected"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}
