//! The state every supervisor and every [`Manager`](super::Manager) handle
//! share: one slot per server (its status, client and lists), the
//! namespace built from them, the events and the tool cache.

mod settle;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use mcp_client::Client;
use mcp_transport::{CancellationToken, Transport};
use mcp_types::prompts::Prompt;
use mcp_types::resources::Resource;
use mcp_types::tools::Tool;
use tokio::sync::{broadcast, watch};

use super::connect;
use super::handler::Signals;
use crate::cache::ToolCache;
use crate::config::ServerConfig;
use crate::namespace::{List, Namespace, ServerLists};
use crate::options::ManagerOptions;
use crate::status::{ManagerEvent, ServerStatus};

/// The live state of one server.
#[derive(Clone)]
pub(crate) struct SlotState {
    pub(crate) status: ServerStatus,
    pub(crate) client: Option<Client>,
    pub(crate) transport: Option<Arc<dyn Transport>>,
    pub(crate) signals: Option<Arc<Signals>>,
    pub(crate) pid: Option<u32>,
    pub(crate) lists: ServerLists,
}

pub(crate) struct Slot {
    pub(crate) config: ServerConfig,
    pub(crate) state: watch::Sender<SlotState>,
    /// Wakes a supervisor parked on `NeedsLogin` once a login is stored
    /// (found by the next call, never polled).
    pub(crate) login_stored: tokio::sync::Notify,
    /// Whether the server needs a handshake revision for its server-initiated
    /// requests, learnt by its connections' handlers.
    pub(crate) revision_hint: Arc<crate::revision_memory::RevisionHint>,
}

/// What the supervisors and the [`Manager`] handles share.
pub(crate) struct Shared {
    pub(crate) options: ManagerOptions,
    slots: BTreeMap<String, Arc<Slot>>,
    /// The namespace, and the generation of the lists it was built from.
    namespace: RwLock<(u64, Arc<Namespace>)>,
    /// The generation of the lists: raised after every change to them.
    lists_generation: AtomicU64,
    /// Held while the namespace is being rebuilt.
    rebuild: Mutex<()>,
    pub(super) events: broadcast::Sender<ManagerEvent>,
    pub(crate) shutdown: CancellationToken,
    /// The stdio servers started, for [`Manager::kill`](super::Manager::kill).
    pub(crate) stdio_servers: connect::StdioServers,
    cache: Option<ToolCache>,
}

impl Shared {
    /// The state of `slots`, with no namespace built yet.
    pub(super) fn new(
        options: ManagerOptions,
        slots: BTreeMap<String, Arc<Slot>>,
        events: broadcast::Sender<ManagerEvent>,
        cache: Option<ToolCache>,
    ) -> Shared {
        Shared {
            options,
            slots,
            namespace: RwLock::new((0, Arc::new(Namespace::default()))),
            lists_generation: AtomicU64::new(0),
            rebuild: Mutex::new(()),
            events,
            shutdown: CancellationToken::new(),
            stdio_servers: connect::StdioServers::default(),
            cache,
        }
    }

    /// The slot of the server named `name`.
    pub(super) fn slot(&self, name: &str) -> Option<&Arc<Slot>> {
        self.slots.get(name)
    }

    /// Every slot, by server name.
    pub(super) fn slots(&self) -> &BTreeMap<String, Arc<Slot>> {
        &self.slots
    }

    pub(crate) fn emit(&self, event: ManagerEvent) {
        // No subscriber is fine.
        let _ = self.events.send(event);
    }

    /// Marks the namespace stale after a change to some slot's lists (made
    /// before this call). It is rebuilt when next read ([`Shared::namespace`]),
    /// once for any number of changes: 50 servers connecting one after
    /// another rebuilt it 50 times, each time whole (tens of milliseconds).
    pub(super) fn lists_changed(&self) {
        self.lists_generation.fetch_add(1, Ordering::Release);
    }

