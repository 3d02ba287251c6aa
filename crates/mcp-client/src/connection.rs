//! [`Connection`]: the hub of one connection, and the pipeline every
//! request goes through: capability gate, per-request `_meta` and
//! request-metadata headers of the negotiated revision, the recoveries
//! each revision defines (re-initialisation after a lost session; under
//! 2026-07-28 `-32020` and `-32022`), and the multi round-trip loop.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use mcp_transport::{CloseReason, RequestOptions, RequestTimeout, Transport, TransportError};
use mcp_types::base::PaginatedParams;
use mcp_types::jsonrpc::RawParams;
use mcp_types::tools::{CallTool, ListTools, ListToolsResult, Tool};
use mcp_types::{ErrorCode, ProtocolVersion, RawResult, Request};
use serde_json::Value;
use tokio::task::JoinHandle;

use crate::capabilities;
use crate::client::Client;
use crate::codec;
use crate::error::ClientError;
use crate::list_changes::{ListGenerations, ListKind};
use crate::listing::{Listing, Pager};
use crate::mrtr;
use crate::negotiate::{self, Negotiated};
use crate::options::{ClientOptions, DEFAULT_REFRESH_DEBOUNCE};
use crate::receive_loop;
use crate::request_metadata;
use crate::tool_cache::ToolCache;

/// Params that serialize themselves into [`RawParams`], once per attempt
/// of [`Connection::send_serialized`].
pub(crate) trait SerializeParams {
    /// The params' JSON.
    ///
    /// Errors: [`ClientError::Encode`], or what the params refuse to be
    /// (e.g. [`ClientError::ArgumentsNotAnObject`]).
    fn to_raw(&self) -> Result<RawParams, ClientError>;
}

