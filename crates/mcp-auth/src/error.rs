//! [`AuthError`]: what can go wrong in discovery, registration, the
//! authorization step and the token endpoint. Each variant names the URL
//! and what was wrong; none holds a token, code, verifier or client
//! secret (text an authorization server sent is scrubbed of them).

use std::sync::Arc;

use mcp_transport::AuthErrorKind;
use mcp_transport_http::FetchError;

use crate::store::StoreError;

/// An error of the OAuth flow. `Display` describes this level; the cause,
/// when there is one, is `source()`.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A request of the flow could not be made (network, timeout, size).
    #[error("{what}: the request failed")]
    #[non_exhaustive]
    Fetch {
        /// What was being fetched (e.g. "authorization server metadata").
        what: String,
        /// Why.
        #[source]
        source: FetchError,
    },
    /// A metadata document was missing or unusable.
    #[error("{what} at {url}: {reason}")]
    #[non_exhaustive]
    Metadata {
        /// Which document.
        what: &'static str,
        /// Where it was looked for (the last URL tried).
        url: String,
        /// What was wrong.
        reason: MetadataProblem,
        /// The cause: the JSON parser's error for a document that is not
        /// one, the HTTP library's for a URL that cannot be requested.
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    },
    /// The Protected Resource Metadata names another resource than the
    /// server being accessed (RFC 9728 § 3.3); no authorization request was
    /// made.
    #[error("the protected resource metadata is for {resource}, not for {server}")]
    #[non_exhaustive]
    ResourceMismatch {
        /// The `resource` the metadata holds.
        resource: String,
        /// The MCP server URL.
        server: String,
    },
    /// The authorization server metadata's `issuer` is not the issuer it
    /// was looked up for (RFC 8414 § 3.3); it was not used.
    #[error("the metadata at {url} says issuer {got:?}, expected {expected:?}")]
    #[non_exhaustive]
    IssuerMismatch {
        /// The issuer the metadata was looked up for.
        expected: String,
        /// The `issuer` it holds.
        got: String,
        /// The metadata URL.
        url: String,
    },
    /// The authorization server does not advertise PKCE `S256`; the spec
    /// forbids proceeding.
    #[error("authorization server {issuer} does not advertise PKCE S256")]
    #[non_exhaustive]
    PkceUnsupported {
        /// The issuer.
        issuer: String,
    },
    /// No way to obtain a client identity for the authorization server: no
    /// pre-registered client, no Client ID Metadata Document support, no
    /// registration endpoint.
    #[error("no client registration possible at {issuer}: {problem}")]
    #[non_exhaustive]
    NoClient {
        /// The issuer.
        issuer: String,
        /// What is missing.
        problem: String,
    },
    /// Dynamic Client Registration was refused or its answer unusable.
    #[error("client registration at {url} failed: {reason}")]
    #[non_exhaustive]
    Registration {
        /// The registration endpoint.
        url: String,
        /// What went wrong.
        reason: RegistrationProblem,
        /// The cause: for an answer that is not a registration response,
        /// what about its JSON is wrong (never a value from it: the answer
        /// may hold a client secret).
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    },
    /// The authorization response failed a check (`state`, `iss`, no
    /// `code`), or the authorization server answered with an error.
    #[error("authorization response rejected: {reason}")]
    #[non_exhaustive]
    AuthorizationResponse {
        /// What was wrong.
        reason: ResponseProblem,
        /// The `error` code the authorization server sent, when it did and
        /// the response passed its `state` and `iss` checks.
        error: Option<String>,
    },
    /// The token endpoint refused the request (an OAuth error answer).
    #[error(
        "token request to {url} refused: HTTP {status}{}{}",
        error.as_deref().map(|e| format!(" {e}")).unwrap_or_default(),
        description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
    )]
    #[non_exhaustive]
    TokenRefused {
        /// The token endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The OAuth `error` code (e.g. `invalid_grant`), when present.
        error: Option<String>,
        /// The `error_description`, scrubbed of secrets.
        description: Option<String>,
    },
    /// The token endpoint's answer is not a usable token response (not
    /// JSON, no `access_token`, a `token_type` other than `Bearer`).
    #[error("token response from {url} unusable: {problem}")]
    #[non_exhaustive]
    TokenResponse {
        /// The token endpoint.
        url: String,
        /// What was wrong.
        problem: String,
    },
    /// A private key for `private_key_jwt` client authentication
    /// (RFC 7523 § 2.2) cannot be used: not PEM, a key type or algorithm
    /// other than the one configured or the authorization server accepts.
    /// Names the key's origin (a file path), never its content.
    #[error("private key {origin}: {problem}")]
    #[non_exhaustive]
    Key {
        /// Where the key came from (a file path, or "PEM text").
        origin: String,
        /// What is wrong with it.
        problem: KeyProblem,
    },
    /// An assertion the application supplies (an ID token for
    /// enterprise-managed authorization, a workload JWT for workload
    /// identity federation) cannot be used. Names its source, never its
    /// value.
    #[error("{what} from {origin}: {problem}")]
    #[non_exhaustive]
    Assertion {
        /// Which assertion ("ID token", "workload JWT").
        what: &'static str,
        /// Its source (a file path, an environment variable, a callback).
        origin: String,
        /// What is wrong with it.
        problem: AssertionProblem,
    },
    /// A client secret the configuration names by environment variable
    /// ([`ClientAuthentication::ClientSecretBasicEnv`](crate::ClientAuthentication::ClientSecretBasicEnv),
    /// [`PreregisteredClient::with_client_secret_env`](crate::PreregisteredClient::with_client_secret_env),
    /// [`IdentityProvider::with_client_secret_env`](crate::IdentityProvider::with_client_secret_env))
    /// cannot be read. The variable is read at each request that needs the
    /// secret, as key files and assertion sources are, so this fails that
    /// request and the next one tries again. Names the variable, never a
    /// value.
    #[error("{what}: environment variable {variable} {problem}")]
    #[non_exhaustive]
    SecretUnavailable {
        /// Which secret ("client secret", "identity provider client secret").
        what: &'static str,
        /// The environment variable's name.
        variable: String,
        /// What is wrong: "is not set", "is empty", "is not valid Unicode".
        problem: &'static str,
    },
    /// The identity provider's token exchange (RFC 8693) for an identity
    /// assertion authorization grant (ID-JAG) failed: refused, or answered
    /// with something that is not a token exchange response.
    #[error("token exchange at {url} failed: {problem}")]
    #[non_exhaustive]
    TokenExchange {
        /// The identity provider's token endpoint.
        url: String,
        /// What went wrong.
        problem: ExchangeProblem,
    },
    /// A URL of the flow is not allowed: not https (nor loopback http).
    #[error("{what} {url} must be https (or http on a loopback host)")]
    #[non_exhaustive]
    InsecureUrl {
        /// Which URL.
        what: &'static str,
        /// The URL.
        url: String,
    },
    /// Interaction with the user is needed and not possible here.
    #[error("{hint}")]
    #[non_exhaustive]
    NeedsLogin {
        /// What to do.
        hint: String,
    },
    /// The user agent (browser step) failed.
    #[error("the authorization step failed: {problem}")]
    #[non_exhaustive]
    UserAgent {
        /// What went wrong.
        problem: String,
    },
    /// The MCP server refused (HTTP 401) an access token issued moments
    /// before, and not expired (nor within the refresh skew of expiry) by
    /// its own `expires_in`: by the refresh or the authorization made for
    /// its previous refusal, or by a login just now that left nothing to
    /// refresh. It
    /// rejects freshly issued tokens, which another login would not
    /// change, so the flow stops instead of sending the user (or a script)
    /// round the login again. Tokens another authorization server issues,
    /// once the server names one, are tried as usual.
    #[error(
        "{server} rejects freshly issued tokens: it refused (HTTP 401{}) an access token {issuer} issued moments before; logging in again would not help",
        error.as_deref().map(|e| format!(" {e}")).unwrap_or_default()
    )]
    #[non_exhaustive]
    FreshTokenRejected {
        /// The MCP server.
        server: String,
        /// The authorization server that issued the token.
        issuer: String,
        /// The `error` of the server's `WWW-Authenticate` challenge (e.g.
        /// `invalid_token`), when it sent one.
        error: Option<String>,
    },
    /// The authorization server does not know the client identity it was
    /// sent: `invalid_client` from the token endpoint (a code exchange or a
    /// refresh), or `invalid_client` / `unauthorized_client` from the
    /// authorization endpoint. A registration the flow made (Dynamic Client
    /// Registration) is then forgotten, and the client registers again
    /// once; this error reports a registration refused again, or a
    /// configured client (pre-registered, or a Client ID Metadata Document
    /// URL), which is never forgotten: its `client_id` must be fixed where
    /// it is configured.
    #[error(
        "authorization server {issuer} does not know the {} client {client_id:?} ({error}){}",
        if *configured { "configured" } else { "registered" },
        if *configured { ": check the client id configured for this server" } else { "" }
    )]
    #[non_exhaustive]
    ClientRejected {
        /// The authorization server's issuer.
        issuer: String,
        /// The client id it refused (not a secret).
        client_id: String,
        /// The OAuth `error` code it sent.
        error: String,
        /// `true` for a configured client, `false` for a registration.
        configured: bool,
    },
    /// The step-up limit was reached.
    #[error("{attempts} step-up authorizations for {operation} were not enough")]
    #[non_exhaustive]
    StepUpLimit {
        /// How many were made.
        attempts: u32,
        /// The operation (JSON-RPC method) that kept being refused.
        operation: String,
    },
    /// The credential store failed: "credential store failed" with the
    /// store's [`StoreError`] as the source, or "credential store:
    /// {problem}" for what the flow found wrong with what it read.
    #[error(
        "credential store{}",
        if problem.is_empty() { " failed".to_owned() } else { format!(": {problem}") }
    )]
    #[non_exhaustive]
    Store {
        /// What went wrong; empty when the source (the store's error) says
        /// it.
        problem: String,
        /// The cause: the store's [`StoreError`], when it failed.
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    },
    /// DPoP (RFC 9449) failed: a nonce loop, a server that refuses the
    /// proofs of a fresh token, a stored key that cannot be used.
    #[error("DPoP: {problem}")]
    #[non_exhaustive]
    Dpop {
        /// What went wrong.
        problem: DpopProblem,
    },
}

