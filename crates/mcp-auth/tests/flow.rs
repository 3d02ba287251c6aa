//! The whole authorization code flow against a scripted MCP server and
//! authorization server on 127.0.0.1: discovery, registration, PKCE,
//! `resource`, `state` and `iss`, step-up, and the checks that abort it.

mod common;

use common::*;
use mcp_auth::{OAuthConfig, PreregisteredClient, Secret};
use mcp_transport::AuthErrorKind;

/// 401 → PRM (from the challenge) → AS metadata → DCR → authorization
/// (PKCE S256, state, resource) → token (verifier, resource) → retry with
/// the token; later requests reuse it.
#[tokio::test]
async fn a_first_request_logs_in_and_later_ones_reuse_the_token() {
    let mock = Mock::start(Script::default()).await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    call(&t, "tools/list").await.unwrap();

    let reg = mock.to("/register");
    assert_eq!(reg.len(), 1);
    let body: serde_json::Value = serde_json::from_slice(&reg[0].body).unwrap();
    assert_eq!(body["application_type"], "native");
    assert_eq!(body["redirect_uris"][0], REDIRECT);
    assert_eq!(body["client_name"], "mcp-auth-tests");
    assert!(
        body["grant_types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g == "refresh_token")
    );

    let auths = mock.authorize_queries();
    assert_eq!(auths.len(), 1, "one login");
    let q = &auths[0];
    let resource = format!("{}/mcp", mock.base);
    assert_eq!(get(q, "response_type"), Some("code"));
    assert_eq!(get(q, "client_id"), Some("dcr-client"));
    assert_eq!(get(q, "code_challenge_method"), Some("S256"));
    assert_eq!(get(q, "resource"), Some(resource.as_str()));
    assert_eq!(get(q, "redirect_uri"), Some(REDIRECT));
    assert!(get(q, "state").is_some_and(|s| s.len() >= 16));
    assert_eq!(get(q, "scope"), None, "no scope anywhere: none sent");

    let tokens = mock.to("/token");
    assert_eq!(tokens.len(), 1);
    let f = form(&tokens[0]);
    assert_eq!(get(&f, "grant_type"), Some("authorization_code"));
    assert_eq!(get(&f, "code"), Some("code-secret-1234"));
    assert_eq!(get(&f, "resource"), Some(resource.as_str()));
    assert_eq!(get(&f, "redirect_uri"), Some(REDIRECT));
    assert_eq!(get(&f, "client_id"), Some("dcr-client"), "auth method none");
    assert_eq!(tokens[0].header("authorization"), None);
    let verifier = get(&f, "code_verifier").unwrap();
    let challenge = {
        use base64::Engine as _;
        use sha2::Digest as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(verifier.as_bytes()))
    };
    assert_eq!(get(q, "code_challenge"), Some(challenge.as_str()));

    let mcp = mock.to("/mcp");
    assert_eq!(mcp.len(), 3, "401, retry, reuse");
    assert_eq!(mcp[0].header("authorization"), None);
    assert_eq!(
        mcp[1].header("authorization"),
        Some("Bearer access-secret-1")
    );
    assert_eq!(
        mcp[2].header("authorization"),
        Some("Bearer access-secret-1")
    );
    // The challenge named the PRM URL: the root one was never asked for.
    assert!(mock.to("/.well-known/oauth-protected-resource").is_empty());
}

/// (challenge scope, PRM scopes, AS scopes, the scope asked for).
type ScopeCase = (
    Option<&'static str>,
    Option<Vec<&'static str>>,
    Option<Vec<&'static str>>,
    Option<&'static str>,
);

/// Scope selection: the challenge's scope, else the PRM's, else none;
/// `offline_access` only when the authorization server lists it.
#[tokio::test]
async fn scopes_come_from_the_challenge_then_the_prm() {
    let cases: [ScopeCase; 5] = [
        (
            Some("mcp:basic"),
            Some(vec!["a", "b"]),
            None,
            Some("mcp:basic"),
        ),
        (None, Some(vec!["a", "b"]), None, Some("a b")),
        (None, None, None, None),
        (
            None,
            None,
            Some(vec!["openid", "offline_access"]),
            Some("offline_access"),
        ),
        (Some("x"), None, Some(vec!["openid"]), Some("x")),
    ];
    for (challenge, prm, as_scopes, want) in cases {
        let mock = Mock::start(Script {
            challenge_scope: challenge,
            prm_scopes: prm.clone(),
            as_scopes: as_scopes.clone(),
            ..Script::default()
        })
        .await;
        let oauth = mock.oauth(mock.config());
        let t = mock.connect(&oauth).await;
        call(&t, "tools/list").await.unwrap();
        let q = &mock.authorize_queries()[0];
        assert_eq!(get(q, "scope"), want, "{challenge:?} {prm:?} {as_scopes:?}");
    }
}

