//! The state one HTTP connection shares between the request path, the GET
//! listener and the legacy reader: the client, the session, the negotiated
//! revision, and the one function that performs an HTTP exchange (headers,
//! redirects, the auth hook).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::header::{
    ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, CONTENT_TYPE, COOKIE, LOCATION, RETRY_AFTER,
    WWW_AUTHENTICATE,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use mcp_transport::{CloseReason, TimeoutPhase, TransportError};
use mcp_types::{JsonRpcMessage, JsonRpcResponse, ProtocolVersion, RequestId};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::config::{AuthChallenge, ERROR_BODY_LIMIT, ERROR_BODY_WAIT, HttpConfig};
use crate::connector::{
    HttpClient, build_client, failed_unanswered_on_reused, proxy_authorization,
};
use crate::decode::{self, ReplyBody};
use crate::header_value;
use crate::legacy::LegacyLink;
use crate::redact::redact_url;
use crate::url::{resolve, same_origin};
use crate::wire_rules::{
    ACCEPT_POST, ACCEPT_SSE, LAST_EVENT_ID, MCP_AUTH_SERVER, MCP_METHOD, MCP_PROTOCOL_VERSION,
    MCP_SESSION_ID, WireRules, wire_rules,
};

/// Which transport the connection speaks right now.
#[derive(Debug, Clone)]
pub(crate) enum ModeState {
    /// Auto mode before the first request settled it.
    Probing,
    /// Streamable HTTP.
    Streamable,
    /// Legacy HTTP+SSE, with the endpoint to POST to.
    Legacy(Arc<LegacyLink>),
}

/// What one exchange sends besides the body.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
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

/// A reply, with what the request carried.
#[derive(Debug)]
pub(crate) struct Reply {
    pub response: Response<ReplyBody>,
    /// The `Mcp-Session-Id` the request carried.
    pub sent_session: Option<String>,
    /// The `Accept` the request carried (named by a 406's error).
    pub sent_accept: Option<&'static str>,
    /// The `MCP-Protocol-Version` the request carried (named by a 400's
    /// error that is about it).
    pub sent_version: Option<&'static str>,
}

/// What [`Shared::build`] put on a request that its errors may name.
struct Sent {
    /// The `Mcp-Session-Id`.
    session: Option<String>,
    /// The `Accept` value.
    accept: Option<&'static str>,
    /// The `MCP-Protocol-Version` value.
    version: Option<&'static str>,
}

