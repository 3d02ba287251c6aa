//! The grants without a person (client credentials, enterprise-managed
//! authorization, workload identity federation) against a scripted MCP
//! server and authorization server on 127.0.0.1: what each token request
//! carries, a new grant when the token expires, refusals reported as they
//! came with no retry and no other grant, and bad input (a key the server
//! does not accept, an identity provider that answers with HTML or an
//! error, an expired workload JWT) as one typed error each, the
//! connection going on once the input is good; a client secret named by an
//! environment variable that is not set, one typed error naming it; logout
//! revoking a grant's token as the grant's client.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::*;
use fault_http::Reply;
use mcp_auth::{
    AssertionProblem, AuthError, CallbackAssertion, ClientAuthentication, ConfidentialClient,
    CredentialStore, ExchangeProblem, FileAssertion, Grant, IdentityProvider, KeyProblem,
    MemoryStore, NoInteraction, OAuth, OAuthConfig, PreregisteredClient, PrivateKey, Record,
    Revocation, Secret, StoreKey, TokenRecord,
};
use serde_json::{Value, json};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An unsigned-looking JWT with `claims` (the client never verifies it).
fn jwt(claims: Value) -> String {
    format!(
        "{}.{}.c2ln",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"ES256","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    )
}

fn machine(mock: &Mock, grant: Grant) -> OAuth {
    let config = OAuthConfig::for_grant(mock.url(), grant).with_fetch(fetch_options());
    OAuth::for_grant(config, Arc::new(MemoryStore::new())).unwrap()
}

fn basic(id: &str, secret: &str) -> Grant {
    Grant::ClientCredentials(ConfidentialClient::new(
        id,
        ClientAuthentication::ClientSecretBasic(Secret::new(secret)),
    ))
}

/// `e` and its causes, one string.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[tokio::test]
async fn client_credentials_run_on_the_first_request_and_again_on_expiry() {
    let script = Script {
        auth_methods: vec!["client_secret_basic"],
        expires_in: 1,
        ..Script::default()
    };
    let mock = Mock::start(script).await;
    let oauth = machine(&mock, basic("machine-1", "cc-secret-value"));
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    let tokens = mock.to("/token");
    assert_eq!(tokens.len(), 1);
    let f = form(&tokens[0]);
    assert_eq!(get(&f, "grant_type"), Some("client_credentials"));
    assert_eq!(get(&f, "resource"), Some(mock.url().as_str()));
    assert_eq!(get(&f, "client_secret"), None);
    let basic = tokens[0].header("authorization").unwrap();
    assert_eq!(
        basic,
        format!("Basic {}", STANDARD.encode("machine-1:cc-secret-value"))
    );
    assert!(mock.to("/authorize").is_empty() && mock.to("/register").is_empty());

    // The token lives 1 s and has no refresh token: the grant runs again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    call(&t, "tools/list").await.unwrap();
    let tokens = mock.to("/token");
    assert_eq!(tokens.len(), 2, "one new client_credentials request");
    assert_eq!(
        get(&form(&tokens[1]), "grant_type"),
        Some("client_credentials")
    );
    assert!(format!("{oauth:?}").find("cc-secret-value").is_none());
}

/// The authorization server metadata of `base` with the client
/// credentials grant and `private_key_jwt` signed with `algs`.
fn jwt_metadata(base: &str, algs: &[&str]) -> Reply {
    Reply::json(
        json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": algs,
        })
        .to_string(),
    )
}

