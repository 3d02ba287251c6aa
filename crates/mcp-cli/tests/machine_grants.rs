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

/// `protected`, plus a revocation endpoint (RFC 7009) that accepts only
/// the client `cc-bot` authenticated with `client_secret_basic` and the
/// secret `cc-secret-value`, and answers anyone else `invalid_client`.
fn revoking(base: &str, r: &Recorded) -> Reply {
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("cc-bot:cc-secret-value")
    );
    match r.path() {
        "/.well-known/oauth-authorization-server" => Reply::json(
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "revocation_endpoint": format!("{base}/revoke"),
                "grant_types_supported": ["client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            })
            .to_string(),
        ),
        "/revoke" if r.header("authorization") == Some(basic.as_str()) => Reply::status(200),
        "/revoke" => Reply::json(r#"{"error":"invalid_client"}"#).with_status(401),
        _ => protected(base, r),
    }
}

/// `mcp logout --revoke` of a grant's token revokes it as the grant's
/// client (its `clientSecretEnv` secret, `client_secret_basic`), for a
/// named server and for `--all`; a workload identity grant has no client
/// authentication: the login is forgotten and the line says revocation is
/// not offered, with nothing sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_revoke_of_a_grant_authenticates_as_the_grants_client() {
    let base = Arc::new(OnceLock::<String>::new());
    let b = base.clone();
    let server = FaultServer::start(move |r| revoking(b.get().expect("base set"), r))
        .await
        .unwrap();
    base.set(server.url("")).unwrap();
    let dir = temp_dir("machine-revoke");
    let file = dir.join("servers.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {
            "cc": {"url": server.url("/mcp"),
                   "oauth": {"grant": "client_credentials", "clientId": "cc-bot",
                             "clientSecretEnv": "CC_SECRET"}},
            "a-wl": {"url": server.url("/mcp"), "oauth": {"grant": "workload_identity",
                   "tokenEnv": "WL_JWT", "account": "workload"}}}})
        .to_string(),
    )
    .unwrap();
    let config = file.to_str().unwrap().to_owned();
    let args = |more: &[&str]| -> Vec<String> {
        let mut a = vec!["--config".to_owned(), config.clone()];
        a.extend(more.iter().map(|s| (*s).to_owned()));
        a
    };
    let vars = || {
        vec![
            ("CC_SECRET".to_owned(), "cc-secret-value".to_owned()),
            ("WL_JWT".to_owned(), jwt(now() + 300)),
        ]
    };
    let revocations = |server: &FaultServer| {
        server
            .requests()
            .into_iter()
            .filter(|r| r.path() == "/revoke")
            .collect::<Vec<_>>()
    };

    for all in [false, true] {
        let out = run(dir.clone(), args(&["tools", "cc"]), vars()).await;
        assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
        let before = revocations(&server).len();
        let logout = if all {
            args(&["logout", "--all", "--revoke"])
        } else {
            args(&["logout", "cc", "--revoke"])
        };
        let out = run(dir.clone(), logout, vars()).await;
        let shown = format!("{}{}", out.stdout, out.stderr);
        assert_eq!(out.code, Some(0), "{shown}");
        assert!(
            shown.contains("tokens revoked at the authorization server"),
            "all={all}: {shown}"
        );
        assert!(!shown.contains("cc-secret-value"), "{shown}");
        let revoked = revocations(&server);
        assert_eq!(revoked.len(), before + 1, "the access token, once");
        let form = String::from_utf8_lossy(&revoked[before].body).into_owned();
        assert!(form.contains(&format!("token={ACCESS_TOKEN}")), "{form}");
    }

    let out = run(dir.clone(), args(&["tools", "a-wl"]), vars()).await;
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    let before = revocations(&server).len();
    let out = run(dir.clone(), args(&["logout", "a-wl", "--revoke"]), vars()).await;
    let shown = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(out.code, Some(0), "{shown}");
    assert!(
        shown.contains("revocation is not offered for a workload identity grant"),
        "{shown}"
    );
    assert_eq!(revocations(&server).len(), before, "nothing is sent");
    let out = run(dir.clone(), args(&["auth", "status", "a-wl"]), vars()).await;
    assert!(
        !out.stdout.contains("workload"),
        "forgotten: {}",
        out.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A client secret named by an environment variable that is not set
/// (`clientSecretEnv` of a client credentials grant, `idpClientSecretEnv`
/// of enterprise-managed authorization), like a key file or a token file
/// or variable that cannot be read, fails the server's requests with
/// one error naming the variable or file (`mcp call` prints it and exits
/// non-zero): nothing is sent to the token endpoint or the identity
/// provider, and the server is not reached without a flow (no bare 401).
/// With the variable set, the same configuration works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_secret_in_an_unset_variable_is_named_in_the_error() {
    let server = server().await;
    let dir = temp_dir("machine-secret-env");
    let id_token = dir.join("id_token");
    let missing = dir.join("not-there");
    std::fs::write(&id_token, jwt(now() + 300)).unwrap();
    let file = dir.join("servers.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {
            "cc": {"url": server.url("/mcp"),
                   "oauth": {"grant": "client_credentials", "clientId": "cc-bot",
                             "clientSecretEnv": "MCP_TEST_CC_SECRET"}},
            "ema": {"url": server.url("/mcp"),
                    "oauth": {"grant": "enterprise_managed", "clientId": "ema-bot",
                              "clientSecretEnv": "MCP_TEST_EMA_SECRET",
                              "tokenFile": id_token.to_str().unwrap(),
                              "idpTokenEndpoint": server.url("/idp/token"),
                              "idpClientId": "ema-at-idp",
                              "idpClientSecretEnv": "MCP_TEST_IDP_SECRET",
                              "account": "ema"}},
            "kf": {"url": server.url("/mcp"),
                   "oauth": {"grant": "client_credentials", "clientId": "kf-bot",
                             "privateKeyFile": missing.to_str().unwrap(), "account": "kf"}},
            "te": {"url": server.url("/mcp"),
                   "oauth": {"grant": "workload_identity", "tokenEnv": "MCP_TEST_WL_JWT",
                             "account": "te"}},
            "tf": {"url": server.url("/mcp"),
                   "oauth": {"grant": "workload_identity",
                             "tokenFile": missing.to_str().unwrap(), "account": "tf"}}}})
        .to_string(),
    )
    .unwrap();
    let config = file.to_str().unwrap().to_owned();
    let args = |more: &[&str]| -> Vec<String> {
        let mut a = vec!["--config".to_owned(), config.clone()];
        a.extend(more.iter().map(|s| (*s).to_owned()));
        a
    };
    let sent = |server: &FaultServer| {
        server
            .requests()
            .iter()
            .filter(|r| r.path() == "/token" || r.path() == "/idp/token")
            .count()
    };

    type Vars = Vec<(String, String)>;
    let key_unreadable = format!("private key {}: cannot be read", missing.display());
    let file_unavailable = format!("workload JWT from file {}: unavailable", missing.display());
    let cases: [(&str, Vars, &str); 5] = [
        (
            "cc",
            vec![],
            "client secret: environment variable MCP_TEST_CC_SECRET is not set",
        ),
        (
            "ema",
            vec![("MCP_TEST_EMA_SECRET".into(), "ema-secret-value".into())],
            "identity provider client secret: environment variable MCP_TEST_IDP_SECRET is not set",
        ),
        // Key files and token sources, read at each token request too.
        ("kf", vec![], &key_unreadable),
        (
            "te",
            vec![],
            "workload JWT from environment variable MCP_TEST_WL_JWT: unavailable",
        ),
        ("tf", vec![], &file_unavailable),
    ];
    for (name, vars, want) in cases {
        let before = sent(&server);
        let out = run(dir.clone(), args(&["call", name, "echo"]), vars).await;
        let shown = format!("{}{}", out.stdout, out.stderr);
        assert_ne!(out.code, Some(0), "{name}: {shown}");
        assert!(shown.contains(want), "{name}: {shown}");
        assert!(!shown.contains("ema-secret-value"), "{shown}");
        assert_eq!(sent(&server), before, "{name}: nothing is sent");
    }

    // With the variable set, the same entry gets its token.
    let out = run(
        dir.clone(),
        args(&["tools", "cc"]),
        vec![("MCP_TEST_CC_SECRET".into(), "cc-secret-value".into())],
    )
    .await;
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    let token = server
        .requests()
        .into_iter()
        .find(|r| r.path() == "/token")
        .expect("a token request");
    assert_eq!(
        token.header("authorization"),
        Some(
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode("cc-bot:cc-secret-value")
            )
            .as_str()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}