/// What went wrong with DPoP (in [`AuthError::Dpop`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DpopProblem {
    /// The server asked for a new nonce again right after the retry with
    /// the nonce it had sent (RFC 9449 § 8, § 9): it is not retried again.
    #[error(
        "{origin} asked for a new DPoP nonce again after the retry with the nonce it sent; not retrying (a nonce loop)"
    )]
    NonceLoop {
        /// The server's origin.
        origin: String,
    },
    /// The server asked for a nonce (`use_dpop_nonce`) without sending one
    /// in `DPoP-Nonce`.
    #[error("{origin} asked for a DPoP nonce (use_dpop_nonce) but sent none in DPoP-Nonce")]
    NonceMissing {
        /// The server's origin.
        origin: String,
    },
    /// The MCP server refused the proofs of a token this client had just
    /// obtained with a fresh key (`invalid_dpop_proof`): another
    /// authorization would end the same way.
    #[error(
        "the server refuses the DPoP proofs of a freshly issued token (invalid_dpop_proof){}",
        description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
    )]
    ProofRefused {
        /// The server's `error_description`, when it gave one.
        description: Option<String>,
    },
    /// The stored key of the authorization server cannot be used.
    #[error("the stored DPoP key cannot be used ({0}); remove it to get a new one")]
    BadStoredKey(String),
    /// The system could not produce a key or a signature.
    #[error("cannot {0}")]
    Crypto(&'static str),
    /// The URL a proof is for cannot be put in one (no scheme or host).
    #[error("cannot make a DPoP proof for a URL without scheme and host")]
    BadUrl,
}

