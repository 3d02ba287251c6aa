//! The grants for clients that act without a person (the MCP authorization
//! extensions): [`Grant::ClientCredentials`] (OAuth client credentials),
//! [`Grant::EnterpriseManaged`] (an ID token exchanged at the identity
//! provider for an ID-JAG, then the JWT bearer grant) and
//! [`Grant::WorkloadIdentity`] (the JWT bearer grant with a workload
//! JWT). Each runs where the authorization code flow would: on the first
//! refusal, after the same discovery; and again, instead of a refresh,
//! when its token expires. Every token request goes through
//! [`token_post`](crate::token::token_post).

use std::fmt;
use std::sync::Arc;

use crate::assertion::AssertionSource;
use crate::jwt::PrivateKey;
use crate::secret::Secret;

/// The client capability extension of the client credentials grant
/// (`io.modelcontextprotocol/oauth-client-credentials`, SEP-1046): a host
/// that uses [`Grant::ClientCredentials`] declares it in its
/// capabilities' `extensions`.
pub const CLIENT_CREDENTIALS_EXTENSION: &str = "io.modelcontextprotocol/oauth-client-credentials";

/// The extension of enterprise-managed authorization
/// (`io.modelcontextprotocol/enterprise-managed-authorization`, SEP-990).
pub const ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION: &str =
    "io.modelcontextprotocol/enterprise-managed-authorization";

/// The extension of workload identity federation
/// (`io.modelcontextprotocol/auth/wif`, SEP-1933).
pub const WORKLOAD_IDENTITY_FEDERATION_EXTENSION: &str = "io.modelcontextprotocol/auth/wif";

/// RFC 7523 § 2.1: a JWT as an authorization grant.
pub(crate) const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 7523 § 2.2: a JWT as client authentication.
pub(crate) const JWT_CLIENT_ASSERTION: &str =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// RFC 8693 § 2.1.
pub(crate) const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 8693 § 3.
pub(crate) const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The identity assertion authorization grant (ID-JAG) token type.
pub(crate) const ID_JAG_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// How a confidential client authenticates at a token endpoint.
#[derive(Clone)]
#[non_exhaustive]
pub enum ClientAuthentication {
    /// `client_secret_basic` (RFC 6749 § 2.3.1): the id and secret in an
    /// `Authorization: Basic` header.
    ClientSecretBasic(Secret),
    /// `client_secret_post`: the id and secret in the form.
    ClientSecretPost(Secret),
    /// `client_secret_basic` with the secret in the environment variable
    /// named here, read at each request that needs it (an unset or empty
    /// variable is that request's
    /// [`AuthError::SecretUnavailable`](crate::AuthError::SecretUnavailable),
    /// naming the variable).
    ClientSecretBasicEnv(String),
    /// `client_secret_post` with the secret in the environment variable
    /// named here, read as for [`ClientSecretBasicEnv`](Self::ClientSecretBasicEnv).
    ClientSecretPostEnv(String),
    /// `private_key_jwt` (RFC 7523 § 2.2): a JWT signed with the key,
    /// `iss` = `sub` = the client id, `aud` = the authorization server's
    /// issuer, a fresh `jti`, valid for 60 s.
    PrivateKeyJwt(Arc<PrivateKey>),
    /// `private_key_jwt` with the PEM key in the file `path`, read at each
    /// token request (a rotated key is followed; a key file that is
    /// missing, malformed or of another algorithm than `algorithm`, when
    /// given, is that request's [`AuthError::Key`](crate::AuthError::Key)).
    PrivateKeyJwtFile {
        /// The PEM file (see [`PrivateKey::from_pem_file`]).
        path: std::path::PathBuf,
        /// The algorithm the key must sign with (`ES256`, `RS256`).
        algorithm: Option<String>,
    },
}

