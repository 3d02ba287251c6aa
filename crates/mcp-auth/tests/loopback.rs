//! The interactive user agent, `LoopbackBrowser`, as a person meets it:
//! a port already taken is an error naming it before anything opens; the
//! browser's redirect (played here over HTTP) completes a whole login; a
//! redirect or a paste with the wrong `state` or `iss` is refused and the
//! agent keeps waiting; a pasted URL, query string or bare code is
//! accepted; a timeout gives up; dropping the login (Ctrl-C) leaves no
//! listener.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use common::*;
use mcp_auth::{
    AuthorizationPrompt, CallbackPort, LoopbackBrowser, LoopbackOptions, MemoryStore, Notice,
    OAuth, UserAgent,
};
use mcp_transport_http::Fetcher;

fn options() -> LoopbackOptions {
    LoopbackOptions::default()
        .with_open_browser(false)
        .with_timeout(Duration::from_secs(30))
}

/// A notice sink that keeps the lines.
fn recorder() -> (Notice, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    (
        Arc::new(move |line: &str| l.lock().unwrap().push(line.to_owned())),
        lines,
    )
}

async fn get(url: &str) -> (u16, String) {
    let fetcher = Fetcher::new(fetch_options());
    let response = fetcher
        .fetch(http::Request::get(url).body(Bytes::new()).unwrap())
        .await
        .unwrap();
    (
        response.status().as_u16(),
        String::from_utf8_lossy(response.body()).into_owned(),
    )
}

/// Waits until the agent has printed its "waiting" line (it listens and
/// reads pastes from then on).
async fn until_waiting(lines: &Arc<Mutex<Vec<String>>>) {
    let waiting = mcp_tests::wait::eventually_within(Duration::from_secs(20), || {
        lines
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("Waiting"))
    })
    .await;
    assert!(waiting, "the agent never said it was waiting");
}

fn prompt(agent: &LoopbackBrowser, iss_required: bool) -> AuthorizationPrompt {
    AuthorizationPrompt::new(
        "http://127.0.0.1:9/authorize?state=the-state",
        agent.redirect_uri(),
        "the-state",
        "http://127.0.0.1:9",
        iss_required,
    )
}

