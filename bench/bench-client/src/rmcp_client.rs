//! rmcp (the official Rust SDK, crates.io release pinned in Cargo.toml) as a
//! client: child process over stdio, reqwest for Streamable HTTP. It is
//! pinned to protocol revision 2025-06-18, like every client here.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, Implementation, InitializeRequestParams,
    ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

use crate::suite::{BenchClient, Connector};

pub struct RmcpClient(RunningService<RoleClient, InitializeRequestParams>);

fn config() -> InitializeRequestParams {
    let mut c = InitializeRequestParams::new(
        ClientCapabilities::default(),
        Implementation::new("rmcp-bench", "0.1.0"),
    );
    c.protocol_version = ProtocolVersion::V_2025_06_18;
    c
}

pub enum RmcpConnector {
    Stdio { server: String },
    Http { url: String },
}

impl Connector for RmcpConnector {
    type Client = RmcpClient;
    async fn connect(&self) -> anyhow::Result<RmcpClient> {
        let service = match self {
            RmcpConnector::Stdio { server } => {
                let mut cmd = tokio::process::Command::new(server);
                cmd.arg("stdio");
                config().serve(TokioChildProcess::new(cmd)?).await?
            }
            RmcpConnector::Http { url } => {
                config()
                    .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                    .await?
            }
        };
        Ok(RmcpClient(service))
    }
}

impl BenchClient for RmcpClient {
    async fn call(&self, text: Arc<str>) -> anyhow::Result<()> {
        let mut args = serde_json::Map::new();
        args.insert("text".into(), serde_json::Value::from(&*text));
        let mut params = CallToolRequestParams::new("echo");
        params.arguments = Some(args);
        let result = self.0.call_tool(params).await?;
        let echoed = result
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.len());
        anyhow::ensure!(echoed == Some(text.len()), "bad echo");
        Ok(())
    }

    async fn list(&self) -> anyhow::Result<usize> {
        Ok(self.0.list_tools(None).await?.tools.len())
    }
}
