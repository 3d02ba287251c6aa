use mcpio::{Client, ClientOptions, RequestOptions, StdioConfig, StdioTransport};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = StdioConfig::new("mcp").with_args(["serve-demo"]);
    println!("{}", add(server, 2, 3).await?); // 5
    Ok(())
}

/// Calls the demo server's `add` tool over stdio; the text of its result.
async fn add(server: StdioConfig, a: i64, b: i64) -> Result<String, Box<dyn std::error::Error>> {
    let transport = StdioTransport::spawn(server).await?;
    let client = Client::connect(transport, ClientOptions::new("my-host", "1.0.0")).await?;
    let args = serde_json::json!({"a": a, "b": b});
    let result = client.call_tool("add", args, RequestOptions::default()).await?;
    client.close().await?;
    Ok(result.text())
}
