//! Our client: `mcp_client::Client` over `mcp_transport_stdio::StdioTransport`
//! (and the Streamable HTTP transport once it lands), pinned to protocol
//! revision 2025-06-18 like every client here.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_manager::{Manager, ManagerOptions, McpConfig, ServerStatus};

use mcp_client::{Client, ClientOptions, RequestOptions, VersionPreference};
use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};
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
                    StdioTransport::spawn(StdioConfig::new(server.as_str()).with_arg("stdio"))
                        .await?;
                Ok(OursClient(Client::connect(transport, options()).await?))
            }
            OursConnector::Http { url } => {
                let transport =
                    HttpTransport::connect(HttpConfig::new(url.as_str()), HttpMode::Streamable)
                        .await?;
                Ok(OursClient(Client::connect(transport, options()).await?))
            }
        }
    }
}

impl BenchClient for OursClient {
    async fn call(&self, text: Arc<str>) -> anyhow::Result<()> {
        // Serialized once into the request's JSON, as a caller's own
        // argument struct would be.
        #[derive(serde::Serialize)]
        struct Echo<'a> {
            text: &'a str,
        }
        let result = self
            .0
            .call_tool("echo", Echo { text: &text }, RequestOptions::default())
            .await?;
        let echoed = result.content.first().and_then(|c| match c {
            ContentBlock::Text(t) => Some(t.text.len()),
            _ => None,
        });
        anyhow::ensure!(echoed == Some(text.len()), "bad echo");
        Ok(())
    }

    async fn list(&self) -> anyhow::Result<usize> {
        Ok(self
            .0
            .list_tools(None, RequestOptions::default())
            .await?
            .tools
            .len())
    }
}

/// What `mcp-bench manager` measured.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize, Clone)]
pub struct ManagerResult {
    pub servers: usize,
    /// `Manager::start` until every server is connected and listed, ms.
    pub manager_ms: f64,
    /// The floor: spawn + initialize + tools/list of the same servers, all
    /// at once, with the raw client, ms.
    pub floor_ms: f64,
    /// This process's peak RSS (VmHWM) once the manager had every server
    /// connected and the namespace built (the floor runs after), KiB.
    #[serde(default)]
    pub manager_peak_rss_kib: f64,
}

/// `mcp-bench manager`: time to connect N stdio servers through mcp-manager
/// (each lists 20 tools), against the floor doing the same.
pub fn manager_main(args: &Args) -> anyhow::Result<()> {
    let server = args.required("--server")?;
    let count: usize = args
        .value("--count")
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let rt = crate::runtime();
    let result = rt.block_on(async {
        let servers: serde_json::Map<String, serde_json::Value> = (0..count)
            .map(|i| {
                (
                    format!("s{i:03}"),
                    serde_json::json!({"command": server, "args": ["stdio", "--tools", "20"]}),
                )
            })
            .collect();
        let config =
            McpConfig::from_json(&serde_json::json!({ "mcpServers": servers }).to_string())?;
        let start = Instant::now();
        let manager = Manager::start(
            config,
            ManagerOptions::from_client(options())
                .with_cache_dir(None)
                .with_revision_dir(None),
        )
        .await;
        anyhow::ensure!(
            manager.wait_started(Duration::from_secs(120)).await,
            "servers did not start in 120 s"
        );
        // What an agent asks for next: the one tool namespace (built here,
        // on first use after the lists changed).
        let tools = manager.tools().len();
        let manager_ms = start.elapsed().as_secs_f64() * 1e3;
        let manager_peak_rss_kib = crate::suite::proc_status("VmHWM:");
        anyhow::ensure!(tools == count * 20, "{tools} tools in the namespace");
        let connected = manager
            .status()
            .values()
            .filter(|s| matches!(s, ServerStatus::Connected { tools: 20, .. }))
            .count();
        anyhow::ensure!(
            connected == count,
            "{connected} of {count} servers connected"
        );
        manager.shutdown().await;

        let floor = crate::floor::StdioFloorConnector {
            server: server.clone(),
        };
        let start = Instant::now();
        let clients =
            futures::future::join_all((0..count).map(|_| floor.connect_listing(20))).await;
        let floor_ms = start.elapsed().as_secs_f64() * 1e3;
        for c in clients {
            c?;
        }
        anyhow::Ok(ManagerResult {
            servers: count,
            manager_ms,
            floor_ms,
            manager_peak_rss_kib,
        })
    })?;
    println!("RESULT {}", serde_json::to_string(&result)?);
    rt.shutdown_background();
    Ok(())
}
