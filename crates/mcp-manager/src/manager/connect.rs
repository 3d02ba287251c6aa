//! Opening one server: transport, handshake and first listings, all within
//! the server's startup timeout.

use std::sync::Arc;
use std::time::Duration;

use mcp_client::{Client, ClientError, VersionPreference};
use mcp_transport::{AuthErrorKind, Transport};
use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};
use mcp_transport_socket::{SocketAddress, SocketConfig, SocketTransport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};

use super::handler::{ListeningHandler, Signals};
use crate::config::{RemoteKind, RemoteServer, ServerConfig, TransportConfig};
use crate::error::error_chain;
use crate::namespace::{List, ListedAt, ServerLists};
use crate::options::{ManagerOptions, StartListings};
use crate::revision_memory::{RevisionHint, RevisionMemory};

/// A live connection to one server: its client, transport, process and lists.
pub(crate) struct LiveServer {
    pub(crate) client: Client,
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) pid: Option<u32>,
    pub(crate) signals: Arc<Signals>,
    pub(crate) lists: ServerLists,
}

/// Every stdio server the manager started and has not yet seen reaped, as
/// weak handles (they keep no transport alive and change no drop order),
/// so that [`Manager::kill`](super::Manager::kill) reaches servers being
/// started, connected or being shut down alike.
#[derive(Default)]
pub(crate) struct StdioServers(std::sync::Mutex<Vec<std::sync::Weak<StdioTransport>>>);

impl StdioServers {
    /// Remembers `server`, forgetting those already dropped.
    fn register(&self, server: &Arc<StdioTransport>) {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|w| w.strong_count() > 0);
        all.push(Arc::downgrade(server));
    }

    /// SIGKILL to the process group of every server still alive
    /// ([`StdioTransport::kill`]).
    pub(crate) fn kill_all(&self) {
        let alive: Vec<Arc<StdioTransport>> = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .collect();
        for server in alive {
            server.kill();
        }
    }
}

/// The startup timeout of `config` under `options`.
pub(crate) fn startup_timeout(config: &ServerConfig, options: &ManagerOptions) -> Duration {
    config.startup_timeout.unwrap_or(match config.transport {
        TransportConfig::Stdio(_) => options.stdio_startup_timeout,
        _ => options.http_startup_timeout,
    })
}

/// Opens `config`: transport, handshake, listings. On failure or timeout
/// before the handshake completed, a stdio server is killed at once (see
/// [`discard_unstarted`]); otherwise the transport is closed (bounded by
/// `options.shutdown_timeout`) before returning why.
///
/// With the automatic preference, a handshake revision the server answered
/// with before ([`crate::revision_memory`]), or the handshake revision it was found to need
/// for its server-initiated requests (`hint`, in this process; the
/// revision memory, across processes), is asked for at once; when that handshake
/// fails, the memory is dropped and the server probed again within the same
/// startup timeout.
pub(crate) async fn open(
    config: &ServerConfig,
    options: &ManagerOptions,
    stdio_servers: &StdioServers,
    hint: &Arc<RevisionHint>,
) -> Result<LiveServer, StartFailure> {
    let limit = startup_timeout(config, options);
    let deadline = tokio::time::Instant::now() + limit;
    let memory = options.revision_dir.as_ref().map(RevisionMemory::new);
    let auto = preference(config, options) == VersionPreference::Auto;
    let remembered =
        auto && (hint.handshake_only() || memory.as_ref().and_then(|m| m.recall(config)).is_some());
    let outcome = match open_once(config, options, stdio_servers, deadline, remembered, hint).await
    {
        Err(Failed {
            why,
            handshake: true,
            needs_login: false,
        }) if remembered => {
            tracing::info!(server = %config.name, %why, "the remembered handshake revision did not hold; probing again");
            hint.forget();
            if let Some(m) = &memory
                && let Err(e) = m.forget(config)
            {
                tracing::debug!(server = %config.name, error = %e, "revision memory not cleared");
            }
            open_once(config, options, stdio_servers, deadline, false, hint).await
        }
        outcome => outcome,
    };
    match outcome {
        Ok(conn) => {
            if auto
                && let Some(m) = &memory
                && let Err(e) = m.remember(config, conn.client.protocol_version())
            {
                tracing::debug!(server = %config.name, error = %e, "revision memory not written");
            }
            Ok(conn)
        }
        Err(failed) => Err(StartFailure {
            why: failed.why,
            needs_login: failed.needs_login,
        }),
    }
}

