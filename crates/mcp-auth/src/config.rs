//! [`OAuthConfig`]: what the flow needs to know that discovery cannot
//! tell it: the MCP server, the redirect URI, how the client identifies
//! itself (pre-registered, a Client ID Metadata Document, or Dynamic
//! Client Registration), and the limits.

use std::time::Duration;

use mcp_transport_http::FetchOptions;

use crate::grant::Grant;
use crate::secret::Secret;

/// How long discovery waits for one document by default: 10 s.
pub(crate) const DISCOVERY_DOCUMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a whole discovery may take by default: 15 s, half the default
/// request timeout.
pub(crate) const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(15);

/// A client registered with an authorization server beforehand (spec
/// `basic/authorization` § Preregistration).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PreregisteredClient {
    /// The issuer it is registered with; `None`: whichever the server
    /// uses. A client for another issuer is never sent to this one.
    pub issuer: Option<String>,
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`, for a confidential client.
    pub client_secret: Option<Secret>,
    /// The environment variable holding the `client_secret`, read at each
    /// request that needs it instead (see
    /// [`with_client_secret_env`](Self::with_client_secret_env)).
    pub client_secret_env: Option<String>,
    /// The token endpoint authentication method, when known.
    pub token_endpoint_auth_method: Option<String>,
}

impl PreregisteredClient {
    /// A client `client_id` (any issuer), with an optional secret.
    pub fn new(client_id: impl Into<String>, client_secret: Option<Secret>) -> PreregisteredClient {
        PreregisteredClient {
            issuer: None,
            client_id: client_id.into(),
            client_secret,
            client_secret_env: None,
            token_endpoint_auth_method: None,
        }
    }

    /// Takes the `client_secret` from the environment variable `variable`,
    /// read at each request that needs it (a code exchange, a refresh, a
    /// revocation): an unset or empty variable is that request's
    /// [`AuthError::SecretUnavailable`](crate::AuthError::SecretUnavailable),
    /// naming the variable, never another client's login.
    pub fn with_client_secret_env(mut self, variable: impl Into<String>) -> Self {
        self.client_secret = None;
        self.client_secret_env = Some(variable.into());
        self
    }

    /// Restricts it to the authorization server `issuer`.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets the token endpoint authentication method.
    pub fn with_token_endpoint_auth_method(mut self, method: impl Into<String>) -> Self {
        self.token_endpoint_auth_method = Some(method.into());
        self
    }
}

/// The configuration of the OAuth flow for one MCP server.
///
/// ```
/// use mcp_auth::OAuthConfig;
/// let config = OAuthConfig::new("https://example.com/mcp", "http://127.0.0.1:8976/callback")
///     .with_client_name("my-host")
///     .with_max_step_ups(1);
/// assert_eq!(config.application_type, "native");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// The MCP server's URL (the resource).
    pub server_url: String,
    /// The redirect URI sent on authorization and token requests (a
    /// loopback URL or https, spec § Communication Security).
    pub redirect_uri: String,
    /// `client_name` for registration. Default `"mcp"`.
    pub client_name: String,
    /// A Client ID Metadata Document URL (https, with a path), used as the
    /// `client_id` where the authorization server accepts one.
    pub client_metadata_url: Option<String>,
    /// Clients registered beforehand; tried first.
    pub preregistered: Vec<PreregisteredClient>,
    /// `application_type` for Dynamic Client Registration. Default
    /// `"native"` (a local client).
    pub application_type: String,
    /// Step-up authorizations (403 `insufficient_scope`) per operation
    /// before giving up. Default 2.
    pub max_step_ups: u32,
    /// How long before its expiry an access token is refreshed. Default
    /// 60 s.
    pub refresh_skew: Duration,
    /// Ask for `offline_access` when the authorization server lists it
    /// (for a refresh token). Default `true`.
    pub request_offline_access: bool,
    /// Options of the requests of the flow (proxy, timeouts, body bound).
    pub fetch: FetchOptions,
    /// The longest wait for one document of discovery (the unauthenticated
    /// request to the server, a Protected Resource Metadata or
    /// authorization server metadata URL), from the request until its whole
    /// body has arrived: a server that does not answer, or trickles its
    /// answer, is given up on then. Default 10 s.
    pub discovery_document_timeout: Duration,
    /// The longest wait for a whole discovery (every URL it tries), so that
    /// it ends well within the request it runs for (30 s by default).
    /// Default 15 s.
    pub discovery_timeout: Duration,
    /// The account the tokens are stored under: two accounts at one server
    /// are two sets of tokens. Default [`DEFAULT_ACCOUNT`](crate::DEFAULT_ACCOUNT).
    pub account: String,
    /// Scopes always asked for on an authorization, besides the
    /// challenge's (or the resource's) and those remembered from earlier
    /// logins and step-ups. Default none.
    pub scopes: Vec<String>,
    /// Where to fetch the authorization server's metadata (RFC 8414)
    /// instead of discovering it from the server's Protected Resource
    /// Metadata (Claude Code's `authServerMetadataUrl`). https, or http on
    /// a loopback host. The Protected Resource Metadata is still read when
    /// the server has it, and the document fetched here is still checked:
    /// its `issuer` must be one of the `authorization_servers` that
    /// metadata lists, or, where the server has none, be on the metadata
    /// URL's origin; its endpoints must be https. Default `None`
    /// (discovery, spec `basic/authorization` § Authorization Server
    /// Discovery).
    pub auth_server_metadata_url: Option<String>,
    /// A grant for a client that acts without a person (client
    /// credentials, enterprise-managed authorization, workload identity
    /// federation): run on the first refusal instead of the authorization
    /// code flow, and again when its token expires; no user agent, no
    /// redirect URI, no registration. Default `None` (a person logs in).
    pub grant: Option<Grant>,
    /// DPoP-bound tokens (RFC 9449, the MCP DPoP extension): with `true`
    /// (the default), tokens are requested with a DPoP proof when the
    /// authorization server lists `ES256` in
    /// `dpop_signing_alg_values_supported`, and a token it issues as
    /// `token_type` `DPoP` goes out with a fresh proof on every request;
    /// with `false`, tokens are requested without a proof (a bound token
    /// already stored is still sent with its proofs: it works no other
    /// way; `mcp logout` forgets it).
    pub dpop: bool,
}

