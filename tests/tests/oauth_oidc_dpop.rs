//! A DPoP-bound session end to end (RFC 9449, the MCP DPoP extension):
//! `oidc-provider` (npm) with DPoP on and a nonce required at its token
//! endpoint, protecting an MCP server of the TypeScript SDK that accepts
//! DPoP-bound tokens only and checks every proof in full (signature,
//! `typ`, `htm`, `htu`, `iat`, a `jti` never seen before, `ath`, the key
//! thumbprint against the token's `cnf.jkt`) and wants a nonce of its own
//! (`tests/peers/oidc_mcp.mjs`, on 127.0.0.1). The client runs the client
//! credentials grant (`private_key_jwt`), so no browser is involved: 401 →
//! discovery → a token request with a proof, refused for the nonce, sent
//! again with it → a DPoP token → MCP requests refused for the server's
//! nonce, sent again with it → `tools/call`; the short-lived token expires
//! → a new bound token → `tools/call` again, with the nonce learnt before.
//!
//! A second test runs a person's login the same way (the provider's own
//! login and consent forms submitted over HTTP): the code is redeemed with
//! a proof, and the refresh of the expired bound token carries a proof of
//! the same key (the provider binds a public client's refresh token to
//! it).
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
    AuthError, AuthorizationPrompt, CallbackParams, ClientAuthentication, ConfidentialClient,
    Grant, MemoryStore, OAuth, OAuthConfig, PrivateKey, UserAgent,
};
use mcp_client::{Client, ClientOptions};
use mcp_tests::oidc::{OidcPeers, browse};
use mcp_transport_http::{FetchOptions, HttpConfig, HttpMode, HttpTransport, ProxySetting};

/// Access token lifetime given to the provider, in seconds.
const TTL_SECS: u64 = 3;
const CLIENT_ID: &str = "mcp-tests-dpop";

fn key_path(name: &str) -> String {
    format!(
        "{}/../crates/mcp-auth/tests/keys/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
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
async fn a_dpop_bound_session_against_oidc_provider() {
    let public_pem = std::fs::read_to_string(key_path("ec-p256.pub.pem")).unwrap();
    let machine = serde_json::json!({"client_id": CLIENT_ID, "public_key_pem": public_pem});
    let Some(peers) = OidcPeers::start_with(
        TTL_SECS,
        &[("MACHINE_CLIENT", &machine.to_string()), ("DPOP", "1")],
    ) else {
        return;
    };
    let key = PrivateKey::from_pem_file(key_path("ec-p256.pem")).unwrap();
    let grant = Grant::ClientCredentials(ConfidentialClient::new(
        CLIENT_ID,
        ClientAuthentication::PrivateKeyJwt(Arc::new(key)),
    ));
    let extension = grant.extension();
    let fetch = FetchOptions::default().with_proxy(ProxySetting::None);
    let config = OAuthConfig::for_grant(peers.mcp.clone(), grant).with_fetch(fetch);
    assert!(config.dpop, "DPoP is on by default");
    let oauth = OAuth::for_grant(config, Arc::new(MemoryStore::new())).unwrap();
    let http = HttpConfig::new(peers.mcp.clone())
        .with_proxy(ProxySetting::None)
        .with_auth_provider(oauth.provider());
    let transport = HttpTransport::connect(http, HttpMode::Streamable)
        .await
        .unwrap();
    let options =
        ClientOptions::new("mcp-tests dpop", "0").with_extension(extension, serde_json::json!({}));
    let client = Client::connect(transport, options).await.unwrap();

    let first = whoami(&client).await;
    assert!(first.starts_with(&format!("{CLIENT_ID} ")), "{first}");
    let stats = peers.stats().await;
    assert_eq!(stats["dpop_refused"], serde_json::json!([]), "{stats}");
    assert_eq!(stats["client_credentials"], 1, "{stats}");
    assert_eq!(
        stats["dpop_nonce_demands"], 1,
        "one nonce demand, then the nonce is remembered: {stats}"
    );
    // initialize, notifications/initialized, tools/call: each with a proof
    // the server checked.
    let proofs = stats["dpop_proofs"].as_u64().unwrap();
    assert!(proofs >= 3, "{stats}");

    // The token expires; a new bound token (a new token request with a
    // proof and the provider's nonce) and a fresh proof for the call.
    tokio::time::sleep(Duration::from_secs(TTL_SECS + 1)).await;
    let second = whoami(&client).await;
    assert!(second.starts_with(&format!("{CLIENT_ID} ")), "{second}");
    assert_ne!(first, second, "a new token after expiry");
    let stats = peers.stats().await;
    assert_eq!(stats["dpop_refused"], serde_json::json!([]), "{stats}");
    assert_eq!(stats["client_credentials"], 2, "{stats}");
    assert_eq!(stats["dpop_nonce_demands"], 1, "{stats}");
    assert!(stats["dpop_proofs"].as_u64().unwrap() > proofs, "{stats}");
    assert_eq!(
        stats["rejected"], 1,
        "only the first, tokenless request: {stats}"
    );
    client.close().await.unwrap();
}

/// Never listened on: the headless agent stops at the redirect to it.
const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

/// A user at a browser, headless ([`browse`]).
#[derive(Debug, Default)]
struct FormFiller {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dpop_bound_login_and_refresh_against_oidc_provider() {
    let Some(peers) = OidcPeers::start_with(TTL_SECS, &[("DPOP", "1")]) else {
        return;
    };
    let agent = Arc::new(FormFiller::default());
    let config = OAuthConfig::new(peers.mcp.clone(), REDIRECT_URI)
        .with_client_name("mcp-tests dpop login")
        .with_fetch(FetchOptions::default().with_proxy(ProxySetting::None));
    let oauth = OAuth::new(config, Arc::new(MemoryStore::new()), agent.clone()).unwrap();
    let http = HttpConfig::new(peers.mcp.clone())
        .with_proxy(ProxySetting::None)
        .with_auth_provider(oauth.provider());
    let transport = HttpTransport::connect(http, HttpMode::Streamable)
        .await
        .unwrap();
    let client = Client::connect(transport, ClientOptions::new("mcp-tests", "0"))
        .await
        .expect("connected after logging in");
    let first = whoami(&client).await;
    let s = peers.stats().await;
    assert_eq!(s["dpop_refused"], serde_json::json!([]), "{s}");
    assert_eq!(s["authorization_code"], 1, "{s}");
    assert!(s["dpop_proofs"].as_u64().unwrap() >= 3, "{s}");

    tokio::time::sleep(Duration::from_millis(TTL_SECS * 1000 + 500)).await;
    let second = whoami(&client).await;
    let s = peers.stats().await;
    assert_eq!(s["dpop_refused"], serde_json::json!([]), "{s}");
    assert_eq!(s["authorization_code"], 1, "no second login: {s}");
    assert_eq!(s["refresh_token"], 1, "refreshed with a proof: {s}");
    assert_ne!(first, second, "a new access token");
    assert_eq!(agent.submitted.lock().unwrap().len(), 2, "one login only");
    client.close().await.ok();
}