impl AuthError {
    /// [`AuthError::UserAgent`]: the authorization step failed, saying
    /// `problem` (no secret). For [`UserAgent`](crate::UserAgent)
    /// implementations outside this crate, which cannot build the variant.
    pub fn user_agent(problem: impl Into<String>) -> AuthError {
        AuthError::UserAgent {
            problem: problem.into(),
        }
    }

    /// [`AuthError::NeedsLogin`]: no user can be asked; `hint` says what to
    /// do. For [`UserAgent`](crate::UserAgent) implementations outside this
    /// crate.
    pub fn needs_login(hint: impl Into<String>) -> AuthError {
        AuthError::NeedsLogin { hint: hint.into() }
    }

    /// The transport-level kind this error is reported as.
    pub fn kind(&self) -> AuthErrorKind {
        match self {
            AuthError::NeedsLogin { .. } => AuthErrorKind::NeedsLogin,
            AuthError::StepUpLimit { .. } => AuthErrorKind::StepUpLimit,
            _ => AuthErrorKind::Denied,
        }
    }

    /// The underlying error, shared (what `source()` returns), for an
    /// error that wraps one.
    pub(crate) fn cause(&self) -> Option<Arc<dyn std::error::Error + Send + Sync>> {
        match self {
            AuthError::Fetch { source, .. } => Some(Arc::new(source.clone())),
            AuthError::Metadata { source, .. }
            | AuthError::Registration { source, .. }
            | AuthError::Store { source, .. } => source.clone(),
            _ => None,
        }
    }

