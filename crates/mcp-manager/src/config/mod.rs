//! The `mcpServers` configuration file, as Claude Desktop, Cursor and
//! VS Code-style hosts write it.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
//!                     "env": { "TOKEN": "${TOKEN}" }, "startupTimeout": 20000 },
//!     "remote":     { "type": "http", "url": "https://example.com/mcp",
//!                     "headers": { "Authorization": "Bearer ${API_TOKEN:-none}" }, "timeout": 60000 },
//!     "old":        { "url": "http://127.0.0.1:3001/sse", "type": "sse", "disabled": true }
//!   }
//! }
//! ```
//!
//! Per server (every member optional unless said):
//! - stdio: `command` (string, required), `args` (array of strings), `env`
//!   (object of strings, merged over the host's environment), `cwd` (string).
//! - remote: `url` (string, `http://` or `https://`, required), `headers`
//!   (object of strings), and how it is authorized:
//!   - `auth`: `"oauth"` (an OAuth login, `mcp login`), `"headers"` (the
//!     `headers` are the credential: a refusal is shown as it came and no
//!     OAuth flow ever starts), `"none"` (no credential, no flow).
//!     Omitted: OAuth unless `headers` has an `Authorization` header.
//!     Cursor's static-client object is accepted here too:
//!     `"auth": {"CLIENT_ID": "…", "CLIENT_SECRET": "${env:VAR}", "scopes": […]}`
//!     means `"oauth"` with those settings.
//!   - `oauth` (object, Claude Code's and VS Code's spelling): `clientId`
//!     (a pre-registered client), `clientSecretEnv` (the name of an
//!     environment variable holding its secret, read when the flow
//!     needs it; a secret is never written in the file), `callbackPort`
//!     (the fixed loopback port of a pre-registered redirect URI
//!     `http://localhost:PORT/callback`), `scopes` (a space-separated
//!     string, as Claude Code writes it, or an array), `account` (the
//!     account name the tokens are stored under). Snake-case spellings
//!     (`client_id`, …) are accepted; other members are ignored.
//! - `type`: `"stdio"`, `"http"` / `"streamable-http"` / `"streamableHttp"`
//!   (Streamable HTTP) or `"sse"` (the 2024-11-05 HTTP+SSE transport).
//!   Omitted: `command` means stdio, `url` means Streamable HTTP.
//! - `timeout`: per-request timeout in ms (integer > 0).
//! - `startupTimeout`: time allowed to connect and finish the handshake, in
//!   ms (integer > 0); default [`crate::ManagerOptions::stdio_startup_timeout`]
//!   (60 000 ms) or [`crate::ManagerOptions::http_startup_timeout`] (30 000 ms).
//! - `discoverTimeout`: how long the `server/discover` probe may go
//!   unanswered before `initialize` goes out beside it, in ms (integer > 0;
//!   default 3 000 ms, see `mcp_client::ClientOptions::discover_timeout`).
//! - `protocolVersion`: which revisions to negotiate: `"auto"` (the
//!   default: probe, then the handshake), `"handshake"` (the handshake era
//!   only, for a server that misbehaves in 2026-07-28), or one revision
//!   (`"2025-06-18"`, `"2026-07-28"`). An `"sse"` server speaks the
//!   handshake era only: `"auto"` means `"handshake"` there, and
//!   `"2026-07-28"` is an error for that entry.
//! - `disabled`: `true` keeps the entry but never starts it.
//! - Other members (e.g. `autoApprove`) are ignored.
//!
//! The top-level object is `mcpServers`; VS Code's `servers` is accepted
//! when `mcpServers` is absent.
//!
//! Strings (`command`, `args`, `env` values, `cwd`, `url`, `headers`
//! values) go through [`expand::expand`]: `${VAR}` and `${VAR:-default}`.
//! **An unset variable without a default is an error for that entry**
//! (naming the variable), never a silent empty string.
//!
//! A bad entry becomes a [`ConfigError`] with its JSON path (e.g.
//! `mcpServers.foo.url`) in [`McpConfig::errors`]; the other entries still
//! load. Only a file that cannot be read or is not a JSON object of servers
//! fails as a whole.
//!
//! Several files merge with [`McpConfig::load`]: later files win, entry by
//! entry (pass the user file first, the project file last).