/// Why a server could not be opened.
pub(crate) struct StartFailure {
    /// In one line, no secrets.
    pub(crate) why: String,
    /// The server wants a login that no one could be asked for (the auth
    /// hook's `NeedsLogin`): retrying cannot help.
    pub(crate) needs_login: bool,
}

/// Why an attempt to open a server failed, and whether it was the
/// handshake that failed (not the transport, not a listing).
struct Failed {
    why: String,
    handshake: bool,
    needs_login: bool,
}

impl From<String> for Failed {
    fn from(why: String) -> Self {
        Failed {
            why,
            handshake: false,
            needs_login: false,
        }
    }
}

/// `true` when `e` is the auth hook's "log in first".
fn needs_login(e: &ClientError) -> bool {
    e.transport_error()
        .and_then(|t| t.auth_kind())
        .is_some_and(|kind| kind == AuthErrorKind::NeedsLogin)
}

/// The revisions `config` negotiates under `options`: the entry's own
/// `protocolVersion`, else the client's; a handshake revision for HTTP+SSE.
fn preference(config: &ServerConfig, options: &ManagerOptions) -> VersionPreference {
    let version = config.protocol_version.unwrap_or(options.client.version);
    match &config.transport {
        // The HTTP+SSE transport belongs to the handshake revisions: probing a
        // stateless revision over it would settle on a revision it cannot
        // carry.
        TransportConfig::Remote(RemoteServer {
            kind: RemoteKind::Sse,
            ..
        }) if !matches!(version, VersionPreference::Only(v) if v.uses_handshake()) => {
            VersionPreference::Handshake
        }
        _ => version,
    }
}

/// One attempt of [`open`], until `deadline`; `handshake_only` asks for the
/// a handshake revision without a probe. The client's handler tells `hint` when
/// the server could not send a server-initiated request.
async fn open_once(
    config: &ServerConfig,
    options: &ManagerOptions,
    stdio_servers: &StdioServers,
    deadline: tokio::time::Instant,
    handshake_only: bool,
    hint: &Arc<RevisionHint>,
) -> Result<LiveServer, Failed> {
    let limit = startup_timeout(config, options);
    let signals = Arc::new(Signals::default());
    let connecting = tokio::time::timeout_at(deadline, make_transport(config, options));
    let (transport, pid, stdio) = match connecting.await {
        Ok(Ok(t)) => {
            if let Some(stdio) = &t.2 {
                stdio_servers.register(stdio);
            }
            t
        }
        Ok(Err(why)) => return Err(why.into()),
        Err(_) => {
            return Err(format!(
                "startup timed out after {} ms (connecting)",
                limit.as_millis()
            )
            .into());
        }
    };
    let transport = match &options.transport_layer {
        Some(layer) => layer(config, transport),
        None => transport,
    };
    let inner = match &options.handler_per_server {
        Some(factory) => factory(config),
        None => options.client.handler.clone(),
    };
    let mut client_options = options.client.clone();
    client_options.handler = Arc::new(ListeningHandler {
        inner,
        signals: signals.clone(),
        revision_hint: hint.clone(),
    });
    client_options.initialize_timeout = limit;
    if let Some(t) = config.timeout {
        client_options.request_timeout = t;
    }
    if let Some(t) = config.discover_timeout {
        client_options.discover_timeout = t;
    }
    client_options.version = if handshake_only {
        VersionPreference::Handshake
    } else {
        preference(config, options)
    };
    // The manager refreshes tool lists itself.
    client_options.auto_refresh_tools = false;
    // A grant without a person declares its authorization extension in
    // the client's capabilities (ext-auth).
    #[cfg(feature = "oauth")]
    if let Some(extension) = options
        .oauth
        .as_ref()
        .and_then(|factory| factory(config))
        .and_then(|oauth| oauth.grant().map(|g| g.extension()))
    {
        client_options = client_options.with_extension(extension, serde_json::json!({}));
    }

    let mut initialized = false;
    let mut login_needed = false;
    let handshake = async {
        let client = Client::connect_shared(transport.clone(), client_options)
            .await
            .map_err(|e| {
                login_needed = needs_login(&e);
                if e.is_timeout() {
                    // the client's own initialize timeout (= the startup timeout)
                    format!(
                        "startup timed out after {} ms (no answer to the handshake)",
                        limit.as_millis()
                    )
                } else if login_needed {
                    // The transport's "authorization needs login for <url>:
                    // <what to do>"; "handshake failed" would only hide it.
                    e.transport_error()
                        .map_or_else(|| error_chain(&e), |t| error_chain(t))
                } else {
                    format!("handshake failed: {}", error_chain(&e))
                }
            })?;
        initialized = true;
        let lists = list_everything(&client, options.start_listings, &signals)
            .await
            .map_err(|e| {
                login_needed = needs_login(&e);
                format!("listing failed: {}", error_chain(&e))
            })?;
        Ok::<_, String>((client, lists))
    };
    let outcome = match tokio::time::timeout_at(deadline, handshake).await {
        Ok(r) => r,
        Err(_) => Err(format!(
            "startup timed out after {} ms (no answer to the handshake or listings)",
            limit.as_millis()
        )),
    };
    // A stdio server's last stderr lines often say why it never answered.
    let outcome = outcome.map_err(|why| match stdio.as_ref().and_then(|t| t.stderr_tail()) {
        Some(tail) if why.starts_with("startup timed out") => {
            format!("{why}; stderr tail: {}", tail.trim_end())
        }
        _ => why,
    });
    match outcome {
        Ok((client, lists)) => Ok(LiveServer {
            client,
            transport,
            pid,
            signals,
            lists,
        }),
        Err(why) => {
            match stdio {
                Some(stdio) if !initialized => {
                    discard_unstarted(transport, stdio, options.shutdown_timeout).await;
                }
                _ => close_bounded(&transport, options.shutdown_timeout).await,
            }
            Err(Failed {
                why,
                handshake: !initialized && !login_needed,
                needs_login: login_needed,
            })
        }
    }
}

