//! Faults of a hostile authorization server or resource server over an
//! OAuth lifecycle, each as a kind: discovery against a server that does
//! not answer or trickles its answer gives up on its own deadlines, naming
//! the URL; a server that refuses the tokens issued for it moments before
//! ends the flow with one typed error instead of a login loop; a
//! registration the authorization server no longer knows is forgotten and
//! made again, never used for another authorization.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use fault_http::{Part, Reply, tools_result};
use mcp_auth::{
    AuthError, ClientRecord, CredentialStore, HeadlessRedirect, MemoryStore, MetadataProblem,
    OAuth, OAuthConfig, PreregisteredClient, Record, Secret, StoreKey, TokenRecord,
};
use mcp_transport::{AuthErrorKind, TransportError};
use mcp_transport_http::Fetcher;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A server on 127.0.0.1 that accepts connections, reads nothing and
/// never answers; stopped when dropped.
struct Silent {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Silent {
    async fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((stream, _)) = listener.accept().await {
                held.push(stream);
            }
        });
        Silent { addr, task }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// 200 JSON whose status and headers come at once and whose body then
/// comes one byte every 100 ms, for 6 s.
fn trickle() -> Reply {
    let mut parts = vec![Part::bytes("{")];
    for _ in 0..60 {
        parts.push(Part::pause_ms(100));
        parts.push(Part::bytes(" "));
    }
    parts.push(Part::bytes("}"));
    Reply::json("").parts(parts)
}

/// The time one document and the whole discovery get in these tests.
const PER_DOCUMENT: Duration = Duration::from_millis(300);
const WHOLE: Duration = Duration::from_millis(700);

fn timed(config: OAuthConfig) -> OAuthConfig {
    config.with_discovery_timeouts(PER_DOCUMENT, WHOLE)
}

/// Runs `login` with a limit well above the deadlines (a discovery that
/// waits for the fetcher's 30 s fails here) and returns its error and how
/// long it took.
async fn login_error(mock: &Mock, config: OAuthConfig) -> (AuthError, Duration) {
    let oauth = mock.oauth(config);
    let start = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(5), oauth.login())
        .await
        .expect("discovery did not give up on its own deadline");
    (result.unwrap_err(), start.elapsed())
}

/// The metadata document that did not arrive, its URL and why.
fn gave_up(e: &AuthError) -> (&'static str, &str, &MetadataProblem) {
    match e {
        AuthError::Metadata {
            what, url, reason, ..
        } => (what, url.as_str(), reason),
        other => panic!("not a metadata error: {other:?}"),
    }
}

