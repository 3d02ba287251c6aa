//! Naming a server whose config entry was rejected, or that failed to
//! start, says so ("server X was not started: why") instead of looking for
//! a tool of that name; "available:" lists are capped.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

fn config(dir: &std::path::Path) -> std::path::PathBuf {
    let exe = env!("CARGO_BIN_EXE_mcp");
    let path = dir.join("servers.json");
    let text = serde_json::json!({"mcpServers": {
        "demo": {"command": exe, "args": ["serve-demo"]},
        "broken": {"args": ["x"]},
        "gone": {"command": "/bin/sh", "args": ["-c", "echo going >&2; exit 3"]}
    }});
    std::fs::write(&path, text.to_string()).expect("write config");
    path
}

#[test]
fn rejected_and_failed_servers_are_named_as_not_started() {
    let dir = support::temp_dir("notstarted");
    let path = config(&dir);
    let path = path.to_str().expect("utf-8 path");

    let run = support::mcp_in(&dir, &["--config", path, "call", "broken", "echo", "x=1"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("server broken was not started:")
            && run.stderr.contains("missing \"command\" or \"url\""),
        "{run:?}"
    );
    assert!(!run.stderr.contains("no tool named"), "{run:?}");

    let run = support::mcp_in(&dir, &["--config", path, "call", "gone", "echo", "x=1"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("server gone was not started: ") && run.stderr.contains("exit"),
        "{run:?}"
    );

    let run = support::mcp_in(&dir, &["--config", path, "call", "nope"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no tool named \"nope\""), "{run:?}");
    assert!(run.stderr.contains("not started: broken, gone"), "{run:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
