//! What one request of a connection is ([`HttpRequest`], [`RequestKind`])
//! and the headers the transport itself puts on each hop of it
//! ([`Head`]): `Accept`, `Content-Type`, `Accept-Encoding`,
//! `MCP-Protocol-Version`, `Mcp-Session-Id`, `Last-Event-ID` and the
//! per-revision request-metadata headers. The session's part of them is
//! read through [`SessionHeaders`], so this file knows nothing of the
//! connection that owns the session.

use std::borrow::Cow;

use bytes::Bytes;
use http::header::{ACCEPT, ACCEPT_ENCODING, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use mcp_transport::TransportError;
use mcp_types::ProtocolVersion;

use crate::decode;
use crate::header_value;
use crate::wire_rules::{
    ACCEPT_POST, ACCEPT_SSE, LAST_EVENT_ID, MCP_METHOD, MCP_PROTOCOL_VERSION, MCP_SESSION_ID,
    WireRules, wire_rules,
};

/// What one exchange sends besides the body.
#[derive(Debug, Clone)]
pub(crate) enum RequestKind {
    /// A POST of one JSON-RPC message (`method` for requests/notifications;
    /// `metadata`: the request-metadata headers the protocol side computed,
    /// raw values, sent only when the revision's rules say so).
    Post {
        method: Option<Cow<'static, str>>,
        with_session: bool,
        metadata: Vec<(String, String)>,
    },
    /// A GET of an SSE stream, resuming after `last_event_id`.
    Get { last_event_id: Option<String> },
    /// The DELETE of the session.
    Delete,
}

impl RequestKind {
    /// The JSON-RPC method a request of this kind carries, if any.
    pub(crate) fn rpc_method(&self) -> Option<&str> {
        match self {
            RequestKind::Post { method, .. } => method.as_deref(),
            RequestKind::Get { .. } | RequestKind::Delete => None,
        }
    }
}

/// One request of a connection: `method` to `url` with `body`, of `kind`.
#[derive(Debug, Clone)]
pub(crate) struct HttpRequest {
    pub(crate) method: Method,
    pub(crate) url: Uri,
    pub(crate) body: Bytes,
    pub(crate) kind: RequestKind,
}

impl HttpRequest {
    /// A request of `kind` to `url` with `body`; its method is the kind's
    /// (POST, GET or DELETE).
    pub(crate) fn new(url: Uri, body: Bytes, kind: RequestKind) -> HttpRequest {
        let method = match kind {
            RequestKind::Post { .. } => Method::POST,
            RequestKind::Get { .. } => Method::GET,
            RequestKind::Delete => Method::DELETE,
        };
        HttpRequest {
            method,
            url,
            body,
            kind,
        }
    }
}

/// What a request carries of its connection's session. Read anew for each
/// hop (every redirect, auth retry, re-send and `Retry-After` retry), so a
/// hop sent after a re-initialization carries the new session.
pub(crate) trait SessionHeaders: Send + Sync {
    /// The negotiated revision, once set.
    fn protocol_version(&self) -> Option<ProtocolVersion>;
    /// The current `Mcp-Session-Id`.
    fn session_id(&self) -> Option<String>;
}

/// What a hop carried that its errors may name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sent {
    /// The `Mcp-Session-Id`.
    pub(crate) session: Option<String>,
    /// The `Accept` value.
    pub(crate) accept: Option<&'static str>,
    /// The `MCP-Protocol-Version` value.
    pub(crate) version: Option<&'static str>,
}

/// The transport's own headers of one hop, read from the session and
/// checked before anything else of the hop happens: a request that cannot
/// be sent (a request-metadata header that cannot be encoded) never
/// reaches the auth hook.
#[derive(Debug)]
pub(crate) struct Head {
    rules: WireRules,
    version: Option<ProtocolVersion>,
    session: Option<String>,
    metadata: Vec<(HeaderName, HeaderValue)>,
}

