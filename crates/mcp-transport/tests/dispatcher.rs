//! The shared request machinery, driven through an in-memory outbound that
//! records what would go to the peer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::Arc;
use std::time::Duration;

use mcp_transport::{
    CancellationToken, CloseReason, Outgoing, OutgoingKind, RequestOptions, TransportError,
    TransportEvent,
};
use mcp_types::{DecodeError, RequestId};
use serde_json::{Value, json};

mod common;
use common::*;

fn body(o: &Outgoing) -> Value {
    serde_json::from_slice(&o.body).unwrap()
}

#[tokio::test]
async fn response_resolves_request() {
    let (d, mut out) = setup();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        d2.request("tools/list", None, RequestOptions::default())
            .await
    });
    let sent = out.recv().await.unwrap();
    assert_eq!(sent.kind, OutgoingKind::Request);
    assert_eq!(
        body(&sent),
        json!({"jsonrpc":"2.0","id":0,"method":"tools/list"})
    );
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}"#)
        .await;
    assert_eq!(call.await.unwrap().unwrap(), json!({"tools":[]}));
}

/// A request the schema names carries its method borrowed (no allocation
/// per message); another method is carried as it was given.
#[tokio::test]
async fn the_method_of_a_known_request_is_borrowed() {
    let (d, mut out) = setup();
    for (method, borrowed) in [("tools/call", true), ("x-vendor/custom", false)] {
        let d2 = d.clone();
        let call =
            tokio::spawn(async move { d2.request(method, None, RequestOptions::default()).await });
        let sent = out.recv().await.unwrap();
        assert_eq!(sent.method.as_deref(), Some(method));
        assert_eq!(
            matches!(sent.method, Some(std::borrow::Cow::Borrowed(_))),
            borrowed,
            "{method}"
        );
        call.abort();
    }
}

