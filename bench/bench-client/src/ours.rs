//! Our client: `mcp_client::Client` over `mcp_transport_stdio::StdioTransport`
//! (and the Streamable HTTP transport once it lands), pinned to protocol
//! revision 2025-06-18 like every client here.

use std::sync::Arc;

use mcp_client::{CallOptions, Client, ClientOptions, VersionPreference};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use mcp_types::ProtocolVersion;
use mcp_types::content::ContentBlock;

use crate::Args;
use crate::suite::{BenchClient, Connector};

pub struct OursClient(Client);

pub enum OursConnector {
    Stdio { server: String },
    Http { url: String },
}

fn options() -> ClientOptions {
    ClientOptions::new("mcp-bench", "0.1.0")
        .with_version_preference(VersionPreference::Only(ProtocolVersion::V2025_06_18))
}

impl Connector for OursConnector {
    type Client = OursClient;
    async fn connect(&self) -> anyhow::Result<OursClient> {
        match self {
            OursConnector::Stdio { server } => {
                let transport =
                    StdioTransport::spawn(StdioConfig::new(server.as_str()).arg("stdio")).await?;
                Ok(OursClient(Client::connect(transport, options()).await?))
            }
            OursConnector::Http { url } => {
                anyhow::bail!("our Streamable HTTP transport has not landed yet ({url})")
            }
        }
    }
}

impl BenchClient for OursClient {
    async fn call(&self, text: Arc<str>) -> anyhow::Result<()> {
        let mut args = serde_json::Map::new();
        args.insert("text".into(), serde_json::Value::from(&*text));
        let result = self
            .0
            .call_tool("echo", Some(args), CallOptions::default())
            .await?;
        let echoed = result.content.first().and_then(|c| match c {
            ContentBlock::Text(t) => Some(t.text.len()),
            _ => None,
        });
        anyhow::ensure!(echoed == Some(text.len()), "bad echo");
        Ok(())
    }

    async fn list(&self) -> anyhow::Result<usize> {
        Ok(self.0.list_tools(None).await?.tools.len())
    }
}

/// `mcp-bench manager`: time to connect N stdio servers through mcp-manager.
pub fn manager_main(_args: &Args) -> anyhow::Result<()> {
    anyhow::bail!("mcp-manager has not landed yet")
}
