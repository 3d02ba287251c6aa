//! The merged view of every server's tools, prompts and resources under
//! qualified names (see [`crate::naming`] for the naming rules). Rebuilt
//! whole when it is next read after some server's lists changed (once for
//! any number of changes: a manager starting 50 servers builds it once).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use mcp_types::prompts::Prompt;
use mcp_types::resources::Resource;
use mcp_types::tools::Tool;

use crate::naming::NameTable;
use crate::status::ListingFailure;

/// A tool under its qualified name.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEntry {
    /// The qualified name, `^[a-zA-Z0-9_-]{1,64}$` (e.g. `fs__read_file`).
    pub qualified_name: String,
    /// The server's name in the configuration.
    pub server: String,
    /// The tool as the server listed it (its `name` is the server's own),
    /// shared with the manager's lists: rebuilding the namespace does not
    /// copy the tools.
    pub tool: Arc<Tool>,
    /// `true` when the tool comes from the on-disk cache or from before a
    /// disconnect: the server is not connected now, and a call waits for it
    /// (see [`crate::UnavailablePolicy`]).
    pub cached: bool,
}

/// A prompt under its qualified name.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptEntry {
    /// The qualified name (`server__prompt`).
    pub qualified_name: String,
    /// The server's name.
    pub server: String,
    /// The prompt as listed.
    pub prompt: Prompt,
}

/// A resource under its qualified name. Resources are identified by
/// `(server, uri)`; the qualified name is made from the resource's `name`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceEntry {
    /// The qualified name (`server__name`, disambiguated by URI).
    pub qualified_name: String,
    /// The server's name.
    pub server: String,
    /// The resource as listed.
    pub resource: Resource,
}

/// A list of a server that its `list_changed` notification announces
/// changes of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    Tools,
    Prompts,
    Resources,
}

impl List {
    /// The method that lists it.
    pub(crate) fn method(self) -> &'static str {
        match self {
            List::Tools => "tools/list",
            List::Prompts => "prompts/list",
            List::Resources => "resources/list",
        }
    }
}

/// For each list of a server: how many of its `list_changed` notifications
/// the connection had received when the list's last listing (whether it
/// succeeded or failed) was requested. A count below the connection's
/// current one means that listing may miss a change: a refresh is due.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ListedAt {
    pub tools: u64,
    pub prompts: u64,
    pub resources: u64,
}

impl ListedAt {
    pub(crate) fn get(&self, list: List) -> u64 {
        match list {
            List::Tools => self.tools,
            List::Prompts => self.prompts,
            List::Resources => self.resources,
        }
    }

    pub(crate) fn set(&mut self, list: List, count: u64) {
        match list {
            List::Tools => self.tools = count,
            List::Prompts => self.prompts = count,
            List::Resources => self.resources = count,
        }
    }
}

/// One server's lists, as the namespace is built from.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServerLists {
    pub tools: Arc<Vec<Arc<Tool>>>,
    pub tools_cached: bool,
    pub prompts: Arc<Vec<Prompt>>,
    pub resources: Arc<Vec<Resource>>,
    /// The listings that failed (their list above is empty or the last
    /// one that succeeded, not what the server has).
    pub failures: Vec<ListingFailure>,
    /// When each list was last listed, in `list_changed` notifications of
    /// the connection the lists came from.
    pub listed_at: ListedAt,
}

impl ServerLists {
    /// Records how the listing by `method` went: a failure replaces an
    /// earlier one of the same method; a success clears it.
    pub(crate) fn record(&mut self, method: &str, error: Option<String>) {
        self.failures.retain(|f| f.method != method);
        if let Some(error) = error {
            self.failures.push(ListingFailure {
                method: method.to_owned(),
                error,
            });
        }
    }
}

/// The merged namespace.
#[derive(Debug, Clone, Default)]
pub struct Namespace {
    tools: Vec<ToolEntry>,
    tool_names: NameTable,
    prompts: Vec<PromptEntry>,
    prompt_names: NameTable,
    resources: Vec<ResourceEntry>,
    resource_names: NameTable,
    resource_index: HashMap<(String, String), usize>,
}