mod error;
pub mod expand;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

pub use error::{ConfigError, ConfigErrorKind};
pub use expand::ExpandError;
use mcp_client::VersionPreference;

/// Largest configuration file read, in bytes: 4 MiB (4 194 304 bytes).
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// A parsed configuration: the valid servers by name, and one error per
/// invalid entry.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct McpConfig {
    /// The valid entries, by server name (sorted, so iteration is deterministic).
    pub servers: BTreeMap<String, ServerConfig>,
    /// One error per entry that could not be loaded (the others still are).
    pub errors: Vec<ConfigError>,
}

/// One MCP server entry.
///
/// ```
/// use std::time::Duration;
/// use mcp_manager::config::{ServerConfig, StdioServer, TransportConfig};
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
    /// client's preference (for an `"sse"` server: the handshake era).
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
}

impl TransportConfig {
    /// `"stdio"`, `"http"` or `"sse"`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            TransportConfig::Stdio(_) => "stdio",
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

/// How a remote server is authorized (JSON `auth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AuthMode {
    /// Not said: OAuth unless an `Authorization` header is configured.
    #[default]
    Auto,
    /// An OAuth login (`"oauth"`).
    OAuth,
    /// The configured headers are the credential; no OAuth flow ever
    /// starts (`"headers"`).
    Headers,
    /// No credential and no flow (`"none"`).
    None,
}

/// The OAuth settings of a remote entry (JSON `oauth`, see the module
/// docs). Its `Debug` output never shows the client secret.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthSettings {
    /// A pre-registered `client_id` (`clientId`, Cursor's `CLIENT_ID`).
    pub client_id: Option<String>,
    /// The client secret itself (Cursor's `CLIENT_SECRET`, normally a
    /// `${env:VAR}` reference).
    pub client_secret: Option<String>,
    /// The environment variable holding the client secret
    /// (`clientSecretEnv`).
    pub client_secret_env: Option<String>,
    /// A fixed loopback callback port (`callbackPort`).
    pub callback_port: Option<u16>,
    /// Scopes to ask for (`scopes`).
    pub scopes: Vec<String>,
    /// The account the tokens are stored under (`account`).
    pub account: Option<String>,
}

impl fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("client_secret_env", &self.client_secret_env)
            .field("callback_port", &self.callback_port)
            .field("scopes", &self.scopes)
            .field("account", &self.account)
            .finish()
    }
}

/// `url` without credentials (`user:pass@`) or query string, for logs and errors.
pub(crate) fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, url),
    };
    let rest = match rest.split_once('@') {
        Some((userinfo, host)) if !userinfo.contains('/') => format!("***@{host}"),
        _ => rest.to_owned(),
    };
    let rest = match rest.split_once('?') {
        Some((before, _)) => format!("{before}?***"),
        None => rest,
    };
    match scheme {
        Some(s) => format!("{s}://{rest}"),
        None => rest,
    }
}

