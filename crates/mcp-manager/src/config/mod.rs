//! The `mcpServers` configuration file: [`McpConfig`], whose docs give the format.

mod auth;
mod error;
mod expand;
mod fields;
mod parse;
mod server;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

pub use auth::{AuthMode, GrantCredentials, GrantSetting, OAuthSettings};
pub use error::{ConfigError, ConfigErrorKind};
pub use expand::{ExpandError, expand_variables};
pub use server::{
    RemoteKind, RemoteServer, ServerConfig, SocketServer, StdioServer, TransportConfig,
};

use fields::{join_key, type_name};
use parse::parse_entry;

/// The values of the top-level `credentialStore`.
const CREDENTIAL_STORES: [&str; 3] = ["auto", "keychain", "file"];

/// Largest configuration file read, in bytes: 4 MiB (4 194 304 bytes).
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// A parsed configuration: the valid servers by name, and one error per
/// invalid entry. It is read from the `mcpServers` configuration file, as
/// Claude Desktop, Cursor and VS Code-style hosts write it.
///
/// ```json
/// {
///   "mcpServers": {
///     "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
///                     "env": { "TOKEN": "${TOKEN}" }, "startupTimeout": 20000 },
///     "remote":     { "type": "http", "url": "https://example.com/mcp",
///                     "headers": { "Authorization": "Bearer ${API_TOKEN:-none}" }, "timeout": 60000 },
///     "old":        { "url": "http://127.0.0.1:3001/sse", "type": "sse", "disabled": true }
///   }
/// }
/// ```
///
/// Per server (every member optional unless said):
/// - stdio: `command` (string, required), `args` (array of strings), `env`
///   (object of strings, merged over the host's environment), `cwd` (string).
/// - remote: `url` (string, `http://` or `https://`, required), `headers`
///   (object of strings), and how it is authorized:
///   - `auth`: `"oauth"` (an OAuth login, `mcp login`), `"headers"` (the
///     `headers` are the credential: a refusal is shown as it came and no
///     OAuth flow ever starts), `"none"` (no credential, no flow).
///     Omitted: OAuth unless `headers` has an `Authorization` header.
///     Cursor's static-client object is accepted here too:
///     `"auth": {"CLIENT_ID": "…", "CLIENT_SECRET": "${env:VAR}", "scopes": […]}`
///     means `"oauth"` with those settings.
///   - `oauth` (object, Claude Code's and VS Code's spelling): `clientId`
///     (a pre-registered client), `clientSecretEnv` (the name of an
///     environment variable holding its secret, read when the flow
///     needs it; a secret is never written in the file), `callbackPort`
///     (the fixed loopback port of a pre-registered redirect URI
///     `http://localhost:PORT/callback`), `scopes` (a space-separated
///     string, as Claude Code writes it, or an array), `account` (the
///     account name the tokens are stored under), `authServerMetadataUrl`
///     (Claude Code's: where to read the authorization server's metadata
///     instead of discovering it; its issuer is still checked), `dpop`
///     (`false` turns DPoP-bound tokens off; they are on by default when
///     the authorization server supports them). Snake-case spellings
///     (`client_id`, …) are accepted; other members are ignored.
///     `grant` picks a grant without a person (no `mcp login`; it runs on
///     the first request): `"client_credentials"` (`clientId` with
///     `clientSecretEnv`, or `privateKeyFile` and optionally
///     `signingAlgorithm` `ES256`/`RS256`), `"enterprise_managed"` (the
///     same client, plus the ID token in `tokenFile` or `tokenEnv` and the
///     identity provider: `idpTokenEndpoint` or `idpIssuer`, `idpClientId`,
///     `idpClientSecretEnv`), `"workload_identity"` (the workload JWT in
///     `tokenFile` or `tokenEnv`); default `"authorization_code"` (a
///     person's login). These are read under their camelCase names only.
/// - socket: `socket` (string, required): `PATH` of a Unix-domain socket
///   or `HOST:PORT` of a TCP listener, carrying newline-delimited JSON-RPC
///   as stdio does (`mcp-transport-socket`; `{"socket": "/run/mcp.sock"}`).
/// - `type`: `"stdio"`, `"http"` / `"streamable-http"` / `"streamableHttp"`
///   (Streamable HTTP), `"sse"` (the 2024-11-05 HTTP+SSE transport) or
///   `"socket"`. Omitted: `command` means stdio, `url` means Streamable
///   HTTP, `socket` means a socket.
/// - `timeout`: per-request timeout in ms (integer > 0).
/// - `startupTimeout`: time allowed to connect and finish the handshake, in
///   ms (integer > 0); default [`crate::ManagerOptions::stdio_startup_timeout`]
///   (60 000 ms) or [`crate::ManagerOptions::http_startup_timeout`] (30 000 ms).
/// - `discoverTimeout`: how long the `server/discover` probe may go
///   unanswered before `initialize` goes out beside it, in ms (integer > 0;
///   default 3 000 ms, see `mcp_client::ClientOptions::discover_timeout`).
/// - `protocolVersion`: which revisions to negotiate: `"auto"` (the
///   default: probe, then the handshake), `"handshake"` (the handshake revisions
///   only, for a server that misbehaves in 2026-07-28), or one revision
///   (`"2025-06-18"`, `"2026-07-28"`). An `"sse"` server speaks the
///   handshake revisions only: `"auto"` means `"handshake"` there, and
///   `"2026-07-28"` is an error for that entry.
/// - `disabled`: `true` keeps the entry but never starts it.
/// - Other members (e.g. `autoApprove`) are ignored.
///
/// The top-level object is `mcpServers`; VS Code's `servers` is accepted
/// when `mcpServers` is absent. Beside it, `credentialStore` (`"auto"`,
/// `"keychain"` or `"file"`) says where the host keeps OAuth logins
/// ([`McpConfig::credential_store`]); the manager itself does not read it.
///
/// Strings (`command`, `args`, `env` values, `cwd`, `url`, `headers`
/// values, `socket`) go through [`expand_variables`](crate::expand_variables): `${VAR}` and `${VAR:-default}`.
/// **An unset variable without a default is an error for that entry**
/// (naming the variable), never a silent empty string.
///
/// A bad entry becomes a [`ConfigError`] with its JSON path (e.g.
/// `mcpServers.foo.url`) in [`McpConfig::errors`]; the other entries still
/// load. Only a file that cannot be read or is not a JSON object of servers
/// fails as a whole.
///
/// Several files merge with [`McpConfig::load`]: later files win, entry by
/// entry (pass the user file first, the project file last).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct McpConfig {
    /// The valid entries, by server name (sorted, so iteration is deterministic).
    pub servers: BTreeMap<String, ServerConfig>,
    /// One error per entry that could not be loaded (the others still are).
    pub errors: Vec<ConfigError>,
    /// Where the host keeps OAuth logins (top-level `credentialStore`):
    /// `"auto"`, `"keychain"` or `"file"`; `None` when the file does not
    /// say. A host setting: hosts give their own flag and environment
    /// variable precedence over it, and it over their default.
    pub credential_store: Option<String>,
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

/// The process environment, as a lookup for [`expand_variables`].
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
        match root.get("credentialStore") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if CREDENTIAL_STORES.contains(&s.as_str()) => {
                config.credential_store = Some(s.clone());
            }
            Some(v) => config.errors.push(ConfigError {
                file: file.map(Path::to_path_buf),
                server: None,
                path: "credentialStore".into(),
                kind: match v {
                    Value::String(s) => ConfigErrorKind::Invalid(format!(
                        "{s:?} is not \"auto\", \"keychain\" or \"file\""
                    )),
                    _ => ConfigErrorKind::WrongType {
                        expected: "a string",
                        found: type_name(v),
                    },
                },
            }),
        }
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
    /// from the process environment. A UTF-8 byte order mark opening the
    /// file is skipped (with a warning).
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
        // Editors on Windows save a byte order mark before the JSON.
        let text = mcp_transport::bom::strip_bom_str(&text, &path.display());
        let value: Value = serde_json::from_str(text)
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
        if higher.credential_store.is_some() {
            self.credential_store = higher.credential_store;
        }
        self
    }
}

#[cfg(test)]
mod tests;
