//! B09: a 405 on the GET stream means none is offered: exactly one GET per
//! session, nothing logged above debug; a 405 on DELETE is ignored.
//!
//! Catalogue cases: B09.

mod common;

use std::time::Duration;

use common::*;
use fault_http::{FaultServer, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::Transport;

#[tokio::test]
async fn exactly_one_get_and_delete_405_ignored() {
    let warnings = capture_warnings();
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.method != Method::POST {
            return Reply::status(405).header("allow", "POST");
        }
        match r.rpc_method().as_deref() {
            Some("initialize") => {
                Reply::json(init_result(&id, "2025-06-18")).header("Mcp-Session-Id", "s-1")
            }
            Some("tools/list") => Reply::json(tools_result(&id)),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    initialize(&t).await.unwrap();
    t.notify("notifications/initialized", None).await.unwrap();
    for _ in 0..3 {
        t.request("tools/list", None, opts())
            .await
            .unwrap()
            .to_value()
            .unwrap();
    }
    // Longer than several reconnect delays (10–50 ms) would take.
    tokio::time::sleep(Duration::from_millis(500)).await;
    t.close().await.expect("DELETE 405 ignored");
    assert!(!t.is_connected());
    assert_eq!(server.count(&Method::GET), 1, "exactly one GET");
    assert_eq!(server.count(&Method::DELETE), 1);
    let delete = server
        .requests()
        .into_iter()
        .find(|r| r.method == Method::DELETE)
        .unwrap();
    assert_eq!(delete.header("mcp-session-id"), Some("s-1"));
    assert_eq!(warnings.text(), "", "nothing above debug");
}

#[tokio::test]
async fn other_4xx_on_get_is_retried_a_bounded_number_of_times() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.method == Method::GET {
            return Reply::status(429);
        }
        match r.rpc_method().as_deref() {
            Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    initialize(&t).await.unwrap();
    t.notify("notifications/initialized", None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // max_retries = 3 in the test config: the first GET plus 3 retries.
    assert_eq!(server.count(&Method::GET), 4);
    t.close().await.unwrap();
}
