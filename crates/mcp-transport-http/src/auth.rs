//! The auth hook: every place where credentials meet a request, in one
//! file. The OAuth layer plugs in here.
//!
//! - Before each request to the server's origin (every POST, GET stream and
//!   DELETE, each retry, each same-origin redirect hop),
//!   [`AuthProvider::prepare`] may attach a credential (a bearer token it
//!   refreshed ahead of expiry, say); the transport puts its headers on the
//!   request, marked sensitive, and remembers which credential went out.
//! - A hop that a redirect sent to another origin carries no credential at
//!   all: `Authorization`, cookies and every header the hook gave are taken
//!   off, and `prepare` is not asked (tokens go only to the server they were
//!   issued for).
//! - When the server refuses with 401 or 403, [`AuthProvider::on_unauthorized`]
//!   gets the refusal's headers and which credential was sent, and decides:
//!   retry, retry with these headers (kept for the connection), or fail with
//!   a typed reason ([`TransportError::Auth`]). An exchange asks at most
//!   [`MAX_AUTH_RETRIES`] times (a 401 that needs a login, then a 403
//!   `insufficient_scope` on the retry, is two).
//!
//! The hook's header values are marked sensitive, so the `Debug` output of
//! a request or a header map shows them as `Sensitive`, and remembered as
//! secrets of the connection: a server that echoes one back (`denied for
//! Bearer …`) has it hidden in the error (`errors.rs`).

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http::header::{AUTHORIZATION, COOKIE, SET_COOKIE, WWW_AUTHENTICATE};
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri};
use http_body_util::Full;
use hyper::body::Incoming;
use mcp_transport::{AuthErrorKind, TransportError};

use crate::connection::{Connection, lock};
use crate::errors::header_text;
use crate::redact::redact_url;
use crate::request::RequestKind;
use crate::wire_rules::MCP_AUTH_SERVER;

/// How many times one exchange asks [`AuthProvider::on_unauthorized`]
/// before a further 401/403 is reported as it is (`TransportError::Http`):
/// 4, enough for a login, two step-ups, and the provider's own verdict on
/// the next refusal (its typed "step-up limit" error rather than a bare
/// 403). The provider keeps its own, usually tighter, limits (a step-up
/// budget per resource and operation); this bound only stops a provider
/// that would retry forever.
pub const MAX_AUTH_RETRIES: u32 = 4;

/// A request about to be sent to the server's origin, as
/// [`AuthProvider::prepare`] sees it.
#[derive(Debug)]
#[non_exhaustive]
pub struct OutgoingRequest<'a> {
    /// `POST`, `GET` (the SSE stream) or `DELETE` (the session).
    pub method: &'a Method,
    /// The URL the request goes to (after same-origin redirects). It may
    /// hold secrets in its query: never log it unredacted.
    pub url: &'a Uri,
    /// The body bytes (empty for GET and DELETE).
    pub body: &'a [u8],
    /// The JSON-RPC method of a POSTed request or notification, when there
    /// is one (`tools/call`, …): what a step-up budget is kept per.
    pub rpc_method: Option<&'a str>,
    /// How many times the hook already answered a refusal in this exchange
    /// (0 on the first send).
    pub attempt: u32,
}

/// What [`AuthProvider::prepare`] attaches to a request: headers (e.g.
/// `Authorization: Bearer …`) and an optional generation number that the
/// transport hands back in [`AuthChallenge::sent_credential`] if the request
/// is refused, so that the provider can tell a stale token (already
/// replaced: just retry) from the current one (refresh or log in).
///
/// Its `Debug` output names the headers, never their values.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Credential {
    /// The headers put on the request (replacing configured headers of the
    /// same name).
    pub headers: HeaderMap,
    /// Which credential this is, in the provider's own numbering.
    pub generation: Option<u64>,
}

impl Credential {
    /// A credential of these headers, with no generation number.
    pub fn new(headers: HeaderMap) -> Credential {
        Credential {
            headers,
            generation: None,
        }
    }

    /// Sets the generation number reported back on a refusal.
    pub fn with_generation(mut self, generation: u64) -> Self {
        self.generation = Some(generation);
        self
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.keys().map(|k| k.as_str()).collect();
        f.debug_struct("Credential")
            .field("headers", &names)
            .field("generation", &self.generation)
            .finish()
    }
}