#[tokio::test]
async fn private_key_jwt_signs_an_assertion_for_the_issuer() {
    let mock = Mock::start_with(Script::default(), |base, r| {
        (r.path() == "/.well-known/oauth-authorization-server")
            .then(|| jwt_metadata(base, &["ES256"]))
    })
    .await;
    let key = PrivateKey::from_pem(include_str!("keys/ec-p256.pem")).unwrap();
    let public = key.public_key_bytes();
    let grant = Grant::ClientCredentials(ConfidentialClient::new(
        "machine-jwt",
        ClientAuthentication::PrivateKeyJwt(Arc::new(key)),
    ));
    let oauth = machine(&mock, grant);
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    let tokens = mock.to("/token");
    assert_eq!(tokens.len(), 1);
    let f = form(&tokens[0]);
    assert_eq!(get(&f, "grant_type"), Some("client_credentials"));
    assert_eq!(
        get(&f, "client_assertion_type"),
        Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    );
    assert_eq!(get(&f, "client_id"), None, "the assertion names the client");
    assert!(tokens[0].header("authorization").is_none());
    let assertion = get(&f, "client_assertion").unwrap();
    let parts: Vec<&str> = assertion.split('.').collect();
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    assert_eq!(header["alg"], "ES256");
    assert_eq!(claims["iss"], "machine-jwt");
    assert_eq!(claims["sub"], "machine-jwt");
    assert_eq!(claims["aud"], mock.base.as_str());
    assert_eq!(
        claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
        60
    );
    assert!(claims["jti"].as_str().is_some_and(|j| !j.is_empty()));
    let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, public)
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
        .expect("the assertion verifies with the client's public key");
}

