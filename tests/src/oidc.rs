//! A real authorization server protecting a real MCP server, for the
//! OAuth end-to-end tests (feature `oidc`): `tests/peers/oidc_mcp.mjs`
//! (`oidc-provider` and a TypeScript SDK server, on 127.0.0.1), and a
//! person at a browser played over HTTP ([`browse`]): follow redirects,
//! keep cookies, fill in and submit the provider's login and consent
//! forms, stop at the redirect back to the client.

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bytes::Bytes;
use mcp_transport_http::{FetchOptions, Fetcher, ProxySetting};
use serde_json::Value;

use crate::peers::{node_bin, node22_bin, peers_dir, peers_required};

/// The node process of `oidc_mcp.mjs`, killed when dropped.
#[derive(Debug)]
pub struct OidcPeers {
    child: Child,
    /// The authorization server's issuer, `http://127.0.0.1:PORT`.
    pub issuer: String,
    /// The MCP server's URL, `http://127.0.0.1:PORT/mcp`.
    pub mcp: String,
    /// The counters of what happened (`GET` it: [`OidcPeers::stats`]).
    pub stats: String,
}

impl Drop for OidcPeers {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl OidcPeers {
    /// Starts `oidc_mcp.mjs` with access tokens living `ttl_secs`, or
    /// `None` (after saying why) when node or its packages are not
    /// installed. Panics under `MCP_PEERS_REQUIRED=1` when they are not,
    /// or when the peer does not start.
    pub fn start(ttl_secs: u64) -> Option<OidcPeers> {
        OidcPeers::start_with(ttl_secs, &[])
    }

    /// [`start`](Self::start) with more environment for the script (e.g.
    /// `MACHINE_CLIENT`, a client_credentials client with
    /// `private_key_jwt`; see `oidc_mcp.mjs`).
    pub fn start_with(ttl_secs: u64, env: &[(&str, &str)]) -> Option<OidcPeers> {
        let dir = peers_dir();
        let node = node22_bin().or_else(node_bin);
        let installed = dir
            .join("node_modules/oidc-provider/package.json")
            .is_file()
            && dir
                .join("node_modules/@modelcontextprotocol/sdk/package.json")
                .is_file();
        let Some(node) = node.filter(|_| installed) else {
            let msg = "peer not installed: node and oidc-provider (run tests/peers/setup.sh)";
            assert!(!peers_required(), "{msg}");
            eprintln!("skipped: {msg}");
            return None;
        };
        let mut child = Command::new(node)
            .arg(dir.join("oidc_mcp.mjs"))
            .current_dir(&dir)
            .env("ACCESS_TOKEN_TTL", ttl_secs.to_string())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn node oidc_mcp.mjs: {e}"));
        let Some(stdout) = child.stdout.take() else {
            panic!("no stdout of oidc_mcp.mjs");
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // The provider logs to stdout too: keep reading (onto stderr) so
            // that its writes never fail on a closed pipe.
            for line in reader.lines().map_while(Result::ok) {
                eprintln!("oidc_mcp: {line}");
            }
        });
        let mut peers = OidcPeers {
            child,
            issuer: String::new(),
            mcp: String::new(),
            stats: String::new(),
        };
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("oidc_mcp.mjs printed no addresses: {e}"));
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
        peers.issuer = field("issuer");
        peers.mcp = field("mcp");
        peers.stats = field("stats");
        Some(peers)
    }

    /// The peer's counters: tokens issued per grant
    /// (`authorization_code`, `refresh_token`), `refresh_tokens_consumed`,
    /// `registrations`, `rejected` (refused MCP requests), `revoked`.
    pub async fn stats(&self) -> Value {
        let request = http::Request::get(&self.stats)
            .body(Bytes::new())
            .unwrap_or_else(|e| panic!("{e}"));
        let response = fetcher()
            .fetch(request)
            .await
            .unwrap_or_else(|e| panic!("GET stats: {e}"));
        serde_json::from_slice(response.body()).unwrap_or_else(|e| panic!("stats: {e}"))
    }
}

/// A fetcher that never goes through a proxy (everything is on loopback).
pub fn fetcher() -> Fetcher {
    Fetcher::new(FetchOptions::default().with_proxy(ProxySetting::None))
}

/// A person at a browser, headless: opens `url`, follows redirects, keeps
/// cookies, fills in and submits each form shown (the login form: any
/// login and password; the consent form), until a redirect to a URL that
/// starts with `redirect_uri`, which it returns without following. The
/// forms submitted are named in `forms` (by their hidden `prompt`).
///
/// Errors: a step that is neither a redirect nor a page with a form.
pub async fn browse(
    url: &str,
    redirect_uri: &str,
    forms: &mut Vec<String>,
) -> Result<String, String> {
    walk(url, Some(redirect_uri), None, forms).await
}

