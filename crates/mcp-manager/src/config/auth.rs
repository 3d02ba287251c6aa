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
        Some(Value::Object(o)) => read_oauth(o, &field("oauth"), expand_at, &mut settings)?,
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
