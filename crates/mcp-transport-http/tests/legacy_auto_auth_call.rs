//! Legacy HTTP+SSE against the fault server, auto-detection (400/404/405 →
//! legacy, 401 → auth error), the auth-provider hook, and the one-shot
//! `call` helper.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::*;
use fault_http::{FaultServer, Part, Reply, init_result, sse_data, tools_result};
use http::{HeaderMap, HeaderValue, Method};
use mcp_transport::Transport;
use mcp_transport_http::{
    ActiveMode, AuthChallenge, AuthDecision, AuthProvider, HttpMode, HttpTransport, OneShotOptions,
    call,
};
use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

/// A legacy server: GET /sse opens the stream and sends the endpoint; POST
/// /messages?session_id=abc is answered 202 and the response is pushed onto
/// the stream. `post_on_sse` is the status a POST to /sse gets (for auto).
fn legacy_server(post_on_sse: u16) -> impl Fn(&fault_http::Recorded) -> Reply {
    let stream: Arc<Mutex<Option<UnboundedSender<Part>>>> = Arc::default();
    move |r| {
        if r.method == Method::GET && r.path() == "/sse" {
            let (reply, tx) = Reply::sse_channel();
            let _ = tx.send(Part::bytes(
                "event: endpoint\ndata: /messages?session_id=a%2Fb\n\n",
            ));
            *stream.lock().unwrap() = Some(tx);
            return reply;
        }
        if r.method == Method::POST && r.path() == "/sse" {
            return Reply::status(post_on_sse);
        }
        if r.uri.path_and_query().map(|p| p.as_str()) != Some("/messages?session_id=a%2Fb") {
            return Reply::status(404);
        }
        let id = r.rpc_id().unwrap_or_default();
        let answer = match r.rpc_method().as_deref() {
            Some("initialize") => Some(init_result(&id, "2024-11-05")),
            Some("tools/list") => Some(tools_result(&id)),
            _ => None,
        };
        if let (Some(answer), Some(tx)) = (answer, stream.lock().unwrap().as_ref()) {
            let _ = tx.send(Part::bytes(format!("event: message\ndata: {answer}\n\n")));
        }
        Reply::status(202).body("Accepted")
    }
}

#[tokio::test]
async fn legacy_mode_posts_to_the_endpoint_and_reads_the_stream() {
    let server = FaultServer::start(legacy_server(405)).await.unwrap();
    let t = HttpTransport::connect(config(&server.url("/sse")), HttpMode::Legacy)
        .await
        .unwrap();
    assert_eq!(t.mode(), ActiveMode::Legacy);
    let init = initialize(&t).await.unwrap();
    assert_eq!(init["protocolVersion"], "2024-11-05");
    t.notify("notifications/initialized", None).await.unwrap();
    assert_eq!(
        t.request("tools/list", None, opts())
            .await
            .unwrap()
            .to_value()
            .unwrap(),
        json!({"tools": []})
    );
    t.close().await.unwrap();
    assert_eq!(
        server.count(&Method::GET),
        1,
        "no Streamable GET listener in legacy mode"
    );
    assert_eq!(server.count(&Method::DELETE), 0);
}

#[tokio::test]
async fn auto_falls_back_on_400_404_405() {
    for status in [400, 404, 405] {
        let server = FaultServer::start(legacy_server(status)).await.unwrap();
        let t = HttpTransport::connect_auto(config(&server.url("/sse")))
            .await
            .unwrap();
        assert_eq!(t.mode(), ActiveMode::Undecided);
        let init = initialize(&t).await.unwrap();
        assert_eq!(init["protocolVersion"], "2024-11-05");
        assert_eq!(t.mode(), ActiveMode::Legacy);
        assert_eq!(
            t.request("tools/list", None, opts())
                .await
                .unwrap()
                .to_value()
                .unwrap(),
            json!({"tools": []})
        );
        let inits = server
            .requests()
            .iter()
            .filter(|r| r.is_call("initialize"))
            .count();
        assert_eq!(inits, 2, "the same initialize, re-sent over legacy");
        t.close().await.unwrap();
    }
}

