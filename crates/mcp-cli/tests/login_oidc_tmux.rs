//! Logging in from a real terminal, as a person would: `oidc-provider`
//! (npm) on 127.0.0.1 protecting a TypeScript SDK MCP server
//! (`tests/peers/oidc_mcp.mjs`), and `mcp` run in tmux.
//!
//! 1. `mcp login oidc` prints the authorization URL; the test plays the
//!    browser (fetches it, submits the provider's login and consent forms)
//!    and follows the redirect to the loopback receiver.
//! 2. A second login (another account) gets the redirect URL pasted into
//!    the terminal instead, as over SSH.
//! 3. `mcp call` works with the stored login; `mcp auth status` shows the
//!    expiry; `mcp auth token` refuses the terminal.
//! 4. The access token expires; ten `mcp call` processes started at once
//!    all succeed and the provider sees exactly one refresh.
//! 5. `mcp logout --revoke` revokes at the provider (the refresh token is
//!    dead there), and the next call names the exact `mcp login` command
//!    and exits 3.
//!
//! A second test runs a command that needs a login in the terminal: it
//! offers once (`Log in to oidc now? [Y/n]`), logs in when told yes (the
//! test plays the browser again) and runs the command again; told no, it
//! exits 3 with the message naming `mcp login`; with `MCP_NO_INPUT=1`, or
//! off a terminal, it never asks.
//!
//! The credential directory is 0700 and its files 0600, and no token
//! appears in any output, log or error of the whole run (`--verbose`
//! included). Skipped, saying so, without tmux or the node peers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use mcp_auth::CallbackParams;
use mcp_tests::oidc::{OidcPeers, browse, fetcher};
use serde_json::Value;
use support::tmux::{Pane, Tmux};
use support::{Run, finish};

/// Access token lifetime at the provider, in seconds: long enough for a
/// login and a call on a loaded machine, short enough to wait out.
const TTL_SECS: u64 = 8;

/// How many `mcp call` processes run at once after expiry.
const CONCURRENT: usize = 10;

/// How long a pane may take to show what is awaited: 60 s (a debug build
/// and node peers on a loaded 2-core machine).
const WAIT: Duration = Duration::from_secs(60);

/// The size of every pane: 200 columns, so that a URL stays on one line.
const SIZE: (u16, u16) = (200, 50);

/// The environment every `mcp` of the test runs with.
struct Env {
    dir: PathBuf,
    credentials: PathBuf,
}

impl Env {
    /// A fresh directory named `name`, its logins in `credentials` below
    /// it, and `servers.json` there naming the MCP server of `peers` `oidc`.
    fn new(name: &str, peers: &OidcPeers) -> Env {
        let dir = support::temp_dir(name);
        std::fs::write(
            dir.join("servers.json"),
            serde_json::json!({"mcpServers": {"oidc": {"type": "http", "url": peers.mcp}}})
                .to_string(),
        )
        .unwrap();
        Env {
            credentials: dir.join("credentials"),
            dir,
        }
    }

