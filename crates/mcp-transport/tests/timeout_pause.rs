//! A request's timeout stands still while the client answers a server
//! request on the same connection (a person filling in a form, a model
//! sampling): the time spent answering is not the server's delay. Run on
//! tokio's paused clock, so the times are exact.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::Arc;
use std::time::Duration;

use mcp_transport::{
    Dispatcher, IncomingRequest, RequestOptions, TimeoutPhase, TransportError, TransportEvent,
    TransportEvents,
};
use serde_json::json;
use tokio::time::Instant;

mod common;
use common::*;

/// How the client finishes with a server request it was given.
#[derive(Debug, Clone, Copy)]
enum Finish {
    /// The handler's answer is sent.
    Answer,
    /// The server cancelled it; no answer is sent.
    Discard,
    /// Dropped unanswered: the default answer goes out.
    Drop,
}

async fn finish(request: IncomingRequest, how: Finish) {
    match how {
        Finish::Answer => request
            .respond(Ok(json!({"action": "accept", "content": {"name": "Ada"}})))
            .await
            .unwrap(),
        Finish::Discard => request.discard(),
        Finish::Drop => drop(request),
    }
}

async fn server_request(
    d: &Arc<Dispatcher>,
    events: &mut TransportEvents,
    id: u64,
) -> IncomingRequest {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"elicitation/create","params":{{"message":"Your name?","requestedSchema":{{"type":"object","properties":{{}}}}}}}}"#
    );
    d.handle_incoming(frame.as_bytes()).await;
    match events.recv().await.unwrap() {
        TransportEvent::Request(r) => r,
        other => panic!("{other:?}"),
    }
}

/// `tools/call` with a 3 s timeout; at 1 s the server asks for a form that
/// takes 6 s to fill in. Whichever way the client finishes with it, the
/// call is still waiting at 8.5 s, and with no response it times out at
/// 9 s, having counted 3 s against the server.
#[tokio::test(start_paused = true)]
async fn answering_a_server_request_pauses_the_timeout() {
    for how in [Finish::Answer, Finish::Discard, Finish::Drop] {
        for respond in [true, false] {
            let (d, mut out) = setup();
            let mut events = d.take_events().unwrap();
            let start = Instant::now();
            let d2 = d.clone();
            let call = tokio::spawn(async move {
                let opts = RequestOptions::default().with_timeout(Duration::from_secs(3));
                let r = d2
                    .request("tools/call", Some(&json!({"name": "ask_name"})), opts)
                    .await;
                (r, start.elapsed())
            });
            out.recv().await.unwrap();
            tokio::time::sleep(Duration::from_secs(1)).await;
            let form = server_request(&d, &mut events, 7).await;
            tokio::time::sleep(Duration::from_secs(6)).await;
            assert!(
                !call.is_finished(),
                "{how:?}: timed out while the form was open"
            );
            finish(form, how).await;
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            assert!(!call.is_finished(), "{how:?}: the pause was not given back");
            if respond {
                d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":{"content":[]}}"#)
                    .await;
                let (r, _) = call.await.unwrap();
                assert!(r.is_ok(), "{how:?}: {r:?}");
            } else {
                let (r, took) = call.await.unwrap();
                match r {
                    Err(TransportError::Timeout { ms, phase, .. }) => {
                        assert_eq!(phase, TimeoutPhase::Request, "{how:?}");
                        assert_eq!(ms, 3_000, "{how:?}: the pause counted against the server");
                    }
                    other => panic!("{how:?}: {other:?}"),
                }
                assert_eq!(took, Duration::from_secs(9), "{how:?}");
            }
        }
    }
}

/// Two overlapping server requests: the timer stands still until the last
/// is answered. A server request that arrived before the call started
/// pauses it from the start.
#[tokio::test(start_paused = true)]
async fn the_pause_lasts_until_every_server_request_is_answered() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    let first = server_request(&d, &mut events, 1).await;
    let start = Instant::now();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        let opts = RequestOptions::default().with_timeout(Duration::from_secs(2));
        let r = d2.request("tools/call", None, opts).await;
        (r, start.elapsed())
    });
    out.recv().await.unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let second = server_request(&d, &mut events, 2).await;
    finish(first, Finish::Answer).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        !call.is_finished(),
        "timed out while a server request was open"
    );
    finish(second, Finish::Answer).await;
    let (r, took) = call.await.unwrap();
    assert!(
        matches!(r, Err(TransportError::Timeout { ms: 2_000, .. })),
        "{r:?}"
    );
    assert_eq!(took, Duration::from_secs(8));
}

/// The total cap of a progress-reset timeout moves by the pause too, and a
/// progress update during the pause restarts the timeout from the pause's
/// start (the clock stands still), not from when it arrived.
#[tokio::test(start_paused = true)]
async fn the_total_cap_moves_by_the_pause() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    let start = Instant::now();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        let opts = RequestOptions::default()
            .with_timeout(Duration::from_secs(2))
            .with_progress(|_| {})
            .with_timeout_reset_on_progress(Duration::from_secs(3));
        let r = d2.request("tools/call", None, opts).await;
        (r, start.elapsed())
    });
    out.recv().await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let form = server_request(&d, &mut events, 9).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    d.handle_incoming(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":0,"progress":1}}"#,
    )
    .await;
    tokio::time::sleep(Duration::from_secs(6)).await;
    finish(form, Finish::Answer).await;
    let (r, took) = call.await.unwrap();
    assert!(
        matches!(
            r,
            Err(TransportError::Timeout {
                phase: TimeoutPhase::Total,
                ms: 3_000,
                ..
            })
        ),
        "{r:?}"
    );
    // 3 s of the cap plus the 10 s the form was open.
    assert_eq!(took, Duration::from_secs(13));
}

/// A pause that ended before the deadline still moves it: a 5 s timeout
/// with a form open from 1 s to 3 s times out at 7 s, having counted 5 s.
#[tokio::test(start_paused = true)]
async fn a_pause_over_before_the_deadline_moves_it() {
    let (d, mut out) = setup();
    let mut events = d.take_events().unwrap();
    let start = Instant::now();
    let d2 = d.clone();
    let call = tokio::spawn(async move {
        let opts = RequestOptions::default().with_timeout(Duration::from_secs(5));
        let r = d2.request("tools/call", None, opts).await;
        (r, start.elapsed())
    });
    out.recv().await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let form = server_request(&d, &mut events, 3).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    finish(form, Finish::Answer).await;
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    assert!(!call.is_finished(), "the pause did not move the deadline");
    let (r, took) = call.await.unwrap();
    assert!(
        matches!(r, Err(TransportError::Timeout { ms: 5_000, .. })),
        "{r:?}"
    );
    assert_eq!(took, Duration::from_secs(7));
}
