//! The request path: [`Exchange`], through which every HTTP request of a
//! connection goes (POSTs, the GET stream, legacy HTTP+SSE and the session
//! DELETE alike), and everything HTTP puts between a request and its reply.
//! Each part owns its state and each decision is a function of its own:
//!
//! ```text
//! Exchange::send (request, session, deadline)
//!  │   429/503 + Retry-After: wait, send again       retry_after.rs
//!  └─► one try
//!       │   401/403: the hook retries, or fails      credentials.rs (on_refusal)
//!       └─► the hops
//!            │   3xx: follow, follow without
//!            │   credentials, stop, or refuse        redirect.rs
//!            └─► one hop: the transport's headers    request.rs (Head)
//!                 + the hop's credentials            credentials.rs (for_hop)
//!                 + the cookies                      cookies.rs
//!                 └─► hyper client; failed unanswered
//!                     on a reused connection: once
//!                     more on a fresh one            resend.rs
//! ```
//!
//! The exchange owns the HTTP client (and the client of fresh connections
//! the re-send uses), what it learnt about the server's idle connections,
//! the configured headers, the credentials and the cookie jar. It knows
//! nothing of the MCP session: a request's session headers are read through
//! [`SessionHeaders`] at each hop.

mod cookies;
mod credentials;
mod redirect;
mod request;
mod resend;
mod retry_after;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http::header::{LOCATION, PROXY_AUTHORIZATION};
use http::{HeaderMap, HeaderName, HeaderValue, Request, Response, Uri};
use http_body_util::Full;
use hyper::body::Incoming;
use mcp_transport::{TimeoutPhase, TransportError};
use tokio::time::Instant;

use crate::auth::OutgoingRequest;
use crate::config::{HttpConfig, RetryAfterPolicy};
use crate::connector::{
    HttpClient, ProxyRules, build_client, failed_unanswered_on_reused, proxy_authorization,
    proxy_rules,
};
use crate::decode::{self, ReplyBody};
use crate::redact::{SentSecrets, is_sensitive_name, redact_url};
use cookies::CookieJar;
use credentials::{Credentials, Refusal, Refused};
use redirect::{Hop, Redirect, redirect};
use request::{Head, Sent};
pub(crate) use request::{HttpRequest, RequestKind, SessionHeaders};
use resend::{Connect, Failure, Resend, after_failure, first_connection, safe_to_send_twice};
use retry_after::{Budget, RetryAfter, retry_wait};

/// A reply, with what the request carried.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) response: Response<ReplyBody>,
    /// The `Mcp-Session-Id` the request carried.
    pub(crate) sent_session: Option<String>,
    /// The `Accept` the request carried (named by a 406's error).
    pub(crate) sent_accept: Option<&'static str>,
    /// The `MCP-Protocol-Version` the request carried (named by a 400's
    /// error that is about it).
    pub(crate) sent_version: Option<&'static str>,
}

/// The request path of one connection.
pub(crate) struct Exchange {
    /// The pooled client every request goes through.
    client: HttpClient,
    /// A client that keeps no idle connection: every request it sends goes
    /// out on a new one (the re-send of a request whose reused connection
    /// failed). Built on first use.
    fresh: OnceLock<HttpClient>,
    /// The server was seen closing an idle connection as a request went out
    /// on it (see `resend.rs`).
    closes_idle: AtomicBool,
    /// The proxy rules, read once when the connection was made: the
    /// clients connect through them and requests take their
    /// `Proxy-Authorization` from them.
    proxies: Option<Arc<ProxyRules>>,
    /// The configured headers, validated; secrets marked sensitive.
    configured: HeaderMap,
    credentials: Credentials,
    /// The cookies the server's origin set.
    cookies: CookieJar,
    connect_timeout: Duration,
    max_redirects: usize,
    retry_after: RetryAfterPolicy,
    label: String,
}

impl std::fmt::Debug for Exchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange")
            .field("label", &self.label)
            .field("credentials", &self.credentials)
            .field("cookies", &self.cookies)
            .finish()
    }
}