impl Namespace {
    pub(crate) fn build(servers: &BTreeMap<String, ServerLists>) -> Namespace {
        let tool_names = NameTable::build(servers.iter().flat_map(|(s, l)| {
            l.tools
                .iter()
                .map(move |t| (s.as_str(), t.name.as_str(), t.name.as_str()))
        }));
        let prompt_names = NameTable::build(servers.iter().flat_map(|(s, l)| {
            l.prompts
                .iter()
                .map(move |p| (s.as_str(), p.name.as_str(), p.name.as_str()))
        }));
        let resource_names = NameTable::build(servers.iter().flat_map(|(s, l)| {
            l.resources
                .iter()
                .map(move |r| (s.as_str(), r.uri.as_str(), r.name.as_str()))
        }));

        let mut tools = Vec::new();
        let mut prompts = Vec::new();
        let mut resources = Vec::new();
        {
            // Qualified names taken so far: a server listing one name twice
            // gets it once, the first wins. (A set, not a scan of the
            // entries: with 50 servers of 20 tools connecting one by one, the
            // scans came to millions of comparisons.)
            let mut taken: [HashSet<&str>; 3] = Default::default();
            for (server, lists) in servers {
                for tool in lists.tools.iter() {
                    if let Some(q) = tool_names.qualified(server, &tool.name)
                        && taken[0].insert(q)
                    {
                        tools.push(ToolEntry {
                            qualified_name: q.to_owned(),
                            server: server.clone(),
                            tool: tool.clone(),
                            cached: lists.tools_cached,
                        });
                    }
                }
                for prompt in lists.prompts.iter() {
                    if let Some(q) = prompt_names.qualified(server, &prompt.name)
                        && taken[1].insert(q)
                    {
                        prompts.push(PromptEntry {
                            qualified_name: q.to_owned(),
                            server: server.clone(),
                            prompt: prompt.clone(),
                        });
                    }
                }
                for resource in lists.resources.iter() {
                    if let Some(q) = resource_names.qualified(server, &resource.uri)
                        && taken[2].insert(q)
                    {
                        resources.push(ResourceEntry {
                            qualified_name: q.to_owned(),
                            server: server.clone(),
                            resource: resource.clone(),
                        });
                    }
                }
            }
        }
        tools.sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
        prompts.sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
        resources.sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
        let resource_index = resources
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.server.clone(), r.resource.uri.clone()), i))
            .collect();
        Namespace {
            tools,
            tool_names,
            prompts,
            prompt_names,
            resources,
            resource_names,
            resource_index,
        }
    }

    /// Every tool, sorted by qualified name.
    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
    }

    /// Every prompt, sorted by qualified name.
    pub fn prompts(&self) -> &[PromptEntry] {
        &self.prompts
    }

    /// Every resource, sorted by qualified name.
    pub fn resources(&self) -> &[ResourceEntry] {
        &self.resources
    }

    /// `(server, tool name)` of a qualified tool name.
    pub fn resolve_tool(&self, qualified: &str) -> Option<(&str, &str)> {
        self.tool_names.resolve(qualified)
    }

    /// `(server, prompt name)` of a qualified prompt name.
    pub fn resolve_prompt(&self, qualified: &str) -> Option<(&str, &str)> {
        self.prompt_names.resolve(qualified)
    }

    /// `(server, uri)` of a qualified resource name.
    pub fn resolve_resource(&self, qualified: &str) -> Option<(&str, &str)> {
        self.resource_names.resolve(qualified)
    }

    /// The tool entry of a qualified name.
    pub fn tool(&self, qualified: &str) -> Option<&ToolEntry> {
        self.tools
            .binary_search_by(|e| e.qualified_name.as_str().cmp(qualified))
            .ok()
            .map(|i| &self.tools[i])
    }

    /// The resource `uri` of `server`.
    pub fn resource(&self, server: &str, uri: &str) -> Option<&ResourceEntry> {
        self.resource_index
            .get(&(server.to_owned(), uri.to_owned()))
            .map(|i| &self.resources[*i])
    }

    /// The qualified name of `server`'s tool `tool`.
    pub fn qualified_tool(&self, server: &str, tool: &str) -> Option<&str> {
        self.tool_names.qualified(server, tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Arc<Tool> {
        Arc::new(
            serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}}))
                .unwrap(),
        )
    }

    #[test]
    fn merged_view() {
        let mut servers = BTreeMap::new();
        servers.insert(
            "fs".to_owned(),
            ServerLists {
                tools: Arc::new(vec![tool("read"), tool("read"), tool("write.all")]),
                tools_cached: true,
                failures: Vec::new(),
                listed_at: ListedAt::default(),
                prompts: Arc::new(vec![serde_json::from_value(json!({"name": "p"})).unwrap()]),
                resources: Arc::new(vec![
                    serde_json::from_value(json!({"uri": "file:///a", "name": "doc"})).unwrap(),
                    serde_json::from_value(json!({"uri": "file:///b", "name": "doc"})).unwrap(),
                ]),
            },
        );
        servers.insert(
            "git".to_owned(),
            ServerLists {
                tools: Arc::new(vec![tool("read")]),
                ..Default::default()
            },
        );
        let ns = Namespace::build(&servers);
        let names: Vec<&str> = ns
            .tools()
            .iter()
            .map(|t| t.qualified_name.as_str())
            .collect();
        assert_eq!(names, ["fs__read", "fs__write_all", "git__read"]);
        assert!(ns.tool("fs__read").unwrap().cached);
        assert!(!ns.tool("git__read").unwrap().cached);
        assert_eq!(ns.resolve_tool("fs__write_all"), Some(("fs", "write.all")));
        assert_eq!(ns.resolve_prompt("fs__p"), Some(("fs", "p")));
        assert_eq!(ns.resources().len(), 2);
        let a = ns.resource("fs", "file:///a").unwrap();
        let b = ns.resource("fs", "file:///b").unwrap();
        assert_ne!(a.qualified_name, b.qualified_name);
        assert_eq!(
            ns.resolve_resource(&b.qualified_name),
            Some(("fs", "file:///b"))
        );
    }

    /// A server listing one tool, prompt or resource twice: one entry, the
    /// first listed.
    #[test]
    fn a_name_listed_twice_keeps_the_first() {
        let described = |name: &str, description: &str| -> Arc<Tool> {
            Arc::new(
                serde_json::from_value(json!({
                    "name": name, "description": description, "inputSchema": {"type": "object"}
                }))
                .unwrap(),
            )
        };
        let mut servers = BTreeMap::new();
        servers.insert(
            "fs".to_owned(),
            ServerLists {
                tools: Arc::new(vec![
                    described("read", "first"),
                    described("write", "w"),
                    described("read", "second"),
                ]),
                prompts: Arc::new(vec![
                    serde_json::from_value(json!({"name": "p", "description": "first"})).unwrap(),
                    serde_json::from_value(json!({"name": "p", "description": "second"})).unwrap(),
                ]),
                resources: Arc::new(vec![
                    serde_json::from_value(json!({"uri": "file:///a", "name": "first"})).unwrap(),
                    serde_json::from_value(json!({"uri": "file:///a", "name": "second"})).unwrap(),
                ]),
                ..Default::default()
            },
        );
        let ns = Namespace::build(&servers);
        assert_eq!(ns.tools().len(), 2);
        let read = ns.tool("fs__read").unwrap();
        assert_eq!(read.tool.description.as_deref(), Some("first"));
        assert_eq!(ns.prompts().len(), 1);
        assert_eq!(ns.prompts()[0].prompt.description.as_deref(), Some("first"));
        assert_eq!(ns.resources().len(), 1);
        assert_eq!(ns.resources()[0].resource.name, "first");
    }
}
