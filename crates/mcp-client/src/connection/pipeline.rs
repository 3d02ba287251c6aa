//! The pipeline every request goes through, [`Connection::send`]: the
//! capability gate, the per-request `_meta` and request-metadata headers of
//! the negotiated revision, one attempt, and the one recovery each revision
//! defines for a failed attempt, written once:
//!
//! - a lost session (handshake revisions) re-initializes;
//! - under 2026-07-28, `-32020` to `tools/call` refreshes `tools/list`
//!   (the tool's `x-mcp-header` annotations) and `-32022` re-selects a
//!   revision from `data.supported` (spec 2026-07-28 §3.9, §1.3);
//!
//! then the request is sent once more, as a new request. The multi
//! round-trip loop (`mrtr.rs`) is a layer around it: each of its rounds is
//! one more request through here.
//!
//! The tool listing the recoveries need is here too
//! ([`Connection::tools_listing`]), sending its pages through the same
//! pipeline.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_transport::{RequestOptions, RequestTimeout, TransportError};
use mcp_types::PaginatedParams;
use mcp_types::RawParams;
use mcp_types::tools::{CallTool, ListTools, Tool};
use mcp_types::{ErrorCode, RawResult, Request};
use serde_json::Value;

use crate::capabilities;
use crate::codec;
use crate::connection::Connection;
use crate::error::ClientError;
use crate::list_changes::{self, ListKind};
use crate::listing::{Listing, Pager};
use crate::negotiate::{self, Negotiated};
use crate::request_metadata;

/// The params of a request as the pipeline sends them, once per attempt.
pub(crate) trait SendParams {
    /// The params as a value, when they are one: the transport writes it
    /// as it writes the request (borrowed, so a retry sends it again
    /// without a copy), and the request-metadata headers read it.
    fn value(&self) -> Option<&Value>;

    /// Params that write themselves: their JSON for this attempt, written
    /// around by the transport ([`RawParams`]), so nothing of them is held
    /// as a value while the response is awaited. `None` sends
    /// [`SendParams::value`]. Such params give the request-metadata headers
    /// nothing to read: use them where [`Connection::sends_raw`] says so.
    ///
    /// Errors: [`ClientError::Encode`], or what the params refuse to be
    /// (e.g. [`ClientError::ArgumentsNotAnObject`]).
    fn write(&self) -> Result<Option<RawParams>, ClientError>;
}

impl SendParams for Option<&Value> {
    fn value(&self) -> Option<&Value> {
        *self
    }

    fn write(&self) -> Result<Option<RawParams>, ClientError> {
        Ok(None)
    }
}

/// The recovery done before the one retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Recovery {
    /// The lost session was re-initialized.
    Reinitialized,
    /// `tools/list` was fetched again (`-32020`).
    ToolsRefreshed,
    /// The revision was negotiated again (`-32022`).
    Renegotiated,
}

/// The future of [`Connection::refresh_tools`], boxed: the tool listing runs
/// inside the pipeline's recoveries and goes through the pipeline itself.
type ToolsListing<'a> =
    Pin<Box<dyn Future<Output = Result<Listing<Tool>, ClientError>> + Send + 'a>>;

