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

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mcp_auth::{
    AuthError, AuthorizationPrompt, CallbackParams, MemoryStore, OAuth, OAuthConfig, UserAgent,
};
use mcp_client::{Client, ClientOptions};
use mcp_tests::oidc::{OidcPeers, browse};
use mcp_transport_http::{FetchOptions, HttpConfig, HttpMode, HttpTransport, ProxySetting};

/// Access token lifetime given to the provider, in seconds.
const TTL_SECS: u64 = 3;
/// Never listened on: the headless agent stops at the redirect to it.
const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

fn fetch_options() -> FetchOptions {
    FetchOptions::default().with_proxy(ProxySetting::None)
}

/// A user at a browser, headless ([`browse`]): the redirect's parameters
/// are handed back without following it.
#[derive(Debug, Default)]
struct FormFiller {
    /// The forms submitted, by their hidden `prompt` (`login`, `consent`).
    submitted: Mutex<Vec<String>>,
}

#[async_trait]
impl UserAgent for FormFiller {
    async fn authorize(&self, prompt: &AuthorizationPrompt) -> Result<CallbackParams, AuthError> {
        let mut forms = Vec::new();
        let result = browse(&prompt.url, &prompt.redirect_uri, &mut forms).await;
        self.submitted.lock().unwrap().extend(forms);
        let redirect = result.map_err(AuthError::user_agent)?;
        CallbackParams::from_url(&redirect)
            .ok_or_else(|| AuthError::user_agent("unreadable redirect"))
    }
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
    let Some(peers) = OidcPeers::start(TTL_SECS) else {
        return;
    };
    let agent = Arc::new(FormFiller::default());
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
    let s = peers.stats().await;
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
    let s = peers.stats().await;
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
    let s = peers.stats().await;
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
