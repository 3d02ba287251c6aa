//! The explorer's state and what a key does to it. No terminal and no
//! connection here: a key changes the state and may ask for an [`Action`]
//! (a call, a read), which the runtime (`mod.rs`) carries out and answers
//! with an [`Event`]. So every screen can be reached in a unit test.
//!
//! The state and its messages are here; what an [`Event`] does to the state
//! is in `events.rs`, what a key does in `keys.rs`, the forms (a tool's
//! arguments, a prompt's, a template's, an elicitation) in `form.rs`.

mod events;
mod form;
mod keys;
mod login;
mod mouse;
mod tasks;

pub(crate) use form::{Form, FormTarget, template_schema};
pub(crate) use login::LoginDialog;
pub(crate) use tasks::{TaskEntry, TaskSupport, status_word};

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcp_client::Progress;
use mcp_types::prompts::Prompt;
use mcp_types::resources::{Resource, ResourceTemplate};
use mcp_types::tools::Tool;
use serde_json::{Map, Value};

use crate::form::field::{self, Field, Kind};

/// How many wire and log lines are kept: 2 000 (the oldest go first).
pub(crate) const KEPT_LINES: usize = 2_000;

/// The panes, in the order of their number keys (`1` … `7`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pane {
    Servers,
    Tools,
    Resources,
    Prompts,
    Wire,
    Log,
    Tasks,
}

impl Pane {
    pub(crate) const ALL: [Pane; 7] = [
        Pane::Servers,
        Pane::Tools,
        Pane::Resources,
        Pane::Prompts,
        Pane::Wire,
        Pane::Log,
        Pane::Tasks,
    ];

    pub(crate) fn title(self) -> &'static str {
        match self {
            Pane::Servers => "Servers",
            Pane::Tools => "Tools",
            Pane::Resources => "Resources",
            Pane::Prompts => "Prompts",
            Pane::Wire => "Wire",
            Pane::Log => "Log",
            Pane::Tasks => "Tasks",
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ServerState {
    Starting,
    Connected,
    /// It did not start: why (a stdio server's stderr tail, an HTTP status…).
    Failed(String),
    /// It wants an OAuth login: why, and the command to run.
    NeedsLogin(String),
    Disabled,
    /// The connection ended while the explorer ran: why.
    Closed(String),
}

/// What the server told about itself when it connected.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ServerInfo {
    pub revision: String,
    /// `name version` (and title).
    pub implementation: String,
    /// The capabilities, pretty JSON.
    pub capabilities: String,
    pub instructions: Option<String>,
    /// `resources.subscribe` declared.
    pub subscribe: bool,
    /// `logging` declared.
    pub logging: bool,
    /// What it declared of tasks.
    pub tasks: TaskSupport,
}

/// One server as the explorer shows it.
#[derive(Debug, Clone)]
pub(crate) struct ServerView {
    pub name: String,
    pub state: ServerState,
    pub info: Option<ServerInfo>,
    pub tools: Vec<Tool>,
    /// Each tool's `inputSchema` property order as the server wrote it.
    pub tool_orders: BTreeMap<String, Vec<String>>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts: Vec<Prompt>,
    pub subscribed: BTreeSet<String>,
    /// Its tasks: listed (`tasks/list`), created by a call made here, or
    /// announced (`notifications/tasks/status`), oldest first.
    pub tasks: Vec<TaskEntry>,
    /// Listing errors (`tools/list: …`).
    pub problems: Vec<String>,
}

impl ServerView {
    pub(crate) fn new(name: &str, state: ServerState) -> Self {
        ServerView {
            name: name.to_owned(),
            state,
            info: None,
            tools: Vec::new(),
            tool_orders: BTreeMap::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            subscribed: BTreeSet::new(),
            tasks: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// An entry of the Resources pane: a resource or a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResourceItem {
    Resource(usize),
    Template(usize),
}

/// Which way a wire message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Sent,
    Received,
    Local,
}

/// One message of the wire pane.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WireLine {
    /// Milliseconds since the explorer started.
    pub at_ms: u128,
    pub server: String,
    pub direction: Direction,
    /// `request tools/call (id 3)`, `result of 3`, …
    pub summary: String,
    /// The message as sent or received (secrets already `***`).
    pub text: String,
    /// For a response: milliseconds since its request went out.
    pub took_ms: Option<u128>,
}

/// One line of the log pane: a server's `notifications/message`, or what
/// the explorer noticed (list changes, resource updates, its own errors).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LogLine {
    pub server: String,
    /// The level (`info`, `error`, …) or `mcp` for the explorer's own.
    pub level: String,
    pub text: String,
}

/// A tool call in flight.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Running {
    pub server: String,
    pub tool: String,
    pub progress: Option<Progress>,
}

/// What the right-hand output shows: a tool's result, a resource's
/// contents, a prompt's messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Output {
    pub title: String,
    /// `isError: true`, or a failed request.
    pub error: bool,
    pub lines: Vec<String>,
    pub scroll: u16,
    /// The URIs of its resource links (`o` opens the first in Resources).
    pub links: Vec<String>,
    /// Its images and audio (`w` saves them).
    pub media: Vec<Media>,
}

