//! A non-2xx reply whose body never ends cannot hold a send: its body is read
//! only to explain the error, up to the send's own deadline (the notify or
//! connect timeout) and at most `ERROR_BODY_WAIT`; the error then carries
//! the status and what arrived. (Found by a hostile server answering
//! `notifications/initialized` with a 500 that trickled forever: `notify`
//! and so `Client::connect` hung despite the notify timeout.)

mod common;

use std::time::Duration;

use common::*;
use fault_http::{FaultServer, Part, Reply, tools_result};
use mcp_transport::{RequestOptions, Transport};
use mcp_transport_http::{ERROR_BODY_WAIT, HttpMode, HttpTimeouts, HttpTransport};

/// A 500 that sends `partial` and then nothing, never ending.
fn endless_500() -> Reply {
    Reply::status(500).parts(vec![Part::bytes("partial"), Part::pause_ms(600_000)])
}

fn short_timeouts() -> HttpTimeouts {
    HttpTimeouts::default()
        .with_notify(Duration::from_millis(300))
        .with_connect(Duration::from_millis(300))
}

#[tokio::test]
async fn notify_ends_at_its_timeout_with_the_status_and_what_arrived() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("tools/list") => Reply::json(tools_result(&id)),
            _ => endless_500(),
        }
    })
    .await
    .unwrap();
    let config = config(&server.url("/mcp")).with_timeouts(short_timeouts());
    let t = HttpTransport::connect(config, HttpMode::Streamable)
        .await
        .unwrap();
    let err = tokio::time::timeout(PROMPT, t.notify("notifications/initialized", None))
        .await
        .expect("the notify timeout bounds the error body too")
        .unwrap_err();
    assert_eq!(err.http_status(), Some(500), "{err}");
    assert!(err.to_string().contains("partial"), "{err}");
    // The connection is still usable.
    assert!(t.request("tools/list", None, opts()).await.is_ok());
    t.close().await.unwrap();
}

#[tokio::test]
async fn request_error_body_is_read_for_at_most_error_body_wait() {
    assert!(ERROR_BODY_WAIT < PROMPT);
    let server = FaultServer::start(|_| endless_500()).await.unwrap();
    let t = streamable(&server.url("/mcp")).await;
    // The request's own timeout is far away: only the error-body wait can
    // end it within PROMPT.
    let options = RequestOptions::default().with_timeout(Duration::from_secs(120));
    let err = tokio::time::timeout(PROMPT, t.request("tools/list", None, options))
        .await
        .expect("the error body wait bounds the read")
        .unwrap_err();
    assert_eq!(err.http_status(), Some(500), "{err}");
    assert!(err.to_string().contains("partial"), "{err}");
    t.close().await.unwrap();
}

#[tokio::test]
async fn legacy_get_error_ends_at_the_connect_timeout() {
    let server = FaultServer::start(|_| endless_500()).await.unwrap();
    let config = config(&server.url("/sse")).with_timeouts(short_timeouts());
    let err = tokio::time::timeout(PROMPT, HttpTransport::connect(config, HttpMode::Legacy))
        .await
        .expect("the connect timeout bounds the error body too")
        .unwrap_err();
    assert_eq!(err.http_status(), Some(500), "{err}");
    assert!(err.to_string().contains("partial"), "{err}");
}
