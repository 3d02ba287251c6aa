//! `mcp ui`: a terminal explorer of the servers the command line resolved
//! (ratatui on crossterm). The state and its keys are in [`app`], drawing
//! in [`view`], what the connections report in [`bridge`]; this module
//! owns the terminal; [`runtime`] carries out what the state asks for,
//! `output.rs` turns what comes back into the panes' text.
//!
//! The terminal (raw mode, the alternate screen, mouse capture) is given
//! back on every way out: `q` and Ctrl-C (keys in raw mode), SIGTERM and SIGHUP (the command's cancellation), an error
//! (the guard's drop) and a panic (the hook restores it before the panic
//! message is printed). A server that dies is shown as closed; the
//! explorer goes on.

pub(crate) mod app;
pub(crate) mod bridge;
mod output;
mod runtime;
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
    TaskEntry, TaskSupport,
};
use bridge::{Events, Questions, ToolOrders, UiHandler, UiTap};

pub(crate) use bridge::{LogWriter, capture_log, log_captured};
use runtime::{Listens, Runtime, Tasks};

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
        crossterm::event::DisableMouseCapture,
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
            crossterm::cursor::Hide,
            crossterm::event::EnableMouseCapture
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
        tasks: Tasks::default(),
        login: None,
    };
    runtime.start_servers(None);
    #[cfg(debug_assertions)]
    let test_panic_marker = std::env::var(TEST_PANIC_VAR).ok();
    loop {
        let mut actions = Vec::new();
        tokio::select! {
            Some(input) = keys.recv() => match input {
                crossterm::event::Event::Key(key)
                    if key.kind != crossterm::event::KeyEventKind::Release =>
                {
                    #[cfg(debug_assertions)]
                    test_panic(test_panic_marker.as_deref(), &key);
                    actions.extend(app.key(key));
                }
                crossterm::event::Event::Mouse(mouse) => {
                    let size = terminal.size().unwrap_or_default();
                    actions.extend(app.mouse(mouse, size.width, size.height));
                }
                _ => {}
            },
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
    runtime.tasks.stop();
    runtime.stop_login();
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
        tasks: task_support(&caps, client.protocol_version()),
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
    if view.info.as_ref().is_some_and(|i| i.tasks.list) {
        match client.tasks_listing(options()).await {
            Ok(l) => view.tasks = l.items.into_iter().map(TaskEntry::new).collect(),
            Err(e) => view.problems.push(format!("tasks/list: {e}")),
        }
    }
    view.tool_orders = orders.of(&view.name);
}

/// What `caps` declare of tasks, in a revision that has them (2025-11-25).
fn task_support(
    caps: &mcp_types::lifecycle::ServerCapabilities,
    revision: mcp_types::ProtocolVersion,
) -> TaskSupport {
    let Some(tasks) = caps.tasks.as_ref().filter(|_| revision.has_tasks()) else {
        return TaskSupport::default();
    };
    TaskSupport {
        declared: true,
        list: tasks.list.is_some(),
        cancel: tasks.cancel.is_some(),
        tool_calls: mcp_client::capabilities::supports_tool_tasks(caps),
    }
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
