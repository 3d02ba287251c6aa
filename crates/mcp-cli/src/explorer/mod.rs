//! `mcp ui`: a terminal explorer of the servers the command line resolved
//! (ratatui on crossterm). The state and its keys are in [`app`], drawing
//! in [`view`], what the connections report in [`bridge`]; this module
//! owns the terminal and carries out what the state asks for.
//!
//! The terminal is given back on every way out: `q` and Ctrl-C (keys in
//! raw mode), SIGTERM and SIGHUP (the command's cancellation), an error
//! (the guard's drop) and a panic (the hook restores it before the panic
//! message is printed). A server that dies is shown as closed; the
//! explorer goes on.

pub(crate) mod app;
pub(crate) mod bridge;
pub(crate) mod view;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_client::{CancellationToken, Client, ClientError, ClientOptions, ElicitationModes};
use mcp_client::{RequestOptions, Subscription};
use mcp_manager::{Manager, McpConfig, ServerStatus, StartListings};
use mcp_types::completion::{
    CompleteRequestParams, CompletionArgument, CompletionContext, CompletionReference,
    PromptReference, ResourceTemplateReference,
};
use mcp_types::content::{ContentBlock, ResourceContents};
use mcp_types::resources::{ReadResourceResult, ResourceTemplate};
use mcp_types::tools::CallToolResult;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use app::{
    Action, App, Event, FormTarget, Media, Output, Pane, ServerInfo, ServerState, ServerView,
};
use bridge::{Events, Questions, ToolOrders, UiHandler, UiTap};

pub(crate) use bridge::{LogWriter, capture_log, log_captured};

use crate::exit::{Failure, SUCCESS};
use crate::form::{SchemaOrderTap, SchemaOrders};
use crate::servers::ConnectSettings;

/// How long a call may go on while progress keeps coming: one hour.
const CALL_MAX: Duration = Duration::from_secs(3600);

/// How long the servers get to stop after the explorer closes: 5 000 ms.
const STOP_WAIT: Duration = Duration::from_millis(5_000);

/// How often the input thread looks whether the explorer has ended: 100 ms.
const INPUT_POLL: Duration = Duration::from_millis(100);

/// `true` while the terminal is in the explorer's modes (raw, alternate screen).
static TERMINAL_TAKEN: AtomicBool = AtomicBool::new(false);

/// Test-only, read in debug builds alone: when the environment variable
/// `MCP_UI_TEST_PANIC` is set, F12 makes the running explorer panic with a
/// message carrying the variable's value, so that a test on a real terminal
/// can see the panic hook give the terminal back before the message is
/// printed. Release builds neither read the variable nor have the key.
#[cfg(debug_assertions)]
const TEST_PANIC_VAR: &str = "MCP_UI_TEST_PANIC";

/// Panics when `key` is F12 and `marker` (the value of [`TEST_PANIC_VAR`])
/// was set: the test-only way into the panic path.
#[cfg(debug_assertions)]
fn test_panic(marker: Option<&str>, key: &crossterm::event::KeyEvent) {
    if let Some(marker) = marker
        && key.code == crossterm::event::KeyCode::F(12)
    {
        panic!("mcp ui: test panic requested by {TEST_PANIC_VAR}: {marker}");
    }
}

