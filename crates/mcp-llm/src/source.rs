//! Where the tools come from and where calls go: a [`Manager`], or one or
//! more [`Client`]s each under a server name.

use std::sync::Arc;

use async_trait::async_trait;
use mcp_client::{CallOptions, Client, ClientError};
use mcp_manager::{Manager, ManagerError};
use mcp_types::tools::{CallToolResult, Tool};
use serde_json::{Map, Value};

/// Why a call did not give a result.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum CallFailure {
    /// The arguments were refused before sending (not an object, or the
    /// tool's `inputSchema` refused them): the text names each problem.
    InvalidArguments(String),
    /// The tool is not offered by its server any more.
    ToolGone,
    /// The call was cancelled (the caller's cancellation token).
    Cancelled,
    /// Anything else: the server's error, a timeout, a lost connection, an
    /// unavailable server. The text is the error's display.
    Failed(String),
}

/// The servers a [`crate::Toolset`] offers the tools of, and calls them.
/// Implemented for [`Manager`] and [`Clients`]; an application may
/// implement it for its own routing.
#[async_trait]
pub trait ToolSource: Send + Sync {
    /// Every tool now, as `(server, tool)`.
    ///
    /// Errors: a text saying why the tools could not be listed.
    async fn current_tools(&self) -> Result<Vec<(String, Arc<Tool>)>, String>;

    /// `tools/call` of `tool` (its own name) on `server`.
    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        options: CallOptions,
    ) -> Result<CallToolResult, CallFailure>;
}

fn client_failure(e: ClientError) -> CallFailure {
    match e {
        ClientError::InvalidArguments { .. } | ClientError::ArgumentsNotAnObject { .. } => {
            CallFailure::InvalidArguments(e.to_string())
        }
        e if e.is_cancelled() => CallFailure::Cancelled,
        e => CallFailure::Failed(e.to_string()),
    }
}

#[async_trait]
impl ToolSource for Manager {
    async fn current_tools(&self) -> Result<Vec<(String, Arc<Tool>)>, String> {
        Ok(self
            .tools()
            .into_iter()
            .map(|e| (e.server, e.tool))
            .collect())
    }

    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        options: CallOptions,
    ) -> Result<CallToolResult, CallFailure> {
        let namespace = self.namespace();
        let Some(qualified) = namespace.qualified_tool(server, tool) else {
            return Err(CallFailure::ToolGone);
        };
        match Manager::call_tool(self, qualified, arguments, options).await {
            Ok(r) => Ok(r),
            Err(ManagerError::UnknownName { .. }) => Err(CallFailure::ToolGone),
            Err(e) => match e.client_error() {
                Some(c) => match client_failure(c.clone()) {
                    CallFailure::Failed(_) => Err(CallFailure::Failed(e.to_string())),
                    other => Err(other),
                },
                None => Err(CallFailure::Failed(e.to_string())),
            },
        }
    }
}

/// Connected [`Client`]s, each under the server name its tools are
/// reported with (one for a single client: [`Clients::one`]).
#[derive(Clone, Default)]
pub struct Clients {
    clients: Vec<(String, Client)>,
}

impl std::fmt::Debug for Clients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.clients.iter().map(|(n, _)| n))
            .finish()
    }
}

impl Clients {
    /// One client, its tools under server name `server`.
    pub fn one(server: impl Into<String>, client: Client) -> Clients {
        Clients {
            clients: vec![(server.into(), client)],
        }
    }

    /// Several clients; a repeated name keeps its first client.
    pub fn new(clients: impl IntoIterator<Item = (String, Client)>) -> Clients {
        let mut out: Vec<(String, Client)> = Vec::new();
        for (name, client) in clients {
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, client));
            }
        }
        Clients { clients: out }
    }

    fn client(&self, server: &str) -> Option<&Client> {
        self.clients
            .iter()
            .find(|(n, _)| n == server)
            .map(|(_, c)| c)
    }
}

#[async_trait]
impl ToolSource for Clients {
    /// Each client's current listing ([`Client::cached_tools`]), listed
    /// again when there is none or a `tools/list_changed` made it stale;
    /// a server without the `tools` capability has none.
    async fn current_tools(&self) -> Result<Vec<(String, Arc<Tool>)>, String> {
        let mut out = Vec::new();
        for (name, client) in &self.clients {
            let tools = match client.cached_tools() {
                Some(t) => t,
                None if client.server_capabilities().tools.is_none() => continue,
                None => Arc::new(
                    client
                        .list_all_tools(Default::default())
                        .await
                        .map_err(|e| format!("{name}: {e}"))?,
                ),
            };
            out.extend(tools.iter().map(|t| (name.clone(), Arc::new(t.clone()))));
        }
        Ok(out)
    }

    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        options: CallOptions,
    ) -> Result<CallToolResult, CallFailure> {
        let Some(client) = self.client(server) else {
            return Err(CallFailure::ToolGone);
        };
        client
            .call_tool(tool, arguments, options)
            .await
            .map_err(client_failure)
    }
}