#[tokio::test]
async fn a_taken_port_is_an_error_naming_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let e = LoopbackBrowser::bind(options().with_port(CallbackPort::Fixed(port)))
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains(&format!("port {port}")), "{text}");
    assert!(text.contains("in use"), "{text}");
    // A range skips it.
    let agent = LoopbackBrowser::bind(options().with_port(CallbackPort::Range(port..=port + 20)))
        .await
        .unwrap();
    assert_ne!(agent.port(), port);
    let e = LoopbackBrowser::bind(options().with_port(CallbackPort::Range(port..=port)))
        .await
        .unwrap_err();
    assert!(e.to_string().contains(&format!("{port}-{port}")), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stray_redirect_is_refused_then_the_right_one_is_taken() {
    let (notice, lines) = recorder();
    let agent = Arc::new(
        LoopbackBrowser::bind(options())
            .await
            .unwrap()
            .with_notice(notice),
    );
    let redirect = agent.redirect_uri().to_owned();
    let p = prompt(&agent, true);
    let a = agent.clone();
    let login = tokio::spawn(async move { a.authorize(&p).await });
    until_waiting(&lines).await;
    let (status, page) = get(&format!(
        "{redirect}?code=x&state=other&iss=http%3A%2F%2F127.0.0.1%3A9"
    ))
    .await;
    assert_eq!(status, 400, "{page}");
    let (status, _) = get(&format!(
        "{redirect}?code=x&state=the-state&iss=http%3A%2F%2Fevil"
    ))
    .await;
    assert_eq!(status, 400);
    let (status, _) = get(&format!("{redirect}?code=x&state=the-state")).await;
    assert_eq!(status, 400, "iss is required here");
    let (status, _) = get(&redirect.replace("/callback", "/favicon.ico")).await;
    assert_eq!(status, 404);
    assert!(!login.is_finished());
    let (status, page) = get(&format!(
        "{redirect}?code=the-code&state=the-state&iss=http%3A%2F%2F127.0.0.1%3A9"
    ))
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("close this tab"), "{page}");
    let params = login.await.unwrap().unwrap();
    assert_eq!(params.get("code"), Some("the-code"));
    let shown = lines.lock().unwrap().join("\n");
    assert!(
        shown.contains("http://127.0.0.1:9/authorize?state=the-state"),
        "the URL is always printed: {shown}"
    );
    assert_eq!(shown.matches("not this login's").count(), 3, "{shown}");
    assert!(!shown.contains("the-code"), "{shown}");
    // The listener is gone with the login.
    assert!(std::net::TcpStream::connect(("127.0.0.1", agent.port())).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pasted_answers_wrong_then_a_bare_code() {
    let (notice, lines) = recorder();
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let agent = Arc::new(
        LoopbackBrowser::bind(options())
            .await
            .unwrap()
            .with_notice(notice)
            .with_paste(rx),
    );
    let p = prompt(&agent, false);
    let a = agent.clone();
    let login = tokio::spawn(async move { a.authorize(&p).await });
    until_waiting(&lines).await;
    let redirect = agent.redirect_uri().to_owned();
    tx.send(format!("{redirect}?code=c&state=wrong"))
        .await
        .unwrap();
    tx.send("not a code at all".into()).await.unwrap();
    tx.send("code=c&state=the-state&iss=http://evil".into())
        .await
        .unwrap();
    tx.send("bare-code-123".into()).await.unwrap();
    let params = login.await.unwrap().unwrap();
    assert_eq!(params.get("code"), Some("bare-code-123"));
    assert_eq!(params.get("state"), Some("the-state"));
    let shown = lines.lock().unwrap().join("\n");
    assert_eq!(shown.matches("still waiting").count(), 3, "{shown}");
    assert!(shown.contains("paste the URL"), "{shown}");
}

#[tokio::test]
async fn no_answer_times_out() {
    let (notice, _lines) = recorder();
    let agent = LoopbackBrowser::bind(options().with_timeout(Duration::from_millis(200)))
        .await
        .unwrap()
        .with_notice(notice);
    let e = agent.authorize(&prompt(&agent, false)).await.unwrap_err();
    assert!(e.to_string().contains("no answer"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_login_leaves_no_listener() {
    let (notice, lines) = recorder();
    let agent = Arc::new(
        LoopbackBrowser::bind(options())
            .await
            .unwrap()
            .with_notice(notice),
    );
    let port = agent.port();
    let p = prompt(&agent, false);
    let a = agent.clone();
    let login = tokio::spawn(async move { a.authorize(&p).await });
    until_waiting(&lines).await;
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    login.abort();
    assert!(login.await.unwrap_err().is_cancelled());
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}

/// A whole login through `OAuth::login`: the mock authorization server
/// redirects at once, and the "browser" (this test) follows the redirect
/// to the receiver.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_login_through_the_loopback_receiver() {
    let mock = Mock::start(Script {
        send_iss: Some(""),
        advertise_iss: true,
        ..Script::default()
    })
    .await;
    let (notice, lines) = recorder();
    let agent = Arc::new(
        LoopbackBrowser::bind(options())
            .await
            .unwrap()
            .with_notice(notice),
    );
    let config =
        mcp_auth::OAuthConfig::new(mock.url(), agent.redirect_uri()).with_fetch(fetch_options());
    let oauth = OAuth::new(config, Arc::new(MemoryStore::new()), agent.clone()).unwrap();
    let o = oauth.clone();
    let login = tokio::spawn(async move { o.login().await });
    until_waiting(&lines).await;
    let url = lines
        .lock()
        .unwrap()
        .iter()
        .find_map(|l| l.trim().starts_with("http").then(|| l.trim().to_owned()))
        .unwrap();
    // The browser: the authorization endpoint redirects to the receiver.
    let fetcher = Fetcher::new(fetch_options());
    let response = fetcher
        .fetch(http::Request::get(&url).body(Bytes::new()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 302);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(agent.redirect_uri()), "{location}");
    let (status, _) = get(&location).await;
    assert_eq!(status, 200);
    let status = login.await.unwrap().unwrap();
    assert_eq!(status.account, "default");
    assert!(oauth.status().await.unwrap().is_some());
    let token = oauth.access_token().await.unwrap();
    assert!(token.expose().starts_with("access-secret-"));
}