/// A PRM whose `resource` is not this server aborts before any request
/// to the authorization server's endpoints.
#[tokio::test]
async fn a_resource_mismatch_stops_before_authorization() {
    for resource in [
        "https://evil.example.com/mcp",
        "{base}/other",
        "{base}/mcpx",
    ] {
        let mock = Mock::start(Script::default()).await;
        let resource = resource.replace("{base}", &mock.base);
        drop(mock);
        let mock = Mock::start(Script {
            prm_resource: Some(resource.clone()),
            ..Script::default()
        })
        .await;
        let oauth = mock.oauth(mock.config());
        let t = mock.connect(&oauth).await;
        let err = call(&t, "tools/list").await.unwrap_err();
        assert_eq!(err.auth_kind(), Some(AuthErrorKind::Denied), "{err}");
        assert!(
            err.to_string()
                .contains("protected resource metadata is for"),
            "{err}"
        );
        for path in ["/register", "/authorize", "/token"] {
            assert!(mock.to(path).is_empty(), "{resource}: {path} reached");
        }
    }
}

/// Metadata whose `issuer` is not the identical string it was looked up
/// for is not used.
#[tokio::test]
async fn an_issuer_mismatch_stops_before_registration() {
    for issuer in ["https://attacker.example.com", "{base}/", "{base}/x"] {
        let probe = Mock::start(Script::default()).await;
        let issuer = issuer.replace("{base}", &probe.base);
        drop(probe);
        let mock = Mock::start(Script {
            issuer: Some(issuer.clone()),
            ..Script::default()
        })
        .await;
        let oauth = mock.oauth(mock.config());
        let t = mock.connect(&oauth).await;
        let err = call(&t, "tools/list").await.unwrap_err();
        assert_eq!(err.auth_kind(), Some(AuthErrorKind::Denied), "{err}");
        assert!(
            !mock
                .to("/.well-known/oauth-authorization-server")
                .is_empty()
        );
        for path in ["/register", "/authorize", "/token"] {
            assert!(mock.to(path).is_empty(), "{issuer}: {path} reached");
        }
    }
}

/// RFC 9207: the code is redeemed only when `iss` passes.
#[tokio::test]
async fn iss_is_checked_before_the_code_is_redeemed() {
    let cases = [
        // (advertised, sent, token request expected)
        (true, Some(""), true),
        (false, None, true),
        (false, Some(""), true),
        (true, None, false),
        (true, Some("https://evil.example.com"), false),
        (false, Some("https://evil.example.com"), false),
    ];
    for (advertised, sent, redeemed) in cases {
        let mock = Mock::start(Script {
            advertise_iss: advertised,
            send_iss: sent,
            ..Script::default()
        })
        .await;
        let oauth = mock.oauth(mock.config());
        let t = mock.connect(&oauth).await;
        let result = call(&t, "tools/list").await;
        assert_eq!(mock.to("/authorize").len(), 1);
        assert_eq!(
            !mock.to("/token").is_empty(),
            redeemed,
            "advertised={advertised} sent={sent:?}"
        );
        assert_eq!(result.is_ok(), redeemed, "{result:?}");
    }
    // `iss` equal to the issuer plus a `/` is not the issuer.
    let probe = Mock::start(Script::default()).await;
    let normalized: &'static str = Box::leak(format!("{}/", probe.base).into_boxed_str());
    drop(probe);
    let mock = Mock::start(Script {
        advertise_iss: true,
        send_iss: Some(normalized),
        ..Script::default()
    })
    .await;
    let _ = normalized;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    assert!(call(&t, "tools/list").await.is_err());
    assert!(mock.to("/token").is_empty());
}

