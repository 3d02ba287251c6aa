use std::sync::Arc;

use async_trait::async_trait;
use mcp_client::{
    Client, ClientHandler, ClientOptions, ElicitationModes, RequestContext, RequestOptions,
};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use mcp_types::JsonRpcError;
use mcp_types::elicitation::{ElicitRequestParams, ElicitResult};

/// Answers every form with the same name; declines anything else.
struct FillInName;

#[async_trait]
impl ClientHandler for FillInName {
    async fn elicit(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        let ElicitRequestParams::Form(form) = params else {
            return Ok(ElicitResult::decline());
        };
        eprintln!("the server asks: {}", form.message);
        let mut content = serde_json::Map::new();
        content.insert("name".into(), "Ada".into());
        Ok(ElicitResult::accept(content))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = ClientOptions::new("my-host", "1.0.0")
        .with_elicitation(ElicitationModes::form())
        .with_handler(Arc::new(FillInName));
    // The demo server of the `mcp` command line: its tool `ask_name` asks
    // for a form and greets the name it gets.
    let transport =
        StdioTransport::spawn(StdioConfig::new("mcp").with_args(["serve-demo"])).await?;
    let client = Client::connect(transport, options).await?;
    let result = client
        .call_tool("ask_name", serde_json::json!({}), RequestOptions::default())
        .await?;
    println!("{}", result.text()); // Hello, Ada!
    client.close().await?;
    Ok(())
}
