//! `mcp doctor`: the connection checklist against a server behind each
//! failing step — a refused port, an HTTP server that is not MCP, a server
//! whose authorization server publishes broken metadata — and against the
//! demo server, where every step passes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use fault_http::{FaultServer, Reply};
use serde_json::Value;

async fn doctor(args: Vec<String>) -> support::Run {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        support::mcp(&args)
    })
    .await
    .unwrap()
}

/// The step lines: `(verdict, step)`.
fn steps(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter(|l| {
            ["ok ", "FAIL ", "skip ", "auth "]
                .iter()
                .any(|v| l.starts_with(v))
        })
        .map(|l| {
            let verdict = l[..5].trim().to_owned();
            let step = l[6..30].trim().to_owned();
            (verdict, step)
        })
        .collect()
}

#[test]
fn the_demo_passes_every_step() {
    let run = support::mcp(&["doctor", "demo"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let names: Vec<(String, String)> = steps(&run.stdout);
    assert_eq!(
        names,
        [
            ("ok".to_owned(), "command".to_owned()),
            ("ok".to_owned(), "MCP handshake".to_owned())
        ],
        "{run:?}"
    );
    assert!(
        run.stdout.contains("revision 2025-11-25, mcp-demo"),
        "{run:?}"
    );
    assert!(run.stdout.contains("demo: every step passed"), "{run:?}");
    let run = support::mcp(&["doctor", "nosuch"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no server named \"nosuch\""), "{run:?}");
}

#[test]
fn a_refused_port_fails_at_tcp_and_says_what_to_do() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = support::mcp(&["doctor", &url]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(
        steps(&run.stdout),
        [
            ("ok".to_owned(), "URL".to_owned()),
            ("ok".to_owned(), "name resolution".to_owned()),
            ("FAIL".to_owned(), "TCP connect".to_owned()),
        ],
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("the first failing step: TCP connect: 127.0.0.1:"),
        "{run:?}"
    );
    assert!(
        run.stdout.contains(&format!(
            "what to do: nothing listens on 127.0.0.1:{port}: start the server"
        )),
        "{run:?}"
    );
    let run = support::mcp(&["doctor", &url, "--json"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["steps"][2]["step"], "TCP connect");
    assert_eq!(report["steps"][2]["verdict"], "FAIL");
    assert!(report["steps"][2]["ms"].is_u64());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_that_is_not_mcp_fails_at_the_handshake() {
    let web = FaultServer::start(|_| {
        Reply::status(404)
            .header("content-type", "text/html")
            .body("<!DOCTYPE html><html><body>Not Found</body></html>")
    })
    .await
    .unwrap();
    let run = doctor(vec!["doctor".into(), web.url("/")]).await;
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(
        steps(&run.stdout),
        [
            ("ok".to_owned(), "URL".to_owned()),
            ("ok".to_owned(), "name resolution".to_owned()),
            ("ok".to_owned(), "TCP connect".to_owned()),
            ("ok".to_owned(), "HTTP".to_owned()),
            ("FAIL".to_owned(), "MCP handshake".to_owned()),
        ],
        "{run:?}"
    );
    assert!(run.stdout.contains("HTTP 404 (text/html)"), "{run:?}");
    assert!(
        run.stdout
            .contains("what to do: the URL answers HTTP but not MCP: check its path"),
        "{run:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_authorization_metadata_fails_at_discovery() {
    let server = FaultServer::start(|r| {
        let host = r.header("host").unwrap_or("127.0.0.1").to_owned();
        match r.path() {
            "/mcp" => Reply::status(401).header(
                "www-authenticate",
                &format!(
                    "Bearer resource_metadata=\"http://{host}/.well-known/oauth-protected-resource/mcp\""
                ),
            ),
            "/.well-known/oauth-protected-resource/mcp" => Reply::json(format!(
                r#"{{"resource":"http://{host}/mcp","authorization_servers":["http://{host}/as"]}}"#
            )),
            // The authorization server's metadata is not JSON.
            _ => Reply::status(200)
                .header("content-type", "application/json")
                .body("{ this is not json"),
        }
    })
    .await
    .unwrap();
    let run = doctor(vec!["doctor".into(), server.url("/mcp")]).await;
    assert_eq!(run.code, Some(2), "{run:?}");
    let found = steps(&run.stdout);
    assert!(
        found.contains(&("auth".to_owned(), "MCP handshake".to_owned())),
        "{run:?}"
    );
    assert_eq!(
        found.last(),
        Some(&("FAIL".to_owned(), "authorization discovery".to_owned())),
        "{run:?}"
    );
    assert!(
        run.stdout.contains("mcp auth inspect http://127.0.0.1:"),
        "{run:?}"
    );
}