#[tokio::test]
async fn a_key_the_server_does_not_accept_is_one_typed_error_and_nothing_is_sent() {
    let mock = Mock::start_with(Script::default(), |base, r| {
        (r.path() == "/.well-known/oauth-authorization-server")
            .then(|| jwt_metadata(base, &["RS256"]))
    })
    .await;
    let key = PrivateKey::from_pem_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/keys/ec-p256.pem"
    ))
    .unwrap();
    let grant = Grant::ClientCredentials(ConfidentialClient::new(
        "machine-jwt",
        ClientAuthentication::PrivateKeyJwt(Arc::new(key)),
    ));
    let err = machine(&mock, grant).login().await.unwrap_err();
    match &err {
        AuthError::Key {
            origin,
            problem: KeyProblem::NotAccepted { key, accepted },
            ..
        } => {
            assert!(origin.ends_with("ec-p256.pem"), "{origin}");
            assert_eq!((key.as_str(), accepted.as_str()), ("ES256", "RS256"));
        }
        other => panic!("{other:?}"),
    }
    assert!(mock.to("/token").is_empty());
    // A malformed key file is refused before anything is sent.
    let dir = std::env::temp_dir().join(format!("mcp-auth-machine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.pem");
    std::fs::write(
        &bad,
        "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    match PrivateKey::from_pem_file(&bad) {
        Err(AuthError::Key {
            origin,
            problem: KeyProblem::NotPem,
            ..
        }) => assert!(origin.ends_with("bad.pem")),
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A mock whose token endpoint refuses every request with `error`.
async fn refusing(error: &'static str) -> Mock {
    Mock::start_with(Script::default(), move |_, r| {
        (r.path() == "/token").then(|| {
            Reply::json(json!({"error": error, "error_description": "no"}).to_string())
                .with_status(400)
        })
    })
    .await
}

#[tokio::test]
async fn workload_identity_refusals_are_reported_as_they_came_without_retry() {
    for error in ["invalid_grant", "invalid_scope", "unauthorized_client"] {
        let mock = refusing(error).await;
        let token =
            jwt(json!({"iss": "https://idp", "sub": "w", "aud": mock.base, "exp": now() + 300}));
        let t2 = token.clone();
        let grant = Grant::WorkloadIdentity {
            assertion: Arc::new(CallbackAssertion::new("test", move || {
                let t = t2.clone();
                async move { Ok(Secret::new(t)) }
            })),
        };
        let oauth = machine(&mock, grant);
        let err = oauth.login().await.unwrap_err();
        assert_eq!(err.oauth_error(), Some(error), "{err}");
        assert!(matches!(err, AuthError::TokenRefused { status: 400, .. }));
        assert!(!chain(&err).contains(&token));
        // Through the transport: the request fails with that error, after
        // exactly one token request of the JWT bearer grant.
        let t = mock.connect(&oauth).await;
        let before = mock.to("/token").len();
        let e = call(&t, "tools/list").await.unwrap_err();
        assert!(chain(&e).contains(error), "{}", chain(&e));
        let tokens = mock.to("/token");
        assert_eq!(tokens.len(), before + 1, "no retry");
        for r in &tokens {
            let f = form(r);
            assert_eq!(
                get(&f, "grant_type"),
                Some("urn:ietf:params:oauth:grant-type:jwt-bearer"),
                "no other grant"
            );
            assert_eq!(get(&f, "assertion"), Some(token.as_str()));
            assert_eq!(get(&f, "resource"), Some(mock.url().as_str()));
            assert_eq!(get(&f, "client_id"), None, "no client registration");
        }
        assert!(mock.to("/register").is_empty() && mock.to("/authorize").is_empty());
    }
}

#[tokio::test]
async fn an_expired_workload_jwt_is_not_sent_and_the_connection_goes_on() {
    let mock = Mock::start(Script::default()).await;
    let dir = std::env::temp_dir().join(format!("mcp-auth-wif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("token");
    let expired = jwt(json!({"sub": "w", "aud": mock.base, "exp": now() - 60}));
    std::fs::write(&path, &expired).unwrap();
    let grant = Grant::WorkloadIdentity {
        assertion: Arc::new(FileAssertion::new(&path)),
    };
    let oauth = machine(&mock, grant);
    match oauth.login().await.unwrap_err() {
        AuthError::Assertion {
            what: "workload JWT",
            origin,
            problem: AssertionProblem::Expired { seconds_ago, .. },
            ..
        } => {
            assert!(origin.contains("token"), "{origin}");
            assert!(seconds_ago >= 60);
        }
        other => panic!("{other:?}"),
    }
    let t = mock.connect(&oauth).await;
    let e = call(&t, "tools/list").await.unwrap_err();
    let text = chain(&e);
    assert!(text.contains("expired"), "{text}");
    assert!(!text.contains(&expired));
    assert!(mock.to("/token").is_empty(), "an expired JWT is never sent");
    // The platform writes a new token: the same connection goes on.
    std::fs::write(&path, jwt(json!({"sub": "w", "exp": now() + 300}))).unwrap();
    call(&t, "tools/list").await.unwrap();
    assert_eq!(mock.to("/token").len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn enterprise(mock: &Mock, id_token: &str) -> Grant {
    let token = id_token.to_owned();
    Grant::EnterpriseManaged {
        client: ConfidentialClient::new(
            "ema-client",
            ClientAuthentication::ClientSecretBasic(Secret::new("ema-secret-value")),
        ),
        identity_provider: IdentityProvider::with_token_endpoint(format!(
            "{}/idp/token",
            mock.base
        ))
        .with_client("idp-client", None),
        id_token: Arc::new(CallbackAssertion::new("test", move || {
            let t = token.clone();
            async move { Ok(Secret::new(t)) }
        })),
    }
}

#[tokio::test]
async fn enterprise_managed_authorization_exchanges_the_id_token_then_presents_the_id_jag() {
    let script = Script {
        auth_methods: vec!["client_secret_basic"],
        ..Script::default()
    };
    let mock = Mock::start_with(script, |_, r| {
        (r.path() == "/idp/token").then(|| {
            Reply::json(
                json!({"access_token": "the.id-jag.value", "token_type": "N_A",
                       "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"})
                .to_string(),
            )
        })
    })
    .await;
    let id_token = jwt(json!({"sub": "u", "exp": now() + 300}));
    let oauth = machine(&mock, enterprise(&mock, &id_token));
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    let exchange = mock.to("/idp/token");
    assert_eq!(exchange.len(), 1);
    let f = form(&exchange[0]);
    assert_eq!(
        get(&f, "grant_type"),
        Some("urn:ietf:params:oauth:grant-type:token-exchange")
    );
    assert_eq!(
        get(&f, "requested_token_type"),
        Some("urn:ietf:params:oauth:token-type:id-jag")
    );
    assert_eq!(get(&f, "subject_token"), Some(id_token.as_str()));
    assert_eq!(
        get(&f, "subject_token_type"),
        Some("urn:ietf:params:oauth:token-type:id_token")
    );
    assert_eq!(get(&f, "audience"), Some(mock.base.as_str()));
    assert_eq!(get(&f, "resource"), Some(mock.url().as_str()));
    assert_eq!(get(&f, "client_id"), Some("idp-client"));
    let tokens = mock.to("/token");
    assert_eq!(tokens.len(), 1);
    let f = form(&tokens[0]);
    assert_eq!(
        get(&f, "grant_type"),
        Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    );
    assert_eq!(get(&f, "assertion"), Some("the.id-jag.value"));
    assert_eq!(
        tokens[0].header("authorization"),
        Some(format!("Basic {}", STANDARD.encode("ema-client:ema-secret-value")).as_str())
    );
}

#[tokio::test]
async fn an_identity_provider_answering_html_or_an_error_is_one_typed_error() {
    let html = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/idp/token").then(|| {
            Reply::status(200)
                .header("content-type", "text/html")
                .body("<html>log in</html>")
        })
    })
    .await;
    let id_token = jwt(json!({"sub": "u", "exp": now() + 300}));
    let err = machine(&html, enterprise(&html, &id_token))
        .login()
        .await
        .unwrap_err();
    match &err {
        AuthError::TokenExchange {
            url,
            problem:
                ExchangeProblem::NotJson {
                    status: 200,
                    content_type,
                },
            ..
        } => {
            assert!(url.ends_with("/idp/token"));
            assert_eq!(content_type, "text/html");
        }
        other => panic!("{other:?}"),
    }
    assert!(html.to("/token").is_empty(), "no grant without an ID-JAG");

    let refusing = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/idp/token").then(|| {
            Reply::json(json!({"error": "invalid_grant", "error_description": "stale"}).to_string())
                .with_status(400)
        })
    })
    .await;
    let err = machine(&refusing, enterprise(&refusing, &id_token))
        .login()
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            AuthError::TokenExchange {
                problem: ExchangeProblem::Refused { status: 400, .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.oauth_error(), Some("invalid_grant"));
    assert!(!chain(&err).contains(&id_token));
    assert!(!format!("{err:?}").contains(&id_token));
}