    /// The namespace of the lists as they are now: rebuilt from every slot's
    /// lists when they changed since it was built. Whoever saw a change
    /// (a `Connected` status, say: the lists are set before it) sees it here.
    pub(crate) fn namespace(&self) -> Arc<Namespace> {
        let current = |want: u64| {
            let ns = self.namespace.read().unwrap_or_else(|p| p.into_inner());
            (ns.0 >= want).then(|| ns.1.clone())
        };
        if let Some(ns) = current(self.lists_generation.load(Ordering::Acquire)) {
            return ns;
        }
        let _guard = self.rebuild.lock().unwrap_or_else(|p| p.into_inner());
        // The generation first, then the lists: they are at least that new.
        let want = self.lists_generation.load(Ordering::Acquire);
        if let Some(ns) = current(want) {
            return ns; // rebuilt by another reader meanwhile
        }
        let lists: BTreeMap<String, ServerLists> = self
            .slots
            .iter()
            .map(|(name, slot)| (name.clone(), slot.state.borrow().lists.clone()))
            .collect();
        let ns = Arc::new(Namespace::build(&lists));
        *self.namespace.write().unwrap_or_else(|p| p.into_inner()) = (want, ns.clone());
        ns
    }

    fn store_cache(&self, slot: &Slot, tools: &[Arc<Tool>]) {
        if let Some(cache) = &self.cache
            && let Err(e) = cache.store(&slot.config, tools)
        {
            tracing::warn!(server = %slot.config.name, dir = %cache.dir().display(), error = %e, "cannot write the tool cache");
        }
    }

    pub(crate) fn set_connected(&self, slot: &Slot, conn: &connect::LiveServer) {
        let revision = conn.client.protocol_version();
        let lists = conn.lists.clone();
        let mut tools_changed = false;
        // Lists and namespace first, then the status and client: whoever
        // sees `Connected` (or gets the client) also sees the new names.
        slot.state.send_modify(|s| {
            tools_changed = s.lists.tools != lists.tools || s.lists.tools_cached;
            s.lists = lists.clone();
        });
        self.lists_changed();
        slot.state.send_modify(|s| {
            s.status = ServerStatus::Connected {
                revision,
                tools: lists.tools.len(),
                prompts: lists.prompts.len(),
                resources: lists.resources.len(),
            };
            s.client = Some(conn.client.clone());
            s.transport = Some(conn.transport.clone());
            s.signals = Some(conn.signals.clone());
            s.pid = conn.pid;
        });
        self.store_cache(slot, &lists.tools);
        tracing::info!(server = %slot.config.name, %revision, tools = lists.tools.len(), "server connected");
        self.emit(ManagerEvent::Connected {
            server: slot.config.name.clone(),
            revision,
        });
        if tools_changed {
            self.emit(ManagerEvent::ToolsChanged {
                server: slot.config.name.clone(),
            });
        }
    }

    /// After a runtime disconnect: the last lists stay, marked cached.
    pub(crate) fn set_disconnected(&self, slot: &Slot, attempt: u32) {
        slot.state.send_modify(|s| {
            s.client = None;
            s.transport = None;
            s.signals = None;
            s.pid = None;
            s.lists.tools_cached = true;
            s.status = ServerStatus::Reconnecting { attempt };
            // Inside: whoever sees the new status sees the lists as stale.
            self.lists_changed();
        });
    }

    /// The server is given up: its tools, prompts and resources leave the
    /// namespace (nothing an agent is offered should be uncallable).
    pub(crate) fn set_failed(&self, slot: &Slot, why: String) {
        self.give_up(slot, ServerStatus::Failed { why: why.clone() }, why);
    }

    /// The server needs a login no one could be asked for: given up as
    /// [`set_failed`](Self::set_failed) does, with its own status.
    pub(crate) fn set_needs_login(&self, slot: &Slot, why: String) {
        self.give_up(slot, ServerStatus::NeedsLogin { why: why.clone() }, why);
    }

