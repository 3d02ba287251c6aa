//! [`Client`]: one connection to one MCP server. Here: connect, what was
//! negotiated, the generic request, and the methods of resources, prompts,
//! completion and logging; the other methods of [`Client`] are in the files
//! of this folder, one each for tools, 2025-11-25 tasks, skills and
//! subscriptions.

// The crate root re-exports their public types; `ClientError` names the
// skills' `SkillMismatch` and the connection holds the subscriptions'
// registry.
pub(crate) mod skills;
pub(crate) mod subscription;
mod tasks;
mod tools;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use mcp_transport::{CloseReason, RequestOptions, Transport};
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
use mcp_types::{EmptyParams, EmptyResult, Implementation, Paginated, PaginatedParams};
use mcp_types::{ProtocolVersion, Request};
use serde_json::{Map, Value};

use crate::codec;
use crate::connection::Connection;
use crate::error::ClientError;
use crate::list_changes::{self, ListKind};
use crate::listing::{Listing, Pager};
use crate::mrtr;
use crate::negotiate::{self, Negotiated};
use crate::options::ClientOptions;
use crate::receive_loop;
use crate::template::{self, TemplateValue};

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
    pub(crate) inner: Arc<Connection>,
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
        let inner = Connection::new(transport.clone(), options);
        receive_loop::start(&inner);
        let negotiated = negotiate::negotiate(transport.as_ref(), &inner.options).await?;
        inner.set_session(negotiated);
        Ok(Client { inner })
    }

    pub(crate) fn session(&self) -> Arc<Negotiated> {
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
        let mut rx = self.inner.closed_receiver();
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
    ///
    /// `options`: timeout, cancellation, progress; every request method
    /// takes them. [`RequestOptions::default`] keeps the client's
    /// [`ClientOptions::request_timeout`].
    ///
    /// Errors: see [`ClientError`]; a method gated by a missing server
    /// capability fails with [`ClientError::CapabilityNotSupported`] without
    /// a round trip when [`ClientOptions::strict_capabilities`] is on.
    pub async fn request<R: Request>(
        &self,
        params: R::Params,
        options: RequestOptions,
    ) -> Result<R::Result, ClientError> {
        let params = codec::params(R::METHOD, &params)?;
        let value = mrtr::send(&self.inner, R::METHOD, params, options).await?;
        codec::decode::<R>(
            value,
            self.session().protocol_version,
            self.transport().as_ref(),
        )
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
        options: RequestOptions,
    ) -> Result<Value, ClientError> {
        mrtr::send(&self.inner, method, params, options)
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
    pub async fn ping(&self, options: RequestOptions) -> Result<(), ClientError> {
        if self.session().is_stateless() {
            return self
                .request::<mcp_types::discovery::Discover>(EmptyParams::default(), options)
                .await
                .map(|_| ());
        }
        self.request::<Ping>(EmptyParams::default(), options)
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

    pub(crate) async fn list_page<R>(
        &self,
        cursor: Option<String>,
        options: RequestOptions,
    ) -> Result<R::Result, ClientError>
    where
        R: Request<Params = PaginatedParams>,
    {
        self.request::<R>(PaginatedParams::with_cursor(cursor), options)
            .await
    }

    /// Follows `nextCursor` to the end (spec `server/utilities/pagination`),
    /// keeping what arrived when it stops early (a repeated cursor, the
    /// page cap [`ClientOptions::max_pages`], a later page failing): see
    /// [`Listing`](crate::Listing).
    ///
    /// `options` apply to each page: its timeout bounds each page, a
    /// cancelled token stops the listing (a cancelled first page fails it).
    ///
    /// A listing of tools, prompts, resources or resource templates during
    /// which the matching `notifications/*/list_changed` arrived (the
    /// server may have answered from its state before the change) is
    /// fetched once more, and that second listing is returned (when it
    /// fails, the first is, logged at warn). At most once per call, so a
    /// server sending `list_changed` without end cannot hold a caller.
    ///
    /// Errors: the first page's.
    pub async fn listing<R>(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<<R::Result as Paginated>::Item>, ClientError>
    where
        R: Request<Params = PaginatedParams>,
        R::Result: Paginated,
    {
        let fetch = || self.fetch_listing::<R>(options.clone());
        let Some(kind) = ListKind::listed_by(R::METHOD) else {
            return fetch().await;
        };
        list_changes::fresh_listing(
            || self.inner.list_generation(kind),
            R::METHOD,
            fetch,
            |listing, requested| (listing, self.inner.list_generation(kind) == requested),
        )
        .await
    }

    /// One pass of [`Client::listing`]: every page, no second listing.
    ///
    /// Errors: the first page's.
    pub(crate) async fn fetch_listing<R>(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<<R::Result as Paginated>::Item>, ClientError>
    where
        R: Request<Params = PaginatedParams>,
        R::Result: Paginated,
    {
        let version = self.session().protocol_version;
        // Pages of tools are not observed one by one here: the one caller
        // for tools, `tools_listing`, replaces the cache with the whole
        // listing, holding one copy of it.
        Pager::new(R::METHOD, version, self.inner.options.max_pages)
            .run(|cursor| self.list_page::<R>(cursor, options.clone()))
            .await
    }

    /// One page of `resources/list`.
    ///
    /// Errors: as [`Client::request`]; needs `resources`.
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
        options: RequestOptions,
    ) -> Result<ListResourcesResult, ClientError> {
        self.list_page::<ListResources>(cursor, options).await
    }

    /// Every resource, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_resources(
        &self,
        options: RequestOptions,
    ) -> Result<Vec<Resource>, ClientError> {
        self.resources_listing(options).await.map(|l| l.items)
    }

    /// [`Client::list_all_resources`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn resources_listing(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<Resource>, ClientError> {
        self.listing::<ListResources>(options).await
    }

    /// One page of `resources/templates/list`.
    ///
    /// Errors: as [`Client::request`]; needs `resources`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
        options: RequestOptions,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        self.list_page::<ListResourceTemplates>(cursor, options)
            .await
    }

    /// Every resource template, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_resource_templates(
        &self,
        options: RequestOptions,
    ) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.resource_templates_listing(options)
            .await
            .map(|l| l.items)
    }

    /// [`Client::list_all_resource_templates`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn resource_templates_listing(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<ResourceTemplate>, ClientError> {
        self.listing::<ListResourceTemplates>(options).await
    }

    /// One page of `prompts/list`.
    ///
    /// Errors: as [`Client::request`]; needs `prompts`.
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
        options: RequestOptions,
    ) -> Result<ListPromptsResult, ClientError> {
        self.list_page::<ListPrompts>(cursor, options).await
    }

    /// Every prompt, following `nextCursor`.
    ///
    /// Entries that do not decode are left out and a listing that does not
    /// end is cut short, keeping what arrived (logged at warn; see
    /// [`Client::listing`]).
    ///
    /// Errors: the first page's, as [`Client::request`].
    pub async fn list_all_prompts(
        &self,
        options: RequestOptions,
    ) -> Result<Vec<Prompt>, ClientError> {
        self.prompts_listing(options).await.map(|l| l.items)
    }

    /// [`Client::list_all_prompts`] with the entries left out and why the
    /// listing stopped early, if it did.
    ///
    /// Errors: as [`Client::listing`].
    pub async fn prompts_listing(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<Prompt>, ClientError> {
        self.listing::<ListPrompts>(options).await
    }

    /// `resources/read` (spec `server/resources` § Reading Resources).
    /// "Not found" is [`ClientError::is_resource_not_found`].
    ///
    /// Errors: as [`Client::request`]; needs `resources`.
    pub async fn read_resource(
        &self,
        uri: impl Into<String>,
        options: RequestOptions,
    ) -> Result<ReadResourceResult, ClientError> {
        let params = ReadResourceRequestParams {
            uri: uri.into(),
            ..Default::default()
        };
        self.request::<ReadResource>(params, options).await
    }

    /// Expands `template` (RFC 6570) with `vars` and reads the resulting URI.
    ///
    /// Errors: [`ClientError::InvalidTemplate`], then as [`Client::read_resource`].
    pub async fn read_resource_template<K: Into<String>>(
        &self,
        template: &ResourceTemplate,
        vars: impl IntoIterator<Item = (K, TemplateValue)>,
        options: RequestOptions,
    ) -> Result<ReadResourceResult, ClientError> {
        let uri = template::expand_template(&template.uri_template, vars)?;
        self.read_resource(uri, options).await
    }

    /// `resources/subscribe`; updates arrive at
    /// [`crate::ClientHandler::on_resource_updated`].
    ///
    /// Errors: as [`Client::request`]; needs `resources.subscribe`.
    pub async fn subscribe(
        &self,
        uri: impl Into<String>,
        options: RequestOptions,
    ) -> Result<(), ClientError> {
        self.request::<Subscribe>(ResourceUriParams::new(uri), options)
            .await
            .map(drop)
    }

    /// `resources/unsubscribe`.
    ///
    /// Errors: as [`Client::request`]; needs `resources.subscribe`.
    pub async fn unsubscribe(
        &self,
        uri: impl Into<String>,
        options: RequestOptions,
    ) -> Result<(), ClientError> {
        self.request::<Unsubscribe>(ResourceUriParams::new(uri), options)
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
        options: RequestOptions,
    ) -> Result<GetPromptResult, ClientError> {
        let params = GetPromptRequestParams {
            name: name.into(),
            arguments,
            ..Default::default()
        };
        self.request::<GetPrompt>(params, options).await
    }

    /// `completion/complete` (spec `server/utilities/completion`).
    ///
    /// Errors: as [`Client::request`]; needs `completions` (≥2025-03-26).
    pub async fn complete(
        &self,
        params: CompleteRequestParams,
        options: RequestOptions,
    ) -> Result<CompleteResult, ClientError> {
        self.request::<mcp_types::completion::Complete>(params, options)
            .await
    }

    /// `logging/setLevel` (spec `server/utilities/logging`; not in 2026-07-28).
    ///
    /// Errors: as [`Client::request`]; needs `logging`.
    pub async fn set_logging_level(
        &self,
        level: LoggingLevel,
        options: RequestOptions,
    ) -> Result<(), ClientError> {
        let params = SetLevelRequestParams {
            level,
            meta: None,
            extra: Map::new(),
        };
        self.request::<SetLevel>(params, options).await.map(drop)
    }
}