#[tokio::test]
async fn client_secret_post_and_a_step_up_runs_the_grant_again_with_the_union_of_scopes() {
    let script = Script {
        auth_methods: vec!["client_secret_post"],
        prm_scopes: Some(vec!["read"]),
        ..Script::default()
    };
    let mock = Mock::start_with(script, |_, r| match r.path() {
        "/token" => {
            let f = form(r);
            let scope = get(&f, "scope").unwrap_or("").to_owned();
            let kind = if scope.split(' ').any(|s| s == "admin") {
                "admin"
            } else {
                "plain"
            };
            Some(Reply::json(
                json!({"access_token": format!("access-secret-{kind}"), "token_type": "Bearer",
                       "expires_in": 3600, "scope": scope})
                .to_string(),
            ))
        }
        "/mcp"
            if r.rpc_method().as_deref() == Some("tools/call")
                && r.header("authorization") == Some("Bearer access-secret-plain") =>
        {
            Some(Reply::status(403).header(
                "www-authenticate",
                r#"Bearer error="insufficient_scope", scope="admin""#,
            ))
        }
        _ => None,
    })
    .await;
    let grant = Grant::ClientCredentials(ConfidentialClient::new(
        "machine-post",
        ClientAuthentication::ClientSecretPost(Secret::new("post-secret-value")),
    ));
    let oauth = machine(&mock, grant);
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    call(&t, "tools/call").await.unwrap();
    let tokens = mock.to("/token");
    assert_eq!(tokens.len(), 2, "the first grant, then one step-up");
    let first = form(&tokens[0]);
    assert_eq!(get(&first, "client_id"), Some("machine-post"));
    assert_eq!(get(&first, "client_secret"), Some("post-secret-value"));
    assert_eq!(get(&first, "scope"), Some("read"));
    assert!(tokens[0].header("authorization").is_none());
    let second = form(&tokens[1]);
    assert_eq!(get(&second, "grant_type"), Some("client_credentials"));
    assert_eq!(get(&second, "scope"), Some("read admin"));
}

