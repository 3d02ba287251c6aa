//! Overloaded or rate-limited servers that say when to come back: a 429 or
//! 503 with `Retry-After` (delay-seconds or an HTTP-date) is retried after
//! that wait, on every request (the handshake's too, notifications, the
//! session DELETE), bounded: at most `RetryAfterPolicy::max_retries`
//! retries, no wait longer than `max_wait` (a server asking for an hour
//! gets its refusal reported at once), never past the send's own deadline.
//! No `Retry-After`, no retry.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use common::*;
use fault_http::{FaultServer, Recorded, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::{Transport, TransportError};
use mcp_transport_http::{HttpMode, HttpTimeouts, HttpTransport};
use serde_json::json;

/// Makes a `Retry-After` value (at request time: dates move).
type When = fn() -> String;
/// Picks the requests a server refuses.
type Which = fn(&Recorded) -> bool;

fn answer(r: &Recorded) -> Reply {
    let id = r.rpc_id().unwrap_or_default();
    if r.method == Method::DELETE {
        return Reply::status(200);
    }
    match r.rpc_method().as_deref() {
        Some("initialize") => {
            Reply::json(init_result(&id, "2025-06-18")).header("mcp-session-id", "s1")
        }
        Some("tools/list") => Reply::json(tools_result(&id)),
        _ => Reply::status(202),
    }
}

/// A server that refuses the first `refusals` requests matching `which`
/// with `status` and `retry_after` (None: no header), then answers.
fn busy(
    which: Which,
    refusals: usize,
    status: u16,
    retry_after: Option<When>,
) -> impl Fn(&Recorded) -> Reply {
    let refused = Arc::new(AtomicUsize::new(0));
    move |r| {
        if which(r) && refused.fetch_add(1, Ordering::Relaxed) < refusals {
            let reply = Reply::status(status).body("slow down");
            return match retry_after {
                Some(value) => reply.header("retry-after", &value()),
                None => reply,
            };
        }
        answer(r)
    }
}

fn is_list(r: &Recorded) -> bool {
    r.rpc_method().as_deref() == Some("tools/list")
}

fn in_secs(s: u64) -> String {
    httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(s))
}

fn count(server: &FaultServer, which: Which) -> usize {
    server.requests().iter().filter(|r| which(r)).count()
}

/// Retried and then answered: each way of saying when.
#[tokio::test]
async fn retry_after_seconds_or_date_is_waited_then_answered() {
    let cases: [(&str, u16, usize, When); 6] = [
        ("429 0 s", 429, 1, || "0".into()),
        ("429 1 s", 429, 1, || "1".into()),
        ("503 0 s twice", 503, 2, || " 0 ".into()),
        ("429 date in 1 s", 429, 1, || in_secs(1)),
        ("429 date in the past", 429, 1, || {
            httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(3600))
        }),
        ("429 three times (the most retried)", 429, 3, || "0".into()),
    ];
    for (name, status, refusals, value) in cases {
        let server = FaultServer::start(busy(is_list, refusals, status, Some(value)))
            .await
            .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        initialize(&t).await.unwrap();
        let tools = t
            .request("tools/list", None, opts())
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tools.to_value().unwrap(), json!({"tools": []}), "{name}");
        assert_eq!(count(&server, is_list), refusals + 1, "{name}");
        t.close().await.unwrap();
    }
}

