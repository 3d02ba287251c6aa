//! OAuth end to end against a real authorization server: `oidc-provider`
//! (npm) protecting an MCP server of the TypeScript SDK, both started by
//! `tests/peers/oidc_mcp.mjs` on 127.0.0.1. The flow, as a user would live
//! it: 401 → discovery (RFC 9728, then the provider's OpenID configuration)
//! → Dynamic Client Registration → authorization with PKCE and a resource
//! indicator, the provider's own login and consent forms submitted over
//! HTTP by a headless user agent → RFC 9207 `iss` checked → token →
//! `tools/call` → the short-lived access token expires → refresh (the
//! refresh token rotated) → `tools/call` again → once more, which only works
//! with the rotated refresh token.
//!
//! Skips, saying so, when node or `oidc-provider` is not installed (fails
//! under `MCP_PEERS_REQUIRED=1`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use mcp_auth::{
    AuthError, AuthorizationPrompt, CallbackParams, MemoryStore, OAuth, OAuthConfig, UserAgent,
};
use mcp_client::{Client, ClientOptions};
use mcp_tests::peers::{node_bin, node22_bin, peers_dir, peers_required};
use mcp_transport_http::{
    FetchOptions, Fetcher, HttpConfig, HttpMode, HttpTransport, ProxySetting,
};
use serde_json::Value;

/// Access token lifetime given to the provider, in seconds.
const TTL_SECS: u64 = 3;
/// Never listened on: the headless agent stops at the redirect to it.
const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

/// The node process of `oidc_mcp.mjs`, killed when dropped.
struct Peers {
    child: Child,
    issuer: String,
    mcp: String,
    stats: String,
}

