//! A configured authorization server metadata URL (Claude Code's
//! `authServerMetadataUrl`): the metadata is read there instead of at the
//! well-known URLs, and is still checked: its issuer must be one the
//! resource's metadata lists (or, with none, on that URL's origin).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use common::*;
use fault_http::Reply;
use mcp_auth::{AuthError, OAuthConfig};
use serde_json::json;

const CUSTOM: &str = "/tenant/as-metadata.json";

/// A mock with no metadata at the well-known authorization server URLs,
/// and a document naming `issuer` (`{base}` replaced) at [`CUSTOM`].
async fn mock(script: Script, issuer: &'static str) -> Mock {
    Mock::start_with(script, move |base, r| match r.path() {
        CUSTOM => Some(Reply::json(
            json!({
                "issuer": issuer.replace("{base}", base),
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            })
            .to_string(),
        )),
        p if p.starts_with("/.well-known/oauth-authorization-server")
            || p.starts_with("/.well-known/openid-configuration") =>
        {
            Some(Reply::status(404))
        }
        _ => None,
    })
    .await
}

fn with_override(mock: &Mock) -> OAuthConfig {
    mock.config()
        .with_auth_server_metadata_url(format!("{}{CUSTOM}", mock.base))
}

fn well_known_as_requests(mock: &Mock) -> usize {
    mock.server
        .requests()
        .iter()
        .filter(|r| r.path().contains("oauth-authorization-server") || r.path().contains("openid"))
        .count()
}

#[tokio::test]
async fn the_metadata_comes_from_the_configured_url() {
    let m = mock(Script::default(), "{base}").await;
    let oauth = m.oauth(with_override(&m));
    let t = m.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(m.to(CUSTOM).len(), 1);
    assert_eq!(well_known_as_requests(&m), 0, "no discovery of the AS");
    assert_eq!(m.to("/token").len(), 1);
    let resource = format!("{}/mcp", m.base);
    assert_eq!(
        get(&m.authorize_queries()[0], "resource"),
        Some(resource.as_str()),
        "the resource still comes from the protected resource metadata"
    );
}

#[tokio::test]
async fn without_the_setting_discovery_finds_nothing() {
    let m = mock(Script::default(), "{base}").await;
    let oauth = m.oauth(m.config());
    let t = m.connect(&oauth).await;
    assert!(call(&t, "tools/list").await.is_err());
    assert!(m.to(CUSTOM).is_empty());
    assert!(m.to("/authorize").is_empty());
}

#[tokio::test]
async fn an_issuer_the_resource_does_not_list_is_refused() {
    for issuer in ["https://attacker.example.com", "{base}/other"] {
        let m = mock(Script::default(), issuer).await;
        let oauth = m.oauth(with_override(&m));
        let t = m.connect(&oauth).await;
        let err = call(&t, "tools/list").await.unwrap_err();
        assert!(err.to_string().contains("issuer"), "{issuer}: {err}");
        assert_eq!(m.to(CUSTOM).len(), 1);
        for path in ["/register", "/authorize", "/token"] {
            assert!(m.to(path).is_empty(), "{issuer}: {path} reached");
        }
    }
}

#[tokio::test]
async fn without_resource_metadata_the_issuer_is_on_the_urls_origin() {
    let legacy = Script {
        legacy: true,
        ..Script::default()
    };
    let m = mock(legacy.clone(), "{base}").await;
    let oauth = m.oauth(with_override(&m));
    let t = m.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(m.to(CUSTOM).len(), 1);
    assert_eq!(m.to("/token").len(), 1);

    let m = mock(legacy, "https://elsewhere.example.com").await;
    let oauth = m.oauth(with_override(&m));
    let t = m.connect(&oauth).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    assert!(err.to_string().contains("issuer"), "{err}");
    for path in ["/register", "/authorize", "/token"] {
        assert!(m.to(path).is_empty(), "{path} reached");
    }
}

#[test]
fn an_insecure_metadata_url_is_refused_up_front() {
    let config = OAuthConfig::new("https://mcp.example.com/mcp", REDIRECT)
        .with_auth_server_metadata_url("http://auth.example.com/.well-known/openid-configuration");
    let store = std::sync::Arc::new(mcp_auth::MemoryStore::new());
    let agent = std::sync::Arc::new(mcp_auth::NoInteraction::default());
    match mcp_auth::OAuth::new(config, store, agent) {
        Err(AuthError::InsecureUrl { what, .. }) => {
            assert_eq!(what, "authorization server metadata URL")
        }
        other => panic!("expected InsecureUrl, got {:?}", other.map(|_| ())),
    }
}
