//! A command about one server of a config starts only that server: with a
//! second entry that never answers (it only leaves a mark that it was
//! started), `call`, `tools`, `ping`, `prompt` and `resources` naming the good
//! server answer without starting the other, which would otherwise hold
//! the command up for its whole startup timeout. A qualified name
//! (`good__echo`, as `call`, `prompt` and `complete prompt` take it) names
//! its server too.
#![allow(
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

#[test]
fn a_named_server_is_the_only_one_started() {
    let dir = support::temp_dir("only-named");
    let exe = env!("CARGO_BIN_EXE_mcp");
    let mark = dir.join("hung-started");
    let config = serde_json::json!({"mcpServers": {
        "good": {"command": exe, "args": ["serve-demo"]},
        "hung": {"command": "sh", "args": ["-c", format!("touch '{}'; exec sleep 600", mark.display())]}
    }});
    let path = dir.join("servers.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    let config = path.to_str().expect("utf-8 path");

    let commands: [&[&str]; 8] = [
        &["call", "good", "echo", "message=hi"],
        &["call", "good__echo", "message=hi"],
        &["prompt", "good__greet", "name=Ada"],
        &["complete", "prompt", "good__greet", "name", "Gr"],
        &["tools", "good"],
        &["ping", "good"],
        &["prompt", "good", "greet", "name=Ada"],
        &["resources", "good"],
    ];
    for command in commands {
        let mut args = vec!["--config", config, "--timeout", "20"];
        args.extend_from_slice(command);
        let run = support::mcp_in(&dir, &args);
        assert_eq!(run.code, Some(0), "{command:?}: {run:?}");
        assert!(
            !mark.exists(),
            "{command:?} started the server it was not about"
        );
    }
    // Without a server named, every server starts (and the hung one makes
    // the listing wait for it); the mark shows it was started.
    let run = support::mcp_in(&dir, &["--config", config, "--timeout", "1", "ping"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(mark.exists(), "ping of every server did not start hung");
    let _ = std::fs::remove_dir_all(&dir);
}
