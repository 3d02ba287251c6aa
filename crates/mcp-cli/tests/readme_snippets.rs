//! The Rust snippets of README.md, kept compiling against the real APIs
//! (the network ones are compiled, not run; the mcp-types one runs).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcp_client::{Client, ClientHandler, ClientOptions, RequestContext};
use mcp_transport::{CancellationToken, RequestOptions, Transport};
use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use mcp_types::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcp_types::{JsonRpcError, JsonRpcMessage, ProtocolVersion};

#[allow(dead_code)]
async fn client_over_stdio() -> Result<(), Box<dyn std::error::Error>> {
    let transport = StdioTransport::spawn(
        StdioConfig::new("npx").with_args(["-y", "@modelcontextprotocol/server-everything"]),
    )
    .await?;
    let client = Client::connect(transport, ClientOptions::new("my-host", "1.0.0")).await?;
    println!("speaking {}", client.protocol_version());
    for tool in client.list_all_tools(RequestOptions::default()).await? {
        println!("{}", tool.name);
    }
    let args = serde_json::json!({"a": 2, "b": 3});
    let options =
        RequestOptions::default().with_progress(|p| eprintln!("{}/{:?}", p.progress, p.total));
    let result = client.call_tool("get-sum", args, options).await?;
    if result.is_error == Some(true) {
        eprintln!("the tool failed: {:?}", result.content);
    }
    client.close().await?;
    Ok(())
}

#[allow(dead_code)]
async fn client_over_http() -> Result<(), Box<dyn std::error::Error>> {
    let config =
        HttpConfig::new("https://mcp.example.com/mcp").with_header("Authorization", "Bearer t");
    let transport = HttpTransport::connect(config, HttpMode::Auto).await?;
    let client = Client::connect(transport, ClientOptions::new("my-host", "1.0.0")).await?;
    client.ping(Default::default()).await?;
    Ok(())
}

struct AlwaysDecline;

#[async_trait]
impl ClientHandler for AlwaysDecline {
    async fn elicit(
        &self,
        _p: ElicitRequestParams,
        _c: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        Ok(ElicitResult::new(ElicitAction::Decline))
    }
}

#[allow(dead_code)]
async fn raw_transport(transport: impl Transport) -> Result<(), mcp_transport::TransportError> {
    let cancel = CancellationToken::new();
    let options = RequestOptions::default()
        .with_timeout(Duration::from_secs(10))
        .with_cancel(cancel.clone())
        .with_progress(|p| eprintln!("{:?}", p));
    let result = transport.request("tools/list", None, options).await?;
    let _ = result;
    Ok(())
}

#[test]
fn handler_options_build() {
    let options = ClientOptions::new("my-host", "1.0.0")
        .with_elicitation(true, false)
        .with_handler(Arc::new(AlwaysDecline));
    assert!(options.capabilities().elicitation.is_some());
}

#[test]
fn types_snippet_runs() {
    let message = JsonRpcMessage::decode(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
    assert!(matches!(message, JsonRpcMessage::Response(_)));
    assert!(ProtocolVersion::V2025_03_26.allows_batch());
    assert_eq!(
        ProtocolVersion::parse("2025-11-25"),
        Some(ProtocolVersion::LATEST_HANDSHAKE)
    );
}
