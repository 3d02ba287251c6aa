//! # mcp-auth
//!
//! OAuth 2.1 authorization for MCP clients talking to remote servers over
//! HTTP (spec `basic/authorization`). [`OAuth`] plugs into
//! `mcp-transport-http`'s auth hook: it attaches the access token to every
//! request, and on a 401 or 403 it discovers the authorization server,
//! obtains a client identity, takes the user through the authorization
//! code flow with PKCE, and retries. `mcp-client` never sees any of it.
//!
//! # Example
//!
//! A server that answers 401 until it gets a token; its authorization
//! server (on the same test server, in the hidden lines) redirects back at
//! once, so the [`HeadlessRedirect`] user agent completes the login.
//!
//! ```
//! # use fault_http::{FaultServer, Reply, tools_result};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let base = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
//! # let b = base.clone();
//! # let server = FaultServer::start(move |r| {
//! #     let base = b.get().cloned().unwrap_or_default();
//! #     match r.path() {
//! #         "/.well-known/oauth-protected-resource/mcp" => Reply::json(format!(
//! #             r#"{{"resource":"{base}/mcp","authorization_servers":["{base}"]}}"#)),
//! #         "/.well-known/oauth-authorization-server" => Reply::json(format!(
//! #             r#"{{"issuer":"{base}","authorization_endpoint":"{base}/authorize",
//! #                "token_endpoint":"{base}/token","registration_endpoint":"{base}/register",
//! #                "code_challenge_methods_supported":["S256"]}}"#)),
//! #         "/register" => Reply::json(r#"{"client_id":"c1"}"#).with_status(201),
//! #         "/authorize" => {
//! #             let q = r.uri.query().unwrap_or("");
//! #             let state = q.split('&').find_map(|p| p.strip_prefix("state=")).unwrap_or("");
//! #             Reply::status(302).header("location",
//! #                 &format!("http://localhost:3000/callback?code=xyz&state={state}"))
//! #         }
//! #         "/token" => Reply::json(r#"{"access_token":"at-1","token_type":"Bearer","expires_in":3600}"#),
//! #         _ if r.header("authorization") == Some("Bearer at-1") =>
//! #             Reply::json(tools_result(&r.rpc_id().unwrap_or_default())),
//! #         _ => Reply::status(401).header("www-authenticate", "Bearer"),
//! #     }
//! # }).await?;
//! # base.set(format!("http://localhost:{}", server.addr().port())).ok();
//! # let url = format!("{}/mcp", base.get().unwrap());
//! use std::sync::Arc;
//! use mcp_auth::{HeadlessRedirect, MemoryStore, OAuth, OAuthConfig};
//! use mcp_transport::{RequestOptions, Transport};
//! use mcp_transport_http::{FetchOptions, Fetcher, HttpConfig, HttpMode, HttpTransport, ProxySetting};
//!
//! // `url` is the MCP server, e.g. "https://example.com/mcp".
//! let fetch = FetchOptions::default().with_proxy(ProxySetting::None);
//! let config = OAuthConfig::new(url.clone(), "http://localhost:3000/callback")
//!     .with_client_name("example")
//!     .with_fetch(fetch.clone());
//! let agent = Arc::new(HeadlessRedirect::new(Fetcher::new(fetch)));
//! let oauth = OAuth::new(config, Arc::new(MemoryStore::new()), agent)?;
//!
//! let http = HttpConfig::new(url)
//!     .with_proxy(ProxySetting::None)
//!     .with_auth_provider(oauth.provider());
//! let transport = HttpTransport::connect(http, HttpMode::Streamable).await?;
//! let tools = transport.request("tools/list", None, RequestOptions::default()).await?;
//! assert_eq!(tools.to_value()?, serde_json::json!({"tools": []}));
//! # Ok(())
//! # }
//! ```
//!
//! # The flow, rule by rule
//!
//! - **Challenge** ([`challenge`]): every `WWW-Authenticate` value is
//!   parsed (several challenges, quoted or token parameters); the `Bearer`
//!   (else `DPoP`) challenge's `resource_metadata`, `scope` and `error`
//!   are used.
//! - **Discovery** (§ Authorization Server Discovery): Protected Resource
//!   Metadata from `resource_metadata`, else
//!   `/.well-known/oauth-protected-resource/<path>`, else the root one; its
//!   `resource` must identify the server (RFC 9728 § 3.3), or nothing is
//!   sent to any authorization server. Authorization server metadata from
//!   the first `authorization_servers` entry, at the OAuth then OpenID
//!   Connect well-known URLs (path insertion, then appending); its
//!   `issuer` must be the identical string. Without PRM, the 2025-03-26
//!   rules: the MCP URL's origin, its metadata or `/authorize`, `/token`,
//!   `/register`. Nothing is cached: a server that moves to another
//!   authorization server is followed.
//! - **Client identity** (§ Client Registration Approaches): stored for
//!   the issuer, else pre-registered ([`PreregisteredClient`]), else a
//!   Client ID Metadata Document when the server accepts one, else Dynamic
//!   Client Registration with `application_type`. Registrations are kept
//!   per issuer and never sent to another.
//! - **Authorization** (§ Authorization Code Protection): PKCE `S256`
//!   (refused when the server does not advertise it), `state`, RFC 8707
//!   `resource` (the PRM `resource`, else the canonical server URI) on the
//!   authorization, token and refresh requests; the response's `state` and
//!   RFC 9207 `iss` are checked before its code is redeemed.
//! - **Scopes** (§ Scope Selection Strategy): the challenge's, else the
//!   PRM's `scopes_supported`, else none; `offline_access` only when the
//!   authorization server lists it; on 403 `insufficient_scope` the union
//!   with what was asked before, at most
//!   [`OAuthConfig::max_step_ups`] times per operation.
//! - **Tokens**: a `Bearer` (or, after a DPoP proof, `DPoP`) `token_type`
//!   and an `access_token` are required; expiry is kept as an absolute time and the token refreshed
//!   [`OAuthConfig::refresh_skew`] ahead of it; a refresh that returns no
//!   refresh token keeps the old one; only `invalid_grant` forgets tokens.
//!   Client authentication at the token endpoint follows the registered
//!   method, else what the server lists (`client_secret_basic`,
//!   `client_secret_post`, `none`).
//! - **DPoP** (RFC 9449, the MCP DPoP extension; on by default, see
//!   [`OAuthConfig::dpop`]): when the authorization server lists `ES256` in
//!   `dpop_signing_alg_values_supported`, every token request carries a
//!   proof signed with that server's P-256 key (made once and kept in the
//!   [`CredentialStore`], [`StoreKey::DpopKey`]); a `DPoP` token goes out as
//!   `Authorization: DPoP` with a fresh proof (`jti`, `htm`, `htu` without
//!   query, `iat`, `ath`, `content_digest`) on every request, retries and
//!   redirect hops included. A `DPoP-Nonce` is learnt from every reply, per
//!   origin; `use_dpop_nonce` gets one retry ([`DpopProblem::NonceLoop`]
//!   after that); `invalid_dpop_proof` one fresh authorization with a new
//!   key ([`DpopProblem::ProofRefused`] after that).
//! - **Without a person** ([`Grant`] in [`OAuthConfig::grant`], the MCP
//!   authorization extensions): client credentials (`client_secret_basic`,
//!   `client_secret_post` or `private_key_jwt` with a [`PrivateKey`], ES256
//!   or RS256), enterprise-managed authorization (the ID token exchanged at
//!   the identity provider for an ID-JAG, RFC 8693, then the RFC 7523 JWT
//!   bearer grant) and workload identity federation (the JWT bearer grant
//!   with a workload JWT); assertions come from an [`AssertionSource`].
//!   The grant runs where a login would and again instead of a refresh;
//!   bad keys, assertions and identity-provider answers are
//!   [`AuthError::Key`], [`AuthError::Assertion`],
//!   [`AuthError::TokenExchange`]; a client secret in an environment
//!   variable that is not set, [`AuthError::SecretUnavailable`].
//! - **Every URL** of the flow is https, or http on a loopback host.
//!
//! # Seams
//!
//! - [`CredentialStore`]: where client registrations and tokens live
//!   (compare-and-swap writes, a lock across processes). Bundled:
//!   [`MemoryStore`] (one process) and, on unix, `FileStore` (a `0700`
//!   directory of `0600` files written atomically, `flock`ed: processes
//!   that find one expired token refresh it once).
//! - [`UserAgent`]: the browser step. [`NoInteraction`] reports "login
//!   needed"; [`HeadlessRedirect`] reads the redirect without a browser;
//!   `LoopbackBrowser` (feature `interactive`) is the person at a
//!   terminal: loopback receiver, browser, pasted redirect URL or code.
//!
//! Outside requests: [`OAuth::login`], [`OAuth::status`],
//! [`OAuth::login_device`] (RFC 8628 device authorization),
//! [`OAuth::access_token`], [`OAuth::logout`] (RFC 7009 revocation),
//! [`logins`] and [`inspect()`] (discovery for people).
//!
//! # Features
//!
//! - `interactive` (off): `LoopbackBrowser`, with a hyper server for the
//!   loopback receiver and the `webbrowser` crate.
//! - `keychain` (off): `KeychainStore`, secrets in the OS keychain
//!   (through `keyring-core`: the Secret Service on Linux; the Keychain on
//!   macOS and the Credential Manager on Windows, neither compiled nor
//!   tested by our CI), records in a `FileStore`.
//!
//! # Secrets
//!
//! A [`PrivateKey`]'s `Debug` shows its algorithm and origin only. Tokens,
//! codes, verifiers, client secrets, client and workload assertions, ID
//! tokens, DPoP keys and proofs are
//! [`Secret`]s: their `Debug` and `Display` print `***`, they are never
//! logged, and an authorization server's error text is scrubbed of them
//! before it is shown. Header values carrying them are marked sensitive.

