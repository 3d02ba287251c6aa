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
    #[error("{what} at {url}: {problem}")]
    #[non_exhaustive]
    Metadata {
        /// Which document.
        what: &'static str,
        /// Where it was looked for (the last URL tried).
        url: String,
        /// What was wrong.
        problem: String,
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
    #[error("client registration at {url} failed: {problem}")]
    #[non_exhaustive]
    Registration {
        /// The registration endpoint.
        url: String,
        /// What went wrong (status and the server's error code).
        problem: String,
    },
    /// The authorization response failed a check (`state`, `iss`, no
    /// `code`), or the authorization server answered with an error.
    #[error("authorization response rejected: {problem}")]
    #[non_exhaustive]
    AuthorizationResponse {
        /// What was wrong.
        problem: String,
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
    /// The step-up limit was reached.
    #[error("{attempts} step-up authorizations for {operation} were not enough")]
    #[non_exhaustive]
    StepUpLimit {
        /// How many were made.
        attempts: u32,
        /// The operation (JSON-RPC method) that kept being refused.
        operation: String,
    },
    /// The credential store failed.
    #[error("credential store: {problem}")]
    #[non_exhaustive]
    Store {
        /// What went wrong.
        problem: String,
        /// The cause.
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    },
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
            AuthError::Store { source, .. } => source.clone(),
            _ => None,
        }
    }

    /// `true` for a token refusal with `invalid_grant`: the grant (a
    /// refresh token) is dead and may be forgotten. Nothing else is.
    pub fn is_invalid_grant(&self) -> bool {
        matches!(self, AuthError::TokenRefused { error: Some(e), .. } if e == "invalid_grant")
    }
}

/// The flow's error for a failure of the credential store.
pub(crate) fn store_error(e: StoreError) -> AuthError {
    AuthError::Store {
        problem: e.to_string(),
        source: Some(Arc::new(e)),
    }
}
