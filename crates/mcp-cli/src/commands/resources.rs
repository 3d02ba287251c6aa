//! `mcp resources`: each server's resources and resource templates.

use serde_json::{Map, json};

use super::{Session, prefixed, print_json};
use crate::exit::{Failure, SUCCESS};
use crate::render;

impl Session {
    pub(super) async fn resources(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut json_out = Map::new();
        let mut groups = Vec::new();
        for (name, client) in self.selected(only)? {
            if client.server_capabilities().resources.is_none() {
                groups.push((name, vec!["(no resources capability)".to_owned()]));
                continue;
            }
            let listing = client
                .resources_listing()
                .await
                .map_err(|e| prefixed(name, e))?;
            let resources = listing.items;
            self.warn_left_out(
                name,
                "resources/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            let templates = match client.resource_templates_listing().await {
                Ok(t) => {
                    let method = "resources/templates/list";
                    self.warn_left_out(name, method, &t.problems, t.incomplete.as_ref());
                    t.items
                }
                Err(e) if e.is_method_not_found() => Vec::new(),
                Err(e) => return Err(prefixed(name, e)),
            };
            let mut lines: Vec<String> = resources.iter().map(render::resource_line).collect();
            lines.extend(
                templates
                    .iter()
                    .map(|t| format!("template {}", render::template_line(t))),
            );
            groups.push((name, lines));
            json_out.insert(
                name.to_owned(),
                json!({"resources": resources, "resourceTemplates": templates}),
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