impl Connection {
    /// Sends `method` and returns the raw result: capability gate,
    /// per-request `_meta` and request-metadata headers of the negotiated
    /// revision, and the recoveries of each revision (see the module docs).
    /// A server's error saying it could not send a server-initiated request
    /// in the revision is [`ClientError::ServerRequestNotInRevision`] (the
    /// handler hears of it first).
    ///
    /// Errors: [`ClientError::NotInitialized`] before negotiation,
    /// [`ClientError::MethodNotInRevision`] and
    /// [`ClientError::CapabilityNotSupported`] from the gate, what `params`
    /// refuse to be, [`ClientError::SessionLost`] when the session is lost
    /// again right after re-initializing, the recovery's own error, else
    /// the request's ([`ClientError::Server`], [`ClientError::Transport`]).
    pub(crate) async fn send<P: SendParams>(
        &self,
        method: &str,
        params: P,
        options: RequestOptions,
    ) -> Result<RawResult, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::NotInitialized {
            method: method.to_owned(),
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
    async fn send_in<P: SendParams>(
        &self,
        session: Arc<Negotiated>,
        method: &str,
        params: P,
        options: RequestOptions,
    ) -> Result<RawResult, ClientError> {
        self.gate(method, &session)?;
        let options = self.resolve(options);
        if method == CallTool::METHOD && self.uses_metadata_headers(&session) {
            // `Mcp-Param-*` come from the tool's inputSchema: learn it first.
            let known = request_metadata::mcp_name(method, params.value())
                .is_some_and(|name| self.tools().knows(&name));
            if !known && let Err(e) = self.refresh_tools().await {
                tracing::warn!(error = %e, "tools/list before tools/call failed; Mcp-Param-* headers may be missing");
            }
        }
        let generation = self.generation();
        // The params are read before each attempt, never across it: only
        // what the attempt sends is held while it is awaited.
        let (value, raw) = (params.value(), params.write()?);
        let err = match self
            .attempt(&session, method, value, raw, options.clone())
            .await
        {
            Ok(result) => return Ok(result),
            Err(err) => err,
        };
        let Some(recovery) = self.recover(&session, generation, method, &err).await? else {
            return Err(ClientError::from_transport(method, err));
        };
        let session = self.session().unwrap_or(session);
        let (value, raw) = (params.value(), params.write()?);
        match self.attempt(&session, method, value, raw, options).await {
            Ok(result) => Ok(result),
            Err(e) if recovery == Recovery::Reinitialized && e.is_session_expired() => {
                Err(ClientError::SessionLost {
                    method: method.to_owned(),
                    source: e,
                })
            }
            Err(e) => Err(ClientError::from_transport(method, e)),
        }
    }

    /// One attempt under `session`'s revision: its per-request `_meta`
    /// ([`Negotiated::request_meta`], merged by the transport as it
    /// serializes), and under 2026-07-28 the request-metadata headers.
    async fn attempt(
        &self,
        session: &Negotiated,
        method: &str,
        value: Option<&Value>,
        raw: Option<RawParams>,
        mut options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        if self.uses_metadata_headers(session) {
            options.metadata_headers = self.metadata_headers(method, value);
        }
        if options.params_meta.is_none() {
            options.params_meta = session.request_meta();
        }
        // Straight to the dispatcher when the transport only forwards to it:
        // its future is then part of this one, not a boxed trait future.
        match (raw, self.transport.dispatcher()) {
            (Some(raw), Some(dispatcher)) => dispatcher.request_raw(method, raw, options).await,
            (Some(raw), None) => self.transport.request_raw(method, raw, options).await,
            (None, Some(dispatcher)) => dispatcher.request(method, value, options).await,
            (None, None) => self.transport.request(method, value, options).await,
        }
    }

    /// Does the recovery `err` calls for under `session` (each tried once
    /// per request), or returns `None` when it calls for none.
    ///
    /// Errors: the recovery's: a failed re-initialization
    /// ([`ClientError::SessionLost`] when it lost the session as well), a
    /// failed `tools/list`, a failed re-negotiation.
    async fn recover(
        &self,
        session: &Negotiated,
        generation: u64,
        method: &str,
        err: &TransportError,
    ) -> Result<Option<Recovery>, ClientError> {
        if !session.is_stateless() {
            if !err.is_session_expired() {
                return Ok(None);
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
            return Ok(Some(Recovery::Reinitialized));
        }
        let TransportError::JsonRpc(rpc) = err else {
            return Ok(None);
        };
        if rpc.code == ErrorCode::HEADER_MISMATCH && method == CallTool::METHOD {
            tracing::debug!(%method, error = %rpc, "header mismatch: refreshing tools/list, then retrying once");
            self.refresh_tools().await?;
            return Ok(Some(Recovery::ToolsRefreshed));
        }
        if rpc.code != ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
            return Ok(None);
        }
        let Some(supported) = negotiate::supported_in_error(rpc) else {
            return Ok(None);
        };
        if supported
            .iter()
            .any(|s| s == session.protocol_version.as_str())
        {
            // The server lists the revision it just refused: re-selecting
            // cannot help.
            return Ok(None);
        }
        tracing::info!(%method, supported = ?supported, "revision refused; re-negotiating");
        self.renegotiate(generation).await?;
        Ok(Some(Recovery::Renegotiated))
    }

    /// `options` with an inherited timeout replaced by the client's
    /// configured one ([`crate::ClientOptions::request_timeout`]).
    fn resolve(&self, mut options: RequestOptions) -> RequestOptions {
        if options.timeout == RequestTimeout::Inherit {
            options.timeout = RequestTimeout::After(self.options.request_timeout);
        }
        options
    }

    /// The capability gate: with `strict_capabilities`, a method the
    /// revision lacks or the server did not declare is refused before
    /// anything is sent.
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

    /// `true` when params that write themselves ([`SendParams::write`])
    /// may carry a request of this session: a handshake revision, where no
    /// request-metadata header and no multi round-trip round reads the
    /// params as a value.
    pub(crate) fn sends_raw(&self, session: &Negotiated) -> bool {
        !session.is_stateless() && !self.uses_metadata_headers(session)
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

    /// Fetches every `tools/list` page through the pipeline and replaces the
    /// tool cache with the listing (tools with invalid `x-mcp-header`
    /// annotations left out when the headers are in use). Bounded by
    /// [`crate::ClientOptions::max_pages`]; listed once more when a
    /// `tools/list_changed` overtook it (see [`list_changes::fresh_listing`]).
    /// Keeps what arrived when the listing stops early (see
    /// [`crate::listing`]). The one tool listing: `Client::tools_listing`,
    /// the refresh after `tools/list_changed` and the recoveries use it.
    ///
    /// Errors: the first page's: as [`Connection::send`],
    /// [`ClientError::Decode`].
    pub(crate) async fn tools_listing(
        &self,
        options: RequestOptions,
    ) -> Result<Listing<Tool>, ClientError> {
        let session = self.session().ok_or_else(|| ClientError::NotInitialized {
            method: ListTools::METHOD.to_owned(),
        })?;
        let version = session.protocol_version;
        let page = |cursor: Option<String>| {
            let options = options.clone();
            async move {
                let params =
                    codec::params(ListTools::METHOD, &PaginatedParams::with_cursor(cursor))?;
                let raw = self
                    .send(ListTools::METHOD, params.as_ref(), options)
                    .await?;
                codec::decode::<ListTools>(raw, version, self.transport.as_ref())
            }
        };
        let fetch = || Pager::new(ListTools::METHOD, version, self.options.max_pages).run(page);
        list_changes::fresh_listing(
            || self.list_generation(ListKind::Tools),
            ListTools::METHOD,
            fetch,
            |listing, requested| self.cache_tool_listing(&session, listing, requested),
        )
        .await
    }

    /// [`Connection::tools_listing`] with the client's defaults, as the
    /// recoveries and the refresh after `tools/list_changed` run it.
    ///
    /// Errors: as [`Connection::tools_listing`].
    pub(crate) fn refresh_tools(&self) -> ToolsListing<'_> {
        Box::pin(self.tools_listing(RequestOptions::default()))
    }
}
