//! How a remote entry is authorized: the `auth` and `oauth` members, read
//! under the spellings other hosts write.

use std::fmt;

use serde_json::{Map, Value};

use super::ConfigErrorKind;
use super::fields::{EntryResult, check_url, join_key, wrong};

/// How a remote server is authorized (JSON `auth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AuthMode {
    /// Not said: OAuth unless an `Authorization` header is configured.
    #[default]
    Auto,
    /// An OAuth login (`"oauth"`).
    OAuth,
    /// The configured headers are the credential; no OAuth flow ever
    /// starts (`"headers"`).
    Headers,
    /// No credential and no flow (`"none"`).
    None,
}

/// The grant of a remote entry (JSON `oauth.grant`): a person's login, or
/// one of the authorization extensions for a client without a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum GrantSetting {
    /// A person logs in (`mcp login`): the authorization code flow
    /// (`"authorization_code"`, the default).
    #[default]
    AuthorizationCode,
    /// OAuth client credentials (`"client_credentials"`): `clientId` with
    /// `clientSecretEnv` (`client_secret_basic`) or `privateKeyFile`
    /// (`private_key_jwt`).
    ClientCredentials,
    /// Enterprise-managed authorization (`"enterprise_managed"`): the ID
    /// token from `tokenFile`/`tokenEnv` exchanged at the identity provider
    /// (`idpTokenEndpoint` or `idpIssuer`, `idpClientId`) for an ID-JAG,
    /// then the JWT bearer grant as `clientId`.
    EnterpriseManaged,
    /// Workload identity federation (`"workload_identity"`): the JWT
    /// bearer grant with the workload JWT from `tokenFile`/`tokenEnv`.
    WorkloadIdentity,
}

impl GrantSetting {
    /// `true` for a grant without a person (no `mcp login`).
    pub fn is_machine(self) -> bool {
        self != GrantSetting::AuthorizationCode
    }
}

/// Where a grant without a person finds its credentials (members of
/// the JSON `oauth` object, see the module docs): files and environment
/// variables are named, never a key or token itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GrantCredentials {
    /// The PEM private key of `private_key_jwt` (`privateKeyFile`): read
    /// at each token request, never written here.
    pub private_key_file: Option<String>,
    /// The algorithm the key signs with (`signingAlgorithm`: `ES256`,
    /// `RS256`), checked against the key.
    pub signing_algorithm: Option<String>,
    /// The file holding the ID token or workload JWT (`tokenFile`),
    /// re-read at each token request.
    pub token_file: Option<String>,
    /// The environment variable holding it (`tokenEnv`).
    pub token_env: Option<String>,
    /// The identity provider's token endpoint (`idpTokenEndpoint`).
    pub idp_token_endpoint: Option<String>,
    /// The identity provider's issuer, its token endpoint discovered
    /// (`idpIssuer`).
    pub idp_issuer: Option<String>,
    /// The client's id at the identity provider (`idpClientId`).
    pub idp_client_id: Option<String>,
    /// The environment variable holding its secret there
    /// (`idpClientSecretEnv`).
    pub idp_client_secret_env: Option<String>,
}

/// The OAuth settings of a remote entry (JSON `oauth`, see the module
/// docs). Its `Debug` output never shows the client secret.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthSettings {
    /// A pre-registered `client_id` (`clientId`, Cursor's `CLIENT_ID`).
    pub client_id: Option<String>,
    /// The client secret itself (Cursor's `CLIENT_SECRET`, normally a
    /// `${env:VAR}` reference).
    pub client_secret: Option<String>,
    /// The environment variable holding the client secret
    /// (`clientSecretEnv`).
    pub client_secret_env: Option<String>,
    /// A fixed loopback callback port (`callbackPort`).
    pub callback_port: Option<u16>,
    /// Scopes to ask for (`scopes`).
    pub scopes: Vec<String>,
    /// The account the tokens are stored under (`account`).
    pub account: Option<String>,
    /// Where the authorization server's metadata is read instead of
    /// being discovered (`authServerMetadataUrl`, Claude Code's spelling;
    /// see `mcp_auth::OAuthConfig::auth_server_metadata_url`).
    pub auth_server_metadata_url: Option<String>,
    /// The grant (`grant`): a person's login unless an extension grant is
    /// named.
    pub grant: GrantSetting,
    /// What the grant without a person is given (boxed: most entries
    /// have none).
    pub credentials: Box<GrantCredentials>,
    /// DPoP-bound tokens (`dpop`, RFC 9449): `None` leaves the default
    /// (on when the authorization server supports ES256; see
    /// `mcp_auth::OAuthConfig::dpop`), `Some(false)` turns them off.
    pub dpop: Option<bool>,
}

