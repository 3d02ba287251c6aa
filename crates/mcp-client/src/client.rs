//! [`Client`]: one connection to one MCP server.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use mcp_transport::{CloseReason, RequestOptions, Transport, TransportError};
use mcp_types::base::{EmptyParams, EmptyResult, Implementation, Paginated, PaginatedParams};
use mcp_types::completion::{CompleteRequestParams, CompleteResult};
use mcp_types::lifecycle::{ClientCapabilities, Ping, ServerCapabilities};
use mcp_types::logging::{LoggingLevel, SetLevel, SetLevelRequestParams};
use mcp_types::prompts::{
    GetPrompt, GetPromptRequestParams, GetPromptResult, ListPrompts, ListPromptsResult, Prompt,
};
use mcp_types::resources::{
    ListResourceTemplates, ListResourceTemplatesResult, ListResources, ListResourcesResult,
    ReadResource, ReadResourceRequestParams, ReadResourceResult, Resource, ResourceTemplate,
    ResourceUriParams, Subscribe, Unsubscribe,
};
use mcp_types::tasks::{
    CancelTask, CreateTaskResult, GetTask, ListTasks, ListTasksResult, Task, TaskIdParams,
};
use mcp_types::tools::{
    CallTool, CallToolRequestParams, CallToolResult, ListTools, ListToolsResult, Tool,
};
use mcp_types::{ErrorCode, ProtocolVersion, RawResult, Request};
use serde_json::{Map, Value};
use tokio::task::JoinHandle;

use crate::capabilities;
use crate::error::ClientError;
use crate::listing::{Incomplete, Listing, Next, Pager};
use crate::mrtr;
use crate::negotiate::{self, Negotiated};
use crate::options::{CallOptions, ClientOptions, DEFAULT_REFRESH_DEBOUNCE, TaskOptions};
use crate::request_metadata;
use crate::schema;
use crate::template::{self, TemplateValue};
use mcp_types::lenient::EntryProblem;

/// One connection to one MCP server: negotiation, typed requests, and the
/// task that answers server requests and dispatches notifications.
///
/// Cheap to clone (an `Arc` inside); every clone is the same connection,
/// usable from many tasks at once. Requests are pipelined: nothing
/// serializes them.
///
/// # Cancel safety
/// Dropping the future of any request method before it completes sends the
/// server `notifications/cancelled` for that request exactly once and drops
/// the late response (the transport's dispatcher does it). A timeout or a
/// cancelled token does the same. `initialize` is never cancelled.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) options: ClientOptions,
    session: RwLock<Option<Arc<Negotiated>>>,
    generation: AtomicU64,
    reinit: tokio::sync::Mutex<()>,
    tools: Mutex<ToolCache>,
    refresh_pending: AtomicBool,
    receive_loop: Mutex<Option<JoinHandle<()>>>,
    /// Why the connection closed, once the receive loop saw it (see
    /// [`Client::closed`]).
    closed: tokio::sync::watch::Sender<Option<CloseReason>>,
    /// Active `subscriptions/listen` (2026-07-28).
    pub(crate) subscriptions: crate::subscription::Registry,
}

/// The tools this client has seen listed, for schema validation and the
/// `Mcp-Param-*` headers, and the last complete listing for
/// [`Client::cached_tools`]. A complete listing is held once: the entries of
/// its tools point into it.
#[derive(Default)]
struct ToolCache {
    /// The last complete `tools/list` (all pages), when one was fetched.
    complete: Arc<Vec<Tool>>,
    /// Whether `complete` is current (a `tools/list_changed` makes it stale
    /// for [`Client::cached_tools`]; its tools stay known, as before).
    complete_current: bool,
    /// Every tool seen in any `tools/list` page, by name.
    by_name: HashMap<String, Known>,
    /// Compiled (input, output) validators, by tool name.
    validators: HashMap<String, (schema::Compiled, schema::Compiled)>,
    /// What the listing behind `complete` left out, and why it stopped
    /// early if it did.
    left_out: (Vec<EntryProblem>, Option<Incomplete>),
}

/// Where a known tool is held.
enum Known {
    /// At this index of [`ToolCache::complete`].
    Complete(usize),
    /// Seen in a page fetched on its own, after the complete listing.
    Paged(Box<Tool>),
}

impl ToolCache {
    /// The tool listed under `name`, if any.
    fn get(&self, name: &str) -> Option<&Tool> {
        match self.by_name.get(name)? {
            Known::Complete(i) => self.complete.get(*i),
            Known::Paged(tool) => Some(tool),
        }
    }

    /// Records `tool` from a `tools/list` page. A tool identical to the
    /// cached one is left alone (no copy, and its compiled validators are
    /// kept); a changed one replaces it and drops its validators.
    fn observe(&mut self, tool: &Tool) {
        if self.get(&tool.name) == Some(tool) {
            return;
        }
        self.validators.remove(&tool.name);
        self.by_name
            .insert(tool.name.clone(), Known::Paged(Box::new(tool.clone())));
    }

