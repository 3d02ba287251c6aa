use mcp_client::{Client, ClientOptions, RequestOptions};
use mcp_transport_stdio::{StdioConfig, StdioTransport};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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
        eprintln!("the tool failed: {}", result.text());
    } else {
        println!("{}", result.text()); // The sum of 2 and 3 is 5.
    }
    client.close().await?;
    Ok(())
}
