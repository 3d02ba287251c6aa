//! One HTTP exchange of a connection: a request sent and its reply
//! received, through everything HTTP puts between the two. Redirects are
//! followed (307/308, and 301/302/303 on a GET); the auth hook
//! (`auth.rs`) attaches a credential before each same-origin hop and
//! answers a 401/403; a request that failed on a reused idle
//! connection before any reply is sent once more when that is safe; a
//! 429/503 with `Retry-After` is waited out (`retry_after.rs`). The reply's
//! body comes back decoded when it is compressed.
//!
//! Every request the connection sends goes through
//! [`Connection::exchange`]: POSTs, the GET stream, legacy HTTP+SSE and the
//! session DELETE alike.

use std::sync::atomic::Ordering;

use bytes::Bytes;
use http::header::LOCATION;
use http::{Method, Response, Uri};
use mcp_transport::TransportError;
use tokio::time::Instant;

use crate::auth::Refusal;
use crate::connection::Connection;
use crate::connector::failed_unanswered_on_reused;
use crate::decode::{self, ReplyBody};
use crate::redact::redact_url;
use crate::request::{RequestKind, safe_to_send_twice};
use crate::url::{resolve, same_origin};

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

impl Connection {
    /// Sends one HTTP request to `url`, following 307/308 redirects (method,
    /// body and headers kept; cross-origin hops drop `Authorization` and
    /// cookies), keeping the cookies every reply of the connection's origin
    /// sets and sending them back to that origin (`cookies.rs`), asking the auth hook for a credential before each
    /// same-origin hop and what to do on 401/403 (at most
    /// [`crate::MAX_AUTH_RETRIES`] times), and waiting as a
    /// 429 or 503 with `Retry-After` asks ([`crate::HttpConfig::retry_after`]:
    /// bounded in tries and in each wait, and never past `deadline`, the
    /// send's own when it has one). The reply's body is decoded when it is
    /// compressed in a coding the client accepts.
    ///
    /// Errors: `Timeout{Connect}`, `Io` for network failures; `Protocol` for
    /// a 301/302/303 on a non-GET, a bad `Location` or too many hops;
    /// `Auth` when the auth hook gives up.
    pub(crate) async fn exchange(
        &self,
        method: Method,
        url: Uri,
        body: Bytes,
        kind: RequestKind,
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

    /// One try of the exchange: the hops of its redirects, the auth hook's
    /// retries, and the re-send of a request that failed unanswered on
    /// a reused connection.
    async fn exchange_once(
        &self,
        method: &Method,
        url: &Uri,
        body: &Bytes,
        kind: &RequestKind,
    ) -> Result<Reply, TransportError> {
        let method = method.clone();
        let url = url.clone();
        let mut auth_attempt = 0u32;
        'auth: loop {
            let mut target = url.clone();
            let mut cross_origin = false;
            let mut hops = 0usize;
            loop {
                let (mut request, sent) = self.build(&method, &target, body, kind, cross_origin)?;
                let mut credential = self
                    .prepare_credential(&mut request, body, kind, auth_attempt, cross_origin)
                    .await?;
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
                        let (mut request, _) =
                            self.build(&method, &target, body, kind, cross_origin)?;
                        credential = self
                            .prepare_credential(
                                &mut request,
                                body,
                                kind,
                                auth_attempt,
                                cross_origin,
                            )
                            .await?;
                        self.fresh_client()
                            .request(request)
                            .await
                            .map_err(|e| self.network_error(&target, e))?
                    }
                    Err(e) => return Err(self.network_error(&target, e)),
                };
                // Every reply may set cookies: a redirect's and a refusal's too.
                self.cookies
                    .store(&target, response.headers(), self.label());
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
                let refusal = self
                    .on_refusal(
                        response,
                        &target,
                        &method,
                        kind,
                        credential,
                        &mut auth_attempt,
                    )
                    .await;
                let response = match refusal {
                    Refusal::NotHandled(response) => response,
                    Refusal::Retry => continue 'auth,
                    Refusal::Fail(e) => return Err(e),
                };
                return Ok(Reply {
                    response: decode::decode(response, self.label()),
                    sent_session: sent.session,
                    sent_accept: sent.accept,
                    sent_version: sent.version,
                });
            }
        }
    }
}
