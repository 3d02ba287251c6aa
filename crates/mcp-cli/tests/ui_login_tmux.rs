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
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_auth::CallbackParams;
use mcp_tests::oidc::{OidcPeers, browse, browse_device, fetcher};

/// How long a screen may take to show what is awaited: 60 s (a debug
/// build and node peers on a loaded 2-core machine).
const WAIT: Duration = Duration::from_secs(60);

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> bool {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    fn output(&self, args: &[&str]) -> String {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn screen(&self) -> String {
        self.output(&["capture-pane", "-p", "-t", "ui"])
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            assert!(self.run(&["send-keys", "-t", "ui", k]), "send-keys {k}");
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < WAIT,
                "{text:?} never showed; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts `command` in a 120×35 window; the shell then prints the exit
    /// code and the terminal's modes, and waits.
    fn start(&self, dir: &Path, command: &str) {
        let command = format!(
            "cd '{dir}'; {command}; echo EXIT=$?; echo \"MODES: $(stty -a | tr ' ' '\\n' | grep -x -e '-*icanon' -e '-*echo' | tr '\\n' ' ')END\"; sleep 60",
            dir = dir.display(),
        );
        let args = [
            "new-session",
            "-d",
            "-s",
            "ui",
            "-x",
            "120",
            "-y",
            "35",
            command.as_str(),
        ];
        let start = Instant::now();
        while !self.run(&args) {
            assert!(start.elapsed() < WAIT, "tmux new-session failed");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The explorer ended with 0 and the terminal is as it was.
    fn assert_given_back(&self) {
        self.wait_for("EXIT=0");
        let screen = self.wait_for("END");
        assert!(screen.contains("MODES: icanon echo END"), "{screen}");
        let flags = self.output(&[
            "display",
            "-p",
            "-t",
            "ui",
            "#{alternate_on} #{cursor_flag} #{mouse_any_flag}",
        ]);
        assert_eq!(
            flags.trim(),
            "0 1 0",
            "alternate screen on, cursor hidden or mouse reported"
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

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
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
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
    let tmux = Tmux {
        socket: format!("mcp-ui-login-{}", std::process::id()),
    };
    let mut screens = Vec::new();

    // The browser login.
    tmux.start(&dir, &explorer(&dir, "credentials"));
    let s = tmux.wait_for("oidc needs login");
    assert!(s.contains("L logs in here"), "{s}");
    tmux.keys(&["L"]);
    tmux.wait_for("log in to oidc in a browser");
    let url = opened_url(&dir);
    let s = tmux.wait_for("Waiting for the browser");
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
    let s = tmux.wait_for("Logged in to oidc");
    assert_whole(&s);
    screens.push(s);
    tmux.keys(&["Enter"]);
    tmux.wait_for("oidc connected");
    tmux.keys(&["2"]);
    screens.push(tmux.wait_for("whoami"));
    tmux.keys(&["q"]);
    tmux.assert_given_back();
    assert!(tmux.run(&["kill-session", "-t", "ui"]));
    assert_eq!(peers.stats().await["authorization_code"], 1);

    // The device login, with no login stored yet.
    tmux.start(&dir, &explorer(&dir, "credentials-device"));
    tmux.wait_for("oidc needs login");
    tmux.keys(&["D"]);
    let s = tmux.wait_for("Waiting for the answer");
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
    let s = tmux.wait_for("Logged in to oidc");
    screens.push(s);
    tmux.keys(&["Enter"]);
    tmux.wait_for("oidc connected");
    tmux.keys(&["q"]);
    tmux.assert_given_back();

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