/// The connection's shared state.
pub(crate) struct Shared {
    pub me: Weak<Shared>,
    pub client: HttpClient,
    pub url: Uri,
    pub config: HttpConfig,
    static_headers: HeaderMap,
    auth_headers: Mutex<HeaderMap>,
    session: Mutex<Option<String>>,
    version: Mutex<Option<ProtocolVersion>>,
    pub mode: Mutex<ModeState>,
    pub fallback_lock: tokio::sync::Mutex<()>,
    pub listener: Mutex<Option<AbortHandle>>,
    pub legacy_reader: Mutex<Option<AbortHandle>>,
    pub listener_started: AtomicBool,
    /// A client that keeps no idle connection: every request it sends goes
    /// out on a new one (the re-send of a request whose reused connection
    /// failed). Built on first use.
    fresh: OnceLock<HttpClient>,
    /// The server was seen closing an idle connection as a request went out
    /// on it: from then on a request that is not safe to send twice goes out
    /// on a fresh connection.
    closes_idle: AtomicBool,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("url", &redact_url(&self.url.to_string()))
            .field("label", &self.config.label)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// Validates `config` and builds the state.
    ///
    /// Errors: `Protocol` for an invalid URL or header.
    pub fn new(config: HttpConfig, initial: ModeState) -> Result<Arc<Shared>, TransportError> {
        let url: Uri = config.url.parse().map_err(|e| {
            TransportError::protocol(format!("invalid URL {}: {e}", redact_url(&config.url)))
        })?;
        match url.scheme_str() {
            Some("http") | Some("https") if url.authority().is_some() => {}
            _ => {
                return Err(TransportError::protocol(format!(
                    "URL {} is not an absolute http(s) URL",
                    redact_url(&config.url)
                )));
            }
        }
        let mut static_headers = HeaderMap::new();
        for (name, value) in &config.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| TransportError::protocol(format!("invalid header name {name:?}")))?;
            let mut value = HeaderValue::try_from(value.as_str()).map_err(|_| {
                // Never echo the value: it may be a secret.
                TransportError::protocol(format!("invalid value for header {name}"))
            })?;
            if name == AUTHORIZATION
                || name.as_str().contains("key")
                || name.as_str().contains("token")
            {
                value.set_sensitive(true);
            }
            static_headers.append(name, value);
        }
        let client = build_client(
            &config.proxy,
            config.timeouts.connect,
            config.max_idle_connections,
        );
        Ok(Arc::new_cyclic(|me| Shared {
            me: me.clone(),
            client,
            url,
            static_headers,
            auth_headers: Mutex::new(HeaderMap::new()),
            session: Mutex::new(None),
            version: Mutex::new(None),
            mode: Mutex::new(initial),
            fallback_lock: tokio::sync::Mutex::new(()),
            listener: Mutex::new(None),
            legacy_reader: Mutex::new(None),
            listener_started: AtomicBool::new(false),
            fresh: OnceLock::new(),
            closes_idle: AtomicBool::new(false),
            config,
        }))
    }

    /// The client for requests that must go out on a new connection.
    fn fresh_client(&self) -> &HttpClient {
        self.fresh
            .get_or_init(|| build_client(&self.config.proxy, self.config.timeouts.connect, 0))
    }

    /// The label, for logs.
    pub fn label(&self) -> &str {
        &self.config.label
    }

    /// The wire rules of the negotiated revision.
    pub fn rules(&self) -> WireRules {
        wire_rules(*lock(&self.version))
    }

    /// Records the negotiated revision.
    pub fn set_version(&self, v: ProtocolVersion) {
        *lock(&self.version) = Some(v);
    }

    /// The current `Mcp-Session-Id`.
    pub fn session(&self) -> Option<String> {
        lock(&self.session).clone()
    }

    /// Sets (or clears) the `Mcp-Session-Id`.
    pub fn set_session(&self, s: Option<String>) {
        *lock(&self.session) = s;
    }

    /// Takes the session id (for the DELETE on close).
    pub fn take_session(&self) -> Option<String> {
        lock(&self.session).take()
    }

    /// Ends the GET listener, if any, and lets the next
    /// `notifications/initialized` (or `start_listening`) open a new one.
    pub fn reset_listener(&self) {
        if let Some(task) = lock(&self.listener).take() {
            task.abort();
        }
        self.listener_started.store(false, Ordering::Release);
    }

    /// Drops the session id if it is still `sent`.
    fn drop_session(&self, sent: &str) {
        let mut s = lock(&self.session);
        if s.as_deref() == Some(sent) {
            *s = None;
        }
    }

    /// The current mode.
    pub fn mode(&self) -> ModeState {
        lock(&self.mode).clone()
    }

    /// Sets the mode.
    pub fn set_mode(&self, m: ModeState) {
        *lock(&self.mode) = m;
    }

    fn build(
        &self,
        method: &Method,
        url: &Uri,
        body: &Bytes,
        kind: &Kind,
        cross_origin: bool,
    ) -> Result<(Request<Full<Bytes>>, Sent), TransportError> {
        let mut headers = self.static_headers.clone();
        let auth = lock(&self.auth_headers).clone();
        for (name, value) in auth.iter() {
            headers.insert(name.clone(), value.clone());
        }
        if cross_origin {
            headers.remove(AUTHORIZATION);
            headers.remove(COOKIE);
            for name in auth.keys() {
                headers.remove(name);
            }
        }
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
            Kind::Post {
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
            Kind::Get { last_event_id } => {
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
            Kind::Delete => {}
        }
        headers.remove(MCP_PROTOCOL_VERSION);
        let mut version = None;
        if rules.version_header
            && let Some(v) = *lock(&self.version)
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
        if let Some(v) = proxy_authorization(&self.config.proxy, url) {
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

    /// Sends one HTTP request to `url`, following 307/308 redirects (method,
    /// body and headers kept; cross-origin hops drop `Authorization` and
    /// cookies), calling the auth hook once on 401/403, and waiting as a
    /// 429 or 503 with `Retry-After` asks ([`HttpConfig::retry_after`]:
    /// bounded in tries and in each wait, and never past `deadline`, the
    /// send's own when it has one). The reply's body is decoded when it is
    /// compressed in a coding the client accepts.
    ///
    /// Errors: `Timeout{Connect}`, `Io` for network failures; `Protocol` for
    /// a 301/302/303 on a non-GET, a bad `Location` or too many hops.
    pub async fn exchange(
        &self,
        method: Method,
        url: Uri,
        body: Bytes,
        kind: Kind,
        deadline: Option<Instant>,
    ) -> Result<Reply, TransportError> {
        let mut tries = 0u32;
        loop {
            let reply = self.exchange_once(&method, &url, &body, &kind).await?;
            let Some(wait) = self.retry_wait(&reply, tries, deadline) else {
                return Ok(reply);
            };
            tries += 1;
            tracing::info!(
                connection = %self.label(),
                status = reply.response.status().as_u16(),
                wait_ms = wait.as_millis() as u64,
                attempt = tries,
                "server busy; retrying as its Retry-After asks"
            );
            drop(reply);
            tokio::time::sleep(wait).await;
        }
    }

    /// How long to wait before sending again, when `reply` is a 429 or 503
    /// with a `Retry-After` (delay-seconds or an HTTP-date, RFC 9110
    /// § 10.2.3) that the retry policy allows: within the number of tries,
    /// within the longest wait, and ending before `deadline`. `None`: the
    /// reply stands (a wait too long is not waited, and the error is the
    /// server's refusal).
    fn retry_wait(&self, reply: &Reply, tries: u32, deadline: Option<Instant>) -> Option<Duration> {
        let status = reply.response.status();
        if !matches!(
            status,
            StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
        ) {
            return None;
        }
        let value = reply.response.headers().get(RETRY_AFTER)?;
        let Some(wait) = parse_retry_after(value.as_bytes(), std::time::SystemTime::now()) else {
            tracing::debug!(connection = %self.label(), value = %String::from_utf8_lossy(value.as_bytes()), "unreadable Retry-After; not retrying");
            return None;
        };
        let policy = self.config.retry_after;
        let fits_deadline =
            || deadline.is_none_or(|d| Instant::now().checked_add(wait).is_some_and(|end| end < d));
        if tries >= policy.max_retries || wait > policy.max_wait || !fits_deadline() {
            tracing::debug!(
                connection = %self.label(),
                status = status.as_u16(),
                wait_ms = wait.as_millis() as u64,
                tries,
                "server busy; its Retry-After is past what this request waits"
            );
            return None;
        }
        Some(wait)
    }

    /// One exchange (redirects and the auth hook included).
    async fn exchange_once(
        &self,
        method: &Method,
        url: &Uri,
        body: &Bytes,
        kind: &Kind,
    ) -> Result<Reply, TransportError> {
        let method = method.clone();
        let url = url.clone();
        let mut auth_retried = false;
        'auth: loop {
            let mut target = url.clone();
            let mut cross_origin = false;
            let mut hops = 0usize;
            loop {
                let (request, sent) = self.build(&method, &target, body, kind, cross_origin)?;
                let repeatable = safe_to_send_twice(kind);
                let client = if !repeatable && self.closes_idle.load(Ordering::Acquire) {
                    self.fresh_client()
                } else {
                    &self.client
                };
                let response = match client.request(request).await {
                    Ok(response) => response,
                    Err(e) if failed_unanswered_on_reused(&e) => {
                        // The server closed the idle connection as the
                        // request went out (some close each connection after
                        // their response without `Connection: close`): not a
                        // byte of the reply arrived. The server may still
                        // have read and acted on the request before closing,
                        // so only a request that is safe to send twice goes
                        // out once more, on a fresh connection (curl and
                        // browsers re-send any; a `tools/call` may have run).
                        // Either way, later requests that are not safe to
                        // repeat use fresh connections from now on.
                        self.closes_idle.store(true, Ordering::Release);
                        if !repeatable {
                            tracing::debug!(connection = %self.label(), error = %e, "request failed on a reused connection before any reply; not sent again (it may have run)");
                            return Err(self.network_error(&target, e));
                        }
                        tracing::debug!(connection = %self.label(), error = %e, "request failed on a reused connection before any reply; sending it once more on a fresh connection");
                        let (request, _) =
                            self.build(&method, &target, body, kind, cross_origin)?;
                        self.fresh_client()
                            .request(request)
                            .await
                            .map_err(|e| self.network_error(&target, e))?
                    }
                    Err(e) => return Err(self.network_error(&target, e)),
                };
                let status = response.status();
                if status.is_redirection() {
                    let code = status.as_u16();
                    let location = response
                        .headers()
                        .get(LOCATION)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    let follow = matches!(code, 307 | 308)
                        || (method == Method::GET && matches!(code, 301..=303));
                    if matches!(code, 301..=303) && !follow {
                        return Err(TransportError::protocol(format!(
                            "the server answered {method} {} with a {code} redirect to {}; \
                             an MCP {method} is never re-sent as a GET: configure the new URL \
                             (or have the server use 307/308)",
                            redact_url(&target.to_string()),
                            location
                                .as_deref()
                                .map(redact_url)
                                .unwrap_or_else(|| "(no Location)".into())
                        )));
                    }
                    if follow {
                        let Some(location) = location else {
                            return Err(TransportError::protocol(format!(
                                "HTTP {code} redirect without a Location header"
                            )));
                        };
                        hops += 1;
                        if hops > self.config.max_redirects {
                            return Err(TransportError::protocol(format!(
                                "more than {} redirects",
                                self.config.max_redirects
                            )));
                        }
                        let next = resolve(&target, &location).map_err(|e| {
                            TransportError::protocol(format!("bad redirect Location: {e}"))
                        })?;
                        if !same_origin(&url, &next) {
                            cross_origin = true;
                        }
                        tracing::debug!(connection = %self.label(), code, to = %redact_url(&next.to_string()), "following redirect");
                        target = next;
                        continue;
                    }
                }
                if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
                    && !auth_retried
                    && let Some(provider) = self.config.auth_provider.clone()
                {
                    auth_retried = true;
                    let challenge = AuthChallenge {
                        status: status.as_u16(),
                        www_authenticate: header_text(
                            response.headers(),
                            WWW_AUTHENTICATE.as_str(),
                        ),
                        auth_server: header_text(response.headers(), MCP_AUTH_SERVER),
                        url: redact_url(&target.to_string()),
                    };
                    drop(response);
                    if let Some(mut extra) = provider.on_unauthorized(&challenge).await {
                        for (_, v) in extra.iter_mut() {
                            v.set_sensitive(true);
                        }
                        let mut auth = lock(&self.auth_headers);
                        for (name, value) in extra.iter() {
                            auth.insert(name.clone(), value.clone());
                        }
                        drop(auth);
                        continue 'auth;
                    }
                    // The provider gave up: report the refusal as it was.
                    return Err(TransportError::http(
                        challenge.status,
                        String::new(),
                        challenge.www_authenticate,
                        challenge.auth_server,
                        None,
                    ));
                }
                return Ok(Reply {
                    response: decode::decode(response, self.label()),
                    sent_session: sent.session,
                    sent_accept: sent.accept,
                    sent_version: sent.version,
                });
            }
        }
    }

    fn network_error(&self, url: &Uri, e: hyper_util::client::legacy::Error) -> TransportError {
        let mut chain = e.to_string();
        let mut timed_out = false;
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            chain.push_str(": ");
            chain.push_str(&s.to_string());
            if let Some(io) = s.downcast_ref::<std::io::Error>()
                && io.kind() == std::io::ErrorKind::TimedOut
            {
                timed_out = true;
            }
            source = s.source();
        }
        if e.is_connect() && (timed_out || chain.contains("timed out")) {
            return TransportError::timeout(self.config.timeouts.connect, TimeoutPhase::Connect);
        }
        let kind = if e.is_connect() {
            std::io::ErrorKind::ConnectionRefused
        } else {
            std::io::ErrorKind::Other
        };
        TransportError::Io(Arc::new(std::io::Error::new(
            kind,
            format!(
                "HTTP request to {} failed: {chain}",
                redact_url(&url.to_string())
            ),
        )))
    }

    /// The error for a non-2xx reply: `SessionExpired` (404, or a 400 saying
    /// the session is unknown, to a request that carried `Mcp-Session-Id`;
    /// the id is dropped), the JSON-RPC error for `request` when the body is
    /// one, else `Http` with the body (truncated to 4 KiB) and the auth hints.
    ///
    /// The body is read for at most [`ERROR_BODY_WAIT`], and not past
    /// `deadline` (the send's own, when it has one): a server that never
    /// ends its error body cannot hold the send; the error then carries what
    /// arrived.
    pub async fn http_error(
        &self,
        reply: Reply,
        request: Option<&RequestId>,
        deadline: Option<Instant>,
    ) -> TransportError {
        let status = reply.response.status().as_u16();
        let headers = reply.response.headers().clone();
        let wait_until = Instant::now() + ERROR_BODY_WAIT;
        let until = deadline.map_or(wait_until, |d| d.min(wait_until));
        let (bytes, _) = read_limited(reply.response.into_body(), ERROR_BODY_LIMIT, until).await;
        // A body still coded (in a coding the client does not decode; the
        // others arrive decoded) is not shown as text: its bytes would be
        // noise, or worse, on a terminal.
        let encoding = crate::media::content_encoding(&headers);
        let body = match &encoding {
            Some(encoding) => format!(
                "({} bytes of a body with Content-Encoding {encoding}, {})",
                bytes.len(),
                crate::media::NOT_DECODED
            ),
            None => String::from_utf8_lossy(&bytes).into_owned(),
        };
        if let Some(sent) = reply.sent_session.as_deref()
            && (status == 404 || (status == 400 && says_session_unknown(&body)))
        {
            self.drop_session(sent);
            tracing::debug!(connection = %self.label(), status, "session expired; Mcp-Session-Id dropped");
            return TransportError::session_expired(status, body.trim());
        }
        if let Some(id) = request
            && let Ok(JsonRpcMessage::Response(JsonRpcResponse {
                id: Some(rid),
                outcome: Err(e),
            })) = JsonRpcMessage::decode(&bytes)
            && mcp_transport::echo_answers(id, &rid)
        {
            return TransportError::JsonRpc(e);
        }
        let hint = header_hint(status, &body, reply.sent_accept, reply.sent_version)
            .map(String::into_boxed_str);
        TransportError::http(
            status,
            body,
            header_text(&headers, WWW_AUTHENTICATE.as_str()),
            header_text(&headers, MCP_AUTH_SERVER),
            hint,
        )
    }

    /// The `Mcp-Session-Id` a response assigned, when valid (visible ASCII).
    pub fn capture_session(&self, headers: &HeaderMap) {
        if !self.rules().sessions {
            return;
        }
        match headers.get(MCP_SESSION_ID).map(|v| v.to_str()) {
            Some(Ok(s)) if !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b)) => {
                let previous = lock(&self.session).replace(s.to_owned());
                if previous.as_deref() != Some(s) {
                    // A new session (after an expiry, say) gets its own GET
                    // stream: the old one belongs to the old session.
                    self.reset_listener();
                }
            }
            Some(_) => {
                tracing::warn!(connection = %self.label(), "ignoring an Mcp-Session-Id with characters outside visible ASCII");
                self.set_session(None);
            }
            None => self.set_session(None),
        }
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

