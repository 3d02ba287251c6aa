//! `run`: resolves the targets, starts the servers and runs the command.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_client::CancellationToken;
use mcp_manager::{Manager, StartListings};

use super::Session;
use super::precheck::precheck;
use crate::cli::{Cli, Command};
use crate::exit::Failure;
use crate::servers::{self, ConnectSettings};
use crate::targets;
use crate::ui::Ui;

/// After Ctrl-C, how long the cancelled requests' notifications/cancelled
/// get to be sent before the connections close: 200 ms.
const CANCEL_FLUSH: Duration = Duration::from_millis(200);

/// The longest `--timeout` and `--discover-timeout` taken: a week
/// (604 800 s); a larger value is taken as this one (deadlines are computed
/// by adding it to the clock).
const MAX_TIMEOUT: Duration = Duration::from_secs(7 * 24 * 3600);

/// Runs the command line; returns the exit code.
///
/// Errors: a [`Failure`] carrying its exit code and message.
pub(crate) async fn run(cli: Cli, ui: Arc<Ui>, cancel: CancellationToken) -> Result<u8, Failure> {
    // Logins are managed without starting any server.
    if let Some(result) = crate::auth::run(&cli, &cancel).await {
        return result;
    }
    if let Command::Doctor { target } = &cli.command {
        crate::auth::choose_store(
            cli.credential_store.as_deref(),
            crate::auth::store_setting(&cli).as_deref(),
        )
        .await?;
        return until_cancelled(&cancel, crate::doctor::run(&cli, target.as_deref()))
            .await
            .and_then(|r| r);
    }
    // Word counts and argument syntax are checked before any server starts.
    precheck(&cli.command)?;
    let mut config = targets::resolve(&cli)?;
    let mut rejected = BTreeMap::new();
    for e in &config.errors {
        if let Some(name) = &e.server {
            rejected
                .entry(name.clone())
                .or_insert_with(|| format!("{}: {}", e.path, e.kind));
        }
    }
    // A bad entry is skipped with a warning; the good ones still run.
    for e in &config.errors {
        ui.line(&format!("mcp: warning: {e}"));
    }
    if !servers::any_enabled(&config) {
        return Err(Failure::new(if rejected.is_empty() {
            "the configuration lists no enabled server"
        } else {
            "no server to run: the configuration's entries were rejected (see the warnings above)"
        }));
    }
    // Logins are read from the chosen store only when a server may need one.
    let remote_oauth = config.servers.values().any(|s| {
        !s.disabled
            && matches!(&s.transport, mcp_manager::TransportConfig::Remote(r) if r.wants_oauth())
    });
    if remote_oauth {
        crate::auth::choose_store(
            cli.credential_store.as_deref(),
            crate::auth::store_setting(&cli).as_deref(),
        )
        .await?;
    }
    let discover_timeout = match cli.discover_timeout {
        Some(secs) if secs.is_finite() && secs > 0.0 => {
            Some(Duration::from_secs_f64(secs.min(MAX_TIMEOUT.as_secs_f64())))
        }
        Some(secs) => {
            return Err(Failure::new(format!(
                "--discover-timeout {secs}: expected a number of seconds above 0"
            )));
        }
        None => None,
    };
    // The command line's choices apply to every entry that makes none of its own.
    for server in config.servers.values_mut() {
        server.protocol_version = server.protocol_version.or(cli.protocol_version);
        server.discover_timeout = server.discover_timeout.or(discover_timeout);
        if let (
            mcp_manager::TransportConfig::Remote(remote),
            Some(mcp_manager::VersionPreference::Only(v)),
        ) = (&server.transport, server.protocol_version)
            && remote.kind == mcp_manager::RemoteKind::Sse
            && v.is_stateless()
        {
            return Err(Failure::new(format!(
                "server {}: the HTTP+SSE transport (--sse, type \"sse\") carries only the handshake revisions, not {v}",
                server.name
            )));
        }
    }
    // A command about one server starts only that one: the others would
    // cost their start (a slow one, the whole startup timeout) for nothing.
    if let Some(only) = named_servers(&cli.command, &config) {
        for server in config.servers.values_mut() {
            if !only.contains(&server.name) {
                server.disabled = true;
            }
        }
    }
    let settings = ConnectSettings {
        timeout: Duration::from_secs(cli.timeout.clamp(1, MAX_TIMEOUT.as_secs())),
        verbose: cli.verbose,
        allow_input: !cli.no_input,
        listings: listings_for(&cli.command),
    };
    if matches!(cli.command, Command::Ui) {
        return crate::explorer::run(config, settings, cancel).await;
    }
    let bound = servers::start_bound(&config, &settings);
    let starting: Vec<String> = config
        .servers
        .values()
        .filter(|s| !s.disabled)
        .map(|s| s.name.clone())
        .collect();
    let manager = Manager::start(config, servers::manager_options(&settings, &ui)).await;
    let started = ui.while_starting(&starting, manager.wait_started(bound));
    let outcome = match until_cancelled(&cancel, started).await {
        Err(f) => Err(f),
        Ok(_) => {
            let session = Session {
                servers: servers::snapshot(&manager),
                manager: manager.clone(),
                rejected,
                ui: Arc::clone(&ui),
                json: cli.json,
                cancel: cancel.clone(),
                warned: Default::default(),
                running_tasks: Default::default(),
            };
            let outcome = until_cancelled(&cancel, session.dispatch(cli.command))
                .await
                .and_then(|r| r);
            if matches!(&outcome, Err(f) if crate::exit::is_interrupted(f.code)) {
                session.cancel_tasks().await;
            }
            outcome
        }
    };
    ui.finish();
    let interrupted = matches!(&outcome, Err(f) if crate::exit::is_interrupted(f.code));
    if interrupted {
        // The transport sends notifications/cancelled from a task of its own;
        // let it go out before the connections close.
        tokio::time::sleep(CANCEL_FLUSH).await;
    }
    // Taken before the shutdown, which ends every connection.
    let up = if interrupted {
        servers_still_up(&manager)
    } else {
        Vec::new()
    };
    let shutdown = manager.shutdown();
    tokio::pin!(shutdown);
    // A signal while the servers stop (after a command that ended by
    // itself, or a second one after Ctrl-C) means: do not wait for them.
    let insisted = async {
        if interrupted {
            crate::exit::insisted().await;
        } else {
            cancel.cancelled().await;
        }
    };
    tokio::pin!(insisted);
    if interrupted {
        tokio::select! {
            () = &mut shutdown => return outcome,
            () = &mut insisted => {
                kill(&manager, shutdown).await;
                return outcome;
            }
            () = tokio::time::sleep(SLOW_STOP_NOTICE) => {
                // A server that ignores notifications/cancelled and does not
                // end when its input closes holds the exit up: say so.
                eprintln!("{}", waiting_for_exit(&up));
            }
        }
    }
    tokio::select! {
        () = &mut shutdown => {}
        () = &mut insisted => kill(&manager, shutdown).await,
    }
    outcome
}

