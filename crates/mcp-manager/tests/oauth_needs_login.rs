//! A remote server behind OAuth, given a flow whose user agent cannot ask
//! anyone (`NoInteraction`), fails its start at once with the typed
//! `NeedsLogin` status (not `Failed`, not retried), whose text is the
//! agent's hint; a call to it fails with `ManagerError::NeedsLogin`. Without
//! a flow the same server is a plain failure (the 401), and so is a grant
//! whose secret's variable is not set (its error naming the variable).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use fault_http::{FaultServer, Recorded, Reply, init_result, tools_result};
use mcp_manager::mcp_auth::{
    ClientAuthentication, ConfidentialClient, CredentialStore, Grant, MemoryStore, NoInteraction,
    OAuth, OAuthConfig, Record, Secret, StoreKey, TokenRecord,
};
use mcp_manager::{Manager, ManagerError, McpConfig, ServerStatus, UnavailablePolicy};
use mcp_transport_http::{FetchOptions, ProxySetting};
use serde_json::json;
use support::*;

/// An MCP endpoint at `/mcp` that wants a token, with its protected
/// resource metadata, authorization server metadata and registration
/// endpoint, all at `base`.
fn protected(base: &str, r: &Recorded) -> Reply {
    match r.path() {
        "/.well-known/oauth-protected-resource/mcp" => Reply::json(
            json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}).to_string(),
        ),
        "/.well-known/oauth-authorization-server" => Reply::json(
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
            })
            .to_string(),
        ),
        "/register" => {
            Reply::json(json!({"client_id": "c-1", "redirect_uris": [REDIRECT]}).to_string())
                .with_status(201)
        }
        "/mcp" if r.header("authorization") == Some("Bearer at-later") => {
            match (r.rpc_method().as_deref(), r.rpc_id()) {
                (Some("initialize"), Some(id)) => Reply::json(init_result(&id, "2025-11-25")),
                (Some(_), Some(id)) => Reply::json(tools_result(&id)),
                _ => Reply::status(202),
            }
        }
        "/mcp" => Reply::status(401).header(
            "www-authenticate",
            &format!(
                r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
            ),
        ),
        _ => Reply::status(404),
    }
}

const REDIRECT: &str = "http://127.0.0.1:1/callback";
const HINT: &str = "run `mcp login locked`, then try again";

async fn server() -> FaultServer {
    let base = Arc::new(std::sync::OnceLock::<String>::new());
    let b = base.clone();
    let server = FaultServer::start(move |r| protected(b.get().expect("base set"), r))
        .await
        .unwrap();
    base.set(server.url("")).unwrap();
    server
}

fn oauth_for(url: &str) -> OAuth {
    let config = OAuthConfig::new(url, REDIRECT)
        .with_fetch(FetchOptions::default().with_proxy(ProxySetting::None));
    OAuth::new(
        config,
        Arc::new(MemoryStore::new()),
        Arc::new(NoInteraction::new(HINT)),
    )
    .unwrap()
}

async fn start(url: &str, give_oauth: bool, per_server: bool) -> Manager {
    let config = McpConfig::from_json(
        &json!({"mcpServers": {"locked": {"type": "http", "url": url}}}).to_string(),
    )
    .unwrap();
    let mut opts = options().with_unavailable(UnavailablePolicy::FailFast);
    if give_oauth && per_server {
        opts = opts.with_server_oauth("locked", oauth_for(url));
    } else if give_oauth {
        opts = opts.with_oauth(|config| {
            let mcp_manager::TransportConfig::Remote(r) = &config.transport else {
                return None;
            };
            Some(oauth_for(&r.url))
        });
    }
    let manager = Manager::start(config, opts).await;
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    manager
}

#[tokio::test]
async fn a_login_no_one_can_give_fails_the_start_with_needs_login() {
    for per_server in [false, true] {
        let server = server().await;
        let url = server.url("/mcp");
        let manager = start(&url, true, per_server).await;
        let status = manager.server_status("locked").unwrap();
        let ServerStatus::NeedsLogin { why } = &status else {
            panic!("per_server {per_server}: {status:?}");
        };
        assert!(why.contains(HINT), "{why}");
        assert!(
            status
                .to_string()
                .starts_with(&format!("authorization needs login for {url}: {HINT}")),
            "{status}"
        );
        // Not retried, and no client registered for a login that cannot
        // happen: one refused POST, discovery, nothing else.
        let posts = server
            .requests()
            .iter()
            .filter(|r| r.path() == "/mcp")
            .count();
        assert_eq!(posts, 1, "per_server {per_server}");
        assert_eq!(
            server
                .requests()
                .iter()
                .filter(|r| r.path() == "/register")
                .count(),
            0
        );
        match manager
            .wait_for_client("locked", UnavailablePolicy::FailFast)
            .await
        {
            Err(ManagerError::NeedsLogin { server, why, .. }) => {
                assert_eq!(server, "locked");
                assert!(why.contains(HINT), "{why}");
            }
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("a client for a server that needs a login"),
        }
        manager.shutdown().await;
    }
}

