use std::time::Duration;

use mcp_transport::{CancellationToken, RequestOptions, Transport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use mcp_types::tools::ListToolsResult;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let transport =
        StdioTransport::spawn(StdioConfig::new("mcp").with_args(["serve-demo"])).await?;
    // Without a `Client`, the handshake is yours to send.
    let hello = serde_json::json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "my-host", "version": "1.0.0"}
    });
    transport
        .request("initialize", Some(&hello), RequestOptions::default())
        .await?;
    transport.notify("notifications/initialized", None).await?;
    let cancel = CancellationToken::new();
    let options = RequestOptions::default()
        .with_timeout(Duration::from_secs(10))
        .with_cancel(cancel.clone())
        .with_progress(|p| eprintln!("{p:?}"));
    // A `RawResult`: the result's JSON as received, parsed once when asked.
    let result = transport.request("tools/list", None, options).await?;
    for tool in result.parse::<ListToolsResult>()?.tools {
        println!("{}", tool.name);
    }
    transport.close().await?;
    Ok(())
}
