//! A Streamable HTTP server that answers `initialize` with 2024-11-05 (a
//! hard-coded version, common in hand-written servers) and assigns an
//! `Mcp-Session-Id`: every later request carries the id back, and the
//! connection works. The revision defines no sessions, but the server
//! refuses requests without the id it assigned.

mod common;

use common::*;
use fault_http::{FaultServer, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::Transport;
use mcp_transport_http::{HttpMode, HttpTransport};
use mcp_types::ProtocolVersion;

#[tokio::test]
async fn the_assigned_session_id_is_sent_back_under_2024_11_05() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.rpc_method().as_deref() == Some("initialize") {
            return Reply::json(init_result(&id, "2024-11-05")).header("mcp-session-id", "s-old");
        }
        if r.header("mcp-session-id") != Some("s-old") {
            return Reply::json(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad session"}}"#,
            )
            .with_status(400);
        }
        match (r.method.as_str(), r.rpc_method().as_deref()) {
            ("GET", _) => Reply::status(405),
            ("DELETE", _) => Reply::status(200),
            (_, Some("tools/list")) => Reply::json(tools_result(&id)),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let t = HttpTransport::connect(config(&server.url("/mcp")), HttpMode::Streamable)
        .await
        .unwrap();
    let init = t
        .request("initialize", Some(&init_params("2025-11-25")), opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(init["protocolVersion"], "2024-11-05");
    t.set_protocol_version(ProtocolVersion::V2024_11_05);
    t.notify("notifications/initialized", None).await.unwrap();
    let tools = t.request("tools/list", None, opts()).await;
    assert!(tools.is_ok(), "{tools:?}");
    assert_eq!(t.session_id().as_deref(), Some("s-old"));
    t.close().await.unwrap();

    let requests = server.requests();
    let after_init: Vec<_> = requests
        .iter()
        .filter(|r| r.rpc_method().as_deref() != Some("initialize"))
        .collect();
    assert!(
        after_init.iter().any(|r| r.method == Method::DELETE),
        "the session was not ended with DELETE: {:?}",
        requests
            .iter()
            .map(|r| r.method.as_str())
            .collect::<Vec<_>>()
    );
    for r in after_init {
        assert_eq!(
            r.header("mcp-session-id"),
            Some("s-old"),
            "{} {:?} without the session id",
            r.method,
            r.rpc_method()
        );
    }
}
