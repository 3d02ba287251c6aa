//! The flow's errors: a caller branches on a typed reason (what kind of
//! metadata, registration or authorization response problem), each
//! error's `Display` says its own level and the cause is its `source()`,
//! and no error shows a value from a response that may hold a secret.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::error::Error as _;

use common::*;
use fault_http::Reply;
use mcp_auth::{
    AuthError, CredentialStore, FileStore, MetadataProblem, Record, RegistrationProblem,
    ResponseProblem, Revision, StoreError, StoreKey,
};

/// `e`'s text and every cause's, one per line.
fn chain(e: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        out.push(s.to_string());
        source = s.source();
    }
    out
}

/// No level repeats the one below it: `Display` is this level's, the
/// cause is only in `source()`.
fn assert_levels(e: &(dyn std::error::Error + 'static)) {
    let levels = chain(e);
    for pair in levels.windows(2) {
        assert!(
            !pair[0].contains(&pair[1]),
            "{:?} repeats its cause {:?}",
            pair[0],
            pair[1]
        );
    }
}

/// A registration answer that is not one (a member of the wrong type)
/// never shows its values: the answer may carry the client secret.
#[tokio::test]
async fn a_registration_answer_never_shows_its_values() {
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/register").then(|| {
            Reply::json(r#"{"client_id":"c1","client_secret":987654321012345}"#).with_status(201)
        })
    })
    .await;
    let err = mock.oauth(mock.config()).login().await.unwrap_err();
    let text = chain(&err).join("\n");
    assert!(!text.contains("987654321012345"), "{text}");
    assert!(text.contains("not a registration response"), "{text}");
    assert!(text.contains("wrong type"), "{text}");
    assert_levels(&err);
}

/// A missing member is named (no value is in that text).
#[tokio::test]
async fn a_registration_answer_without_client_id_says_so() {
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/register")
            .then(|| Reply::json(r#"{"client_secret":"s-1"}"#).with_status(201))
    })
    .await;
    let err = mock.oauth(mock.config()).login().await.unwrap_err();
    match &err {
        AuthError::Registration { reason, .. } => {
            assert_eq!(*reason, RegistrationProblem::NotAResponse)
        }
        other => panic!("{other:?}"),
    }
    let text = chain(&err).join("\n");
    assert!(text.contains("missing field `client_id`"), "{text}");
    assert!(!text.contains("s-1"), "{text}");
    assert_levels(&err);
}

/// A refused registration carries the status and the OAuth error code.
#[tokio::test]
async fn a_refused_registration_is_typed() {
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/register").then(|| {
            Reply::json(r#"{"error":"invalid_redirect_uri","error_description":"no"}"#)
                .with_status(400)
        })
    })
    .await;
    let err = mock.oauth(mock.config()).login().await.unwrap_err();
    match &err {
        AuthError::Registration { reason, .. } => assert_eq!(
            *reason,
            RegistrationProblem::Refused {
                status: 400,
                error: Some("invalid_redirect_uri".into())
            }
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .ends_with("failed: HTTP 400 invalid_redirect_uri"),
        "{err}"
    );
}