    /// Replaces the cache with a complete listing, copied once: tools no
    /// longer listed are forgotten; a tool that changed loses its compiled
    /// validators, an unchanged one keeps them.
    fn replace_all(&mut self, tools: &[Tool]) {
        for tool in tools {
            if self.get(&tool.name) != Some(tool) {
                self.validators.remove(&tool.name);
            }
        }
        // A name listed twice: the later one, as observing them in order did.
        self.by_name = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (tool.name.clone(), Known::Complete(i)))
            .collect();
        self.validators
            .retain(|name, _| self.by_name.contains_key(name.as_str()));
        self.complete = Arc::new(tools.to_vec());
        self.complete_current = true;
    }

    /// The last complete listing, unless it went stale.
    fn listed(&self) -> Option<Arc<Vec<Tool>>> {
        self.complete_current.then(|| self.complete.clone())
    }
}

impl Drop for Inner {
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

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let session = self.inner.session();
        f.debug_struct("Client")
            .field("transport", &self.inner.transport)
            .field(
                "protocol_version",
                &session.as_ref().map(|s| s.protocol_version),
            )
            .field(
                "server",
                &session.as_ref().map(|s| s.server_info.name.clone()),
            )
            .finish_non_exhaustive()
    }
}

impl Inner {
    pub(crate) fn session(&self) -> Option<Arc<Negotiated>> {
        self.session
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn set_session(&self, s: Negotiated) {
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

    fn tools(&self) -> std::sync::MutexGuard<'_, ToolCache> {
        self.tools.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets compiled validators (after `tools/list_changed`).
    pub(crate) fn invalidate_tools(&self) {
        let mut t = self.tools();
        t.validators.clear();
        t.complete_current = false;
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
            if let Err(e) = client.list_all_tools().await {
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

    fn default_options(&self) -> RequestOptions {
        RequestOptions::default().with_timeout(self.options.request_timeout)
    }

    /// Sends `method` and returns the raw result: capability gate, per-request
    /// `_meta` and request-metadata headers of the negotiated revision, the
    /// recoveries of [`Inner::send_recovering`], and (2026-07-28) the
    /// multi round-trip loop for `input_required` results.
    pub(crate) async fn send(
        &self,
        method: &str,
        params: Option<Value>,
        options: Option<RequestOptions>,
    ) -> Result<RawResult, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::Protocol {
            method: method.to_owned(),
            message: "not initialized".into(),
        })?;
        if self.options.strict_capabilities {
            if !capabilities::exists_in(method, session.protocol_version) {
                return Err(ClientError::MethodNotInRevision {
                    method: method.to_owned(),
                    version: session.protocol_version.as_str().to_owned(),
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
        }
        let options = options.unwrap_or_else(|| self.default_options());
        if method == CallTool::METHOD && self.uses_metadata_headers(&session) {
            // `Mcp-Param-*` come from the tool's inputSchema: learn it first.
            let known = request_metadata::mcp_name(method, params.as_ref())
                .is_some_and(|name| self.tools().by_name.contains_key(&name));
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

    /// `true` when requests carry the 2026-07-28 request-metadata headers
    /// (a stateless revision on a transport with headers).
    fn uses_metadata_headers(&self, session: &Negotiated) -> bool {
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
    /// are in use). Bounded by [`ClientOptions::max_pages`].
    ///
    /// Keeps what arrived when the listing stops early (see [`Client::listing`]).
    ///
    /// Errors: the first page's: the request's, [`ClientError::Decode`].
    pub(crate) async fn refresh_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::Protocol {
            method: ListTools::METHOD.to_owned(),
            message: "not initialized".into(),
        })?;
        let mut pager = Pager::new(
            ListTools::METHOD,
            session.protocol_version,
            self.options.max_pages,
        );
        let mut cursor: Option<String> = None;
        loop {
            let params = serde_json::to_value(PaginatedParams::with_cursor(cursor.take()))
                .map_err(|e| ClientError::encode(ListTools::METHOD, e))?;
            let params = Some(params).filter(|p| p.as_object().is_none_or(|m| !m.is_empty()));
            let page = match self
                .send_once(
                    &session,
                    ListTools::METHOD,
                    params.as_ref(),
                    self.default_options(),
                )
                .await
                .map_err(|e| ClientError::from_transport(ListTools::METHOD, e))
                .and_then(|value| {
                    decode::<ListToolsResult>(ListTools::METHOD, value, session.protocol_version)
                }) {
                Ok(page) => page,
                Err(e) => {
                    pager.failed(e)?;
                    break;
                }
            };
            match pager.page(page) {
                Next::Page(next) => cursor = Some(next),
                Next::Done => break,
            }
        }
        let listing = pager.finish();
        let mut tools = listing.items;
        if self.uses_metadata_headers(&session) {
            request_metadata::retain_valid_tools(&mut tools);
        }
        let mut cache = self.tools();
        cache.replace_all(&tools);
        cache.left_out = (listing.problems, listing.incomplete);
        Ok(tools)
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

/// `tools/call` params as a JSON object, with the `arguments` map moved in
/// rather than serialized again: a large argument map is not copied.
///
/// Errors: [`ClientError::Encode`] when the params do not serialize.
fn call_tool_params(mut params: CallToolRequestParams) -> Result<Value, ClientError> {
    let arguments = params.arguments.take();
    let plain = params.task.is_none()
        && params.input_responses.is_none()
        && params.request_state.is_none()
        && params.meta.is_none()
        && params.extra.is_empty();
    if plain {
        // The usual call: `name` and `arguments` moved in, nothing serialized.
        let mut map = Map::new();
        map.insert("name".to_owned(), Value::String(params.name));
        if let Some(arguments) = arguments {
            map.insert("arguments".to_owned(), Value::Object(arguments));
        }
        return Ok(Value::Object(map));
    }
    let mut value =
        serde_json::to_value(&params).map_err(|e| ClientError::encode(CallTool::METHOD, e))?;
    if let Some(arguments) = arguments {
        let Value::Object(map) = &mut value else {
            return Err(ClientError::encode(
                CallTool::METHOD,
                serde::ser::Error::custom("tools/call params did not serialize to an object"),
            ));
        };
        map.insert("arguments".to_owned(), Value::Object(arguments));
    }
    Ok(value)
}

/// Parses the result of `method` once, as `T`. Under 2026-07-28
/// (`stateless`) `resultType` is checked first, by a member scan: absent
/// means `"complete"`; `"input_required"` was already completed by the
/// multi round-trip loop; any other value is invalid here.
///
/// Errors: [`ClientError::Protocol`] for another `resultType`,
/// [`ClientError::Decode`] when the bytes are not a `T`.
fn decode<T: serde::de::DeserializeOwned + 'static>(
    method: &str,
    raw: RawResult,
    version: ProtocolVersion,
) -> Result<T, ClientError> {
    decode_like(method, method, raw, version)
}

/// [`decode`] for a result that is another method's (`tasks/result` holds
/// what `tools/call` would have returned): forgiven by the rules of
/// `like`, errors named after `method`.
fn decode_like<T: serde::de::DeserializeOwned + 'static>(
    method: &str,
    like: &str,
    raw: RawResult,
    version: ProtocolVersion,
) -> Result<T, ClientError> {
    // `resultType` exists from 2026-07-28 on; earlier results are not scanned for it.
    if version.is_stateless() {
        match mrtr::result_type(&raw).as_deref() {
            None | Some("complete") => {}
            Some(other) => {
                return Err(ClientError::Protocol {
                    method: method.to_owned(),
                    message: format!("result of type {other:?} is not supported"),
                });
            }
        }
    }
    let (value, forgiven) = mcp_types::lenient::parse_result(like, version, &raw)
        .map_err(|e| ClientError::decode(method, e))?;
    log_forgiven(method, &forgiven);
    Ok(value)
}

/// One line per thing forgiven in a result (see `mcp_types::lenient`):
/// a defaulted member at debug (the result means what it would have
/// meant), a dropped list entry at warn (the listing is short of it).
pub(crate) fn log_forgiven(method: &str, forgiven: &mcp_types::lenient::Forgiven) {
    for member in &forgiven.defaulted {
        tracing::debug!(method, member, "result without `{member}`; taken as empty");
    }
    for problem in &forgiven.dropped {
        tracing::warn!(
            method,
            index = problem.index,
            name = problem.name.as_deref().unwrap_or(""),
            reason = %problem.reason,
            "{method}: {problem}"
        );
    }
}

impl Client {
    /// Connects over `transport`: starts the receive loop (so `ping` and log
    /// notifications are handled even during the handshake), negotiates
    /// the revision (see [`crate::VersionPreference`]) and returns the
    /// ready client. Only `ping` may reach the server before this returns.
    ///
    /// Errors: [`ClientError::VersionMismatch`] (the transport is then
    /// closed), [`ClientError::Server`] when `initialize` is refused,
    /// [`ClientError::Transport`] (e.g. timeout after
    /// `options.initialize_timeout`, connection closed).
    pub async fn connect(
        transport: impl Transport,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        Client::connect_shared(Arc::new(transport), options).await
    }

    /// [`Client::connect`] for a transport already behind an `Arc`.
    ///
    /// Errors: as [`Client::connect`].
    pub async fn connect_shared(
        transport: Arc<dyn Transport>,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let inner = Arc::new(Inner {
            transport: transport.clone(),
            options,
            session: RwLock::new(None),
            generation: AtomicU64::new(0),
            reinit: tokio::sync::Mutex::new(()),
            tools: Mutex::new(ToolCache::default()),
            refresh_pending: AtomicBool::new(false),
            receive_loop: Mutex::new(None),
            closed: tokio::sync::watch::channel(None).0,
            subscriptions: crate::subscription::Registry::default(),
        });
        match transport.take_events() {
            Some(events) => {
                let handle = tokio::spawn(crate::dispatch::run(Arc::downgrade(&inner), events));
                *inner.receive_loop.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
            }
            None => tracing::warn!(
                "the transport's events were already taken: server requests get default answers"
            ),
        }
        let negotiated = negotiate::negotiate(transport.as_ref(), &inner.options).await?;
        inner.set_session(negotiated);
        Ok(Client { inner })
    }

    fn session(&self) -> Arc<Negotiated> {
        // Set before `connect` returns; never unset.
        self.inner
            .session()
            .unwrap_or_else(|| unreachable!("a Client exists only after negotiation"))
    }

    /// What negotiation agreed on (revision, server info, capabilities, instructions).
    pub fn negotiated(&self) -> Arc<Negotiated> {
        self.session()
    }

    /// The negotiated revision.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.session().protocol_version
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> Implementation {
        self.session().server_info.clone()
    }

    /// The server's capabilities.
    pub fn server_capabilities(&self) -> ServerCapabilities {
        self.session().capabilities.clone()
    }

    /// The server's `instructions`, if any.
    pub fn instructions(&self) -> Option<String> {
        self.session().instructions.clone()
    }

    /// The capabilities this client declared.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.session().client_capabilities.clone()
    }

    /// The options this client was built with.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    /// The transport.
    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.inner.transport
    }

    /// `true` until the connection closed.
    pub fn is_connected(&self) -> bool {
        self.inner.transport.is_connected()
    }

    /// Resolves once the connection has closed, with the transport's reason
    /// (e.g. `"server exited (exit status: 1)"` and the stderr tail for
    /// stdio), whoever closed it: the server, a transport failure, or
    /// [`Client::close`]. Resolves at once when it already has.
    ///
    /// Built on the client's receive loop: it fires when the loop sees the
    /// transport's `Closed` event (before [`crate::ClientHandler::on_closed`]
    /// runs), or the transport's events end. The future owns no `Client`,
    /// so awaiting it keeps nothing alive; if every `Client` clone is
    /// dropped first, it resolves with the reason `"the client was dropped"`.
    /// When the transport's events were taken by someone else before
    /// [`Client::connect`] (no receive loop), it only resolves then.
    ///
    /// Cancel safe: dropping the future has no effect.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_client::Client) {
    /// let closed = client.closed();
    /// tokio::spawn(async move { eprintln!("server gone: {}", closed.await) });
    /// # }
    /// ```
    pub fn closed(&self) -> impl Future<Output = CloseReason> + Send + 'static {
        let mut rx = self.inner.closed.subscribe();
        async move {
            match rx.wait_for(Option::is_some).await {
                Ok(reason) => reason
                    .clone()
                    .unwrap_or_else(|| CloseReason::new("connection closed")),
                Err(_) => CloseReason::new("the client was dropped"),
            }
        }
    }

    /// Closes the connection gracefully (the transport's shutdown: stdio
    /// closes stdin, waits, then signals; HTTP deletes the session). Pending
    /// requests fail with a closed error. Closing twice is harmless.
    ///
    /// Errors: the transport's, when its shutdown failed.
    pub async fn close(&self) -> Result<(), ClientError> {
        self.inner
            .transport
            .close()
            .await
            .map_err(ClientError::Transport)
    }

    /// Sends request `R` with `params` and decodes the result as
    /// `R::Result` (decided by the method sent, never by trying shapes).
    /// `options: None` uses the client's default timeout.
    ///
    /// Errors: see [`ClientError`]; a method gated by a missing server
    /// capability fails with [`ClientError::CapabilityNotSupported`] without
    /// a round trip when [`ClientOptions::strict_capabilities`] is on.
    pub async fn request<R: Request>(
        &self,
        params: R::Params,
        options: Option<RequestOptions>,
    ) -> Result<R::Result, ClientError> {
        let params =
            serde_json::to_value(&params).map_err(|e| ClientError::encode(R::METHOD, e))?;
        let params = match params {
            Value::Null => None,
            Value::Object(m) if m.is_empty() => None,
            other => Some(other),
        };
        let value = self.inner.send(R::METHOD, params, options).await?;
        decode(R::METHOD, value, self.session().protocol_version)
    }

    /// Sends a request by name with untyped params and returns the result
    /// as a [`Value`].
    ///
    /// Errors: as [`Client::request`]; [`ClientError::Decode`] when the
    /// result is not JSON.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
        options: Option<RequestOptions>,
    ) -> Result<Value, ClientError> {
        self.inner
            .send(method, params, options)
            .await?
            .to_value()
            .map_err(|e| ClientError::decode(method, e))
    }

    /// Sends a notification by name (e.g. `notifications/roots/list_changed`).
    ///
    /// Errors: [`ClientError::Transport`].
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        self.inner
            .transport
            .notify(method, params)
            .await
            .map_err(|e| ClientError::from_transport(method, e))
    }

    /// A liveness check: one round trip to the server, nothing kept.
    ///
    /// Up to 2025-11-25 it sends `ping` (spec `basic/utilities/ping`). On
    /// 2026-07-28, where `ping` was removed with no replacement but "any
    /// RPC" (spec 2026-07-28 § Deprecated vs removed), it sends
    /// `server/discover` instead and discards the result (the negotiated
    /// capabilities are not updated).
    ///
    /// Errors: as [`Client::request`].
    pub async fn ping(&self) -> Result<(), ClientError> {
        if self.session().is_stateless() {
            return self
                .request::<mcp_types::discovery::Discover>(EmptyParams::default(), None)
                .await
                .map(|_| ());
        }
        self.request::<Ping>(EmptyParams::default(), None)
            .await
            .map(|_: EmptyResult| ())
    }

    /// Tells the server the roots changed (`notifications/roots/list_changed`;
    /// only when `roots.listChanged` was declared, ≤2025-11-25).
    ///
    /// Errors: [`ClientError::CapabilityNotSupported`] when `roots.listChanged`
    /// was not declared; [`ClientError::Transport`].
    pub async fn notify_roots_list_changed(&self) -> Result<(), ClientError> {
        let declared = self
            .session()
            .client_capabilities
            .roots
            .as_ref()
            .is_some_and(|r| r.list_changed == Some(true));
        if !declared {
            return Err(ClientError::CapabilityNotSupported {
                capability: "roots.listChanged (client)",
                method: "notifications/roots/list_changed".into(),
            });
        }
        self.notify("notifications/roots/list_changed", None).await
    }

    async fn list_page<R>(&self, cursor: Option<String>) -> Result<R::Result, ClientError>
    where
        R: Request<Params = PaginatedParams>,
    {
        self.request::<R>(PaginatedParams::with_cursor(cursor), None)
            .await
    }

    /// Follows `nextCursor` to the end (spec `server/utilities/pagination`),
    /// keeping what arrived when it stops early (a repeated cursor, the
    /// page cap [`ClientOptions::max_pages`], a later page failing): see
    /// [`crate::listing`].
    ///
    /// Errors: the first page's.
    pub async fn listing<R>(&self) -> Result<Listing<<R::Result as Paginated>::Item>, ClientError>
    where
        R: Request<Params = PaginatedParams>,
        R::Result: Paginated,
    {
        let version = self.session().protocol_version;
        let mut pager = Pager::new(R::METHOD, version, self.inner.options.max_pages);
        let mut cursor: Option<String> = None;
        loop {
            match self.list_page::<R>(cursor.take()).await {
                // (Pages of tools are not observed one by one here: the one
                // caller for tools, `tools_listing`, replaces the cache with
                // the whole listing, holding one copy of it.)
                Ok(page) => match pager.page(page) {
                    Next::Page(next) => cursor = Some(next),
                    Next::Done => return Ok(pager.finish()),
                },
                Err(e) => {
                    pager.failed(e)?;
                    return Ok(pager.finish());
                }
            }
        }
    }

    /// Records tools seen in a `tools/list` page (for schema validation).
    fn observe_page<R: Request>(&self, page: &R::Result) {
        if R::METHOD != ListTools::METHOD {
            return;
        }
        // R::Result is ListToolsResult here; go through JSON-free downcast.
        let any: &dyn std::any::Any = page;
        if let Some(list) = any.downcast_ref::<ListToolsResult>() {
            let check = self.exposes_valid_tools_only();
            let mut cache = self.inner.tools();
            for tool in &list.tools {
                if check && request_metadata::param_headers(&tool.input_schema).is_err() {
                    continue;
                }
                cache.observe(tool);
            }
        }
    }

    /// One page of `tools/list` (spec `server/tools` § Listing Tools).
    ///
    /// Errors: as [`Client::request`]; needs the `tools` capability.
    ///
    /// Under 2026-07-28 over HTTP, tools whose `x-mcp-header` annotations
    /// are invalid are left out (logged at warn; spec `server/tools`).
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ClientError> {
        let mut page = self.list_page::<ListTools>(cursor).await?;
        if self.exposes_valid_tools_only() {
            request_metadata::retain_valid_tools(&mut page.tools);
        }
        self.observe_page::<ListTools>(&page);
        Ok(page)
    }

    /// `true` when `tools/list` results are filtered for invalid
    /// `x-mcp-header` annotations (2026-07-28 on a transport with headers).
    fn exposes_valid_tools_only(&self) -> bool {
        self.session().is_stateless() && self.inner.transport.sends_metadata_headers()
    }

    /// Every tool, following `nextCursor`. Also replaces the cached tool
    /// list ([`Client::cached_tools`]) used for schema validation and, under
    /// 2026-07-28, for the `Mcp-Param-*` headers of `tools/call`. Tools with
    /// invalid `x-mcp-header` annotations are left out as in
    /// [`Client::list_tools`]. The cache holds one copy of the listing.
    ///
    /// Errors: the first page's, as [`Client::request`]; the
    /// cache is then left as it was.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.tools_listing().await.map(|l| l.items)
    }

