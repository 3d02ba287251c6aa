//! The tools this client has seen listed: for schema validation of
//! `tools/call`, for the 2026-07-28 `Mcp-Param-*` headers, and for
//! [`crate::Client::cached_tools`].
//!
//! A listing is answered from the server's state when the server read the
//! request, and a `tools/list_changed` can reach the client before or after
//! that answer. So the cache counts the notifications (its generation) and
//! every listing is kept with the generation it was *requested* at: only a
//! listing requested at the current generation is current. One requested
//! before the latest `list_changed` may miss the change; it is kept as the
//! newest known tools but never offered as current, and it never replaces
//! a listing requested after it.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_types::lenient::EntryProblem;
use mcp_types::tools::Tool;

use crate::listing::{Incomplete, Listing};
use crate::validation::{self, Validators};

/// The tools this client has seen listed, for schema validation and the
/// `Mcp-Param-*` headers, and the last complete listing for
/// [`crate::Client::cached_tools`]. A complete listing is held once: the entries of
/// its tools point into it.
#[derive(Default)]
pub(crate) struct KnownTools {
    /// The last complete `tools/list` (all pages), when one was fetched.
    complete: Arc<Vec<Tool>>,
    /// The generation `complete` was requested at; `None` before any
    /// complete listing. It is current while this is [`Self::generation`].
    complete_at: Option<u64>,
    /// How many times the server's tools may have changed since the
    /// connection began: one per `tools/list_changed` (and per
    /// re-negotiation).
    generation: u64,
    /// Every tool seen in any `tools/list` page, by name.
    by_name: HashMap<String, Known>,
    /// Compiled (input, output) validators, by tool name.
    validators: HashMap<String, (validation::Compiled, validation::Compiled)>,
    /// What the listing behind `complete` left out, and why it stopped
    /// early if it did.
    left_out: (Vec<EntryProblem>, Option<Incomplete>),
}

/// Where a known tool is held.
enum Known {
    /// At this index of [`KnownTools::complete`].
    Complete(usize),
    /// Seen in a page fetched on its own, after the complete listing.
    Paged(Box<Tool>),
}

impl KnownTools {
    /// The tool listed under `name`, if any.
    pub(crate) fn get(&self, name: &str) -> Option<&Tool> {
        match self.by_name.get(name)? {
            Known::Complete(i) => self.complete.get(*i),
            Known::Paged(tool) => Some(tool),
        }
    }

    /// The current generation: read it before sending a listing, and pass
    /// it to [`Self::observe`] or [`Self::replace_all`] with what arrived.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Records `tool` from a `tools/list` page requested at generation
    /// `requested`. A tool identical to the cached one is left alone (no
    /// copy, and its compiled validators are kept); a changed one replaces
    /// it and drops its validators. A page requested before the latest
    /// `tools/list_changed` is not recorded: it may hold a tool as it was
    /// before the change.
    pub(crate) fn observe(&mut self, tool: &Tool, requested: u64) {
        if requested != self.generation || self.get(&tool.name) == Some(tool) {
            return;
        }
        self.validators.remove(&tool.name);
        self.by_name
            .insert(tool.name.clone(), Known::Paged(Box::new(tool.clone())));
    }

    /// Replaces the cache with a complete listing requested at generation
    /// `requested`, copied once: tools no longer listed are forgotten; a
    /// tool that changed loses its compiled validators, an unchanged one
    /// keeps them. What the listing left out is kept for
    /// [`crate::Client::cached_tools_left_out`].
    ///
    /// Returns `true` when the listing is current: requested at the
    /// current generation. A listing requested before the latest
    /// `tools/list_changed` is kept (unless one requested later is held
    /// already) but stays stale: [`Self::listed`] does not offer it.
    pub(crate) fn replace_all(&mut self, listing: &Listing<Tool>, requested: u64) -> bool {
        if self.complete_at.is_some_and(|at| requested < at) {
            tracing::debug!(
                requested,
                held = ?self.complete_at,
                "tools/list: a listing requested before the one held arrived after it; not kept"
            );
            return false;
        }
        self.replace_tools(&listing.items, requested);
        self.left_out = (listing.problems.clone(), listing.incomplete.clone());
        requested == self.generation
    }