    /// [`AuthError::Metadata`] for the document `what` at `url`, with no
    /// underlying error.
    pub(crate) fn metadata(
        what: &'static str,
        url: impl Into<String>,
        reason: MetadataProblem,
    ) -> AuthError {
        AuthError::Metadata {
            what,
            url: url.into(),
            reason,
            source: None,
        }
    }

    /// [`AuthError::AuthorizationResponse`] for `reason`, with no `error`
    /// code from the authorization server.
    pub(crate) fn response(reason: ResponseProblem) -> AuthError {
        AuthError::AuthorizationResponse {
            reason,
            error: None,
        }
    }

    /// The OAuth `error` code of a token endpoint's refusal (RFC 6749
    /// § 5.2, e.g. `invalid_grant`, `invalid_scope`,
    /// `unauthorized_client`), or of the identity provider's refusal of a
    /// token exchange; `None` for every other error.
    pub fn oauth_error(&self) -> Option<&str> {
        match self {
            AuthError::TokenRefused { error, .. } => error.as_deref(),
            AuthError::TokenExchange {
                problem: ExchangeProblem::Refused { error, .. },
                ..
            } => error.as_deref(),
            _ => None,
        }
    }

    /// `true` for a token refusal with `invalid_grant`: the grant (a
    /// refresh token) is dead and may be forgotten. Nothing else is.
    pub fn is_invalid_grant(&self) -> bool {
        matches!(self, AuthError::TokenRefused { error: Some(e), .. } if e == "invalid_grant")
    }
}

/// The flow's error for a failure of the credential store: the store's
/// error is the source, its text not repeated.
pub(crate) fn store_error(e: StoreError) -> AuthError {
    AuthError::Store {
        problem: String::new(),
        source: Some(Arc::new(e)),
    }
}