/// Gives the terminal back: cooked mode, the main screen, the cursor.
/// Idempotent, so the guard, the panic hook and a signal may all call it.
fn restore_terminal() {
    if !TERMINAL_TAKEN.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// Holds the terminal; dropping it gives it back.
struct TerminalGuard;

impl TerminalGuard {
    /// Errors: the terminal refuses raw mode or the alternate screen.
    fn take() -> std::io::Result<TerminalGuard> {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore_terminal();
                previous(info);
            }));
        });
        crossterm::terminal::enable_raw_mode()?;
        TERMINAL_TAKEN.store(true, Ordering::SeqCst);
        crossterm::execute!(
            std::io::stdout(),
            crossterm::terminal::EnterAlternateScreen,
            crossterm::cursor::Hide
        )?;
        Ok(TerminalGuard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// The manager's options for the explorer: as the command line's, but each
/// server answers through a [`UiHandler`] and shows its traffic to the
/// [`UiTap`]; elicitation (form and URL mode), sampling and roots are
/// declared, each answered by the person in a dialog.
fn manager_options(
    settings: &ConnectSettings,
    events: &Events,
    questions: &Arc<Questions>,
    tool_orders: &Arc<ToolOrders>,
    started: Instant,
) -> mcp_manager::ManagerOptions {
    let client = ClientOptions::new("mcp-cli", env!("CARGO_PKG_VERSION"))
        .with_title("mcp ui")
        .with_elicitation(ElicitationModes::form_and_url())
        .with_sampling(false)
        .with_roots(false)
        .with_request_timeout(settings.timeout)
        .with_initialize_timeout(settings.timeout);
    let ui = Arc::new(crate::ui::Ui::new(CancellationToken::new()));
    let schema_orders = Arc::new(SchemaOrders::default());
    let handler_orders = Arc::clone(&schema_orders);
    let handler_events = events.clone();
    let handler_questions = Arc::clone(questions);
    let tap = Arc::new(UiTap::new(events.clone(), started, Arc::clone(tool_orders)));
    let mut options = crate::servers::manager_options(settings, &ui);
    options.client = client;
    options
        .with_start_listings(StartListings::NONE)
        .with_handler_per_server(move |config| {
            Arc::new(UiHandler {
                server: config.name.clone(),
                events: handler_events.clone(),
                questions: Arc::clone(&handler_questions),
                orders: Arc::clone(&handler_orders),
            })
        })
        .with_transport_layer(move |config, transport| {
            let tap = SchemaOrderTap::new(
                Arc::clone(&schema_orders),
                Some(Arc::clone(&tap) as Arc<dyn mcp_transport::WireTap>),
            );
            if !transport.set_wire_tap(Arc::new(tap)) {
                tracing::warn!(server = %config.name, "this transport shows no traffic");
            }
            transport
        })
}

/// Runs the explorer until the person quits or a signal ends it.
///
/// Errors: stdin or stdout is not a terminal; the terminal cannot be set up.
pub(crate) async fn run(
    config: McpConfig,
    settings: ConnectSettings,
    cancel: CancellationToken,
) -> Result<u8, Failure> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(Failure::new(
            "mcp ui needs a terminal (stdin and stdout); the other commands work without one",
        ));
    }
    let started = Instant::now();
    let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
    let questions = Arc::new(Questions::default());
    let tool_orders = Arc::new(ToolOrders::default());
    let views: Vec<ServerView> = config
        .servers
        .values()
        .map(|s| {
            let state = if s.disabled {
                ServerState::Disabled
            } else {
                ServerState::Starting
            };
            ServerView::new(&s.name, state)
        })
        .collect();
    bridge::set_log_sink(Some(tx.clone()));
    let guard = TerminalGuard::take()
        .map_err(|e| Failure::new(format!("mcp ui: cannot set up the terminal: {e}")))?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))
        .map_err(|e| Failure::new(format!("mcp ui: cannot draw on the terminal: {e}")))?;
    let mut app = App::new(views);
    let _ = terminal.draw(|f| view::draw(f, &app));

    let (keys_tx, mut keys) = mpsc::unbounded_channel();
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match crossterm::event::poll(INPUT_POLL) {
                    Ok(true) => match crossterm::event::read() {
                        Ok(event) => {
                            if keys_tx.send(event).is_err() {
                                return;
                            }
                        }
                        Err(_) => return,
                    },
                    Ok(false) => {}
                    Err(_) => return,
                }
            }
        });
    }

    let mut runtime = Runtime {
        manager: Arc::default(),
        config,
        settings,
        started,
        events: tx.clone(),
        questions,
        orders: tool_orders,
        call: None,
        listens: Listens::default(),
    };
    runtime.start_servers(None);
    #[cfg(debug_assertions)]
    let test_panic_marker = std::env::var(TEST_PANIC_VAR).ok();
    loop {
        let mut actions = Vec::new();
        tokio::select! {
            Some(input) = keys.recv() => {
                if let crossterm::event::Event::Key(key) = input
                    && key.kind != crossterm::event::KeyEventKind::Release
                {
                    #[cfg(debug_assertions)]
                    test_panic(test_panic_marker.as_deref(), &key);
                    actions.extend(app.key(key));
                }
            }
            Some(event) = rx.recv() => actions.extend(app.apply(event)),
            () = cancel.cancelled() => break,
        }
        // Whatever else arrived is taken before drawing once.
        while let Ok(event) = rx.try_recv() {
            actions.extend(app.apply(event));
        }
        for action in actions {
            runtime.perform(action);
        }
        if app.quit {
            break;
        }
        if let Err(e) = terminal.draw(|f| view::draw(f, &app)) {
            tracing::error!(error = %e, "cannot draw");
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    if let Some(call) = runtime.call.take() {
        call.cancel();
    }
    lock(&runtime.listens).clear();
    bridge::set_log_sink(None);
    drop(terminal);
    drop(guard);
    if let Some(manager) = runtime.manager() {
        stop_manager(&manager).await;
    }
    Ok(SUCCESS)
}

/// Shuts `manager`'s servers down, killing them past [`STOP_WAIT`].
async fn stop_manager(manager: &Manager) {
    if tokio::time::timeout(STOP_WAIT, manager.shutdown())
        .await
        .is_err()
    {
        manager.kill().await;
    }
}

/// What a server is, as the explorer shows it: its state, what it said
/// about itself, and its lists (each listed afresh; a listing that fails
/// is one of its problems).
async fn server_view(
    name: &str,
    status: &ServerStatus,
    client: Option<&Client>,
    orders: &ToolOrders,
) -> ServerView {
    let state = match status {
        ServerStatus::Connected { .. } => ServerState::Connected,
        ServerStatus::Failed { why } => ServerState::Failed(crate::exit::tidy(why)),
        ServerStatus::NeedsLogin { why } => ServerState::NeedsLogin(why.clone()),
        ServerStatus::Disabled => ServerState::Disabled,
        ServerStatus::Starting => ServerState::Starting,
        other => ServerState::Closed(other.to_string()),
    };
    let mut view = ServerView::new(name, state);
    let Some(client) = client.filter(|c| c.is_connected()) else {
        return view;
    };
    fill(&mut view, client, orders).await;
    view
}

async fn fill(view: &mut ServerView, client: &Client, orders: &ToolOrders) {
    let caps = client.server_capabilities();
    let info = client.server_info();
    let implementation = match &info.title {
        Some(t) => format!("{} {} ({t})", info.name, info.version),
        None => format!("{} {}", info.name, info.version),
    };
    view.info = Some(ServerInfo {
        revision: client.protocol_version().to_string(),
        implementation,
        capabilities: serde_json::to_string_pretty(&caps).unwrap_or_default(),
        instructions: client.instructions(),
        subscribe: caps
            .resources
            .as_ref()
            .is_some_and(|r| r.subscribe == Some(true)),
        logging: caps.logging.is_some(),
    });
    let options = RequestOptions::default;
    if caps.tools.is_some() {
        match client.tools_listing(options()).await {
            Ok(l) => view.tools = l.items,
            Err(e) => view.problems.push(format!("tools/list: {e}")),
        }
    }
    if caps.resources.is_some() {
        match client.resources_listing(options()).await {
            Ok(l) => view.resources = l.items,
            Err(e) => view.problems.push(format!("resources/list: {e}")),
        }
        match client.resource_templates_listing(options()).await {
            Ok(l) => view.templates = l.items,
            Err(e) => view.problems.push(format!("resources/templates/list: {e}")),
        }
    }
    if caps.prompts.is_some() {
        match client.prompts_listing(options()).await {
            Ok(l) => view.prompts = l.items,
            Err(e) => view.problems.push(format!("prompts/list: {e}")),
        }
    }
    view.tool_orders = orders.of(&view.name);
}

/// Carries out what the state asks for, each on a task of its own whose
/// outcome comes back as an [`Event`].
struct Runtime {
    /// The servers' manager: none until the first start, replaced by a
    /// reconnection.
    manager: Arc<std::sync::Mutex<Option<Manager>>>,
    config: McpConfig,
    settings: ConnectSettings,
    /// When the explorer started (the wire pane's clock).
    started: Instant,
    events: Events,
    questions: Arc<Questions>,
    orders: Arc<ToolOrders>,
    /// The running call's cancellation.
    call: Option<CancellationToken>,
    /// 2026-07-28 resource subscriptions (`subscriptions/listen`), by
    /// server and URI: dropping one ends it.
    listens: Listens,
}

/// The held `subscriptions/listen` subscriptions, by server and URI.
type Listens = Arc<std::sync::Mutex<BTreeMap<(String, String), Subscription>>>;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Runtime {
    fn manager(&self) -> Option<Manager> {
        lock(&self.manager).clone()
    }

    /// Starts the servers on a manager of their own (after stopping
    /// `previous`, a reconnection), then reports each one.
    fn start_servers(&mut self, previous: Option<Manager>) {
        let options = manager_options(
            &self.settings,
            &self.events,
            &self.questions,
            &self.orders,
            self.started,
        );
        let config = self.config.clone();
        let bound = crate::servers::start_bound(&config, &self.settings);
        let slot = Arc::clone(&self.manager);
        let events = self.events.clone();
        let orders = Arc::clone(&self.orders);
        tokio::spawn(async move {
            if let Some(previous) = previous {
                stop_manager(&previous).await;
            }
            let manager = Manager::start(config, options).await;
            *lock(&slot) = Some(manager.clone());
            manager.wait_started(bound).await;
            for server in crate::servers::snapshot(&manager) {
                let view = server_view(
                    &server.name,
                    &server.status,
                    server.client.as_ref(),
                    &orders,
                )
                .await;
                let _ = events.send(Event::Server(Box::new(view)));
            }
        });
    }

    fn client(&self, server: &str) -> Option<Client> {
        let client = self
            .manager()
            .and_then(|m| m.client(server))
            .filter(Client::is_connected);
        if client.is_none() {
            let _ = self
                .events
                .send(Event::Notice(format!("{server} is not connected")));
        }
        client
    }

    fn perform(&mut self, action: Action) {
        let events = self.events.clone();
        match action {
            Action::CallTool {
                server,
                tool,
                arguments,
            } => {
                let Some(client) = self.client(&server) else {
                    let _ = events.send(Event::CallEnded);
                    return;
                };
                let token = CancellationToken::new();
                self.call = Some(token.clone());
                let progress = events.clone();
                let request = RequestOptions::default()
                    .with_cancel(token)
                    .with_progress(move |p| {
                        let _ = progress.send(Event::Progress(p));
                    })
                    .with_timeout_reset_on_progress(CALL_MAX);
                let has_output_schema = client.cached_tools().is_some_and(|t| {
                    t.iter()
                        .any(|t| t.name == tool && t.output_schema.is_some())
                });
                tokio::spawn(async move {
                    let outcome = client
                        .call_tool(&tool, Value::Object(arguments), request)
                        .await;
                    let output = call_output(&tool, outcome, has_output_schema);
                    let _ = events.send(Event::Output {
                        pane: Pane::Tools,
                        output,
                    });
                    let _ = events.send(Event::CallEnded);
                });
            }
            Action::CancelCall => {
                if let Some(token) = self.call.take() {
                    token.cancel();
                }
            }
            Action::ReadResource { server, uri } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let outcome = client.read_resource(uri.clone(), Default::default()).await;
                    let _ = events.send(Event::Output {
                        pane: Pane::Resources,
                        output: read_output(&uri, outcome),
                    });
                });
            }
            Action::ReadTemplate {
                server,
                template,
                variables,
            } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let t = ResourceTemplate {
                        uri_template: template.clone(),
                        ..Default::default()
                    };
                    let vars: Vec<(String, mcp_client::TemplateValue)> = variables
                        .into_iter()
                        .map(|(k, v)| (k, crate::handler::log_text(&v).into()))
                        .collect();
                    let outcome = client
                        .read_resource_template(&t, vars, Default::default())
                        .await;
                    let _ = events.send(Event::Output {
                        pane: Pane::Resources,
                        output: read_output(&template, outcome),
                    });
                });
            }
            Action::Subscribe { server, uri, on } => self.subscribe(server, uri, on),
            Action::GetPrompt {
                server,
                prompt,
                arguments,
            } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let outcome = client
                        .get_prompt(prompt.clone(), Some(arguments), Default::default())
                        .await;
                    let output = match outcome {
                        Ok(r) => Output {
                            title: format!("{prompt} → messages"),
                            error: false,
                            lines: crate::render::prompt_result(&r)
                                .lines()
                                .map(str::to_owned)
                                .collect(),
                            scroll: 0,
                            ..Default::default()
                        },
                        Err(e) => failed(&format!("{prompt} → error"), &e),
                    };
                    let _ = events.send(Event::Output {
                        pane: Pane::Prompts,
                        output,
                    });
                });
            }
            Action::Complete {
                server,
                target,
                argument,
                value,
                context,
            } => {
                let Some(client) = self.manager().and_then(|m| m.client(&server)) else {
                    return;
                };
                let reference = match target {
                    FormTarget::Prompt { prompt, .. } => {
                        CompletionReference::Prompt(PromptReference {
                            name: prompt,
                            ..Default::default()
                        })
                    }
                    FormTarget::Template { template, .. } => {
                        CompletionReference::Resource(ResourceTemplateReference {
                            uri: template,
                            ..Default::default()
                        })
                    }
                    _ => return,
                };
                tokio::spawn(async move {
                    let params = CompleteRequestParams {
                        reference,
                        argument: CompletionArgument {
                            name: argument.clone(),
                            value,
                            extra: Map::new(),
                        },
                        context: (!context.is_empty()).then(|| CompletionContext {
                            arguments: Some(context),
                            extra: Map::new(),
                        }),
                        meta: None,
                        extra: Map::new(),
                    };
                    match client.complete(params, Default::default()).await {
                        Ok(r) => {
                            let _ = events.send(Event::Completions {
                                argument,
                                values: r.completion.values,
                            });
                        }
                        Err(e) => tracing::debug!(error = %e, "completion/complete failed"),
                    }
                });
            }
            Action::SaveMedia { stem, media } => {
                let notice = match save_media(&std::path::PathBuf::from("."), &stem, &media) {
                    Ok(names) => format!("saved {}", names.join(", ")),
                    Err(e) => format!("cannot save: {e}"),
                };
                let _ = events.send(Event::Notice(notice));
            }
            Action::SetLevel { server, level } => {
                let Some(client) = self.client(&server) else {
                    return;
                };
                tokio::spawn(async move {
                    let notice = match client
                        .set_logging_level(level.into(), Default::default())
                        .await
                    {
                        Ok(()) => format!("{server}: log level {level} (logging/setLevel)"),
                        Err(e) => format!("{server}: logging/setLevel: {e}"),
                    };
                    let _ = events.send(Event::Notice(notice));
                });
            }
            Action::Reconnect => {
                if let Some(call) = self.call.take() {
                    call.cancel();
                }
                lock(&self.listens).clear();
                let previous = lock(&self.manager).take();
                self.start_servers(previous);
            }
            Action::Refresh { server } => {
                let Some(manager) = self.manager() else {
                    return;
                };
                let orders = Arc::clone(&self.orders);
                tokio::spawn(async move {
                    let status = manager
                        .server_status(&server)
                        .unwrap_or(ServerStatus::Disabled);
                    let client = manager.client(&server);
                    let view = server_view(&server, &status, client.as_ref(), &orders).await;
                    let _ = events.send(Event::Server(Box::new(view)));
                });
            }
            Action::Answered {
                id,
                content,
                cancel,
            } => self.questions.answer(id, content, cancel),
        }
    }

    /// `resources/subscribe` (or unsubscribe); under 2026-07-28, which has
    /// none, a `subscriptions/listen` for the URI, held until unsubscribed.
    fn subscribe(&mut self, server: String, uri: String, on: bool) {
        let Some(client) = self.client(&server) else {
            return;
        };
        let events = self.events.clone();
        if client.protocol_version().is_stateless() {
            let key = (server.clone(), uri.clone());
            if !on {
                lock(&self.listens).remove(&key);
                let _ = events.send(Event::Subscribed { server, uri, on });
                return;
            }
            let filter = mcp_types::subscriptions::SubscriptionFilter {
                resource_subscriptions: Some(vec![uri.clone()]),
                ..Default::default()
            };
            let listens = Arc::clone(&self.listens);
            tokio::spawn(async move {
                match client.listen(filter, Default::default()).await {
                    Ok(subscription) => {
                        lock(&listens).insert(key, subscription);
                        let _ = events.send(Event::Subscribed { server, uri, on });
                    }
                    Err(e) => {
                        let _ = events.send(Event::Notice(format!(
                            "{server}: subscriptions/listen: {e}"
                        )));
                    }
                }
            });
            return;
        }
        tokio::spawn(async move {
            let outcome = if on {
                client.subscribe(uri.clone(), Default::default()).await
            } else {
                client.unsubscribe(uri.clone(), Default::default()).await
            };
            match outcome {
                Ok(()) => {
                    let _ = events.send(Event::Subscribed { server, uri, on });
                }
                Err(e) => {
                    let _ = events.send(Event::Notice(format!("{server}: {e}")));
                }
            }
        });
    }
}