/// What the server said when it refused a request with 401 or 403.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthChallenge {
    /// 401 or 403.
    pub status: u16,
    /// The first `WWW-Authenticate` header, when present (all of them are in
    /// [`headers`](Self::headers)).
    pub www_authenticate: Option<String>,
    /// The `Mcp-Auth-Server` header, when present. It is in no revision of
    /// the spec: a hint at most.
    pub auth_server: Option<String>,
    /// The URL that was refused, credentials removed.
    pub url: String,
    /// Every header of the refusal (repeated `WWW-Authenticate`,
    /// `DPoP-Nonce`, …); cookie values are marked sensitive.
    pub headers: HeaderMap,
    /// The [`Credential::generation`] of what the refused request carried
    /// (`None` when it carried no credential from the hook, or one without
    /// a number).
    pub sent_credential: Option<u64>,
    /// How many times the hook already answered a refusal in this exchange
    /// (0 for the first refusal).
    pub attempt: u32,
    /// The HTTP method of the refused request.
    pub method: Method,
    /// The JSON-RPC method of the refused POST, when there is one.
    pub rpc_method: Option<String>,
}

/// Why the auth hook gives up on a request: the kind, and words for people
/// (never a token, code or secret). The transport turns it into
/// [`TransportError::Auth`] with the request's URL.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuthFailure {
    /// What kind of failure.
    pub kind: AuthErrorKind,
    /// What happened.
    pub reason: String,
    /// The underlying error, when there is one (reported by `source()`).
    pub source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl AuthFailure {
    /// A failure of `kind` saying `reason`.
    pub fn new(kind: AuthErrorKind, reason: impl Into<String>) -> AuthFailure {
        AuthFailure {
            kind,
            reason: reason.into(),
            source: None,
        }
    }

    /// [`AuthErrorKind::NeedsLogin`]: the user has to log in first.
    pub fn needs_login(reason: impl Into<String>) -> AuthFailure {
        AuthFailure::new(AuthErrorKind::NeedsLogin, reason)
    }

    /// [`AuthErrorKind::Denied`]: authorization was tried and refused.
    pub fn denied(reason: impl Into<String>) -> AuthFailure {
        AuthFailure::new(AuthErrorKind::Denied, reason)
    }

    /// [`AuthErrorKind::StepUpLimit`]: too many step-up attempts.
    pub fn step_up_limit(reason: impl Into<String>) -> AuthFailure {
        AuthFailure::new(AuthErrorKind::StepUpLimit, reason)
    }

    /// Sets the underlying error.
    pub fn with_source(mut self, source: Arc<dyn std::error::Error + Send + Sync>) -> Self {
        self.source = Some(source);
        self
    }

    /// The transport error for a request to `url` (already redacted), its
    /// reason with the connection's secrets hidden (`scrub`): a provider
    /// may quote what an authorization server echoed.
    fn into_error(self, url: String, scrub: impl Fn(&str) -> String) -> TransportError {
        let reason = scrub(&self.reason);
        match self.source {
            Some(source) => TransportError::auth_with_source(self.kind, url, reason, source),
            None => TransportError::auth(self.kind, url, reason),
        }
    }
}

/// What the hook decides about a refusal.
#[derive(Debug)]
#[non_exhaustive]
pub enum AuthDecision {
    /// Send the request again: [`AuthProvider::prepare`] attaches the
    /// credential (a token refreshed meanwhile, say).
    Retry,
    /// Keep these headers for every later request of the connection to the
    /// server's origin (replacing configured headers of the same name), and
    /// send the request again.
    RetryWith(HeaderMap),
    /// Give up: the exchange fails with [`TransportError::Auth`].
    Fail(AuthFailure),
}

/// The hook where authorization plugs into the HTTP transport (spec:
/// `basic/authorization`): asked before every request to the server's
/// origin, and on every 401/403 (up to [`MAX_AUTH_RETRIES`] per exchange).
///
/// Both calls may run concurrently for several requests of a connection;
/// an implementation that refreshes or logs in should let one of them do
/// it and the others wait (the challenge's
/// [`sent_credential`](AuthChallenge::sent_credential) tells a request that
/// carried an already-replaced credential, which only needs a retry).
#[async_trait]
pub trait AuthProvider: Send + Sync + fmt::Debug + 'static {
    /// The credential for `request`, if any (the default: none). An error
    /// fails the request with [`TransportError::Auth`] before it is sent.
    async fn prepare(
        &self,
        request: &OutgoingRequest<'_>,
    ) -> Result<Option<Credential>, AuthFailure> {
        let _ = request;
        Ok(None)
    }

    /// What to do about a 401 or 403.
    async fn on_unauthorized(&self, challenge: &AuthChallenge) -> AuthDecision;
}

/// What the exchange does with a reply after [`Connection::on_refusal`].
pub(crate) enum Refusal {
    /// Not the auth hook's business (not a 401/403, no provider, or the
    /// exchange asked the provider [`MAX_AUTH_RETRIES`] times already): the
    /// reply stands.
    NotHandled(Response<Incoming>),
    /// The provider asked for the request to be sent again.
    Retry,
    /// The provider gave up: the exchange fails with this.
    Fail(TransportError),
}

