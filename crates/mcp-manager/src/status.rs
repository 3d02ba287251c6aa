//! What the manager reports: per-server [`ServerStatus`] and the
//! [`ManagerEvent`]s an agent can subscribe to.

use std::fmt;
use std::time::Duration;

use mcp_types::ProtocolVersion;

/// The state of one configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// Connecting for the first time (spawning / connecting, handshake,
    /// first listings), within its startup timeout. Its tools, when known
    /// from the on-disk cache, are listed with `cached: true`.
    Starting,
    /// Connected and listed.
    Connected {
        /// The negotiated protocol revision.
        revision: ProtocolVersion,
        /// Number of tools.
        tools: usize,
        /// Number of prompts.
        prompts: usize,
        /// Number of resources.
        resources: usize,
    },
    /// Gave up: the first start failed (command not found, startup timeout,
    /// handshake refused, …) or reconnection ran out of attempts. Not
    /// retried; the server's tools, prompts and resources (cached ones
    /// included) are not in the namespace.
    Failed {
        /// Why, in one line (no secrets: URLs are redacted, env/header
        /// values never appear).
        why: String,
    },
    /// The server wants an OAuth login and its flow's user agent cannot
    /// ask anyone (`NoInteraction`: a daemon, the command line without
    /// `mcp login`). Not retried: log in, then start the manager again.
    /// Like `Failed`, nothing of the server is in the namespace.
    NeedsLogin {
        /// Which URL refused and what to do, in one line: `authorization
        /// needs login for <url>: <the user agent's hint>` (no secrets).
        why: String,
    },
    /// `"disabled": true` in the configuration: never started.
    Disabled,
    /// The connection was lost; attempt `attempt` (1-based) of the
    /// reconnection backoff is pending or in progress.
    Reconnecting {
        /// The attempt number, from 1.
        attempt: u32,
    },
    /// After [`crate::Manager::shutdown`].
    Stopped,
}

impl ServerStatus {
    /// `true` for `Connected`.
    pub fn is_connected(&self) -> bool {
        matches!(self, ServerStatus::Connected { .. })
    }

    /// `true` while the server may still become connected (`Starting`,
    /// `Reconnecting`).
    pub fn is_pending(&self) -> bool {
        matches!(
            self,
            ServerStatus::Starting | ServerStatus::Reconnecting { .. }
        )
    }
}

impl fmt::Display for ServerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerStatus::Starting => f.write_str("starting"),
            ServerStatus::Connected {
                revision,
                tools,
                prompts,
                resources,
            } => write!(
                f,
                "connected ({revision}; {tools} tools, {prompts} prompts, {resources} resources)"
            ),
            ServerStatus::Failed { why } => write!(f, "failed: {why}"),
            // `why` is the transport's "authorization needs login for <url>:
            // <what to do>": a prefix would only repeat it.
            ServerStatus::NeedsLogin { why } => f.write_str(why),
            ServerStatus::Disabled => f.write_str("disabled"),
            ServerStatus::Reconnecting { attempt } => write!(f, "reconnecting (attempt {attempt})"),
            ServerStatus::Stopped => f.write_str("stopped"),
        }
    }
}

/// A listing of a connected server that failed (`prompts/list`,
/// `resources/list`, or a `tools/list` after `list_changed`): the server
/// stays usable, but what that listing would hold is unknown, not empty.
/// See [`crate::Manager::listing_failures`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListingFailure {
    /// The method that failed, e.g. `"resources/list"`.
    pub method: String,
    /// Why, in one line (the error and its sources; no secrets).
    pub error: String,
}

/// Something that happened to a server, broadcast to every subscriber of
/// [`crate::Manager::events`] (a `tokio::sync::broadcast` channel of
/// [`crate::ManagerOptions::event_capacity`] events; a subscriber that falls
/// behind gets `RecvError::Lagged` and misses the oldest events).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManagerEvent {
    /// The server connected (first start or reconnection) and was listed.
    Connected {
        /// Server name.
        server: String,
        /// Negotiated revision.
        revision: ProtocolVersion,
    },
    /// The connection closed or failed at runtime; requests in flight
    /// failed with a closed error. Reconnection follows unless shutting down.
    Disconnected {
        /// Server name.
        server: String,
        /// Why, as the transport reported it.
        reason: String,
    },
    /// A reconnection attempt is scheduled after `delay`.
    Reconnecting {
        /// Server name.
        server: String,
        /// The attempt number, from 1.
        attempt: u32,
        /// The backoff delay before it.
        delay: Duration,
    },
    /// The server is `Failed` (see [`ServerStatus::Failed`]).
    Failed {
        /// Server name.
        server: String,
        /// Why.
        why: String,
    },
    /// The server's tools changed (first listing, `list_changed`
    /// notification, or reconnection): re-read [`crate::Manager::tools`].
    ToolsChanged {
        /// Server name.
        server: String,
    },
    /// The server's prompts changed.
    PromptsChanged {
        /// Server name.
        server: String,
    },
    /// The server's resources changed.
    ResourcesChanged {
        /// Server name.
        server: String,
    },
}

impl ManagerEvent {
    /// The server the event is about.
    pub fn server(&self) -> &str {
        match self {
            ManagerEvent::Connected { server, .. }
            | ManagerEvent::Disconnected { server, .. }
            | ManagerEvent::Reconnecting { server, .. }
            | ManagerEvent::Failed { server, .. }
            | ManagerEvent::ToolsChanged { server }
            | ManagerEvent::PromptsChanged { server }
            | ManagerEvent::ResourcesChanged { server } => server,
        }
    }
}
