//! `mcp` against a remote server behind OAuth, not logged in: it says the
//! server needs a login and names the exact `mcp login` command (not a
//! bare 401), exits with the code of its own (3), and registers no client;
//! given its own `Authorization` header (or `auth: "headers"`) the
//! server's refusal is shown as it came and no flow starts.
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
        assert_eq!(out.code, Some(3), "{command}: {shown}");
        assert!(
            shown.contains(&format!(
                "authorization needs login for {url}: run `mcp login {url}`, then try again"
            )),
            "{command}: {shown}"
        );
    }
    // From a configuration, the command names the file and the entry.
    let dir = temp_dir("needs-login-config");
    let file = dir.join("servers.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {"locked": {"url": url}, "static": {"url": url, "auth": "headers"}}})
            .to_string(),
    )
    .unwrap();
    let file_arg = file.to_str().unwrap().to_owned();
    let out = run(vec![
        "--config".into(),
        file_arg.clone(),
        "tools".into(),
        "locked".into(),
    ])
    .await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(out.code, Some(3), "{shown}");
    assert!(
        shown.contains(&format!("run `mcp --config {file_arg} login locked`")),
        "{shown}"
    );
    // `auth: "headers"`: the refusal as it came, no flow.
    let out = run(vec![
        "--config".into(),
        file_arg,
        "tools".into(),
        "static".into(),
    ])
    .await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(out.code, Some(2), "{shown}");
    assert!(shown.contains("401"), "{shown}");
    assert!(!shown.contains("login"), "{shown}");
    let _ = std::fs::remove_dir_all(&dir);
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
