//! Device authorization (RFC 8628) against a scripted authorization
//! server: the device request carries the client, `resource` and scope;
//! the user is shown the verification URI and the user code (never the
//! device code); the token endpoint is polled through
//! `authorization_pending` until it answers; the tokens are stored and
//! used. A refusal (`access_denied`) ends the login with that error; a
//! server without a device endpoint is refused before any request to it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use fault_http::Reply;
use mcp_auth::{DevicePrompt, MemoryStore, NoInteraction, OAuth};
use serde_json::json;

/// A mock whose authorization server offers device authorization; the
/// token endpoint answers the device grant `pending` times with
/// `authorization_pending`, then `last`.
async fn device_mock(pending: usize, last: &'static str) -> Mock {
    let polls = Arc::new(Mutex::new(0usize));
    Mock::start_with(Script::default(), move |base, r| match r.path() {
        "/.well-known/oauth-authorization-server" => Some(Reply::json(
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "device_authorization_endpoint": format!("{base}/device"),
                "code_challenge_methods_supported": ["S256"],
            })
            .to_string(),
        )),
        "/device" => Some(Reply::json(
            json!({
                "device_code": "device-secret-code",
                "user_code": "WDJB-MJHT",
                "verification_uri": format!("{base}/activate"),
                "verification_uri_complete": format!("{base}/activate?user_code=WDJB-MJHT"),
                "expires_in": 60,
                "interval": 1,
            })
            .to_string(),
        )),
        "/token" => {
            let f = form(r);
            if get(&f, "grant_type") != Some("urn:ietf:params:oauth:grant-type:device_code") {
                return None;
            }
            let mut n = polls.lock().unwrap();
            *n += 1;
            if *n <= pending {
                return Some(
                    Reply::json(r#"{"error":"authorization_pending"}"#).with_status(400),
                );
            }
            Some(match last {
                "ok" => Reply::json(
                    r#"{"access_token":"access-secret-77","token_type":"Bearer","expires_in":3600}"#,
                ),
                error => Reply::json(json!({ "error": error }).to_string()).with_status(400),
            })
        }
        _ => None,
    })
    .await
}

fn flow(mock: &Mock) -> OAuth {
    OAuth::new(
        mock.config(),
        Arc::new(MemoryStore::new()),
        Arc::new(NoInteraction::new("no browser here")),
    )
    .unwrap()
}

#[tokio::test]
async fn a_device_login_polls_until_the_user_answers() {
    let mock = device_mock(1, "ok").await;
    let oauth = flow(&mock);
    let shown = Arc::new(Mutex::new(Vec::<DevicePrompt>::new()));
    let s = shown.clone();
    let status = oauth
        .login_device(&move |p: &DevicePrompt| s.lock().unwrap().push(p.clone()))
        .await
        .unwrap();
    assert_eq!(status.account, "default");
    let prompts = shown.lock().unwrap().clone();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].user_code, "WDJB-MJHT");
    assert!(!format!("{prompts:?}").contains("device-secret-code"));

    let device = mock.to("/device");
    assert_eq!(device.len(), 1);
    let f = form(&device[0]);
    assert_eq!(get(&f, "resource"), Some(mock.url().as_str()));
    // The client authenticates as registered (here with a secret, Basic).
    assert!(get(&f, "client_id").is_some() || device[0].header("authorization").is_some());
    // Registered for the device grant too.
    let reg: serde_json::Value = serde_json::from_slice(&mock.to("/register")[0].body).unwrap();
    assert!(
        reg["grant_types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g == "urn:ietf:params:oauth:grant-type:device_code"),
        "{reg}"
    );
    let polls: Vec<_> = mock
        .to("/token")
        .iter()
        .map(|r| get(&form(r), "device_code").map(str::to_owned))
        .collect();
    assert_eq!(
        polls,
        [
            Some("device-secret-code".into()),
            Some("device-secret-code".into())
        ]
    );
    // The stored login works.
    call(&mock.connect(&oauth).await, "tools/list")
        .await
        .unwrap();
    assert_eq!(
        oauth.access_token().await.unwrap().expose(),
        "access-secret-77"
    );
}

#[tokio::test]
async fn a_refused_device_login_says_so() {
    let mock = device_mock(0, "access_denied").await;
    let e = flow(&mock)
        .login_device(&|_: &DevicePrompt| {})
        .await
        .unwrap_err();
    assert!(e.to_string().contains("the user refused"), "{e}");
    assert!(!e.to_string().contains("device-secret-code"), "{e}");
}

#[tokio::test]
async fn no_device_endpoint_no_device_login() {
    let mock = Mock::start(Script::default()).await;
    let e = flow(&mock)
        .login_device(&|_: &DevicePrompt| panic!("nothing to show"))
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("device_authorization_endpoint"),
        "{e}"
    );
    assert!(mock.to("/register").is_empty());
}
