use mcp_client::{Client, ClientOptions};
use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config =
        HttpConfig::new("http://127.0.0.1:3001/mcp").with_header("Authorization", "Bearer t");
    let transport = HttpTransport::connect(config, HttpMode::Auto).await?;
    let client = Client::connect(transport, ClientOptions::new("my-host", "1.0.0")).await?;
    client.ping(Default::default()).await?;
    println!("{} answered", client.protocol_version());
    client.close().await?;
    Ok(())
}
