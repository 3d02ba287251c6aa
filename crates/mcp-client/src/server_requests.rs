//! The server's own requests (spec `client/roots`, `client/sampling`,
//! `client/elicitation`, and `ping`), answered through the
//! [`ClientHandler`]: one router for the receive loop (requests of the
//! handshake revisions) and the multi round-trip loop (the input requests
//! of a 2026-07-28 `input_required` result).
//!
//! Dispatch is by type: each request is an `mcp_types` [`Request`], whose
//! `METHOD` routes it and whose `Params` its params are decoded into,
//! straight from what arrived (the value the transport parsed, moved; or
//! the raw text of an input request), never through a copy. A request
//! reaches the handler only when the matching capability was declared;
//! otherwise it is answered `-32601`.

use mcp_transport::CancellationToken;
use mcp_types::EmptyParams;
use mcp_types::elicitation::{Elicit, ElicitRequestParams};
use mcp_types::lifecycle::{ClientCapabilities, Ping};
use mcp_types::roots::ListRoots;
use mcp_types::sampling::{CreateMessage, CreateMessageRequestParams, SamplingContentBlock};
use mcp_types::{ErrorCode, JsonRpcError, Request, RequestId};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::handler::{ClientHandler, RequestContext};

/// The requests a server sends the client that reach the [`ClientHandler`]
/// (`ping` is answered by the client itself): in the handshake revisions as
/// JSON-RPC requests, under 2026-07-28 as the input requests of a multi
/// round-trip result.
pub(crate) const SERVER_REQUESTS: [&str; 3] =
    [Elicit::METHOD, CreateMessage::METHOD, ListRoots::METHOD];

/// The params of one server request as they arrived.
#[derive(Debug)]
pub(crate) enum ServerParams<'a> {
    /// No `params` member.
    Absent,
    /// The params the transport parsed, moved out of its message.
    Value(Value),
    /// The params' JSON text, as the result that carried the input
    /// request held it.
    Raw(&'a RawValue),
}

impl ServerParams<'_> {
    /// `params._meta`, when it is an object (for [`RequestContext::meta`]).
    fn meta(&self) -> Option<Map<String, Value>> {
        #[derive(Deserialize)]
        struct MetaOnly {
            #[serde(rename = "_meta")]
            meta: Option<Value>,
        }
        let meta = match self {
            ServerParams::Absent => None,
            ServerParams::Value(params) => params.get("_meta").cloned(),
            ServerParams::Raw(raw) => serde_json::from_str::<MetaOnly>(raw.get())
                .ok()
                .and_then(|m| m.meta),
        };
        match meta {
            Some(Value::Object(meta)) => Some(meta),
            _ => None,
        }
    }

    /// The params as `P`; absent params read as `{}`.
    ///
    /// Errors: `-32602` (Invalid params) naming what serde refused.
    fn decode<P: DeserializeOwned>(self) -> Result<P, JsonRpcError> {
        let decoded = match self {
            ServerParams::Absent => serde_json::from_value(Value::Object(Map::new())),
            ServerParams::Value(params) => serde_json::from_value(params),
            ServerParams::Raw(raw) => serde_json::from_str(raw.get()),
        };
        decoded.map_err(|e| invalid_params(format!("Invalid params: {e}")))
    }
}

/// One server request to answer.
#[derive(Debug)]
pub(crate) struct ServerRequest<'a> {
    /// The server's request id (for an input request: its key).
    pub(crate) id: RequestId,
    /// The method.
    pub(crate) method: &'a str,
    /// Its params.
    pub(crate) params: ServerParams<'a>,
    /// Cancelled when the server (or the caller waiting on the multi
    /// round-trip request) gives up on it.
    pub(crate) cancel: CancellationToken,
}

/// The answer to one server request: `{}` for `ping`, the handler's answer
/// for a request whose capability was declared.
///
/// Errors: `-32601` for an unknown method or one whose capability was not
/// declared; `-32602` for params that do not decode, an undeclared
/// elicitation mode, tools in sampling without `sampling.tools`, or tool
/// uses without their results; whatever the handler answered.
pub(crate) async fn answer(
    handler: &dyn ClientHandler,
    caps: &ClientCapabilities,
    request: ServerRequest<'_>,
) -> Result<Value, JsonRpcError> {
    match request.method {
        Ping::METHOD => Ok(Value::Object(Map::new())),
        ListRoots::METHOD => serve::<ListRoots>(handler, caps, request).await,
        CreateMessage::METHOD => serve::<CreateMessage>(handler, caps, request).await,
        Elicit::METHOD => serve::<Elicit>(handler, caps, request).await,
        other => Err(JsonRpcError::method_not_found(other)),
    }
}

/// A server request the [`ClientHandler`] answers.
trait Served: Request {
    /// `true` when the client declared what lets the request reach the
    /// handler.
    fn declared(caps: &ClientCapabilities) -> bool;

    /// The typed params.
    ///
    /// Errors: `-32602`.
    fn params(params: ServerParams<'_>) -> Result<Self::Params, JsonRpcError> {
        params.decode()
    }

    /// Checks the params against what was declared, then asks the handler.
    async fn serve(
        handler: &dyn ClientHandler,
        caps: &ClientCapabilities,
        params: Self::Params,
        ctx: RequestContext,
    ) -> Result<Self::Result, JsonRpcError>;
}