/// The value of header `name` as text.
pub(crate) fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// The request header a refusal is about, with the value sent (catalogue
/// B12: a 406 or 400 error names the header): `Accept` for a 406;
/// `MCP-Protocol-Version` for a 400 whose body speaks of the protocol
/// version or of that header.
fn header_hint(
    status: u16,
    body: &str,
    sent_accept: Option<&str>,
    sent_version: Option<&str>,
) -> Option<String> {
    let shown = |value: Option<&str>| {
        value.map_or_else(|| "none was sent".to_owned(), |v| format!("sent {v:?}"))
    };
    match status {
        406 => Some(format!(
            "the server did not accept the Accept header: {}",
            shown(sent_accept)
        )),
        400 => {
            let lower = body.to_ascii_lowercase();
            (lower.contains("protocol version") || lower.contains("protocol-version")).then(|| {
                format!(
                    "about the MCP-Protocol-Version header: {}",
                    shown(sent_version)
                )
            })
        }
        _ => None,
    }
}

/// `true` when a 400 body says the session is unknown (how real servers
/// answer a stale `Mcp-Session-Id`).
fn says_session_unknown(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    b.contains("session")
        && [
            "not found",
            "unknown",
            "invalid",
            "expired",
            "no valid",
            "does not exist",
            "missing",
        ]
        .iter()
        .any(|w| b.contains(w))
}

