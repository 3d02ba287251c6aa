//! `mcp` with a grant without a person configured in an `mcpServers`
//! entry's `oauth` object: no `mcp login` (it refuses, saying why), the
//! token obtained on the first request, the grant's extension declared in
//! the client's capabilities, and bad credentials (an expired workload
//! JWT, a malformed key file) reported as one error naming what was wrong,
//! never showing a credential, not even with `--verbose`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::sync::{Arc, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use fault_http::{FaultServer, Recorded, Reply, init_result, tools_result};
use serde_json::{Value, json};
use support::*;

const ACCESS_TOKEN: &str = "machine-access-token-123";

/// An MCP server at `/mcp` that wants `ACCESS_TOKEN`, its metadata, and an
/// authorization server that gives it for any JWT bearer or client
/// credentials request.
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
                "grant_types_supported": ["client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "token_endpoint_auth_methods_supported": ["private_key_jwt", "client_secret_basic"],
            })
            .to_string(),
        ),
        "/token" => Reply::json(
            json!({"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 3600})
                .to_string(),
        ),
        "/mcp" if r.header("authorization") == Some(&format!("Bearer {ACCESS_TOKEN}")) => {
            let id = r.rpc_id().unwrap_or_default();
            match r.rpc_method().as_deref() {
                Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
                Some(m) if m.starts_with("notifications/") => Reply::status(202),
                _ => Reply::json(tools_result(&id)),
            }
        }
        "/mcp" => Reply::status(401).header(
            "www-authenticate",
            &format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#),
        ),
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

fn jwt(exp: u64) -> String {
    format!(
        "{}.{}.c2lnbmF0dXJl",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"ES256"}"#),
        URL_SAFE_NO_PAD.encode(json!({"sub": "workload-7", "exp": exp}).to_string())
    )
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

async fn run(dir: std::path::PathBuf, args: Vec<String>, vars: Vec<(String, String)>) -> Run {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        mcp_in_env(&dir, &args, &vars)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workload_identity_runs_on_the_first_request_without_a_login() {
    let server = server().await;
    let dir = temp_dir("machine-wif");
    let file = dir.join("servers.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {"wl": {"url": server.url("/mcp"),
            "oauth": {"grant": "workload_identity", "tokenEnv": "WL_JWT"}}}})
        .to_string(),
    )
    .unwrap();
    let config = file.to_str().unwrap().to_owned();
    let valid = jwt(now() + 300);
    let args = |more: &[&str]| -> Vec<String> {
        let mut a = vec!["--config".to_owned(), config.clone()];
        a.extend(more.iter().map(|s| (*s).to_owned()));
        a
    };

    // `mcp login` is for people.
    let out = run(dir.clone(), args(&["login", "wl"]), vec![]).await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_ne!(out.code, Some(0), "{shown}");
    assert!(shown.contains("needs no login"), "{shown}");

    let out = run(
        dir.clone(),
        args(&["--verbose", "tools", "wl"]),
        vec![("WL_JWT".into(), valid.clone())],
    )
    .await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(out.code, Some(0), "{shown}");
    assert!(!shown.contains(&valid), "the workload JWT is never shown");
    assert!(
        !shown.contains(ACCESS_TOKEN),
        "the access token is never shown"
    );
    let tokens: Vec<Recorded> = server
        .requests()
        .into_iter()
        .filter(|r| r.path() == "/token")
        .collect();
    assert_eq!(tokens.len(), 1);
    let form = String::from_utf8_lossy(&tokens[0].body).into_owned();
    let pairs: Vec<&str> = form.split('&').collect();
    assert!(
        pairs.contains(&"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"),
        "{form}"
    );
    assert!(
        pairs.contains(&format!("assertion={valid}").as_str()),
        "{form}"
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.path() != "/register" && r.path() != "/authorize")
    );
    // The initialize request declares the grant's extension.
    let init: Value = server
        .requests()
        .iter()
        .filter(|r| r.rpc_method().as_deref() == Some("initialize"))
        .find_map(Recorded::json)
        .unwrap();
    assert!(
        init["params"]["capabilities"]["extensions"]["io.modelcontextprotocol/auth/wif"]
            .is_object(),
        "{init}"
    );

    // A second run finds the stored token: no new grant.
    let out = run(
        dir.clone(),
        args(&["tools", "wl"]),
        vec![("WL_JWT".into(), valid.clone())],
    )
    .await;
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.path() == "/token")
            .count(),
        1
    );

    // `mcp auth token` for a script: the grant runs when no token is
    // stored (another credential directory).
    let scripted = temp_dir("machine-wif-token");
    let out = run(
        scripted.clone(),
        args(&["auth", "token", "wl"]),
        vec![("WL_JWT".into(), valid.clone())],
    )
    .await;
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_eq!(out.stdout.trim(), ACCESS_TOKEN);
    let _ = std::fs::remove_dir_all(&scripted);

    // An expired workload JWT (and no stored token: another credential
    // directory): one error naming it, nothing sent.
    let fresh = temp_dir("machine-wif-expired");
    let expired = jwt(now() - 120);
    let before = server.requests().len();
    let out = run(
        fresh.clone(),
        args(&["--verbose", "tools", "wl"]),
        vec![("WL_JWT".into(), expired.clone())],
    )
    .await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_ne!(out.code, Some(0), "{shown}");
    assert!(
        shown.contains("workload JWT from environment variable WL_JWT: expired"),
        "{shown}"
    );
    assert!(!shown.contains(&expired), "{shown}");
    assert!(
        server.requests()[before..]
            .iter()
            .all(|r| r.path() != "/token"),
        "an expired JWT is never sent"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&fresh);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_key_file_is_named_in_the_error() {
    let server = server().await;
    let dir = temp_dir("machine-key");
    let key = dir.join("client.pem");
    std::fs::write(
        &key,
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----\n",
    )
    .unwrap();
    let file = dir.join("servers.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {"cc": {"url": server.url("/mcp"),
            "oauth": {"grant": "client_credentials", "clientId": "m1",
                      "privateKeyFile": key.to_str().unwrap()}}}})
        .to_string(),
    )
    .unwrap();
    let args = vec![
        "--config".to_owned(),
        file.to_str().unwrap().to_owned(),
        "tools".to_owned(),
        "cc".to_owned(),
    ];
    let out = run(dir.clone(), args, vec![]).await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_ne!(out.code, Some(0), "{shown}");
    assert!(
        shown.contains(&format!("private key {}", key.display())) && shown.contains("SEC1"),
        "{shown}"
    );
    assert!(!shown.contains("MHcCAQEEIB"), "{shown}");
    assert!(server.requests().iter().all(|r| r.path() != "/token"));
    let _ = std::fs::remove_dir_all(&dir);
}
