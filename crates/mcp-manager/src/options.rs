//! [`ManagerOptions`]: startup timeouts, the on-disk memory (tool cache and
//! revision memory, both off unless asked for), reconnection backoff, the call
//! policy while a server is not connected, shutdown bound.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_client::{ClientHandler, ClientOptions};
use mcp_transport::Transport;

use crate::config::ServerConfig;
use mcp_transport::Backoff;

/// Builds the [`ClientHandler`] of one server's client from its
/// configuration (e.g. to prefix its log messages with the server's name);
/// see [`ManagerOptions::handler_per_server`]. Called once per connection
/// (first start and each reconnection).
pub type HandlerFactory = Arc<dyn Fn(&ServerConfig) -> Arc<dyn ClientHandler> + Send + Sync>;

/// Wraps one server's transport before its client uses it (e.g. to log the
/// JSON-RPC traffic); see [`ManagerOptions::transport_layer`]. Called once
/// per connection, after the transport is spawned or connected.
pub type TransportLayer =
    Arc<dyn Fn(&ServerConfig, Arc<dyn Transport>) -> Arc<dyn Transport> + Send + Sync>;

/// Gives a remote server its OAuth flow (`None`: no authorization hook,
/// as without the `oauth` feature); see [`ManagerOptions::with_oauth`].
/// Called for remote entries only.
#[cfg(feature = "oauth")]
pub type OAuthFactory = Arc<dyn Fn(&ServerConfig) -> Option<mcp_auth::OAuth> + Send + Sync>;

/// Default startup timeout of a stdio server: 60 000 ms.
pub const DEFAULT_STDIO_STARTUP_TIMEOUT: Duration = Duration::from_millis(60_000);
/// Default startup timeout of a remote server: 30 000 ms.
pub const DEFAULT_HTTP_STARTUP_TIMEOUT: Duration = Duration::from_millis(30_000);
/// Default longest wait of a call for a server that is starting or
/// reconnecting: 30 000 ms.
pub const DEFAULT_CALL_WAIT: Duration = Duration::from_millis(30_000);
/// Default bound on [`crate::Manager::shutdown`]: 5 000 ms.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_millis(5_000);
/// Default grace a stdio server gets between stdin closed and SIGTERM: 2 000 ms.
pub const DEFAULT_STDIO_SHUTDOWN_GRACE: Duration = Duration::from_millis(2_000);
/// Default debounce of `list_changed` refreshes: 100 ms.
pub const DEFAULT_LIST_CHANGED_DEBOUNCE: Duration = Duration::from_millis(100);
/// Default capacity of the event channel: 256 events.
pub const DEFAULT_EVENT_CAPACITY: usize = 256;

/// What a call does when its server is `Starting` or `Reconnecting`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnavailablePolicy {
    /// Wait up to this long for the server to connect, then fail with
    /// [`crate::ManagerError::WaitTimeout`] (a server that becomes
    /// `Failed` ends the wait at once).
    Wait(Duration),
    /// Fail at once with [`crate::ManagerError::Unavailable`].
    FailFast,
}

impl Default for UnavailablePolicy {
    /// `Wait(30 000 ms)`.
    fn default() -> Self {
        UnavailablePolicy::Wait(DEFAULT_CALL_WAIT)
    }
}

