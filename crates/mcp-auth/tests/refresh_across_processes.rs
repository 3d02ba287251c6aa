//! Refresh across processes: eight processes share one `FileStore` whose
//! access token has expired; each asks for a token at the same moment.
//! The authorization server rotates refresh tokens and refuses a used one
//! (`invalid_grant`), as a strict server does: a second refresh with the
//! old refresh token would kill the login. Exactly one refresh reaches it,
//! and every process gets the new token.
//!
//! The processes are this test binary run again on `child_refresh`
//! (which does nothing unless `MCP_AUTH_CHILD_STORE` is set).
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use fault_http::{FaultServer, Reply};
use mcp_auth::{
    ClientRecord, CredentialStore, FileStore, NoInteraction, OAuth, OAuthConfig, Record, Secret,
    StoreKey, TokenRecord,
};
use mcp_transport_http::{FetchOptions, ProxySetting};

const CHILDREN: usize = 8;

fn form_value(body: &[u8], name: &str) -> Option<String> {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_processes_after_expiry_refresh_once_and_all_succeed() {
    // The current refresh token's number; a refresh with another one is
    // refused (reuse of a rotated token).
    let current = Arc::new(Mutex::new(0u32));
    let base = Arc::new(std::sync::OnceLock::<String>::new());
    let (c, b) = (current.clone(), base.clone());
    let server = FaultServer::start(move |r| {
        let base = b.get().cloned().unwrap_or_default();
        match r.path() {
            "/.well-known/oauth-authorization-server" => Reply::json(format!(
                r#"{{"issuer":"{base}","authorization_endpoint":"{base}/authorize",
                    "token_endpoint":"{base}/token","code_challenge_methods_supported":["S256"]}}"#
            )),
            "/token" => {
                let mut n = c.lock().unwrap();
                let sent = form_value(&r.body, "refresh_token").unwrap_or_default();
                if form_value(&r.body, "grant_type").as_deref() != Some("refresh_token")
                    || sent != format!("rt-{n}")
                {
                    return Reply::json(r#"{"error":"invalid_grant"}"#).with_status(400);
                }
                *n += 1;
                Reply::json(format!(
                    r#"{{"access_token":"at-{n}","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-{n}"}}"#
                ))
            }
            _ => Reply::status(404),
        }
    })
    .await
    .unwrap();
    let issuer = format!("http://127.0.0.1:{}", server.addr().port());
    base.set(issuer.clone()).unwrap();
    let resource = format!("{issuer}/mcp");

    let dir = std::env::temp_dir().join(format!(
        "mcp-auth-xproc-{}-{:x}",
        std::process::id(),
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let store = FileStore::new(&dir).unwrap();
    store
        .put(
            &StoreKey::client(issuer.clone()),
            Record::Client(ClientRecord::new("client-1", None)),
            None,
        )
        .await
        .unwrap();
    let mut expired = TokenRecord::new(Secret::new("at-0"));
    expired.refresh_token = Some(Secret::new("rt-0"));
    expired.received_at = Some(SystemTime::now() - Duration::from_secs(7200));
    expired.expires_at = Some(SystemTime::now() - Duration::from_secs(3600));
    store
        .put(
            &StoreKey::tokens(resource.clone(), issuer.clone(), "default"),
            Record::Tokens(expired),
            None,
        )
        .await
        .unwrap();

    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..CHILDREN)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "child_refresh",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("MCP_AUTH_CHILD_STORE", &dir)
                .env("MCP_AUTH_CHILD_SERVER", &resource)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<_> = tokio::task::spawn_blocking(move || {
        children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    for out in &outputs {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("CHILD token at-1"),
            "a child failed: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let refreshes = server
        .requests()
        .iter()
        .filter(|r| r.path() == "/token")
        .count();
    assert_eq!(refreshes, 1, "exactly one refresh reached the server");
    assert_eq!(*current.lock().unwrap(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One process of the test above.
#[tokio::test]
async fn child_refresh() {
    let Some(dir) = std::env::var_os("MCP_AUTH_CHILD_STORE") else {
        return;
    };
    let server = std::env::var("MCP_AUTH_CHILD_SERVER").unwrap();
    let config = OAuthConfig::new(server, "http://127.0.0.1:1/callback")
        .with_fetch(FetchOptions::default().with_proxy(ProxySetting::None));
    let oauth = OAuth::new(
        config,
        Arc::new(FileStore::new(dir).unwrap()),
        Arc::new(NoInteraction::new("no login in a child")),
    )
    .unwrap();
    let token = oauth.access_token().await.unwrap();
    // A test token, made by the server above: safe to show.
    println!("CHILD token {}", token.expose());
}
