//! [`Manager`]: owns every configured server.

mod connect;
mod handler;
mod state;
mod supervisor;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{CallOptions, Client, Listing, LoadedSkill, RequestOptions};
use mcp_types::prompts::GetPromptResult;
use mcp_types::resources::ReadResourceResult;
use mcp_types::skills::Skill;
use mcp_types::tools::CallToolResult;
use serde::Serialize;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

pub(crate) use self::state::{Shared, Slot, SlotState};
use self::state::{stop, usable};
use crate::cache::ToolCache;
use crate::config::{McpConfig, ServerConfig};
use crate::error::ManagerError;
use crate::namespace::{Namespace, PromptEntry, ResourceEntry, ServerLists, ToolEntry};
use crate::options::{ManagerOptions, UnavailablePolicy};
use crate::revision_memory::{RevisionHint, RevisionMemory};
use crate::status::{ManagerEvent, ServerStatus};

/// Owns every configured server: starts them in parallel, keeps one
/// namespace of their tools, prompts and resources, reconnects after
/// runtime disconnects, and shuts them all down.
///
/// Cheap to clone (an `Arc` inside). When the last clone is dropped without
/// [`shutdown`](Self::shutdown), the supervisor tasks are aborted and the
/// transports dropped (stdio: SIGKILL to each server's process group); call
/// `shutdown` for a graceful end.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_manager::{Manager, ManagerOptions, McpConfig};
/// let config = McpConfig::load_existing(&["/home/me/.config/agent/mcp.json", ".mcp.json"])?;
/// for e in &config.errors { eprintln!("skipped: {e}"); }
/// let manager = Manager::start(config, ManagerOptions::new("agent", "1.0")).await;
/// manager.wait_started(std::time::Duration::from_secs(60)).await;
/// for t in manager.tools() { println!("{} ({})", t.qualified_name, t.server); }
/// let result = manager
///     .call_tool("everything__echo", serde_json::json!({"message": "hi"}), mcp_manager::CallOptions::default())
///     .await?;
/// manager.shutdown().await;
/// # let _ = result; Ok(()) }
/// ```
#[derive(Clone)]
pub struct Manager {
    handle: Arc<Handle>,
}

struct Handle {
    shared: Arc<Shared>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.shutdown.cancel();
        for t in self
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
        {
            t.abort();
        }
    }
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

/// Beyond a server's startup timeout, how long a call that restarted it
/// after a login waits for the start to settle: 1 000 ms.
#[cfg(feature = "oauth")]
const LOGIN_RESTART_SLACK: Duration = Duration::from_millis(1_000);

/// How long [`Manager::shutdown`] waits, past its bound, for the tasks it
/// aborted to end: 1 s (1 000 ms).
const ABORTED_TASKS_BOUND: Duration = Duration::from_millis(1_000);

impl Manager {
    /// Starts every enabled server of `config` in parallel (one tokio task
    /// each) and returns at once: statuses are `Starting` (or `Disabled`),
    /// and tools known from the on-disk cache are already listed, marked
    /// `cached`. Entries in `config.errors` are not started (they are the
    /// caller's to report).
    ///
    /// Must run inside a tokio runtime (any flavour); outside one, every
    /// server is `Failed` with that reason.
    pub async fn start(config: McpConfig, options: ManagerOptions) -> Manager {
        let cache = options.cache_dir.clone().map(ToolCache::new);
        let (events, _) = broadcast::channel(options.event_capacity.max(1));
        let mut slots = BTreeMap::new();
        for (name, server) in config.servers {
            let mut lists = ServerLists::default();
            let status = if server.disabled {
                ServerStatus::Disabled
            } else {
                if let Some(tools) = cache.as_ref().and_then(|c| c.load(&server)) {
                    lists.tools = Arc::new(tools.into_iter().map(Arc::new).collect());
                    lists.tools_cached = true;
                }
                ServerStatus::Starting
            };
            let (state, _) = watch::channel(SlotState {
                status,
                client: None,
                transport: None,
                signals: None,
                pid: None,
                lists,
            });
            slots.insert(
                name,
                Arc::new(Slot {
                    revision_hint: Arc::new(RevisionHint::new(
                        server.clone(),
                        options.revision_dir.as_ref().map(RevisionMemory::new),
                    )),
                    config: server,
                    state,
                    login_stored: tokio::sync::Notify::new(),
                }),
            );
        }
        let shared = Arc::new(Shared::new(options, slots, events, cache));
        shared.lists_changed();
        let mut tasks = Vec::new();
        let runtime = tokio::runtime::Handle::try_current();
        for slot in shared.slots().values() {
            if slot.config.disabled {
                continue;
            }
            match &runtime {
                Ok(rt) => tasks.push(rt.spawn(supervisor::supervise(shared.clone(), slot.clone()))),
                Err(e) => shared.set_failed(slot, format!("no tokio runtime: {e}")),
            }
        }
        Manager {
            handle: Arc::new(Handle {
                shared,
                tasks: Mutex::new(tasks),
            }),
        }
    }

