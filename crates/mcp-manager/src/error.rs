//! The manager's error type.

use std::time::Duration;

use mcp_client::ClientError;

use crate::status::ServerStatus;

/// An error from [`crate::Manager`]. Ask it questions
/// ([`is_unavailable`](Self::is_unavailable), [`client_error`](Self::client_error))
/// rather than matching strings. Its `Display` describes the manager's own
/// level (which server, what state); the client's error behind `Client` is
/// its [`source`](std::error::Error::source), never repeated in the text.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ManagerError {
    /// No server has this name in the configuration.
    #[error("no server named {0:?}")]
    UnknownServer(String),
    /// No tool (prompt, resource) has this qualified name.
    #[non_exhaustive]
    #[error("no {kind} named {name:?}")]
    UnknownName {
        /// `"tool"`, `"prompt"` or `"resource"`.
        kind: &'static str,
        /// The qualified name asked for.
        name: String,
    },
    /// The server is not connected and will not be (failed, disabled,
    /// stopped), or the call policy is fail-fast.
    #[non_exhaustive]
    #[error("server {server:?} is unavailable ({status})")]
    Unavailable {
        /// Server name.
        server: String,
        /// Its status when the call gave up.
        status: ServerStatus,
    },
    /// The server needs an OAuth login that no one could be asked for
    /// ([`ServerStatus::NeedsLogin`]); the request was not sent.
    #[non_exhaustive]
    #[error("server {server:?} needs login: {why}")]
    NeedsLogin {
        /// Server name.
        server: String,
        /// What to do (the user agent's hint) and which URL refused.
        why: String,
    },
    /// The call waited for the server to (re)connect, in vain.
    #[non_exhaustive]
    #[error("server {server:?} did not connect within {} ms ({status})", waited.as_millis())]
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
    #[error("server {server:?}")]
    Client {
        /// Server name.
        server: String,
        /// The client error (boxed: it is large).
        #[source]
        source: Box<ClientError>,
    },
    /// The manager was shut down.
    #[error("the manager is shut down")]
    ShutDown,
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