/// The process environment, as a lookup for [`expand::expand`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl McpConfig {
    /// Parses a configuration from JSON text, expanding `${…}` from the
    /// process environment.
    ///
    /// ```
    /// use mcp_manager::McpConfig;
    /// let config = McpConfig::from_json(r#"{"mcpServers": {
    ///     "a": {"command": "echo"},
    ///     "b": {"type": "carrier-pigeon", "url": "http://x"}
    /// }}"#).unwrap();
    /// assert!(config.servers.contains_key("a"));
    /// assert_eq!(config.errors[0].path, "mcpServers.b.type");
    /// ```
    ///
    /// Errors: only for a document that is not JSON or has no servers
    /// object; a bad entry goes to [`McpConfig::errors`].
    pub fn from_json(text: &str) -> Result<McpConfig, ConfigError> {
        Self::from_json_with_env(text, &process_env)
    }

    /// [`from_json`](Self::from_json) with variables from `lookup`.
    pub fn from_json_with_env(
        text: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<McpConfig, ConfigError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ConfigError::whole(None, ConfigErrorKind::Json(e.to_string())))?;
        Self::from_value(&value, None, lookup)
    }

    /// Parses an already decoded document; `file` is recorded in errors and
    /// in [`ServerConfig::source`].
    pub fn from_value(
        value: &Value,
        file: Option<&Path>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<McpConfig, ConfigError> {
        let Some(root) = value.as_object() else {
            return Err(ConfigError::whole(
                file,
                ConfigErrorKind::WrongType {
                    expected: "an object",
                    found: type_name(value),
                },
            ));
        };
        let (key, servers) = match (root.get("mcpServers"), root.get("servers")) {
            (Some(v), _) => ("mcpServers", v),
            (None, Some(v)) => ("servers", v),
            (None, None) => return Err(ConfigError::whole(file, ConfigErrorKind::NoServers)),
        };
        let Some(servers) = servers.as_object() else {
            return Err(ConfigError {
                file: file.map(Path::to_path_buf),
                server: None,
                path: key.into(),
                kind: ConfigErrorKind::WrongType {
                    expected: "an object",
                    found: type_name(servers),
                },
            });
        };
        let mut config = McpConfig::default();
        for (name, entry) in servers {
            let path = join_key(key, name);
            match parse_entry(name, entry, &path, lookup) {
                Ok(mut server) => {
                    server.source = file.map(Path::to_path_buf);
                    config.servers.insert(name.clone(), server);
                }
                Err((path, kind)) => {
                    tracing::warn!(server = %name, %path, error = %kind, "bad mcpServers entry");
                    config.errors.push(ConfigError {
                        file: file.map(Path::to_path_buf),
                        server: Some(name.clone()),
                        path,
                        kind,
                    });
                }
            }
        }
        Ok(config)
    }

    /// Reads and parses one file (at most [`MAX_CONFIG_BYTES`]), expanding
    /// from the process environment.
    ///
    /// Errors: unreadable, too large, not JSON, or no servers object.
    pub fn from_file(path: impl AsRef<Path>) -> Result<McpConfig, ConfigError> {
        let path = path.as_ref();
        let read_err =
            |e: std::io::Error| ConfigError::whole(Some(path), ConfigErrorKind::Read(Arc::new(e)));
        let meta = std::fs::metadata(path).map_err(read_err)?;
        if meta.len() > MAX_CONFIG_BYTES {
            return Err(ConfigError::whole(
                Some(path),
                ConfigErrorKind::TooLarge {
                    limit: MAX_CONFIG_BYTES,
                },
            ));
        }
        let text = std::fs::read_to_string(path).map_err(read_err)?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| ConfigError::whole(Some(path), ConfigErrorKind::Json(e.to_string())))?;
        Self::from_value(&value, Some(path), &process_env)
    }

    /// Loads and merges `paths` in order; **later files win**, entry by
    /// entry (pass `[user_file, project_file]` so the project wins). An
    /// invalid entry in a later file still shadows a same-named entry of an
    /// earlier one (its error is reported; the earlier entry is not used).
    ///
    /// Errors: the first file that cannot be read or parsed as a whole.
    pub fn load<P: AsRef<Path>>(paths: &[P]) -> Result<McpConfig, ConfigError> {
        let mut merged = McpConfig::default();
        for p in paths {
            merged = merged.merged_with(McpConfig::from_file(p)?);
        }
        Ok(merged)
    }

    /// [`load`](Self::load), skipping files that do not exist (e.g. no user
    /// file yet). Other read errors still fail.
    ///
    /// Errors: as [`load`](Self::load), except a missing file.
    pub fn load_existing<P: AsRef<Path>>(paths: &[P]) -> Result<McpConfig, ConfigError> {
        let mut merged = McpConfig::default();
        for p in paths {
            match McpConfig::from_file(p) {
                Ok(c) => merged = merged.merged_with(c),
                Err(ConfigError {
                    kind: ConfigErrorKind::Read(e),
                    ..
                }) if e.kind() == std::io::ErrorKind::NotFound => {
                    tracing::debug!(path = %p.as_ref().display(), "no configuration file; skipped");
                }
                Err(e) => return Err(e),
            }
        }
        Ok(merged)
    }

    /// `self` overridden by `higher`, entry by entry.
    pub fn merged_with(mut self, higher: McpConfig) -> McpConfig {
        let shadowed = |name: &str| {
            higher.servers.contains_key(name)
                || higher
                    .errors
                    .iter()
                    .any(|e| e.server.as_deref() == Some(name))
        };
        self.servers.retain(|name, _| !shadowed(name));
        self.errors
            .retain(|e| e.server.as_deref().is_none_or(|name| !shadowed(name)));
        self.servers.extend(higher.servers);
        self.errors.extend(higher.errors);
        self
    }
}

