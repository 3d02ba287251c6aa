//! Building one HTTP request of a connection: the headers every request
//! carries (configured, auth, `Accept-Encoding`, `MCP-Protocol-Version`,
//! `Mcp-Session-Id`, proxy credentials), those of its kind (POST, GET
//! stream, session DELETE) and the per-revision request-metadata headers.

use bytes::Bytes;
use http::header::{ACCEPT, ACCEPT_ENCODING, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Uri};
use http_body_util::Full;
use mcp_transport::TransportError;

use crate::connection::Connection;
use crate::connector::proxy_authorization;
use crate::cookies::add_cookies;
use crate::decode;
use crate::header_value;
use crate::wire_rules::{
    ACCEPT_POST, ACCEPT_SSE, LAST_EVENT_ID, MCP_METHOD, MCP_PROTOCOL_VERSION, MCP_SESSION_ID,
};

/// What one exchange sends besides the body.
#[derive(Debug, Clone)]
pub(crate) enum RequestKind {
    /// A POST of one JSON-RPC message (`method` for requests/notifications;
    /// `metadata`: the request-metadata headers the protocol side computed,
    /// raw values, sent only when the revision's rules say so).
    Post {
        method: Option<String>,
        with_session: bool,
        metadata: Vec<(String, String)>,
    },
    /// A GET of an SSE stream, resuming after `last_event_id`.
    Get { last_event_id: Option<String> },
    /// The DELETE of the session.
    Delete,
}

/// What [`Connection::build`] put on a request that its errors may name.
pub(crate) struct Sent {
    /// The `Mcp-Session-Id`.
    pub(crate) session: Option<String>,
    /// The `Accept` value.
    pub(crate) accept: Option<&'static str>,
    /// The `MCP-Protocol-Version` value.
    pub(crate) version: Option<&'static str>,
}

impl Connection {
    /// The request for one hop of an exchange: `method` to `url` with
    /// `body`, headers as `kind` and the negotiated revision say;
    /// `cross_origin` when a redirect left the server's origin (no
    /// credentials then). Also returns what its errors may name.
    ///
    /// Errors: `Protocol` for a request-metadata header that cannot be sent,
    /// or a request hyper cannot build.
    pub(crate) fn build(
        &self,
        method: &Method,
        url: &Uri,
        body: &Bytes,
        kind: &RequestKind,
        cross_origin: bool,
    ) -> Result<(Request<Full<Bytes>>, Sent), TransportError> {
        let mut headers = self.static_headers.clone();
        self.add_credentials(&mut headers, cross_origin);
        add_cookies(&self.cookies, &mut headers, url);
        for name in [ACCEPT, CONTENT_TYPE, ACCEPT_ENCODING] {
            if headers.remove(&name).is_some() {
                tracing::debug!(connection = %self.label(), header = %name, "configured header ignored: the transport sets it");
            }
        }
        // Exactly the codings the reply decoder undoes.
        headers.insert(
            ACCEPT_ENCODING,
            HeaderValue::from_static(decode::ACCEPT_ENCODING),
        );
        let rules = self.rules();
        let mut with_session = rules.sessions;
        let mut accept = None;
        match kind {
            RequestKind::Post {
                method: rpc_method,
                with_session: ws,
                metadata,
            } => {
                accept = Some(ACCEPT_POST);
                headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_POST));
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                headers.remove(MCP_METHOD);
                if rules.method_header {
                    if let Some(m) = rpc_method
                        .as_deref()
                        .and_then(|m| HeaderValue::try_from(m).ok())
                    {
                        headers.insert(MCP_METHOD, m);
                    }
                    insert_metadata(&mut headers, metadata)?;
                }
                with_session &= *ws;
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
        if rules.version_header
            && let Some(v) = self.version()
        {
            version = Some(v.as_str());
            headers.insert(MCP_PROTOCOL_VERSION, HeaderValue::from_static(v.as_str()));
        }
        headers.remove(MCP_SESSION_ID);
        let session = if with_session { self.session() } else { None };
        let session = session.and_then(|s| {
            HeaderValue::try_from(s.as_str()).ok().map(|v| {
                headers.insert(MCP_SESSION_ID, v);
                s
            })
        });
        if let Some(v) = proxy_authorization(self.proxies.as_deref(), url) {
            headers.insert(http::header::PROXY_AUTHORIZATION, v);
        }
        let mut request = Request::builder()
            .method(method.clone())
            .uri(url.clone())
            .body(Full::new(body.clone()))
            .map_err(|e| TransportError::protocol(format!("cannot build the HTTP request: {e}")))?;
        *request.headers_mut() = headers;
        Ok((
            request,
            Sent {
                session,
                accept,
                version,
            },
        ))
    }
}

/// Adds the request-metadata headers (`Mcp-Name`, `Mcp-Param-*`), each
/// value encoded per 2026-07-28 § Value Encoding; a configured header of the
/// same name is replaced.
///
/// Errors: `Protocol` for a name that is not an HTTP field name (the
/// protocol side validates `x-mcp-header` names, so this is a caller bug).
fn insert_metadata(
    headers: &mut HeaderMap,
    metadata: &[(String, String)],
) -> Result<(), TransportError> {
    for (name, _) in metadata {
        if let Ok(name) = HeaderName::try_from(name.as_str()) {
            headers.remove(name);
        }
    }
    for (name, value) in metadata {
        let header = HeaderName::try_from(name.as_str()).map_err(|_| {
            TransportError::protocol(format!("invalid request-metadata header name {name:?}"))
        })?;
        let encoded = header_value::encode(value);
        let value = HeaderValue::try_from(encoded.as_str()).map_err(|_| {
            TransportError::protocol(format!("cannot encode the value of header {name}"))
        })?;
        headers.append(header, value);
    }
    Ok(())
}

/// `true` for what may reach the server twice without a second effect: a
/// GET, the session DELETE, a response or notification, and every request
/// method of the client but `tools/call` (which runs a tool) and methods this
/// transport does not know.
pub(crate) fn safe_to_send_twice(kind: &RequestKind) -> bool {
    const REPEATABLE: [&str; 17] = [
        "initialize",
        "ping",
        "server/discover",
        "tools/list",
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "completion/complete",
        "logging/setLevel",
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
    ];
    match kind {
        RequestKind::Get { .. } | RequestKind::Delete => true,
        RequestKind::Post { method: None, .. } => true,
        RequestKind::Post {
            method: Some(method),
            ..
        } => method.starts_with("notifications/") || REPEATABLE.contains(&method.as_str()),
    }
}
