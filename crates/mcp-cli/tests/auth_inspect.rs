//! `mcp auth inspect URL`: one line per step of the flow's discovery walk
//! (each URL with its status and verdict, each check), then whether a
//! login can proceed; exit 0 when it can, 2 when it cannot. `--json` is
//! the same report as one document.
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

/// An MCP endpoint at `/mcp` behind OAuth, its metadata at `base`; with
/// `broken_prm`, the protected resource metadata is an HTML page.
fn protected(base: &str, broken_prm: bool, r: &Recorded) -> Reply {
    match r.path() {
        "/.well-known/oauth-protected-resource/mcp" if broken_prm => Reply::status(200)
            .header("content-type", "text/html")
            .body("<html>sign in</html>"),
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
        "/mcp" => Reply::status(401).header(
            "www-authenticate",
            &format!(
                r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
            ),
        ),
        _ => Reply::status(404),
    }
}

async fn server(broken_prm: bool) -> FaultServer {
    let base = Arc::new(OnceLock::<String>::new());
    let b = base.clone();
    let server = FaultServer::start(move |r| protected(b.get().expect("base set"), broken_prm, r))
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
async fn a_sound_server_is_shown_step_by_step() {
    let server = server(false).await;
    let base = server.url("");
    let url = server.url("/mcp");
    let out = run(vec!["auth".into(), "inspect".into(), url.clone()]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    let want = format!(
        "ok   the MCP server at {url} HTTP 401: asks for authorization \
         (resource_metadata: {base}/.well-known/oauth-protected-resource/mcp, scope: none)\n\
         ok   protected resource metadata at {base}/.well-known/oauth-protected-resource/mcp HTTP 200: found\n\
         ok   resource check: resource {base}/mcp identifies the server\n\
         ok   authorization server metadata at {base}/.well-known/oauth-authorization-server HTTP 200: found\n\
         ok   issuer check: issuer {base} is the one looked up\n\
         ok   PKCE: S256 advertised\n\
         ok   client registration: dynamic client registration offered\n\
         ok   token revocation: not offered\n\
         ok   device authorization: not offered\n\
         ok   iss on redirects: not offered\n\
         A login can proceed: `mcp login URL`.\n"
    );
    assert_eq!(out.stdout, want, "{}", out.stderr);
    // Nothing was registered.
    assert!(server.requests().iter().all(|r| r.path() != "/register"));

    let out = run(vec![
        "--json".into(),
        "auth".into(),
        "inspect".into(),
        url.clone(),
    ])
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["server"], url.as_str());
    assert_eq!(report["usable"], true);
    assert_eq!(report["steps"].as_array().unwrap().len(), 10, "{report}");
    assert_eq!(
        report["steps"][1],
        json!({
            "what": "protected resource metadata",
            "url": format!("{base}/.well-known/oauth-protected-resource/mcp"),
            "status": 200,
            "verdict": "found",
            "ok": true,
        })
    );
}

/// Protected resource metadata that is not JSON stops the login, so it
/// stops the inspection there too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_walk_stops_where_the_login_would() {
    let server = server(true).await;
    let base = server.url("");
    let url = server.url("/mcp");
    let out = run(vec!["auth".into(), "inspect".into(), url.clone()]).await;
    assert_eq!(out.code, Some(2), "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[1..],
        [
            format!(
                "FAIL protected resource metadata at {base}/.well-known/oauth-protected-resource/mcp HTTP 200: not JSON"
            )
            .as_str(),
            "A login cannot proceed with what the server publishes (see FAIL above).",
        ],
        "{}",
        out.stdout
    );
}
