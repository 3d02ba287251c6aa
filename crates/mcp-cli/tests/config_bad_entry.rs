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

    let _ = std::fs::remove_dir_all(&dir);
}

/// The health commands count a rejected entry as a server that failed:
/// `servers` and `ping` list it (it is a server the user configured) and
/// exit 2, as for a server that failed to start (listed too); the good
/// server is still listed as connected and answers.
#[test]
fn servers_and_ping_report_the_rejected_entry_as_failed() {
    let dir = support::temp_dir("bad-entry-health");
    let exe = env!("CARGO_BIN_EXE_mcp");
    let config = serde_json::json!({"mcpServers": {
        "broken": {"type": "carrier-pigeon", "url": "http://127.0.0.1:9/mcp"},
        "dead": {"command": "/nonexistent/mcp-server"},
        "good": {"command": exe, "args": ["serve-demo"]}
    }});
    let path = dir.join("servers.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    let config = path.to_str().expect("utf-8 path");

    let run = support::mcp_in(&dir, &["--config", config, "servers"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(rows.len(), 3, "{}", run.stdout);
    assert!(
        rows[0].starts_with("broken  failed: mcpServers.broken.type: unknown type"),
        "{}",
        run.stdout
    );
    assert!(rows[1].starts_with("dead  failed: "), "{}", run.stdout);
    assert!(rows[2].starts_with("good  connected  "), "{}", run.stdout);

    let run = support::mcp_in(&dir, &["--config", config, "--json", "ping"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let rows: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(rows[0]["name"], "broken");
    assert_eq!(rows[0]["ok"], false);
    assert!(
        rows[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("carrier-pigeon")),
        "{rows}"
    );
    assert_eq!(rows[1]["name"], "dead");
    assert_eq!(rows[1]["ok"], false);
    assert_eq!(rows[2]["name"], "good");
    assert_eq!(rows[2]["ok"], true);

    let run = support::mcp_in(&dir, &["--config", config, "ping", "good"]);
    assert_eq!(run.code, Some(0), "{run:?}");
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