/// Why a metadata document could not be used ([`AuthError::Metadata`]).
/// `Display` is the few words the error shows after the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataProblem {
    /// Not there: the HTTP status of the reply (where a 404 would mean
    /// something else, or at a URL that had to have it).
    #[error("HTTP {0}")]
    Status(u16),
    /// A reply whose `Content-Type` is not JSON.
    #[error("the reply is not JSON")]
    NotJson,
    /// JSON that is not the document; the parser's error is the source.
    #[error("not a valid document")]
    NotADocument,
    /// The Protected Resource Metadata lists no `authorization_servers`.
    #[error("it lists no authorization_servers")]
    NoAuthorizationServers,
    /// The issuer is not an absolute URL: it has no well-known URLs.
    #[error("the issuer is not an absolute URL")]
    IssuerNotAUrl,
    /// None of the issuer's well-known URLs (RFC 8414 § 3, OpenID Connect
    /// Discovery) has its metadata; `tried` is how many there are.
    #[error("none at any of its {tried} well-known URLs")]
    NotFound {
        /// How many URLs were tried.
        tried: usize,
    },
    /// The `authorization_endpoint` is not a URL.
    #[error("authorization_endpoint is not a URL")]
    AuthorizationEndpointNotAUrl,
    /// The authorization server offers no `device_authorization_endpoint`
    /// (RFC 8628): no device login there.
    #[error("it offers no device_authorization_endpoint (RFC 8628)")]
    NoDeviceAuthorization,
    /// The document did not arrive whole (status, headers and body) within
    /// the time one document of discovery is given
    /// ([`OAuthConfig::discovery_document_timeout`](crate::OAuthConfig::discovery_document_timeout)):
    /// a server that does not answer, or trickles its answer. `ms`: how
    /// long was waited, in milliseconds.
    #[error("no complete answer within {ms} ms")]
    NoAnswer {
        /// How long was waited, in milliseconds.
        ms: u64,
    },
    /// The whole discovery's time
    /// ([`OAuthConfig::discovery_timeout`](crate::OAuthConfig::discovery_timeout))
    /// ran out while this document was awaited. `ms`: the discovery's
    /// deadline, in milliseconds.
    #[error("discovery gave up waiting for it: its {ms} ms were spent")]
    DiscoveryTimeout {
        /// The whole discovery's time, in milliseconds.
        ms: u64,
    },
    /// Anything else, in words.
    #[error("{0}")]
    Other(String),
}

/// Why Dynamic Client Registration failed ([`AuthError::Registration`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistrationProblem {
    /// The registration endpoint refused: its HTTP status and the OAuth
    /// `error` code it sent (RFC 7591 § 3.2.2, e.g.
    /// `invalid_redirect_uri`), when it did.
    #[error("HTTP {status}{}", error.as_deref().map(|e| format!(" {e}")).unwrap_or_default())]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The OAuth `error` code.
        error: Option<String>,
    },
    /// A success status with a body that is not JSON.
    #[error("HTTP {status} with a body that is not JSON")]
    NotJson {
        /// The HTTP status.
        status: u16,
    },
    /// JSON that is not a registration response (no `client_id`, a member
    /// of the wrong type); what is wrong is the source.
    #[error("not a registration response")]
    NotAResponse,
    /// Anything else, in words.
    #[error("{0}")]
    Other(String),
}

/// Why an authorization response was rejected
/// ([`AuthError::AuthorizationResponse`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseProblem {
    /// The `state` is not the one sent: a response to another request, or
    /// a forged one.
    #[error("the state is not the one sent")]
    StateMismatch,
    /// The response has no `state`.
    #[error("the response has no state")]
    NoState,
    /// The `iss` parameter is not the authorization server's issuer
    /// (RFC 9207 § 2.4): a response from another server (mix-up).
    #[error("the iss parameter is not the authorization server's issuer")]
    IssuerMismatch,
    /// The authorization server advertises the `iss` parameter but the
    /// response has none (RFC 9207 § 2.4).
    #[error("the authorization server advertises the iss parameter but the response has none")]
    NoIssuer,
    /// The authorization server answered with an error: its code is the
    /// variant's `error` (e.g. `access_denied`).
    #[error("the authorization server refused")]
    Refused,
    /// The response has no `code`.
    #[error("the response has no code")]
    NoCode,
    /// Device authorization: the user refused (`access_denied`, RFC 8628
    /// § 3.5).
    #[error("the user refused")]
    UserRefused,
    /// Device authorization: the code expired before the user answered
    /// (`expired_token`, RFC 8628 § 3.5).
    #[error("the device code expired before the user answered")]
    Expired,
    /// The MCP server refused a request with 403 and no
    /// `insufficient_scope` challenge: nothing a new authorization would
    /// change.
    #[error("the server refused the request (HTTP 403)")]
    Forbidden,
    /// Anything else, in words.
    #[error("{0}")]
    Other(String),
}