#[tokio::test]
async fn auto_stays_streamable_on_success_and_401_is_not_a_fallback() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::sse(vec![sse_data(&init_result(&id, "2025-06-18"))])
    })
    .await
    .unwrap();
    let t = HttpTransport::connect_auto(config(&server.url("/mcp")))
        .await
        .unwrap();
    initialize(&t).await.unwrap();
    assert_eq!(t.mode(), ActiveMode::Streamable);

    let server = FaultServer::start(|_| {
        Reply::status(401)
            .header(
                "www-authenticate",
                "Bearer resource_metadata=\"http://x/.well-known\"",
            )
            .header("mcp-auth-server", "http://auth")
    })
    .await
    .unwrap();
    let t = HttpTransport::connect_auto(config(&server.url("/mcp")))
        .await
        .unwrap();
    let err = initialize(&t).await.unwrap_err();
    match err {
        mcp_transport::TransportError::Http { status, hint, .. } => {
            assert_eq!(status, 401);
            // Without an auth provider, the refusal's authorization headers
            // reach the person as the error's hint.
            let hint = hint.expect("a 401 with WWW-Authenticate has a hint");
            assert!(hint.contains("WWW-Authenticate: Bearer"), "{hint}");
            assert!(hint.contains("Mcp-Auth-Server: http://auth"), "{hint}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.count(&Method::GET), 0, "no legacy fallback on 401");
}

#[derive(Debug, Default)]
struct Provider {
    seen: Mutex<Vec<AuthChallenge>>,
}

#[async_trait]
impl AuthProvider for Provider {
    async fn on_unauthorized(&self, challenge: &AuthChallenge) -> AuthDecision {
        self.seen.lock().unwrap().push(challenge.clone());
        let mut h = HeaderMap::new();
        h.insert("authorization", HeaderValue::from_static("Bearer fresh"));
        AuthDecision::RetryWith(h)
    }
}

#[tokio::test]
async fn auth_provider_headers_are_retried_and_kept() {
    let server = FaultServer::start(|r| {
        if r.header("authorization") != Some("Bearer fresh") {
            return Reply::status(401).header("www-authenticate", "Bearer");
        }
        let id = r.rpc_id().unwrap_or_default();
        Reply::json(tools_result(&id))
    })
    .await
    .unwrap();
    let provider = Arc::new(Provider::default());
    let config = config(&server.url("/mcp"))
        .with_header("Authorization", "Bearer stale")
        .with_auth_provider(provider.clone());
    let t = HttpTransport::connect(config, HttpMode::Streamable)
        .await
        .unwrap();
    t.request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    t.request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    let seen = provider.seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "called once; the fresh header is kept");
    assert_eq!(seen[0].status, 401);
    assert_eq!(seen[0].www_authenticate.as_deref(), Some("Bearer"));
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn one_shot_call_uses_the_same_path() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("tools/list") => Reply::sse(vec![Part::bytes("data:\n\n"), sse_data(&tools_result(&id))]),
            _ => Reply::json(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found","data":{{"m":1}}}}}}"#
            )),
        }
    })
    .await
    .unwrap();
    let options = OneShotOptions::default()
        .with_header("X-Key", "k")
        .with_protocol_version(mcp_types::ProtocolVersion::V2025_06_18);
    let result = call(&server.url("/mcp"), "tools/list", None, options.clone())
        .await
        .unwrap();
    assert_eq!(result, json!({"tools": []}));
    let err = call(&server.url("/mcp"), "nope", Some(&json!({})), options)
        .await
        .unwrap_err();
    let rpc = err.as_jsonrpc().expect("JSON-RPC error");
    assert_eq!(rpc.code.0, -32601);
    let r = &server.requests()[0];
    assert_eq!(r.header("x-key"), Some("k"));
    assert_eq!(r.header("mcp-protocol-version"), Some("2025-06-18"));
    assert_eq!(server.count(&Method::DELETE), 0);
}
