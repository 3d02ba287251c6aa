//! `read URI` without a server, over a config of several: the one server
//! that lists the URI reads it; two that list it are named (as `call` and
//! `prompt` name theirs) instead of the first being picked; a URI that no
//! server lists but one server's resource template fits (the Python SDK's
//! `peer://echo/{text}`) is read there. Needs the test peers' Python SDK
//! (skipped, saying so, without it).
#![allow(
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use mcp_tests::peers::python_stdio_command;

#[test]
fn read_finds_its_server_or_names_the_several() {
    let Some((python, args)) = python_stdio_command() else {
        return;
    };
    let dir = support::temp_dir("read-across");
    let exe = env!("CARGO_BIN_EXE_mcp");
    let config = serde_json::json!({"mcpServers": {
        "demo": {"command": exe, "args": ["serve-demo"]},
        "py": {"command": python, "args": args},
        "py2": {"command": python, "args": args},
    }});
    let path = dir.join("servers.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    let config = path.to_str().expect("utf-8 path");

    let run = support::mcp_in(&dir, &["--config", config, "read", "demo://readme"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!run.stdout.is_empty(), "{run:?}");

    let run = support::mcp_in(
        &dir,
        &["--config", config, "read", "peer://static/greeting"],
    );
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr
            .contains("several servers offer \"peer://static/greeting\" (py, py2)"),
        "{run:?}"
    );

    let run = support::mcp_in(&dir, &["--config", config, "read", "py", "peer://echo/abc"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let one = run.stdout.clone();

    // With one Python server, its template decides where a URI that no
    // server lists goes.
    let single = serde_json::json!({"mcpServers": {
        "demo": {"command": exe, "args": ["serve-demo"]},
        "py": {"command": python, "args": args},
    }});
    std::fs::write(&path, single.to_string()).expect("write config");
    let run = support::mcp_in(&dir, &["--config", config, "read", "peer://echo/abc"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, one);
    let _ = std::fs::remove_dir_all(&dir);
}