impl Head {
    /// The head of a request of `kind` in `session`'s state now.
    ///
    /// Errors: `Protocol` for a request-metadata header that cannot be sent.
    pub(crate) fn new(
        kind: &RequestKind,
        session: &dyn SessionHeaders,
    ) -> Result<Head, TransportError> {
        let version = session.protocol_version();
        let rules = wire_rules(version);
        let metadata = match kind {
            RequestKind::Post { metadata, .. } if rules.method_header => encode_metadata(metadata)?,
            _ => Vec::new(),
        };
        let with_session = rules.sessions
            && match kind {
                RequestKind::Post { with_session, .. } => *with_session,
                RequestKind::Get { .. } | RequestKind::Delete => true,
            };
        Ok(Head {
            rules,
            version,
            session: if with_session {
                session.session_id()
            } else {
                None
            },
            metadata,
        })
    }

    /// Puts the transport's headers for a request of `kind` on `headers`
    /// (the configured ones, with the hook's kept headers and the cookies),
    /// replacing theirs of the same names: a configured `Accept`,
    /// `Content-Type` or `Accept-Encoding` is dropped with a debug line.
    /// Returns what the errors of the reply may name.
    pub(crate) fn apply(&self, kind: &RequestKind, headers: &mut HeaderMap, label: &str) -> Sent {
        for name in [ACCEPT, CONTENT_TYPE, ACCEPT_ENCODING] {
            if headers.remove(&name).is_some() {
                tracing::debug!(connection = %label, header = %name, "configured header ignored: the transport sets it");
            }
        }
        // Exactly the codings the reply decoder undoes.
        headers.insert(
            ACCEPT_ENCODING,
            HeaderValue::from_static(decode::ACCEPT_ENCODING),
        );
        let mut accept = None;
        match kind {
            RequestKind::Post {
                method: rpc_method, ..
            } => {
                accept = Some(ACCEPT_POST);
                headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_POST));
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                headers.remove(MCP_METHOD);
                if self.rules.method_header {
                    if let Some(m) = rpc_method
                        .as_deref()
                        .and_then(|m| HeaderValue::try_from(m).ok())
                    {
                        headers.insert(MCP_METHOD, m);
                    }
                    // A configured header of a request-metadata name is
                    // replaced by the request's values.
                    for (name, _) in &self.metadata {
                        headers.remove(name);
                    }
                    for (name, value) in &self.metadata {
                        headers.append(name.clone(), value.clone());
                    }
                }
            }
            RequestKind::Get { last_event_id } => {
                accept = Some(ACCEPT_SSE);
                headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_SSE));
                headers.remove(LAST_EVENT_ID);
                if let Some(v) = last_event_id
                    .as_deref()
                    .and_then(|v| HeaderValue::try_from(v).ok())
                {
                    headers.insert(LAST_EVENT_ID, v);
                }
            }
            RequestKind::Delete => {}
        }
        headers.remove(MCP_PROTOCOL_VERSION);
        let mut version = None;
        if self.rules.version_header
            && let Some(v) = self.version
        {
            version = Some(v.as_str());
            headers.insert(MCP_PROTOCOL_VERSION, HeaderValue::from_static(v.as_str()));
        }
        headers.remove(MCP_SESSION_ID);
        let session = self.session.as_ref().and_then(|s| {
            HeaderValue::try_from(s.as_str()).ok().map(|v| {
                headers.insert(MCP_SESSION_ID, v);
                s.clone()
            })
        });
        Sent {
            session,
            accept,
            version,
        }
    }
}

/// The request-metadata headers (`Mcp-Name`, `Mcp-Param-*`), each value
/// encoded per 2026-07-28 § Value Encoding.
///
/// Errors: `Protocol` for a name that is not an HTTP field name (the
/// protocol side validates `x-mcp-header` names, so this is a caller bug).
fn encode_metadata(
    metadata: &[(String, String)],
) -> Result<Vec<(HeaderName, HeaderValue)>, TransportError> {
    metadata
        .iter()
        .map(|(name, value)| {
            let header = HeaderName::try_from(name.as_str()).map_err(|_| {
                TransportError::misuse(format!("invalid request-metadata header name {name:?}"))
            })?;
            let encoded = header_value::encode(value);
            let value = HeaderValue::try_from(encoded.as_str()).map_err(|_| {
                TransportError::misuse(format!("cannot encode the value of header {name}"))
            })?;
            Ok((header, value))
        })
        .collect()
}