impl fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("client_secret_env", &self.client_secret_env)
            .field("callback_port", &self.callback_port)
            .field("scopes", &self.scopes)
            .field("account", &self.account)
            .field("auth_server_metadata_url", &self.auth_server_metadata_url)
            .field("grant", &self.grant)
            .field("credentials", &self.credentials)
            .field("dpop", &self.dpop)
            .finish()
    }
}

/// The `auth` and `oauth` members of a remote entry.
pub(super) fn parse_auth(
    obj: &Map<String, Value>,
    path: &str,
    expand_at: &dyn Fn(&str, &str) -> EntryResult<String>,
) -> EntryResult<(AuthMode, OAuthSettings)> {
    let field = |k: &str| join_key(path, k);
    let mut settings = OAuthSettings::default();
    let mode = match obj.get("auth") {
        None | Some(Value::Null) => AuthMode::Auto,
        Some(Value::String(s)) => match s.as_str() {
            "oauth" => AuthMode::OAuth,
            "headers" => AuthMode::Headers,
            "none" => AuthMode::None,
            other => {
                return Err((
                    field("auth"),
                    ConfigErrorKind::Invalid(format!(
                        "{other:?} is not \"oauth\", \"headers\" or \"none\""
                    )),
                ));
            }
        },
        Some(Value::Object(cursor)) => {
            read_oauth(cursor, &field("auth"), expand_at, &mut settings)?;
            AuthMode::OAuth
        }
        Some(v) => {
            return Err(wrong(
                &field("auth"),
                "\"oauth\", \"headers\", \"none\" or an object",
                v,
            ));
        }
    };
    match obj.get("oauth") {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => {
            read_oauth(o, &field("oauth"), expand_at, &mut settings)?;
            read_grant(o, &field("oauth"), expand_at, &mut settings)?;
        }
        Some(v) => return Err(wrong(&field("oauth"), "an object", v)),
    }
    Ok((mode, settings))
}

/// The members of an `oauth` object (or of Cursor's `auth` object) into
/// `settings`; each accepted under the spellings other hosts use.
fn read_oauth(
    o: &Map<String, Value>,
    path: &str,
    expand_at: &dyn Fn(&str, &str) -> EntryResult<String>,
    settings: &mut OAuthSettings,
) -> EntryResult<()> {
    fn find<'a>(
        o: &'a Map<String, Value>,
        names: &[&'static str],
    ) -> Option<(&'static str, &'a Value)> {
        names
            .iter()
            .find_map(|n| o.get(*n).filter(|v| !v.is_null()).map(|v| (*n, v)))
    }
    let string = |names: &[&'static str]| -> EntryResult<Option<String>> {
        match find(o, names) {
            None => Ok(None),
            Some((n, Value::String(s))) => expand_at(s, &join_key(path, n)).map(Some),
            Some((n, v)) => Err(wrong(&join_key(path, n), "a string", v)),
        }
    };
    if let Some(id) = string(&["clientId", "client_id", "CLIENT_ID"])? {
        settings.client_id = Some(id);
    }
    if let Some(secret) = string(&["clientSecret", "client_secret", "CLIENT_SECRET"])? {
        settings.client_secret = Some(secret);
    }
    if let Some(var) = string(&["clientSecretEnv", "client_secret_env"])? {
        settings.client_secret_env = Some(var);
    }
    if let Some(account) = string(&["account"])? {
        settings.account = Some(account);
    }
    if let Some(url) = string(&["authServerMetadataUrl", "auth_server_metadata_url"])? {
        let n = if o.contains_key("authServerMetadataUrl") {
            "authServerMetadataUrl"
        } else {
            "auth_server_metadata_url"
        };
        check_url(&url).map_err(|why| (join_key(path, n), ConfigErrorKind::BadUrl(why)))?;
        settings.auth_server_metadata_url = Some(url);
    }
    if let Some((n, v)) = find(o, &["callbackPort", "callback_port"]) {
        match v
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .filter(|p| *p > 0)
        {
            Some(p) => settings.callback_port = Some(p),
            None => return Err(wrong(&join_key(path, n), "a port number (1-65535)", v)),
        }
    }
    if let Some((n, v)) = find(o, &["dpop"]) {
        match v {
            Value::Bool(on) => settings.dpop = Some(*on),
            other => return Err(wrong(&join_key(path, n), "true or false", other)),
        }
    }
    if let Some((n, v)) = find(o, &["scopes", "scope"]) {
        let p = join_key(path, n);
        settings.scopes = match v {
            Value::String(s) => expand_at(s, &p)?
                .split_ascii_whitespace()
                .map(str::to_owned)
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => expand_at(s, &format!("{p}[{i}]")),
                    other => Err(wrong(&format!("{p}[{i}]"), "a string", other)),
                })
                .collect::<EntryResult<Vec<_>>>()?,
            other => return Err(wrong(&p, "a string or an array of strings", other)),
        };
    }
    Ok(())
}