/// Not retried: too long a wait, no header, an unreadable one, past the
/// number of tries. The refusal is the error, at once.
#[tokio::test]
async fn retry_after_beyond_the_bounds_is_the_error() {
    let cases: [(&str, u16, usize, Option<When>, usize); 6] = [
        ("an hour", 429, 1, Some(|| "3600".into()), 1),
        ("a date in an hour", 503, 1, Some(|| in_secs(3600)), 1),
        (
            "a huge number",
            429,
            1,
            Some(|| "99999999999999999999999".into()),
            1,
        ),
        ("no Retry-After", 429, 1, None, 1),
        ("unreadable", 503, 1, Some(|| "soon".into()), 1),
        ("always busy", 429, 100, Some(|| "0".into()), 4),
    ];
    for (name, status, refusals, value, sent) in cases {
        let server = FaultServer::start(busy(is_list, refusals, status, value))
            .await
            .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        initialize(&t).await.unwrap();
        match t.request("tools/list", None, opts()).await {
            Err(TransportError::Http {
                status: s, body, ..
            }) => {
                assert_eq!((s, body.as_str()), (status, "slow down"), "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(count(&server, is_list), sent, "{name}");
        assert!(t.is_connected());
        t.close().await.unwrap();
    }
}

/// The handshake (in Auto mode too), notifications and the session DELETE
/// are retried like requests.
#[tokio::test]
async fn every_request_kind_is_retried() {
    fn is_init(r: &Recorded) -> bool {
        r.rpc_method().as_deref() == Some("initialize")
    }
    fn is_note(r: &Recorded) -> bool {
        r.rpc_method().as_deref() == Some("notifications/initialized")
    }
    fn is_delete(r: &Recorded) -> bool {
        r.method == Method::DELETE
    }
    let kinds: [(&str, Which, HttpMode); 4] = [
        ("initialize", is_init, HttpMode::Streamable),
        ("initialize, auto", is_init, HttpMode::Auto),
        ("notification", is_note, HttpMode::Streamable),
        ("DELETE", is_delete, HttpMode::Streamable),
    ];
    for (name, which, mode) in kinds {
        let server = FaultServer::start(busy(which, 1, 429, Some(|| "0".into())))
            .await
            .unwrap();
        let t = HttpTransport::connect(
            config(&server.url("/mcp")).with_listen_after_initialized(false),
            mode,
        )
        .await
        .unwrap();
        initialize(&t)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        t.notify("notifications/initialized", None)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        t.close().await.unwrap();
        assert_eq!(count(&server, which), 2, "{name}");
    }
}

/// A wait that would end past the send's own deadline is not waited: a
/// notification (notify timeout) and a request whose own timeout comes
/// first get the server's refusal at once (not a timeout that hides it).
#[tokio::test]
async fn a_wait_never_outlasts_the_send() {
    fn is_note(r: &Recorded) -> bool {
        r.rpc_method().as_deref() == Some("notifications/initialized")
    }
    let server = FaultServer::start(busy(
        |r| is_note(r) || is_list(r),
        100,
        503,
        Some(|| "5".into()),
    ))
    .await
    .unwrap();
    let timeouts = HttpTimeouts::default().with_notify(Duration::from_millis(1_000));
    let t = HttpTransport::connect(
        config(&server.url("/mcp"))
            .with_timeouts(timeouts)
            .with_listen_after_initialized(false),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    initialize(&t).await.unwrap();
    match t.notify("notifications/initialized", None).await {
        Err(TransportError::Http { status: 503, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(count(&server, is_note), 1);
    // Asked for longer than any clock can add: the refusal, at once.
    let huge = FaultServer::start(busy(
        is_note,
        100,
        429,
        Some(|| "99999999999999999999".into()),
    ))
    .await
    .unwrap();
    let h = HttpTransport::connect(
        config(&huge.url("/mcp")).with_listen_after_initialized(false),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    initialize(&h).await.unwrap();
    match h.notify("notifications/initialized", None).await {
        Err(TransportError::Http { status: 429, .. }) => {}
        other => panic!("{other:?}"),
    }
    h.close().await.unwrap();
    let short = opts().with_timeout(Duration::from_millis(300));
    match t.request("tools/list", None, short).await {
        Err(TransportError::Http { status: 503, .. }) => {}
        other => panic!("the refusal, not a timeout that hides it: {other:?}"),
    }
    assert_eq!(count(&server, is_list), 1);
    t.close().await.unwrap();
}