impl Drop for Peers {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `oidc_mcp.mjs`, or `None` (after saying why) when its peers are
/// not installed.
fn start_peers() -> Option<Peers> {
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
        .env("ACCESS_TOKEN_TTL", TTL_SECS.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn node oidc_mcp.mjs");
    let stdout = child.stdout.take().unwrap();
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
    let line = rx.recv_timeout(Duration::from_secs(60));
    let mut peers = Peers {
        child,
        issuer: String::new(),
        mcp: String::new(),
        stats: String::new(),
    };
    let line = line.expect("oidc_mcp.mjs printed its addresses");
    let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    peers.issuer = v["issuer"].as_str().unwrap().to_owned();
    peers.mcp = v["mcp"].as_str().unwrap().to_owned();
    peers.stats = v["stats"].as_str().unwrap().to_owned();
    Some(peers)
}

fn fetch_options() -> FetchOptions {
    FetchOptions::default().with_proxy(ProxySetting::None)
}

/// A user at a browser, headless: follows the provider's redirects, keeps
/// its cookies, fills and submits each form it is shown (the login form:
/// any login and password; the consent form), and stops at the redirect to
/// the client's redirect URI, whose parameters it hands back.
#[derive(Debug)]
struct FormFiller {
    fetcher: Fetcher,
    /// The forms submitted, by their hidden `prompt` (`login`, `consent`).
    submitted: Mutex<Vec<String>>,
}

impl FormFiller {
    fn failed(problem: impl Into<String>) -> AuthError {
        AuthError::user_agent(problem)
    }
}

#[async_trait]
impl UserAgent for FormFiller {
    async fn authorize(&self, prompt: &AuthorizationPrompt) -> Result<CallbackParams, AuthError> {
        let mut cookies: BTreeMap<String, String> = BTreeMap::new();
        let mut url = prompt.url.clone();
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
            let response = self
                .fetcher
                .fetch(request.body(body).unwrap())
                .await
                .map_err(|e| Self::failed(format!("{url}: {e}")))?;
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
                    .ok_or_else(|| Self::failed(format!("{status} without Location")))?;
                let next = absolute(&url, location);
                if next.starts_with(&prompt.redirect_uri) {
                    return CallbackParams::from_url(&next)
                        .ok_or_else(|| Self::failed("unreadable redirect"));
                }
                url = next;
                continue;
            }
            let html = String::from_utf8_lossy(response.body()).into_owned();
            if status != 200 {
                return Err(Self::failed(format!("{status} from {url}: {html}")));
            }
            let (action, fields) = read_form(&html)
                .ok_or_else(|| Self::failed(format!("no form at {url}: {html}")))?;
            let kind = fields
                .iter()
                .find(|(k, _)| k == "prompt")
                .map_or("?", |(_, v)| v.as_str());
            self.submitted.lock().unwrap().push(kind.to_owned());
            form = Some(
                fields
                    .iter()
                    .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                    .collect::<Vec<_>>()
                    .join("&"),
            );
            url = absolute(&url, &action);
        }
        Err(Self::failed("more than 20 steps"))
    }
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

async fn stats(peers: &Peers) -> Value {
    let fetcher = Fetcher::new(fetch_options());
    let request = http::Request::get(&peers.stats).body(Bytes::new()).unwrap();
    let response = fetcher.fetch(request).await.unwrap();
    serde_json::from_slice(response.body()).unwrap()
}

async fn whoami(client: &Client) -> String {
    let result = client
        .call_tool(
            "whoami",
            serde_json::json!({}),
            mcp_transport::RequestOptions::default().with_timeout(Duration::from_secs(30)),
        )
        .await
        .expect("tools/call whoami");
    let content = serde_json::to_value(&result.content).unwrap();
    content[0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_call_expiry_refresh_with_rotation_call_again() {
    let Some(peers) = start_peers() else { return };
    let agent = Arc::new(FormFiller {
        fetcher: Fetcher::new(fetch_options()),
        submitted: Mutex::new(Vec::new()),
    });
    let config = OAuthConfig::new(peers.mcp.clone(), REDIRECT_URI)
        .with_client_name("mcp-tests oidc-provider e2e")
        .with_fetch(fetch_options());
    let oauth = OAuth::new(config, Arc::new(MemoryStore::new()), agent.clone()).unwrap();
    let http = HttpConfig::new(peers.mcp.clone())
        .with_proxy(ProxySetting::None)
        .with_auth_provider(oauth.provider());
    let transport = HttpTransport::connect(http, HttpMode::Streamable)
        .await
        .unwrap();
    let client = Client::connect(transport, ClientOptions::new("mcp-tests", "0.0.0"))
        .await
        .expect("connected after logging in");

    let first = whoami(&client).await;
    let s = stats(&peers).await;
    assert_eq!(s["registrations"], 1, "{s}");
    assert_eq!(s["authorization_code"], 1, "{s}");
    assert_eq!(s["refresh_token"], 0, "{s}");
    assert!(
        s["rejected"].as_u64().unwrap() >= 1,
        "the first request was refused: {s}"
    );
    let forms = agent.submitted.lock().unwrap().clone();
    assert_eq!(forms, ["login", "consent"], "the provider's own forms");

    // The access token expires; the next call refreshes it (ahead of
    // expiry, or on the 401), and the provider rotates the refresh token.
    tokio::time::sleep(Duration::from_millis(TTL_SECS * 1000 + 500)).await;
    let second = whoami(&client).await;
    let s = stats(&peers).await;
    assert_eq!(s["authorization_code"], 1, "no second login: {s}");
    assert_eq!(s["refresh_token"], 1, "{s}");
    assert_eq!(s["refresh_tokens_consumed"], 1, "rotated: {s}");
    let (client_1, token_1) = first.split_once(' ').unwrap();
    let (client_2, token_2) = second.split_once(' ').unwrap();
    assert_eq!(client_1, client_2);
    assert_ne!(token_1, token_2, "a new access token");

    // Again: only the rotated refresh token is still good (the first one
    // was consumed), so this proves the client kept the new one.
    tokio::time::sleep(Duration::from_millis(TTL_SECS * 1000 + 500)).await;
    let third = whoami(&client).await;
    let s = stats(&peers).await;
    assert_eq!(s["authorization_code"], 1, "{s}");
    assert_eq!(s["refresh_token"], 2, "{s}");
    assert_eq!(s["refresh_tokens_consumed"], 2, "{s}");
    assert_ne!(third.split_once(' ').unwrap().1, token_2);
    assert_eq!(agent.submitted.lock().unwrap().len(), 2, "one login only");
    assert!(
        peers.issuer.starts_with("http://127.0.0.1:"),
        "{}",
        peers.issuer
    );
    client.close().await.ok();
}