    /// [`Client::list_all_tools`] with what was left out: the entries that
    /// did not decode and why the listing stopped early, if it did. The
    /// cache is replaced with the tools listed, even when incomplete.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn tools_listing(&self) -> Result<Listing<Tool>, ClientError> {
        let mut listing = self.listing::<ListTools>().await?;
        if self.exposes_valid_tools_only() {
            request_metadata::retain_valid_tools(&mut listing.items);
        }
        let mut cache = self.inner.tools();
        cache.replace_all(&listing.items);
        cache.left_out = (listing.problems.clone(), listing.incomplete.clone());
        Ok(listing)
    }

    /// What the listing behind [`Client::cached_tools`] left out: the
    /// entries that did not decode, and why it stopped early if it did
    /// (see [`Client::tools_listing`]). Empty before any listing.
    pub fn cached_tools_left_out(&self) -> (Vec<EntryProblem>, Option<Incomplete>) {
        self.inner.tools().left_out.clone()
    }

    /// The tool list from the last [`Client::list_all_tools`] (or automatic
    /// refresh), unless a `tools/list_changed` made it stale.
    pub fn cached_tools(&self) -> Option<Arc<Vec<Tool>>> {
        self.inner.tools().listed()
    }

    /// One page of `resources/list`.
    ///
    /// Errors: as [`Client::request`]; needs `resources`.
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, ClientError> {
        self.list_page::<ListResources>(cursor).await
    }

    /// Every resource, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.resources_listing().await.map(|l| l.items)
    }

    /// [`Client::list_all_resources`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn resources_listing(&self) -> Result<Listing<Resource>, ClientError> {
        self.listing::<ListResources>().await
    }

    /// One page of `resources/templates/list`.
    ///
    /// Errors: as [`Client::request`]; needs `resources`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        self.list_page::<ListResourceTemplates>(cursor).await
    }

    /// Every resource template, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.resource_templates_listing().await.map(|l| l.items)
    }

    /// [`Client::list_all_resource_templates`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn resource_templates_listing(
        &self,
    ) -> Result<Listing<ResourceTemplate>, ClientError> {
        self.listing::<ListResourceTemplates>().await
    }

    /// One page of `prompts/list`.
    ///
    /// Errors: as [`Client::request`]; needs `prompts`.
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
    ) -> Result<ListPromptsResult, ClientError> {
        self.list_page::<ListPrompts>(cursor).await
    }

    /// Every prompt, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.prompts_listing().await.map(|l| l.items)
    }

    /// [`Client::list_all_prompts`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn prompts_listing(&self) -> Result<Listing<Prompt>, ClientError> {
        self.listing::<ListPrompts>().await
    }

    /// `resources/read` (spec `server/resources` § Reading Resources).
    /// "Not found" is [`ClientError::is_resource_not_found`].
    ///
    /// Errors: as [`Client::request`]; needs `resources`.
    pub async fn read_resource(
        &self,
        uri: impl Into<String>,
    ) -> Result<ReadResourceResult, ClientError> {
        let params = ReadResourceRequestParams {
            uri: uri.into(),
            ..Default::default()
        };
        self.request::<ReadResource>(params, None).await
    }

    /// Expands `template` (RFC 6570) with `vars` and reads the resulting URI.
    ///
    /// Errors: [`ClientError::InvalidTemplate`], then as [`Client::read_resource`].
    pub async fn read_resource_template<K: Into<String>>(
        &self,
        template: &ResourceTemplate,
        vars: impl IntoIterator<Item = (K, TemplateValue)>,
    ) -> Result<ReadResourceResult, ClientError> {
        let uri = template::expand(&template.uri_template, vars)?;
        self.read_resource(uri).await
    }

    /// `resources/subscribe`; updates arrive at
    /// [`crate::ClientHandler::on_resource_updated`].
    ///
    /// Errors: as [`Client::request`]; needs `resources.subscribe`.
    pub async fn subscribe(&self, uri: impl Into<String>) -> Result<(), ClientError> {
        self.request::<Subscribe>(ResourceUriParams::new(uri), None)
            .await
            .map(drop)
    }

    /// `resources/unsubscribe`.
    ///
    /// Errors: as [`Client::request`]; needs `resources.subscribe`.
    pub async fn unsubscribe(&self, uri: impl Into<String>) -> Result<(), ClientError> {
        self.request::<Unsubscribe>(ResourceUriParams::new(uri), None)
            .await
            .map(drop)
    }

    /// `prompts/get` with string arguments.
    ///
    /// Errors: as [`Client::request`]; needs `prompts`.
    pub async fn get_prompt(
        &self,
        name: impl Into<String>,
        arguments: Option<BTreeMap<String, String>>,
    ) -> Result<GetPromptResult, ClientError> {
        let params = GetPromptRequestParams {
            name: name.into(),
            arguments,
            ..Default::default()
        };
        self.request::<GetPrompt>(params, None).await
    }

    /// `completion/complete` (spec `server/utilities/completion`).
    ///
    /// Errors: as [`Client::request`]; needs `completions` (≥2025-03-26).
    pub async fn complete(
        &self,
        params: CompleteRequestParams,
    ) -> Result<CompleteResult, ClientError> {
        self.request::<mcp_types::completion::Complete>(params, None)
            .await
    }

    /// `logging/setLevel` (spec `server/utilities/logging`; not in 2026-07-28).
    ///
    /// Errors: as [`Client::request`]; needs `logging`.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        let params = SetLevelRequestParams {
            level,
            meta: None,
            extra: Map::new(),
        };
        self.request::<SetLevel>(params, None).await.map(drop)
    }

    /// The compiled (input, output) validators of a listed tool, compiled
    /// on first use, and whether it declares an `outputSchema`. Called after
    /// every `tools/call` (output validation is on by default): the tool is
    /// looked at in place, not copied, and nothing is allocated once its
    /// validators exist.
    fn compiled(&self, name: &str) -> Option<(schema::Compiled, schema::Compiled, bool)> {
        let mut guard = self.inner.tools();
        let cache = &mut *guard;
        let tool = cache.get(name)?;
        let has_output = tool.output_schema.is_some();
        if let Some((input, output)) = cache.validators.get(name) {
            return Some((input.clone(), output.clone(), has_output));
        }
        let input = schema::compile(&tool.input_schema, name, "inputSchema");
        let output = tool
            .output_schema
            .as_ref()
            .and_then(|s| schema::compile(s, name, "outputSchema"));
        cache
            .validators
            .insert(name.to_owned(), (input.clone(), output.clone()));
        Some((input, output, has_output))
    }

    /// `tools/call` (spec `server/tools` § Calling Tools). A tool-level
    /// failure (`isError: true`) is `Ok` with `is_error == Some(true)`.
    ///
    /// With `options.validate_arguments`, `arguments` are checked against
    /// the tool's `inputSchema` first (fetching `tools/list` if the tool is
    /// not cached). With `options.validate_output` (default), a result's
    /// `structuredContent` is checked against the tool's `outputSchema`
    /// when that is known from an earlier `tools/list` (skipped for `isError`).
    ///
    /// Errors: [`ClientError::InvalidArguments`],
    /// [`ClientError::InvalidStructuredContent`], else as [`Client::request`].
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        options: CallOptions,
    ) -> Result<CallToolResult, ClientError> {
        if options.validate_arguments {
            if self.compiled(name).is_none() {
                self.list_all_tools().await?;
            }
            match self.compiled(name) {
                Some((Some(input), _, _)) => {
                    let instance = Value::Object(arguments.clone().unwrap_or_default());
                    let errors = schema::violations(&input, &instance);
                    if !errors.is_empty() {
                        return Err(ClientError::InvalidArguments {
                            tool: name.to_owned(),
                            errors,
                        });
                    }
                }
                Some((None, _, _)) => {}
                None => {
                    tracing::debug!(tool = %name, "tool not listed by the server; arguments not validated")
                }
            }
        }
        let timeout = options.timeout_or(self.inner.options.request_timeout);
        let mut request = options.request;
        request.timeout = timeout;
        let params = call_tool_params(CallToolRequestParams::new(name, arguments))?;
        let value = self
            .inner
            .send(CallTool::METHOD, Some(params), Some(request))
            .await?;
        let result: CallToolResult =
            decode(CallTool::METHOD, value, self.session().protocol_version)?;
        if options.validate_output
            && result.is_error != Some(true)
            && let Some((_, output, true)) = self.compiled(name)
        {
            let errors = match (&result.structured_content, output) {
                (None, _) => vec![
                    "structuredContent is missing but the tool declares an outputSchema".to_owned(),
                ],
                (Some(sc), Some(v)) => schema::violations(&v, sc),
                (Some(_), None) => Vec::new(),
            };
            if !errors.is_empty() {
                return Err(ClientError::InvalidStructuredContent {
                    tool: name.to_owned(),
                    errors,
                });
            }
        }
        Ok(result)
    }

    /// Task-augmented `tools/call` (2025-11-25 `basic/utilities/tasks`): the
    /// server answers at once with a task; poll [`Client::get_task`], then
    /// fetch the outcome with [`Client::tool_task_result`].
    ///
    /// Errors: [`ClientError::CapabilityNotSupported`] (`tasks.requests.tools.call`)
    /// when strict; else as [`Client::request`].
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        options: TaskOptions,
    ) -> Result<CreateTaskResult, ClientError> {
        let session = self.session();
        if self.inner.options.strict_capabilities {
            if !session.protocol_version.has_tasks() {
                return Err(ClientError::MethodNotInRevision {
                    method: "tools/call (task-augmented)".into(),
                    version: session.protocol_version.as_str().to_owned(),
                });
            }
            if !capabilities::supports_tool_tasks(&session.capabilities) {
                return Err(ClientError::CapabilityNotSupported {
                    capability: "tasks.requests.tools.call",
                    method: "tools/call".into(),
                });
            }
        }
        let mut params = CallToolRequestParams::new(name, arguments);
        params.task = Some(options.task);
        let params = call_tool_params(params)?;
        let value = self
            .inner
            .send("tools/call", Some(params), options.request)
            .await?;
        decode("tools/call", value, self.session().protocol_version)
    }

    /// `tasks/get`: the task's current state.
    ///
    /// Errors: as [`Client::request`]; needs `tasks`.
    pub async fn get_task(&self, task_id: impl Into<String>) -> Result<Task, ClientError> {
        self.request::<GetTask>(task_params(task_id), None).await
    }

    /// `tasks/result` for a task-augmented `tools/call`: blocks until the
    /// task is terminal, then returns what `tools/call` would have.
    /// `options: None` uses the client's default timeout.
    ///
    /// Errors: as [`Client::request`]; needs `tasks`.
    pub async fn tool_task_result(
        &self,
        task_id: impl Into<String>,
        options: Option<RequestOptions>,
    ) -> Result<CallToolResult, ClientError> {
        let params = serde_json::to_value(task_params(task_id))
            .map_err(|e| ClientError::encode("tasks/result", e))?;
        let value = self
            .inner
            .send("tasks/result", Some(params), options)
            .await?;
        decode_like(
            "tasks/result",
            CallTool::METHOD,
            value,
            self.session().protocol_version,
        )
    }

    /// One page of `tasks/list`.
    ///
    /// Errors: as [`Client::request`]; needs `tasks.list`.
    pub async fn list_tasks(&self, cursor: Option<String>) -> Result<ListTasksResult, ClientError> {
        self.list_page::<ListTasks>(cursor).await
    }

    /// Every task, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_tasks(&self) -> Result<Vec<Task>, ClientError> {
        self.tasks_listing().await.map(|l| l.items)
    }

    /// [`Client::list_all_tasks`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn tasks_listing(&self) -> Result<Listing<Task>, ClientError> {
        self.listing::<ListTasks>().await
    }

    /// `tasks/cancel` (use this, not `notifications/cancelled`, for tasks).
    ///
    /// Errors: as [`Client::request`]; needs `tasks.cancel`.
    pub async fn cancel_task(&self, task_id: impl Into<String>) -> Result<Task, ClientError> {
        self.request::<CancelTask>(task_params(task_id), None).await
    }
}

