//! The entry types: a server, how to reach it, and its stdio or remote
//! settings (after `${…}` expansion).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use mcp_client::VersionPreference;

use super::auth::{AuthMode, OAuthSettings};
use super::redact_url;

/// One MCP server entry.
///
/// ```
/// use std::time::Duration;
/// use mcp_manager::{ServerConfig, StdioServer, TransportConfig};
/// let entry = ServerConfig::new("demo", TransportConfig::Stdio(StdioServer::new("mcp").with_args(["serve-demo"])))
///     .with_timeout(Some(Duration::from_secs(10)));
/// assert_eq!(entry.transport.kind_name(), "stdio");
/// assert!(!entry.disabled);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The entry's key in `mcpServers`; the prefix of its qualified names.
    pub name: String,
    /// How to reach it.
    pub transport: TransportConfig,
    /// Per-request timeout (JSON `timeout`, ms); `None`: the client default.
    pub timeout: Option<Duration>,
    /// Time to connect and finish the handshake (JSON `startupTimeout`, ms);
    /// `None`: the manager default for the transport.
    pub startup_timeout: Option<Duration>,
    /// How long the `server/discover` probe may go unanswered before
    /// `initialize` goes out too (JSON `discoverTimeout`, ms); `None`: the
    /// client default.
    pub discover_timeout: Option<Duration>,
    /// Which revisions to negotiate (JSON `protocolVersion`); `None`: the
    /// client's preference (for an `"sse"` server: the handshake revisions).
    pub protocol_version: Option<VersionPreference>,
    /// `true`: listed with status `Disabled`, never started.
    pub disabled: bool,
    /// The file the entry came from, when loaded from a file.
    pub source: Option<PathBuf>,
}

impl ServerConfig {
    /// An enabled entry named `name`, reached by `transport`, with every
    /// timeout and the revision preference left to the defaults.
    pub fn new(name: impl Into<String>, transport: TransportConfig) -> Self {
        ServerConfig {
            name: name.into(),
            transport,
            timeout: None,
            startup_timeout: None,
            discover_timeout: None,
            protocol_version: None,
            disabled: false,
            source: None,
        }
    }

    /// Sets the per-request timeout (`None`: the client default).
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the startup timeout (`None`: the manager default for the transport).
    pub fn with_startup_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets how long the `server/discover` probe may go unanswered
    /// (`None`: the client default).
    pub fn with_discover_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.discover_timeout = timeout;
        self
    }

    /// Sets which revisions to negotiate (`None`: the client's preference).
    pub fn with_protocol_version(mut self, preference: Option<VersionPreference>) -> Self {
        self.protocol_version = preference;
        self
    }

    /// Keeps the entry listed but never started (`true`).
    pub fn with_disabled(mut self, disabled: bool) -> Self {
        self.disabled = disabled;
        self
    }

    /// Records the file the entry came from.
    pub fn with_source(mut self, source: Option<PathBuf>) -> Self {
        self.source = source;
        self
    }
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportConfig {
    /// A child process speaking stdio (spec `basic/transports` § stdio).
    Stdio(StdioServer),
    /// A remote server over HTTP.
    Remote(RemoteServer),
    /// A server listening on a socket (TCP or Unix-domain), speaking
    /// newline-delimited JSON-RPC as over stdio.
    Socket(SocketServer),
}

impl TransportConfig {
    /// `"stdio"`, `"http"`, `"sse"` or `"socket"`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            TransportConfig::Stdio(_) => "stdio",
            TransportConfig::Socket(_) => "socket",
            TransportConfig::Remote(r) => match r.kind {
                RemoteKind::StreamableHttp => "http",
                RemoteKind::Sse => "sse",
            },
        }
    }
}

/// A stdio server: the command line, environment and working directory
/// (after `${…}` expansion).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioServer {
    /// The program: a name looked up in `PATH` (the merged one, see
    /// `mcp-transport-stdio`), or a path.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it, merged over the host's environment.
    pub env: BTreeMap<String, String>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
}

impl StdioServer {
    /// Runs `command` with no arguments, no extra variables, in the host's
    /// working directory.
    pub fn new(command: impl Into<String>) -> Self {
        StdioServer {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// Sets the arguments.
    pub fn with_args(mut self, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the variables merged over the host's environment.
    pub fn with_env(mut self, env: BTreeMap<String, String>) -> Self {
        self.env = env;
        self
    }

    /// Sets the working directory (`None`: the host's).
    pub fn with_cwd(mut self, cwd: Option<PathBuf>) -> Self {
        self.cwd = cwd;
        self
    }
}

impl fmt::Debug for StdioServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // env values may be secrets: names only.
        f.debug_struct("StdioServer")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// A server on a socket (after `${…}` expansion).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SocketServer {
    /// Where it listens: `PATH` of a Unix-domain socket or `HOST:PORT`
    /// (read by `mcp_transport_socket::SocketAddress::parse`).
    pub address: String,
}

impl SocketServer {
    /// The server listening at `address` (`PATH` or `HOST:PORT`).
    pub fn new(address: impl Into<String>) -> Self {
        SocketServer {
            address: address.into(),
        }
    }
}

/// Which HTTP transport a remote server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RemoteKind {
    /// Streamable HTTP (2025-03-26 on).
    StreamableHttp,
    /// HTTP+SSE (2024-11-05).
    Sse,
}

/// A remote server (after `${…}` expansion).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RemoteServer {
    /// The MCP endpoint, `http://` or `https://`.
    pub url: String,
    /// The transport.
    pub kind: RemoteKind,
    /// Extra request headers (e.g. `Authorization`).
    pub headers: BTreeMap<String, String>,
    /// How it is authorized (JSON `auth`).
    pub auth: AuthMode,
    /// Its OAuth settings (JSON `oauth`, or Cursor's `auth` object).
    pub oauth: OAuthSettings,
}

impl RemoteServer {
    /// The endpoint `url` over `kind`, with no extra headers.
    pub fn new(url: impl Into<String>, kind: RemoteKind) -> Self {
        RemoteServer {
            url: url.into(),
            kind,
            headers: BTreeMap::new(),
            auth: AuthMode::Auto,
            oauth: OAuthSettings::default(),
        }
    }

    /// Sets the extra request headers.
    pub fn with_headers(mut self, headers: BTreeMap<String, String>) -> Self {
        self.headers = headers;
        self
    }

    /// Sets how it is authorized.
    pub fn with_auth(mut self, auth: AuthMode) -> Self {
        self.auth = auth;
        self
    }

    /// Sets its OAuth settings.
    pub fn with_oauth(mut self, oauth: OAuthSettings) -> Self {
        self.oauth = oauth;
        self
    }

    /// `true` when an OAuth flow may run for it: `auth` is `"oauth"`, or
    /// omitted and no `Authorization` header is configured.
    pub fn wants_oauth(&self) -> bool {
        match self.auth {
            AuthMode::OAuth => true,
            AuthMode::Auto => !self
                .headers
                .keys()
                .any(|name| name.eq_ignore_ascii_case("authorization")),
            AuthMode::Headers | AuthMode::None => false,
        }
    }
}

impl fmt::Debug for RemoteServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // header values may be secrets: names only.
        f.debug_struct("RemoteServer")
            .field("url", &redact_url(&self.url))
            .field("kind", &self.kind)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("auth", &self.auth)
            .field("oauth", &self.oauth)
            .finish()
    }
}
