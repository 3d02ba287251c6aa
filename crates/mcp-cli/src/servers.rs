//! Starting the servers: one [`Manager`] (from `mcp-manager`) over the
//! resolved configuration, tuned for a one-shot process, and the per-server
//! view the commands work on.

use std::sync::Arc;
use std::time::Duration;

use mcp_client::{Client, ClientOptions, ElicitationModes};
use mcp_manager::{
    Backoff, ListingFailure, Manager, ManagerOptions, McpConfig, RemoteKind, ServerConfig,
    ServerStatus, StartListings, TransportConfig, UnavailablePolicy,
};

use crate::form::{SchemaOrderTap, SchemaOrders};
use crate::handler::CliHandler;
use crate::ui::Ui;
use crate::wiretap::VerboseTap;

/// Settings shared by every connection.
#[derive(Debug, Clone)]
pub(crate) struct ConnectSettings {
    /// Per-request timeout; also the startup timeout of servers without
    /// their own `startupTimeout`.
    pub timeout: Duration,
    /// Log the JSON-RPC traffic.
    pub verbose: bool,
    /// Interactive elicitation allowed (no `--no-input`).
    pub allow_input: bool,
    /// The lists fetched when each server starts: what the command needs.
    pub listings: StartListings,
}

/// Slack on top of the longest startup timeout when waiting for every
/// server to settle: 5 000 ms (each server's own timeout ends its start).
const START_SLACK: Duration = Duration::from_millis(5_000);

/// One configured server, as the manager left it after startup.
#[derive(Debug)]
pub(crate) struct Server {
    /// Its name (config key, `demo`, or derived from the command/URL).
    pub name: String,
    /// Its status: `Connected` (with revision and counts), `Failed` (why),
    /// `Disabled`, …
    pub status: ServerStatus,
    /// The client, when connected.
    pub client: Option<Client>,
    /// The start-up listings that failed (their count in `status` is 0,
    /// but what they would hold is unknown).
    pub listing_failures: Vec<ListingFailure>,
}

impl Server {
    /// `true` when the server needs a login no one could be asked for.
    pub(crate) fn needs_login(&self) -> bool {
        matches!(self.status, ServerStatus::NeedsLogin { .. })
    }

    /// The client, or why there is none (`None` for a disabled server:
    /// skipped without a word).
    pub(crate) fn reach(&self) -> Result<&Client, Option<String>> {
        match (&self.client, &self.status) {
            (Some(c), _) => Ok(c),
            (None, ServerStatus::Disabled) => Err(None),
            (None, ServerStatus::Failed { why }) => Err(Some(why.clone())),
            (None, other) => Err(Some(other.to_string())),
        }
    }
}

/// The manager's options for the command line: the CLI's identity and
/// capabilities, its handler per server (log lines and forms name the
/// server), a wire tap on each connection that reads the order of each
/// requested schema's properties for the form (and shows the traffic with
/// `--verbose`), no on-disk tool cache (a one-shot
/// process lists afresh), the manager's revision memory (a handshake server gets
/// `initialize` at once on the next run), no reconnection (a server lost
/// mid-command fails that command).
pub(crate) fn manager_options(settings: &ConnectSettings, ui: &Arc<Ui>) -> ManagerOptions {
    let client = ClientOptions::new("mcp-cli", env!("CARGO_PKG_VERSION"))
        .with_title("mcp command line")
        .with_elicitation(ElicitationModes::form())
        .with_sampling(false)
        .with_extension(mcp_types::skills::SKILLS_EXTENSION, serde_json::json!({}))
        .with_request_timeout(settings.timeout)
        .with_initialize_timeout(settings.timeout);
    let form_lock = Arc::new(tokio::sync::Mutex::new(()));
    let orders = Arc::new(SchemaOrders::default());
    let tap_orders = Arc::clone(&orders);
    let ui = Arc::clone(ui);
    let allow_input = settings.allow_input;
    // One attempt allowed of none: the first disconnect makes the server Failed.
    let no_reconnect = Backoff::new(
        Duration::from_millis(1),
        Duration::from_millis(1),
        Some(0),
        0.0,
    )
    .unwrap_or_default();
    let options = ManagerOptions::from_client(client)
        // A one-shot process lists afresh; a library writes nothing unless
        // asked, and the command line asks for the revision memory only.
        .with_cache_dir(None)
        .with_revision_dir(mcp_manager::cache::default_revision_dir())
        .with_startup_timeouts(settings.timeout, settings.timeout)
        .with_backoff(no_reconnect)
        .with_unavailable(UnavailablePolicy::FailFast)
        .with_start_listings(settings.listings)
        .with_oauth(crate::auth::flow_for)
        .with_handler_per_server(move |config| {
            Arc::new(CliHandler::new(
                &config.name,
                Arc::clone(&ui),
                allow_input,
                Arc::clone(&form_lock),
                Arc::clone(&orders),
            ))
        });
    let verbose = settings.verbose;
    options.with_transport_layer(move |config, transport| {
        let shown: Option<Arc<dyn mcp_transport::WireTap>> = if verbose {
            Some(Arc::new(VerboseTap))
        } else {
            None
        };
        let tap = SchemaOrderTap::new(Arc::clone(&tap_orders), shown);
        if !transport.set_wire_tap(Arc::new(tap)) {
            tracing::debug!(server = %config.name, "this transport shows no traffic: --verbose shows none, and forms ask in name order");
        }
        transport
    })
}

