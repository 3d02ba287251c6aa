//! `mcp login --device` end to end against `oidc-provider` (npm) with its
//! device flow on (`tests/peers/oidc_mcp.mjs`): `mcp` prints where to go
//! and the user code; the test plays the person on another device (opens
//! the provider's `/device` page, types the code, submits the login and
//! consent forms); the login ends, and `mcp call` works with the token.
//! No token appears in any output. Skipped, saying so, without the node
//! peers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcp_tests::oidc::{OidcPeers, browse_device};
use support::finish;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_login_then_a_call() {
    let Some(peers) = OidcPeers::start(600) else {
        return;
    };
    let dir = support::temp_dir("login-device");
    std::fs::write(
        dir.join("servers.json"),
        serde_json::json!({"mcpServers": {"oidc": {"type": "http", "url": peers.mcp}}}).to_string(),
    )
    .unwrap();
    let mcp = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcp"));
        c.args(args)
            .current_dir(&dir)
            .env_remove("MCP_LOG")
            .env_remove("MCP_CREDENTIAL_STORE")
            .env("MCP_CREDENTIALS_DIR", dir.join("credentials"))
            .env("XDG_CACHE_HOME", dir.join(".cache"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    };
    let mut child = mcp(&["--config", "servers.json", "login", "oidc", "--device"])
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut shown = Vec::new();
    let (uri, code) = loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no device prompt ({e}): {shown:?}"));
        shown.push(line.clone());
        if let Some(p) = support::device_prompt(&line) {
            break p;
        }
    };
    assert!(uri.starts_with(&peers.issuer), "{uri}");
    let mut forms = Vec::new();
    let page = browse_device(&uri, &code, &mut forms).await.unwrap();
    assert_eq!(forms[0], "user_code", "the code typed first: {forms:?}");
    assert!(forms.contains(&"login".to_owned()), "{forms:?}");
    assert!(!page.contains("<form"), "{page}");
    let run = tokio::task::spawn_blocking(move || finish(child))
        .await
        .unwrap();
    assert_eq!(run.code, Some(0), "{run:?} {shown:?}");
    assert!(run.stdout.contains("Logged in to oidc"), "{run:?}");
    let s = peers.stats().await;
    assert_eq!(s["urn:ietf:params:oauth:grant-type:device_code"], 1, "{s}");
    assert_eq!(s["authorization_code"], 0, "{s}");

    let call = finish(
        mcp(&["--config", "servers.json", "call", "whoami"])
            .spawn()
            .unwrap(),
    );
    assert_eq!(call.code, Some(0), "{call:?}");

    let everything = format!("{shown:?}{run:?}{call:?}");
    for entry in std::fs::read_dir(dir.join("credentials")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for k in ["access_token", "refresh_token"] {
            if let Some(t) = v["record"]["Tokens"][k].as_str() {
                assert!(!everything.contains(t), "a token was shown: {everything}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
