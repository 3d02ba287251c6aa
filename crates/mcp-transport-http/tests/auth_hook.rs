//! The auth hook: a credential asked for before every request to the
//! server's origin (POST, GET stream, DELETE, retries, same-origin redirect
//! hops; never a cross-origin hop), the refusal's headers and the sent
//! credential handed to the provider, every reply to a prepared request
//! shown to it, several bounded retries per exchange, and a typed error
//! when the provider gives up.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::*;
use fault_http::{FaultServer, Recorded, Reply, init_result, tools_result};
use http::{HeaderMap, HeaderValue, Method};
use mcp_transport::{AuthErrorKind, Transport, TransportError};
use mcp_transport_http::{
    AuthChallenge, AuthDecision, AuthFailure, AuthProvider, Credential, HttpMode, HttpTransport,
    IncomingResponse, MAX_AUTH_RETRIES, OutgoingRequest,
};

/// What the provider was asked: (method, path, rpc method, attempt) per
/// `prepare`, and every challenge.
#[derive(Debug, Default)]
struct Seen {
    prepared: Vec<(Method, String, Option<String>, u32)>,
    challenges: Vec<AuthChallenge>,
    /// Every reply observed: (method, path, status, `DPoP-Nonce`), and
    /// how many challenges had been answered when it was observed.
    observed: Vec<(Method, String, u16, Option<String>, usize)>,
}

/// A scripted provider: attaches `Bearer tok-<generation>` (the generation
/// goes up on every refusal it answers with `Retry`), and answers refusals
/// from `decisions` in order (then `Retry`).
#[derive(Debug, Default)]
struct Scripted {
    generation: AtomicU64,
    seen: Mutex<Seen>,
    decisions: Mutex<Vec<AuthDecision>>,
    refuse_prepare: bool,
}

impl Scripted {
    fn with(decisions: Vec<AuthDecision>) -> Arc<Scripted> {
        Arc::new(Scripted {
            decisions: Mutex::new(decisions),
            ..Scripted::default()
        })
    }
}

#[async_trait]
impl AuthProvider for Scripted {
    async fn prepare(
        &self,
        request: &OutgoingRequest<'_>,
    ) -> Result<Option<Credential>, AuthFailure> {
        self.seen.lock().unwrap().prepared.push((
            request.method.clone(),
            request.url.path().to_owned(),
            request.rpc_method.map(str::to_owned),
            request.attempt,
        ));
        if self.refuse_prepare {
            return Err(AuthFailure::needs_login("no stored token; log in first"));
        }
        let generation = self.generation.load(Ordering::SeqCst);
        let mut headers = HeaderMap::new();
        let value = format!("Bearer tok-{generation}");
        headers.insert("authorization", HeaderValue::try_from(value).unwrap());
        Ok(Some(Credential::new(headers).with_generation(generation)))
    }

    fn observe(&self, response: &IncomingResponse<'_>) {
        let mut seen = self.seen.lock().unwrap();
        let answered = seen.challenges.len();
        seen.observed.push((
            response.method.clone(),
            response.url.path().to_owned(),
            response.status,
            response
                .headers
                .get("dpop-nonce")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            answered,
        ));
    }