#[tokio::test]
async fn the_identity_providers_token_endpoint_is_discovered_from_its_issuer() {
    let mock = Mock::start_with(Script::default(), |base, r| match r.path() {
        "/.well-known/oauth-authorization-server/idp" => Some(Reply::json(
            json!({"issuer": format!("{base}/idp"),
                   "authorization_endpoint": format!("{base}/idp/authorize"),
                   "token_endpoint": format!("{base}/idp/exchange")})
            .to_string(),
        )),
        "/idp/exchange" => Some(Reply::json(
            json!({"access_token": "the.id-jag.value", "token_type": "N_A",
                   "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"})
            .to_string(),
        )),
        _ => None,
    })
    .await;
    let id_token = jwt(json!({"sub": "u", "exp": now() + 300}));
    let token = id_token.clone();
    let grant = Grant::EnterpriseManaged {
        client: ConfidentialClient::new(
            "ema-client",
            ClientAuthentication::ClientSecretBasic(Secret::new("ema-secret-value")),
        ),
        identity_provider: IdentityProvider::with_issuer(format!("{}/idp", mock.base)),
        id_token: Arc::new(CallbackAssertion::new("test", move || {
            let t = token.clone();
            async move { Ok(Secret::new(t)) }
        })),
    };
    machine(&mock, grant).login().await.unwrap();
    let exchange = mock.to("/idp/exchange");
    assert_eq!(exchange.len(), 1);
    assert_eq!(
        get(&form(&exchange[0]), "subject_token"),
        Some(id_token.as_str())
    );
    assert_eq!(
        get(&form(&mock.to("/token")[0]), "assertion"),
        Some("the.id-jag.value")
    );
}

/// How the client of a grant must authenticate at the revocation
/// endpoint of [`revoking`].
#[derive(Debug, Clone, Copy)]
enum Expect {
    Basic,
    Post,
    Jwt,
}

/// `true` when the request `r` to the revocation endpoint authenticates
/// as the client `machine-1` the way `expect` says (a `private_key_jwt`
/// assertion verified with `public`, for the issuer `base`).
fn authenticated_as_client(
    r: &fault_http::Recorded,
    expect: Expect,
    base: &str,
    public: &[u8],
) -> bool {
    let f = form(r);
    match expect {
        Expect::Basic => {
            r.header("authorization")
                == Some(&format!(
                    "Basic {}",
                    STANDARD.encode("machine-1:cc-secret-value")
                ))
                && get(&f, "client_secret").is_none()
        }
        Expect::Post => {
            r.header("authorization").is_none()
                && get(&f, "client_id") == Some("machine-1")
                && get(&f, "client_secret") == Some("cc-secret-value")
        }
        Expect::Jwt => {
            let Some(assertion) = get(&f, "client_assertion") else {
                return false;
            };
            let parts: Vec<&str> = assertion.split('.').collect();
            if parts.len() != 3
                || get(&f, "client_assertion_type")
                    != Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            {
                return false;
            }
            let claims: Value =
                serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
            let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
            claims["iss"] == "machine-1"
                && claims["sub"] == "machine-1"
                && claims["aud"] == base
                && ring::signature::UnparsedPublicKey::new(
                    &ring::signature::ECDSA_P256_SHA256_FIXED,
                    public,
                )
                .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
                .is_ok()
        }
    }
}