/// A person entering a device login's code (RFC 8628): opens
/// `verification_uri`, types `user_code` into the provider's form, then
/// submits the login and consent forms as [`browse`] does, until a page
/// with no form (the provider's "you may close this window"), whose HTML
/// it returns.
///
/// Errors: a step that is neither a redirect nor a page.
pub async fn browse_device(
    verification_uri: &str,
    user_code: &str,
    forms: &mut Vec<String>,
) -> Result<String, String> {
    walk(verification_uri, None, Some(user_code), forms).await
}

/// Follows redirects and submits forms from `url`: until a redirect to
/// `redirect_uri` (returned) or, without one, a page with no form (its
/// HTML returned). A `user_code` field gets `user_code`.
async fn walk(
    url: &str,
    redirect_uri: Option<&str>,
    user_code: Option<&str>,
    forms: &mut Vec<String>,
) -> Result<String, String> {
    let fetcher = fetcher();
    let mut cookies: BTreeMap<String, String> = BTreeMap::new();
    let mut url = url.to_owned();
    let mut form: Option<String> = None;
    for _ in 0..20 {
        let mut request = http::Request::builder().uri(&url);
        request = match &form {
            Some(_) => request
                .method("POST")
                .header("content-type", "application/x-www-form-urlencoded"),
            None => request.method("GET"),
        };
        if !cookies.is_empty() {
            let jar: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
            request = request.header("cookie", jar.join("; "));
        }
        let body = Bytes::from(form.take().unwrap_or_default());
        let request = request.body(body).map_err(|e| e.to_string())?;
        let response = fetcher
            .fetch(request)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        for value in response.headers().get_all("set-cookie") {
            let text = value.to_str().unwrap_or("");
            let pair = text.split(';').next().unwrap_or("");
            if let Some((name, value)) = pair.split_once('=') {
                if value.is_empty() {
                    cookies.remove(name.trim());
                } else {
                    cookies.insert(name.trim().to_owned(), value.to_owned());
                }
            }
        }
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| format!("{status} without Location"))?;
            let next = absolute(&url, location);
            if redirect_uri.is_some_and(|r| next.starts_with(r)) {
                return Ok(next);
            }
            url = next;
            continue;
        }
        let html = String::from_utf8_lossy(response.body()).into_owned();
        if status != 200 {
            return Err(format!("{status} from {url}: {html}"));
        }
        let Some((action, mut fields)) = read_form(&html) else {
            return match redirect_uri {
                None => Ok(html),
                Some(_) => Err(format!("no form at {url}: {html}")),
            };
        };
        let mut kind = fields
            .iter()
            .find(|(k, _)| k == "prompt")
            .map_or("?", |(_, v)| v.as_str())
            .to_owned();
        if let Some(code) = user_code {
            for (name, value) in &mut fields {
                if name == "user_code" {
                    code.clone_into(value);
                    kind = "user_code".to_owned();
                }
            }
        }
        forms.push(kind);
        form = Some(
            fields
                .iter()
                .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                .collect::<Vec<_>>()
                .join("&"),
        );
        url = absolute(&url, &action);
    }
    Err("more than 20 steps".into())
}

/// `location` resolved against `base` (absolute, or a path on its origin).
fn absolute(base: &str, location: &str) -> String {
    if location.starts_with("http://") || location.starts_with("https://") {
        return location.to_owned();
    }
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let origin_end = base[after_scheme..]
        .find('/')
        .map_or(base.len(), |i| after_scheme + i);
    format!("{}{location}", &base[..origin_end])
}

/// The first form of `html`: its action and its fields, the text inputs
/// filled in (`login`: a user name, `password`: anything, as the
/// provider's development login accepts).
fn read_form(html: &str) -> Option<(String, Vec<(String, String)>)> {
    let start = html.find("<form")?;
    let end = start + html[start..].find("</form>")?;
    let form = &html[start..end];
    let action = unescape(&attribute(form, "action")?);
    let mut fields = Vec::new();
    for input in form.split("<input").skip(1) {
        let tag = &input[..input.find('>').unwrap_or(input.len())];
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        let value = match attribute(tag, "value") {
            Some(v) => unescape(&v),
            None if name == "password" => "any-password".to_owned(),
            None => "alice".to_owned(),
        };
        fields.push((name, value));
    }
    Some((action, fields))
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_owned())
}

fn unescape(s: &str) -> String {
    s.replace("&#x2F;", "/")
        .replace("&#47;", "/")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
