//! B13: 307/308 are followed for POST keeping method, body and headers (at
//! most 5 hops; a cross-origin hop drops `Authorization`); 301/302/303 on a
//! POST is a clear error, never a GET.
//!
//! Catalogue cases: B13.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use common::*;
use fault_http::{FaultServer, Reply, init_result};
use http::Method;
use mcp_transport_http::{HttpMode, HttpTransport};

fn redirecting(status: u16) -> impl Fn(&fault_http::Recorded) -> Reply {
    move |r| {
        if r.path() == "/mcp" {
            return Reply::status(status).header("location", "/mcp/");
        }
        let id = r.rpc_id().unwrap_or_default();
        if r.method != Method::POST
            || r.rpc_method().is_none()
            || r.header("accept") != Some("application/json, text/event-stream")
            || r.header("authorization") != Some("Bearer t")
        {
            return Reply::status(400).body("body or headers missing");
        }
        Reply::json(init_result(&id, "2025-06-18"))
    }
}

async fn connect(url: &str) -> HttpTransport {
    HttpTransport::connect(
        config(url).with_header("Authorization", "Bearer t"),
        HttpMode::Streamable,
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn temporary_and_permanent_redirects_are_followed() {
    for status in [307, 308] {
        let server = FaultServer::start(redirecting(status)).await.unwrap();
        let t = connect(&server.url("/mcp")).await;
        let result = initialize(&t)
            .await
            .unwrap_or_else(|e| panic!("{status}: {e}"));
        assert_eq!(result["protocolVersion"], "2025-06-18");
        let paths: Vec<_> = server
            .requests()
            .iter()
            .map(|r| (r.method.clone(), r.path().to_owned()))
            .collect();
        assert_eq!(
            paths,
            [
                (Method::POST, "/mcp".into()),
                (Method::POST, "/mcp/".to_owned())
            ]
        );
    }
}

#[tokio::test]
async fn found_on_post_is_an_error_not_a_get() {
    for status in [301, 302, 303] {
        let server = FaultServer::start(redirecting(status)).await.unwrap();
        let t = connect(&server.url("/mcp")).await;
        let err = initialize(&t).await.unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&status.to_string()) && text.contains("redirect"),
            "{text}"
        );
        assert_eq!(server.count(&Method::GET), 0);
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn cross_origin_redirect_drops_authorization() {
    let other = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::json(init_result(&id, "2025-06-18"))
    })
    .await
    .unwrap();
    let target = other.url("/mcp/");
    let server = FaultServer::start(move |_| Reply::status(307).header("location", &target))
        .await
        .unwrap();
    let t = connect(&server.url("/mcp")).await;
    initialize(&t).await.unwrap();
    let seen = other.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].header("authorization"), None);
    assert!(
        seen[0].rpc_method().as_deref() == Some("initialize"),
        "body kept"
    );
}

#[tokio::test]
async fn redirect_loops_stop_after_five_hops() {
    let server = FaultServer::start(|_| Reply::status(307).header("location", "/mcp"))
        .await
        .unwrap();
    let t = connect(&server.url("/mcp")).await;
    let err = initialize(&t).await.unwrap_err();
    assert!(err.to_string().contains("redirects"), "{err}");
    assert_eq!(server.requests().len(), 6, "the first POST and 5 hops");
}
