//! The explorer's state and what a key does to it. No terminal and no
//! connection here: a key changes the state and may ask for an [`Action`]
//! (a call, a read), which the runtime (`mod.rs`) carries out and answers
//! with an [`Event`]. So every screen can be reached in a unit test.

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

/// The panes, in the order of their number keys (`1` … `6`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pane {
    Servers,
    Tools,
    Resources,
    Prompts,
    Wire,
    Log,
}

impl Pane {
    pub(crate) const ALL: [Pane; 6] = [
        Pane::Servers,
        Pane::Tools,
        Pane::Resources,
        Pane::Prompts,
        Pane::Wire,
        Pane::Log,
    ];

    pub(crate) fn title(self) -> &'static str {
        match self {
            Pane::Servers => "Servers",
            Pane::Tools => "Tools",
            Pane::Resources => "Resources",
            Pane::Prompts => "Prompts",
            Pane::Wire => "Wire",
            Pane::Log => "Log",
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

/// Where a submitted form goes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FormTarget {
    Tool {
        server: String,
        tool: String,
    },
    Prompt {
        server: String,
        prompt: String,
    },
    Template {
        server: String,
        template: String,
    },
    /// A request of `server` to the person (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`), answered as question `id`.
    Question {
        server: String,
        id: u64,
    },
}

/// One input of a form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FormInput {
    pub field: Field,
    /// A property the form rules read as text but whose schema wants
    /// something else (an object, an untyped value): typed as JSON, kept
    /// a string when it is not JSON.
    pub json: bool,
    pub text: String,
    pub error: Option<String>,
    /// Values `completion/complete` offered for what is typed.
    pub completions: Vec<String>,
}

/// An open form: a tool's arguments, a prompt's, a template's variables,
/// or a server's question.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Form {
    pub target: FormTarget,
    pub title: String,
    pub message: Option<String>,
    pub inputs: Vec<FormInput>,
    pub focus: usize,
}

impl Form {
    /// A form for `schema` (a JSON Schema object), fields in `order` (as
    /// the server wrote them) — the same field rules as the command
    /// line's elicitation form.
    pub(crate) fn from_schema(
        target: FormTarget,
        title: String,
        message: Option<String>,
        schema: &Value,
        order: Option<&[String]>,
    ) -> Form {
        let props = schema.get("properties").and_then(Value::as_object);
        let inputs = field::fields(schema, order)
            .into_iter()
            .map(|field| {
                let ty = props
                    .and_then(|p| p.get(&field.name))
                    .and_then(|p| p.get("type"));
                let json = match ty {
                    Some(Value::String(t)) => t == "object" || t == "null",
                    Some(_) => true,
                    None => props
                        .and_then(|p| p.get(&field.name))
                        .is_some_and(|p| p.get("enum").is_none()),
                } && matches!(field.kind, Kind::Text { .. });
                FormInput {
                    field,
                    json,
                    text: String::new(),
                    error: None,
                    completions: Vec::new(),
                }
            })
            .collect();
        Form {
            target,
            title,
            message,
            inputs,
            focus: 0,
        }
    }

    /// The answers, each checked by its field's rules; `Err` marks the
    /// inputs that are wrong (their `error`) and names the first.
    pub(crate) fn values(&mut self) -> Result<Map<String, Value>, String> {
        let mut out = Map::new();
        let mut first = None;
        for (i, input) in self.inputs.iter_mut().enumerate() {
            input.error = None;
            let checked = if input.json && !input.text.trim().is_empty() {
                Ok(Some(
                    serde_json::from_str(&input.text)
                        .unwrap_or_else(|_| Value::String(input.text.clone())),
                ))
            } else {
                input.field.check(&input.text)
            };
            match checked {
                Ok(Some(v)) => {
                    out.insert(input.field.name.clone(), whole(v));
                }
                Ok(None) => {}
                Err(e) => {
                    first.get_or_insert((i, format!("{}: {e}", input.field.label)));
                    input.error = Some(e);
                }
            }
        }
        match first {
            Some((i, e)) => {
                self.focus = i;
                Err(e)
            }
            None => Ok(out),
        }
    }
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
    },
    CancelCall,
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
}

