//! A login started from `mcp ui` on a real terminal (tmux, on a private
//! socket): `oidc-provider` (npm) on 127.0.0.1 protecting a TypeScript SDK
//! MCP server (`tests/peers/oidc_mcp.mjs`). The server shows "needs login";
//! `L` starts the browser login in a dialog; the browser the login opens is
//! a script that writes down its URL, and the test plays the person in it
//! (the provider's login and consent forms, back to the loopback receiver).
//! The dialog says who is logged in, every server starts again, and the
//! server connects with the login: its tools are listed. Then, with a new
//! credential directory, `D` starts the device login: the dialog shows
//! where to go and the code, which the test enters on "another device".
//! While the logins run the explorer's screen stays whole (nothing printed
//! over it); after `q` the terminal is given back. No token appears on any
//! screen. Skipped, saying so, without tmux or the node peers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::time::{Duration, Instant};

use mcp_auth::CallbackParams;
use mcp_tests::oidc::{OidcPeers, browse, browse_device, fetcher};
use support::tmux::Tmux;

/// How long a screen may take to show what is awaited: 60 s (a debug
/// build and node peers on a loaded 2-core machine).
const WAIT: Duration = Duration::from_secs(60);

/// The explorer's screen is whole: its tab line on top, nothing printed
/// over it.
fn assert_whole(screen: &str) {
    assert!(
        screen
            .lines()
            .next()
            .is_some_and(|l| l.starts_with(" mcp ui ")),
        "something was printed over the explorer:\n{screen}"
    );
}

/// The text inside the box whose top line starts with `top`, its lines
/// joined by spaces (the box is drawn over a pane: only its columns count).
fn dialog_text(screen: &str, top: &str) -> String {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let first = top.chars().next().unwrap();
    let (row, left) = lines
        .iter()
        .enumerate()
        .find_map(|(i, l)| {
            let at = l.iter().position(|c| *c == first)?;
            let rest: String = l[at..].iter().collect();
            rest.starts_with(top).then_some((i, at))
        })
        .unwrap_or_else(|| panic!("no box {top:?}:\n{screen}"));
    let right = lines[row][left..]
        .iter()
        .position(|c| *c == '┐')
        .map(|w| left + w)
        .unwrap();
    let mut text = Vec::new();
    for l in &lines[row + 1..] {
        if l.get(left) == Some(&'└') {
            break;
        }
        let inner: String = l.get(left + 1..right).unwrap_or_default().iter().collect();
        text.push(inner.trim().to_owned());
    }
    text.join(" ")
}

/// `mcp ui` on `servers.json`, its logins in `credentials`, its browser
/// the script `browser.sh` (which writes the URL to `url.txt`).
fn explorer(dir: &Path, credentials: &str) -> String {
    format!(
        "HOME='{dir}' XDG_CACHE_HOME='{dir}/.cache' MCP_CREDENTIALS_DIR='{dir}/{credentials}' MCP_CREDENTIAL_STORE=file BROWSER='{dir}/browser.sh' '{mcp}' --config servers.json ui",
        dir = dir.display(),
        mcp = env!("CARGO_BIN_EXE_mcp"),
    )
}

/// Waits for the URL the login gave its browser.
fn opened_url(dir: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(dir.join("url.txt"))
            && text.ends_with('\n')
        {
            return text.trim().to_owned();
        }
        assert!(start.elapsed() < WAIT, "the login opened no browser");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_started_in_the_explorer_connects_the_server() {
    let Some(tmux) = Tmux::new("mcp-ui-login", WAIT) else {
        return;
    };
    let Some(peers) = OidcPeers::start(600) else {
        return;
    };
    let dir = support::temp_dir("ui-login");
    std::fs::write(
        dir.join("servers.json"),
        serde_json::json!({"mcpServers": {"oidc": {"type": "http", "url": peers.mcp}}}).to_string(),
    )
    .unwrap();
    let browser = dir.join("browser.sh");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" > '{}/url.tmp' && mv '{0}/url.tmp' '{0}/url.txt'\n",
            dir.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut screens = Vec::new();

    // The browser login.
    let ui = tmux.start_ui(&dir, &explorer(&dir, "credentials"));
    let s = ui.wait_for("oidc needs login");
    assert!(s.contains("L logs in here"), "{s}");
    ui.keys(&["L"]);
    ui.wait_for("log in to oidc in a browser");
    let url = opened_url(&dir);
    let s = ui.wait_for("Waiting for the browser");
    assert!(s.contains("To log in, open this URL in a browser"), "{s}");
    assert!(s.contains("paste the URL it ended on"), "{s}");
    assert_whole(&s);
    screens.push(s);
    let redirect = CallbackParams::from_url(&url)
        .unwrap()
        .get("redirect_uri")
        .unwrap()
        .to_owned();
    let mut forms = Vec::new();
    let back = browse(&url, &redirect, &mut forms).await.unwrap();
    assert_eq!(forms, ["login", "consent"], "the provider's own forms");
    let response = fetcher()
        .fetch(
            http::Request::get(back.as_str())
                .body(bytes::Bytes::new())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let s = ui.wait_for("Logged in to oidc");
    assert_whole(&s);
    screens.push(s);
    ui.keys(&["Enter"]);
    ui.wait_for("oidc connected");
    ui.keys(&["2"]);
    screens.push(ui.wait_for("whoami"));
    ui.keys(&["q"]);
    ui.assert_given_back(0, &["mouse_any_flag"]);
    assert!(ui.run("kill-session", &[]));
    assert_eq!(peers.stats().await["authorization_code"], 1);

    // The device login, with no login stored yet.
    let ui = tmux.start_ui(&dir, &explorer(&dir, "credentials-device"));
    ui.wait_for("oidc needs login");
    ui.keys(&["D"]);
    let s = ui.wait_for("Waiting for the answer");
    assert_whole(&s);
    let text = dialog_text(&s, "┌log in to oidc with a code on another device");
    let (uri, code) = text
        .split("To log in, open ")
        .nth(1)
        .and_then(|rest| support::device_prompt(&format!("To log in, open {rest}")))
        .unwrap_or_else(|| panic!("no device prompt in {text:?}:\n{s}"));
    screens.push(s);
    let mut forms = Vec::new();
    browse_device(&uri, &code, &mut forms).await.unwrap();
    let s = ui.wait_for("Logged in to oidc");
    screens.push(s);
    ui.keys(&["Enter"]);
    ui.wait_for("oidc connected");
    ui.keys(&["q"]);
    ui.assert_given_back(0, &["mouse_any_flag"]);

    // No token on any screen.
    let everything = screens.join("\n");
    for credentials in ["credentials", "credentials-device"] {
        for entry in std::fs::read_dir(dir.join(credentials)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            for k in ["access_token", "refresh_token"] {
                if let Some(t) = v["record"]["Tokens"][k].as_str() {
                    assert!(!everything.contains(t), "a token was shown");
                }
            }
        }
    }
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}
