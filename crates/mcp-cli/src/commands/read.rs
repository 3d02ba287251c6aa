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
            // The servers that list the URI; failing that, those with a
            // resource template it fits.
            let mut listing = Vec::new();
            let mut templated = Vec::new();
            for (name, client) in &candidates {
                if client.server_capabilities().resources.is_none() {
                    continue;
                }
                if let Ok(list) = client.list_all_resources(Default::default()).await
                    && list.iter().any(|r| r.uri == uri)
                {
                    listing.push((*name, *client));
                } else if let Ok(templates) =
                    client.list_all_resource_templates(Default::default()).await
                    && templates
                        .iter()
                        .any(|t| fits_template(&t.uri_template, uri))
                {
                    templated.push((*name, *client));
                }
            }
            let found = if listing.is_empty() {
                templated
            } else {
                listing
            };
            match found.as_slice() {
                [one] => *one,
                [] => {
                    return Err(Failure::new(format!(
                        "no server lists {uri:?} or has a resource template it fits; name one: `mcp read SERVER URI`"
                    )));
                }
                several => {
                    return Err(Failure::new(format!(
                        "several servers offer {uri:?} ({}): name one, e.g. `mcp read {} {uri}`",
                        several.iter().map(|f| f.0).collect::<Vec<_>>().join(", "),
                        several[0].0
                    )));
                }
            }
        };
        let result = client
            .read_resource(uri, Default::default())
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

/// `true` when `uri` fits the URI template `template` (RFC 6570), read
/// loosely: the literal text between its expressions appears in `uri` in
/// order, the first at the start and the last at the end, each expression
/// standing for at least one character. Enough to tell which server a URI
/// belongs to; the server decides what it serves.
fn fits_template(template: &str, uri: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        literals.push(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => rest = &rest[open + close + 1..],
            None => return false,
        }
    }
    literals.push(rest);
    if literals.len() == 1 {
        return template == uri;
    }
    let (first, last) = (literals[0], literals[literals.len() - 1]);
    let Some(mut left) = uri.strip_prefix(first) else {
        return false;
    };
    for literal in &literals[1..literals.len() - 1] {
        // An expression takes at least one character before the literal.
        match left.get(1..).and_then(|after| after.find(literal)) {
            Some(at) => left = &left[1 + at + literal.len()..],
            None => return false,
        }
    }
    left.len() > last.len() && left.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::fits_template;

    #[test]
    fn a_uri_fits_a_template_by_its_literal_parts() {
        assert!(fits_template("peer://echo/{text}", "peer://echo/abc"));
        assert!(fits_template("file:///{dir}/{name}.txt", "file:///a/b.txt"));
        assert!(fits_template("users://{id}", "users://42"));
        assert!(fits_template("exact://x", "exact://x"));
        assert!(!fits_template("exact://x", "exact://y"));
        assert!(!fits_template("peer://echo/{text}", "peer://echo/"));
        assert!(!fits_template("peer://echo/{text}", "other://echo/abc"));
        assert!(!fits_template("file:///{dir}/{name}.txt", "file:///a/b.md"));
        assert!(!fits_template("broken://{x", "broken://{x"));
    }
}