/// The hub of one connection, shared by every [`Client`] clone, the
/// receive loop, the multi round-trip loop and the subscriptions: the
/// transport, the negotiated session, the tool cache, and the pipeline
/// every request goes through ([`Connection::send`]).
pub(crate) struct Connection {
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) options: ClientOptions,
    session: RwLock<Option<Arc<Negotiated>>>,
    generation: AtomicU64,
    reinit: tokio::sync::Mutex<()>,
    tools: Mutex<ToolCache>,
    /// The generations of prompts and resources (see [`crate::list_changes`]).
    pub(crate) list_generations: ListGenerations,
    refresh_pending: AtomicBool,
    receive_loop: Mutex<Option<JoinHandle<()>>>,
    /// Why the connection closed, once the receive loop saw it (see
    /// [`Client::closed`]).
    closed: tokio::sync::watch::Sender<Option<CloseReason>>,
    /// Active `subscriptions/listen` (2026-07-28).
    pub(crate) subscriptions: crate::subscription::Registry,
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
            tools: Mutex::new(ToolCache::default()),
            list_generations: ListGenerations::default(),
            refresh_pending: AtomicBool::new(false),
            receive_loop: Mutex::new(None),
            closed: tokio::sync::watch::channel(None).0,
            subscriptions: crate::subscription::Registry::default(),
        })
    }

    /// Starts the receive loop on the transport's events (it holds the
    /// connection weakly, so dropping every client ends it).
    pub(crate) fn start_receive_loop(self: &Arc<Self>) {
        match self.transport.take_events() {
            Some(events) => {
                let handle = tokio::spawn(receive_loop::run(Arc::downgrade(self), events));
                *self.receive_loop.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
            }
            None => tracing::warn!(
                "the transport's events were already taken: server requests get default answers"
            ),
        }
    }

    /// A receiver of the close reason (see [`Client::closed`]).
    pub(crate) fn closed_receiver(&self) -> tokio::sync::watch::Receiver<Option<CloseReason>> {
        self.closed.subscribe()
    }

    pub(crate) fn session(&self) -> Option<Arc<Negotiated>> {
        self.session
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn set_session(&self, s: Negotiated) {
        *self.session.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(s));
    }

    /// Records why the connection closed (the first reason wins) and wakes
    /// every [`Client::closed`] future. Called by the receive loop.
    pub(crate) fn mark_closed(&self, reason: CloseReason) {
        self.closed.send_if_modified(|closed| {
            if closed.is_some() {
                return false;
            }
            *closed = Some(reason);
            true
        });
    }

    pub(crate) fn tools(&self) -> std::sync::MutexGuard<'_, ToolCache> {
        self.tools.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new generation of the tool cache (after `tools/list_changed` or a
    /// re-negotiation): compiled validators forgotten, listings requested
    /// until now stale.
    pub(crate) fn invalidate_tools(&self) {
        self.tools().invalidate();
    }

    /// Schedules a debounced tool-list refresh, when configured and the
    /// server declared `tools.listChanged`.
    pub(crate) fn schedule_tool_refresh(self: &Arc<Self>) {
        if !self.options.auto_refresh_tools {
            return;
        }
        let advertised = self.session().is_some_and(|s| {
            s.capabilities
                .tools
                .as_ref()
                .is_some_and(|t| t.list_changed == Some(true))
        });
        if !advertised || self.refresh_pending.swap(true, Ordering::AcqRel) {
            return;
        }
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            tokio::time::sleep(DEFAULT_REFRESH_DEBOUNCE).await;
            let Some(inner) = weak.upgrade() else { return };
            inner.refresh_pending.store(false, Ordering::Release);
            let client = Client { inner };
            if let Err(e) = client.list_all_tools(RequestOptions::default()).await {
                tracing::warn!(error = %e, "refreshing the tool list after list_changed failed");
            }
        });
    }

    /// Re-initializes after a lost session, once per generation: concurrent
    /// requests that lost the same session share one handshake.
    async fn reinitialize(&self, seen_generation: u64) -> Result<(), ClientError> {
        let _guard = self.reinit.lock().await;
        if self.generation.load(Ordering::Acquire) != seen_generation {
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

    /// `options` with an inherited timeout replaced by the client's
    /// configured one ([`ClientOptions::request_timeout`]).
    fn resolve(&self, mut options: RequestOptions) -> RequestOptions {
        if options.timeout == RequestTimeout::Inherit {
            options.timeout = RequestTimeout::After(self.options.request_timeout);
        }
        options
    }

    /// Sends `method` and returns the raw result: capability gate, per-request
    /// `_meta` and request-metadata headers of the negotiated revision, the
    /// recoveries of [`Connection::send_recovering`], and (2026-07-28) the
    /// multi round-trip loop for `input_required` results. A server's error
    /// saying it could not send a server-initiated request in the revision
    /// is [`ClientError::ServerRequestNotInRevision`].
    pub(crate) async fn send(
        &self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> Result<RawResult, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::Protocol {
            method: method.to_owned(),
            message: "not initialized".into(),
        })?;
        let version = session.protocol_version;
        let outcome = self
            .send_in(session, method, params, options)
            .await
            .map_err(|e| e.in_revision(version));
        if let Err(ClientError::ServerRequestNotInRevision {
            method,
            server_request,
            ..
        }) = &outcome
        {
            tracing::debug!(%method, %server_request, %version, "the server could not send a server-initiated request in this revision");
            self.options
                .handler
                .on_server_request_not_in_revision(method, server_request)
                .await;
        }
        outcome
    }

    /// [`Connection::send`] under `session`.
    async fn send_in(
        &self,
        session: Arc<Negotiated>,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> Result<RawResult, ClientError> {
        self.gate(method, &session)?;
        let options = self.resolve(options);
        if method == CallTool::METHOD && self.uses_metadata_headers(&session) {
            // `Mcp-Param-*` come from the tool's inputSchema: learn it first.
            let known = request_metadata::mcp_name(method, params.as_ref())
                .is_some_and(|name| self.tools().knows(&name));
            if !known && let Err(e) = self.refresh_tools().await {
                tracing::warn!(error = %e, "tools/list before tools/call failed; Mcp-Param-* headers may be missing");
            }
        }
        let raw = self
            .send_recovering(method, params.as_ref(), &options)
            .await?;
        if session.is_stateless() && mrtr::is_input_required(&raw) {
            return mrtr::complete(self, method, params, &options, raw).await;
        }
        Ok(raw)
    }

    /// [`Connection::send`] for params the transport writes straight from
    /// `params` ([`RawParams`], serialized once per attempt): nothing of a
    /// large argument is copied into a [`Value`] or held while the response
    /// is awaited. For a session under a handshake revision (the
    /// multi round-trip loop and the request-metadata headers read the
    /// params as a value; see [`Connection::sends_raw`]); the recovery is a
    /// lost session's (re-initialize, then send once more).
    pub(crate) async fn send_serialized<P: SerializeParams>(
        &self,
        method: &str,
        params: P,
        options: RequestOptions,
    ) -> Result<RawResult, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::Protocol {
            method: method.to_owned(),
            message: "not initialized".into(),
        })?;
        self.gate(method, &session)?;
        let mut options = self.resolve(options);
        let generation = self.generation.load(Ordering::Acquire);
        if options.params_meta.is_none() {
            options.params_meta = session.request_meta();
        }
        let raw = params.to_raw()?;
        let err = match self
            .transport
            .request_raw(method, raw, options.clone())
            .await
        {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        if !err.is_session_expired() || session.is_stateless() {
            return Err(ClientError::from_transport(method, err));
        }
        tracing::debug!(%method, error = %err, "session lost");
        self.reinitialize(generation)
            .await
            .map_err(|e| match e.transport_error() {
                Some(t) if t.is_session_expired() => ClientError::SessionLost {
                    method: method.to_owned(),
                    source: t.clone(),
                },
                _ => e,
            })?;
        let raw = params.to_raw()?;
        match self.transport.request_raw(method, raw, options).await {
            Ok(v) => Ok(v),
            Err(e) if e.is_session_expired() => Err(ClientError::SessionLost {
                method: method.to_owned(),
                source: e,
            }),
            Err(e) => Err(ClientError::from_transport(method, e)),
        }
    }

    /// `true` when [`Connection::send_serialized`] may carry a request of
    /// this session: a handshake revision (no multi round-trip loop, no
    /// request-metadata headers, no revision-specific recoveries, all of
    /// which read the params as a value).
    pub(crate) fn sends_raw(&self, session: &Negotiated) -> bool {
        !session.is_stateless() && !self.uses_metadata_headers(session)
    }

    /// The capability gate of [`Connection::send`]: with
    /// `strict_capabilities`, a method the revision lacks or the server
    /// did not declare is refused before anything is sent.
    fn gate(&self, method: &str, session: &Negotiated) -> Result<(), ClientError> {
        if !self.options.strict_capabilities {
            return Ok(());
        }
        if !capabilities::exists_in(method, session.protocol_version) {
            return Err(ClientError::MethodNotInRevision {
                method: method.to_owned(),
                version: session.protocol_version,
            });
        }
        if let Some(capability) = capabilities::missing_capability(
            method,
            &session.capabilities,
            session.protocol_version,
        ) {
            return Err(ClientError::CapabilityNotSupported {
                capability,
                method: method.to_owned(),
            });
        }
        Ok(())
    }

    /// `true` when requests carry the 2026-07-28 request-metadata headers
    /// (a stateless revision on a transport with headers).
    pub(crate) fn uses_metadata_headers(&self, session: &Negotiated) -> bool {
        session.is_stateless() && self.transport.sends_metadata_headers()
    }

    /// One request with the recoveries each revision defines, each tried
    /// once: a lost session (handshake revisions) re-initializes; under
    /// 2026-07-28, `-32020` to `tools/call` refreshes `tools/list` (the
    /// tool's `x-mcp-header` annotations) and `-32022` re-selects a revision
    /// from `data.supported` (spec 2026-07-28 §3.9, §1.3), then the request
    /// is sent again as a new request.
    ///
    /// `params` is borrowed, and so is each attempt's: the transport
    /// serializes it as it writes the request, so the caller's value is
    /// never copied and is kept for a retry or a later round.
    pub(crate) async fn send_recovering(
        &self,
        method: &str,
        params: Option<&Value>,
        options: &RequestOptions,
    ) -> Result<RawResult, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::Protocol {
            method: method.to_owned(),
            message: "not initialized".into(),
        })?;
        let generation = self.generation.load(Ordering::Acquire);
        let first = self
            .send_once(&session, method, params, options.clone())
            .await;
        let err = match first {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        if err.is_session_expired() && !session.is_stateless() {
            tracing::debug!(%method, error = %err, "session lost");
            self.reinitialize(generation)
                .await
                .map_err(|e| match e.transport_error() {
                    Some(t) if t.is_session_expired() => ClientError::SessionLost {
                        method: method.to_owned(),
                        source: t.clone(),
                    },
                    _ => e,
                })?;
            let session = self.session().unwrap_or(session);
            return match self
                .send_once(&session, method, params, options.clone())
                .await
            {
                Ok(v) => Ok(v),
                Err(e) if e.is_session_expired() => Err(ClientError::SessionLost {
                    method: method.to_owned(),
                    source: e,
                }),
                Err(e) => Err(ClientError::from_transport(method, e)),
            };
        }
        let TransportError::JsonRpc(rpc) = &err else {
            return Err(ClientError::from_transport(method, err));
        };
        if !session.is_stateless() {
            return Err(ClientError::from_transport(method, err));
        }
        if rpc.code == ErrorCode::HEADER_MISMATCH && method == CallTool::METHOD {
            tracing::debug!(%method, error = %rpc, "header mismatch: refreshing tools/list, then retrying once");
            self.refresh_tools().await?;
        } else if rpc.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
            let Some(supported) = negotiate::supported_in_error(rpc) else {
                return Err(ClientError::from_transport(method, err));
            };
            if supported
                .iter()
                .any(|s| s == session.protocol_version.as_str())
            {
                // The server lists the revision it just refused: re-selecting
                // cannot help.
                return Err(ClientError::from_transport(method, err));
            }
            tracing::info!(%method, supported = ?supported, "revision refused; re-negotiating");
            self.renegotiate(generation).await?;
        } else {
            return Err(ClientError::from_transport(method, err));
        }
        let session = self.session().unwrap_or(session);
        self.send_once(&session, method, params, options.clone())
            .await
            .map_err(|e| ClientError::from_transport(method, e))
    }

    /// Sends `method` once under `session`'s revision: its per-request
    /// `_meta` ([`Negotiated::request_meta`], merged by the transport as it
    /// serializes), and under 2026-07-28 the request-metadata headers.
    async fn send_once(
        &self,
        session: &Negotiated,
        method: &str,
        params: Option<&Value>,
        mut options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        if self.uses_metadata_headers(session) {
            options.metadata_headers = self.metadata_headers(method, params);
        }
        if options.params_meta.is_none() {
            options.params_meta = session.request_meta();
        }
        self.transport.request(method, params, options).await
    }

    /// `Mcp-Name` and, for `tools/call`, the `Mcp-Param-*` of the cached
    /// tool's `x-mcp-header` annotations (raw values; the transport encodes).
    fn metadata_headers(&self, method: &str, params: Option<&Value>) -> Vec<(String, String)> {
        let mut headers = Vec::new();
        let Some(name) = request_metadata::mcp_name(method, params) else {
            return headers;
        };
        if method == CallTool::METHOD {
            // Read in place (under the cache's lock), not copied per call.
            let annotations = self
                .tools()
                .get(&name)
                .map(|t| request_metadata::param_headers(&t.input_schema));
            match annotations {
                Some(Ok(annotations)) => {
                    let arguments = params
                        .and_then(|p| p.get("arguments"))
                        .and_then(Value::as_object);
                    headers.extend(request_metadata::param_values(&annotations, arguments));
                }
                Some(Err(reason)) => {
                    tracing::warn!(tool = %name, %reason, "calling a tool with invalid x-mcp-header annotations; no Mcp-Param-* headers")
                }
                None => tracing::debug!(tool = %name, "tool not listed; no Mcp-Param-* headers"),
            }
        }
        headers.insert(0, (request_metadata::MCP_NAME.to_owned(), name));
        headers
    }

    /// Fetches every `tools/list` page and replaces the tool cache (tools
    /// with invalid `x-mcp-header` annotations left out when the headers
    /// are in use). Bounded by [`ClientOptions::max_pages`]; listed once
    /// more when a `tools/list_changed` overtook it (see
    /// [`Connection::fresh_listing`]).
    ///
    /// Keeps what arrived when the listing stops early (see [`Client::listing`]).
    ///
    /// Errors: the first page's: the request's, [`ClientError::Decode`].
    pub(crate) async fn refresh_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::Protocol {
            method: ListTools::METHOD.to_owned(),
            message: "not initialized".into(),
        })?;
        // Sent with `send_once`, not `send`: this runs inside the recovery
        // of a `tools/call` (`-32020`), which must not recurse into it.
        let options = self.resolve(RequestOptions::default());
        let fetch = || {
            let pager = Pager::new(
                ListTools::METHOD,
                session.protocol_version,
                self.options.max_pages,
            );
            pager.run(|cursor| {
                let session = &session;
                let options = options.clone();
                async move {
                    let params =
                        codec::params(ListTools::METHOD, &PaginatedParams::with_cursor(cursor))?;
                    let raw = self
                        .send_once(session, ListTools::METHOD, params.as_ref(), options)
                        .await
                        .map_err(|e| ClientError::from_transport(ListTools::METHOD, e))?;
                    codec::decode::<ListToolsResult>(
                        ListTools::METHOD,
                        raw,
                        session.protocol_version,
                        self.transport.as_ref(),
                    )
                }
            })
        };
        let listing = self
            .fresh_listing(
                ListKind::Tools,
                ListTools::METHOD,
                fetch,
                |listing, requested| self.cache_tool_listing(&session, listing, requested),
            )
            .await?;
        Ok(listing.items)
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

    /// Negotiates again from scratch (probe included), once per
    /// generation, after the server refused the negotiated revision.
    async fn renegotiate(&self, seen_generation: u64) -> Result<(), ClientError> {
        let _guard = self.reinit.lock().await;
        if self.generation.load(Ordering::Acquire) != seen_generation {
            return Ok(());
        }
        let negotiated = negotiate::negotiate(self.transport.as_ref(), &self.options).await?;
        tracing::info!(version = %negotiated.protocol_version, "re-negotiated");
        self.set_session(negotiated);
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.invalidate_tools();
        Ok(())
    }
}
