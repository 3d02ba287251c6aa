//! The client credentials grant with `private_key_jwt` end to end against
//! a real authorization server: `oidc-provider` (npm) with a client
//! registered for `client_credentials` whose public key it holds, protecting
//! an MCP server of the TypeScript SDK that checks every token with the
//! provider (`tests/peers/oidc_mcp.mjs`, on 127.0.0.1). No login, no
//! browser, no registration: 401 → discovery → a signed client assertion
//! the provider verifies → a token for the MCP server's resource →
//! `tools/call`; the short-lived token expires → a new client_credentials
//! request (no refresh token) → `tools/call` again.
//!
//! Skips, saying so, when node or `oidc-provider` is not installed (fails
//! under `MCP_PEERS_REQUIRED=1`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::Arc;
use std::time::Duration;

use mcp_auth::{
    CLIENT_CREDENTIALS_EXTENSION, ClientAuthentication, ConfidentialClient, Grant, MemoryStore,
    OAuth, OAuthConfig, PrivateKey,
};
use mcp_client::{Client, ClientOptions};
use mcp_tests::oidc::OidcPeers;
use mcp_transport_http::{FetchOptions, HttpConfig, HttpMode, HttpTransport, ProxySetting};

/// Access token lifetime given to the provider, in seconds.
const TTL_SECS: u64 = 3;
const CLIENT_ID: &str = "mcp-tests-machine";

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

async fn session_with(private: &str, public: &str) {
    let public_pem = std::fs::read_to_string(key_path(public)).unwrap();
    let machine = serde_json::json!({"client_id": CLIENT_ID, "public_key_pem": public_pem});
    let Some(peers) = OidcPeers::start_with(TTL_SECS, &[("MACHINE_CLIENT", &machine.to_string())])
    else {
        return;
    };
    let key = PrivateKey::from_pem_file(key_path(private)).unwrap();
    let grant = Grant::ClientCredentials(ConfidentialClient::new(
        CLIENT_ID,
        ClientAuthentication::PrivateKeyJwt(Arc::new(key)),
    ));
    let extension = grant.extension();
    assert_eq!(extension, CLIENT_CREDENTIALS_EXTENSION);
    let fetch = FetchOptions::default().with_proxy(ProxySetting::None);
    let config = OAuthConfig::for_grant(peers.mcp.clone(), grant).with_fetch(fetch);
    let oauth = OAuth::for_grant(config, Arc::new(MemoryStore::new())).unwrap();
    let http = HttpConfig::new(peers.mcp.clone())
        .with_proxy(ProxySetting::None)
        .with_auth_provider(oauth.provider());
    let transport = HttpTransport::connect(http, HttpMode::Streamable)
        .await
        .unwrap();
    let options = ClientOptions::new("mcp-tests machine", "0")
        .with_extension(extension, serde_json::json!({}));
    let client = Client::connect(transport, options).await.unwrap();

    let first = whoami(&client).await;
    assert!(first.starts_with(&format!("{CLIENT_ID} ")), "{first}");
    let stats = peers.stats().await;
    assert_eq!(stats["client_credentials"], 1, "{stats}");
    assert_eq!(stats["registrations"], 0, "no registration: {stats}");
    assert_eq!(stats["authorization_code"], 0, "{stats}");

    // The token expires; there is no refresh token: a new grant.
    tokio::time::sleep(Duration::from_secs(TTL_SECS + 1)).await;
    let second = whoami(&client).await;
    assert!(second.starts_with(&format!("{CLIENT_ID} ")), "{second}");
    assert_ne!(first, second, "a new token after expiry");
    let stats = peers.stats().await;
    assert_eq!(stats["client_credentials"], 2, "{stats}");
    assert_eq!(stats["refresh_token"], 0, "{stats}");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_key_jwt_es256_session_with_a_new_token_after_expiry() {
    session_with("ec-p256.pem", "ec-p256.pub.pem").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_key_jwt_rs256_session() {
    session_with("rsa-2048.pem", "rsa-2048.pub.pem").await;
}