    /// Drops the server's connection and lists, sets `status` and reports
    /// the server as failed with `why`.
    fn give_up(&self, slot: &Slot, status: ServerStatus, why: String) {
        slot.state.send_modify(|s| {
            s.client = None;
            s.transport = None;
            s.signals = None;
            s.pid = None;
            s.lists = ServerLists::default();
            s.status = status;
            // Inside: whoever sees the new status sees the lists as stale.
            self.lists_changed();
        });
        self.emit(ManagerEvent::Failed {
            server: slot.config.name.clone(),
            why,
        });
    }

    fn update_counts(s: &mut SlotState) {
        if let ServerStatus::Connected {
            tools,
            prompts,
            resources,
            ..
        } = &mut s.status
        {
            *tools = s.lists.tools.len();
            *prompts = s.lists.prompts.len();
            *resources = s.lists.resources.len();
        }
    }

    /// The tools of a refresh requested at `requested` (see
    /// [`crate::namespace::ListedAt`]).
    pub(crate) fn set_tools(&self, slot: &Slot, tools: Vec<Tool>, requested: u64) {
        let tools: Arc<Vec<Arc<Tool>>> = Arc::new(tools.into_iter().map(Arc::new).collect());
        slot.state.send_modify(|s| {
            s.lists.tools = tools.clone();
            s.lists.tools_cached = false;
            s.lists.listed_at.set(List::Tools, requested);
            s.lists.record("tools/list", None);
            Self::update_counts(s);
            self.lists_changed();
        });
        self.store_cache(slot, &tools);
        self.emit(ManagerEvent::ToolsChanged {
            server: slot.config.name.clone(),
        });
    }

    /// The prompts of a refresh requested at `requested`.
    pub(crate) fn set_prompts(&self, slot: &Slot, prompts: Vec<Prompt>, requested: u64) {
        slot.state.send_modify(|s| {
            s.lists.prompts = Arc::new(prompts);
            s.lists.listed_at.set(List::Prompts, requested);
            s.lists.record("prompts/list", None);
            Self::update_counts(s);
            self.lists_changed();
        });
        self.emit(ManagerEvent::PromptsChanged {
            server: slot.config.name.clone(),
        });
    }

    /// A refresh of `list` after `list_changed`, requested at `requested`,
    /// failed: the last list stays, and the failure is recorded (see
    /// [`Manager::listing_failures`]). The refresh is over all the same:
    /// a call waiting for it ([`Shared::settle`]) goes on.
    pub(crate) fn set_listing_failed(
        &self,
        slot: &Slot,
        list: List,
        error: String,
        requested: u64,
    ) {
        slot.state.send_modify(|s| {
            s.lists.record(list.method(), Some(error));
            s.lists.listed_at.set(list, requested);
        });
    }

    /// The resources of a refresh requested at `requested`.
    pub(crate) fn set_resources(&self, slot: &Slot, resources: Vec<Resource>, requested: u64) {
        slot.state.send_modify(|s| {
            s.lists.resources = Arc::new(resources);
            s.lists.listed_at.set(List::Resources, requested);
            s.lists.record("resources/list", None);
            Self::update_counts(s);
            self.lists_changed();
        });
        self.emit(ManagerEvent::ResourcesChanged {
            server: slot.config.name.clone(),
        });
    }
}

/// The client of `s` if its connection is open; when it has closed, tells
/// the supervisor (in case its close event is still on the way).
pub(super) fn usable(s: &SlotState) -> Option<Client> {
    let client = s.client.as_ref()?;
    if client.is_connected() {
        return Some(client.clone());
    }
    if let Some(signals) = &s.signals {
        signals.set_closed("connection closed".to_owned());
    }
    None
}

/// Marks `slot` stopped (unless disabled) and takes its transport.
pub(super) fn stop(slot: &Slot) -> Option<Arc<dyn Transport>> {
    let mut transport = None;
    slot.state.send_modify(|s| {
        transport = s.transport.take();
        s.client = None;
        s.signals = None;
        s.pid = None;
        s.lists.tools_cached = true;
        if !matches!(s.status, ServerStatus::Disabled) {
            s.status = ServerStatus::Stopped;
        }
    });
    transport
}