/// Ends a stdio server that never completed the handshake: no stdin EOF
/// and grace period (it has nothing to finish), its process group gets
/// SIGKILL at once. The handles are dropped; when `stdio` was the last one,
/// its `Drop` kills the group synchronously and the transport's supervisor
/// reaps the child. When another handle is still alive (a transport layer
/// kept one), this falls back to [`close_bounded`] with `bound` (ms).
async fn discard_unstarted(
    transport: Arc<dyn Transport>,
    stdio: Arc<StdioTransport>,
    bound: Duration,
) {
    drop(transport);
    match Arc::try_unwrap(stdio) {
        Ok(stdio) => {
            tracing::debug!(server = %stdio.label(), "server did not start; killing its process group");
            drop(stdio);
        }
        Err(shared) => {
            let transport: Arc<dyn Transport> = shared;
            close_bounded(&transport, bound).await;
        }
    }
}

/// Closes `transport`, giving up after `bound` (dropping the last handle
/// of a stdio transport then kills its process group).
pub(crate) async fn close_bounded(transport: &Arc<dyn Transport>, bound: Duration) {
    match tokio::time::timeout(bound, transport.close()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(error = %e, "close failed"),
        Err(_) => tracing::warn!(
            bound_ms = bound.as_millis() as u64,
            "close did not finish in time"
        ),
    }
}