/// The extension a file of `mime` gets.
fn extension(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        _ => "bin",
    }
}

/// Writes each of `media` to `dir` as `STEM-N.EXT`, never over an existing
/// file (the next free number is taken); returns the names written.
///
/// Errors: data that is not base64, or a file that cannot be written.
fn save_media(dir: &std::path::Path, stem: &str, media: &[Media]) -> Result<Vec<String>, String> {
    use base64::Engine as _;
    // A tool name is server text: only its plain characters name a file.
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut names = Vec::new();
    let mut n = 1;
    for m in media {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(m.data.trim())
            .map_err(|e| format!("{} data is not base64: {e}", m.mime))?;
        loop {
            let name = format!("{stem}-{n}.{}", extension(&m.mime));
            n += 1;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(dir.join(&name));
            match file {
                Ok(mut f) => {
                    std::io::Write::write_all(&mut f, &bytes)
                        .map_err(|e| format!("{name}: {e}"))?;
                    names.push(name);
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("{name}: {e}")),
            }
        }
    }
    Ok(names)
}

/// A failed request as an output. A server request that cannot reach this
/// client in the revision negotiated gets the command line's way out: the
/// library's error names its own API.
fn failed(title: &str, e: &ClientError) -> Output {
    let mut lines: Vec<String> = crate::exit::tidy(&e.to_string())
        .lines()
        .map(str::to_owned)
        .collect();
    if matches!(e, ClientError::ServerRequestNotInRevision { .. }) {
        lines.push(
            "hint: start mcp ui with --protocol-version handshake (or \"protocolVersion\": \"handshake\" in the server's entry)"
                .into(),
        );
    }
    Output {
        title: title.to_owned(),
        error: true,
        lines,
        scroll: 0,
        ..Default::default()
    }
}