/// An image or audio block of a result, as received.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Media {
    pub mime: String,
    /// The base64 data.
    pub data: String,
}

/// The levels `logging/setLevel` takes, lowest first (spec
/// `server/utilities/logging`).
pub(crate) const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// What the runtime is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    CallTool {
        server: String,
        tool: String,
        arguments: Map<String, Value>,
        /// Task-augmented (2025-11-25 tasks): the server answers with a
        /// task, followed in the Tasks pane.
        as_task: bool,
    },
    CancelCall,
    /// `tasks/result`: the task's outcome, waited for while it runs;
    /// `tool` names the tool of a task made here.
    TaskResult {
        server: String,
        task_id: String,
        tool: Option<String>,
    },
    /// `tasks/cancel`.
    CancelTask {
        server: String,
        task_id: String,
    },
    ReadResource {
        server: String,
        uri: String,
    },
    ReadTemplate {
        server: String,
        template: String,
        variables: Map<String, Value>,
    },
    Subscribe {
        server: String,
        uri: String,
        on: bool,
    },
    GetPrompt {
        server: String,
        prompt: String,
        arguments: BTreeMap<String, String>,
    },
    /// `completion/complete` for the focused input of a prompt or template form.
    Complete {
        server: String,
        target: FormTarget,
        argument: String,
        value: String,
        context: BTreeMap<String, String>,
    },
    /// Writes `media` to files named after `stem` in the working directory.
    SaveMedia {
        stem: String,
        media: Vec<Media>,
    },
    /// `logging/setLevel` on `server`.
    SetLevel {
        server: String,
        level: &'static str,
    },
    /// Stops every server and starts them again.
    Reconnect,
    /// Logs in to `server` (as `mcp login`; with a code on another device
    /// when `device`).
    Login {
        server: String,
        device: bool,
    },
    /// A redirect URL (or code) pasted into the login dialog.
    LoginPaste {
        text: String,
    },
    /// Stops the login under way.
    CancelLogin,
    /// Lists again (tools, resources, templates, prompts) of `server`.
    Refresh {
        server: String,
    },
    /// The answer to a server's question: `None` declines (or cancels,
    /// with `cancel`), `Some` accepts with the form's values.
    Answered {
        id: u64,
        content: Option<Map<String, Value>>,
        cancel: bool,
    },
}

/// What the runtime reports.
#[derive(Debug, Clone)]
pub(crate) enum Event {
    /// A server's state and listings (replaces what was known).
    Server(Box<ServerView>),
    /// A server's connection ended.
    Closed {
        server: String,
        reason: String,
    },
    Wire(WireLine),
    Log(LogLine),
    Progress(Progress),
    /// A finished call, read or prompt: what to show in the output.
    Output {
        pane: Pane,
        output: Output,
    },
    /// The tool call ended (after its output).
    CallEnded,
    /// A task's state (created, polled, cancelled or announced); `tool`
    /// names the tool of a task created by a call made here.
    Task {
        server: String,
        task: Box<mcp_types::tasks::Task>,
        tool: Option<String>,
    },
    /// What `tasks/result` brought for a task.
    TaskResult {
        server: String,
        task_id: String,
        output: Output,
    },
    Subscribed {
        server: String,
        uri: String,
        on: bool,
    },
    /// A list changed on the server: the runtime lists again.
    ListChanged {
        server: String,
        what: &'static str,
    },
    ResourceUpdated {
        server: String,
        uri: String,
    },
    Completions {
        argument: String,
        values: Vec<String>,
    },
    /// A server asks: a form (an elicitation's fields; none for URL mode,
    /// whose message carries the URL; the reply to a sampling request; the
    /// roots).
    Ask(Box<Form>),
    Notice(String),
    /// A line of what the login under way says (the URL, the code).
    LoginNotice(String),
    /// The login ended: who is logged in, or why it failed.
    LoginEnded(Result<String, String>),
}

/// The whole state of the explorer.
#[derive(Debug)]
pub(crate) struct App {
    pub servers: Vec<ServerView>,
    pub server: usize,
    pub pane: Pane,
    /// The selected row of each pane.
    pub cursor: [usize; Pane::ALL.len()],
    /// The tool search (`/`), and whether it is being typed.
    pub search: String,
    pub searching: bool,
    pub form: Option<Form>,
    /// The login under way (or just ended), as a dialog.
    pub login: Option<LoginDialog>,
    /// Server questions waiting behind the open one.
    pub queued: VecDeque<Form>,
    pub running: Option<Running>,
    /// The output of the Tools, Resources and Prompts panes.
    pub outputs: BTreeMap<&'static str, Output>,
    /// Scroll of the info box (`J`/`K`).
    pub info_scroll: u16,
    pub wire: VecDeque<WireLine>,
    /// Wire lines shown whole (Enter on a line).
    pub wire_open: Option<usize>,
    pub log: VecDeque<LogLine>,
    pub notice: Option<String>,
    /// The level last asked for with `+`/`-` in the Log pane.
    pub log_level: Option<usize>,
    pub quit: bool,
}

