//! A scriptable MCP server and authorization server on one fault server
//! (127.0.0.1), and a client wired to it through `mcp-auth`.
#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::{Arc, Mutex, OnceLock};

use fault_http::{FaultServer, Recorded, Reply, tools_result};
use mcp_auth::{HeadlessRedirect, MemoryStore, OAuth, OAuthConfig};
use mcp_transport::{RequestOptions, Transport, TransportError};
use mcp_transport_http::{
    FetchOptions, Fetcher, HttpConfig, HttpMode, HttpTransport, ProxySetting,
};
use serde_json::{Value, json};

pub(crate) const REDIRECT: &str = "http://localhost:3000/callback";

/// How the mock behaves.
#[derive(Debug, Clone)]
pub(crate) struct Script {
    /// Overrides the PRM `resource` (default `<base>/mcp`).
    pub prm_resource: Option<String>,
    /// PRM `scopes_supported`.
    pub prm_scopes: Option<Vec<&'static str>>,
    /// Overrides the metadata `issuer` (default `<base>`).
    pub issuer: Option<String>,
    /// The metadata advertises `authorization_response_iss_parameter_supported`.
    pub advertise_iss: bool,
    /// What `iss` the authorization response carries: `None` none, `Some("")`
    /// the right one, else this value.
    pub send_iss: Option<&'static str>,
    /// Token endpoint auth methods advertised.
    pub auth_methods: Vec<&'static str>,
    /// The AS `scopes_supported`.
    pub as_scopes: Option<Vec<&'static str>>,
    /// `expires_in` of issued tokens.
    pub expires_in: u64,
    /// Issue refresh tokens.
    pub refresh_tokens: bool,
    /// How the refresh grant is answered: 200, 400 (invalid_grant) or 500.
    pub refresh_status: u16,
    /// The scope `tools/call` needs (403 `insufficient_scope` without it).
    pub call_scope: Option<&'static str>,
    /// `tools/call` is refused whatever the token.
    pub never_grant: bool,
    /// A refresh answer carries no new refresh token.
    pub refresh_without_rotation: bool,
    /// The `error` of a refused refresh (400). Default `invalid_grant`.
    pub refresh_error: &'static str,
    /// The `error_description` of a refused refresh (400).
    pub refresh_error_description: Option<&'static str>,
    /// The `scope` in the 401 challenge.
    pub challenge_scope: Option<&'static str>,
    /// No PRM and no AS metadata: 2025-03-26 fallback endpoints.
    pub legacy: bool,
    /// No registration endpoint.
    pub no_registration: bool,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            prm_resource: None,
            prm_scopes: None,
            issuer: None,
            advertise_iss: false,
            send_iss: None,
            auth_methods: vec!["none"],
            as_scopes: None,
            expires_in: 3600,
            refresh_tokens: false,
            refresh_status: 200,
            call_scope: None,
            never_grant: false,
            refresh_without_rotation: false,
            refresh_error: "invalid_grant",
            refresh_error_description: None,
            challenge_scope: None,
            legacy: false,
            no_registration: false,
        }
    }
}

/// What the mock issued: each access token with the scope of the
/// authorization it came from.
#[derive(Debug, Default)]
pub(crate) struct Issued {
    pub tokens: Vec<(String, String)>,
    pub next: u32,
    /// The `scope` of the last authorization request.
    pub last_scope: String,
}

pub(crate) struct Mock {
    pub server: FaultServer,
    pub base: String,
    pub issued: Arc<Mutex<Issued>>,
}

