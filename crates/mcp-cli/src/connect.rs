//! Connecting the resolved servers, in parallel.

use std::sync::Arc;
use std::time::Duration;

use mcp_client::{Client, ClientError, ClientOptions};
use mcp_transport::Transport;
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use tokio::task::JoinSet;

use crate::exit::error_chain;
use crate::handler::CliHandler;
use crate::targets::{Endpoint, ServerSpec};
use crate::ui::Ui;
use crate::wiretap::Wiretap;

/// Settings shared by every connection.
#[derive(Debug, Clone)]
pub struct ConnectSettings {
    /// Per-request timeout.
    pub timeout: Duration,
    /// Log the JSON-RPC traffic.
    pub verbose: bool,
    /// Interactive elicitation allowed (no `--no-input`).
    pub allow_input: bool,
}

/// One server: connected, or why not.
#[derive(Debug)]
pub struct Server {
    /// Its name.
    pub name: String,
    /// The client, or the connection error (message chain).
    pub client: Result<Client, String>,
}

/// Connects every spec concurrently; results keep the specs' order.
pub async fn connect_all(
    specs: Vec<ServerSpec>,
    settings: &ConnectSettings,
    ui: &Arc<Ui>,
) -> Vec<Server> {
    let form_lock = Arc::new(tokio::sync::Mutex::new(()));
    let mut set = JoinSet::new();
    let count = specs.len();
    for (index, spec) in specs.into_iter().enumerate() {
        let settings = settings.clone();
        let handler = CliHandler::new(
            &spec.name,
            Arc::clone(ui),
            settings.allow_input,
            Arc::clone(&form_lock),
        );
        set.spawn(async move {
            let client = connect_one(&spec, &settings, handler)
                .await
                .map_err(|e| error_chain(&e));
            (
                index,
                Server {
                    name: spec.name,
                    client,
                },
            )
        });
    }
    let mut servers: Vec<Option<Server>> = (0..count).map(|_| None).collect();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((index, server)) => servers[index] = Some(server),
            Err(e) => tracing::error!(error = %e, "a connection task failed"),
        }
    }
    servers.into_iter().flatten().collect()
}

/// Why a connection could not be made before the client existed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// Starting or reaching the server failed.
    #[error(transparent)]
    Transport(#[from] mcp_transport::TransportError),
    /// The handshake failed.
    #[error(transparent)]
    Client(#[from] ClientError),
}

async fn connect_one(
    spec: &ServerSpec,
    settings: &ConnectSettings,
    handler: CliHandler,
) -> Result<Client, ConnectError> {
    let transport: Arc<dyn Transport> = match &spec.endpoint {
        Endpoint::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut config = StdioConfig::new(command.clone())
                .args(args.clone())
                .label(spec.name.clone());
            for (k, v) in env {
                config = config.env(k.clone(), v.clone());
            }
            if let Some(cwd) = cwd {
                config = config.cwd(cwd.clone());
            }
            Arc::new(StdioTransport::spawn(config).await?)
        }
        Endpoint::Http { url, headers, sse } => {
            crate::http::connect(&spec.name, url, headers, *sse).await?
        }
    };
    let transport: Arc<dyn Transport> = if settings.verbose {
        Arc::new(Wiretap::new(transport, &spec.name))
    } else {
        transport
    };
    let options = ClientOptions::new("mcp-cli", env!("CARGO_PKG_VERSION"))
        .with_title("mcp command line")
        .with_handler(Arc::new(handler))
        .with_elicitation(true, false)
        .with_sampling(false)
        .with_request_timeout(settings.timeout)
        .with_initialize_timeout(settings.timeout);
    Ok(Client::connect_shared(transport, options).await?)
}

/// Closes every connected client (stdio servers are shut down).
pub async fn close_all(servers: &[Server]) {
    let mut set = JoinSet::new();
    for server in servers {
        if let Ok(client) = &server.client {
            let client = client.clone();
            set.spawn(async move {
                if let Err(e) = client.close().await {
                    tracing::debug!(error = %e, "close failed");
                }
            });
        }
    }
    while set.join_next().await.is_some() {}
}
