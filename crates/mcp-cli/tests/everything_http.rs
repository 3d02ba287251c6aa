//! The reference server-everything over Streamable HTTP on 127.0.0.1
//! (skipped with a printed reason when not installed).
mod support;

use mcp_tests::peers::{EverythingHttp, skip_if_missing, spawn_everything_http};

#[test]
fn streamable_http_listing_call_and_progress() {
    let Some(peer) = skip_if_missing(spawn_everything_http(EverythingHttp::StreamableHttp)) else {
        return;
    };
    let url = peer.url();
    let run = support::mcp(&["--url", url, "servers"]);
    assert_eq!(run.code, Some(0), "{run:?}\n{}", peer.log_tail());
    assert!(run.stdout.contains("connected"), "{}", run.stdout);

    let run = support::mcp(&["--url", url, "--json", "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let tools = v
        .as_object()
        .and_then(|m| m.values().next())
        .and_then(|t| t.as_array())
        .expect("one server");
    assert!(tools.iter().any(|t| t["name"] == "echo"));

    let run = support::mcp(&[
        "--url",
        url,
        "call",
        "trigger-long-running-operation",
        "duration=1",
        "steps=2",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stderr
            .lines()
            .filter(|l| l.starts_with("progress: "))
            .count(),
        2,
        "{}",
        run.stderr
    );

    let run = support::mcp(&[
        "--url",
        url,
        "--header",
        "X-Test: 1",
        "call",
        "echo",
        "message=over http",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "Echo: over http");
}