/// How a [`crate::Manager`] runs its servers.
///
/// A manager writes nothing to disk unless asked: the tool-list cache
/// ([`with_cache_dir`](Self::with_cache_dir)) and the revision memory
/// ([`with_revision_dir`](Self::with_revision_dir)) are off by default;
/// [`crate::cache::default_cache_dir`] and [`crate::cache::default_revision_dir`]
/// give the usual places (under `$XDG_CACHE_HOME`, else `~/.cache`).
///
/// ```
/// use std::time::Duration;
/// use mcp_manager::{Backoff, ManagerOptions, UnavailablePolicy};
/// let opts = ManagerOptions::new("my-agent", "1.0.0")
///     .with_cache_dir(None)
///     .with_backoff(Backoff::new(Duration::from_millis(200), Duration::from_secs(5), Some(4), 0.5).unwrap())
///     .with_unavailable(UnavailablePolicy::FailFast);
/// assert_eq!(opts.backoff.max_attempts(), Some(4));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct ManagerOptions {
    /// Client options used for every server (identity, capabilities,
    /// handler, version preference). Its handler still receives every
    /// notification and server request; the manager only listens in.
    /// A server's `timeout` from the configuration overrides
    /// `request_timeout`; its startup timeout bounds `initialize`.
    pub client: ClientOptions,
    /// Startup timeout of stdio servers without `startupTimeout` (default
    /// [`DEFAULT_STDIO_STARTUP_TIMEOUT`], 60 000 ms).
    pub stdio_startup_timeout: Duration,
    /// Startup timeout of remote servers without `startupTimeout` (default
    /// [`DEFAULT_HTTP_STARTUP_TIMEOUT`], 30 000 ms).
    pub http_startup_timeout: Duration,
    /// Where tool lists are cached ([`crate::cache`]); `None` (the
    /// default) caches nothing. [`crate::cache::default_cache_dir`] is the
    /// usual place.
    pub cache_dir: Option<PathBuf>,
    /// Reconnection after a runtime disconnect (default [`Backoff::default`]:
    /// 500 ms base, 30 000 ms cap, 8 attempts, jitter 0.5).
    pub backoff: Backoff,
    /// What calls do while their server is not connected (default
    /// `Wait(30 000 ms)`).
    pub unavailable: UnavailablePolicy,
    /// Bound on [`crate::Manager::shutdown`] (default 5 000 ms); servers still
    /// running after it are killed (stdio: SIGKILL to the process group).
    pub shutdown_timeout: Duration,
    /// Grace between closing a stdio server's stdin and SIGTERM (default
    /// 2 000 ms).
    pub stdio_shutdown_grace: Duration,
    /// Debounce of `list_changed` refreshes (default 100 ms).
    pub list_changed_debounce: Duration,
    /// Capacity of the event channel (default 256).
    pub event_capacity: usize,
    /// A handler per server instead of `client.handler` (default `None`:
    /// every server's client gets `client.handler`).
    pub handler_per_server: Option<HandlerFactory>,
    /// A wrapper around each server's transport (default `None`).
    pub transport_layer: Option<TransportLayer>,
    /// Which lists are fetched when a server connects (default
    /// [`StartListings::ALL`]).
    pub start_listings: StartListings,
    /// Where the revision memory lives ([`crate::revision_memory`]); `None` (the default)
    /// keeps none on disk: every manager probes every server at its first
    /// start (what it learns while it runs, it still uses for
    /// reconnections). [`crate::cache::default_revision_dir`] is the usual place.
    pub revision_dir: Option<PathBuf>,
    /// The OAuth flow of each remote server (default `None`: none); see
    /// [`with_oauth`](Self::with_oauth).
    #[cfg(feature = "oauth")]
    pub oauth: Option<OAuthFactory>,
}

/// Which lists the manager fetches when a server connects or reconnects
/// (`tools/list`, `prompts/list`, `resources/list`, each only when the
/// server declares the capability). A list not fetched stays empty: the
/// namespace has no entries from it and [`crate::ServerStatus::Connected`]
/// counts 0 for it. A host that needs one thing (a ping, one resource read)
/// sends only what it needs.
///
/// ```
/// use mcp_manager::StartListings;
/// let tools_only = StartListings::NONE.with_tools(true);
/// assert!(tools_only.tools && !tools_only.prompts && !tools_only.resources);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StartListings {
    /// Fetch `tools/list` (required to succeed when fetched).
    pub tools: bool,
    /// Fetch `prompts/list` (a failure is logged and leaves the list empty).
    pub prompts: bool,
    /// Fetch `resources/list` (a failure is logged and leaves the list empty).
    pub resources: bool,
}