#[tokio::test]
async fn out_of_order_responses_resolve_their_own_requests() {
    let (d, mut out) = setup();
    let (a, b) = (d.clone(), d.clone());
    let first = tokio::spawn(async move { a.request("x", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    let second = tokio::spawn(async move { b.request("y", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":1,"result":"second"}"#)
        .await;
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":"first"}"#)
        .await;
    assert_eq!(first.await.unwrap().unwrap(), json!("first"));
    assert_eq!(second.await.unwrap().unwrap(), json!("second"));
}

#[tokio::test]
async fn result_and_error_fails_only_that_request() {
    let (d, mut out) = setup();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        d2.request("tools/call", None, RequestOptions::default())
            .await
    });
    out.recv().await.unwrap();
    d.handle_incoming(
        br#"{"jsonrpc":"2.0","id":0,"result":{"content":[]},"error":{"code":-32603,"message":"boom"}}"#,
    )
    .await;
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(
            &err,
            TransportError::Malformed {
                request: Some(RequestId::Number(0)),
                source: DecodeError::ResultAndError { .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(d.is_open());
}

#[tokio::test]
async fn neither_result_nor_error_tolerated_only_for_ping() {
    let (d, mut out) = setup();
    let (a, b) = (d.clone(), d.clone());
    let ping =
        tokio::spawn(async move { a.request("ping", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    let list = tokio::spawn(async move {
        b.request("tools/list", None, RequestOptions::default())
            .await
    });
    out.recv().await.unwrap();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0}"#).await;
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":1}"#).await;
    assert_eq!(ping.await.unwrap().unwrap(), json!({}));
    assert!(matches!(
        list.await.unwrap().unwrap_err(),
        TransportError::Malformed {
            request: Some(RequestId::Number(1)),
            source: DecodeError::NoResultOrError { .. },
            ..
        }
    ));
}

#[tokio::test]
async fn error_response_is_jsonrpc_error() {
    let (d, mut out) = setup();
    let d2 = d.clone();
    let call = tokio::spawn(async move { d2.request("x", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    d.handle_incoming(
        br#"{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"bad","data":{"k":1}}}"#,
    )
    .await;
    let err = call.await.unwrap().unwrap_err();
    let e = err.as_jsonrpc().unwrap();
    assert_eq!(e.code.0, -32602);
    assert_eq!(e.data, Some(json!({"k":1})));
    assert_eq!(err.to_string(), "MCP error -32602: bad");
}

#[tokio::test(start_paused = true)]
async fn timeout_sends_one_cancelled_and_drops_late_response() {
    let (d, mut out) = setup();
    let err = d
        .request(
            "tools/call",
            Some(&json!({"name":"slow"})),
            RequestOptions::default().with_timeout(Duration::from_secs(1)),
        )
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(
        err.to_string(),
        "timed out after 1000 ms waiting for tools/call",
        "names the method"
    );
    let req = out.recv().await.unwrap();
    assert_eq!(req.kind, OutgoingKind::Request);
    let cancel = out.recv().await.unwrap();
    assert_eq!(
        body(&cancel),
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0,"reason":"timeout"}})
    );
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":{"content":[]}}"#)
        .await;
    assert!(out.try_recv().is_err(), "nothing more is sent");
    assert_eq!(d.pending_len(), 0);
}

#[tokio::test(start_paused = true)]
async fn initialize_timeout_sends_no_cancelled() {
    let (d, mut out) = setup();
    let err = d
        .request(
            "initialize",
            Some(&json!({})),
            RequestOptions::default().with_timeout(Duration::from_secs(1)),
        )
        .await
        .unwrap_err();
    assert!(err.is_timeout());
    assert_eq!(
        out.recv().await.unwrap().method.as_deref(),
        Some("initialize")
    );
    tokio::task::yield_now().await;
    assert!(out.try_recv().is_err());
}

#[tokio::test]
async fn dropping_the_future_sends_cancelled_once() {
    let (d, mut out) = setup();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        d2.request("tools/call", None, RequestOptions::default())
            .await
    });
    out.recv().await.unwrap();
    call.abort();
    let cancel = tokio::time::timeout(Duration::from_secs(5), out.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(body(&cancel)["method"], "notifications/cancelled");
    assert_eq!(body(&cancel)["params"]["requestId"], 0);
    tokio::task::yield_now().await;
    assert!(out.try_recv().is_err());
}

#[tokio::test]
async fn cancel_token_cancels() {
    let (d, mut out) = setup();
    let token = CancellationToken::new();
    let d2 = d.clone();
    let t2 = token.clone();
    let call = tokio::spawn(async move {
        d2.request(
            "tools/call",
            None,
            RequestOptions::default().with_cancel(t2),
        )
        .await
    });
    out.recv().await.unwrap();
    token.cancel();
    assert!(call.await.unwrap().unwrap_err().is_cancelled());
    let cancel = out.recv().await.unwrap();
    assert_eq!(body(&cancel)["params"]["reason"], "cancelled by the client");
}

#[tokio::test(start_paused = true)]
async fn progress_resets_timeout_up_to_total_cap() {
    let (d, mut out) = setup();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let opts = RequestOptions::default()
        .with_timeout(Duration::from_secs(2))
        .with_progress(move |p| seen2.lock().unwrap().push(p.progress))
        .with_timeout_reset_on_progress(Duration::from_secs(10));
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        d2.request("tools/call", Some(&json!({"name":"long"})), opts)
            .await
    });
    let req = body(&out.recv().await.unwrap());
    assert_eq!(
        req["params"]["_meta"]["progressToken"], 0,
        "token is the request id"
    );
    // Progress every second keeps it alive past the 2 s timeout…
    for k in 1..=5 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let msg = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":0,"progress":{k},"total":5}}}}"#
        );
        d.handle_incoming(msg.as_bytes()).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":{"content":[]}}"#)
        .await;
    assert!(call.await.unwrap().is_ok());
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0]);
}

#[tokio::test(start_paused = true)]
async fn endless_progress_hits_total_cap_and_wrong_token_does_not_reset() {
    let (d, mut out) = setup();
    let opts = RequestOptions::default()
        .with_timeout(Duration::from_secs(2))
        .with_progress(|_| {})
        .with_timeout_reset_on_progress(Duration::from_secs(10));
    let d2 = d.clone();
    let start = tokio::time::Instant::now();
    let call = tokio::spawn(async move { d2.request("tools/call", None, opts).await });
    out.recv().await.unwrap();
    let feeder = {
        let d = d.clone();
        tokio::spawn(async move {
            for k in 0..20 {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let m = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":0,"progress":{k}}}}}"#
                );
                d.handle_incoming(m.as_bytes()).await;
            }
        })
    };
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(
            err,
            TransportError::Timeout {
                phase: mcp_transport::TimeoutPhase::Total,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "timed out after 10000 ms waiting for tools/call (its total time)"
    );
    assert_eq!(start.elapsed().as_secs(), 10);
    feeder.abort();

    // Variant C: progress under a token of another JSON type ("1" vs 1) does not reset.
    let opts = RequestOptions::default()
        .with_timeout(Duration::from_secs(2))
        .with_progress(|_| {})
        .with_timeout_reset_on_progress(Duration::from_secs(10));
    let d2 = d.clone();
    let start = tokio::time::Instant::now();
    let call = tokio::spawn(async move { d2.request("tools/call", None, opts).await });
    let _ = out.recv().await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    d.handle_incoming(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"1","progress":1}}"#).await;
    let err = call.await.unwrap().unwrap_err();
    assert!(matches!(
        err,
        TransportError::Timeout {
            phase: mcp_transport::TimeoutPhase::Request,
            ..
        }
    ));
    assert_eq!(start.elapsed().as_secs(), 2);
}

#[tokio::test]
async fn unhandled_server_requests_get_default_answers_with_same_id_type() {
    let (d, mut out) = setup();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .await;
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":"r-2","method":"roots/list"}"#)
        .await;
    let ping = body(&out.recv().await.unwrap());
    assert_eq!(ping, json!({"jsonrpc":"2.0","id":1,"result":{}}));
    let roots = body(&out.recv().await.unwrap());
    assert_eq!(roots["id"], json!("r-2"));
    assert_eq!(roots["error"]["code"], -32601);
}

#[tokio::test]
async fn server_request_with_colliding_id_is_a_request_and_our_request_still_resolves() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        d2.request("tools/list", None, RequestOptions::default())
            .await
    });
    out.recv().await.unwrap();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#)
        .await;
    match events.recv().await.unwrap() {
        TransportEvent::Request(r) => {
            assert_eq!(r.method, "ping");
            r.respond(Ok(json!({}))).await.unwrap();
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        body(&out.recv().await.unwrap()),
        json!({"jsonrpc":"2.0","id":0,"result":{}})
    );
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}"#)
        .await;
    assert_eq!(call.await.unwrap().unwrap(), json!({"tools":[]}));
}