impl OAuthConfig {
    /// A configuration for the MCP server at `server_url`, redirecting to
    /// `redirect_uri`; everything else default.
    pub fn new(server_url: impl Into<String>, redirect_uri: impl Into<String>) -> OAuthConfig {
        OAuthConfig {
            server_url: server_url.into(),
            redirect_uri: redirect_uri.into(),
            client_name: "mcp".into(),
            client_metadata_url: None,
            preregistered: Vec::new(),
            application_type: "native".into(),
            max_step_ups: 2,
            refresh_skew: Duration::from_secs(60),
            request_offline_access: true,
            fetch: FetchOptions::default(),
            discovery_document_timeout: DISCOVERY_DOCUMENT_TIMEOUT,
            discovery_timeout: DISCOVERY_TIMEOUT,
            account: crate::store::DEFAULT_ACCOUNT.to_owned(),
            scopes: Vec::new(),
            auth_server_metadata_url: None,
            grant: None,
            dpop: true,
        }
    }

    /// A configuration for the MCP server at `server_url` that obtains
    /// its tokens by `grant`, without a person (no redirect URI).
    pub fn for_grant(server_url: impl Into<String>, grant: Grant) -> OAuthConfig {
        OAuthConfig::new(server_url, "").with_grant(grant)
    }

    /// Turns DPoP-bound tokens on (when the authorization server supports
    /// them; the default) or off (see [`dpop`](Self::dpop)).
    pub fn with_dpop(mut self, on: bool) -> Self {
        self.dpop = on;
        self
    }

    /// Sets the grant for a client without a person (see
    /// [`grant`](Self::grant)).
    pub fn with_grant(mut self, grant: Grant) -> Self {
        self.grant = Some(grant);
        self
    }

    /// Sets the account the tokens are stored under.
    pub fn with_account(mut self, account: impl Into<String>) -> Self {
        self.account = account.into();
        self
    }

    /// Sets the scopes always asked for.
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets `client_name`.
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Sets the Client ID Metadata Document URL.
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Adds a pre-registered client.
    pub fn with_preregistered(mut self, client: PreregisteredClient) -> Self {
        self.preregistered.push(client);
        self
    }

    /// Sets `application_type`.
    pub fn with_application_type(mut self, application_type: impl Into<String>) -> Self {
        self.application_type = application_type.into();
        self
    }

    /// Sets the step-up limit per operation.
    pub fn with_max_step_ups(mut self, n: u32) -> Self {
        self.max_step_ups = n;
        self
    }

    /// Sets how long before expiry a token is refreshed.
    pub fn with_refresh_skew(mut self, skew: Duration) -> Self {
        self.refresh_skew = skew;
        self
    }

    /// Whether to ask for `offline_access` when it is offered.
    pub fn with_request_offline_access(mut self, yes: bool) -> Self {
        self.request_offline_access = yes;
        self
    }

    /// Fetches the authorization server's metadata from `url` instead of
    /// discovering it (see [`auth_server_metadata_url`](Self::auth_server_metadata_url)).
    pub fn with_auth_server_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.auth_server_metadata_url = Some(url.into());
        self
    }

    /// Sets how long discovery waits for one document (`per_document`) and
    /// in all (`whole`); see
    /// [`discovery_document_timeout`](Self::discovery_document_timeout).
    pub fn with_discovery_timeouts(mut self, per_document: Duration, whole: Duration) -> Self {
        self.discovery_document_timeout = per_document;
        self.discovery_timeout = whole;
        self
    }

    /// Sets the options of the flow's requests.
    pub fn with_fetch(mut self, fetch: FetchOptions) -> Self {
        self.fetch = fetch;
        self
    }
}