impl Connection {
    /// Adds the headers the auth hook returned to `headers` (replacing
    /// configured headers of the same name). On a hop that a redirect sent
    /// to another origin (`cross_origin`), takes every credential off
    /// instead: `Authorization`, cookies and the hook's headers.
    pub(crate) fn add_credentials(&self, headers: &mut HeaderMap, cross_origin: bool) {
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
    }

    /// Asks the provider, if any, for the credential of `request` (one hop
    /// of an exchange whose kind is `kind`, after `attempt` auth retries)
    /// and puts its headers on it, marked sensitive. A cross-origin hop is
    /// never given one. Returns the credential's generation.
    ///
    /// Errors: [`TransportError::Auth`] when the provider refuses.
    pub(crate) async fn prepare_credential(
        &self,
        request: &mut Request<Full<Bytes>>,
        body: &Bytes,
        kind: &RequestKind,
        attempt: u32,
        cross_origin: bool,
    ) -> Result<Option<u64>, TransportError> {
        let Some(provider) = self.config.auth_provider.as_ref() else {
            return Ok(None);
        };
        if cross_origin {
            return Ok(None);
        }
        let outgoing = OutgoingRequest {
            method: request.method(),
            url: request.uri(),
            body,
            rpc_method: rpc_method(kind),
            attempt,
        };
        let credential = match provider.prepare(&outgoing).await {
            Ok(Some(credential)) => credential,
            Ok(None) => return Ok(None),
            Err(failure) => {
                let url = redact_url(&request.uri().to_string());
                tracing::debug!(connection = %self.label(), kind = %failure.kind, "the auth hook refused to prepare the request");
                return Err(failure.into_error(url, |t| self.scrub(t)));
            }
        };
        self.remember_secrets(&credential.headers);
        let headers = request.headers_mut();
        for name in credential.headers.keys() {
            headers.remove(name);
        }
        for (name, value) in credential.headers.iter() {
            let mut value = value.clone();
            value.set_sensitive(true);
            headers.append(name.clone(), value);
        }
        Ok(credential.generation)
    }

    /// The auth hook's answer to `response`, the reply to a hop sent to
    /// `target` with `method` that carried the credential `sent` (its
    /// generation). A 401 or 403, when a provider is configured and fewer
    /// than [`MAX_AUTH_RETRIES`] answers were given in this exchange
    /// (`attempt`, counted up here), goes to
    /// [`AuthProvider::on_unauthorized`].
    pub(crate) async fn on_refusal(
        &self,
        response: Response<Incoming>,
        target: &Uri,
        method: &Method,
        kind: &RequestKind,
        sent: Option<u64>,
        attempt: &mut u32,
    ) -> Refusal {
        let status = response.status();
        if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Refusal::NotHandled(response);
        }
        let Some(provider) = self.config.auth_provider.clone() else {
            return Refusal::NotHandled(response);
        };
        if *attempt >= MAX_AUTH_RETRIES {
            tracing::debug!(connection = %self.label(), status = status.as_u16(), attempts = *attempt, "refused again after the auth hook's last retry; reporting the refusal");
            return Refusal::NotHandled(response);
        }
        let mut headers = response.headers().clone();
        if let http::header::Entry::Occupied(mut cookies) = headers.entry(SET_COOKIE) {
            for value in cookies.iter_mut() {
                value.set_sensitive(true);
            }
        }
        let challenge = AuthChallenge {
            status: status.as_u16(),
            www_authenticate: header_text(&headers, WWW_AUTHENTICATE.as_str()),
            auth_server: header_text(&headers, MCP_AUTH_SERVER),
            url: redact_url(&target.to_string()),
            headers,
            sent_credential: sent,
            attempt: *attempt,
            method: method.clone(),
            rpc_method: rpc_method(kind).map(str::to_owned),
        };
        drop(response);
        *attempt += 1;
        match provider.on_unauthorized(&challenge).await {
            AuthDecision::Retry => Refusal::Retry,
            AuthDecision::RetryWith(extra) => {
                self.remember_secrets(&extra);
                let mut auth = lock(&self.auth_headers);
                for name in extra.keys() {
                    auth.remove(name);
                }
                for (name, value) in extra.iter() {
                    let mut value = value.clone();
                    value.set_sensitive(true);
                    auth.append(name.clone(), value);
                }
                drop(auth);
                Refusal::Retry
            }
            AuthDecision::Fail(failure) => {
                tracing::debug!(connection = %self.label(), status = challenge.status, kind = %failure.kind, "the auth hook gave up on a refusal");
                Refusal::Fail(failure.into_error(challenge.url, |t| self.scrub(t)))
            }
        }
    }
}

/// The JSON-RPC method a request of `kind` carries, if any.
fn rpc_method(kind: &RequestKind) -> Option<&str> {
    match kind {
        RequestKind::Post { method, .. } => method.as_deref(),
        RequestKind::Get { .. } | RequestKind::Delete => None,
    }
}
