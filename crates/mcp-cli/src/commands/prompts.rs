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
                .prompts_listing(Default::default())
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

    /// The server offering prompt `prompt`, and the prompt's own name:
    /// `server` when given, else the only server whose prompt list has it.
    /// `prompt` is the prompt's name, or else its qualified name in
    /// `mcp-manager`'s namespace (`server__prompt`). With one server, a name
    /// it does not list is still asked for as it is (the server answers).
    pub(super) async fn find_prompt(
        &self,
        server: Option<&str>,
        prompt: &str,
    ) -> Result<(&str, &Client, String), Failure> {
        let candidates = self.selected_for(server, prompt)?;
        let single = (candidates.len() == 1).then(|| candidates[0]);
        if let Some((name, client)) = single
            && !prompt.contains(mcp_manager::naming::SEPARATOR)
        {
            return Ok((name, client, prompt.to_owned()));
        }
        let mut offering = Vec::new();
        let mut listed = Vec::new();
        for (name, client) in candidates {
            if client.server_capabilities().prompts.is_none() {
                continue;
            }
            let listing = client
                .prompts_listing(Default::default())
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
                offering.push((name, client, prompt.to_owned()));
            }
            listed.extend(prompts.into_iter().map(|p| (name, client, p.name)));
        }
        if offering.is_empty() {
            let items = listed.iter().map(|(s, _, p)| (*s, p.as_str()));
            if let Some((owner, own_name)) = super::session::resolve_qualified(items, prompt)
                && let Some((s, c, _)) = listed.iter().find(|(s, _, _)| *s == owner)
            {
                offering.push((*s, *c, own_name));
            } else if server.is_none()
                && let Some(f) = self.not_started_owner(prompt)
            {
                return Err(f);
            }
        }
        match (offering.len(), single) {
            (1, _) => Ok(offering.remove(0)),
            (0, Some((name, client))) => Ok((name, client, prompt.to_owned())),
            (0, None) => Err(Failure::new(format!(
                "no server offers a prompt named {prompt:?}"
            ))),
            _ => Err(Failure::new(format!(
                "several servers offer {prompt:?}: name one"
            ))),
        }
    }
}