/// Reads at most `limit` bytes of `body`, until it ends, fails or `until`
/// passes; `true` when there was more (or the time ran out first).
pub(crate) async fn read_limited(
    mut body: ReplyBody,
    limit: usize,
    until: Instant,
) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Ok(next) = tokio::time::timeout_at(until, body.frame()).await else {
            tracing::debug!(
                bytes = out.len(),
                "error body still arriving at its deadline; keeping what arrived"
            );
            return (out, true);
        };
        let Some(frame) = next else { break };
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                // A connection cut, or a compressed body that does not
                // decode: the error shows what arrived before it.
                tracing::debug!(bytes = out.len(), error = %e, "error body failed; keeping what arrived");
                break;
            }
        };
        if let Ok(data) = frame.into_data() {
            let room = limit - out.len();
            if data.len() > room {
                out.extend_from_slice(&data[..room]);
                return (out, true);
            }
            out.extend_from_slice(&data);
        }
    }
    (out, false)
}

/// Reads a whole body of at most `limit` bytes. A body that arrives in one
/// frame is returned as that frame's bytes (no copy); a longer one is
/// gathered once, into a buffer sized from `Content-Length` when the
/// server sent it.
///
/// Errors: `MessageTooLarge` past the limit; `Io` when the body fails.
pub(crate) async fn read_bounded(
    mut body: ReplyBody,
    limit: usize,
) -> Result<Bytes, TransportError> {
    let expected = usize::try_from(hyper::body::Body::size_hint(&body).lower()).unwrap_or(limit);
    let mut first: Option<Bytes> = None;
    let mut out = BytesMut::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            TransportError::Io(Arc::new(std::io::Error::other(format!(
                "reading the response body: {e}"
            ))))
        })?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total += data.len();
        if total > limit {
            return Err(TransportError::message_too_large(limit));
        }
        match first.take() {
            None if out.is_empty() => first = Some(data),
            None => out.extend_from_slice(&data),
            Some(earlier) => {
                out.reserve(expected.min(limit).max(total));
                out.extend_from_slice(&earlier);
                out.extend_from_slice(&data);
            }
        }
    }
    Ok(match first {
        Some(only) => only,
        None => out.freeze(),
    })
}

