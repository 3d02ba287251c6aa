//! [`Connection`]: the state of one connection, shared by every `Client`
//! clone, the receive loop, the multi round-trip loop and the
//! subscriptions: the transport, the negotiated session (and its
//! re-negotiation), the tool cache, the generations of the lists, the
//! subscriptions, and why the connection closed.
//!
//! Nothing here sends a request of its own but the negotiation: the
//! pipeline every request goes through is [`pipeline`], a layer above:
//! it imports this file, never the other way.

pub(crate) mod pipeline;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use mcp_transport::{CloseReason, Transport};
use mcp_types::ProtocolVersion;
use mcp_types::lifecycle::ClientCapabilities;
use mcp_types::tools::Tool;
use tokio::task::JoinHandle;

use crate::error::ClientError;
use crate::known_tools::KnownTools;
use crate::list_changes::{ListGenerations, ListKind};
use crate::listing::Listing;
use crate::negotiate::{self, Negotiated};
use crate::options::ClientOptions;
use crate::request_metadata;

/// The state of one connection (see the module docs).
pub(crate) struct Connection {
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) options: ClientOptions,
    session: RwLock<Option<Arc<Negotiated>>>,
    /// Raised by every re-negotiation: requests that failed under the same
    /// session share one.
    generation: AtomicU64,
    reinit: tokio::sync::Mutex<()>,
    tools: Mutex<KnownTools>,
    /// The generations of prompts and resources (see [`crate::list_changes`]).
    list_generations: ListGenerations,
    /// A tool-list refresh after `tools/list_changed` is waiting out its
    /// debounce.
    pub(crate) refresh_pending: AtomicBool,
    receive_loop: Mutex<Option<JoinHandle<()>>>,
    /// Why the connection closed, once the receive loop saw it (see
    /// `Client::closed`).
    closed: tokio::sync::watch::Sender<Option<CloseReason>>,
    /// Active `subscriptions/listen` (2026-07-28).
    pub(crate) subscriptions: crate::client::subscription::registry::Registry,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(handle) = self
            .receive_loop
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            handle.abort();
        }
    }
}

impl Connection {
    /// A connection over `transport`, not negotiated yet.
    pub(crate) fn new(transport: Arc<dyn Transport>, options: ClientOptions) -> Arc<Self> {
        Arc::new(Connection {
            transport,
            options,
            session: RwLock::new(None),
            generation: AtomicU64::new(0),
            reinit: tokio::sync::Mutex::new(()),
            tools: Mutex::new(KnownTools::default()),
            list_generations: ListGenerations::default(),
            refresh_pending: AtomicBool::new(false),
            receive_loop: Mutex::new(None),
            closed: tokio::sync::watch::channel(None).0,
            subscriptions: crate::client::subscription::registry::Registry::default(),
        })
    }

    /// Keeps the receive loop's task, aborted when the connection is
    /// dropped (the loop holds the connection weakly).
    pub(crate) fn set_receive_loop(&self, handle: JoinHandle<()>) {
        *self.receive_loop.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
    }

    /// A receiver of the close reason (see `Client::closed`).
    pub(crate) fn closed_receiver(&self) -> tokio::sync::watch::Receiver<Option<CloseReason>> {
        self.closed.subscribe()
    }

    /// Records why the connection closed (the first reason wins) and wakes
    /// every `Client::closed` future. Called by the receive loop.
    pub(crate) fn mark_closed(&self, reason: CloseReason) {
        self.closed.send_if_modified(|closed| {
            if closed.is_some() {
                return false;
            }
            *closed = Some(reason);
            true
        });
    }

    /// The negotiated session; `None` until negotiation ends.
    pub(crate) fn session(&self) -> Option<Arc<Negotiated>> {
        self.session
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn set_session(&self, s: Negotiated) {
        *self.session.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(s));
    }

    /// The session's generation: read it before a request, and pass it to
    /// [`Connection::reinitialize`] or [`Connection::renegotiate`] when the
    /// request finds the session gone.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The capabilities declared for the negotiated revision (or, during the
    /// handshake, as configured): what a server request may reach.
    pub(crate) fn declared_capabilities(&self) -> ClientCapabilities {
        match self.session() {
            Some(s) => s.client_capabilities.clone(),
            None => self.options.capabilities(),
        }
    }

    /// Re-initializes after a lost session, once per generation: concurrent
    /// requests that lost the same session share one handshake.
    ///
    /// Errors: the handshake's (see `negotiate::renegotiate`).
    pub(crate) async fn reinitialize(&self, seen_generation: u64) -> Result<(), ClientError> {
        let _guard = self.reinit.lock().await;
        if self.generation() != seen_generation {
            return Ok(());
        }
        let previous = self
            .session()
            .map(|s| s.protocol_version)
            .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        tracing::info!("session expired; re-initializing");
        let negotiated =
            negotiate::renegotiate(self.transport.as_ref(), &self.options, previous).await?;
        self.set_session(negotiated);
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Negotiates again from scratch (probe included), once per
    /// generation, after the server refused the negotiated revision.
    ///
    /// Errors: the negotiation's (see `negotiate::negotiate`).
    pub(crate) async fn renegotiate(&self, seen_generation: u64) -> Result<(), ClientError> {
        let _guard = self.reinit.lock().await;
        if self.generation() != seen_generation {
            return Ok(());
        }
        let negotiated = negotiate::negotiate(self.transport.as_ref(), &self.options).await?;
        tracing::info!(version = %negotiated.protocol_version, "re-negotiated");
        self.set_session(negotiated);
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.invalidate_tools();
        Ok(())
    }

    /// `true` when requests carry the 2026-07-28 request-metadata headers
    /// (a stateless revision on a transport with headers).
    pub(crate) fn uses_metadata_headers(&self, session: &Negotiated) -> bool {
        session.is_stateless() && self.transport.sends_metadata_headers()
    }

    pub(crate) fn tools(&self) -> std::sync::MutexGuard<'_, KnownTools> {
        self.tools.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new generation of the tool cache (after `tools/list_changed` or a
    /// re-negotiation): compiled validators forgotten, listings requested
    /// until now stale.
    pub(crate) fn invalidate_tools(&self) {
        self.tools().invalidate();
    }

    /// Replaces the tool cache with a whole `tools/list` listing requested
    /// at generation `requested` (see [`crate::list_changes`]) and returns
    /// it, without the tools whose `x-mcp-header` annotations are invalid
    /// when the request-metadata headers are in use (spec 2026-07-28
    /// `server/tools`: such tools are left out), and whether it is current
    /// (no `tools/list_changed` arrived since it was requested).
    pub(crate) fn cache_tool_listing(
        &self,
        session: &Negotiated,
        mut listing: Listing<Tool>,
        requested: u64,
    ) -> (Listing<Tool>, bool) {
        if self.uses_metadata_headers(session) {
            request_metadata::retain_valid_tools(&mut listing.items);
        }
        let current = self.tools().replace_all(&listing, requested);
        (listing, current)
    }

    /// A `list_changed` of `kind` arrived: a new generation of that list
    /// (tools: the cache's compiled validators are forgotten too). Called by
    /// the receive loop before the handler hears of it.
    pub(crate) fn list_changed(&self, kind: ListKind) {
        if !self.list_generations.raise(kind) {
            self.invalidate_tools();
        }
    }

    /// The current generation of `kind`: read before a listing is sent.
    pub(crate) fn list_generation(&self, kind: ListKind) -> u64 {
        self.list_generations
            .get(kind)
            .unwrap_or_else(|| self.tools().generation())
    }
}
