//! A config file with two servers (both the demo, under two names): listing
//! groups by server, a tool offered by both needs SERVER, `servers` shows both
//! (and the disabled entry as disabled), and ./.mcp.json is picked up by default.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

fn write_config(dir: &std::path::Path, file: &str) {
    let exe = env!("CARGO_BIN_EXE_mcp");
    let config = serde_json::json!({"mcpServers": {
        "alpha": {"command": exe, "args": ["serve-demo"]},
        "beta": {"command": exe, "args": ["serve-demo"]},
        "off": {"command": "/nonexistent", "disabled": true}
    }});
    std::fs::write(dir.join(file), config.to_string()).expect("write config");
}

#[test]
fn two_servers_from_a_config_file() {
    let dir = support::temp_dir("config");
    write_config(&dir, "servers.json");
    let config = dir.join("servers.json");
    let config = config.to_str().expect("utf-8 path");

    let run = support::mcp_in(&dir, &["--config", config, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("alpha:\n  echo(message: string)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("beta:\n  echo(message: string)"),
        "{}",
        run.stdout
    );

    let run = support::mcp_in(&dir, &["--config", config, "call", "echo", "message=x"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("several servers offer"),
        "{}",
        run.stderr
    );

    let run = support::mcp_in(
        &dir,
        &["--config", config, "call", "beta", "echo", "message=x"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "x\n");

    let run = support::mcp_in(&dir, &["--config", config, "tools", "alpha"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!run.stdout.contains("beta:"));

    let run = support::mcp_in(&dir, &["--config", config, "--json", "servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["alpha", "beta", "off"]);
    let rows = v.as_array().unwrap();
    assert!(
        rows[..2]
            .iter()
            .all(|s| s["status"] == "connected" && s["tools"] == 5),
        "{v}"
    );
    assert_eq!(rows[2]["status"], "disabled", "{v}");

    let run = support::mcp_in(&dir, &["--config", config, "servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("\noff  disabled\n"), "{}", run.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dot_mcp_json_is_the_default() {
    let dir = support::temp_dir("dotmcp");
    write_config(&dir, ".mcp.json");
    let run = support::mcp_in(&dir, &["servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("alpha  connected"), "{}", run.stdout);
    assert!(!run.stdout.contains("demo  connected"));
    let _ = std::fs::remove_dir_all(&dir);
}