mod assertion;
mod authorize;
pub mod challenge;
mod config;
mod discovery;
mod dpop;
mod env_secret;
mod error;
mod fetch;
#[cfg(unix)]
mod file_store;
mod grant;
mod inspect;
mod jwt;
#[cfg(all(
    feature = "keychain",
    any(target_os = "linux", target_os = "macos", windows)
))]
mod keychain_store;
#[cfg(feature = "interactive")]
mod loopback;
pub mod metadata;
mod oauth;
mod pkce;
mod registration;
mod scope;
mod secret;
mod store;
mod token;
mod user_agent;

/// `e` and its causes, joined with `: ` (each level once).
pub(crate) fn error_chain_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

/// `true` when a token for `resource` (RFC 8707) may be sent to the MCP
/// server at `server_url`: same origin, and the resource's path is the
/// server's or a parent of it (RFC 9728 § 3.3). A configuration name is
/// matched to stored logins with it.
pub fn resource_identifies(resource: &str, server_url: &str) -> bool {
    url::Url::parse(server_url).is_ok_and(|s| metadata::resource_matches(resource, &s))
}

pub use assertion::{AssertionSource, CallbackAssertion, EnvAssertion, FileAssertion};
pub use config::{OAuthConfig, PreregisteredClient};
pub use dpop::DPOP_ALGORITHM;
pub use error::{
    AssertionProblem, AuthError, DpopProblem, ExchangeProblem, KeyProblem, MetadataProblem,
    RegistrationProblem, ResponseProblem,
};
#[cfg(unix)]
pub use file_store::{CREDENTIALS_DIR_ENV, FileStore};
pub use grant::{
    CLIENT_CREDENTIALS_EXTENSION, ClientAuthentication, ConfidentialClient,
    ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION, Grant, IdentityProvider,
    WORKLOAD_IDENTITY_FEDERATION_EXTENSION,
};
pub use inspect::{InspectReport, InspectStep, inspect};
pub use jwt::{PrivateKey, SigningAlgorithm};
#[cfg(all(
    feature = "keychain",
    any(target_os = "linux", target_os = "macos", windows)
))]
pub use keychain_store::KeychainStore;
#[cfg(feature = "interactive")]
pub use loopback::{
    CallbackPort, LoopbackBrowser, LoopbackHost, LoopbackOptions, Notice, parse_paste,
};
pub use oauth::OAuth;
pub use oauth::device::DevicePrompt;
pub use oauth::session::{LoginStatus, LogoutReport, Revocation, logins};
pub use secret::Secret;
pub use store::{
    ClientRecord, CredentialStore, DEFAULT_ACCOUNT, DpopKeyRecord, MemoryStore, Record, Revision,
    StoreError, StoreKey, StoreLock, TokenRecord,
};
pub use user_agent::{
    AuthorizationPrompt, CallbackParams, HeadlessRedirect, NoInteraction, UserAgent,
};

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