    fn replace_tools(&mut self, tools: &[Tool], requested: u64) {
        for tool in tools {
            if self.get(&tool.name) != Some(tool) {
                self.validators.remove(&tool.name);
            }
        }
        // A name listed twice: the later one, as observing them in order did.
        self.by_name = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (tool.name.clone(), Known::Complete(i)))
            .collect();
        self.validators
            .retain(|name, _| self.by_name.contains_key(name.as_str()));
        self.complete = Arc::new(tools.to_vec());
        self.complete_at = Some(requested);
    }

    /// The last complete listing, unless it is stale: a `tools/list_changed`
    /// arrived after it was requested.
    pub(crate) fn listed(&self) -> Option<Arc<Vec<Tool>>> {
        (self.complete_at == Some(self.generation)).then(|| self.complete.clone())
    }

    /// What the last complete listing left out, and why it stopped early
    /// if it did.
    pub(crate) fn left_out(&self) -> (Vec<EntryProblem>, Option<Incomplete>) {
        self.left_out.clone()
    }

    /// `true` when a tool of this name was listed.
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// After `tools/list_changed` (or a re-negotiation): a new generation.
    /// The compiled validators are forgotten and every listing requested
    /// until now is stale (its tools stay known).
    pub(crate) fn invalidate(&mut self) {
        self.validators.clear();
        self.generation = self.generation.wrapping_add(1);
    }

    /// The compiled (input, output) validators of a listed tool, compiled
    /// on first use, and whether it declares an `outputSchema`. Called after
    /// every `tools/call` (output validation is on by default): the tool is
    /// looked at in place, not copied, and nothing is allocated once its
    /// validators exist.
    pub(crate) fn compiled(&mut self, name: &str) -> Option<Validators> {
        let tool = match self.by_name.get(name)? {
            Known::Complete(i) => self.complete.get(*i)?,
            Known::Paged(tool) => tool,
        };
        let has_output = tool.output_schema.is_some();
        if let Some((input, output)) = self.validators.get(name) {
            return Some(Validators {
                input: input.clone(),
                output: output.clone(),
                has_output,
            });
        }
        let input = validation::compile(&tool.input_schema, name, "inputSchema");
        let output = tool
            .output_schema
            .as_ref()
            .and_then(|s| validation::compile(s, name, "outputSchema"));
        self.validators
            .insert(name.to_owned(), (input.clone(), output.clone()));
        Some(Validators {
            input,
            output,
            has_output,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn tool(name: &str, schema: Value) -> Tool {
        serde_json::from_value(serde_json::json!({"name": name, "inputSchema": schema})).unwrap()
    }

    /// Re-listing an unchanged tool keeps its compiled validators; a
    /// changed one loses them; a complete listing forgets unlisted tools.
    #[test]
    fn known_tools_keep_what_did_not_change() {
        let mut cache = KnownTools::default();
        let a = tool("a", serde_json::json!({"type": "object"}));
        let b = tool("b", serde_json::json!({"type": "object"}));
        cache.replace_tools(&[a.clone(), b.clone()], 0);
        cache.validators.insert("a".into(), (None, None));
        cache.validators.insert("b".into(), (None, None));
        cache.observe(&a, 0);
        assert!(
            cache.validators.contains_key("a"),
            "unchanged: validators kept"
        );
        let b2 = tool(
            "b",
            serde_json::json!({"type": "object", "required": ["x"]}),
        );
        cache.observe(&b2, 0);
        assert!(
            !cache.validators.contains_key("b"),
            "changed: validators dropped"
        );
        assert_eq!(cache.get("b"), Some(&b2));
        cache.replace_tools(std::slice::from_ref(&a), 0);
        assert!(cache.get("b").is_none() && cache.validators.contains_key("a"));
        assert_eq!(cache.listed().as_deref(), Some(&vec![a]));
        // The complete listing is held once: the entry is that copy.
        let listed = cache.listed().expect("current");
        assert!(std::ptr::eq(cache.get("a").expect("known"), &listed[0]));
        // A stale listing is not offered, but its tools stay known.
        cache.invalidate();
        assert!(cache.listed().is_none() && cache.get("a").is_some());
    }

    fn listing(tools: &[&Tool]) -> Listing<Tool> {
        Listing {
            items: tools.iter().map(|t| (*t).clone()).collect(),
            ..Listing::default()
        }
    }

    /// A listing is current only when requested at the current
    /// generation: one requested before a `tools/list_changed` is kept but
    /// not offered, never replaces one requested after it, and a page
    /// requested before the change is not recorded.
    #[test]
    fn a_listing_overtaken_by_list_changed_is_not_current() {
        let mut cache = KnownTools::default();
        let old = tool("old", serde_json::json!({"type": "object"}));
        let new = tool("new", serde_json::json!({"type": "object"}));
        let stale_requested = cache.generation();
        cache.invalidate(); // list_changed while the listing is in flight
        assert!(!cache.replace_all(&listing(&[&old]), stale_requested));
        assert!(cache.listed().is_none(), "stale: not offered");
        assert!(cache.knows("old"), "its tools stay known");
        let fresh_requested = cache.generation();
        assert!(cache.replace_all(&listing(&[&old, &new]), fresh_requested));
        assert_eq!(cache.listed().map(|l| l.len()), Some(2));
        // The older listing arriving last does not replace the newer one.
        assert!(!cache.replace_all(&listing(&[&old]), stale_requested));
        assert_eq!(cache.listed().map(|l| l.len()), Some(2));
        assert!(cache.knows("new"));
        // A page requested before the next change is not recorded.
        let page_requested = cache.generation();
        cache.invalidate();
        let changed = tool(
            "new",
            serde_json::json!({"type": "object", "required": ["x"]}),
        );
        cache.observe(&changed, page_requested);
        assert_eq!(cache.get("new"), Some(&new));
        cache.observe(&changed, cache.generation());
        assert_eq!(cache.get("new"), Some(&changed));
    }
}