/// Each document of discovery (the challenge's resource metadata URL, the
/// authorization server's metadata) from a server that never answers, or
/// that sends its headers and then trickles its body, is given up on after
/// the per-document time, with the URL named; several slow documents stop
/// at the whole discovery's deadline, naming the one being waited for.
#[tokio::test]
async fn discovery_gives_up_on_silent_and_trickling_servers() {
    let silent = Silent::start().await;

    // The challenge names a resource metadata URL on a silent server.
    let prm_url = silent.url("/.well-known/oauth-protected-resource/mcp");
    let named = prm_url.clone();
    let mock = Mock::start_with(Script::default(), move |_, r| {
        (r.path() == "/mcp" && r.header("authorization").is_none()).then(|| {
            Reply::status(401).header(
                "www-authenticate",
                &format!(r#"Bearer resource_metadata="{named}""#),
            )
        })
    })
    .await;
    let (err, took) = login_error(&mock, timed(mock.config())).await;
    let (what, url, reason) = gave_up(&err);
    assert_eq!(
        (what, url, reason),
        (
            "protected resource metadata",
            prm_url.as_str(),
            &MetadataProblem::NoAnswer { ms: 300 }
        )
    );
    assert!(err.to_string().contains(&prm_url), "{err}");
    assert!(took < Duration::from_secs(2), "{took:?}");

    // The resource metadata trickles its body.
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/.well-known/oauth-protected-resource/mcp").then(trickle)
    })
    .await;
    let (err, took) = login_error(&mock, timed(mock.config())).await;
    let want = format!("{}/.well-known/oauth-protected-resource/mcp", mock.base);
    assert_eq!(
        gave_up(&err),
        (
            "protected resource metadata",
            want.as_str(),
            &MetadataProblem::NoAnswer { ms: 300 }
        )
    );
    assert!(took < Duration::from_secs(2), "{took:?}");

    // The resource names a silent authorization server.
    let issuer = silent.url("");
    let listed = issuer.clone();
    let mock = Mock::start_with(Script::default(), move |base, r| {
        (r.path() == "/.well-known/oauth-protected-resource/mcp").then(|| {
            Reply::json(format!(
                r#"{{"resource":"{base}/mcp","authorization_servers":["{listed}"]}}"#
            ))
        })
    })
    .await;
    let (err, took) = login_error(&mock, timed(mock.config())).await;
    let want = format!("{issuer}/.well-known/oauth-authorization-server");
    assert_eq!(
        gave_up(&err),
        (
            "authorization server metadata",
            want.as_str(),
            &MetadataProblem::NoAnswer { ms: 300 }
        )
    );
    assert!(took < Duration::from_secs(2), "{took:?}");

    // The authorization server's metadata trickles its body.
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/.well-known/oauth-authorization-server").then(trickle)
    })
    .await;
    let (err, _) = login_error(&mock, timed(mock.config())).await;
    let want = format!("{}/.well-known/oauth-authorization-server", mock.base);
    assert_eq!(
        gave_up(&err),
        (
            "authorization server metadata",
            want.as_str(),
            &MetadataProblem::NoAnswer { ms: 300 }
        )
    );

    // Each document answers within its own time, but together they take
    // longer than the whole discovery may: the resource metadata after
    // 250 ms, the first well-known URL of the authorization server a 404
    // after 250 ms; the second URL gets what is left of the 700 ms, and is
    // the one named.
    let mock = Mock::start_with(Script::default(), |base, r| match r.path() {
        "/.well-known/oauth-protected-resource/mcp" => Some(Reply::json("").parts(vec![
            Part::pause_ms(250),
            Part::bytes(format!(
                r#"{{"resource":"{base}/mcp","authorization_servers":["{base}"]}}"#
            )),
        ])),
        "/.well-known/oauth-authorization-server" => {
            Some(Reply::status(404).parts(vec![Part::pause_ms(250), Part::bytes("no")]))
        }
        "/.well-known/openid-configuration" => Some(trickle()),
        _ => None,
    })
    .await;
    let (err, took) = login_error(&mock, timed(mock.config())).await;
    let want = format!("{}/.well-known/openid-configuration", mock.base);
    assert_eq!(
        gave_up(&err),
        (
            "authorization server metadata",
            want.as_str(),
            &MetadataProblem::DiscoveryTimeout { ms: 700 }
        )
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
}

/// On the request path (a 401 answered by a discovery), a silent
/// authorization server fails the request with an error naming its URL
/// long before the request's own timeout.
#[tokio::test]
async fn a_request_fails_on_the_discovery_deadline_not_its_own_timeout() {
    let silent = Silent::start().await;
    let issuer = silent.url("");
    let listed = issuer.clone();
    let mock = Mock::start_with(Script::default(), move |base, r| {
        (r.path() == "/.well-known/oauth-protected-resource/mcp").then(|| {
            Reply::json(format!(
                r#"{{"resource":"{base}/mcp","authorization_servers":["{listed}"]}}"#
            ))
        })
    })
    .await;
    let oauth = mock.oauth(timed(mock.config()));
    let t = mock.connect(&oauth).await;
    let start = Instant::now();
    let err = tokio::time::timeout(Duration::from_secs(5), call(&t, "tools/list"))
        .await
        .expect("the request waited past the discovery deadline")
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(2));
    let text = mcp_auth_chain(&err);
    assert!(
        text.contains(&format!("{issuer}/.well-known/oauth-authorization-server")),
        "{text}"
    );
    assert!(text.contains("no complete answer within 300 ms"), "{text}");
}