impl App {
    pub(crate) fn new(servers: Vec<ServerView>) -> Self {
        App {
            servers,
            server: 0,
            pane: Pane::Servers,
            cursor: [0; Pane::ALL.len()],
            search: String::new(),
            searching: false,
            form: None,
            login: None,
            queued: VecDeque::new(),
            running: None,
            outputs: BTreeMap::new(),
            info_scroll: 0,
            wire: VecDeque::new(),
            wire_open: None,
            log: VecDeque::new(),
            notice: None,
            log_level: None,
            quit: false,
        }
    }

    pub(crate) fn current(&self) -> Option<&ServerView> {
        self.servers.get(self.server)
    }

    /// The tools of the current server the search matches (name, title or
    /// description, case-insensitive), with their index.
    pub(crate) fn visible_tools(&self) -> Vec<(usize, &Tool)> {
        let needle = self.search.to_lowercase();
        self.current()
            .map(|s| {
                s.tools
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| {
                        needle.is_empty()
                            || t.name.to_lowercase().contains(&needle)
                            || t.title
                                .as_deref()
                                .is_some_and(|x| x.to_lowercase().contains(&needle))
                            || t.description
                                .as_deref()
                                .is_some_and(|x| x.to_lowercase().contains(&needle))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn resource_items(&self) -> Vec<ResourceItem> {
        self.current()
            .map(|s| {
                (0..s.resources.len())
                    .map(ResourceItem::Resource)
                    .chain((0..s.templates.len()).map(ResourceItem::Template))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How many rows the current pane's list has.
    fn rows(&self) -> usize {
        match self.pane {
            Pane::Servers => self.servers.len(),
            Pane::Tools => self.visible_tools().len(),
            Pane::Resources => self.resource_items().len(),
            Pane::Prompts => self.current().map_or(0, |s| s.prompts.len()),
            Pane::Wire => self.wire.len(),
            Pane::Log => self.log.len(),
            Pane::Tasks => self.current().map_or(0, |s| s.tasks.len()),
        }
    }

    pub(crate) fn selected(&self) -> usize {
        let rows = self.rows();
        self.cursor[self.pane.index()].min(rows.saturating_sub(1))
    }

    pub(crate) fn selected_in(&self, pane: Pane) -> usize {
        self.cursor[pane.index()]
    }

    fn move_cursor(&mut self, by: isize) {
        let rows = self.rows();
        let at = self.selected() as isize + by;
        self.cursor[self.pane.index()] = at.clamp(0, rows.saturating_sub(1) as isize) as usize;
        self.info_scroll = 0;
        self.wire_open = None;
    }

    fn output_key(pane: Pane) -> Option<&'static str> {
        match pane {
            Pane::Tools => Some("tools"),
            Pane::Resources => Some("resources"),
            Pane::Prompts => Some("prompts"),
            _ => None,
        }
    }

    pub(crate) fn output(&self, pane: Pane) -> Option<&Output> {
        Self::output_key(pane).and_then(|k| self.outputs.get(k))
    }

    fn push_log(&mut self, line: LogLine) {
        if self.log.len() == KEPT_LINES {
            self.log.pop_front();
        }
        self.log.push_back(line);
    }
}

/// A server like the demo, for the unit tests of the state and the view.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;
    use serde_json::json;

    pub(crate) fn demo_view() -> ServerView {
        let mut s = ServerView::new("demo", ServerState::Connected);
        s.info = Some(ServerInfo {
            revision: "2025-11-25".into(),
            implementation: "mcp-demo 0.1.0".into(),
            capabilities: "{\n  \"completions\": {},\n  \"tools\": {}\n}".into(),
            instructions: Some("Try the tools.".into()),
            subscribe: false,
            logging: true,
            tasks: TaskSupport::default(),
        });
        s.tools = serde_json::from_value(json!([
            {"name": "echo", "description": "Returns its message.",
             "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}},
            {"name": "add", "description": "Adds two numbers.",
             "inputSchema": {"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "number"}}, "required": ["a", "b"]},
             "annotations": {"destructiveHint": true}},
        ]))
        .unwrap();
        s.tool_orders
            .insert("add".into(), vec!["a".to_owned(), "b".to_owned()]);
        s.resources = serde_json::from_value(json!([
            {"uri": "demo://readme", "name": "readme", "mimeType": "text/markdown"}
        ]))
        .unwrap();
        s.templates = serde_json::from_value(json!([
            {"uriTemplate": "demo://notes/{id}", "name": "note"}
        ]))
        .unwrap();
        s.prompts = serde_json::from_value(json!([
            {"name": "greet", "arguments": [{"name": "name", "required": true}]}
        ]))
        .unwrap();
        s
    }

    pub(crate) fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    pub(crate) fn typed(app: &mut App, text: &str) -> Vec<Action> {
        let mut last = Vec::new();
        for c in text.chars() {
            last = app.key(key(KeyCode::Char(c)));
        }
        last
    }
}
