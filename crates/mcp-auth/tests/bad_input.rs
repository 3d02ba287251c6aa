//! What a broken or hostile server or authorization server sends gets a
//! clear typed error naming the URL and what was wrong (no secret), the
//! flow stops there, and the connection survives; concurrent refusals
//! share one login.

mod common;

use std::time::Duration;

use common::*;
use fault_http::{Part, Reply};
use mcp_transport::AuthErrorKind;

/// (what the override serves, the path, the words the error must hold,
/// paths that must not have been reached).
type Case = (
    fn(&str) -> Reply,
    &'static str,
    &'static str,
    &'static [&'static str],
);

#[tokio::test]
async fn bad_documents_and_answers_are_clear_errors() {
    let cases: Vec<Case> = vec![
        (
            |_| Reply::json("{not json"),
            "/.well-known/oauth-protected-resource/mcp",
            "not a valid document",
            &["/authorize", "/register"],
        ),
        (
            |_| {
                Reply::status(200)
                    .header("content-type", "text/html")
                    .body("<html>hi</html>")
            },
            "/.well-known/oauth-authorization-server",
            "not JSON",
            &["/authorize", "/register"],
        ),
        (
            |_| Reply::json(r#"{"resource":"x"}"#),
            "/.well-known/oauth-authorization-server",
            "not a valid document",
            &["/authorize", "/register"],
        ),
        (
            |b| {
                Reply::json(format!(
                    r#"{{"issuer":"{b}","authorization_endpoint":"{b}/authorize",
                        "token_endpoint":"{b}/token","registration_endpoint":"{b}/register"}}"#
                ))
            },
            "/.well-known/oauth-authorization-server",
            "does not advertise PKCE S256",
            &["/authorize", "/register"],
        ),
        (
            |b| {
                Reply::json(format!(
                    r#"{{"issuer":"{b}","authorization_endpoint":"http://example.com/authorize",
                        "token_endpoint":"{b}/token","code_challenge_methods_supported":["S256"]}}"#
                ))
            },
            "/.well-known/oauth-authorization-server",
            "must be https",
            &["/register"],
        ),
        (
            |_| {
                Reply::status(500)
                    .header("content-type", "text/html")
                    .body("<html>oops code-secret-1234</html>")
            },
            "/token",
            "HTTP 500",
            &[],
        ),
        (
            |_| Reply::json(r#"{"token_type":"Bearer"}"#),
            "/token",
            "no access_token",
            &[],
        ),
        (
            |_| Reply::json(r#"{"access_token":"a","token_type":"mac"}"#),
            "/token",
            "token_type is not Bearer",
            &[],
        ),
        (
            |_| Reply::json(r#"{"error":"invalid_client_metadata"}"#).with_status(400),
            "/register",
            "invalid_client_metadata",
            &["/authorize"],
        ),
        (
            |_| Reply::status(200).body("no location"),
            "/authorize",
            "not a redirect",
            &["/token"],
        ),
    ];
    for (serve, path, words, unreached) in cases {
        let mock = Mock::start_with(Script::default(), move |base, r| {
            (r.path() == path).then(|| serve(base))
        })
        .await;
        let oauth = mock.oauth(mock.config());
        let t = mock.connect(&oauth).await;
        let err = call(&t, "tools/list").await.unwrap_err();
        assert_eq!(
            err.auth_kind(),
            Some(AuthErrorKind::Denied),
            "{path}: {err}"
        );
        let text = err.to_string();
        assert!(text.contains(words), "{path}: {text}");
        assert!(!text.contains("code-secret-1234"), "{path}: {text}");
        for p in unreached {
            assert!(mock.to(p).is_empty(), "{path}: {p} reached");
        }
    }
}

/// An authorization server that never answers is bounded by the fetch
/// timeout; the error says so.
#[tokio::test]
async fn an_authorization_server_that_never_answers_times_out() {
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/token").then(|| Reply::status(200).parts(vec![Part::pause_ms(10_000)]))
    })
    .await;
    let fetch = fetch_options().with_timeout(Duration::from_millis(300));
    let oauth = mock.oauth(mock.config().with_fetch(fetch));
    let t = mock.connect(&oauth).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    let source = std::error::Error::source(&err)
        .map(|s| s.to_string())
        .unwrap_or_default();
    assert!(
        err.to_string().contains("token request") && source.contains("timed out"),
        "{err} / {source}"
    );
}

/// Several requests refused at once share one login: the first runs the
/// flow, the others find its token and retry.
#[tokio::test]
async fn concurrent_refusals_share_one_login() {
    let mock = Mock::start(Script::default()).await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    let calls = (0..5).map(|_| call(&t, "tools/list"));
    for result in futures_util::future::join_all(calls).await {
        result.unwrap();
    }
    assert_eq!(mock.to("/authorize").len(), 1, "one login for all");
    assert_eq!(mock.to("/register").len(), 1);
}