impl StartListings {
    /// Every list.
    pub const ALL: StartListings = StartListings {
        tools: true,
        prompts: true,
        resources: true,
    };
    /// No list.
    pub const NONE: StartListings = StartListings {
        tools: false,
        prompts: false,
        resources: false,
    };

    /// Sets whether `tools/list` is fetched.
    pub fn with_tools(mut self, fetch: bool) -> Self {
        self.tools = fetch;
        self
    }

    /// Sets whether `prompts/list` is fetched.
    pub fn with_prompts(mut self, fetch: bool) -> Self {
        self.prompts = fetch;
        self
    }

    /// Sets whether `resources/list` is fetched.
    pub fn with_resources(mut self, fetch: bool) -> Self {
        self.resources = fetch;
        self
    }
}

impl Default for StartListings {
    fn default() -> Self {
        StartListings::ALL
    }
}

impl fmt::Debug for ManagerOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut f = f.debug_struct("ManagerOptions");
        f.field("client", &self.client)
            .field("stdio_startup_timeout", &self.stdio_startup_timeout)
            .field("http_startup_timeout", &self.http_startup_timeout)
            .field("cache_dir", &self.cache_dir)
            .field("backoff", &self.backoff)
            .field("unavailable", &self.unavailable)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("stdio_shutdown_grace", &self.stdio_shutdown_grace)
            .field("list_changed_debounce", &self.list_changed_debounce)
            .field("event_capacity", &self.event_capacity)
            .field("handler_per_server", &self.handler_per_server.is_some())
            .field("transport_layer", &self.transport_layer.is_some())
            .field("start_listings", &self.start_listings)
            .field("revision_dir", &self.revision_dir);
        #[cfg(feature = "oauth")]
        f.field("oauth", &self.oauth.is_some());
        f.finish()
    }
}

