//! Tokens over time: refresh ahead of expiry (with `resource`, keeping the
//! refresh token when none comes back, taking a rotated one), only
//! `invalid_grant` forgetting tokens, and secrets never reaching logs or
//! errors.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mcp_auth::{ClientRecord, CredentialStore, MemoryStore, OAuth, Record, StoreKey};
use mcp_transport::AuthErrorKind;

fn refreshing(script: Script) -> Script {
    Script {
        refresh_tokens: true,
        // Tokens live 4 s: refreshed once less than half of that is left,
        // so a request up to 2 s after a token arrives still uses it even
        // on a loaded machine.
        expires_in: 4,
        ..script
    }
}

/// Waits until the current token is due for a refresh (2 s of its 4 s
/// left is the threshold; any later moment is due as well).
async fn until_due() {
    tokio::time::sleep(Duration::from_millis(2_400)).await;
}

/// An access token about to expire is refreshed before the request, with
/// `resource`; a rotated refresh token replaces the old one.
#[tokio::test]
async fn expiring_tokens_are_refreshed_first_and_rotation_is_kept() {
    let mock = Mock::start(refreshing(Script::default())).await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    until_due().await;
    call(&t, "tools/list").await.unwrap();
    until_due().await;
    call(&t, "tools/list").await.unwrap();
    let tokens = mock.to("/token");
    let grants: Vec<(String, Option<String>)> = tokens
        .iter()
        .map(|r| {
            let f = form(r);
            (
                get(&f, "grant_type").unwrap().to_owned(),
                get(&f, "refresh_token").map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        grants,
        [
            ("authorization_code".to_owned(), None),
            ("refresh_token".into(), Some("refresh-secret-1".into())),
            ("refresh_token".into(), Some("refresh-secret-2".into())),
        ],
        "each refresh uses the rotated token"
    );
    let resource = format!("{}/mcp", mock.base);
    for r in &tokens {
        assert_eq!(get(&form(r), "resource"), Some(resource.as_str()));
    }
    let sent: Vec<Option<String>> = mock
        .to("/mcp")
        .iter()
        .map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert_eq!(
        sent,
        [
            None,
            Some("Bearer access-secret-1".into()),
            Some("Bearer access-secret-2".into()),
            Some("Bearer access-secret-3".into()),
        ]
    );
    assert_eq!(mock.to("/authorize").len(), 1, "no second login");
}

/// A refresh answer without a refresh token keeps the old one.
#[tokio::test]
async fn a_refresh_without_a_new_refresh_token_keeps_the_old_one() {
    let mock = Mock::start(refreshing(Script {
        refresh_without_rotation: true,
        ..Script::default()
    }))
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    for _ in 0..2 {
        until_due().await;
        call(&t, "tools/list").await.unwrap();
    }
    let used: Vec<Option<String>> = mock
        .to("/token")
        .iter()
        .map(|r| get(&form(r), "refresh_token").map(str::to_owned))
        .collect();
    assert_eq!(
        used,
        [
            None,
            Some("refresh-secret-1".into()),
            Some("refresh-secret-1".into())
        ]
    );
}

/// `invalid_grant` forgets the tokens (the next request logs in again); a
/// 5xx keeps them (the old token is still sent, no new login).
#[tokio::test]
async fn only_invalid_grant_forgets_tokens() {
    let mock = Mock::start(refreshing(Script {
        refresh_status: 400,
        ..Script::default()
    }))
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    until_due().await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(mock.to("/authorize").len(), 2, "logged in again");
    let last = mock.to("/mcp");
    assert_eq!(
        last.last().unwrap().header("authorization"),
        Some("Bearer access-secret-2")
    );

    let mock = Mock::start(refreshing(Script {
        refresh_status: 503,
        ..Script::default()
    }))
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    until_due().await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(mock.to("/authorize").len(), 1, "no new login on a 5xx");
    let sent: Vec<Option<String>> = mock
        .to("/mcp")
        .iter()
        .map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert_eq!(
        sent.last().unwrap().as_deref(),
        Some("Bearer access-secret-1")
    );
}

/// Registrations are keyed by issuer: a stored client for this issuer is
/// used without registering again; one for another issuer is not.
#[tokio::test]
async fn stored_clients_are_per_issuer() {
    let mock = Mock::start(Script::default()).await;
    let store = Arc::new(MemoryStore::new());
    let other = StoreKey::Client {
        issuer: "https://other.example.com".into(),
    };
    store
        .put(
            &other,
            Record::Client(ClientRecord::new("other-client", None)),
            None,
        )
        .await
        .unwrap();
    let agent = Arc::new(mcp_auth::HeadlessRedirect::new(
        mcp_transport_http::Fetcher::new(fetch_options()),
    ));
    let oauth = OAuth::new(mock.config(), store.clone(), agent.clone()).unwrap();
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(
        mock.to("/register").len(),
        1,
        "another issuer's client is not used"
    );
    let q = &mock.authorize_queries()[0];
    assert_eq!(get(q, "client_id"), Some("dcr-client"));

    // A second connection with the same store reuses the registration.
    let oauth = OAuth::new(mock.config(), store, agent).unwrap();
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(mock.to("/register").len(), 1, "registered once per issuer");
}

/// A writer the global subscriber hands every log line to.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A full flow, a refresh, a refused refresh whose description echoes the
/// refresh token, and a failing login: no token, code, verifier or client
/// secret appears in any log line (at trace level) or error text.
#[tokio::test]
async fn secrets_never_reach_logs_or_errors() {
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    // Global, so that no call site was cached as uninteresting by a test
    // running meanwhile without a subscriber; lines of the other tests of
    // this binary land in the capture too, and must hold no secret either.
    tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");

    let mut errors = Vec::new();
    let mock = Mock::start(refreshing(Script {
        auth_methods: vec!["client_secret_post"],
        refresh_status: 400,
        // Not invalid_grant: the failure is logged (and the old token kept).
        refresh_error: "temporarily_unavailable",
        refresh_error_description: Some("refresh token refresh-secret-1 is revoked"),
        ..Script::default()
    }))
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    until_due().await;
    call(&t, "tools/list").await.unwrap();
    errors.push(format!("{oauth:?}"));

    // A login that fails at the token endpoint after the code was issued.
    let mock = Mock::start(Script {
        advertise_iss: true,
        send_iss: Some("https://evil.example.com"),
        ..Script::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    assert_eq!(err.auth_kind(), Some(AuthErrorKind::Denied));
    errors.push(err.to_string());
    errors.push(format!("{err:?}"));
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        errors.push(s.to_string());
        source = s.source();
    }

    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("authorizing with the authorization server"),
        "logs captured"
    );
    let everything = format!("{logs}\n{}", errors.join("\n"));
    for secret in [
        "access-secret-",
        "refresh-secret-",
        "code-secret-1234",
        "dcr-secret-value",
        "code_verifier=",
    ] {
        assert!(
            !everything.contains(secret),
            "{secret} leaked:\n{everything}"
        );
    }
}
