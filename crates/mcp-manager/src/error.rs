//! The manager's error type.

use std::fmt;
use std::time::Duration;

use mcp_client::ClientError;

use crate::status::ServerStatus;

/// An error from [`crate::Manager`]. Ask it questions
/// ([`is_unavailable`](Self::is_unavailable), [`client_error`](Self::client_error))
/// rather than matching strings. Its `Display` says the whole useful
/// story on one line, as `println!("{e}")` shows it: which server, what
/// state, and for `Client` the client error's own text
/// (`server "py": server answered tools/call with an error: …`). The chain
/// stays free of repeats: the client error's text is in this `Display`, so
/// [`source`](std::error::Error::source) continues with the client error's
/// cause (a transport or I/O error), not the client error itself; reach the
/// client error with [`client_error`](Self::client_error).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ManagerError {
    /// No server has this name in the configuration.
    UnknownServer(String),
    /// No tool (prompt, resource) has this qualified name.
    #[non_exhaustive]
    UnknownName {
        /// `"tool"`, `"prompt"` or `"resource"`.
        kind: &'static str,
        /// The qualified name asked for.
        name: String,
    },
    /// The server is not connected and will not be (failed, disabled,
    /// stopped), or the call policy is fail-fast.
    #[non_exhaustive]
    Unavailable {
        /// Server name.
        server: String,
        /// Its status when the call gave up.
        status: ServerStatus,
    },
    /// The server needs an OAuth login that no one could be asked for
    /// ([`ServerStatus::NeedsLogin`]); the request was not sent.
    #[non_exhaustive]
    NeedsLogin {
        /// Server name.
        server: String,
        /// What to do (the user agent's hint) and which URL refused.
        why: String,
    },
    /// The call waited for the server to (re)connect, in vain.
    #[non_exhaustive]
    WaitTimeout {
        /// Server name.
        server: String,
        /// How long was waited.
        waited: Duration,
        /// Its status when the wait ended.
        status: ServerStatus,
    },
    /// The server's client failed the request (transport, server error,
    /// closed connection, …).
    #[non_exhaustive]
    Client {
        /// Server name.
        server: String,
        /// The client error (boxed: it is large).
        source: Box<ClientError>,
    },
    /// The manager was shut down.
    ShutDown,
}

impl fmt::Display for ManagerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManagerError::UnknownServer(name) => write!(f, "no server named {name:?}"),
            ManagerError::UnknownName { kind, name } => write!(f, "no {kind} named {name:?}"),
            ManagerError::Unavailable { server, status } => {
                write!(f, "server {server:?} is unavailable ({status})")
            }
            ManagerError::NeedsLogin { server, why } => {
                write!(f, "server {server:?} needs login: {why}")
            }
            ManagerError::WaitTimeout {
                server,
                waited,
                status,
            } => write!(
                f,
                "server {server:?} did not connect within {} ms ({status})",
                waited.as_millis()
            ),
            ManagerError::Client { server, source } => write!(f, "server {server:?}: {source}"),
            ManagerError::ShutDown => f.write_str("the manager is shut down"),
        }
    }
}

impl std::error::Error for ManagerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // The client error's text is this level's Display: the chain
            // goes on with what caused it.
            ManagerError::Client { source, .. } => source.source(),
            _ => None,
        }
    }
}

impl ManagerError {
    /// `true` for `Unavailable`, `NeedsLogin`, `WaitTimeout` and `ShutDown`: the request
    /// was never sent.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            ManagerError::Unavailable { .. }
                | ManagerError::NeedsLogin { .. }
                | ManagerError::WaitTimeout { .. }
                | ManagerError::ShutDown
        )
    }

    /// The client error, for `Client`.
    pub fn client_error(&self) -> Option<&ClientError> {
        match self {
            ManagerError::Client { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }

    /// The server concerned, when there is one.
    pub fn server(&self) -> Option<&str> {
        match self {
            ManagerError::UnknownServer(s) => Some(s),
            ManagerError::Unavailable { server, .. }
            | ManagerError::NeedsLogin { server, .. }
            | ManagerError::WaitTimeout { server, .. }
            | ManagerError::Client { server, .. } => Some(server),
            _ => None,
        }
    }
}

/// `e` and each of its sources, once each, joined with `": "` (every
/// `Display` of the stack describes its own level only; a level with no
/// text adds nothing). The one-line "why" of a status, an event or a
/// listing failure, and what the `mcp` command line prints for an error:
/// `server "a": connection closed: broken pipe`.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !part.is_empty() {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}