impl ManagerOptions {
    /// Defaults, with `clientInfo` `name` / `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ManagerOptions::from_client(ClientOptions::new(name, version))
    }

    /// Defaults around the given client options.
    pub fn from_client(client: ClientOptions) -> Self {
        ManagerOptions {
            client,
            stdio_startup_timeout: DEFAULT_STDIO_STARTUP_TIMEOUT,
            http_startup_timeout: DEFAULT_HTTP_STARTUP_TIMEOUT,
            cache_dir: None,
            backoff: Backoff::default(),
            unavailable: UnavailablePolicy::default(),
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            stdio_shutdown_grace: DEFAULT_STDIO_SHUTDOWN_GRACE,
            list_changed_debounce: DEFAULT_LIST_CHANGED_DEBOUNCE,
            event_capacity: DEFAULT_EVENT_CAPACITY,
            handler_per_server: None,
            transport_layer: None,
            start_listings: StartListings::ALL,
            revision_dir: None,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// Gives remote servers an OAuth 2.1 flow (spec `basic/authorization`):
    /// `factory` is asked once per remote server (by name and URL; the
    /// answer is kept for its reconnections, so tokens and the flow's state
    /// live as long as the manager) and its `OAuth` answers the HTTP
    /// transport's auth hook. `None` leaves a server without one. Replaces
    /// what an earlier `with_oauth` or `with_server_oauth` gave.
    ///
    /// With a user agent that cannot ask anyone
    /// ([`mcp_auth::NoInteraction`]), a server that needs a login fails its
    /// start (or reconnection) at once with
    /// [`ServerStatus::NeedsLogin`](crate::ServerStatus::NeedsLogin), and
    /// calls to it with [`ManagerError::NeedsLogin`](crate::ManagerError::NeedsLogin).
    #[cfg(feature = "oauth")]
    pub fn with_oauth(
        mut self,
        factory: impl Fn(&ServerConfig) -> Option<mcp_auth::OAuth> + Send + Sync + 'static,
    ) -> Self {
        type Made = std::collections::HashMap<(String, String), Option<mcp_auth::OAuth>>;
        let made: std::sync::Mutex<Made> = std::sync::Mutex::default();
        self.oauth = Some(Arc::new(move |config: &ServerConfig| {
            let url = match &config.transport {
                crate::config::TransportConfig::Remote(r) => r.url.clone(),
                _ => return None,
            };
            let mut made = made.lock().unwrap_or_else(|p| p.into_inner());
            made.entry((config.name.clone(), url))
                .or_insert_with(|| factory(config))
                .clone()
        }));
        self
    }

    /// Gives the remote server `server` this OAuth flow (the others keep
    /// what [`with_oauth`](Self::with_oauth) gave them, if anything).
    #[cfg(feature = "oauth")]
    pub fn with_server_oauth(mut self, server: impl Into<String>, oauth: mcp_auth::OAuth) -> Self {
        let server = server.into();
        let others = self.oauth.take();
        self.oauth = Some(Arc::new(move |config: &ServerConfig| {
            if config.name == server {
                Some(oauth.clone())
            } else {
                others.as_ref().and_then(|f| f(config))
            }
        }));
        self
    }

    /// Keeps the revision memory in `dir` (`None`, the default: none on disk).
    ///
    /// ```
    /// use mcp_manager::ManagerOptions;
    /// use mcp_manager::cache::default_revision_dir;
    /// let opts = ManagerOptions::new("my-agent", "1.0.0").with_revision_dir(default_revision_dir());
    /// # let _ = opts;
    /// ```
    pub fn with_revision_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.revision_dir = dir;
        self
    }

    /// Fetches only these lists when a server connects.
    pub fn with_start_listings(mut self, listings: StartListings) -> Self {
        self.start_listings = listings;
        self
    }

    /// Gives each server's client its own handler, built by `factory` from
    /// the server's configuration (replaces `client.handler`).
    pub fn with_handler_per_server(
        mut self,
        factory: impl Fn(&ServerConfig) -> Arc<dyn ClientHandler> + Send + Sync + 'static,
    ) -> Self {
        self.handler_per_server = Some(Arc::new(factory));
        self
    }

    /// Wraps each server's transport with `layer` (e.g. a traffic logger).
    pub fn with_transport_layer(
        mut self,
        layer: impl Fn(&ServerConfig, Arc<dyn Transport>) -> Arc<dyn Transport> + Send + Sync + 'static,
    ) -> Self {
        self.transport_layer = Some(Arc::new(layer));
        self
    }

    /// Caches tool lists in `dir` (`None`, the default: no cache).
    pub fn with_cache_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.cache_dir = dir;
        self
    }

    /// Sets the reconnection backoff.
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Sets the call policy while a server is not connected.
    pub fn with_unavailable(mut self, policy: UnavailablePolicy) -> Self {
        self.unavailable = policy;
        self
    }

    /// Sets both default startup timeouts (stdio, remote).
    pub fn with_startup_timeouts(mut self, stdio: Duration, http: Duration) -> Self {
        self.stdio_startup_timeout = stdio;
        self.http_startup_timeout = http;
        self
    }

    /// Sets the shutdown bound.
    pub fn with_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Sets the stdio shutdown grace.
    pub fn with_stdio_shutdown_grace(mut self, grace: Duration) -> Self {
        self.stdio_shutdown_grace = grace;
        self
    }

    /// Sets the debounce of `list_changed` refreshes.
    pub fn with_list_changed_debounce(mut self, debounce: Duration) -> Self {
        self.list_changed_debounce = debounce;
        self
    }

    /// Sets the capacity of the event channel, in events.
    pub fn with_event_capacity(mut self, capacity: usize) -> Self {
        self.event_capacity = capacity;
        self
    }
}