/// How long to wait for every server of `config` to settle: the longest
/// startup timeout plus [`START_SLACK`].
pub(crate) fn start_bound(config: &McpConfig, settings: &ConnectSettings) -> Duration {
    config
        .servers
        .values()
        .filter(|s| !s.disabled)
        .map(|s| s.startup_timeout.unwrap_or(settings.timeout))
        .max()
        .unwrap_or_default()
        .saturating_add(START_SLACK)
}

/// Every configured server with its status and client, by name.
pub(crate) fn snapshot(manager: &Manager) -> Vec<Server> {
    manager
        .status()
        .into_iter()
        .map(|(name, status)| {
            let client = manager.client(&name).filter(Client::is_connected);
            let listing_failures = manager.listing_failures(&name);
            let status = match (status, manager.server_config(&name)) {
                (ServerStatus::Failed { why }, Some(config)) => match sse_hint(config, &why) {
                    Some(hint) => ServerStatus::Failed {
                        why: format!("{why}{}{hint}", crate::exit::HINT_MARK),
                    },
                    None => ServerStatus::Failed { why },
                },
                (status, _) => status,
            };
            Server {
                name,
                status,
                client,
                listing_failures,
            }
        })
        .collect()
}

/// What to tell about an HTTP+SSE entry (`--sse`, `"type": "sse"`) whose
/// start failed as a Streamable HTTP server makes the legacy transport fail:
/// its SSE stream's `GET` refused with a 4xx other than an authorization
/// status (a Streamable HTTP endpoint answers a `GET` without a session with
/// 400, 404 or 405), answered with JSON, or ended without the `endpoint`
/// event (a stream still open when the start timed out is not told apart
/// from a connection that never opened, so it gets no hint). The legacy
/// transport opens that stream when it connects, before any handshake, so
/// its failure is the whole reason (`HTTP 400: …`), never a `handshake
/// failed: …`. `None` for anything else.
fn sse_hint(config: &ServerConfig, why: &str) -> Option<String> {
    let TransportConfig::Remote(remote) = &config.transport else {
        return None;
    };
    if remote.kind != RemoteKind::Sse {
        return None;
    }
    let refused = why
        .strip_prefix("HTTP ")
        .and_then(|rest| rest.split_once(": "))
        .and_then(|(status, _)| status.parse::<u16>().ok())
        .filter(|s| (400..500).contains(s) && ![401, 403, 407].contains(s));
    let what = if let Some(status) = refused {
        format!("the server refused the HTTP+SSE stream (its GET answered HTTP {status})")
    } else if why.contains(" answered with Json, not text/event-stream") {
        "the server answered the HTTP+SSE stream's GET with JSON".to_owned()
    } else if why.contains("ended before the endpoint event") {
        "no `endpoint` event came on the HTTP+SSE stream".to_owned()
    } else {
        return None;
    };
    let fix = match &config.source {
        None => "drop --sse".to_owned(),
        Some(file) => format!("set \"type\": \"http\" in its entry in {}", file.display()),
    };
    Some(format!(
        "{what}: it may speak Streamable HTTP; {fix} (Streamable HTTP is the default, and falls \
         back to HTTP+SSE by itself for a server that speaks only that)"
    ))
}

/// `true` when `config` has at least one server that will be started.
pub(crate) fn any_enabled(config: &McpConfig) -> bool {
    config.servers.values().any(|s| !s.disabled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_manager::RemoteServer;

    fn entry(kind: RemoteKind, source: Option<&str>) -> ServerConfig {
        let mut config = ServerConfig::new(
            "s",
            TransportConfig::Remote(RemoteServer::new("http://127.0.0.1:9/mcp", kind)),
        );
        config.source = source.map(Into::into);
        config
    }

    #[test]
    fn an_sse_stream_refused_as_streamable_http_refuses_it_says_so() {
        let sse = entry(RemoteKind::Sse, None);
        for why in [
            "HTTP 400: {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: No valid session ID provided\"}}",
            "HTTP 405: Method Not Allowed",
            "HTTP 404: not found",
            "protocol error: legacy HTTP+SSE: GET http://127.0.0.1:9/mcp answered with Json, not text/event-stream",
            "connection closed: legacy SSE stream ended before the endpoint event",
        ] {
            let hint = sse_hint(&sse, why).unwrap_or_else(|| panic!("no hint for {why:?}"));
            assert!(hint.contains("Streamable HTTP; drop --sse"), "{hint}");
        }
        let file = entry(RemoteKind::Sse, Some("servers.json"));
        let hint = sse_hint(&file, "HTTP 405: no").unwrap();
        assert!(
            hint.contains(r#"set "type": "http" in its entry in servers.json"#),
            "{hint}"
        );
        // Not a sign of Streamable HTTP: a login, a server error, a
        // failure after the stream opened, another transport.
        for why in [
            "HTTP 401: unauthorized",
            "HTTP 403: forbidden",
            "HTTP 500: oops",
            "handshake failed: transport error: HTTP 400: bad",
            "startup timed out after 2000 ms (no answer to the handshake)",
            "startup timed out after 2000 ms (connecting)",
            "connection refused",
        ] {
            assert_eq!(sse_hint(&sse, why), None, "{why}");
        }
        let streamable = entry(RemoteKind::StreamableHttp, None);
        assert_eq!(sse_hint(&streamable, "HTTP 405: no"), None);
    }
}