/// Routes one request to `R`: capability, params, handler, encoded answer.
async fn serve<R: Served>(
    handler: &dyn ClientHandler,
    caps: &ClientCapabilities,
    request: ServerRequest<'_>,
) -> Result<Value, JsonRpcError> {
    if !R::declared(caps) {
        return Err(JsonRpcError::method_not_found(R::METHOD));
    }
    let ctx = RequestContext {
        id: request.id,
        method: R::METHOD.to_owned(),
        cancel: request.cancel,
        meta: request.params.meta(),
    };
    let params = R::params(request.params)?;
    encode(R::serve(handler, caps, params, ctx).await)
}

impl Served for ListRoots {
    fn declared(caps: &ClientCapabilities) -> bool {
        caps.roots.is_some()
    }

    /// The handler takes no params: they are not read, so params a server
    /// got wrong do not refuse the request.
    fn params(_: ServerParams<'_>) -> Result<EmptyParams, JsonRpcError> {
        Ok(EmptyParams::default())
    }

    async fn serve(
        handler: &dyn ClientHandler,
        _: &ClientCapabilities,
        _: EmptyParams,
        ctx: RequestContext,
    ) -> Result<Self::Result, JsonRpcError> {
        handler.list_roots(ctx).await
    }
}

impl Served for CreateMessage {
    fn declared(caps: &ClientCapabilities) -> bool {
        caps.sampling.is_some()
    }

    async fn serve(
        handler: &dyn ClientHandler,
        caps: &ClientCapabilities,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> Result<Self::Result, JsonRpcError> {
        let tools_declared = caps.sampling.as_ref().is_some_and(|s| s.tools.is_some());
        if (params.tools.is_some() || params.tool_choice.is_some()) && !tools_declared {
            return Err(invalid_params(
                "tools in sampling were not declared (sampling.tools)",
            ));
        }
        check_tool_pairing(&params)?;
        handler.create_message(params, ctx).await
    }
}

impl Served for Elicit {
    fn declared(caps: &ClientCapabilities) -> bool {
        caps.elicitation.is_some()
    }

    async fn serve(
        handler: &dyn ClientHandler,
        caps: &ClientCapabilities,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> Result<Self::Result, JsonRpcError> {
        let declared = caps.elicitation.clone().unwrap_or_default();
        let mode = match &params {
            ElicitRequestParams::Form(_) if declared.supports_form() => None,
            ElicitRequestParams::Url(_) if declared.supports_url() => None,
            ElicitRequestParams::Form(_) => Some("form"),
            ElicitRequestParams::Url(_) => Some("url"),
            ElicitRequestParams::Unknown(v) => {
                Some(v.get("mode").and_then(Value::as_str).unwrap_or("form"))
            }
        };
        if let Some(mode) = mode {
            return Err(invalid_params(format!(
                "elicitation mode {mode:?} was not declared by the client"
            )));
        }
        handler.elicit(params, ctx).await
    }
}

fn invalid_params(message: impl Into<String>) -> JsonRpcError {
    JsonRpcError::new(ErrorCode::INVALID_PARAMS, message)
}

/// The handler's answer as the JSON of the response.
///
/// Errors: the handler's; `-32603` when the answer does not serialize.
fn encode<T: Serialize>(result: Result<T, JsonRpcError>) -> Result<Value, JsonRpcError> {
    result.and_then(|r| {
        serde_json::to_value(r).map_err(|e| {
            JsonRpcError::new(
                ErrorCode::INTERNAL_ERROR,
                format!("cannot encode the result: {e}"),
            )
        })
    })
}

/// Sampling tool-use rules (2025-11-25 `client/sampling`): a user message
/// with `tool_result` holds only tool results, and each assistant
/// `tool_use` is answered by a `tool_result` in the next (user) message.
fn check_tool_pairing(p: &CreateMessageRequestParams) -> Result<(), JsonRpcError> {
    use mcp_types::Role;
    for (i, m) in p.messages.iter().enumerate() {
        let blocks: Vec<_> = m.content.blocks().collect();
        let results = blocks
            .iter()
            .filter(|b| matches!(b, SamplingContentBlock::ToolResult(_)))
            .count();
        if results > 0 && results != blocks.len() {
            return Err(invalid_params(
                "a message with tool_result content must contain only tool results",
            ));
        }
        let uses: Vec<&str> = blocks
            .iter()
            .filter_map(|b| match b {
                SamplingContentBlock::ToolUse(u) => Some(u.id.as_str()),
                _ => None,
            })
            .collect();
        if m.role == Role::Assistant && !uses.is_empty() {
            let answered: Vec<&str> = p
                .messages
                .get(i + 1)
                .filter(|n| n.role == Role::User)
                .map(|n| {
                    n.content
                        .blocks()
                        .filter_map(|b| match b {
                            SamplingContentBlock::ToolResult(r) => Some(r.tool_use_id.as_str()),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            if let Some(missing) = uses.iter().find(|u| !answered.contains(u)) {
                return Err(invalid_params(format!(
                    "Tool result missing in request for tool_use {missing:?}"
                )));
            }
        }
    }
    Ok(())
}