    async fn on_unauthorized(&self, challenge: &AuthChallenge) -> AuthDecision {
        self.seen.lock().unwrap().challenges.push(challenge.clone());
        let mut decisions = self.decisions.lock().unwrap();
        let decision = if decisions.is_empty() {
            AuthDecision::Retry
        } else {
            decisions.remove(0)
        };
        if matches!(decision, AuthDecision::Retry) {
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
        decision
    }
}

fn connect_config(url: &str, provider: Arc<Scripted>) -> mcp_transport_http::HttpConfig {
    config(url)
        .with_header("Authorization", "Bearer static")
        .with_auth_provider(provider)
}

/// A server with a session and a GET stream that wants `Bearer tok-0` on
/// every request.
fn session_server(r: &Recorded) -> Reply {
    if r.header("authorization") != Some("Bearer tok-0") {
        return Reply::status(401).header("www-authenticate", "Bearer");
    }
    if r.method == Method::GET {
        return Reply::sse(vec![]);
    }
    if r.method == Method::DELETE {
        return Reply::status(200);
    }
    let id = r.rpc_id().unwrap_or_default();
    match r.rpc_method().as_deref() {
        Some("initialize") => {
            Reply::json(init_result(&id, "2025-06-18")).header("mcp-session-id", "s1")
        }
        Some("tools/list") => Reply::json(tools_result(&id)),
        _ => Reply::status(202),
    }
}

/// Every request of a connection (POST, the GET stream, the session
/// DELETE) carries the hook's credential, which replaces the configured
/// header of the same name.
#[tokio::test]
async fn every_request_carries_the_prepared_credential() {
    let server = FaultServer::start(session_server).await.unwrap();
    let provider = Scripted::with(vec![]);
    let (t, _events) = {
        let t = HttpTransport::connect(
            connect_config(&server.url("/mcp"), provider.clone()),
            HttpMode::Streamable,
        )
        .await
        .unwrap();
        let events = t.take_events().unwrap();
        initialize(&t).await.unwrap();
        t.notify("notifications/initialized", None).await.unwrap();
        (t, events)
    };
    t.request("tools/list", None, opts()).await.unwrap();
    t.close().await.unwrap();
    let requests = server.requests();
    let methods: Vec<Method> = requests.iter().map(|r| r.method.clone()).collect();
    for m in [Method::POST, Method::GET, Method::DELETE] {
        assert!(methods.contains(&m), "{m} was sent: {methods:?}");
    }
    for r in &requests {
        assert_eq!(
            r.header("authorization"),
            Some("Bearer tok-0"),
            "{} {}",
            r.method,
            r.path()
        );
    }
    let seen = provider.seen.lock().unwrap();
    assert!(
        seen.challenges.is_empty(),
        "no refusal: {:?}",
        seen.challenges
    );
    assert_eq!(
        seen.prepared.len(),
        requests.len(),
        "asked once per request"
    );
    assert!(
        seen.prepared
            .contains(&(Method::POST, "/mcp".into(), Some("tools/list".into()), 0))
    );
}

/// A refusal hands the provider every header of the reply and which
/// credential was sent; `Retry` sends the request again with a credential
/// prepared anew.
#[tokio::test]
async fn the_challenge_carries_headers_and_the_sent_credential() {
    let server = FaultServer::start(|r| {
        if r.header("authorization") != Some("Bearer tok-1") {
            return Reply::status(401)
                .header(
                    "www-authenticate",
                    r#"Bearer resource_metadata="https://a/prm""#,
                )
                .header("www-authenticate", r#"DPoP algs="ES256""#)
                .header("dpop-nonce", "n-1")
                .header("set-cookie", "sid=cookie-secret");
        }
        let id = r.rpc_id().unwrap_or_default();
        Reply::json(tools_result(&id))
    })
    .await
    .unwrap();
    let provider = Scripted::with(vec![]);
    let t = HttpTransport::connect(
        connect_config(&server.url("/mcp?api_key=k"), provider.clone()),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    t.request("tools/list", None, opts()).await.unwrap();
    let seen = provider.seen.lock().unwrap();
    assert_eq!(seen.challenges.len(), 1);
    let c = &seen.challenges[0];
    assert_eq!(c.status, 401);
    assert_eq!(c.sent_credential, Some(0));
    assert_eq!(c.attempt, 0);
    assert_eq!(c.method, Method::POST);
    assert_eq!(c.rpc_method.as_deref(), Some("tools/list"));
    assert!(
        !c.url.contains("api_key=k"),
        "query values hidden: {}",
        c.url
    );
    let challenges: Vec<&str> = c
        .headers
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(
        challenges,
        [
            r#"Bearer resource_metadata="https://a/prm""#,
            r#"DPoP algs="ES256""#
        ]
    );
    assert_eq!(
        c.www_authenticate.as_deref(),
        Some(r#"Bearer resource_metadata="https://a/prm""#)
    );
    assert_eq!(c.headers.get("dpop-nonce").unwrap(), "n-1");
    assert!(
        !format!("{c:?}").contains("cookie-secret"),
        "cookies are sensitive"
    );
    assert_eq!(
        seen.prepared.iter().map(|p| p.3).collect::<Vec<_>>(),
        [0, 1],
        "prepared again for the retry"
    );
    let sent: Vec<_> = server
        .requests()
        .iter()
        .map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert_eq!(
        sent,
        [Some("Bearer tok-0".into()), Some("Bearer tok-1".into())]
    );
}

/// A 401 then a 403 `insufficient_scope` on the same call are both given
/// to the provider (a login, then a step-up); the third send succeeds.
#[tokio::test]
async fn a_login_then_a_step_up_in_one_exchange() {
    let server = FaultServer::start(|r| match r.header("authorization") {
        Some("Bearer tok-0") => Reply::status(401).header("www-authenticate", "Bearer"),
        Some("Bearer tok-1") => Reply::status(403).header(
            "www-authenticate",
            r#"Bearer error="insufficient_scope", scope="mcp:write""#,
        ),
        _ => Reply::json(tools_result(&r.rpc_id().unwrap_or_default())),
    })
    .await
    .unwrap();
    let provider = Scripted::with(vec![]);
    let t = HttpTransport::connect(
        connect_config(&server.url("/mcp"), provider.clone()),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    t.request("tools/list", None, opts()).await.unwrap();
    let seen = provider.seen.lock().unwrap();
    let statuses: Vec<(u16, u32, Option<u64>)> = seen
        .challenges
        .iter()
        .map(|c| (c.status, c.attempt, c.sent_credential))
        .collect();
    assert_eq!(statuses, [(401, 0, Some(0)), (403, 1, Some(1))]);
    assert_eq!(server.requests().len(), 3);
}

/// A server that refuses forever gets at most `MAX_AUTH_RETRIES` answers
/// from the hook per exchange; then the refusal is the error, as it came.
#[tokio::test]
async fn retries_are_bounded_per_exchange() {
    let server = FaultServer::start(|_| {
        Reply::status(403)
            .header("www-authenticate", r#"Bearer error="insufficient_scope""#)
            .body("no")
    })
    .await
    .unwrap();
    let provider = Scripted::with(vec![]);
    let t = HttpTransport::connect(
        connect_config(&server.url("/mcp"), provider.clone()),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert_eq!(err.http_status(), Some(403), "{err:?}");
    let n = MAX_AUTH_RETRIES as usize;
    assert_eq!(provider.seen.lock().unwrap().challenges.len(), n);
    assert_eq!(server.requests().len(), n + 1);
    // The next exchange starts with a fresh budget.
    t.request("tools/list", None, opts()).await.unwrap_err();
    assert_eq!(provider.seen.lock().unwrap().challenges.len(), 2 * n);
}

/// A provider that gives up fails the request with a typed `Auth` error
/// of its kind, naming the URL (query values hidden) and its reason; the
/// connection keeps working for later requests.
#[tokio::test]
async fn giving_up_is_a_typed_error() {
    let kinds = [
        AuthFailure::needs_login("run `mcp login example`"),
        AuthFailure::denied("the authorization server refused"),
        AuthFailure::step_up_limit("3 step-up attempts"),
    ];
    for failure in kinds {
        let server = FaultServer::start(|r| {
            if r.rpc_method().as_deref() == Some("ping") {
                return Reply::json(format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#,
                    r.rpc_id().unwrap_or_default()
                ));
            }
            Reply::status(401).header("www-authenticate", "Bearer")
        })
        .await
        .unwrap();
        let kind = failure.kind;
        let reason = failure.reason.clone();
        let provider = Scripted::with(vec![AuthDecision::Fail(failure)]);
        let t = HttpTransport::connect(
            connect_config(&server.url("/mcp?token=hidden-value"), provider),
            HttpMode::Streamable,
        )
        .await
        .unwrap();
        let err = t.request("tools/list", None, opts()).await.unwrap_err();
        assert_eq!(err.auth_kind(), Some(kind), "{err:?}");
        let TransportError::Auth { url, reason: r, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(r, &reason);
        assert!(
            url.contains("/mcp") && !url.contains("hidden-value"),
            "{url}"
        );
        assert!(!err.to_string().contains("hidden-value"));
        assert!(!err.to_string().contains("tok-0"));
        t.request("ping", None, opts())
            .await
            .expect("the connection survives");
    }
}

/// A provider that cannot prepare a credential fails the request before
/// anything is sent.
#[tokio::test]
async fn a_refused_prepare_sends_nothing() {
    let server = FaultServer::start(|r| Reply::json(tools_result(&r.rpc_id().unwrap_or_default())))
        .await
        .unwrap();
    let provider = Arc::new(Scripted {
        refuse_prepare: true,
        ..Scripted::default()
    });
    let t = HttpTransport::connect(
        connect_config(&server.url("/mcp"), provider),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert_eq!(err.auth_kind(), Some(AuthErrorKind::NeedsLogin), "{err:?}");
    assert!(server.requests().is_empty());
}

/// Each same-origin redirect hop gets a credential of its own; a hop to
/// another origin gets none (the provider is not asked, and neither its
/// header nor the configured `Authorization` goes along).
#[tokio::test]
async fn redirect_hops_same_origin_only() {
    let other = FaultServer::start(|r| Reply::json(tools_result(&r.rpc_id().unwrap_or_default())))
        .await
        .unwrap();
    let away = other.url("/elsewhere");
    let server = FaultServer::start(move |r| match r.path() {
        "/mcp" => Reply::status(307).header("location", "/mcp/"),
        "/mcp/" => Reply::status(307).header("location", &away),
        _ => Reply::status(404),
    })
    .await
    .unwrap();
    let provider = Scripted::with(vec![]);
    let t = HttpTransport::connect(
        connect_config(&server.url("/mcp"), provider.clone()),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    t.request("tools/list", None, opts()).await.unwrap();
    let paths: Vec<String> = provider
        .seen
        .lock()
        .unwrap()
        .prepared
        .iter()
        .map(|p| p.1.clone())
        .collect();
    assert_eq!(paths, ["/mcp", "/mcp/"]);
    for r in server.requests() {
        assert_eq!(r.header("authorization"), Some("Bearer tok-0"));
    }
    let away = other.requests();
    assert_eq!(away.len(), 1);
    assert_eq!(away[0].header("authorization"), None);
}

/// A request sent again because the server asked to wait (`Retry-After`)
/// is prepared again: each send gets a credential of its own.
#[tokio::test]
async fn a_retry_after_resend_is_prepared_again() {
    let seen = Arc::new(AtomicU64::new(0));
    let s = seen.clone();
    let server = FaultServer::start(move |r| {
        if s.fetch_add(1, Ordering::SeqCst) == 0 {
            return Reply::status(503).header("retry-after", "0");
        }
        Reply::json(tools_result(&r.rpc_id().unwrap_or_default()))
    })
    .await
    .unwrap();
    let provider = Scripted::with(vec![]);
    let t = HttpTransport::connect(
        connect_config(&server.url("/mcp"), provider.clone()),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    t.request("tools/list", None, opts()).await.unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(r.header("authorization"), Some("Bearer tok-0"));
    }
    assert_eq!(provider.seen.lock().unwrap().prepared.len(), 2);
}

/// Every reply to a prepared hop is shown to the provider: a redirect, a
/// `503` waited out, a refusal (before the provider answers it) and the
/// success; a hop to another origin's reply is not (it was not prepared).
#[tokio::test]
async fn every_reply_to_a_prepared_hop_is_observed() {
    let other = FaultServer::start(|r| {
        Reply::json(tools_result(&r.rpc_id().unwrap_or_default())).header("dpop-nonce", "other")
    })
    .await
    .unwrap();
    let away = other.url("/elsewhere");
    let count = Arc::new(AtomicU64::new(0));
    let c = count.clone();
    let server = FaultServer::start(
        move |r| match (r.path(), c.fetch_add(1, Ordering::SeqCst)) {
            ("/mcp", 0) => Reply::status(307)
                .header("location", "/mcp/")
                .header("dpop-nonce", "n-redirect"),
            ("/mcp/", 1) => Reply::status(503)
                .header("retry-after", "0")
                .header("dpop-nonce", "n-busy"),
            ("/mcp", 2) => Reply::status(307).header("location", "/mcp/"),
            ("/mcp/", 3) => Reply::status(401)
                .header("www-authenticate", r#"DPoP error="use_dpop_nonce""#)
                .header("dpop-nonce", "n-refused"),
            ("/mcp", _) => Reply::status(307).header("location", "/mcp/"),
            ("/mcp/", _) => Reply::status(307).header("location", &away),
            _ => Reply::status(404),
        },
    )
    .await
    .unwrap();
    let provider = Scripted::with(vec![]);
    let t = HttpTransport::connect(
        connect_config(&server.url("/mcp"), provider.clone()),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    t.request("tools/list", None, opts()).await.unwrap();
    let seen = provider.seen.lock().unwrap();
    let observed: Vec<(&str, u16, Option<&str>, usize)> = seen
        .observed
        .iter()
        .map(|(m, path, status, nonce, answered)| {
            assert_eq!(m, Method::POST);
            (path.as_str(), *status, nonce.as_deref(), *answered)
        })
        .collect();
    assert_eq!(
        observed,
        [
            ("/mcp", 307, Some("n-redirect"), 0),
            ("/mcp/", 503, Some("n-busy"), 0),
            ("/mcp", 307, None, 0),
            ("/mcp/", 401, Some("n-refused"), 0),
            ("/mcp", 307, None, 1),
            ("/mcp/", 307, None, 1),
        ]
    );
    assert_eq!(
        seen.prepared.len(),
        observed.len(),
        "one observation per prepared hop"
    );
}