    /// A shell prefix setting the same environment in a tmux pane.
    fn shell(&self) -> String {
        format!(
            "cd '{}' && MCP_CREDENTIALS_DIR='{}' XDG_CACHE_HOME='{}' '{}'",
            self.dir.display(),
            self.credentials.display(),
            self.dir.join(".cache").display(),
            env!("CARGO_BIN_EXE_mcp")
        )
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcp"));
        c.args(args)
            .current_dir(&self.dir)
            .env_remove("MCP_LOG")
            .env("MCP_CREDENTIALS_DIR", &self.credentials)
            .env("XDG_CACHE_HOME", self.dir.join(".cache"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn mcp(&self, args: &[&str], transcript: &mut Vec<String>) -> Run {
        let run = finish(self.command(args).spawn().unwrap());
        transcript.push(format!(
            "$ mcp {}\n{}{}",
            args.join(" "),
            run.stdout,
            run.stderr
        ));
        run
    }
}

/// The authorization URL a login printed on `pane`, and the redirect URI
/// it carries.
fn printed_url(pane: &Pane<'_>) -> (String, String) {
    assert!(pane.shows("Waiting for the browser"), "{}", pane.screen());
    let screen = pane.screen();
    let url = screen
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("http://127.0.0.1:") && l.contains("code_challenge="))
        .unwrap_or_else(|| panic!("no authorization URL on the screen:\n{screen}"))
        .to_owned();
    let redirect = CallbackParams::from_url(&url)
        .unwrap()
        .get("redirect_uri")
        .unwrap()
        .to_owned();
    (url, redirect)
}

/// The stored refresh token of `account` and the client id of the
/// registration.
fn stored_refresh(credentials: &Path, account: &str) -> (String, String) {
    let (mut refresh, mut client) = (String::new(), String::new());
    for entry in std::fs::read_dir(credentials).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if v["key"]["Tokens"]["account"] == account {
            refresh = v["record"]["Tokens"]["refresh_token"]
                .as_str()
                .unwrap()
                .to_owned();
        }
        if let Some(id) = v["record"]["Client"]["client_id"].as_str() {
            client = id.to_owned();
        }
    }
    (refresh, client)
}

/// Every access and refresh token in the credential files.
fn stored_tokens(credentials: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(credentials).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for k in ["access_token", "refresh_token"] {
            if let Some(t) = v["record"]["Tokens"][k].as_str() {
                out.push(t.to_owned());
            }
        }
    }
    out
}

