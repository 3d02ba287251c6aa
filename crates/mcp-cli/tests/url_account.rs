//! `--account` with `--url`: a login stored under a second account, made by
//! URL (which the login's message names once), is the one a `--url` command
//! uses when it names the account; without
//! it, the default account's login (none here) is looked for, and the
//! command says which `mcp login` to run, account included. Against
//! `oidc-provider` (npm, `tests/peers/oidc_mcp.mjs`) with a device login;
//! skipped, saying so, without the node peers.
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
async fn url_commands_use_the_named_accounts_login() {
    let Some(peers) = OidcPeers::start(600) else {
        return;
    };
    let dir = support::temp_dir("url-account");
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
    let url = peers.mcp.as_str();
    let mut child = mcp(&["--url", url, "--account", "second", "login", "--device"])
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
    let mut forms = Vec::new();
    browse_device(&uri, &code, &mut forms).await.unwrap();
    let login = tokio::task::spawn_blocking(move || finish(child))
        .await
        .unwrap();
    assert_eq!(login.code, Some(0), "{login:?} {shown:?}");
    // The server is named once (it was printed twice: "Logged in to URL: URL …").
    assert!(
        login
            .stdout
            .starts_with(&format!("Logged in to {url}: account second  issuer ")),
        "{login:?}"
    );
    assert_eq!(login.stdout.matches(url).count(), 1, "{login:?}");

    let run = |args: &'static [&'static str]| {
        let mut all = vec!["--url", url];
        all.extend_from_slice(args);
        finish(mcp(&all).spawn().unwrap())
    };
    // The login is the second account's: the default one has none.
    let default = run(&["--no-input", "call", "whoami"]);
    assert_eq!(default.code, Some(3), "{default:?}");
    assert!(
        default.stderr.contains(&format!("mcp login {url}")),
        "{default:?}"
    );
    assert!(!default.stderr.contains("--account"), "{default:?}");

    let second = run(&["--account", "second", "call", "whoami"]);
    assert_eq!(second.code, Some(0), "{second:?}");
    assert!(!second.stdout.trim().is_empty(), "{second:?}");
    // After the words too, as every option.
    let second = run(&["call", "whoami", "--account", "second"]);
    assert_eq!(second.code, Some(0), "{second:?}");

    // An account with no login: the command to run names it.
    let third = run(&["--no-input", "--account", "third", "call", "whoami"]);
    assert_eq!(third.code, Some(3), "{third:?}");
    assert!(
        third
            .stderr
            .contains(&format!("mcp login {url} --account third")),
        "{third:?}"
    );

    let status = run(&["--account", "second", "auth", "status"]);
    assert_eq!(status.code, Some(0), "{status:?}");
    assert!(status.stdout.contains("account second"), "{status:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