    fn shared(&self) -> &Shared {
        &self.handle.shared
    }

    fn slot(&self, server: &str) -> Result<&Arc<Slot>, ManagerError> {
        self.shared()
            .slot(server)
            .ok_or_else(|| ManagerError::UnknownServer(server.to_owned()))
    }

    /// Every configured server's status, by name.
    pub fn status(&self) -> BTreeMap<String, ServerStatus> {
        self.shared()
            .slots()
            .iter()
            .map(|(n, s)| (n.clone(), s.state.borrow().status.clone()))
            .collect()
    }

    /// One server's status; `None` for an unknown name.
    pub fn server_status(&self, server: &str) -> Option<ServerStatus> {
        self.shared()
            .slots()
            .get(server)
            .map(|s| s.state.borrow().status.clone())
    }

    /// A server's configuration.
    pub fn server_config(&self, server: &str) -> Option<&ServerConfig> {
        self.shared().slots().get(server).map(|s| &s.config)
    }

    /// The process id of a connected stdio server.
    pub fn pid(&self, server: &str) -> Option<u32> {
        self.shared()
            .slots()
            .get(server)
            .and_then(|s| s.state.borrow().pid)
    }

    /// Waits until no server is `Starting` (each is connected, failed or
    /// disabled), or `timeout` passes. Returns `true` when all settled.
    /// Every server has its own startup timeout, so this returns after the
    /// longest of them at worst.
    pub async fn wait_started(&self, timeout: Duration) -> bool {
        let waits = self.shared().slots().values().map(|slot| {
            let mut rx = slot.state.subscribe();
            async move {
                let _ = rx
                    .wait_for(|s| !matches!(s.status, ServerStatus::Starting))
                    .await;
            }
        });
        let all = async {
            for w in waits.collect::<Vec<_>>() {
                w.await;
            }
        };
        tokio::time::timeout(timeout, all).await.is_ok()
    }

    /// The current namespace (a snapshot).
    pub fn namespace(&self) -> Arc<Namespace> {
        self.shared().namespace()
    }

    /// Every tool of every server under its qualified name, sorted
    /// (cached tools of servers not connected included, marked `cached`).
    pub fn tools(&self) -> Vec<ToolEntry> {
        self.namespace().tools().to_vec()
    }

    /// Every prompt under its qualified name, sorted.
    pub fn prompts(&self) -> Vec<PromptEntry> {
        self.namespace().prompts().to_vec()
    }

    /// Every resource under its qualified name, sorted.
    pub fn resources(&self) -> Vec<ResourceEntry> {
        self.namespace().resources().to_vec()
    }

    /// The resource `uri` of `server`, when listed.
    pub fn resource(&self, server: &str, uri: &str) -> Option<ResourceEntry> {
        self.namespace().resource(server, uri).cloned()
    }

    /// `(server, tool)` of a qualified tool name.
    pub fn resolve_tool(&self, qualified: &str) -> Option<(String, String)> {
        self.namespace()
            .resolve_tool(qualified)
            .map(|(s, t)| (s.to_owned(), t.to_owned()))
    }

    /// The listings of `server` that failed at its last connection or
    /// refresh (`prompts/list`, `resources/list`, a `tools/list` after
    /// `list_changed`), in the order they failed; empty for an unknown
    /// server or when every listing succeeded. A failed listing counts as
    /// empty in [`ServerStatus::Connected`]; this says it is unknown.
    pub fn listing_failures(&self, server: &str) -> Vec<crate::status::ListingFailure> {
        self.shared()
            .slots()
            .get(server)
            .map(|s| s.state.borrow().lists.failures.clone())
            .unwrap_or_default()
    }

    /// The client of a connected server.
    pub fn client(&self, server: &str) -> Option<Client> {
        self.shared()
            .slots()
            .get(server)
            .and_then(|s| s.state.borrow().client.clone())
    }

    /// A subscription to [`ManagerEvent`]s from now on.
    pub fn events(&self) -> broadcast::Receiver<ManagerEvent> {
        self.shared().events.subscribe()
    }