type EntryResult<T> = Result<T, (String, ConfigErrorKind)>;

fn parse_entry(
    name: &str,
    entry: &Value,
    path: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> EntryResult<ServerConfig> {
    if name.is_empty() {
        return Err((
            path.to_owned(),
            ConfigErrorKind::Invalid("empty server name".into()),
        ));
    }
    let obj = entry
        .as_object()
        .ok_or_else(|| wrong(path, "an object", entry))?;
    let field = |k: &str| join_key(path, k);
    let ty = match obj.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(v) => return Err(wrong(&field("type"), "a string", v)),
    };
    let disabled = match obj.get("disabled") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => return Err(wrong(&field("disabled"), "a boolean", v)),
    };
    let timeout = get_ms(obj, "timeout", &field("timeout"))?;
    let startup_timeout = get_ms(obj, "startupTimeout", &field("startupTimeout"))?;
    let discover_timeout = get_ms(obj, "discoverTimeout", &field("discoverTimeout"))?;
    let protocol_version = match obj.get("protocolVersion") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(
            s.parse::<VersionPreference>()
                .map_err(|why| (field("protocolVersion"), ConfigErrorKind::Invalid(why)))?,
        ),
        Some(v) => return Err(wrong(&field("protocolVersion"), "a string", v)),
    };

    enum Kind {
        Stdio,
        Remote(RemoteKind),
    }
    let kind = match ty {
        Some("stdio") => Kind::Stdio,
        Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => {
            Kind::Remote(RemoteKind::StreamableHttp)
        }
        Some("sse") => Kind::Remote(RemoteKind::Sse),
        Some(other) => {
            return Err((
                field("type"),
                ConfigErrorKind::UnknownType(other.to_owned()),
            ));
        }
        None => match (obj.contains_key("command"), obj.contains_key("url")) {
            (true, _) => Kind::Stdio,
            (false, true) => Kind::Remote(RemoteKind::StreamableHttp),
            (false, false) => return Err((path.to_owned(), ConfigErrorKind::MissingCommandOrUrl)),
        },
    };
    let expand_at = |s: &str, p: &str| {
        expand::expand(s, lookup).map_err(|e| (p.to_owned(), ConfigErrorKind::Expand(e)))
    };
    let transport = match kind {
        Kind::Stdio => {
            let command = match obj.get("command") {
                None | Some(Value::Null) => {
                    return Err((field("command"), ConfigErrorKind::MissingCommand));
                }
                Some(Value::String(s)) => expand_at(s, &field("command"))?,
                Some(v) => return Err(wrong(&field("command"), "a string", v)),
            };
            if command.trim().is_empty() {
                return Err((
                    field("command"),
                    ConfigErrorKind::Invalid("empty command".into()),
                ));
            }
            let args = match obj.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let p = format!("{}[{i}]", field("args"));
                        match v {
                            Value::String(s) => expand_at(s, &p),
                            other => Err(wrong(&p, "a string", other)),
                        }
                    })
                    .collect::<EntryResult<Vec<_>>>()?,
                Some(v) => return Err(wrong(&field("args"), "an array of strings", v)),
            };
            let env = string_map(obj.get("env"), &field("env"), &expand_at)?;
            let cwd = match obj.get("cwd") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(PathBuf::from(expand_at(s, &field("cwd"))?)),
                Some(v) => return Err(wrong(&field("cwd"), "a string", v)),
            };
            TransportConfig::Stdio(StdioServer {
                command,
                args,
                env,
                cwd,
            })
        }
        Kind::Remote(kind) => {
            let url = match obj.get("url") {
                None | Some(Value::Null) => {
                    return Err((field("url"), ConfigErrorKind::MissingUrl));
                }
                Some(Value::String(s)) => expand_at(s, &field("url"))?,
                Some(v) => return Err(wrong(&field("url"), "a string", v)),
            };
            check_url(&url).map_err(|why| (field("url"), ConfigErrorKind::BadUrl(why)))?;
            let headers = string_map(obj.get("headers"), &field("headers"), &expand_at)?;
            for name in headers.keys() {
                if name.is_empty() || !name.bytes().all(is_token_byte) {
                    return Err((
                        join_key(&field("headers"), name),
                        ConfigErrorKind::Invalid(format!("{name:?} is not an HTTP header name")),
                    ));
                }
            }
            if kind == RemoteKind::Sse
                && matches!(protocol_version, Some(VersionPreference::Only(v)) if v.is_stateless())
            {
                return Err((
                    field("protocolVersion"),
                    ConfigErrorKind::Invalid(
                        "the HTTP+SSE transport carries only the handshake revisions (2024-11-05 … 2025-11-25)".into(),
                    ),
                ));
            }
            let (auth, oauth) = parse_auth(obj, path, &expand_at)?;
            TransportConfig::Remote(RemoteServer {
                url,
                kind,
                headers,
                auth,
                oauth,
            })
        }
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        timeout,
        startup_timeout,
        discover_timeout,
        protocol_version,
        disabled,
        source: None,
    })
}