impl Exchange {
    /// The request path of a connection to `url` configured by `config`.
    ///
    /// Errors: `Protocol` for an invalid configured header (its value is
    /// never shown: it may be a secret).
    pub(crate) fn new(config: &HttpConfig, url: &Uri) -> Result<Exchange, TransportError> {
        let mut configured = HeaderMap::new();
        let mut secrets = SentSecrets::default();
        for (name, value) in &config.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| TransportError::misuse(format!("invalid header name {name:?}")))?;
            let mut value = HeaderValue::try_from(value.as_str())
                .map_err(|_| TransportError::misuse(format!("invalid value for header {name}")))?;
            if is_sensitive_name(&name) {
                value.set_sensitive(true);
                secrets.remember_fixed(&value);
            }
            configured.append(name, value);
        }
        let proxies = proxy_rules(&config.proxy);
        let client = build_client(
            proxies.clone(),
            config.timeouts.connect,
            config.max_idle_connections,
        );
        Ok(Exchange {
            client,
            fresh: OnceLock::new(),
            closes_idle: AtomicBool::new(false),
            proxies,
            configured,
            credentials: Credentials::new(config.auth_provider.clone(), secrets, &config.label),
            cookies: CookieJar::new(url),
            connect_timeout: config.timeouts.connect,
            max_redirects: config.max_redirects,
            retry_after: config.retry_after,
            label: config.label.clone(),
        })
    }

    /// The secrets the connection sent, for the dispatcher's redactor.
    pub(crate) fn secrets(&self) -> Arc<Mutex<SentSecrets>> {
        self.credentials.secrets()
    }

    /// `text` with every secret value the connection sent hidden: what a
    /// server sends back (an error body, a challenge) may echo one.
    pub(crate) fn scrub(&self, text: &str) -> String {
        self.credentials.scrub(text)
    }

    /// Forgets every cookie (the transport closed).
    pub(crate) fn forget_cookies(&self) {
        self.cookies.clear();
    }

    /// Sends `request` in `session` and returns its reply: redirects
    /// followed as `redirect.rs` says, a credential attached to each hop
    /// and a 401/403 answered as `credentials.rs` says, a request that
    /// failed unanswered on a reused connection sent again as `resend.rs`
    /// says, and a 429 or 503 with `Retry-After` waited out as
    /// `retry_after.rs` says (never past `deadline`, the send's own when it
    /// has one). The reply's body is decoded when it is compressed in a
    /// coding the client accepts. Every reply may set cookies, a redirect's
    /// and a refusal's too.
    ///
    /// Errors: `Timeout{Connect}`, `Io` for network failures; `Protocol` for
    /// a 301/302/303 on a non-GET, a bad `Location`, too many hops or a
    /// request-metadata header that cannot be sent; `Auth` when the auth
    /// hook gives up.
    pub(crate) async fn send(
        &self,
        request: &HttpRequest,
        session: &dyn SessionHeaders,
        deadline: Option<Instant>,
    ) -> Result<Reply, TransportError> {
        let mut tries = 0u32;
        loop {
            let reply = self.try_once(request, session).await?;
            let budget = Budget {
                tries,
                policy: self.retry_after,
                deadline,
            };
            let status = reply.response.status();
            let wait = match retry_wait(
                status,
                reply.response.headers(),
                budget,
                Instant::now(),
                SystemTime::now(),
            ) {
                RetryAfter::Wait(wait) => wait,
                RetryAfter::NotAsked => return Ok(reply),
                RetryAfter::Unreadable(value) => {
                    tracing::debug!(connection = %self.label, %value, "unreadable Retry-After; not retrying");
                    return Ok(reply);
                }
                RetryAfter::PastBounds(wait) => {
                    tracing::debug!(
                        connection = %self.label,
                        status = status.as_u16(),
                        wait_ms = wait.as_millis() as u64,
                        tries,
                        "server busy; its Retry-After is past what this request waits"
                    );
                    return Ok(reply);
                }
            };
            tries += 1;
            tracing::info!(
                connection = %self.label,
                status = status.as_u16(),
                wait_ms = wait.as_millis() as u64,
                attempt = tries,
                "server busy; retrying as its Retry-After asks"
            );
            drop(reply);
            tokio::time::sleep(wait).await;
        }
    }

    /// One try of a send: its hops, until a reply the auth hook does not
    /// send again.
    async fn try_once(
        &self,
        request: &HttpRequest,
        session: &dyn SessionHeaders,
    ) -> Result<Reply, TransportError> {
        let mut attempt = 0u32;
        loop {
            let (response, landed) = self.follow(request, session, attempt).await?;
            let refused = Refused {
                target: &landed.target,
                method: &request.method,
                rpc_method: request.kind.rpc_method(),
                sent: landed.generation,
            };
            let response = match self
                .credentials
                .on_refusal(response, refused, &mut attempt)
                .await
            {
                Refusal::NotHandled(response) => response,
                Refusal::Retry => continue,
                Refusal::Fail(e) => return Err(e),
            };
            return Ok(Reply {
                response: decode::decode(response, &self.label),
                sent_session: landed.sent.session,
                sent_accept: landed.sent.accept,
                sent_version: landed.sent.version,
            });
        }
    }

    /// The hops of one try (`attempt`: the auth hook's answers so far):
    /// the request sent to its URL, then wherever the redirect rule says,
    /// until a reply that is not followed.
    async fn follow(
        &self,
        request: &HttpRequest,
        session: &dyn SessionHeaders,
        attempt: u32,
    ) -> Result<(Response<Incoming>, Landed), TransportError> {
        let mut target = request.url.clone();
        let mut with_credentials = true;
        let mut followed = 0usize;
        loop {
            let (response, sent, generation) = self
                .hop(request, &target, with_credentials, session, attempt)
                .await?;
            self.cookies.store(&target, response.headers(), &self.label);
            if with_credentials {
                self.credentials.observe(
                    &request.method,
                    &target,
                    response.status(),
                    response.headers(),
                );
            }
            let hop = Hop {
                status: response.status(),
                method: &request.method,
                location: response
                    .headers()
                    .get(LOCATION)
                    .and_then(|v| v.to_str().ok()),
                from: &target,
                origin: &request.url,
                with_credentials,
                followed,
                max: self.max_redirects,
            };
            let next = match redirect(&hop) {
                Redirect::Stop => {
                    let landed = Landed {
                        target,
                        sent,
                        generation,
                    };
                    return Ok((response, landed));
                }
                Redirect::Refuse(reason) => return Err(TransportError::protocol(reason)),
                Redirect::Follow(next) => next,
                Redirect::FollowWithoutCredentials(next) => {
                    with_credentials = false;
                    next
                }
            };
            tracing::debug!(connection = %self.label, code = response.status().as_u16(), to = %redact_url(&next.to_string()), "following redirect");
            followed += 1;
            target = next;
        }
    }

    /// One hop: the request to `target` built and sent, once more on a
    /// fresh connection when the re-send rule says so. Returns the
    /// response, what the hop carried and its credential's generation.
    async fn hop(
        &self,
        request: &HttpRequest,
        target: &Uri,
        with_credentials: bool,
        session: &dyn SessionHeaders,
        attempt: u32,
    ) -> Result<(Response<Incoming>, Sent, Option<u64>), TransportError> {
        let repeatable = safe_to_send_twice(&request.kind);
        let mut resent = false;
        loop {
            let (built, sent, generation) = self
                .build(request, target, with_credentials, session, attempt)
                .await?;
            let connect = if resent {
                Connect::Fresh
            } else {
                first_connection(repeatable, self.closes_idle.load(Ordering::Acquire))
            };
            let client = match connect {
                Connect::Pooled => &self.client,
                Connect::Fresh => self.fresh_client(),
            };
            let e = match client.request(built).await {
                Ok(response) => return Ok((response, sent, generation)),
                Err(e) => e,
            };
            let failure = Failure {
                unanswered_on_reused: failed_unanswered_on_reused(&e),
                repeatable,
                resent,
            };
            if failure.unanswered_on_reused {
                // From now on, requests that are not safe to repeat use
                // fresh connections (`resend.rs`).
                self.closes_idle.store(true, Ordering::Release);
            }
            match after_failure(failure) {
                Resend::OnFreshConnection => {
                    tracing::debug!(connection = %self.label, error = %e, "request failed on a reused connection before any reply; sending it once more on a fresh connection");
                    resent = true;
                }
                Resend::MayHaveRun => {
                    tracing::debug!(connection = %self.label, error = %e, "request failed on a reused connection before any reply; not sent again (it may have run)");
                    return Err(self.network_error(target, e));
                }
                Resend::No => return Err(self.network_error(target, e)),
            }
        }
    }

    /// The request of one hop, every header in its place. Each layer
    /// replaces the headers of the same names of those before it:
    ///
    /// 1. the configured headers;
    /// 2. the auth hook's kept headers (or, on a hop to another origin,
    ///    `Authorization` and the hook's names taken off);
    /// 3. the cookies (a configured `Cookie` first, in one header);
    /// 4. the transport's own headers ([`Head`]) and `Proxy-Authorization`;
    /// 5. the credential the provider prepared for this hop.
    ///
    /// The head is read and checked before the provider is asked, so a
    /// request that cannot be sent never reaches it.
    async fn build(
        &self,
        request: &HttpRequest,
        target: &Uri,
        with_credentials: bool,
        session: &dyn SessionHeaders,
        attempt: u32,
    ) -> Result<(Request<Full<Bytes>>, Sent, Option<u64>), TransportError> {
        let head = Head::new(&request.kind, session)?;
        let outgoing = OutgoingRequest {
            method: &request.method,
            url: target,
            body: &request.body,
            rpc_method: request.kind.rpc_method(),
            attempt,
        };
        let attached = self
            .credentials
            .for_hop(&outgoing, with_credentials)
            .await?;
        let mut headers = self.configured.clone();
        attached.put_kept(&mut headers);
        self.cookies.attach(&mut headers, target, with_credentials);
        let sent = head.apply(&request.kind, &mut headers, &self.label);
        if let Some(v) = proxy_authorization(self.proxies.as_deref(), target) {
            headers.insert(PROXY_AUTHORIZATION, v);
        }
        attached.put_prepared(&mut headers);
        let mut built = Request::new(Full::new(request.body.clone()));
        *built.method_mut() = request.method.clone();
        *built.uri_mut() = target.clone();
        *built.headers_mut() = headers;
        Ok((built, sent, attached.generation()))
    }

    /// The client for requests that must go out on a new connection.
    fn fresh_client(&self) -> &HttpClient {
        self.fresh
            .get_or_init(|| build_client(self.proxies.clone(), self.connect_timeout, 0))
    }

    /// The error of a request to `url` that failed with `e`: `Timeout
    /// {Connect}` when connecting timed out, else `Io` with the cause chain
    /// (`ConnectionRefused` for a connect failure).
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
            return TransportError::timeout(self.connect_timeout, TimeoutPhase::Connect);
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
}

/// Where the hops of a try ended, and what the last one carried.
struct Landed {
    target: Uri,
    sent: Sent,
    generation: Option<u64>,
}