/// The configured servers `command` is about, read as the command reads
/// its words (`call` and `prompt`: a first word naming a server, followed
/// by a name; `read`, `skill`: the first of two words; `complete`: the
/// first of five), or else by the qualified name it takes (`call`,
/// `prompt`, `complete prompt`: `server__name`, see [`qualified_owners`]);
/// `None` when it is about every server.
fn named_servers(command: &Command, config: &mcp_manager::McpConfig) -> Option<BTreeSet<String>> {
    let configured = |name: &str| config.servers.contains_key(name);
    let (name, qualified) = match command {
        Command::Tools { server, .. }
        | Command::Resources { server }
        | Command::Prompts { server }
        | Command::Skills { server }
        | Command::Ping { server }
        | Command::Tasks { server }
        | Command::Log { server, .. } => (server.as_deref(), None),
        Command::Call {
            words,
            from_model: None,
            ..
        }
        | Command::Prompt { words, .. } => match words.as_slice() {
            [first, second, ..] if configured(first) && !crate::arguments::is_argument(second) => {
                (Some(first.as_str()), None)
            }
            [first, ..] => (None, Some(first.as_str())),
            [] => (None, None),
        },
        Command::Read { words } | Command::Skill { words, .. } => match words.as_slice() {
            [first, _] => (Some(first.as_str()), None),
            _ => (None, None),
        },
        Command::Complete { words, .. } => match words.as_slice() {
            [first, _, _, _, _] => (Some(first.as_str()), None),
            [kind, reference, _, _] if kind == "prompt" => (None, Some(reference.as_str())),
            _ => (None, None),
        },
        _ => (None, None),
    };
    if let Some(name) = name.filter(|n| configured(n)) {
        return Some(BTreeSet::from([name.to_owned()]));
    }
    qualified
        .map(|q| qualified_owners(q, config))
        .filter(|owners| !owners.is_empty())
}