/// The `auth` and `oauth` members of a remote entry.
fn parse_auth(
    obj: &Map<String, Value>,
    path: &str,
    expand_at: &dyn Fn(&str, &str) -> EntryResult<String>,
) -> EntryResult<(AuthMode, OAuthSettings)> {
    let field = |k: &str| join_key(path, k);
    let mut settings = OAuthSettings::default();
    let mode = match obj.get("auth") {
        None | Some(Value::Null) => AuthMode::Auto,
        Some(Value::String(s)) => match s.as_str() {
            "oauth" => AuthMode::OAuth,
            "headers" => AuthMode::Headers,
            "none" => AuthMode::None,
            other => {
                return Err((
                    field("auth"),
                    ConfigErrorKind::Invalid(format!(
                        "{other:?} is not \"oauth\", \"headers\" or \"none\""
                    )),
                ));
            }
        },
        Some(Value::Object(cursor)) => {
            read_oauth(cursor, &field("auth"), expand_at, &mut settings)?;
            AuthMode::OAuth
        }
        Some(v) => {
            return Err(wrong(
                &field("auth"),
                "\"oauth\", \"headers\", \"none\" or an object",
                v,
            ));
        }
    };
    match obj.get("oauth") {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => read_oauth(o, &field("oauth"), expand_at, &mut settings)?,
        Some(v) => return Err(wrong(&field("oauth"), "an object", v)),
    }
    Ok((mode, settings))
}

