//! The auth hook, the public seam where authorization plugs into the HTTP
//! transport (spec `basic/authorization`): [`AuthProvider`] and what it is
//! given and answers. Only the shapes live here, and no state: the
//! transport's side of the hook (asking the provider before each hop,
//! answering a refusal, keeping the headers it returned, hiding the values
//! it attached from what a server echoes) is `exchange/credentials.rs`.
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
//! - Every reply to a request the hook prepared (a refusal, a redirect, a
//!   `429`/`503` and a success alike) is shown to
//!   [`AuthProvider::observe`] first, so that what a server says in any
//!   reply (a `DPoP-Nonce`, RFC 9449 § 8.2 and § 9) is learnt from all of
//!   them.
//!
//! The hook's header values are marked sensitive, so the `Debug` output of
//! a request or a header map shows them as `Sensitive`, and remembered as
//! secrets of the connection: a server that echoes one back (`denied for
//! Bearer …`) has it hidden in the error.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use http::{HeaderMap, Method, Uri};
use mcp_transport::{AuthErrorKind, TransportError};

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

/// A reply to a request [`AuthProvider::prepare`] was asked for, as
/// [`AuthProvider::observe`] sees it.
#[derive(Debug)]
#[non_exhaustive]
pub struct IncomingResponse<'a> {
    /// The HTTP method of the request it answers.
    pub method: &'a Method,
    /// The URL the request went to. It may hold secrets in its query:
    /// never log it unredacted.
    pub url: &'a Uri,
    /// The status code.
    pub status: u16,
    /// Every header of the reply. `Set-Cookie` values are secrets of the
    /// connection: never log them.
    pub headers: &'a HeaderMap,
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
    pub(crate) fn into_error(self, url: String, scrub: impl Fn(&str) -> String) -> TransportError {
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

    /// Sees every reply to a request this hook prepared (each hop to the
    /// server's origin: successes, redirects, `429`/`503` and refusals,
    /// a refusal before [`on_unauthorized`](Self::on_unauthorized) is
    /// asked about it), for what a server may say in any reply (RFC 9449
    /// § 8.2 and § 9: a new `DPoP-Nonce`). It runs on the request path:
    /// it must not block. The default does nothing.
    fn observe(&self, response: &IncomingResponse<'_>) {
        let _ = response;
    }
}