/// About how many bytes `base64` text decodes to.
fn decoded_len(base64: &str) -> usize {
    base64.trim_end_matches('=').len() * 3 / 4
}

/// A tool's result, block by block by kind, then the structured content.
fn call_output(
    tool: &str,
    outcome: Result<CallToolResult, ClientError>,
    has_output_schema: bool,
) -> Output {
    let result = match outcome {
        Ok(r) => r,
        Err(e) if e.is_cancelled() => {
            return Output {
                title: format!("{tool} → cancelled"),
                error: false,
                lines: vec!["the call was cancelled (notifications/cancelled sent)".into()],
                scroll: 0,
                ..Default::default()
            };
        }
        Err(e) => return failed(&format!("{tool} → error"), &e),
    };
    let mut lines = Vec::new();
    let mut links = Vec::new();
    let mut media = Vec::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => lines.extend(t.text.lines().map(str::to_owned)),
            ContentBlock::Image(i) => {
                lines.push(format!(
                    "[image {}, {} bytes; w saves it]",
                    i.mime_type,
                    decoded_len(&i.data)
                ));
                media.push(Media {
                    mime: i.mime_type.clone(),
                    data: i.data.clone(),
                });
            }
            ContentBlock::Audio(a) => {
                lines.push(format!(
                    "[audio {}, {} bytes; w saves it]",
                    a.mime_type,
                    decoded_len(&a.data)
                ));
                media.push(Media {
                    mime: a.mime_type.clone(),
                    data: a.data.clone(),
                });
            }
            ContentBlock::ResourceLink(l) => {
                lines.push(format!(
                    "[resource link {} ({}){}{}]",
                    l.uri,
                    l.name,
                    l.mime_type
                        .as_deref()
                        .map(|m| format!(", {m}"))
                        .unwrap_or_default(),
                    if links.is_empty() { "; o opens it" } else { "" }
                ));
                links.push(l.uri.clone());
            }
            ContentBlock::Resource(r) => {
                lines.push(format!("[embedded resource {}]", contents_uri(&r.resource)));
                lines.extend(contents_lines(&r.resource));
            }
            other => lines.push(crate::render::content_block(other)),
        }
    }
    if let Some(s) = &result.structured_content {
        lines.push(if has_output_schema && result.is_error != Some(true) {
            "structuredContent (matches the outputSchema):".into()
        } else {
            "structuredContent:".into()
        });
        lines.extend(
            serde_json::to_string_pretty(s)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned),
        );
    }
    Output {
        title: format!("{tool} → result"),
        error: result.is_error == Some(true),
        lines,
        scroll: 0,
        links,
        media,
    }
}

