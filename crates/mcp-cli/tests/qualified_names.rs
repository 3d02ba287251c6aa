//! A tool or prompt named as `mcp-manager` names it in its one namespace
//! (`server__tool`, the server's name sanitized: `my.srv` → `my_srv`) is
//! found wherever the command line takes a tool or prompt name: `call`,
//! `prompt`, `complete prompt`. Its server's own name for it is what goes
//! on the wire. A qualified name of a server that did not start says so.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

#[test]
fn the_managers_qualified_names_are_taken() {
    let dir = support::temp_dir("qualified");
    let exe = env!("CARGO_BIN_EXE_mcp");
    let config = serde_json::json!({"mcpServers": {
        "coffee": {"command": exe, "args": ["serve-demo"]},
        "my.srv": {"command": exe, "args": ["serve-demo"]},
        "broken": {"command": "sh", "args": ["-c", "exit 3"]}
    }});
    std::fs::write(dir.join("servers.json"), config.to_string()).unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["--config", "servers.json"];
        all.extend_from_slice(args);
        support::mcp_in(&dir, &all)
    };

    // Both servers offer `add`: the plain name is ambiguous, the qualified
    // one is not.
    let call = run(&["call", "coffee__add", "a=2", "b=3"]);
    assert_eq!(call.code, Some(0), "{call:?}");
    assert_eq!(call.stdout.trim(), "5", "{call:?}");
    let call = run(&["--json", "call", "my_srv__echo", "message=hi"]);
    assert_eq!(call.code, Some(0), "{call:?}");
    assert!(call.stdout.contains("\"hi\""), "{call:?}");
    // Named with its server too.
    let call = run(&["call", "coffee", "coffee__add", "a=1", "b=1"]);
    assert_eq!(call.code, Some(0), "{call:?}");
    assert_eq!(call.stdout.trim(), "2", "{call:?}");

    let prompt = run(&["prompt", "my_srv__greet", "name=Ada"]);
    assert_eq!(prompt.code, Some(0), "{prompt:?}");
    assert!(prompt.stdout.contains("Please greet Ada"), "{prompt:?}");

    let complete = run(&["complete", "prompt", "coffee__greet", "name", "Gr"]);
    assert_eq!(complete.code, Some(0), "{complete:?}");
    assert!(complete.stdout.contains("Grace"), "{complete:?}");

    // A qualified name of a server that did not start names it.
    let call = run(&["call", "broken__add"]);
    assert_eq!(call.code, Some(2), "{call:?}");
    assert!(
        call.stderr.contains("server broken was not started"),
        "{call:?}"
    );
    // An unknown one is still unknown.
    let call = run(&["call", "coffee__nope"]);
    assert_eq!(call.code, Some(2), "{call:?}");
    assert!(
        call.stderr.contains("no tool named \"coffee__nope\""),
        "{call:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