fn query(r: &Recorded) -> Vec<(String, String)> {
    url::form_urlencoded::parse(r.uri.query().unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

pub(crate) fn form(r: &Recorded) -> Vec<(String, String)> {
    url::form_urlencoded::parse(&r.body).into_owned().collect()
}

pub(crate) fn get<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

impl Mock {
    pub(crate) async fn start(script: Script) -> Mock {
        Mock::start_with(script, |_, _| None).await
    }

    /// A mock whose replies `over` may replace (given the base URL and the
    /// request; `None`: the scripted reply).
    pub(crate) async fn start_with(
        script: Script,
        over: impl Fn(&str, &Recorded) -> Option<Reply> + Send + Sync + 'static,
    ) -> Mock {
        let base_cell = Arc::new(OnceLock::<String>::new());
        let issued = Arc::new(Mutex::new(Issued::default()));
        let (b, iss) = (base_cell.clone(), issued.clone());
        let server = FaultServer::start(move |r| {
            let base = b.get().unwrap();
            over(base, r).unwrap_or_else(|| handle(&script, base, &iss, r))
        })
        .await
        .unwrap();
        let base = format!("http://127.0.0.1:{}", server.addr().port());
        base_cell.set(base.clone()).unwrap();
        Mock {
            server,
            base,
            issued,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The recorded requests to `path`.
    pub(crate) fn to(&self, path: &str) -> Vec<Recorded> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| r.path() == path)
            .collect()
    }

    pub(crate) fn authorize_queries(&self) -> Vec<Vec<(String, String)>> {
        self.to("/authorize").iter().map(query).collect()
    }

    pub(crate) fn config(&self) -> OAuthConfig {
        OAuthConfig::new(self.url(), REDIRECT)
            .with_client_name("mcp-auth-tests")
            .with_fetch(fetch_options())
    }

    pub(crate) fn oauth(&self, config: OAuthConfig) -> OAuth {
        let agent = Arc::new(HeadlessRedirect::new(Fetcher::new(fetch_options())));
        OAuth::new(config, Arc::new(MemoryStore::new()), agent).unwrap()
    }

    pub(crate) async fn connect(&self, oauth: &OAuth) -> HttpTransport {
        let config = HttpConfig::new(self.url())
            .with_proxy(ProxySetting::None)
            .with_listen_after_initialized(false)
            .with_auth_provider(oauth.provider());
        HttpTransport::connect(config, HttpMode::Streamable)
            .await
            .unwrap()
    }
}

pub(crate) fn fetch_options() -> FetchOptions {
    FetchOptions::default().with_proxy(ProxySetting::None)
}

pub(crate) async fn call(t: &HttpTransport, method: &str) -> Result<Value, TransportError> {
    t.request(method, Some(&json!({})), RequestOptions::default())
        .await
        .map(|r| r.to_value().unwrap())
}

fn handle(script: &Script, base: &str, issued: &Mutex<Issued>, r: &Recorded) -> Reply {
    let issuer = script.issuer.clone().unwrap_or_else(|| base.to_owned());
    match r.path() {
        "/.well-known/oauth-protected-resource/mcp" if !script.legacy => {
            let resource = script
                .prm_resource
                .clone()
                .unwrap_or_else(|| format!("{base}/mcp"));
            let mut prm = json!({"resource": resource, "authorization_servers": [base]});
            if let Some(s) = &script.prm_scopes {
                prm["scopes_supported"] = json!(s);
            }
            Reply::json(prm.to_string())
        }
        "/.well-known/oauth-authorization-server" if !script.legacy => {
            let mut m = json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": script.auth_methods,
                "authorization_response_iss_parameter_supported": script.advertise_iss,
            });
            if !script.no_registration {
                m["registration_endpoint"] = json!(format!("{base}/register"));
            }
            if let Some(s) = &script.as_scopes {
                m["scopes_supported"] = json!(s);
            }
            Reply::json(m.to_string())
        }
        "/register" => Reply::json(
            json!({"client_id": "dcr-client", "client_secret": "dcr-secret-value",
                   "redirect_uris": [REDIRECT]})
            .to_string(),
        )
        .with_status(201),
        "/authorize" => {
            let q = query(r);
            issued.lock().unwrap().last_scope = get(&q, "scope").unwrap_or("").to_owned();
            let mut loc = url::Url::parse(get(&q, "redirect_uri").unwrap_or(REDIRECT)).unwrap();
            {
                let mut p = loc.query_pairs_mut();
                p.append_pair("code", "code-secret-1234");
                if let Some(s) = get(&q, "state") {
                    p.append_pair("state", s);
                }
                match script.send_iss {
                    Some("") => {
                        p.append_pair("iss", &issuer);
                    }
                    Some(other) => {
                        p.append_pair("iss", other);
                    }
                    None => {}
                }
            }
            Reply::status(302).header("location", loc.as_str())
        }
        "/token" => {
            let f = form(r);
            let grant = get(&f, "grant_type").unwrap_or("");
            if grant == "refresh_token" && script.refresh_status != 200 {
                return if script.refresh_status == 400 {
                    let description = script.refresh_error_description.unwrap_or("expired");
                    Reply::json(
                        json!({"error": script.refresh_error, "error_description": description})
                            .to_string(),
                    )
                    .with_status(400)
                } else {
                    Reply::status(script.refresh_status).body("down")
                };
            }
            let mut is = issued.lock().unwrap();
            is.next += 1;
            let n = is.next;
            let scope = match grant {
                "refresh_token" => is.tokens.last().map(|t| t.1.clone()).unwrap_or_default(),
                _ => is.last_scope.clone(),
            };
            is.tokens.push((format!("access-secret-{n}"), scope));
            let mut body = json!({
                "access_token": format!("access-secret-{n}"),
                "token_type": "Bearer",
                "expires_in": script.expires_in,
            });
            if script.refresh_tokens
                && !(grant == "refresh_token" && script.refresh_without_rotation)
            {
                body["refresh_token"] = json!(format!("refresh-secret-{n}"));
            }
            Reply::json(body.to_string())
        }
        "/mcp" => mcp(script, base, issued, r),
        _ => Reply::status(404),
    }
}

/// The MCP endpoint: 401 without a token; `tools/call` needs the token of
/// an authorization that asked for `call_scope`.
fn mcp(script: &Script, base: &str, issued: &Mutex<Issued>, r: &Recorded) -> Reply {
    let Some(token) = r
        .header("authorization")
        .and_then(|h| h.strip_prefix("Bearer "))
    else {
        let mut challenge = if script.legacy {
            "Bearer".to_owned()
        } else {
            format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#)
        };
        if let Some(s) = script.challenge_scope {
            challenge.push_str(&format!(r#", scope="{s}""#));
        }
        return Reply::status(401).header("www-authenticate", &challenge);
    };
    if !token.starts_with("access-secret-") {
        return Reply::status(401).header("www-authenticate", r#"Bearer error="invalid_token""#);
    }
    let id = r.rpc_id().unwrap_or_default();
    if r.rpc_method().as_deref() == Some("tools/call")
        && let Some(needed) = script.call_scope
    {
        let granted = issued
            .lock()
            .unwrap()
            .tokens
            .iter()
            .find(|(t, _)| t == token)
            .is_some_and(|(_, scope)| scope.split(' ').any(|s| s == needed))
            && !script.never_grant;
        if granted {
            return Reply::json(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#
            ));
        }
        return Reply::status(403).header(
            "www-authenticate",
            &format!(r#"Bearer error="insufficient_scope", scope="{needed}""#),
        );
    }
    Reply::json(tools_result(&id))
}
