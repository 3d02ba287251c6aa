//! `mcp prompts`: each server's prompts, and finding the server that offers one.

use mcp_client::Client;
use serde_json::Map;

use super::{Session, prefixed, print_json};
use crate::exit::{Failure, SUCCESS};
use crate::render;

impl Session {
    pub(super) async fn prompts(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut json_out = Map::new();
        let mut groups = Vec::new();
        for (name, client) in self.selected(only)? {
            if client.server_capabilities().prompts.is_none() {
                groups.push((name, vec!["(no prompts capability)".to_owned()]));
                continue;
            }
            let listing = client
                .prompts_listing()
                .await
                .map_err(|e| prefixed(name, e))?;
            let prompts = listing.items;
            self.warn_left_out(
                name,
                "prompts/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            groups.push((name, prompts.iter().map(render::prompt_line).collect()));
            json_out.insert(
                name.to_owned(),
                serde_json::to_value(&prompts).unwrap_or_default(),
            );
        }
        if self.json {
            print_json(&json_out)?;
        } else {
            self.print_grouped(&groups)?;
        }
        Ok(SUCCESS)
    }

    /// The server offering prompt `prompt`: `server` when given, else the
    /// only server whose prompt list has it.
    pub(super) async fn find_prompt(
        &self,
        server: Option<&str>,
        prompt: &str,
    ) -> Result<(&str, &Client), Failure> {
        let candidates = self.selected(server)?;
        if candidates.len() == 1 {
            return Ok(candidates[0]);
        }
        let mut offering = Vec::new();
        for (name, client) in candidates {
            if client.server_capabilities().prompts.is_none() {
                continue;
            }
            let listing = client
                .prompts_listing()
                .await
                .map_err(|e| prefixed(name, e))?;
            let prompts = listing.items;
            self.warn_left_out(
                name,
                "prompts/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            if prompts.iter().any(|p| p.name == prompt) {
                offering.push((name, client));
            }
        }
        match offering.len() {
            1 => Ok(offering[0]),
            0 => Err(Failure::new(format!(
                "no server offers a prompt named {prompt:?}"
            ))),
            _ => Err(Failure::new(format!(
                "several servers offer {prompt:?}: name one"
            ))),
        }
    }
}