fn task_params(task_id: impl Into<String>) -> TaskIdParams {
    TaskIdParams {
        task_id: task_id.into(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Value) -> Tool {
        serde_json::from_value(serde_json::json!({"name": name, "inputSchema": schema})).unwrap()
    }

    /// Re-listing an unchanged tool keeps its compiled validators; a
    /// changed one loses them; a complete listing forgets unlisted tools.
    #[test]
    fn tool_cache_keeps_what_did_not_change() {
        let mut cache = ToolCache::default();
        let a = tool("a", serde_json::json!({"type": "object"}));
        let b = tool("b", serde_json::json!({"type": "object"}));
        cache.replace_all(&[a.clone(), b.clone()]);
        cache.validators.insert("a".into(), (None, None));
        cache.validators.insert("b".into(), (None, None));
        cache.observe(&a);
        assert!(
            cache.validators.contains_key("a"),
            "unchanged: validators kept"
        );
        let b2 = tool(
            "b",
            serde_json::json!({"type": "object", "required": ["x"]}),
        );
        cache.observe(&b2);
        assert!(
            !cache.validators.contains_key("b"),
            "changed: validators dropped"
        );
        assert_eq!(cache.get("b"), Some(&b2));
        cache.replace_all(std::slice::from_ref(&a));
        assert!(cache.get("b").is_none() && cache.validators.contains_key("a"));
        assert_eq!(cache.listed().as_deref(), Some(&vec![a]));
        // The complete listing is held once: the entry is that copy.
        let listed = cache.listed().expect("current");
        assert!(std::ptr::eq(cache.get("a").expect("known"), &listed[0]));
        // A stale listing is not offered, but its tools stay known.
        cache.complete_current = false;
        assert!(cache.listed().is_none() && cache.get("a").is_some());
    }

    /// The moved-in `arguments` give the same JSON as serializing the
    /// whole params, with and without arguments and with other members.
    #[test]
    fn call_tool_params_match_serialization() {
        let mut arguments = Map::new();
        arguments.insert("text".into(), Value::String("x".repeat(1024)));
        arguments.insert("n".into(), Value::from(3));
        let mut with_task = CallToolRequestParams::new("echo", Some(arguments.clone()));
        with_task.request_state = Some("opaque".into());
        with_task.extra.insert("z".into(), Value::Bool(true));
        // Each member other than name and arguments on its own: the
        // serialized path, not the plain one.
        let mut with_meta = CallToolRequestParams::new("echo", Some(arguments.clone()));
        with_meta.meta = Some(Map::from_iter([("k".to_owned(), Value::from(1))]));
        let mut with_extra = CallToolRequestParams::new("echo", None);
        with_extra.extra.insert("z".into(), Value::Null);
        let mut with_state = CallToolRequestParams::new("echo", None);
        with_state.request_state = Some("s".into());
        let mut with_task_only = CallToolRequestParams::new("echo", None);
        with_task_only.task = Some(Default::default());
        for params in [
            CallToolRequestParams::new("echo", Some(arguments)),
            CallToolRequestParams::new("echo", Some(Map::new())),
            CallToolRequestParams::new("echo", None),
            with_task,
            with_meta,
            with_extra,
            with_state,
            with_task_only,
        ] {
            let expected = serde_json::to_value(&params).expect("serializes");
            let built = call_tool_params(params).expect("builds");
            assert_eq!(built, expected);
        }
    }
}