/// An authorization server with a revocation endpoint that accepts only
/// requests authenticated as the grant's client (`invalid_client`
/// otherwise, as RFC 7009 § 2.2.1 says).
async fn revoking(expect: Expect, public: Vec<u8>) -> Mock {
    Mock::start_with(Script::default(), move |base, r| match r.path() {
        "/.well-known/oauth-authorization-server" => Some(Reply::json(
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "revocation_endpoint": format!("{base}/revoke"),
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported":
                    ["client_secret_basic", "client_secret_post", "private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
            })
            .to_string(),
        )),
        "/revoke" if authenticated_as_client(r, expect, base, &public) => Some(Reply::status(200)),
        "/revoke" => Some(
            Reply::json(r#"{"error":"invalid_client","error_description":"who are you"}"#)
                .with_status(401),
        ),
        _ => None,
    })
    .await
}

/// `logout(revoke)` of a grant's token authenticates at the revocation
/// endpoint as the grant's client, by the grant's own method
/// (`client_secret_basic`, `client_secret_post`, `private_key_jwt` with a
/// new assertion), and revokes the access token; a workload identity grant
/// has no client authentication: nothing is sent, the login is only
/// forgotten here and the report says revocation is not offered.
#[tokio::test]
async fn logout_revokes_a_grants_token_as_the_grants_client() {
    let key = PrivateKey::from_pem(include_str!("keys/ec-p256.pem")).unwrap();
    let public = key.public_key_bytes().to_vec();
    let key = Arc::new(key);
    for expect in [Expect::Basic, Expect::Post, Expect::Jwt] {
        let mock = revoking(expect, public.clone()).await;
        let authentication = match expect {
            Expect::Basic => {
                ClientAuthentication::ClientSecretBasic(Secret::new("cc-secret-value"))
            }
            Expect::Post => ClientAuthentication::ClientSecretPost(Secret::new("cc-secret-value")),
            Expect::Jwt => ClientAuthentication::PrivateKeyJwt(key.clone()),
        };
        let oauth = machine(
            &mock,
            Grant::ClientCredentials(ConfidentialClient::new("machine-1", authentication)),
        );
        oauth.login().await.unwrap();
        let report = oauth.logout(true).await.unwrap().expect("a stored token");
        assert_eq!(report.revocation, Revocation::Revoked, "{expect:?}");
        let revoked = mock.to("/revoke");
        assert_eq!(
            revoked.len(),
            1,
            "{expect:?}: the access token, no refresh token"
        );
        let f = form(&revoked[0]);
        assert_eq!(get(&f, "token"), Some("access-secret-1"));
        assert_eq!(get(&f, "token_type_hint"), Some("access_token"));
        assert!(oauth.status().await.unwrap().is_none(), "forgotten here");
    }

    let mock = revoking(Expect::Basic, public).await;
    let token = jwt(json!({"sub": "w", "aud": mock.base, "exp": now() + 300}));
    let oauth = machine(
        &mock,
        Grant::WorkloadIdentity {
            assertion: Arc::new(CallbackAssertion::new("test", move || {
                let t = token.clone();
                async move { Ok(Secret::new(t)) }
            })),
        },
    );
    oauth.login().await.unwrap();
    let report = oauth.logout(true).await.unwrap().expect("a stored token");
    assert_eq!(report.revocation, Revocation::NoClientAuthentication);
    assert!(mock.to("/revoke").is_empty(), "nothing is sent");
    assert!(oauth.status().await.unwrap().is_none(), "forgotten here");
}

/// The variable `name`'s `SecretUnavailable` error, "is not set".
fn assert_unset(e: &AuthError, what: &str, name: &str) {
    match e {
        AuthError::SecretUnavailable {
            what: w,
            variable,
            problem,
            ..
        } => {
            assert_eq!(
                (*w, variable.as_str(), *problem),
                (what, name, "is not set")
            );
        }
        other => panic!("not SecretUnavailable: {other:?}"),
    }
    assert_eq!(
        e.to_string(),
        format!("{what}: environment variable {name} is not set")
    );
}