    /// The client of `server`, waiting for it per `policy` while it is
    /// `Starting` or `Reconnecting`.
    ///
    /// Errors: `UnknownServer`; `Unavailable` (failed, disabled, stopped,
    /// or `FailFast`); `WaitTimeout`; `ShutDown`.
    pub async fn wait_for_client(
        &self,
        server: &str,
        policy: UnavailablePolicy,
    ) -> Result<Client, ManagerError> {
        if self.shared().shutdown.is_cancelled() {
            return Err(ManagerError::ShutDown);
        }
        let slot = self.slot(server)?;
        let mut rx = slot.state.subscribe();
        #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
        let mut status = {
            let s = rx.borrow_and_update();
            match usable(&s) {
                Some(c) => return Ok(c),
                None => s.status.clone(),
            }
        };
        #[cfg(feature = "oauth")]
        if matches!(status, ServerStatus::NeedsLogin { .. }) && self.login_now_stored(slot).await {
            // A login was stored since (`mcp login` in another terminal):
            // start again, once, and wait for that start whatever the policy.
            slot.state
                .send_modify(|s| s.status = ServerStatus::Starting);
            slot.login_stored.notify_one();
            let limit = connect::startup_timeout(&slot.config, &self.shared().options)
                + LOGIN_RESTART_SLACK;
            let _ = tokio::time::timeout(
                limit,
                rx.wait_for(|s| usable(s).is_some() || !s.status.is_pending()),
            )
            .await;
            let s = rx.borrow_and_update();
            match usable(&s) {
                Some(c) => return Ok(c),
                None => status = s.status.clone(),
            }
        }
        let unavailable = |status| match status {
            ServerStatus::NeedsLogin { why } => ManagerError::NeedsLogin {
                server: server.to_owned(),
                why,
            },
            status => ManagerError::Unavailable {
                server: server.to_owned(),
                status,
            },
        };
        // A connection lost but not yet handled by the supervisor counts as
        // reconnecting.
        if !(status.is_pending() || status.is_connected()) {
            return Err(unavailable(status));
        }
        let UnavailablePolicy::Wait(limit) = policy else {
            return Err(unavailable(status));
        };
        let waited = tokio::time::timeout(
            limit,
            rx.wait_for(|s| {
                usable(s).is_some() || !(s.status.is_pending() || s.status.is_connected())
            }),
        )
        .await;
        match waited {
            Ok(Ok(s)) => match usable(&s) {
                Some(c) => Ok(c),
                None => Err(unavailable(s.status.clone())),
            },
            Ok(Err(_)) => Err(ManagerError::ShutDown),
            Err(_) => Err(ManagerError::WaitTimeout {
                server: server.to_owned(),
                waited: limit,
                status: slot.state.borrow().status.clone(),
            }),
        }
    }

    /// `true` when the server's OAuth flow finds a login in its store.
    #[cfg(feature = "oauth")]
    async fn login_now_stored(&self, slot: &Slot) -> bool {
        let Some(oauth) = self
            .shared()
            .options
            .oauth
            .as_ref()
            .and_then(|factory| factory(&slot.config))
        else {
            return false;
        };
        matches!(oauth.status().await, Ok(Some(_)))
    }

    /// Calls a tool by its qualified name (spec `server/tools` § Calling
    /// Tools). When the server is `Starting` or `Reconnecting` (e.g. the
    /// tool is `cached`), the call waits per
    /// [`ManagerOptions::unavailable`]. A tool call is never retried: a
    /// connection lost while it runs fails it with a closed error.
    ///
    /// A name not in the namespace while a server's tool listing is stale
    /// (a `tools/list_changed` arrived after that listing was requested,
    /// and its refresh is not in yet) is looked up again once that refresh
    /// is in, waiting at most the debounce plus that server's request
    /// timeout.
    ///
    /// `arguments` and `options` are what [`Client::call_tool`] takes:
    /// anything that serializes to a JSON object (`()` or `None` for none),
    /// and a [`CallOptions`] or a plain [`mcp_client::RequestOptions`].
    ///
    /// Errors: `UnknownName` (also when the tool vanished from the server's
    /// fresh list after waiting), `Unavailable`, `WaitTimeout`,
    /// `ShutDown`, `Client` (the server's or the transport's error, or the
    /// client's own checks: see [`Client::call_tool`]).
    pub async fn call_tool(
        &self,
        qualified: &str,
        arguments: impl Serialize,
        options: impl Into<CallOptions>,
    ) -> Result<CallToolResult, ManagerError> {
        let unknown = || ManagerError::UnknownName {
            kind: "tool",
            name: qualified.to_owned(),
        };
        let (server, _) = self
            .resolve_tool_settled(qualified)
            .await
            .ok_or_else(unknown)?;
        let client = self
            .wait_for_client(&server, self.shared().options.unavailable)
            .await?;
        // The list may have changed while waiting.
        let (server2, tool) = self
            .resolve_tool_settled(qualified)
            .await
            .ok_or_else(unknown)?;
        if server2 != server {
            return Err(unknown());
        }
        let result = client.call_tool(&tool, arguments, options).await;
        self.map_client_error(&server, result)
    }