/// The configured servers a qualified name (`server__name`, as
/// `mcp-manager` names items in its one namespace) may belong to: each one
/// whose sanitized name, then [`SEPARATOR`](mcp_manager::naming::SEPARATOR),
/// starts it. Several when sanitized names collide (`my.srv`, `my_srv`);
/// none for a plain name, or one whose server part the namespace cut to
/// its length limit (then every server starts, as for a plain name).
fn qualified_owners(qualified: &str, config: &mcp_manager::McpConfig) -> BTreeSet<String> {
    use mcp_manager::naming::{SEPARATOR, sanitize};
    config
        .servers
        .keys()
        .filter(|server| {
            qualified
                .strip_prefix(&sanitize(server))
                .and_then(|rest| rest.strip_prefix(SEPARATOR))
                .is_some_and(|name| !name.is_empty())
        })
        .cloned()
        .collect()
}

/// After Ctrl-C, how long stopping the servers may take before `mcp` says
/// what it waits for: 300 ms.
const SLOW_STOP_NOTICE: Duration = Duration::from_millis(300);

/// After the servers were killed, how long `mcp` still waits for the
/// shutdown to finish (a stdio server is reaped within moments; an HTTP
/// session's `DELETE` is abandoned): 1 000 ms.
const KILLED_STOP_WAIT: Duration = Duration::from_millis(1_000);

/// Ends every stdio server at once ([`Manager::kill`]) and lets `shutdown`
/// finish within [`KILLED_STOP_WAIT`].
async fn kill(manager: &Manager, shutdown: std::pin::Pin<&mut impl Future<Output = ()>>) {
    eprintln!("mcp: killing the servers still running (SIGKILL)");
    manager.kill().await;
    if tokio::time::timeout(KILLED_STOP_WAIT, shutdown)
        .await
        .is_err()
    {
        tracing::warn!("the servers' shutdown did not finish after they were killed; exiting");
    }
}

/// The servers that were connected (or still starting) when the command
/// ended: the ones `mcp` may be waiting on to exit.
fn servers_still_up(manager: &Manager) -> Vec<String> {
    manager
        .status()
        .into_iter()
        .filter(|(_, status)| {
            matches!(
                status,
                mcp_manager::ServerStatus::Connected { .. } | mcp_manager::ServerStatus::Starting
            )
        })
        .map(|(name, _)| name)
        .collect()
}

/// The line shown while `mcp` waits for servers to exit after Ctrl-C: a
/// stdio server has its input closed, then gets SIGTERM after
/// [`mcp_transport_stdio::DEFAULT_SHUTDOWN_GRACE`] and SIGKILL after
/// [`mcp_transport_stdio::SIGTERM_GRACE`] more.
fn waiting_for_exit(names: &[String]) -> String {
    let who = match names {
        [] => "the servers".to_owned(),
        [one] => format!("server {}", crate::output::visible(one)),
        many => format!(
            "servers {}",
            many.iter()
                .map(|n| crate::output::visible(n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "mcp: waiting for {who} to exit (the request was cancelled and its input \
         closed; a stdio server is sent SIGTERM after {} s, SIGKILL {} s later; \
         press Ctrl-C again to kill now)",
        mcp_transport_stdio::DEFAULT_SHUTDOWN_GRACE.as_secs(),
        mcp_transport_stdio::SIGTERM_GRACE.as_secs(),
    )
}

/// Runs `fut` unless Ctrl-C comes first (dropping it cancels its requests).
async fn until_cancelled<T>(
    cancel: &CancellationToken,
    fut: impl Future<Output = T>,
) -> Result<T, Failure> {
    tokio::select! {
        value = fut => Ok(value),
        () = cancel.cancelled() => Err(Failure::interrupted()),
    }
}

/// The lists a command needs when its servers start: `servers` shows every
/// count; `tools` and `call` need the tools (to find and type a tool, from
/// the manager's list); the prompt and resource commands list what they
/// need themselves (with each listing's problems to report), so a list
/// fetched at the start would be fetched twice; `ping` needs none.
fn listings_for(command: &Command) -> StartListings {
    let only = |tools, prompts, resources| {
        StartListings::NONE
            .with_tools(tools)
            .with_prompts(prompts)
            .with_resources(resources)
    };
    match command {
        Command::Servers => StartListings::ALL,
        Command::Tools { .. } | Command::Call { .. } => only(true, false, false),
        Command::Prompts { .. }
        | Command::Prompt { .. }
        | Command::Complete { .. }
        | Command::Resources { .. }
        | Command::Read { .. }
        | Command::Ping { .. }
        | Command::Skills { .. }
        | Command::Skill { .. }
        | Command::ServeDemo
        | Command::Ui
        | Command::Tasks { .. }
        | Command::Task { .. }
        | Command::Log { .. }
        | Command::Watch { .. }
        | Command::Doctor { .. }
        | Command::Login(_)
        | Command::Logout(_)
        | Command::Auth { .. } => StartListings::NONE,
    }
}