/// Metadata that is not a document: the reason is typed and the parser's
/// error is the source, not part of the text.
#[tokio::test]
async fn metadata_that_is_not_a_document_has_the_parser_error_as_its_source() {
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/.well-known/oauth-protected-resource/mcp")
            .then(|| Reply::json(r#"{"authorization_servers":[]}"#))
    })
    .await;
    let err = mock.oauth(mock.config()).login().await.unwrap_err();
    match &err {
        AuthError::Metadata { reason, what, .. } => {
            assert_eq!(*reason, MetadataProblem::NotADocument);
            assert_eq!(*what, "protected resource metadata");
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().ends_with("not a valid document"), "{err}");
    let source = err.source().expect("the parser's error");
    assert_eq!(
        source.to_string(),
        "missing field `resource` at line 1 column 28"
    );
    assert_levels(&err);
}

/// Every metadata problem the flow reports is a reason a caller can match.
#[tokio::test]
async fn metadata_problems_are_typed() {
    // A 2025-03-26 server whose metadata URL answers 500.
    let legacy = Mock::start_with(
        Script {
            legacy: true,
            ..Script::default()
        },
        |_, r| (r.path() == "/.well-known/oauth-authorization-server").then(|| Reply::status(500)),
    )
    .await;
    let err = legacy.oauth(legacy.config()).login().await.unwrap_err();
    assert!(
        matches!(
            err,
            AuthError::Metadata {
                reason: MetadataProblem::Status(500),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.source().is_none());

    // Resource metadata that names no authorization server.
    let empty = Mock::start_with(Script::default(), |base, r| {
        (r.path() == "/.well-known/oauth-protected-resource/mcp").then(|| {
            Reply::json(format!(
                r#"{{"resource":"{base}/mcp","authorization_servers":[]}}"#
            ))
        })
    })
    .await;
    let err = empty.oauth(empty.config()).login().await.unwrap_err();
    assert!(
        matches!(
            err,
            AuthError::Metadata {
                reason: MetadataProblem::NoAuthorizationServers,
                ..
            }
        ),
        "{err:?}"
    );

    // No metadata at any of the issuer's well-known URLs.
    let none = Mock::start_with(Script::default(), |_, r| {
        matches!(
            r.path(),
            "/.well-known/oauth-authorization-server" | "/.well-known/openid-configuration"
        )
        .then(|| Reply::status(404))
    })
    .await;
    let err = none.oauth(none.config()).login().await.unwrap_err();
    assert!(
        matches!(
            err,
            AuthError::Metadata {
                reason: MetadataProblem::NotFound { tried: 2 },
                ..
            }
        ),
        "{err:?}"
    );

    // A device login where the authorization server offers none.
    let device = Mock::start(Script::default()).await;
    let err = device
        .oauth(device.config())
        .login_device(&|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            AuthError::Metadata {
                reason: MetadataProblem::NoDeviceAuthorization,
                ..
            }
        ),
        "{err:?}"
    );
}

/// An authorization response whose `state` is not the one sent.
#[tokio::test]
async fn a_state_mismatch_is_typed() {
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/authorize").then(|| {
            Reply::status(302).header(
                "location",
                &format!("{REDIRECT}?code=code-secret-1234&state=another"),
            )
        })
    })
    .await;
    let err = mock.oauth(mock.config()).login().await.unwrap_err();
    match &err {
        AuthError::AuthorizationResponse { reason, error, .. } => {
            assert_eq!(*reason, ResponseProblem::StateMismatch);
            assert_eq!(*error, None);
        }
        other => panic!("{other:?}"),
    }
    assert!(!chain(&err).join("\n").contains("code-secret-1234"));
    // Nothing was redeemed.
    assert!(mock.to("/token").is_empty());
}

/// A store that cannot be created keeps the I/O error as its source.
#[test]
fn a_store_failure_keeps_its_cause() {
    let dir = mcp_tests::temp_dir("store-error");
    let file = dir.join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let path = file.join("store");
    let err = FileStore::new(&path).unwrap_err();
    assert!(matches!(err, StoreError::Backend { .. }), "{err:?}");
    let source = err.source().expect("the I/O error");
    assert!(source.is::<std::io::Error>(), "{source:?}");
    assert_eq!(err.to_string(), format!("cannot read {}", path.display()));
    assert_levels(&err);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A store that cannot read anything.
#[derive(Debug)]
struct Broken;

fn broken() -> StoreError {
    StoreError::backend(
        "cannot read the tokens file",
        std::io::Error::other("disk on fire"),
    )
}

#[async_trait::async_trait]
impl CredentialStore for Broken {
    async fn get(&self, _: &StoreKey) -> Result<Option<(Record, Revision)>, StoreError> {
        Err(broken())
    }
    async fn put(
        &self,
        _: &StoreKey,
        _: Record,
        _: Option<Revision>,
    ) -> Result<Revision, StoreError> {
        Err(broken())
    }
    async fn delete(&self, _: &StoreKey) -> Result<(), StoreError> {
        Err(broken())
    }
    async fn keys(&self) -> Result<Vec<StoreKey>, StoreError> {
        Err(broken())
    }
    fn describe(&self) -> String {
        "broken".into()
    }
}

/// The flow's store error says its level once; the store's error, then
/// its cause, follow in `source()`.
#[tokio::test]
async fn a_store_failure_in_the_flow_says_each_level_once() {
    let err = mcp_auth::logins(&Broken).await.unwrap_err();
    assert!(matches!(err, AuthError::Store { .. }), "{err:?}");
    assert_eq!(
        chain(&err),
        [
            "credential store failed",
            "cannot read the tokens file",
            "disk on fire"
        ]
    );
}