/// The whole state of the explorer.
#[derive(Debug)]
pub(crate) struct App {
    pub servers: Vec<ServerView>,
    pub server: usize,
    pub pane: Pane,
    /// The selected row of each pane.
    pub cursor: [usize; 6],
    /// The tool search (`/`), and whether it is being typed.
    pub search: String,
    pub searching: bool,
    pub form: Option<Form>,
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
            cursor: [0; 6],
            search: String::new(),
            searching: false,
            form: None,
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

    /// Applies what the runtime reports; may ask for more (a list changed:
    /// list again).
    pub(crate) fn apply(&mut self, event: Event) -> Vec<Action> {
        match event {
            Event::Server(view) => {
                let view = *view;
                match self.servers.iter_mut().find(|s| s.name == view.name) {
                    Some(s) => {
                        let subscribed = std::mem::take(&mut s.subscribed);
                        *s = view;
                        s.subscribed = subscribed;
                    }
                    None => self.servers.push(view),
                }
            }
            Event::Closed { server, reason } => {
                if let Some(s) = self.servers.iter_mut().find(|s| s.name == server) {
                    s.state = ServerState::Closed(reason.clone());
                }
                self.push_log(LogLine {
                    server: server.clone(),
                    level: "mcp".into(),
                    text: format!("connection closed: {reason}"),
                });
                if self.running.as_ref().is_some_and(|r| r.server == server) {
                    self.running = None;
                }
            }
            Event::Wire(line) => {
                if self.wire.len() == KEPT_LINES {
                    self.wire.pop_front();
                    self.wire_open = self.wire_open.and_then(|i| i.checked_sub(1));
                }
                // Follows the newest line unless one is being read.
                let follow = self.wire_open.is_none()
                    && self.cursor[Pane::Wire.index()] + 1 >= self.wire.len();
                self.wire.push_back(line);
                if follow {
                    self.cursor[Pane::Wire.index()] = self.wire.len() - 1;
                }
            }
            Event::Log(line) => {
                let follow = self.cursor[Pane::Log.index()] + 1 >= self.log.len();
                self.push_log(line);
                if follow {
                    self.cursor[Pane::Log.index()] = self.log.len() - 1;
                }
            }
            Event::Progress(p) => {
                if let Some(r) = &mut self.running {
                    r.progress = Some(p);
                }
            }
            Event::Output { pane, output } => {
                if let Some(k) = Self::output_key(pane) {
                    self.outputs.insert(k, output);
                }
            }
            Event::CallEnded => {
                self.running = None;
                self.notice = None;
            }
            Event::Subscribed { server, uri, on } => {
                if let Some(s) = self.servers.iter_mut().find(|s| s.name == server) {
                    if on {
                        s.subscribed.insert(uri.clone());
                    } else {
                        s.subscribed.remove(&uri);
                    }
                }
                self.notice = Some(format!(
                    "{} {uri}",
                    if on {
                        "subscribed to"
                    } else {
                        "unsubscribed from"
                    }
                ));
            }
            Event::ListChanged { server, what } => {
                self.push_log(LogLine {
                    server: server.clone(),
                    level: "mcp".into(),
                    text: format!("{what} list changed; listed again"),
                });
                return vec![Action::Refresh { server }];
            }
            Event::ResourceUpdated { server, uri } => {
                self.push_log(LogLine {
                    server: server.clone(),
                    level: "mcp".into(),
                    text: format!("resource updated: {uri}"),
                });
                self.notice = Some(format!("updated: {uri}"));
                // What is shown of it is read again.
                let shown = self
                    .output(Pane::Resources)
                    .is_some_and(|o| o.title.ends_with(&uri));
                if shown {
                    return vec![Action::ReadResource { server, uri }];
                }
            }
            Event::Completions { argument, values } => {
                if let Some(form) = &mut self.form
                    && let Some(input) = form.inputs.get_mut(form.focus)
                    && input.field.name == argument
                {
                    input.completions = values;
                }
            }
            Event::Ask(form) => {
                if self.form.is_none() {
                    self.form = Some(*form);
                } else {
                    self.queued.push_back(*form);
                }
            }
            Event::Notice(text) => self.notice = Some(text),
        }
        Vec::new()
    }