async fn make_transport(
    config: &ServerConfig,
    options: &ManagerOptions,
) -> Result<(Arc<dyn Transport>, Option<u32>, Option<Arc<StdioTransport>>), String> {
    match &config.transport {
        TransportConfig::Stdio(s) => {
            let mut stdio = StdioConfig::new(s.command.clone())
                .with_args(s.args.iter().cloned())
                .with_shutdown_grace(options.stdio_shutdown_grace)
                .with_label(config.name.clone());
            for (k, v) in &s.env {
                stdio = stdio.with_env(k.clone(), v.clone());
            }
            if let Some(cwd) = &s.cwd {
                stdio = stdio.with_cwd(cwd.clone());
            }
            let t = StdioTransport::spawn(stdio)
                .await
                .map_err(|e| error_chain(&e))?;
            let pid = t.pid();
            let t = Arc::new(t);
            Ok((t.clone(), pid, Some(t)))
        }
        TransportConfig::Socket(s) => {
            let address = SocketAddress::parse(&s.address).map_err(|e| error_chain(&e))?;
            let socket = SocketConfig::new(address).with_label(config.name.clone());
            let t = SocketTransport::connect(socket)
                .await
                .map_err(|e| error_chain(&e))?;
            Ok((Arc::new(t), None, None))
        }
        TransportConfig::Remote(r) => {
            let mut http = HttpConfig::new(r.url.clone()).with_label(config.name.clone());
            for (k, v) in &r.headers {
                http = http.with_header(k.clone(), v.clone());
            }
            #[cfg(feature = "oauth")]
            if let Some(oauth) = options.oauth.as_ref().and_then(|factory| factory(config)) {
                http = http.with_auth_provider(oauth.provider());
            }
            let mode = match r.kind {
                RemoteKind::StreamableHttp => HttpMode::Auto,
                RemoteKind::Sse => HttpMode::Legacy,
            };
            let t = HttpTransport::connect(http, mode)
                .await
                .map_err(|e| error_chain(&e))?;
            Ok((Arc::new(t), None, None))
        }
    }
}

/// Tools (required when the server declares `tools`), prompts and
/// resources (a failure of these two is logged, yields an empty list and is
/// recorded in [`ServerLists::failures`], so a status can show the error
/// instead of a count of 0), each as far as `want` asks for it. Each list
/// records how many of its `list_changed` the connection (`signals`) had
/// received when it was requested ([`ServerLists::listed_at`]).
pub(crate) async fn list_everything(
    client: &Client,
    want: StartListings,
    signals: &Signals,
) -> Result<ServerLists, ClientError> {
    let caps = client.server_capabilities();
    let mut listed_at = ListedAt::default();
    let tools = if want.tools && caps.tools.is_some() {
        listed_at.set(List::Tools, signals.tools.requested_now());
        client.list_all_tools(Default::default()).await?
    } else {
        Vec::new()
    };
    let mut lists = ServerLists {
        tools: Arc::new(tools.into_iter().map(Arc::new).collect()),
        ..ServerLists::default()
    };
    if want.prompts && caps.prompts.is_some() {
        listed_at.set(List::Prompts, signals.prompts.requested_now());
        let prompts = list_optional(
            "prompts/list",
            client.list_all_prompts(Default::default()).await,
            &mut lists,
        );
        lists.prompts = Arc::new(prompts);
    }
    if want.resources && caps.resources.is_some() {
        listed_at.set(List::Resources, signals.resources.requested_now());
        let resources = list_optional(
            "resources/list",
            client.list_all_resources(Default::default()).await,
            &mut lists,
        );
        lists.resources = Arc::new(resources);
    }
    lists.listed_at = listed_at;
    Ok(lists)
}

fn list_optional<T>(
    method: &str,
    result: Result<Vec<T>, ClientError>,
    lists: &mut ServerLists,
) -> Vec<T> {
    match result {
        Ok(items) => items,
        Err(e) => {
            let error = error_chain(&e);
            tracing::warn!(method, error = %error, "listing failed; treated as empty");
            lists.record(method, Some(error));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use crate::error::error_chain;

    /// One level of an error chain: its own text and its cause.
    #[derive(Debug)]
    struct Level(&'static str, Option<Box<Level>>);

    impl fmt::Display for Level {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Level {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|l| l as _)
        }
    }

    /// Each level once, in order, even when its text is part of an outer
    /// level's text (a substring test would drop it).
    #[test]
    fn every_level_of_the_chain_is_said_once() {
        for (levels, said) in [
            (&["handshake failed"][..], "handshake failed"),
            (
                &["server \"a\"", "connection closed", "broken pipe"][..],
                "server \"a\": connection closed: broken pipe",
            ),
            (
                &["reading the response body", "body"][..],
                "reading the response body: body",
            ),
            (
                &["timed out after 5 ms", "", "timed out"][..],
                "timed out after 5 ms: timed out",
            ),
        ] {
            let chain = levels
                .iter()
                .rev()
                .fold(None, |cause, text| Some(Level(text, cause.map(Box::new))))
                .unwrap();
            assert_eq!(error_chain(&chain), said, "{levels:?}");
        }
    }
}