async fn get(url: &str) -> (u16, String) {
    let response = fetcher()
        .fetch(http::Request::get(url).body(Bytes::new()).unwrap())
        .await
        .unwrap();
    (
        response.status().as_u16(),
        String::from_utf8_lossy(response.body()).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_in_a_terminal_then_calls_refresh_once_and_logout_revokes() {
    let Some(tmux) = Tmux::new("mcp-login-test", WAIT).map(Tmux::joined) else {
        return;
    };
    let Some(peers) = OidcPeers::start(TTL_SECS) else {
        return;
    };
    let env = Env::new("login-oidc", &peers);
    let dir = env.dir.clone();
    let mut transcript: Vec<String> = Vec::new();

    // 1. The browser comes back to the loopback receiver.
    let login = tmux.start(
        "login",
        SIZE,
        &dir,
        &format!(
            "{} --config servers.json login oidc --no-browser; echo EXIT=$?; sleep 60",
            env.shell()
        ),
    );
    let (url, redirect) = printed_url(&login);
    assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
    let mut forms = Vec::new();
    let back = browse(&url, &redirect, &mut forms).await.unwrap();
    assert_eq!(forms, ["login", "consent"], "the provider's own forms");
    let (status, page) = get(&back).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("close this tab"), "{page}");
    assert!(login.shows("EXIT=0"), "{}", login.screen());
    let screen = login.screen();
    assert!(screen.contains("Logged in to oidc"), "{screen}");
    transcript.push(screen);

    // 2. Another account, the redirect URL pasted into the terminal.
    let paste = tmux.start(
        "paste",
        SIZE,
        &dir,
        &format!(
            "{} --config servers.json login oidc --account second --no-browser; echo EXIT=$?; sleep 60",
            env.shell()
        ),
    );
    let (url, redirect) = printed_url(&paste);
    let mut forms = Vec::new();
    let back = browse(&url, &redirect, &mut forms).await.unwrap();
    assert!(paste.send(&["-l", &back]));
    assert!(paste.send(&["Enter"]));
    assert!(paste.shows("EXIT=0"), "{}", paste.screen());
    transcript.push(paste.screen());
    let s = peers.stats().await;
    assert_eq!(s["authorization_code"], 2, "{s}");
    assert_eq!(s["registrations"], 1, "one client for the issuer: {s}");

    // 3. The stored login at work.
    let run = env.mcp(
        &["--config", "servers.json", "call", "whoami"],
        &mut transcript,
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let status = env.mcp(
        &["--config", "servers.json", "--json", "auth", "status"],
        &mut transcript,
    );
    assert_eq!(status.code, Some(0), "{status:?}");
    let logins: Value = serde_json::from_str(&status.stdout).unwrap();
    let accounts: Vec<&str> = logins
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["account"].as_str().unwrap())
        .collect();
    assert_eq!(accounts, ["default", "second"], "{logins}");
    assert_eq!(logins[0]["server"], "oidc", "the config name is an alias");
    let text = env.mcp(&["auth", "status"], &mut transcript);
    assert!(text.stdout.contains("expires in"), "{text:?}");
    let token = tmux.start(
        "token",
        SIZE,
        &dir,
        &format!(
            "{} --config servers.json auth token oidc; echo EXIT=$?; sleep 60",
            env.shell()
        ),
    );
    assert!(token.shows("EXIT=2"), "{}", token.screen());
    assert!(token.screen().contains("refusing"));
    transcript.push(token.screen());

    // The store: 0700, 0600 each, nothing else.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&env.credentials), 0o700);
    for entry in std::fs::read_dir(&env.credentials).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
        assert!(
            !path.to_string_lossy().ends_with(".tmp"),
            "{}",
            path.display()
        );
    }
    let mut secrets = stored_tokens(&env.credentials);

    // 4. After expiry, ten processes at once: one refresh.
    let expires_at = logins[0]["expires_at"].as_u64().unwrap();
    loop {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        if now > expires_at + 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let before = peers.stats().await;
    let children: Vec<_> = (0..CONCURRENT)
        .map(|_| {
            env.command(&["--config", "servers.json", "call", "whoami"])
                .spawn()
                .unwrap()
        })
        .collect();
    let runs: Vec<Run> =
        tokio::task::spawn_blocking(move || children.into_iter().map(finish).collect::<Vec<_>>())
            .await
            .unwrap();
    for run in &runs {
        assert_eq!(run.code, Some(0), "{run:?}");
        transcript.push(format!("{}{}", run.stdout, run.stderr));
    }
    let after = peers.stats().await;
    let delta = |k: &str| after[k].as_u64().unwrap() - before[k].as_u64().unwrap();
    assert_eq!(
        delta("refresh_token"),
        1,
        "exactly one refresh: {before} → {after}"
    );
    assert_eq!(delta("authorization_code"), 0, "no new login: {after}");
    secrets.extend(stored_tokens(&env.credentials));
    let verbose = env.mcp(
        &["--verbose", "--config", "servers.json", "call", "whoami"],
        &mut transcript,
    );
    assert_eq!(verbose.code, Some(0), "{verbose:?}");

    // 5. Log out, revoking: the provider forgets the grant.
    let (refresh, client_id) = stored_refresh(&env.credentials, "default");
    assert!(!refresh.is_empty() && !client_id.is_empty());
    let out = env.mcp(
        &["--config", "servers.json", "logout", "oidc", "--revoke"],
        &mut transcript,
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("tokens revoked"), "{out:?}");
    let s = peers.stats().await;
    assert!(s["revoked"].as_u64().unwrap() >= 1, "{s}");
    let run = env.mcp(
        &["--config", "servers.json", "call", "whoami"],
        &mut transcript,
    );
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(
        run.stderr
            .contains("run `mcp --config servers.json login oidc`"),
        "{run:?}"
    );
    let left = env.mcp(
        &["--config", "servers.json", "--json", "auth", "status"],
        &mut transcript,
    );
    let left: Value = serde_json::from_str(&left.stdout).unwrap();
    assert_eq!(left.as_array().unwrap().len(), 1, "{left}");
    assert_eq!(left[0]["account"], "second", "{left}");
    // The revoked refresh token is dead at the provider.
    let form = format!("grant_type=refresh_token&refresh_token={refresh}&client_id={client_id}");
    let request = http::Request::post(format!("{}/token", peers.issuer))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Bytes::from(form))
        .unwrap();
    let response = fetcher().fetch(request).await.unwrap();
    let body = String::from_utf8_lossy(response.body()).into_owned();
    assert_eq!(response.status().as_u16(), 400, "{body}");
    assert!(body.contains("invalid_grant"), "{body}");

    // No token in any output.
    assert!(secrets.len() >= 4, "{}", secrets.len());
    let everything = transcript.join("\n");
    for secret in &secrets {
        assert!(
            !everything.contains(secret.as_str()),
            "a token was shown:\n{everything}"
        );
    }
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

/// How often `text` appears on `pane`'s screen.
fn count_on_screen(pane: &Pane<'_>, text: &str) -> usize {
    pane.screen().matches(text).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_needs_a_login_offers_it_once_on_a_terminal() {
    let Some(tmux) = Tmux::new("mcp-login-offer", WAIT).map(Tmux::joined) else {
        return;
    };
    let Some(peers) = OidcPeers::start(600) else {
        return;
    };
    let env = Env::new("login-offer", &peers);
    let dir = env.dir.clone();
    let question = "Log in to oidc now? [Y/n]";
    // `BROWSER=true`: the browser the login opens is the test, not a real one.
    let call = |prefix: &str| {
        format!(
            "{prefix} {} --config servers.json call whoami; echo EXIT=$?; sleep 60",
            env.shell().replacen(
                "&& MCP_CREDENTIALS_DIR=",
                "&& BROWSER=true MCP_CREDENTIALS_DIR=",
                1
            )
        )
    };
    let mut transcript = Vec::new();

    // Off a terminal: the message and exit code 3, no question.
    let run = env.mcp(
        &["--config", "servers.json", "call", "whoami"],
        &mut transcript,
    );
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(!run.stderr.contains("Log in to"), "{run:?}");

    // Told never to ask.
    let never = tmux.start("never", SIZE, &dir, &call("export MCP_NO_INPUT=1;"));
    assert!(never.shows("EXIT=3"), "{}", never.screen());
    assert_eq!(count_on_screen(&never, question), 0);
    assert!(never.screen().contains("login oidc"));

    // Told no: today's message, exit 3.
    let no = tmux.start("no", SIZE, &dir, &call(""));
    assert!(no.shows(question), "{}", no.screen());
    assert!(no.send(&["n", "Enter"]));
    assert!(no.shows("EXIT=3"), "{}", no.screen());
    let screen = no.screen();
    assert_eq!(count_on_screen(&no, question), 1, "{screen}");
    assert!(
        screen.contains("run `mcp --config servers.json login oidc`"),
        "{screen}"
    );
    assert_eq!(peers.stats().await["authorization_code"], 0);

    // Told yes (Enter): the login, then the command again.
    let yes = tmux.start("yes", SIZE, &dir, &call(""));
    assert!(yes.shows(question), "{}", yes.screen());
    assert!(yes.send(&["Enter"]));
    let (url, redirect) = printed_url(&yes);
    let mut forms = Vec::new();
    let back = browse(&url, &redirect, &mut forms).await.unwrap();
    let (status, page) = get(&back).await;
    assert_eq!(status, 200, "{page}");
    assert!(yes.shows("EXIT=0"), "{}", yes.screen());
    let screen = yes.screen();
    assert!(screen.contains("Logged in to oidc"), "{screen}");
    assert_eq!(count_on_screen(&yes, question), 1, "{screen}");
    assert_eq!(peers.stats().await["authorization_code"], 1);

    // The login is kept: the next run asks nothing.
    let run = env.mcp(
        &["--config", "servers.json", "call", "whoami"],
        &mut transcript,
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    transcript.push(screen);
    let everything = transcript.join("\n");
    for secret in stored_tokens(&env.credentials) {
        assert!(
            !everything.contains(&secret),
            "a token was shown:\n{everything}"
        );
    }
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}
