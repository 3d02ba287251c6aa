//! `--sse` (or `"type": "sse"`) against a server that speaks Streamable
//! HTTP: the legacy transport's SSE stream `GET` fails the way such a server
//! answers it (400 without a session, 405, a JSON answer), and the failure
//! says the server may speak Streamable HTTP and names the fix (drop
//! `--sse`; `"type": "http"` in a configuration) instead of a bare HTTP 400.
//! The converse needs no fix: without `--sse`, a server that speaks only
//! HTTP+SSE is reached by the fallback. Against server-everything
//! (`streamableHttp` and `sse`, skipped with a printed reason when not
//! installed) and scripted 127.0.0.1 servers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use fault_http::{FaultServer, Reply};
use mcp_tests::peers::{EverythingHttp, skip_if_missing, spawn_everything_http};
use support::Run;

async fn run(args: Vec<String>) -> Run {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        support::mcp(&args)
    })
    .await
    .unwrap()
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn sse_against_server_everything_streamable_http_names_the_fix() {
    let Some(peer) = skip_if_missing(spawn_everything_http(EverythingHttp::StreamableHttp)) else {
        return;
    };
    let url = peer.url();
    let servers = support::mcp(&["--sse", "--url", url, "servers"]);
    assert_eq!(servers.code, Some(2), "{servers:?}");
    assert!(servers.stdout.contains("HTTP 400"), "{servers:?}");
    assert!(
        servers
            .stdout
            .contains("it may speak Streamable HTTP; drop --sse"),
        "{servers:?}"
    );
    let tools = support::mcp(&["--sse", "--url", url, "tools"]);
    assert_eq!(tools.code, Some(2), "{tools:?}");
    assert!(tools.stderr.contains("drop --sse"), "{tools:?}");
    // The same server without --sse works.
    let plain = support::mcp(&["--url", url, "servers"]);
    assert_eq!(plain.code, Some(0), "{plain:?}\n{}", peer.log_tail());

    // A configuration entry is told which field to change.
    let dir = support::temp_dir("sse-entry");
    std::fs::write(
        dir.join("servers.json"),
        serde_json::json!({"mcpServers": {"ev": {"type": "sse", "url": url}}}).to_string(),
    )
    .unwrap();
    let entry = support::mcp_in(&dir, &["--config", "servers.json", "servers"]);
    assert_eq!(entry.code, Some(2), "{entry:?}");
    assert!(
        entry
            .stdout
            .contains(r#"set "type": "http" in its entry in servers.json"#),
        "{entry:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The converse: a server that speaks only HTTP+SSE, reached without
/// `--sse`, is connected through the fallback (nothing to fix).
#[test]
fn a_legacy_only_server_is_reached_without_sse() {
    let Some(peer) = skip_if_missing(spawn_everything_http(EverythingHttp::Sse)) else {
        return;
    };
    let run = support::mcp(&["--url", peer.url(), "servers"]);
    assert_eq!(run.code, Some(0), "{run:?}\n{}", peer.log_tail());
    assert!(run.stdout.contains("connected"), "{run:?}");
}

/// Scripted answers to the SSE stream's GET: 405 (a Streamable HTTP server
/// without a GET stream) and a JSON answer both get the hint; a 500 does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_streamable_http_answer_to_the_sse_get_gets_the_hint() {
    let not_allowed = FaultServer::start(|_| Reply::status(405).body("Method Not Allowed"))
        .await
        .unwrap();
    let json = FaultServer::start(|_| Reply::json(r#"{"jsonrpc":"2.0","result":{}}"#))
        .await
        .unwrap();
    let broken = FaultServer::start(|_| Reply::status(500).body("oops"))
        .await
        .unwrap();
    for (server, hinted) in [(&not_allowed, true), (&json, true), (&broken, false)] {
        let url = server.url("/mcp");
        let out = run(args(&["--sse", "--url", &url, "--timeout", "5", "servers"])).await;
        assert_eq!(out.code, Some(2), "{out:?}");
        assert_eq!(
            out.stdout
                .contains("it may speak Streamable HTTP; drop --sse"),
            hinted,
            "{out:?}"
        );
    }
}
