//! `mcp` against a remote server behind OAuth: with no way to log in yet,
//! it says the server needs a login and what to do (not a bare 401), exits
//! non-zero, and registers no client; given its own `Authorization` header
//! the server's refusal is shown as it came.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::sync::{Arc, OnceLock};

use fault_http::{FaultServer, Recorded, Reply};
use serde_json::json;
use support::*;

/// An MCP endpoint at `/mcp` that wants a token, with its protected
/// resource metadata and authorization server metadata at `base`.
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
        "/mcp" => Reply::status(401)
            .header(
                "www-authenticate",
                &format!(
                    r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
                ),
            )
            .body("unauthorized"),
        _ => Reply::status(404),
    }
}

async fn server() -> FaultServer {
    let base = Arc::new(OnceLock::<String>::new());
    let b = base.clone();
    let server = FaultServer::start(move |r| protected(b.get().expect("base set"), r))
        .await
        .unwrap();
    base.set(server.url("")).unwrap();
    server
}

async fn run(args: Vec<String>) -> Run {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mcp(&args)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_needs_a_login_says_so_and_what_to_do() {
    let server = server().await;
    let url = server.url("/mcp");
    for command in ["tools", "servers"] {
        let out = run(vec!["--url".into(), url.clone(), command.into()]).await;
        let shown = format!("{}{}", out.stdout, out.stderr);
        assert_ne!(out.code, Some(0), "{command}: {shown}");
        assert!(
            shown.contains(&format!("authorization needs login for {url}: server ")),
            "{command}: {shown}"
        );
        assert!(
            shown.contains(r#"--header "Authorization: Bearer <token>""#),
            "{command}: {shown}"
        );
    }
    assert!(server.requests().iter().all(|r| r.path() != "/register"));

    let out = run(vec![
        "--url".into(),
        url,
        "--header".into(),
        "Authorization: Bearer expired-token".into(),
        "tools".into(),
    ])
    .await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_ne!(out.code, Some(0), "{shown}");
    assert!(shown.contains("401"), "{shown}");
    assert!(!shown.contains("needs login"), "{shown}");
    assert!(!shown.contains("expired-token"), "{shown}");
}