fn contents_uri(c: &ResourceContents) -> String {
    match c {
        ResourceContents::Text(t) => match &t.mime_type {
            Some(m) => format!("{} ({m})", t.uri),
            None => t.uri.clone(),
        },
        ResourceContents::Blob(b) => match &b.mime_type {
            Some(m) => format!("{} ({m})", b.uri),
            None => b.uri.clone(),
        },
    }
}

fn contents_lines(c: &ResourceContents) -> Vec<String> {
    match c {
        ResourceContents::Text(t) => t.text.lines().map(str::to_owned).collect(),
        ResourceContents::Blob(b) => vec![format!("[binary, {} bytes]", decoded_len(&b.blob))],
    }
}

fn read_output(what: &str, outcome: Result<ReadResourceResult, ClientError>) -> Output {
    match outcome {
        Ok(r) => {
            let mut lines = Vec::new();
            for c in &r.contents {
                lines.push(format!("── {}", contents_uri(c)));
                lines.extend(contents_lines(c));
            }
            Output {
                title: format!("read {what}"),
                error: false,
                lines,
                scroll: 0,
                ..Default::default()
            }
        }
        Err(e) => failed(&format!("read {what} → error"), &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_are_saved_without_overwriting() {
        let dir = std::env::temp_dir().join(format!("mcp-ui-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("get_img-1.png"), b"keep").unwrap();
        let media = [
            Media {
                mime: "image/png".into(),
                data: "aGk=".into(),
            },
            Media {
                mime: "audio/wav".into(),
                data: "aGk=".into(),
            },
        ];
        let names = save_media(&dir, "get/img", &media).unwrap();
        assert_eq!(names, ["get_img-2.png", "get_img-3.wav"]);
        assert_eq!(std::fs::read(dir.join("get_img-1.png")).unwrap(), b"keep");
        assert_eq!(std::fs::read(dir.join("get_img-2.png")).unwrap(), b"hi");
        let bad = [Media {
            mime: "image/png".into(),
            data: "not base64!".into(),
        }];
        assert!(
            save_media(&dir, "x", &bad)
                .unwrap_err()
                .contains("not base64")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_result_shows_each_kind_of_block_and_is_error() {
        let result: CallToolResult = serde_json::from_value(serde_json::json!({
            "content": [
                {"type": "text", "text": "one\ntwo"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "audio", "data": "AAAAAA==", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///x", "name": "x"},
                {"type": "resource", "resource": {"uri": "demo://r", "text": "inside", "mimeType": "text/plain"}},
            ],
            "structuredContent": {"sum": 5},
            "isError": true
        }))
        .unwrap();
        let o = call_output("t", Ok(result), true);
        assert!(o.error);
        assert_eq!(
            o.lines,
            [
                "one",
                "two",
                "[image image/png, 3 bytes; w saves it]",
                "[audio audio/wav, 4 bytes; w saves it]",
                "[resource link file:///x (x); o opens it]",
                "[embedded resource demo://r (text/plain)]",
                "inside",
                "structuredContent:",
                "{",
                "  \"sum\": 5",
                "}",
            ]
        );
        assert_eq!(o.links, ["file:///x"]);
        assert_eq!(o.media.len(), 2);
    }
}