impl fmt::Debug for ClientAuthentication {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientAuthentication::ClientSecretBasic(_) => f.write_str("ClientSecretBasic(***)"),
            ClientAuthentication::ClientSecretPost(_) => f.write_str("ClientSecretPost(***)"),
            ClientAuthentication::ClientSecretBasicEnv(var) => {
                f.debug_tuple("ClientSecretBasicEnv").field(var).finish()
            }
            ClientAuthentication::ClientSecretPostEnv(var) => {
                f.debug_tuple("ClientSecretPostEnv").field(var).finish()
            }
            ClientAuthentication::PrivateKeyJwt(k) => {
                f.debug_tuple("PrivateKeyJwt").field(k).finish()
            }
            ClientAuthentication::PrivateKeyJwtFile { path, algorithm } => f
                .debug_struct("PrivateKeyJwtFile")
                .field("path", path)
                .field("algorithm", algorithm)
                .finish(),
        }
    }
}

impl ClientAuthentication {
    /// The RFC 8414 name of the method (`client_secret_basic`, …).
    pub fn method(&self) -> &'static str {
        match self {
            ClientAuthentication::ClientSecretBasic(_)
            | ClientAuthentication::ClientSecretBasicEnv(_) => "client_secret_basic",
            ClientAuthentication::ClientSecretPost(_)
            | ClientAuthentication::ClientSecretPostEnv(_) => "client_secret_post",
            ClientAuthentication::PrivateKeyJwt(_)
            | ClientAuthentication::PrivateKeyJwtFile { .. } => "private_key_jwt",
        }
    }
}

/// A client registered out of band: its id and how it authenticates.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConfidentialClient {
    /// The `client_id` at the authorization server.
    pub client_id: String,
    /// Its authentication at the token endpoint.
    pub authentication: ClientAuthentication,
}

impl ConfidentialClient {
    /// The client `client_id`, authenticating with `authentication`.
    pub fn new(
        client_id: impl Into<String>,
        authentication: ClientAuthentication,
    ) -> ConfidentialClient {
        ConfidentialClient {
            client_id: client_id.into(),
            authentication,
        }
    }
}

/// The identity provider of enterprise-managed authorization, where the
/// ID token is exchanged for an ID-JAG (RFC 8693).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct IdentityProvider {
    /// Its token endpoint; when `None`, read from the metadata of
    /// [`issuer`](Self::issuer) (RFC 8414, OpenID Connect Discovery).
    pub token_endpoint: Option<String>,
    /// Its issuer, for discovery of the token endpoint.
    pub issuer: Option<String>,
    /// The client's id at the identity provider, sent as `client_id`.
    pub client_id: Option<String>,
    /// The client's secret there (`client_secret_basic`), if it has one.
    pub client_secret: Option<Secret>,
    /// The environment variable holding that secret, read at each token
    /// exchange instead (see
    /// [`with_client_secret_env`](Self::with_client_secret_env)).
    pub client_secret_env: Option<String>,
}

impl IdentityProvider {
    /// The identity provider whose token endpoint is `url`.
    pub fn with_token_endpoint(url: impl Into<String>) -> IdentityProvider {
        IdentityProvider {
            token_endpoint: Some(url.into()),
            ..IdentityProvider::default()
        }
    }

    /// The identity provider `issuer`, its token endpoint discovered.
    pub fn with_issuer(issuer: impl Into<String>) -> IdentityProvider {
        IdentityProvider {
            issuer: Some(issuer.into()),
            ..IdentityProvider::default()
        }
    }

    /// Sets the client's id (and secret) at the identity provider.
    pub fn with_client(mut self, client_id: impl Into<String>, secret: Option<Secret>) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = secret;
        self
    }

    /// Sets the client's id at the identity provider, its secret in the
    /// environment variable `variable`: read at each token exchange (an
    /// unset or empty variable is that exchange's
    /// [`AuthError::SecretUnavailable`](crate::AuthError::SecretUnavailable),
    /// naming the variable).
    pub fn with_client_secret_env(
        mut self,
        client_id: impl Into<String>,
        variable: impl Into<String>,
    ) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = None;
        self.client_secret_env = Some(variable.into());
        self
    }
}

