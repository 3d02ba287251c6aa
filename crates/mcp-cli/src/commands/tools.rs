//! `mcp tools`: each server's tools.

use mcp_client::Client;
use serde_json::Map;

use super::{Session, prefixed, print_json};
use crate::exit::{Failure, SUCCESS};
use crate::render;

impl Session {
    /// A server's tools: the list the manager fetched at startup (kept by
    /// the client, in the server's order), fetched again only if missing.
    pub(super) async fn tool_list(
        &self,
        name: &str,
        client: &Client,
    ) -> Result<Vec<mcp_types::tools::Tool>, Failure> {
        let tools = match client.cached_tools() {
            Some(tools) => tools.as_ref().clone(),
            None if client.server_capabilities().tools.is_none() => return Ok(Vec::new()),
            None => client
                .list_all_tools(Default::default())
                .await
                .map_err(|e| prefixed(name, e))?,
        };
        let (problems, incomplete) = client.cached_tools_left_out();
        self.warn_left_out(name, "tools/list", &problems, incomplete.as_ref());
        Ok(tools)
    }

    pub(super) async fn tools(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut json_out = Map::new();
        let mut groups = Vec::new();
        for (name, client) in self.selected(only)? {
            let tools = self.tool_list(name, client).await?;
            if tools.is_empty() && client.server_capabilities().tools.is_none() {
                groups.push((name, vec!["(no tools capability)".to_owned()]));
            } else {
                groups.push((name, tools.iter().map(render::tool_line).collect()));
            }
            json_out.insert(
                name.to_owned(),
                serde_json::to_value(&tools).unwrap_or_default(),
            );
        }
        if self.json {
            print_json(&json_out)?;
        } else {
            self.print_grouped(&groups)?;
        }
        Ok(SUCCESS)
    }
}