/// A client secret named by an environment variable that is not set (a
/// grant's `client_secret_basic` or `client_secret_post`, the identity
/// provider's client, a pre-registered client's refresh) is read at the
/// request that needs it and fails it with `SecretUnavailable` naming the
/// variable: nothing is sent to the endpoint, no other client is
/// registered or used instead.
#[tokio::test]
async fn a_client_secret_in_an_unset_variable_fails_the_request_naming_it() {
    const UNSET: &str = "MCP_AUTH_TEST_SECRET_THAT_IS_NEVER_SET";
    assert!(std::env::var_os(UNSET).is_none());
    let script = Script {
        auth_methods: vec!["client_secret_basic", "client_secret_post"],
        ..Script::default()
    };
    for authentication in [
        ClientAuthentication::ClientSecretBasicEnv(UNSET.into()),
        ClientAuthentication::ClientSecretPostEnv(UNSET.into()),
    ] {
        let shown = format!("{authentication:?}");
        assert!(shown.contains(UNSET), "{shown}");
        let mock = Mock::start(script.clone()).await;
        let oauth = machine(
            &mock,
            Grant::ClientCredentials(ConfidentialClient::new("machine-1", authentication)),
        );
        assert_unset(&oauth.login().await.unwrap_err(), "client secret", UNSET);
        let t = mock.connect(&oauth).await;
        let e = call(&t, "tools/list").await.unwrap_err();
        assert!(
            chain(&e).contains(&format!("environment variable {UNSET} is not set")),
            "{}",
            chain(&e)
        );
        assert!(mock.to("/token").is_empty(), "nothing is sent");
    }

    // The identity provider's client secret: no token exchange.
    let mock = Mock::start(script.clone()).await;
    let id_token = jwt(json!({"sub": "u", "exp": now() + 300}));
    let mut grant = enterprise(&mock, &id_token);
    if let Grant::EnterpriseManaged {
        identity_provider, ..
    } = &mut grant
    {
        *identity_provider = identity_provider
            .clone()
            .with_client_secret_env("idp-client", UNSET);
    }
    let oauth = machine(&mock, grant);
    assert_unset(
        &oauth.login().await.unwrap_err(),
        "identity provider client secret",
        UNSET,
    );
    assert!(mock.to("/idp/token").is_empty() && mock.to("/token").is_empty());

    // A pre-registered client's expired login: its refresh needs the
    // secret; no registration of another client, no login.
    let mock = Mock::start(Script {
        refresh_tokens: true,
        ..script
    })
    .await;
    let store = Arc::new(MemoryStore::new());
    let mut tokens = TokenRecord::new(Secret::new("expired-token"));
    tokens.refresh_token = Some(Secret::new("refresh-secret-0"));
    tokens.expires_at = Some(SystemTime::now() - Duration::from_secs(10));
    store
        .put(
            &StoreKey::tokens(mock.url(), mock.base.clone(), "default"),
            Record::Tokens(tokens),
            None,
        )
        .await
        .unwrap();
    let config = mock.config().with_preregistered(
        PreregisteredClient::new("configured-client", None).with_client_secret_env(UNSET),
    );
    let oauth = OAuth::new(config, store, Arc::new(NoInteraction::new("no one to ask"))).unwrap();
    let t = mock.connect(&oauth).await;
    let e = call(&t, "tools/list").await.unwrap_err();
    let text = chain(&e);
    assert!(
        text.contains(&format!(
            "client secret: environment variable {UNSET} is not set"
        )),
        "{text}"
    );
    assert!(mock.to("/token").is_empty(), "no refresh was sent");
    assert!(mock.to("/register").is_empty() && mock.to("/authorize").is_empty());
}