/// The grant members of an `oauth` object (`grant` and what it needs),
/// each checked: a grant without a person must say who the client is and
/// where its credential is, or the entry is refused here rather than on
/// the first request.
fn read_grant(
    o: &Map<String, Value>,
    path: &str,
    expand_at: &dyn Fn(&str, &str) -> EntryResult<String>,
    settings: &mut OAuthSettings,
) -> EntryResult<()> {
    let string = |n: &'static str| -> EntryResult<Option<String>> {
        match o.get(n) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => expand_at(s, &join_key(path, n)).map(Some),
            Some(v) => Err(wrong(&join_key(path, n), "a string", v)),
        }
    };
    let invalid = |n: &str, why: String| (join_key(path, n), ConfigErrorKind::Invalid(why));
    settings.grant = match string("grant")?.as_deref() {
        None | Some("authorization_code") => GrantSetting::AuthorizationCode,
        Some("client_credentials") => GrantSetting::ClientCredentials,
        Some("enterprise_managed") => GrantSetting::EnterpriseManaged,
        Some("workload_identity") => GrantSetting::WorkloadIdentity,
        Some(other) => {
            return Err(invalid(
                "grant",
                format!(
                    "{other:?} is not \"authorization_code\", \"client_credentials\", \"enterprise_managed\" or \"workload_identity\""
                ),
            ));
        }
    };
    settings.credentials.private_key_file = string("privateKeyFile")?;
    settings.credentials.signing_algorithm = string("signingAlgorithm")?;
    if let Some(alg) = &settings.credentials.signing_algorithm
        && alg != "ES256"
        && alg != "RS256"
    {
        return Err(invalid(
            "signingAlgorithm",
            format!("{alg:?} is not \"ES256\" or \"RS256\""),
        ));
    }
    settings.credentials.token_file = string("tokenFile")?;
    settings.credentials.token_env = string("tokenEnv")?;
    settings.credentials.idp_token_endpoint = string("idpTokenEndpoint")?;
    settings.credentials.idp_issuer = string("idpIssuer")?;
    settings.credentials.idp_client_id = string("idpClientId")?;
    settings.credentials.idp_client_secret_env = string("idpClientSecretEnv")?;
    for (n, url) in [
        ("idpTokenEndpoint", &settings.credentials.idp_token_endpoint),
        ("idpIssuer", &settings.credentials.idp_issuer),
    ] {
        if let Some(url) = url {
            check_url(url).map_err(|why| (join_key(path, n), ConfigErrorKind::BadUrl(why)))?;
        }
    }
    let has_secret = settings.client_secret.is_some() || settings.client_secret_env.is_some();
    let has_token =
        settings.credentials.token_file.is_some() || settings.credentials.token_env.is_some();
    let need = |ok: bool, what: &str| -> EntryResult<()> {
        if ok {
            Ok(())
        } else {
            Err(invalid(
                "grant",
                format!(
                    "grant {:?} needs {what}",
                    string("grant").ok().flatten().unwrap_or_default()
                ),
            ))
        }
    };
    match settings.grant {
        GrantSetting::ClientCredentials | GrantSetting::EnterpriseManaged => {
            need(settings.client_id.is_some(), "clientId")?;
            need(
                has_secret || settings.credentials.private_key_file.is_some(),
                "clientSecretEnv or privateKeyFile",
            )?;
            if settings.grant == GrantSetting::EnterpriseManaged {
                need(has_token, "tokenFile or tokenEnv (the ID token)")?;
                need(
                    settings.credentials.idp_token_endpoint.is_some()
                        || settings.credentials.idp_issuer.is_some(),
                    "idpTokenEndpoint or idpIssuer",
                )?;
            }
        }
        GrantSetting::WorkloadIdentity => {
            need(has_token, "tokenFile or tokenEnv (the workload JWT)")?
        }
        GrantSetting::AuthorizationCode => {}
    }
    Ok(())
}
