//! A transport that can deliver a request at once (`Outbound::send_request_now`)
//! is not asked to `send` it: the dispatcher tries the synchronous way first
//! and awaits `send` only for what is handed back; an error it reports fails
//! the request and forgets it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_transport::{CloseReason, Dispatcher, Outbound, Outgoing, RequestOptions, TransportError};
use serde_json::json;

/// Takes a request at once while `accept` is set, hands it back otherwise
/// (then `send` takes it); `fail` makes the synchronous way fail instead.
#[derive(Default)]
struct Recording {
    accept: std::sync::atomic::AtomicBool,
    fail: std::sync::atomic::AtomicBool,
    sends: AtomicUsize,
    now: AtomicUsize,
    bodies: Mutex<Vec<Vec<u8>>>,
}

#[async_trait]
impl Outbound for Recording {
    async fn send(&self, message: Outgoing, _d: &Arc<Dispatcher>) -> Result<(), TransportError> {
        self.sends.fetch_add(1, Ordering::SeqCst);
        self.bodies.lock().unwrap().push(message.body.to_vec());
        Ok(())
    }

    fn send_request_now(
        &self,
        message: Outgoing,
        _dispatcher: &Dispatcher,
    ) -> Result<Result<(), TransportError>, Outgoing> {
        if self.fail.load(Ordering::SeqCst) {
            return Ok(Err(TransportError::Closed(CloseReason::new("gone"))));
        }
        if !self.accept.load(Ordering::SeqCst) {
            return Err(message);
        }
        self.now.fetch_add(1, Ordering::SeqCst);
        self.bodies.lock().unwrap().push(message.body.to_vec());
        Ok(Ok(()))
    }
}

async fn answered(d: &Arc<Dispatcher>, out: &Recording, id: u64) -> serde_json::Value {
    let d2 = d.clone();
    let call = tokio::spawn(async move { d2.request("x", None, RequestOptions::default()).await });
    while out.bodies.lock().unwrap().len() <= id as usize {
        tokio::task::yield_now().await;
    }
    d.handle_incoming(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"n":{id}}}}}"#).as_bytes())
        .await;
    call.await.unwrap().unwrap().to_value().unwrap()
}

#[tokio::test]
async fn a_request_taken_at_once_is_not_sent_again() {
    let out = Arc::new(Recording::default());
    out.accept.store(true, Ordering::SeqCst);
    let d = Dispatcher::new(out.clone(), "test");
    assert_eq!(answered(&d, &out, 0).await, json!({"n": 0}));
    assert_eq!(out.now.load(Ordering::SeqCst), 1);
    assert_eq!(out.sends.load(Ordering::SeqCst), 0);
    // Handed back: awaited through `send`, once.
    out.accept.store(false, Ordering::SeqCst);
    assert_eq!(answered(&d, &out, 1).await, json!({"n": 1}));
    assert_eq!(out.now.load(Ordering::SeqCst), 1);
    assert_eq!(out.sends.load(Ordering::SeqCst), 1);
    let bodies = out.bodies.lock().unwrap();
    let first: serde_json::Value = serde_json::from_slice(&bodies[0]).unwrap();
    assert_eq!(first, json!({"jsonrpc": "2.0", "id": 0, "method": "x"}));
}

#[tokio::test]
async fn an_error_of_the_synchronous_way_fails_the_request_and_forgets_it() {
    let out = Arc::new(Recording::default());
    out.fail.store(true, Ordering::SeqCst);
    let d = Dispatcher::new(out.clone(), "test");
    let err = d
        .request("x", None, RequestOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, TransportError::Closed(_)), "{err:?}");
    assert_eq!(d.pending_len(), 0);
    assert_eq!(out.sends.load(Ordering::SeqCst), 0);
}