/// `e`'s text and its causes', joined.
fn mcp_auth_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// The 401 of a server that refuses every token it is sent.
fn refuse_tokens(_: &str, r: &fault_http::Recorded) -> Option<Reply> {
    (r.path() == "/mcp" && r.header("authorization").is_some())
        .then(|| Reply::status(401).header("www-authenticate", r#"Bearer error="invalid_token""#))
}

/// The grant types of the token requests `mock` saw, in order.
fn grants(mock: &Mock) -> Vec<String> {
    mock.to("/token")
        .iter()
        .map(|r| get(&form(r), "grant_type").unwrap_or("").to_owned())
        .collect()
}

/// `err` is the typed "rejects freshly issued tokens" of a refusal, not a
/// "log in" (nothing a user, a script or a caller should answer with
/// another login).
fn assert_fresh_token_rejected(err: &TransportError) {
    assert_eq!(err.auth_kind(), Some(AuthErrorKind::Denied), "{err}");
    let text = mcp_auth_chain(err);
    assert!(text.contains("rejects freshly issued tokens"), "{text}");
}

/// A server that refuses the token of the authorization made for its own
/// refusal: one authorization, then the typed error; later requests, and
/// another process with the same store (a login just now and nothing to
/// refresh it with), fail the same way at once, with no new login.
#[tokio::test]
async fn a_server_refusing_a_token_issued_for_it_is_no_login_loop() {
    let mock = Mock::start_with(Script::default(), refuse_tokens).await;
    let store = Arc::new(MemoryStore::new());
    let agent = Arc::new(HeadlessRedirect::new(Fetcher::new(fetch_options())));
    let oauth = OAuth::new(mock.config(), store.clone(), agent.clone()).unwrap();
    let t = mock.connect(&oauth).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    assert_fresh_token_rejected(&err);
    assert_eq!(mock.to("/authorize").len(), 1, "one authorization");
    assert_eq!(grants(&mock), ["authorization_code"]);

    let err = call(&t, "tools/list").await.unwrap_err();
    assert_fresh_token_rejected(&err);
    let other = OAuth::new(mock.config(), store, agent).unwrap();
    let t = mock.connect(&other).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    assert_fresh_token_rejected(&err);
    assert_eq!(mock.to("/authorize").len(), 1, "no login again");
    assert_eq!(
        grants(&mock),
        ["authorization_code"],
        "no token request again"
    );
}

/// A login's token refused, refreshed once, and the refreshed token
/// refused too: the typed error, no authorization, and no further refresh
/// on the next request.
#[tokio::test]
async fn a_refreshed_token_refused_again_ends_with_one_refresh() {
    let mock = Mock::start_with(
        Script {
            refresh_tokens: true,
            ..Script::default()
        },
        refuse_tokens,
    )
    .await;
    let oauth = mock.oauth(mock.config());
    oauth.login().await.unwrap();
    let t = mock.connect(&oauth).await;
    let err = call(&t, "tools/list").await.unwrap_err();
    assert_fresh_token_rejected(&err);
    let err = call(&t, "tools/list").await.unwrap_err();
    assert_fresh_token_rejected(&err);
    assert_eq!(grants(&mock), ["authorization_code", "refresh_token"]);
    assert_eq!(mock.to("/authorize").len(), 1, "only the login");
}

/// A fresh token refused because the server has moved to another
/// authorization server is not the fault: the flow follows the server
/// there (registration and authorization at the new one) and the request
/// succeeds.
#[tokio::test]
async fn a_fresh_token_refused_after_a_move_authorizes_at_the_new_server() {
    let second = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/token").then(|| {
            Reply::json(
                r#"{"access_token":"second-as-token","token_type":"Bearer","expires_in":3600}"#,
            )
        })
    })
    .await;
    let moved = Arc::new(AtomicBool::new(false));
    let (flag, new_issuer) = (moved.clone(), second.base.clone());
    let mock = Mock::start_with(Script::default(), move |base, r| {
        let now_moved = flag.load(Ordering::SeqCst);
        match (r.path(), r.header("authorization")) {
            ("/.well-known/oauth-protected-resource/mcp", _) if now_moved => Some(Reply::json(
                format!(r#"{{"resource":"{base}/mcp","authorization_servers":["{new_issuer}"]}}"#),
            )),
            ("/mcp", Some("Bearer second-as-token")) => {
                Some(Reply::json(tools_result(&r.rpc_id().unwrap_or_default())))
            }
            ("/mcp", Some(_)) if now_moved => Some(
                Reply::status(401).header("www-authenticate", r#"Bearer error="invalid_token""#),
            ),
            ("/mcp", Some(_)) => {
                // Takes the first authorization server's token once, then
                // moves.
                flag.store(true, Ordering::SeqCst);
                None
            }
            _ => None,
        }
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert!(moved.load(Ordering::SeqCst));
    call(&t, "tools/list").await.unwrap();
    assert_eq!(second.to("/register").len(), 1);
    assert_eq!(second.to("/authorize").len(), 1);
    assert_eq!(mock.to("/authorize").len(), 1);
}

/// How the hostile authorization server tells a client it does not know.
#[derive(Debug, Clone, Copy)]
enum Unknown {
    /// `invalid_client` from the token endpoint (the code exchange or a
    /// refresh); the authorization endpoint lets it through.
    AtToken,
    /// The authorization endpoint redirects back with this `error`.
    Redirect(&'static str),
    /// The authorization endpoint answers itself (no redirect) with a
    /// JSON `invalid_client`.
    Answer,
}

/// An authorization server that knows only the clients it registered
/// (`client-1`, `client-2`, … in order) and those in `known`, and tells
/// any other one so as `how` says.
async fn forgetful(how: Unknown, known: &'static [&'static str]) -> Mock {
    let registered = Arc::new(AtomicU32::new(0));
    let ids = Arc::new(Mutex::new(Vec::<String>::new()));
    Mock::start_with(Script::default(), move |_, r| {
        let knows = |id: &str| known.contains(&id) || ids.lock().unwrap().iter().any(|k| k == id);
        match r.path() {
            "/register" => {
                let id = format!("client-{}", registered.fetch_add(1, Ordering::SeqCst) + 1);
                ids.lock().unwrap().push(id.clone());
                Some(
                    Reply::json(format!(
                        r#"{{"client_id":"{id}","redirect_uris":["{REDIRECT}"]}}"#
                    ))
                    .with_status(201),
                )
            }
            "/authorize" => {
                let q: Vec<(String, String)> =
                    url::form_urlencoded::parse(r.uri.query().unwrap_or("").as_bytes())
                        .into_owned()
                        .collect();
                if knows(get(&q, "client_id").unwrap_or("")) {
                    return None;
                }
                match how {
                    Unknown::AtToken => None,
                    Unknown::Redirect(error) => {
                        let mut to = url::Url::parse(REDIRECT).unwrap();
                        to.query_pairs_mut()
                            .append_pair("error", error)
                            .append_pair("state", get(&q, "state").unwrap_or(""));
                        Some(Reply::status(302).header("location", to.as_str()))
                    }
                    Unknown::Answer => Some(
                        Reply::json(
                            r#"{"error":"invalid_client","error_description":"unknown client"}"#,
                        )
                        .with_status(400),
                    ),
                }
            }
            "/token" if !knows(get(&form(r), "client_id").unwrap_or("")) => {
                Some(Reply::json(r#"{"error":"invalid_client"}"#).with_status(401))
            }
            _ => None,
        }
    })
    .await
}

/// A store holding the registration `client_id` for `mock`'s issuer.
async fn store_with_client(mock: &Mock, client_id: &str) -> Arc<MemoryStore> {
    let store = Arc::new(MemoryStore::new());
    store
        .put(
            &StoreKey::client(mock.base.clone()),
            Record::Client(ClientRecord::new(client_id, None)),
            None,
        )
        .await
        .unwrap();
    store
}

fn flow(config: OAuthConfig, store: Arc<MemoryStore>) -> OAuth {
    let agent = Arc::new(HeadlessRedirect::new(Fetcher::new(fetch_options())));
    OAuth::new(config, store, agent).unwrap()
}

/// The client ids of the authorization requests `mock` saw, in order.
fn authorized_clients(mock: &Mock) -> Vec<String> {
    mock.authorize_queries()
        .iter()
        .map(|q| get(q, "client_id").unwrap_or("").to_owned())
        .collect()
}

/// The registration stored for `mock`'s issuer, if any.
async fn stored_client(mock: &Mock, store: &MemoryStore) -> Option<String> {
    match store
        .get(&StoreKey::client(mock.base.clone()))
        .await
        .unwrap()
    {
        Some((Record::Client(c), _)) => Some(c.client_id),
        _ => None,
    }
}

/// Each way an authorization server says it does not know a stored
/// registration (the code exchange's `invalid_client`, an authorization
/// redirect with `invalid_client` or `unauthorized_client`, the
/// authorization endpoint's own `invalid_client` answer): the registration
/// is forgotten, the client registers again and the login goes through;
/// the dead client id is never used again, here or by the next process.
#[tokio::test]
async fn a_registration_the_server_forgot_is_made_again() {
    for how in [
        Unknown::AtToken,
        Unknown::Redirect("invalid_client"),
        Unknown::Redirect("unauthorized_client"),
        Unknown::Answer,
    ] {
        let mock = forgetful(how, &[]).await;
        let store = store_with_client(&mock, "dead-client").await;
        flow(mock.config(), store.clone())
            .login()
            .await
            .unwrap_or_else(|e| panic!("{how:?}: {e}"));
        assert_eq!(
            authorized_clients(&mock),
            ["dead-client", "client-1"],
            "{how:?}"
        );
        assert_eq!(mock.to("/register").len(), 1, "{how:?}");
        assert_eq!(
            stored_client(&mock, &store).await.as_deref(),
            Some("client-1")
        );

        // The next process logs in with the new registration.
        flow(mock.config(), store.clone()).login().await.unwrap();
        assert_eq!(
            authorized_clients(&mock),
            ["dead-client", "client-1", "client-1"],
            "{how:?}"
        );
        assert_eq!(mock.to("/register").len(), 1, "{how:?}");
    }
}

/// A refresh refused with `invalid_client`: the registration and the
/// tokens issued to it are forgotten, and the refused request is answered
/// by a new registration and authorization, never one with the dead id.
#[tokio::test]
async fn a_refresh_refused_as_invalid_client_registers_again() {
    let mock = forgetful(Unknown::AtToken, &[]).await;
    let store = store_with_client(&mock, "dead-client").await;
    let mut tokens = TokenRecord::new(Secret::new("revoked-token"));
    tokens.refresh_token = Some(Secret::new("refresh-of-the-dead-client"));
    store
        .put(
            &StoreKey::tokens(mock.url(), mock.base.clone(), "default"),
            Record::Tokens(tokens),
            None,
        )
        .await
        .unwrap();
    let oauth = flow(mock.config(), store.clone());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert_eq!(grants(&mock), ["refresh_token", "authorization_code"]);
    assert_eq!(authorized_clients(&mock), ["client-1"]);
    assert_eq!(
        stored_client(&mock, &store).await.as_deref(),
        Some("client-1")
    );
}

/// A configured client id the authorization server does not know is kept
/// and reported as a typed error (nothing is registered); a registration
/// refused again right after it was made is forgotten too and reported.
#[tokio::test]
async fn a_configured_or_new_client_refused_is_a_typed_error() {
    for how in [Unknown::AtToken, Unknown::Redirect("invalid_client")] {
        let mock = forgetful(how, &[]).await;
        let config = mock
            .config()
            .with_preregistered(PreregisteredClient::new("configured-client", None));
        let store = Arc::new(MemoryStore::new());
        let err = flow(config, store.clone()).login().await.unwrap_err();
        match &err {
            AuthError::ClientRejected {
                client_id,
                configured: true,
                ..
            } => assert_eq!(client_id, "configured-client"),
            other => panic!("{how:?}: {other:?}"),
        }
        assert!(err.to_string().contains("configured"), "{err}");
        assert!(mock.to("/register").is_empty(), "{how:?}");
        assert_eq!(authorized_clients(&mock), ["configured-client"]);
    }

    // Every client is unknown at the token endpoint: the stored one, then
    // the new one; both forgotten, two authorizations in all.
    let mock = Mock::start_with(Script::default(), |_, r| {
        (r.path() == "/token")
            .then(|| Reply::json(r#"{"error":"invalid_client"}"#).with_status(401))
    })
    .await;
    let store = store_with_client(&mock, "dead-client").await;
    let err = flow(mock.config(), store.clone())
        .login()
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            AuthError::ClientRejected { client_id, configured: false, .. } if client_id == "dcr-client"
        ),
        "{err:?}"
    );
    assert_eq!(authorized_clients(&mock), ["dead-client", "dcr-client"]);
    assert_eq!(stored_client(&mock, &store).await, None);
}

/// A resource server that refuses every token it first saw more than 1 s
/// ago (an expired token, by the `expires_in` of 1 the authorization
/// server gives), and a token endpoint that answers the `n`th token request
/// (counting from 1) with a 503: the run ahead of expiry fails there, so
/// the expired token goes out and is refused.
async fn short_lived(script: Script, fail_token_request: usize) -> Mock {
    let first_seen = Arc::new(Mutex::new(Vec::<(String, Instant)>::new()));
    let token_requests = Arc::new(AtomicU32::new(0));
    Mock::start_with(
        Script {
            expires_in: 1,
            ..script
        },
        move |_, r| match (r.path(), r.header("authorization")) {
            ("/token", _) => {
                let n = token_requests.fetch_add(1, Ordering::SeqCst) as usize + 1;
                (n == fail_token_request).then(|| Reply::status(503).body("busy"))
            }
            ("/mcp", Some(credential)) => {
                let mut seen = first_seen.lock().unwrap();
                let at = match seen.iter().find(|(t, _)| t == credential) {
                    Some((_, at)) => *at,
                    None => {
                        seen.push((credential.to_owned(), Instant::now()));
                        Instant::now()
                    }
                };
                (at.elapsed() > Duration::from_secs(1)).then(|| {
                    Reply::status(401).header(
                        "www-authenticate",
                        r#"Bearer error="invalid_token", error_description="expired""#,
                    )
                })
            }
            _ => None,
        },
    )
    .await
}

/// A short-lived token (1 s) that went out expired (its renewal ahead of
/// expiry failed, or there is nothing to renew it with) and was refused
/// is renewed, not reported as "rejects freshly issued tokens", in every
/// flow: the grant runs again, the refresh token is used, the person logs
/// in again; the request then succeeds.
#[tokio::test]
async fn an_expired_short_lived_token_refused_is_renewed_not_called_fresh() {
    // A grant without a person: its run ahead of expiry (the second token
    // request) fails.
    let mock = short_lived(
        Script {
            auth_methods: vec!["client_secret_basic"],
            ..Script::default()
        },
        2,
    )
    .await;
    let grant = mcp_auth::Grant::ClientCredentials(mcp_auth::ConfidentialClient::new(
        "machine-1",
        mcp_auth::ClientAuthentication::ClientSecretBasic(Secret::new("cc-secret-value")),
    ));
    let config = OAuthConfig::for_grant(mock.url(), grant).with_fetch(fetch_options());
    let oauth = OAuth::for_grant(config, Arc::new(MemoryStore::new())).unwrap();
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    call(&t, "tools/list")
        .await
        .expect("the expired token is renewed by the grant");
    assert_eq!(
        grants(&mock),
        [
            "client_credentials",
            "client_credentials",
            "client_credentials"
        ]
    );

    // A person's login with a refresh token: the refresh ahead of expiry
    // (the second token request) fails; the refusal refreshes.
    let mock = short_lived(
        Script {
            refresh_tokens: true,
            ..Script::default()
        },
        2,
    )
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    call(&t, "tools/list")
        .await
        .expect("the expired token is refreshed");
    assert_eq!(
        grants(&mock),
        ["authorization_code", "refresh_token", "refresh_token"]
    );
    assert_eq!(mock.to("/authorize").len(), 1);

    // A person's login without a refresh token: nothing renews it ahead
    // of expiry; the refusal logs in again.
    let mock = short_lived(Script::default(), 0).await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    call(&t, "tools/list")
        .await
        .expect("the expired token is replaced by a new login");
    assert_eq!(grants(&mock), ["authorization_code", "authorization_code"]);
    assert_eq!(mock.to("/authorize").len(), 2);
}