/// Why a private key cannot be used ([`AuthError::Key`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyProblem {
    /// The file could not be read (the I/O error's kind).
    #[error("cannot be read ({0})")]
    Unreadable(String),
    /// No PEM private key in it (`-----BEGIN PRIVATE KEY-----`, or
    /// `RSA PRIVATE KEY`), or a PEM section that does not decode.
    #[error(
        "is not a PEM private key (expected PKCS#8 \"PRIVATE KEY\" or PKCS#1 \"RSA PRIVATE KEY\")"
    )]
    NotPem,
    /// A SEC1 `EC PRIVATE KEY`: convert it to PKCS#8 (`openssl pkcs8
    /// -topk8 -nocrypt`).
    #[error(
        "is a SEC1 \"EC PRIVATE KEY\"; convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt`"
    )]
    Sec1,
    /// A key of a type no supported algorithm signs with (e.g. Ed25519, an
    /// EC key on P-384): ES256 needs P-256, RS256 an RSA key.
    #[error("is {0}; ES256 needs an EC P-256 key, RS256 an RSA key")]
    UnsupportedKeyType(String),
    /// The key was rejected when loaded (malformed DER, an RSA key shorter
    /// than 2048 bits); `ring`'s reason.
    #[error("is malformed or unusable ({0})")]
    Malformed(String),
    /// The key signs with another algorithm than the configured one.
    #[error("signs {key}, but {configured} is configured")]
    WrongAlgorithm {
        /// The configured algorithm.
        configured: String,
        /// The key's algorithm.
        key: String,
    },
    /// The configured algorithm is none this client signs with.
    #[error("algorithm {0} is not supported (ES256 or RS256)")]
    UnsupportedAlgorithm(String),
    /// The authorization server does not accept the key's algorithm
    /// (`token_endpoint_auth_signing_alg_values_supported`).
    #[error("signs {key}, which the authorization server does not accept (it lists {accepted})")]
    NotAccepted {
        /// The key's algorithm.
        key: String,
        /// What the server lists, comma-separated.
        accepted: String,
    },
}

/// Why an assertion cannot be used ([`AuthError::Assertion`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssertionProblem {
    /// The source has none: the file cannot be read, the variable is not
    /// set, the callback failed (its words).
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// The source gave an empty value.
    #[error("empty")]
    Empty,
    /// Not a JWT (three base64url parts with a JSON claims set).
    #[error("not a JWT")]
    NotAJwt,
    /// Its `exp` has passed: checked before sending (without verifying
    /// the signature), so no request was made with it.
    #[error("expired {seconds_ago} s ago (exp {exp})")]
    Expired {
        /// The `exp` claim (seconds since the epoch).
        exp: u64,
        /// How long ago that was.
        seconds_ago: u64,
    },
}

/// Why the token exchange at the identity provider failed
/// ([`AuthError::TokenExchange`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExchangeProblem {
    /// The identity provider refused with an OAuth error (RFC 8693 § 2.2.2).
    #[error(
        "refused: HTTP {status}{}{}",
        error.as_deref().map(|e| format!(" {e}")).unwrap_or_default(),
        description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
    )]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The OAuth `error` code, when it sent one.
        error: Option<String>,
        /// The `error_description`, scrubbed of secrets.
        description: Option<String>,
    },
    /// The answer is not JSON (an HTML login page, say).
    #[error("HTTP {status} answer is not JSON (Content-Type {content_type:?})")]
    NotJson {
        /// The HTTP status.
        status: u16,
        /// Its `Content-Type`.
        content_type: String,
    },
    /// JSON, but not a token exchange response carrying an ID-JAG
    /// (no `access_token`, or an `issued_token_type` other than
    /// `urn:ietf:params:oauth:token-type:id-jag`).
    #[error("not an ID-JAG token exchange response: {0}")]
    NotIdJag(String),
}