/// The wait a `Retry-After` value asks for at `now`: delay-seconds, or an
/// HTTP-date (a date in the past is no wait). `None` when it is neither.
pub(crate) fn parse_retry_after(value: &[u8], now: std::time::SystemTime) -> Option<Duration> {
    let text = std::str::from_utf8(value).ok()?.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        // A huge number is a long wait, not an error.
        return Some(Duration::from_secs(text.parse::<u64>().unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(text).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The error of a request whose reply ended without its response.
pub(crate) fn no_response(id: &RequestId, detail: Option<&str>) -> TransportError {
    let mut message = format!("No response received for request ID {id}");
    if let Some(d) = detail {
        message.push_str(" (");
        message.push_str(d);
        message.push(')');
    }
    TransportError::Closed(CloseReason::new(message))
}

/// A timeout error of `phase` after `d`.
pub(crate) fn timeout(d: Duration, phase: TimeoutPhase) -> TransportError {
    TransportError::timeout(d, phase)
}

/// `true` for what may reach the server twice without a second effect: a
/// GET, the session DELETE, a response or notification, and every request
/// method of the client but `tools/call` (which runs a tool) and methods this
/// transport does not know.
fn safe_to_send_twice(kind: &Kind) -> bool {
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
        Kind::Get { .. } | Kind::Delete => true,
        Kind::Post { method: None, .. } => true,
        Kind::Post {
            method: Some(method),
            ..
        } => method.starts_with("notifications/") || REPEATABLE.contains(&method.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_values() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        let parse = |v: &str| parse_retry_after(v.as_bytes(), now);
        assert_eq!(parse("0"), Some(Duration::ZERO));
        assert_eq!(parse(" 120 "), Some(Duration::from_secs(120)));
        assert_eq!(
            parse("99999999999999999999"),
            Some(Duration::from_secs(u64::MAX))
        );
        // RFC 9110's example date is 1445412480 s after the epoch.
        assert_eq!(parse("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        assert_eq!(
            parse("Wed, 21 Oct 2015 07:29:00 GMT"),
            Some(Duration::from_secs(60))
        );
        assert_eq!(parse("Tue, 20 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        for bad in ["", "-1", "1.5", "soon", "0x10"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn session_unknown_bodies() {
        assert!(says_session_unknown(
            r#"{"error":{"message":"Session not found"}}"#
        ));
        assert!(says_session_unknown(
            "Bad Request: No valid session ID provided"
        ));
        assert!(says_session_unknown("invalid session id"));
        assert!(!says_session_unknown("Unsupported protocol version"));
        assert!(!says_session_unknown("session"));
    }
}
