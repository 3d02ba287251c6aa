//! `mcp read`: reads a resource.

use super::{Session, prefixed, print_json};
use crate::exit::{Failure, SUCCESS};
use crate::output;
use crate::render;

impl Session {
    pub(super) async fn read(&self, words: &[String]) -> Result<u8, Failure> {
        let (server, uri) = match words {
            [server, uri] => (Some(server.as_str()), uri.as_str()),
            [uri] => (None, uri.as_str()),
            _ => return Err(Failure::new("usage: mcp read [SERVER] URI")),
        };
        let candidates = self.selected(server)?;
        let (name, client) = if candidates.len() == 1 {
            candidates[0]
        } else {
            let mut found = None;
            for (name, client) in &candidates {
                if client.server_capabilities().resources.is_none() {
                    continue;
                }
                if let Ok(list) = client.list_all_resources().await
                    && list.iter().any(|r| r.uri == uri)
                {
                    found = Some((*name, *client));
                    break;
                }
            }
            found.ok_or_else(|| {
                Failure::new(format!(
                    "no server lists {uri:?}; name one: `mcp read SERVER URI`"
                ))
            })?
        };
        let result = client
            .read_resource(uri)
            .await
            .map_err(|e| prefixed(name, e))?;
        if self.json {
            print_json(&result)?;
        } else {
            for c in &result.contents {
                let text = render::resource_contents(c);
                if text.ends_with('\n') {
                    output::text(&text)?;
                } else {
                    output::line(&text)?;
                }
            }
        }
        Ok(SUCCESS)
    }
}