/// A grant for a client that acts without a person. Set with
/// [`OAuthConfig::with_grant`](crate::OAuthConfig::with_grant); without
/// one the client takes a person through the authorization code flow.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Grant {
    /// OAuth client credentials (extension
    /// `io.modelcontextprotocol/oauth-client-credentials`): the client's
    /// own token, with `client_secret_basic`, `client_secret_post` or
    /// `private_key_jwt`. No refresh token: a new request when it expires.
    ClientCredentials(ConfidentialClient),
    /// Enterprise-managed authorization (extension
    /// `io.modelcontextprotocol/enterprise-managed-authorization`): the ID
    /// token from `id_token` exchanged at the identity provider (RFC 8693,
    /// `requested_token_type` ID-JAG, `audience` the authorization
    /// server's issuer, `resource` the protected resource's), then the
    /// RFC 7523 JWT bearer grant with the ID-JAG, authenticated as
    /// `client`.
    EnterpriseManaged {
        /// The client at the authorization server.
        client: ConfidentialClient,
        /// Where the ID token is exchanged.
        identity_provider: IdentityProvider,
        /// Where the ID token comes from.
        id_token: Arc<dyn AssertionSource>,
    },
    /// Workload identity federation (extension
    /// `io.modelcontextprotocol/auth/wif`): the RFC 7523 JWT bearer grant
    /// with the workload JWT from `assertion`, no client id and no
    /// registration. Its `exp` is checked before sending. A refusal
    /// (`invalid_grant`, `invalid_scope`, `unauthorized_client`) is
    /// reported as it came: no retry, no other grant.
    WorkloadIdentity {
        /// Where the workload JWT comes from.
        assertion: Arc<dyn AssertionSource>,
    },
}

impl Grant {
    /// The MCP extension this grant belongs to (for the client's
    /// capabilities).
    pub fn extension(&self) -> &'static str {
        match self {
            Grant::ClientCredentials(_) => CLIENT_CREDENTIALS_EXTENSION,
            Grant::EnterpriseManaged { .. } => ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION,
            Grant::WorkloadIdentity { .. } => WORKLOAD_IDENTITY_FEDERATION_EXTENSION,
        }
    }

    /// The grant type of its token request at the authorization server.
    pub fn grant_type(&self) -> &'static str {
        match self {
            Grant::ClientCredentials(_) => "client_credentials",
            Grant::EnterpriseManaged { .. } | Grant::WorkloadIdentity { .. } => JWT_BEARER_GRANT,
        }
    }
}

/// The form of the token exchange (RFC 8693 § 2.1) of `id_token` for an
/// ID-JAG for the authorization server `audience` and the protected
/// resource `resource` (exactly as its metadata states it).
pub(crate) fn exchange_pairs<'a>(
    id_token: &'a str,
    audience: &'a str,
    resource: &'a str,
    scope: Option<&'a str>,
    client_id: Option<&'a str>,
) -> Vec<(&'static str, &'a str)> {
    let mut pairs = vec![
        ("grant_type", TOKEN_EXCHANGE_GRANT),
        ("requested_token_type", ID_JAG_TOKEN_TYPE),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN_TYPE),
        ("audience", audience),
        ("resource", resource),
    ];
    if let Some(s) = scope {
        pairs.push(("scope", s));
    }
    if let Some(id) = client_id {
        pairs.push(("client_id", id));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exchange_asks_for_an_id_jag_for_the_issuer_and_the_resource() {
        let pairs = exchange_pairs(
            "id.tok.en",
            "https://as.example",
            "https://mcp.example/mcp",
            Some("a b"),
            Some("idp-client"),
        );
        let form = crate::token::form(&pairs);
        assert_eq!(
            form,
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange\
             &requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag\
             &subject_token=id.tok.en\
             &subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token\
             &audience=https%3A%2F%2Fas.example\
             &resource=https%3A%2F%2Fmcp.example%2Fmcp\
             &scope=a+b&client_id=idp-client"
        );
        // The resource goes as given: no trailing slash added, none removed.
        let pairs = exchange_pairs("t", "https://as", "https://mcp.example", None, None);
        assert!(pairs.contains(&("resource", "https://mcp.example")));
        assert!(
            !pairs
                .iter()
                .any(|(k, _)| *k == "scope" || *k == "client_id")
        );
    }

    #[test]
    fn debug_never_shows_a_secret() {
        let g = Grant::ClientCredentials(ConfidentialClient::new(
            "cid",
            ClientAuthentication::ClientSecretBasic(Secret::new("hunter22")),
        ));
        let shown = format!("{g:?}");
        assert!(
            shown.contains("cid") && !shown.contains("hunter22"),
            "{shown}"
        );
    }
}