    /// Gets a prompt by its qualified name (spec `server/prompts`), waiting
    /// like [`call_tool`](Self::call_tool), also for a refresh after
    /// `prompts/list_changed` when the name is not listed.
    ///
    /// `arguments` and `options` as [`Client::get_prompt`] takes them.
    ///
    /// Errors: as [`call_tool`](Self::call_tool).
    pub async fn get_prompt(
        &self,
        qualified: &str,
        arguments: Option<BTreeMap<String, String>>,
        options: RequestOptions,
    ) -> Result<GetPromptResult, ManagerError> {
        let (server, prompt) = self
            .resolve_prompt_settled(qualified)
            .await
            .ok_or_else(|| ManagerError::UnknownName {
                kind: "prompt",
                name: qualified.to_owned(),
            })?;
        let client = self
            .wait_for_client(&server, self.shared().options.unavailable)
            .await?;
        let result = client.get_prompt(prompt, arguments, options).await;
        self.map_client_error(&server, result)
    }

    /// Reads resource `uri` of `server` (spec `server/resources`), waiting
    /// like [`call_tool`](Self::call_tool). The URI need not be listed
    /// (templates, dynamic resources).
    ///
    /// `options` as [`Client::read_resource`] takes them.
    ///
    /// Errors: `UnknownServer`, `Unavailable`, `WaitTimeout`, `ShutDown`, `Client`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        options: RequestOptions,
    ) -> Result<ReadResourceResult, ManagerError> {
        let client = self
            .wait_for_client(server, self.shared().options.unavailable)
            .await?;
        let result = client.read_resource(uri, options).await;
        self.map_client_error(server, result)
    }

    /// The skills of `server` (extension `io.modelcontextprotocol/skills`:
    /// `skills/list` followed through `nextCursor`), waiting like
    /// [`call_tool`](Self::call_tool). Skills are not listed when a server
    /// starts, only when asked; listing reads no skill file. A skill is the
    /// pair of its server and its `uri` (names may repeat, within a server
    /// and across servers): load it from the same server.
    ///
    /// Errors: `UnknownServer`, `Unavailable`, `WaitTimeout`, `ShutDown`,
    /// `Client` (e.g. the server did not declare the extension:
    /// `CapabilityNotSupported`). `options` apply to each page, as in
    /// [`Client::skills_listing`].
    pub async fn list_skills(
        &self,
        server: &str,
        options: RequestOptions,
    ) -> Result<Listing<Skill>, ManagerError> {
        let client = self
            .wait_for_client(server, self.shared().options.unavailable)
            .await?;
        let result = client.skills_listing(options).await;
        self.map_client_error(server, result)
    }

    /// The entry of the skill of `server` whose `SKILL.md` is at `uri`
    /// (`skills/get`), listed or not, waiting like
    /// [`call_tool`](Self::call_tool).
    ///
    /// Errors: as [`list_skills`](Self::list_skills); an unknown URI is the
    /// server's `-32602` (`Client`).
    pub async fn get_skill(
        &self,
        server: &str,
        uri: &str,
        options: RequestOptions,
    ) -> Result<Skill, ManagerError> {
        let client = self
            .wait_for_client(server, self.shared().options.unavailable)
            .await?;
        let result = client.get_skill(uri, options).await;
        self.map_client_error(server, result)
    }

    /// Loads the skill `entry` of `server` (see
    /// [`mcp_client::Client::load_skill`]: `SKILL.md` read and verified
    /// against `entry`, size, digest and frontmatter), waiting like
    /// [`call_tool`](Self::call_tool). The [`LoadedSkill`] reads its
    /// supporting files from the same server, each verified.
    ///
    /// `options` as [`Client::load_skill`] takes them.
    ///
    /// Errors: as [`list_skills`](Self::list_skills); a file that does not
    /// match `entry` is `Client` with
    /// [`mcp_client::ClientError::SkillVerification`].
    pub async fn load_skill(
        &self,
        server: &str,
        entry: &Skill,
        options: RequestOptions,
    ) -> Result<LoadedSkill, ManagerError> {
        let client = self
            .wait_for_client(server, self.shared().options.unavailable)
            .await?;
        let result = client.load_skill(entry, options).await;
        self.map_client_error(server, result)
    }

    fn map_client_error<T>(
        &self,
        server: &str,
        result: Result<T, mcp_client::ClientError>,
    ) -> Result<T, ManagerError> {
        result.map_err(|source| {
            if let (Some(transport_error), Ok(slot)) = (source.transport_error(), self.slot(server))
                && let Some(signals) = &slot.state.borrow().signals
            {
                if transport_error.is_closed() {
                    // In case the close event has not reached the supervisor yet.
                    signals.set_closed(crate::error::error_chain(&source));
                } else if !transport_error.is_timeout() && !transport_error.is_cancelled() {
                    // I/O, HTTP, session lost…: is the server still there?
                    signals.raise_suspect();
                }
            }
            ManagerError::Client {
                server: server.to_owned(),
                source: Box::new(source),
            }
        })
    }

    /// [`shutdown`](Self::shutdown) without the grace a stdio server is
    /// given: first SIGKILL to the process group of every stdio server
    /// started and not yet reaped (connected, still starting, or already
    /// being shut down), then the shutdown, which returns once they are
    /// reaped. For a caller that will not wait, such as a user pressing
    /// Ctrl-C a second time; a `shutdown` already running returns as soon
    /// as its servers are gone. HTTP connections are closed as `shutdown`
    /// closes them (bounded by [`ManagerOptions::shutdown_timeout`]).
    pub async fn kill(&self) {
        let shared = &self.handle.shared;
        // No supervisor may start a server after the kill.
        shared.shutdown.cancel();
        shared.stdio_servers.kill_all();
        self.shutdown().await;
    }

    /// Stops every server concurrently: supervisors end, each connection is
    /// closed (stdio: stdin closed, then SIGTERM and SIGKILL to the process
    /// group, see `mcp-transport-stdio`; HTTP: session `DELETE`), all within
    /// [`ManagerOptions::shutdown_timeout`]; whatever is still running then
    /// is killed. Statuses become `Stopped`. Calling it again is harmless.
    /// A server task that does not end within 1 s of being aborted (stuck
    /// in blocking code) is left behind with a warning, so shutdown always
    /// returns.
    pub async fn shutdown(&self) {
        let shared = self.handle.shared.clone();
        shared.shutdown.cancel();
        let bound = shared.options.shutdown_timeout;
        let mut tasks: Vec<JoinHandle<()>> = self
            .handle
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        let mut closing = tokio::task::JoinSet::new();
        for slot in shared.slots().values() {
            if let Some(t) = stop(slot) {
                closing.spawn(async move {
                    if let Err(e) = t.close().await {
                        tracing::debug!(error = %e, "close during shutdown failed");
                    }
                });
            }
        }
        let all = async {
            while closing.join_next().await.is_some() {}
            // Supervisors return at their next await point.
            // (a finished handle is removed: it must not be polled again)
            while let Some(t) = tasks.last_mut() {
                let _ = t.await;
                tasks.pop();
            }
        };
        if tokio::time::timeout(bound, all).await.is_err() {
            tracing::warn!(
                bound_ms = bound.as_millis() as u64,
                "shutdown bound reached; killing what is left"
            );
        }
        // Aborted tasks drop their transports (stdio: SIGKILL on drop) at
        // their next await point. One stuck in blocking code never gets
        // there: it is left behind (logged) rather than waited on forever.
        closing.abort_all();
        for t in &tasks {
            t.abort();
        }
        let aborted = async {
            while closing.join_next().await.is_some() {}
            for t in tasks {
                let _ = t.await;
            }
        };
        if tokio::time::timeout(ABORTED_TASKS_BOUND, aborted)
            .await
            .is_err()
        {
            tracing::warn!(
                bound_ms = ABORTED_TASKS_BOUND.as_millis() as u64,
                "a server task did not end once aborted (blocked outside the runtime); shutdown returns without it"
            );
        }
        // Supervisors have ended (or were left behind above): make the
        // final state definitive.
        for slot in shared.slots().values() {
            drop(stop(slot));
        }
        shared.lists_changed();
        tracing::debug!("manager shut down");
    }
}