#[tokio::test]
async fn dropped_incoming_request_is_answered_method_not_found() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":4,"method":"vendor/whatever","params":{}}"#)
        .await;
    drop(events.recv().await.unwrap());
    let reply = body(
        &tokio::time::timeout(Duration::from_secs(5), out.recv())
            .await
            .unwrap()
            .unwrap(),
    );
    assert_eq!(reply["id"], 4);
    assert_eq!(reply["error"]["code"], -32601);
}

#[tokio::test]
async fn junk_and_unknown_notifications_are_not_fatal() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    for junk in [
        &b"MyServer v1.2 listening"[..],
        b"{\"level\":\"info\"}",
        b"[2025] [W] x",
        b"",
    ] {
        d.handle_incoming(junk).await;
    }
    d.handle_incoming(br#"{"jsonrpc":"2.0","method":"codex/event","params":{"msg":{}}}"#)
        .await;
    match events.recv().await.unwrap() {
        TransportEvent::Notification(n) => assert_eq!(n.method, "codex/event"),
        other => panic!("{other:?}"),
    }
    assert!(out.try_recv().is_err(), "nothing is written back for junk");
    assert!(d.is_open());
}

#[tokio::test]
async fn close_fails_pending_and_fires_once() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    let d2 = d.clone();
    let call = tokio::spawn(async move { d2.request("x", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    let reason = CloseReason {
        message: "server exited".into(),
        exit_status: Some("exit status: 3".into()),
        stderr_tail: Some("boom\n".into()),
    };
    assert!(d.close(reason.clone()));
    assert!(!d.close(CloseReason::new("again")));
    let err = call.await.unwrap().unwrap_err();
    assert!(err.is_closed());
    assert!(err.to_string().contains("exit status: 3") && err.to_string().contains("boom"));
    assert!(matches!(events.recv().await, Some(TransportEvent::Closed(r)) if r == reason));
    assert!(events.recv().await.is_none(), "exactly one close event");
    assert!(
        d.request("x", None, RequestOptions::default())
            .await
            .unwrap_err()
            .is_closed()
    );
}

#[tokio::test]
async fn batch_only_under_2025_03_26() {
    let (d, mut out) = setup();
    let d2 = d.clone();
    let call = tokio::spawn(async move { d2.request("x", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    // No revision yet: the batch is refused, and the request it answers
    // fails at once instead of waiting for its timeout.
    d.handle_incoming(br#"[{"jsonrpc":"2.0","id":0,"result":"ok"}]"#)
        .await;
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(
            &err,
            TransportError::Malformed {
                request: Some(RequestId::Number(0)),
                source: DecodeError::BatchNotAllowed,
                ..
            }
        ),
        "{err:?}"
    );
    d.set_protocol_version(mcp_types::ProtocolVersion::V2025_03_26);
    let d2 = d.clone();
    let call = tokio::spawn(async move { d2.request("x", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    d.handle_incoming(br#"[{"jsonrpc":"2.0","id":1,"result":"ok"}]"#)
        .await;
    assert_eq!(call.await.unwrap().unwrap(), json!("ok"));
}

/// Every kind of malformed response that still names its request fails
/// that request at once with `Malformed` (not a timeout); the connection
/// and the other requests go on. A message with a `method` is never taken
/// for a response, whatever else is wrong with it.
#[tokio::test(start_paused = true)]
async fn malformed_response_with_a_readable_id_fails_its_request_at_once() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":0,"error":{{"code":1,"message":"m","data":{}{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let frames: Vec<(&str, String)> = vec![
        (
            "bad error object",
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":"x","message":5}}"#.into(),
        ),
        (
            "error without message",
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32000}}"#.into(),
        ),
        (
            "wrong jsonrpc",
            r#"{"jsonrpc":"1.0","id":0,"result":{}}"#.into(),
        ),
        ("no jsonrpc", r#"{"id":0,"result":{}}"#.into()),
        (
            "trailing garbage",
            r#"{"jsonrpc":"2.0","id":0,"result":{}} xyz"#.into(),
        ),
        (
            "two on a line",
            r#"{"jsonrpc":"2.0","id":0,"result":{}}{"jsonrpc":"2.0","id":9,"result":{}}"#.into(),
        ),
        (
            "escaped member names",
            r#"{"jsonrpc":"1.0","\u0069d":0,"result":{}}"#.into(),
        ),
        ("nested past the parser's depth", deep),
        (
            "batch outside 2025-03-26",
            r#"[{"jsonrpc":"2.0","id":0,"result":{}}]"#.into(),
        ),
    ];
    for (what, frame) in frames {
        let (d, mut out) = setup();
        d.set_protocol_version(mcp_types::ProtocolVersion::V2025_06_18);
        let options = || RequestOptions::default().with_timeout(Duration::from_secs(3600));
        let (a, b) = (d.clone(), d.clone());
        let first = tokio::spawn(async move { a.request("tools/call", None, options()).await });
        out.recv().await.unwrap();
        let second = tokio::spawn(async move { b.request("tools/list", None, options()).await });
        out.recv().await.unwrap();
        d.handle_incoming(frame.as_bytes()).await;
        let err = tokio::time::timeout(Duration::from_secs(1), first)
            .await
            .unwrap_or_else(|_| panic!("{what}: request 0 still waits"))
            .unwrap()
            .unwrap_err();
        assert!(
            matches!(
                &err,
                TransportError::Malformed {
                    request: Some(RequestId::Number(0)),
                    ..
                }
            ),
            "{what}: {err:?}"
        );
        assert!(d.is_open(), "{what}");
        d.handle_incoming(br#"{"jsonrpc":"2.0","id":1,"result":"still fine"}"#)
            .await;
        assert_eq!(
            second.await.unwrap().unwrap(),
            json!("still fine"),
            "{what}"
        );
    }

    // Not responses: a `method` makes it a (bad) request, and a second `id`
    // leaves the request unknown; request 0 waits on.
    for frame in [
        &br#"{"jsonrpc":"1.0","id":0,"method":"ping"}"#[..],
        br#"{"jsonrpc":"1.0","id":0,"id":1,"result":{}}"#,
        br#"{"jsonrpc":"1.0","id":0.5,"result":{}}"#,
    ] {
        let (d, mut out) = setup();
        let d2 = d.clone();
        let _call =
            tokio::spawn(async move { d2.request("x", None, RequestOptions::default()).await });
        out.recv().await.unwrap();
        d.handle_incoming(frame).await;
        assert_eq!(d.pending_len(), 1, "{}", String::from_utf8_lossy(frame));
    }
}

/// A 2025-03-26 batch with a bad element: the good elements are delivered,
/// a bad one that names its request fails only that request.
#[tokio::test]
async fn batch_with_a_bad_element_delivers_the_others() {
    let (d, mut out) = setup();
    d.set_protocol_version(mcp_types::ProtocolVersion::V2025_03_26);
    let (a, b) = (d.clone(), d.clone());
    let good = tokio::spawn(async move { a.request("x", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    let bad = tokio::spawn(async move { b.request("y", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    d.handle_incoming(
        br#"[5, {"jsonrpc":"2.0","id":0,"result":"ok"}, {"jsonrpc":"2.0","id":1,"error":{"code":"bad"}}]"#,
    )
    .await;
    assert_eq!(good.await.unwrap().unwrap(), json!("ok"));
    assert!(matches!(
        bad.await.unwrap().unwrap_err(),
        TransportError::Malformed {
            request: Some(RequestId::Number(1)),
            ..
        }
    ));
    assert!(d.is_open());
}

#[tokio::test(start_paused = true)]
async fn probe_without_cancel_notification_sends_nothing_on_timeout() {
    let (d, mut out) = setup();
    let err = d
        .request(
            "server/discover",
            None,
            RequestOptions::default()
                .with_timeout(Duration::from_secs(3))
                .without_cancel_notification(),
        )
        .await
        .unwrap_err();
    assert!(err.is_timeout());
    assert_eq!(
        out.recv().await.unwrap().method.as_deref(),
        Some("server/discover")
    );
    tokio::task::yield_now().await;
    assert!(
        out.try_recv().is_err(),
        "no notifications/cancelled for the probe"
    );
}

#[tokio::test]
async fn discarded_server_request_gets_no_answer() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}"#)
        .await;
    match events.recv().await.unwrap() {
        TransportEvent::Request(r) => r.discard(),
        other => panic!("{other:?}"),
    }
    tokio::task::yield_now().await;
    assert!(out.try_recv().is_err());
}

#[tokio::test]
async fn a_timeout_too_large_for_an_instant_means_no_timeout() {
    let (d, mut out) = setup();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        d2.request(
            "x",
            None,
            RequestOptions::default().with_timeout(Duration::MAX),
        )
        .await
    });
    out.recv().await.unwrap();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":"ok"}"#)
        .await;
    assert_eq!(call.await.unwrap().unwrap(), json!("ok"));
}

/// A server request whose id no `RequestId` holds (a fraction, a number past
/// i64, null) is answered with Invalid Request and a `null` id (JSON-RPC 2.0
/// § 5), instead of never; one with a good id but a bad method is answered
/// under its id; a JSON log line with such keys but no `"jsonrpc":"2.0"`,
/// and a notification, are not answered.
#[tokio::test]
async fn request_with_an_invalid_id_is_answered_invalid_request() {
    for (frame, id) in [
        (r#"{"jsonrpc":"2.0","id":"x","method":5}"#, json!("x")),
        (r#"{"jsonrpc":"2.0","id":7,"method":["ping"]}"#, json!(7)),
    ] {
        let (d, mut out) = setup();
        d.handle_incoming(frame.as_bytes()).await;
        let sent = out
            .try_recv()
            .unwrap_or_else(|_| panic!("{frame}: no answer"));
        let answer = body(&sent);
        assert_eq!(answer["id"], id, "{frame}");
        assert_eq!(answer["error"]["code"], -32600, "{frame}");
    }
    for id in ["1.5", "18446744073709551615", "null", "true", "[1]"] {
        let (d, mut out) = setup();
        d.handle_incoming(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes())
            .await;
        let sent = out
            .try_recv()
            .unwrap_or_else(|_| panic!("id {id}: no answer"));
        assert_eq!(sent.kind, OutgoingKind::Response);
        let answer = body(&sent);
        assert_eq!(answer["id"], Value::Null, "id {id}");
        assert_eq!(answer["error"]["code"], -32600, "id {id}");
        assert!(d.is_open());
    }
    for frame in [
        &br#"{"level":"info","id":1.5,"method":"ping"}"#[..],
        br#"{"jsonrpc":"2.0","method":"ping"}"#,
        br#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
    ] {
        let (d, mut out) = setup();
        d.handle_incoming(frame).await;
        assert!(
            out.try_recv().is_err(),
            "{}",
            String::from_utf8_lossy(frame)
        );
    }
}

/// We allocate integer ids, so a response whose id is a string holding the
/// canonical decimal digits of a pending integer id answers that request
/// (results, errors, malformed responses, a bare `ping` answer); any other
/// spelling, a number for a string, and ids we did not issue answer
/// nothing. Progress tokens keep their type (another test).
#[tokio::test(start_paused = true)]
async fn an_integer_id_echoed_as_a_string_answers_its_request() {
    let answered = |v: &Result<Value, TransportError>| v.as_ref().is_ok_and(|v| v == "ok");
    // (id as it appears in the response, does it answer request 3?)
    let rows: &[(&str, bool)] = &[
        ("3", true),
        (r#""3""#, true),
        (r#""03""#, false),
        (r#""+3""#, false),
        (r#"" 3""#, false),
        (r#""3 ""#, false),
        (r#""3.0""#, false),
        (r#""3e0""#, false),
        (r#""0x3""#, false),
        (r#""three""#, false),
        (r#""-3""#, false),
        // Ids we did not issue (or that are not pending).
        (r#""4""#, false),
        (r#""99""#, false),
        ("4", false),
    ];
    for (id, answers) in rows {
        let (d, calls) = four_requests("tools/call").await;
        let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"ok"}}"#);
        d.handle_incoming(frame.as_bytes()).await;
        let mut results = Vec::new();
        for call in calls {
            results.push(call.await.unwrap().0);
        }
        assert_eq!(answered(&results[3]), *answers, "id {id}: {results:?}");
        for (i, r) in results[..3].iter().enumerate() {
            assert!(
                r.as_ref().unwrap_err().is_timeout(),
                "id {id}, request {i}: {r:?}"
            );
        }
        if !answers {
            assert!(
                results[3].as_ref().unwrap_err().is_timeout(),
                "id {id}: {:?}",
                results[3]
            );
        }
        assert!(d.is_open());
    }
}
