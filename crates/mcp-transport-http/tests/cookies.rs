//! A cookie the server's origin sets (a load balancer's sticky session, set
//! on `initialize`) comes back on every later request to that origin: the
//! notification, requests, the GET stream and the session DELETE. It never
//! goes to another origin (a redirect to another port of the same host),
//! and a `Domain` of another host is refused.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use common::*;
use fault_http::{FaultServer, Recorded, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::Transport;
use serde_json::json;

/// The `Cookie` header a request carried.
fn cookie(r: &Recorded) -> Option<&str> {
    r.header("cookie")
}

/// A replica behind a sticky load balancer: `initialize` sets the
/// balancer's cookie; every later request without it lands "on another
/// replica", where the session is not found (404).
fn sticky(r: &Recorded) -> Reply {
    let id = r.rpc_id().unwrap_or_default();
    if r.rpc_method().as_deref() == Some("initialize") {
        return Reply::json(init_result(&id, "2025-06-18"))
            .header("mcp-session-id", "s-1")
            .header("set-cookie", "lb=replica-1; Path=/; HttpOnly; Max-Age=3600")
            .header("set-cookie", "foreign=1; Domain=example.com")
            .header("set-cookie", "elsewhere=1; Path=/other");
    }
    if !cookie(r).is_some_and(|c| c.split("; ").any(|p| p == "lb=replica-1")) {
        return Reply::status(404).body("session not found");
    }
    if r.method == Method::GET {
        return Reply::status(405);
    }
    match r.rpc_method().as_deref() {
        Some("tools/list") => Reply::json(tools_result(&id)),
        _ => Reply::status(202),
    }
}

#[tokio::test]
async fn the_origin_s_cookie_comes_back_on_every_later_request() {
    let logs = capture_at(tracing::Level::DEBUG);
    let server = FaultServer::start(sticky).await.unwrap();
    let (t, _events) = initialized(&server.url("/mcp")).await;
    for _ in 0..3 {
        let tools = t
            .request("tools/list", None, opts())
            .await
            .expect("routed to the replica that holds the session")
            .to_value()
            .unwrap();
        assert_eq!(tools, json!({"tools": []}));
    }
    t.close().await.unwrap();
    let seen = server.requests();
    assert_eq!(cookie(&seen[0]), None, "nothing to send before initialize");
    let later = &seen[1..];
    for method in [Method::POST, Method::GET, Method::DELETE] {
        assert!(
            later.iter().any(|r| r.method == method),
            "a {method} was sent: {:?}",
            later.iter().map(|r| &r.method).collect::<Vec<_>>()
        );
    }
    for r in later {
        // Only the balancer's cookie: the foreign Domain was refused, the
        // other Path does not match /mcp.
        assert_eq!(cookie(r), Some("lb=replica-1"), "{} {}", r.method, r.uri);
    }
    let logs = logs.text();
    assert!(logs.contains("a Set-Cookie was refused"), "{logs}");
    assert!(
        !logs.contains("replica-1"),
        "a cookie value was logged: {logs}"
    );
}

#[tokio::test]
async fn another_origin_never_receives_the_cookie() {
    let other = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::json(tools_result(&id))
    })
    .await
    .unwrap();
    let target = other.url("/mcp");
    let server = FaultServer::start(move |r| {
        if r.rpc_method().as_deref() == Some("tools/list") {
            // The same host on another port: another origin.
            return Reply::status(307).header("location", &target);
        }
        sticky(r)
    })
    .await
    .unwrap();
    let (t, _events) = initialized(&server.url("/mcp")).await;
    let tools = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
    t.close().await.unwrap();
    let seen = other.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(cookie(&seen[0]), None, "the other origin got no cookie");
    let redirected = server
        .requests()
        .into_iter()
        .find(|r| r.is_call("tools/list"))
        .expect("tools/list reached the first server");
    assert_eq!(cookie(&redirected), Some("lb=replica-1"));
}