/// 403 `insufficient_scope`: a second authorization with the union of the
/// scopes; a server that keeps refusing gets a bounded number of tries.
#[tokio::test]
async fn step_up_asks_for_the_union_and_is_bounded() {
    let mock = Mock::start(Script {
        challenge_scope: Some("mcp:basic"),
        call_scope: Some("mcp:write"),
        ..Script::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    call(&t, "tools/call").await.unwrap();
    let scopes: Vec<Option<String>> = mock
        .authorize_queries()
        .iter()
        .map(|q| get(q, "scope").map(str::to_owned))
        .collect();
    assert_eq!(
        scopes,
        [Some("mcp:basic".into()), Some("mcp:basic mcp:write".into())]
    );

    // A server that never grants: the step-up limit per operation (2 by
    // default) ends it, after 3 authorizations in all.
    let mock = Mock::start(Script {
        call_scope: Some("mcp:admin"),
        never_grant: true,
        ..Script::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    let err = call(&t, "tools/call").await.unwrap_err();
    assert_eq!(err.auth_kind(), Some(AuthErrorKind::StepUpLimit), "{err}");
    assert_eq!(mock.to("/authorize").len(), 3);

    // A limit of 0: no step-up at all.
    let mock = Mock::start(Script {
        call_scope: Some("mcp:admin"),
        ..Script::default()
    })
    .await;
    let oauth = mock.oauth(mock.config().with_max_step_ups(0));
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    let err = call(&t, "tools/call").await.unwrap_err();
    assert_eq!(err.auth_kind(), Some(AuthErrorKind::StepUpLimit), "{err}");
    assert_eq!(mock.to("/authorize").len(), 1);
}

/// A server that never has PRM nor metadata: the 2025-03-26 endpoints at
/// the MCP URL's origin, and the canonical server URI as `resource`.
#[tokio::test]
async fn the_2025_03_26_fallback_endpoints() {
    let mock = Mock::start(Script {
        legacy: true,
        ..Script::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(mock.to("/register").len(), 1);
    assert_eq!(mock.to("/token").len(), 1);
    let q = &mock.authorize_queries()[0];
    let resource = format!("{}/mcp", mock.base);
    assert_eq!(get(q, "resource"), Some(resource.as_str()));
    let md = mock.to("/.well-known/oauth-authorization-server");
    assert_eq!(md.len(), 1);
    assert_eq!(md[0].header("mcp-protocol-version"), Some("2025-03-26"));
}

/// A pre-registered confidential client: no registration, and the secret
/// goes in HTTP Basic (form-encoded parts) when that is what the server
/// supports, in the body for `client_secret_post`.
#[tokio::test]
async fn preregistered_clients_authenticate_as_the_server_supports() {
    for method in ["client_secret_basic", "client_secret_post"] {
        let mock = Mock::start(Script {
            auth_methods: vec![method],
            no_registration: true,
            ..Script::default()
        })
        .await;
        let config = mock.config().with_preregistered(PreregisteredClient::new(
            "pre client",
            Some(Secret::new("pre:secret")),
        ));
        let oauth = mock.oauth(config);
        let t = mock.connect(&oauth).await;
        call(&t, "tools/list").await.unwrap();
        assert!(mock.to("/register").is_empty());
        let token = &mock.to("/token")[0];
        let f = form(token);
        match method {
            "client_secret_basic" => {
                assert_eq!(
                    token.header("authorization"),
                    Some("Basic cHJlK2NsaWVudDpwcmUlM0FzZWNyZXQ="),
                    "base64 of 'pre+client:pre%3Asecret'"
                );
                assert_eq!(get(&f, "client_secret"), None);
            }
            _ => {
                assert_eq!(token.header("authorization"), None);
                assert_eq!(get(&f, "client_id"), Some("pre client"));
                assert_eq!(get(&f, "client_secret"), Some("pre:secret"));
            }
        }
    }
}

/// Without any way to register, the error says so (no login attempt).
#[tokio::test]
async fn no_registration_possible_is_a_clear_error() {
    let mock = Mock::start(Script {
        no_registration: true,
        ..Script::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    assert!(
        err.to_string().contains("no client registration possible"),
        "{err}"
    );
    assert!(mock.to("/authorize").is_empty());
}

/// The MCP server URL and the redirect URI must be https or loopback
/// http; a metadata document URL https with a path.
#[test]
fn insecure_urls_are_refused() {
    let ok = "https://example.com/mcp";
    let cases = [
        OAuthConfig::new("http://example.com/mcp", REDIRECT),
        OAuthConfig::new(ok, "http://example.com/callback"),
        OAuthConfig::new(ok, "myapp:/callback"),
        OAuthConfig::new(ok, REDIRECT).with_client_metadata_url("http://example.com/client.json"),
        OAuthConfig::new(ok, REDIRECT).with_client_metadata_url("https://example.com/"),
    ];
    for config in cases {
        let agent = std::sync::Arc::new(mcp_auth::NoInteraction::new("log in"));
        let shown = format!("{config:?}");
        let err = mcp_auth::OAuth::new(
            config,
            std::sync::Arc::new(mcp_auth::MemoryStore::new()),
            agent,
        )
        .unwrap_err();
        assert!(err.to_string().contains("must be https"), "{shown}: {err}");
    }
    let agent = std::sync::Arc::new(mcp_auth::NoInteraction::new("log in"));
    let fine = OAuthConfig::new(ok, "https://example.com/cb")
        .with_client_metadata_url("https://example.com/client.json");
    let store = std::sync::Arc::new(mcp_auth::MemoryStore::new());
    assert!(mcp_auth::OAuth::new(fine, store, agent).is_ok());
}

/// A host without a user to ask (a daemon, a background reconnect) gets a
/// typed "login needed" error once the authorization server is known: no
/// client is registered for it and no browser step is attempted.
#[tokio::test]
async fn no_interaction_reports_login_needed() {
    let mock = Mock::start(Script::default()).await;
    let agent = std::sync::Arc::new(mcp_auth::NoInteraction::new("run `mcp login example`"));
    let oauth = mcp_auth::OAuth::new(
        mock.config(),
        std::sync::Arc::new(mcp_auth::MemoryStore::new()),
        agent,
    )
    .unwrap();
    let t = mock.connect(&oauth).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    assert_eq!(err.auth_kind(), Some(AuthErrorKind::NeedsLogin), "{err}");
    assert!(err.to_string().contains("run `mcp login example`"), "{err}");
    assert!(
        !mock
            .to("/.well-known/oauth-authorization-server")
            .is_empty()
    );
    assert!(mock.to("/register").is_empty());
    assert!(mock.to("/authorize").is_empty());
    assert!(mock.to("/token").is_empty());
}

/// A step-up that no one can be asked for (a background command) ends in
/// "login needed", and the scopes the server asked for are remembered with
/// the tokens: the next interactive login (`OAuth::login`, with no
/// challenge) asks for their union, and that login's token passes.
#[tokio::test]
async fn a_step_up_no_one_can_give_is_remembered_for_the_next_login() {
    use std::sync::Arc;

    use mcp_auth::{
        CredentialStore, HeadlessRedirect, MemoryStore, NoInteraction, OAuth, Record, StoreKey,
    };
    use mcp_transport_http::Fetcher;

    let mock = Mock::start(Script {
        challenge_scope: Some("mcp:basic"),
        call_scope: Some("mcp:write"),
        ..Script::default()
    })
    .await;
    let store = Arc::new(MemoryStore::new());
    let agent = Arc::new(HeadlessRedirect::new(Fetcher::new(fetch_options())));
    let first = OAuth::new(mock.config(), store.clone(), agent.clone()).unwrap();
    call(&mock.connect(&first).await, "tools/list")
        .await
        .unwrap();

    let background = OAuth::new(
        mock.config(),
        store.clone(),
        Arc::new(NoInteraction::new("run `mcp login x`")),
    )
    .unwrap();
    let t = mock.connect(&background).await;
    let e = call(&t, "tools/call").await.unwrap_err();
    assert_eq!(e.auth_kind(), Some(AuthErrorKind::NeedsLogin), "{e}");
    let key = StoreKey::tokens(mock.url(), mock.url().trim_end_matches("/mcp"), "default");
    let Some((Record::Tokens(t), _)) = store.get(&key).await.unwrap() else {
        panic!("the tokens stay");
    };
    assert_eq!(t.wanted_scope.as_deref(), Some("mcp:basic mcp:write"));
    let status = background.status().await.unwrap().unwrap();
    assert_eq!(status.wanted_scope.as_deref(), Some("mcp:basic mcp:write"));

    let again = OAuth::new(mock.config(), store.clone(), agent).unwrap();
    again.login().await.unwrap();
    let scopes: Vec<Option<String>> = mock
        .authorize_queries()
        .iter()
        .map(|q| get(q, "scope").map(str::to_owned))
        .collect();
    assert_eq!(
        scopes,
        [Some("mcp:basic".into()), Some("mcp:basic mcp:write".into())]
    );
    call(&mock.connect(&again).await, "tools/call")
        .await
        .unwrap();
}