#[tokio::test]
async fn without_a_flow_the_refusal_is_a_plain_failure() {
    let server = server().await;
    let manager = start(&server.url("/mcp"), false, false).await;
    let status = manager.server_status("locked").unwrap();
    let ServerStatus::Failed { why } = &status else {
        panic!("{status:?}");
    };
    assert!(why.contains("401"), "{why}");
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.path() == "/register")
            .count(),
        0
    );
    manager.shutdown().await;
}

/// A server that needed a login is started again by the first call after
/// a login was stored (here: written straight into the store, as `mcp
/// login` in another process writes the file store); before that, calls
/// fail at once and nothing is retried.
#[tokio::test]
async fn a_login_stored_later_is_picked_up_by_the_next_call() {
    let server = server().await;
    let url = server.url("/mcp");
    let base = server.url("");
    let store = Arc::new(MemoryStore::new());
    let config = OAuthConfig::new(url.clone(), REDIRECT)
        .with_fetch(FetchOptions::default().with_proxy(ProxySetting::None));
    let oauth = OAuth::new(config, store.clone(), Arc::new(NoInteraction::new(HINT))).unwrap();
    let config = McpConfig::from_json(
        &json!({"mcpServers": {"locked": {"type": "http", "url": url, "protocolVersion": "2025-11-25"}}})
            .to_string(),
    )
    .unwrap();
    let opts = options()
        .with_unavailable(UnavailablePolicy::FailFast)
        .with_server_oauth("locked", oauth);
    let manager = Manager::start(config, opts).await;
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    assert!(matches!(
        manager
            .wait_for_client("locked", UnavailablePolicy::FailFast)
            .await,
        Err(ManagerError::NeedsLogin { .. })
    ));
    let posts = || {
        server
            .requests()
            .iter()
            .filter(|r| r.path() == "/mcp")
            .count()
    };
    assert_eq!(posts(), 1, "not retried on its own");
    store
        .put(
            &StoreKey::tokens(url.clone(), base, "default"),
            Record::Tokens(TokenRecord::new(Secret::new("at-later"))),
            None,
        )
        .await
        .unwrap();
    let client = manager
        .wait_for_client("locked", UnavailablePolicy::FailFast)
        .await
        .expect("started again with the stored login");
    assert!(client.is_connected());
    assert!(matches!(
        manager.server_status("locked"),
        Some(ServerStatus::Connected { .. })
    ));
    manager.shutdown().await;
}

/// A grant without a person whose client secret is in an environment
/// variable that is not set is no login to ask for: the server's start
/// fails (`Failed`, not `NeedsLogin`) with the flow's error naming the
/// variable, and nothing reaches the token endpoint.
#[tokio::test]
async fn a_grant_whose_secret_variable_is_not_set_fails_the_start_naming_it() {
    const UNSET: &str = "MCP_MANAGER_TEST_SECRET_THAT_IS_NEVER_SET";
    assert!(std::env::var_os(UNSET).is_none());
    let server = server().await;
    let url = server.url("/mcp");
    let grant = Grant::ClientCredentials(ConfidentialClient::new(
        "machine-1",
        ClientAuthentication::ClientSecretBasicEnv(UNSET.into()),
    ));
    let config = OAuthConfig::for_grant(url.clone(), grant)
        .with_fetch(FetchOptions::default().with_proxy(ProxySetting::None));
    let oauth = OAuth::for_grant(config, Arc::new(MemoryStore::new())).unwrap();
    let config = McpConfig::from_json(
        &json!({"mcpServers": {"machine": {"type": "http", "url": url}}}).to_string(),
    )
    .unwrap();
    let opts = options()
        .with_unavailable(UnavailablePolicy::FailFast)
        .with_server_oauth("machine", oauth);
    let manager = Manager::start(config, opts).await;
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    let status = manager.server_status("machine").unwrap();
    let ServerStatus::Failed { why } = &status else {
        panic!("{status:?}");
    };
    assert!(
        why.contains(&format!(
            "client secret: environment variable {UNSET} is not set"
        )),
        "{why}"
    );
    assert!(server.requests().iter().all(|r| r.path() != "/token"));
    manager.shutdown().await;
}