/// The members of an `oauth` object (or of Cursor's `auth` object) into
/// `settings`; each accepted under the spellings other hosts use.
fn read_oauth(
    o: &Map<String, Value>,
    path: &str,
    expand_at: &dyn Fn(&str, &str) -> EntryResult<String>,
    settings: &mut OAuthSettings,
) -> EntryResult<()> {
    fn find<'a>(
        o: &'a Map<String, Value>,
        names: &[&'static str],
    ) -> Option<(&'static str, &'a Value)> {
        names
            .iter()
            .find_map(|n| o.get(*n).filter(|v| !v.is_null()).map(|v| (*n, v)))
    }
    let string = |names: &[&'static str]| -> EntryResult<Option<String>> {
        match find(o, names) {
            None => Ok(None),
            Some((n, Value::String(s))) => expand_at(s, &join_key(path, n)).map(Some),
            Some((n, v)) => Err(wrong(&join_key(path, n), "a string", v)),
        }
    };
    if let Some(id) = string(&["clientId", "client_id", "CLIENT_ID"])? {
        settings.client_id = Some(id);
    }
    if let Some(secret) = string(&["clientSecret", "client_secret", "CLIENT_SECRET"])? {
        settings.client_secret = Some(secret);
    }
    if let Some(var) = string(&["clientSecretEnv", "client_secret_env"])? {
        settings.client_secret_env = Some(var);
    }
    if let Some(account) = string(&["account"])? {
        settings.account = Some(account);
    }
    if let Some((n, v)) = find(o, &["callbackPort", "callback_port"]) {
        match v
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .filter(|p| *p > 0)
        {
            Some(p) => settings.callback_port = Some(p),
            None => return Err(wrong(&join_key(path, n), "a port number (1-65535)", v)),
        }
    }
    if let Some((n, v)) = find(o, &["scopes", "scope"]) {
        let p = join_key(path, n);
        settings.scopes = match v {
            Value::String(s) => expand_at(s, &p)?
                .split_ascii_whitespace()
                .map(str::to_owned)
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => expand_at(s, &format!("{p}[{i}]")),
                    other => Err(wrong(&format!("{p}[{i}]"), "a string", other)),
                })
                .collect::<EntryResult<Vec<_>>>()?,
            other => return Err(wrong(&p, "a string or an array of strings", other)),
        };
    }
    Ok(())
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn get_ms(obj: &Map<String, Value>, key: &str, path: &str) -> EntryResult<Option<Duration>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(0) => Err((
                path.to_owned(),
                ConfigErrorKind::Invalid("must be > 0 ms".into()),
            )),
            Some(ms) => Ok(Some(Duration::from_millis(ms))),
            None => Err(wrong(path, "a positive integer (milliseconds)", v)),
        },
    }
}

fn string_map(
    value: Option<&Value>,
    path: &str,
    expand_at: &dyn Fn(&str, &str) -> EntryResult<String>,
) -> EntryResult<BTreeMap<String, String>> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let p = join_key(path, k);
                match v {
                    Value::String(s) => Ok((k.clone(), expand_at(s, &p)?)),
                    other => Err(wrong(&p, "a string", other)),
                }
            })
            .collect(),
        Some(v) => Err(wrong(path, "an object of strings", v)),
    }
}

/// Accepts absolute `http://` / `https://` URLs with a host.
fn check_url(url: &str) -> Result<(), String> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e: http::uri::InvalidUri| format!("{:?}: {e}", redact_url(url)))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        Some(other) => return Err(format!("scheme {other:?} is not http or https")),
        None => return Err(format!("{:?} is not an absolute URL", redact_url(url))),
    }
    match uri.host() {
        Some(h) if !h.is_empty() => Ok(()),
        _ => Err(format!("{:?} has no host", redact_url(url))),
    }
}

fn wrong(path: &str, expected: &'static str, found: &Value) -> (String, ConfigErrorKind) {
    (
        path.to_owned(),
        ConfigErrorKind::WrongType {
            expected,
            found: type_name(found),
        },
    )
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `parent.key`, or `parent["key"]` when `key` is not a plain identifier.
fn join_key(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{}]", Value::String(key.to_owned()))
    }
}

#[cfg(test)]
mod tests;