    /// What a key does.
    pub(crate) fn key(&mut self, key: KeyEvent) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'q')) {
            self.quit = true;
            return Vec::new();
        }
        if self.form.is_some() {
            return self.form_key(key);
        }
        if self.searching {
            match key.code {
                KeyCode::Esc => {
                    self.searching = false;
                    self.search.clear();
                }
                KeyCode::Enter | KeyCode::Down => self.searching = false,
                KeyCode::Backspace => {
                    self.search.pop();
                }
                KeyCode::Char(c) if !ctrl => self.search.push(c),
                _ => {}
            }
            self.cursor[Pane::Tools.index()] = 0;
            return Vec::new();
        }
        self.notice = None;
        match key.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Tab | KeyCode::Right => self.pane = self.next_pane(1),
            KeyCode::BackTab | KeyCode::Left => self.pane = self.next_pane(-1),
            KeyCode::Char(c @ '1'..='6') => {
                self.pane = Pane::ALL[c as usize - '1' as usize];
            }
            KeyCode::Up | KeyCode::Char('k') => self.move_cursor(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_cursor(1),
            KeyCode::PageUp => self.scroll_output(-10),
            KeyCode::PageDown => self.scroll_output(10),
            KeyCode::Char('K') => self.info_scroll = self.info_scroll.saturating_sub(5),
            KeyCode::Char('J') => self.info_scroll = self.info_scroll.saturating_add(5),
            KeyCode::Char(']') => self.switch_server(1),
            KeyCode::Char('[') => self.switch_server(-1),
            KeyCode::Char('/') if self.pane == Pane::Tools => {
                self.searching = true;
            }
            KeyCode::Char('c') | KeyCode::Esc if self.running.is_some() => {
                self.notice = Some("cancelling…".into());
                return vec![Action::CancelCall];
            }
            KeyCode::Char('R') => {
                for s in &mut self.servers {
                    if s.state != ServerState::Disabled {
                        s.state = ServerState::Starting;
                        s.info = None;
                        s.subscribed.clear();
                    }
                }
                self.running = None;
                self.notice = Some("reconnecting every server…".into());
                return vec![Action::Reconnect];
            }
            KeyCode::Char('r') => {
                if let Some(s) = self.current() {
                    return vec![Action::Refresh {
                        server: s.name.clone(),
                    }];
                }
            }
            KeyCode::Char('s') if self.pane == Pane::Resources => return self.toggle_subscribe(),
            KeyCode::Char('o') if self.pane == Pane::Tools => return self.open_link(),
            KeyCode::Char('w') if self.pane == Pane::Tools => {
                if let Some(o) = self.outputs.get("tools")
                    && !o.media.is_empty()
                {
                    let stem = o.title.split(' ').next().unwrap_or("result").to_owned();
                    return vec![Action::SaveMedia {
                        stem,
                        media: o.media.clone(),
                    }];
                }
                self.notice = Some("the result has no image or audio to save".into());
            }
            KeyCode::Char(c @ ('+' | '-')) if self.pane == Pane::Log => {
                let Some(server) = self.current().map(|s| s.name.clone()) else {
                    return Vec::new();
                };
                let at = match (self.log_level, c) {
                    (None, _) => 1,
                    (Some(l), '+') => (l + 1).min(LOG_LEVELS.len() - 1),
                    (Some(l), _) => l.saturating_sub(1),
                };
                self.log_level = Some(at);
                return vec![Action::SetLevel {
                    server,
                    level: LOG_LEVELS[at],
                }];
            }
            KeyCode::Enter => return self.open(),
            _ => {}
        }
        Vec::new()
    }

    fn next_pane(&self, by: isize) -> Pane {
        let n = Pane::ALL.len() as isize;
        Pane::ALL[((self.pane.index() as isize + by).rem_euclid(n)) as usize]
    }

    fn switch_server(&mut self, by: isize) {
        if self.servers.is_empty() {
            return;
        }
        let n = self.servers.len() as isize;
        self.server = ((self.server as isize + by).rem_euclid(n)) as usize;
        self.cursor[Pane::Servers.index()] = self.server;
        for pane in [Pane::Tools, Pane::Resources, Pane::Prompts] {
            self.cursor[pane.index()] = 0;
        }
        self.info_scroll = 0;
    }

    fn scroll_output(&mut self, by: i32) {
        if self.pane == Pane::Wire {
            let len = self.wire.len();
            if len > 0 {
                let at = (self.selected() as i32 + by).clamp(0, len as i32 - 1);
                self.cursor[Pane::Wire.index()] = at as usize;
            }
            return;
        }
        if let Some(k) = Self::output_key(self.pane)
            && let Some(o) = self.outputs.get_mut(k)
        {
            o.scroll = (i32::from(o.scroll) + by).max(0) as u16;
        }
    }

    /// Enter: the selected server becomes current; a tool's form opens; a
    /// resource is read (a template's form opens); a prompt's form opens; a
    /// wire line opens whole.
    fn open(&mut self) -> Vec<Action> {
        let at = self.selected();
        match self.pane {
            Pane::Servers => {
                if at < self.servers.len() {
                    self.server = at;
                    self.pane = Pane::Tools;
                }
            }
            Pane::Tools => {
                let Some((server, tool, order)) = self.current().and_then(|s| {
                    let (_, t) = self.visible_tools().get(at).copied()?;
                    Some((
                        s.name.clone(),
                        t.clone(),
                        s.tool_orders.get(&t.name).cloned(),
                    ))
                }) else {
                    return Vec::new();
                };
                if self.running.is_some() {
                    self.notice = Some("a call is running: c cancels it".into());
                    return Vec::new();
                }
                let form = Form::from_schema(
                    FormTarget::Tool {
                        server,
                        tool: tool.name.clone(),
                    },
                    format!("call {}", tool.name),
                    tool.description.clone(),
                    &tool.input_schema,
                    order.as_deref(),
                );
                self.form = Some(form);
            }
            Pane::Resources => {
                let Some(s) = self.current() else {
                    return Vec::new();
                };
                match self.resource_items().get(at) {
                    Some(ResourceItem::Resource(i)) => {
                        return vec![Action::ReadResource {
                            server: s.name.clone(),
                            uri: s.resources[*i].uri.clone(),
                        }];
                    }
                    Some(ResourceItem::Template(i)) => {
                        let t = &s.templates[*i];
                        let schema = template_schema(&t.uri_template);
                        self.form = Some(Form::from_schema(
                            FormTarget::Template {
                                server: s.name.clone(),
                                template: t.uri_template.clone(),
                            },
                            format!("read {}", t.uri_template),
                            t.description.clone(),
                            &schema.0,
                            Some(&schema.1),
                        ));
                    }
                    None => {}
                }
            }
            Pane::Prompts => {
                let Some(s) = self.current() else {
                    return Vec::new();
                };
                if let Some(p) = s.prompts.get(at) {
                    let (schema, order) = prompt_schema(p);
                    self.form = Some(Form::from_schema(
                        FormTarget::Prompt {
                            server: s.name.clone(),
                            prompt: p.name.clone(),
                        },
                        format!("get {}", p.name),
                        p.description.clone(),
                        &schema,
                        Some(&order),
                    ));
                    if self.form.as_ref().is_some_and(|f| f.inputs.is_empty()) {
                        return self.submit();
                    }
                }
            }
            Pane::Wire => {
                self.wire_open = if self.wire_open == Some(at) {
                    None
                } else {
                    Some(at)
                };
            }
            Pane::Log => {}
        }
        Vec::new()
    }

    /// `o`: the result's first resource link, read in the Resources pane.
    fn open_link(&mut self) -> Vec<Action> {
        let link = self
            .outputs
            .get("tools")
            .and_then(|o| o.links.first().cloned());
        let (Some(uri), Some(server)) = (link, self.current().map(|s| s.name.clone())) else {
            self.notice = Some("the result has no resource link".into());
            return Vec::new();
        };
        self.pane = Pane::Resources;
        vec![Action::ReadResource { server, uri }]
    }

    fn toggle_subscribe(&mut self) -> Vec<Action> {
        let at = self.selected();
        let Some(s) = self.current() else {
            return Vec::new();
        };
        let Some(ResourceItem::Resource(i)) = self.resource_items().get(at).copied() else {
            self.notice = Some("only a resource can be subscribed to".into());
            return Vec::new();
        };
        if !s.info.as_ref().is_some_and(|i| i.subscribe) {
            self.notice = Some(format!(
                "{} does not offer subscriptions (resources.subscribe)",
                s.name
            ));
            return Vec::new();
        }
        let uri = s.resources[i].uri.clone();
        vec![Action::Subscribe {
            server: s.name.clone(),
            on: !s.subscribed.contains(&uri),
            uri,
        }]
    }

    fn form_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(form) = &mut self.form else {
            return Vec::new();
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let count = form.inputs.len();
        match key.code {
            KeyCode::Esc => return self.close_form(false),
            KeyCode::Char('d') if ctrl => return self.close_form(true),
            KeyCode::Enter => return self.submit(),
            KeyCode::Tab | KeyCode::Down if count > 0 => {
                // Tab on a completion takes the first offered value.
                if key.code == KeyCode::Tab
                    && let Some(input) = form.inputs.get_mut(form.focus)
                    && let Some(first) = input.completions.first().cloned()
                    && input.text != first
                {
                    input.text = first;
                    input.completions.clear();
                    return Vec::new();
                }
                form.focus = (form.focus + 1) % count;
            }
            KeyCode::BackTab | KeyCode::Up if count > 0 => {
                form.focus = (form.focus + count - 1) % count;
            }
            KeyCode::Backspace => {
                if let Some(input) = form.inputs.get_mut(form.focus) {
                    input.text.pop();
                    return self.complete_focused();
                }
            }
            KeyCode::Char(c) if !ctrl => {
                if let Some(input) = form.inputs.get_mut(form.focus) {
                    input.text.push(c);
                    input.error = None;
                    return self.complete_focused();
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// Completion as you type, for a prompt's or a template's argument.
    fn complete_focused(&self) -> Vec<Action> {
        let Some(form) = &self.form else {
            return Vec::new();
        };
        let server = match &form.target {
            FormTarget::Prompt { server, .. } | FormTarget::Template { server, .. } => server,
            _ => return Vec::new(),
        };
        let offered = self
            .servers
            .iter()
            .find(|s| &s.name == server)
            .and_then(|s| s.info.as_ref())
            .is_some_and(|i| i.capabilities.contains("\"completions\""));
        let Some(input) = form.inputs.get(form.focus) else {
            return Vec::new();
        };
        if !offered {
            return Vec::new();
        }
        let context = form
            .inputs
            .iter()
            .filter(|i| i.field.name != input.field.name && !i.text.is_empty())
            .map(|i| (i.field.name.clone(), i.text.clone()))
            .collect();
        vec![Action::Complete {
            server: server.clone(),
            target: form.target.clone(),
            argument: input.field.name.clone(),
            value: input.text.clone(),
            context,
        }]
    }

    /// Esc closes a form (a server's question: declined; Ctrl-D: cancelled).
    fn close_form(&mut self, cancel: bool) -> Vec<Action> {
        let Some(form) = self.form.take() else {
            return Vec::new();
        };
        self.form = self.queued.pop_front();
        match form.target {
            FormTarget::Question { id, .. } => vec![Action::Answered {
                id,
                content: None,
                cancel,
            }],
            _ => Vec::new(),
        }
    }

    fn submit(&mut self) -> Vec<Action> {
        let Some(form) = &mut self.form else {
            return Vec::new();
        };
        let values = match form.values() {
            Ok(v) => v,
            Err(e) => {
                self.notice = Some(e);
                return Vec::new();
            }
        };
        let target = form.target.clone();
        self.form = self.queued.pop_front();
        match target {
            FormTarget::Tool { server, tool } => {
                self.running = Some(Running {
                    server: server.clone(),
                    tool: tool.clone(),
                    progress: None,
                });
                self.outputs.remove("tools");
                vec![Action::CallTool {
                    server,
                    tool,
                    arguments: values,
                }]
            }
            FormTarget::Prompt { server, prompt } => vec![Action::GetPrompt {
                server,
                prompt,
                arguments: values
                    .into_iter()
                    .map(|(k, v)| (k, crate::handler::log_text(&v)))
                    .collect(),
            }],
            FormTarget::Template { server, template } => vec![Action::ReadTemplate {
                server,
                template,
                variables: values,
            }],
            FormTarget::Question { id, .. } => vec![Action::Answered {
                id,
                content: Some(values),
                cancel: false,
            }],
        }
    }
}

/// A number typed without a fraction (`2` read as 2.0 by the form rules)
/// goes out as it was typed, `2`: a tool echoing it shows what was typed.
fn whole(v: Value) -> Value {
    /// The largest integer an f64 holds exactly: 2^53.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    match v.as_f64() {
        Some(x) if v.is_f64() && x.fract() == 0.0 && x.abs() <= EXACT => Value::from(x as i64),
        _ => v,
    }
}

/// A prompt's arguments as a form schema: every argument a string, in the
/// order listed.
fn prompt_schema(p: &Prompt) -> (Value, Vec<String>) {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut order = Vec::new();
    for a in p.arguments.iter().flatten() {
        let mut prop = Map::new();
        prop.insert("type".into(), "string".into());
        if let Some(d) = &a.description {
            prop.insert("description".into(), d.clone().into());
        }
        props.insert(a.name.clone(), Value::Object(prop));
        if a.required == Some(true) {
            required.push(Value::String(a.name.clone()));
        }
        order.push(a.name.clone());
    }
    (
        serde_json::json!({"type": "object", "properties": props, "required": required}),
        order,
    )
}

/// A URI template's variables as a form schema (strings, in the order they
/// appear): `{id}`, `{+path}`, `{?a,b}` give `id`, `path`, `a`, `b`.
pub(crate) fn template_schema(template: &str) -> (Value, Vec<String>) {
    let mut order: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let expr = &rest[open + 1..open + close];
        let expr = expr.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for var in expr.split(',') {
            let name = var.trim_end_matches('*');
            let name = name.split(':').next().unwrap_or(name);
            if !name.is_empty() && !order.iter().any(|n| n == name) {
                order.push(name.to_owned());
            }
        }
        rest = &rest[open + close + 1..];
    }
    let props: Map<String, Value> = order
        .iter()
        .map(|n| (n.clone(), serde_json::json!({"type": "string"})))
        .collect();
    (
        serde_json::json!({"type": "object", "properties": props, "required": order}),
        order,
    )
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
}

#[cfg(test)]
mod tests {
    use super::tests_support::demo_view;
    use super::*;
    use serde_json::json;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(app: &mut App, text: &str) -> Vec<Action> {
        let mut last = Vec::new();
        for c in text.chars() {
            last = app.key(key(KeyCode::Char(c)));
        }
        last
    }

    #[test]
    fn a_tool_form_takes_the_written_order_checks_types_and_calls() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('2')));
        app.key(key(KeyCode::Down));
        assert!(app.key(key(KeyCode::Enter)).is_empty());
        let form = app.form.as_ref().unwrap();
        let names: Vec<&str> = form.inputs.iter().map(|i| i.field.name.as_str()).collect();
        assert_eq!(names, ["a", "b"], "the schema's written order");
        typed(&mut app, "x");
        assert!(app.key(key(KeyCode::Enter)).is_empty(), "not a number");
        assert!(app.notice.as_deref().unwrap().starts_with("a: "));
        app.key(key(KeyCode::Backspace));
        typed(&mut app, "2");
        app.key(key(KeyCode::Tab));
        typed(&mut app, "3");
        let actions = app.key(key(KeyCode::Enter));
        assert_eq!(
            actions,
            vec![Action::CallTool {
                server: "demo".into(),
                tool: "add".into(),
                arguments: json!({"a": 2, "b": 3}).as_object().unwrap().clone(),
            }]
        );
        assert!(app.running.is_some());
        assert_eq!(app.key(key(KeyCode::Char('c'))), vec![Action::CancelCall]);
    }

    #[test]
    fn search_filters_the_tools() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('2')));
        app.key(key(KeyCode::Char('/')));
        typed(&mut app, "sum");
        assert!(app.visible_tools().is_empty());
        for _ in 0..3 {
            app.key(key(KeyCode::Backspace));
        }
        typed(&mut app, "ADD");
        let names: Vec<&str> = app
            .visible_tools()
            .iter()
            .map(|(_, t)| t.name.as_str())
            .collect();
        assert_eq!(names, ["add"]);
        app.key(key(KeyCode::Esc));
        assert_eq!(app.visible_tools().len(), 2);
    }

    #[test]
    fn resources_read_templates_fill_and_prompts_complete() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('3')));
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::ReadResource {
                server: "demo".into(),
                uri: "demo://readme".into()
            }]
        );
        app.key(key(KeyCode::Down));
        app.key(key(KeyCode::Enter));
        typed(&mut app, "7");
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::ReadTemplate {
                server: "demo".into(),
                template: "demo://notes/{id}".into(),
                variables: json!({"id": "7"}).as_object().unwrap().clone(),
            }]
        );
        app.key(key(KeyCode::Char('4')));
        app.key(key(KeyCode::Enter));
        let asked = typed(&mut app, "Gr");
        assert!(
            matches!(&asked[..], [Action::Complete { argument, value, .. }] if argument == "name" && value == "Gr"),
            "{asked:?}"
        );
        app.apply(Event::Completions {
            argument: "name".into(),
            values: vec!["Grace".into()],
        });
        app.key(key(KeyCode::Tab));
        assert_eq!(app.form.as_ref().unwrap().inputs[0].text, "Grace");
        let got = app.key(key(KeyCode::Enter));
        assert!(
            matches!(&got[..], [Action::GetPrompt { arguments, .. }] if arguments["name"] == "Grace"),
            "{got:?}"
        );
    }

    #[test]
    fn an_elicitation_is_answered_declined_or_cancelled() {
        let mut app = App::new(vec![demo_view()]);
        let form = Form::from_schema(
            FormTarget::Question {
                server: "demo".into(),
                id: 4,
            },
            "demo asks".into(),
            Some("Your name?".into()),
            &json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            None,
        );
        app.apply(Event::Ask(Box::new(form.clone())));
        app.apply(Event::Ask(Box::new(form)));
        assert_eq!(app.queued.len(), 1);
        assert!(app.key(key(KeyCode::Enter)).is_empty(), "required");
        typed(&mut app, "Ada");
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::Answered {
                id: 4,
                content: Some(json!({"name": "Ada"}).as_object().unwrap().clone()),
                cancel: false
            }]
        );
        assert!(app.form.is_some(), "the queued question comes next");
        assert_eq!(
            app.key(key(KeyCode::Esc)),
            vec![Action::Answered {
                id: 4,
                content: None,
                cancel: false
            }]
        );
        assert!(app.form.is_none());
    }

    #[test]
    fn a_result_link_opens_media_save_and_the_log_level_steps() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('2')));
        assert!(app.key(key(KeyCode::Char('o'))).is_empty());
        assert_eq!(
            app.notice.as_deref(),
            Some("the result has no resource link")
        );
        app.apply(Event::Output {
            pane: Pane::Tools,
            output: Output {
                title: "get-tiny-image → result".into(),
                links: vec!["demo://a".into()],
                media: vec![Media {
                    mime: "image/png".into(),
                    data: "aGk=".into(),
                }],
                ..Default::default()
            },
        });
        assert_eq!(
            app.key(key(KeyCode::Char('w'))),
            vec![Action::SaveMedia {
                stem: "get-tiny-image".into(),
                media: vec![Media {
                    mime: "image/png".into(),
                    data: "aGk=".into()
                }],
            }]
        );
        assert_eq!(
            app.key(key(KeyCode::Char('o'))),
            vec![Action::ReadResource {
                server: "demo".into(),
                uri: "demo://a".into()
            }]
        );
        assert_eq!(app.pane, Pane::Resources);
        app.key(key(KeyCode::Char('6')));
        let level = |app: &mut App, c| match app.key(key(KeyCode::Char(c))).as_slice() {
            [Action::SetLevel { level, .. }] => *level,
            other => panic!("{other:?}"),
        };
        assert_eq!(level(&mut app, '+'), "info");
        assert_eq!(level(&mut app, '-'), "debug");
        assert_eq!(level(&mut app, '-'), "debug");
        for _ in 0..10 {
            level(&mut app, '+');
        }
        assert_eq!(level(&mut app, '+'), "emergency");
    }

    #[test]
    fn reconnecting_marks_the_servers_starting() {
        let mut app = App::new(vec![demo_view()]);
        app.servers[0].state = ServerState::Closed("gone".into());
        assert_eq!(app.key(key(KeyCode::Char('R'))), vec![Action::Reconnect]);
        assert_eq!(app.servers[0].state, ServerState::Starting);
        assert!(app.servers[0].info.is_none());
    }

    #[test]
    fn template_variables_are_read_in_order() {
        assert_eq!(
            template_schema("file:///{+path}{?a,b*}{#frag:3}").1,
            ["path", "a", "b", "frag"]
        );
    }

    #[test]
    fn a_list_change_lists_again_and_ctrl_c_quits() {
        let mut app = App::new(vec![demo_view()]);
        assert_eq!(
            app.apply(Event::ListChanged {
                server: "demo".into(),
                what: "tools"
            }),
            vec![Action::Refresh {
                server: "demo".into()
            }]
        );
        app.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        assert!(app.quit);
    }
}
