//! Helpers shared by the dispatcher tests (each file uses a subset).
#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcp_transport::{Dispatcher, Outbound, Outgoing, RequestOptions, TransportError};
use serde_json::Value;
use tokio::sync::mpsc;

/// An outbound that hands every message to the test.
pub(crate) struct Recorder(mpsc::UnboundedSender<Outgoing>);

#[async_trait]
impl Outbound for Recorder {
    async fn send(&self, message: Outgoing, _d: &Arc<Dispatcher>) -> Result<(), TransportError> {
        let _ = self.0.send(message);
        Ok(())
    }
}

pub(crate) fn setup() -> (Arc<Dispatcher>, mpsc::UnboundedReceiver<Outgoing>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (Dispatcher::new(Arc::new(Recorder(tx)), "test"), rx)
}

/// Four requests (ids 0 to 3, each with a 1 s timeout and progress asked
/// for) on a fresh dispatcher labelled "test"; the handles resolve with each
/// request's outcome and the progress values it saw.
pub(crate) async fn four_requests(
    method: &str,
) -> (
    Arc<Dispatcher>,
    Vec<tokio::task::JoinHandle<(Result<Value, TransportError>, Vec<f64>)>>,
) {
    let (d, mut out) = setup();
    let mut calls = Vec::new();
    for _ in 0..4 {
        let d2 = d.clone();
        let method = method.to_owned();
        calls.push(tokio::spawn(async move {
            let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
            let seen2 = seen.clone();
            let opts = RequestOptions::default()
                .with_timeout(Duration::from_secs(1))
                .with_progress(move |p| seen2.lock().unwrap().push(p.progress));
            let result = d2
                .request(&method, None, opts)
                .await
                .map(|r| r.to_value().unwrap());
            let seen = seen.lock().unwrap().clone();
            (result, seen)
        }));
        // Wait until it is registered (and its id allocated) before the next.
        out.recv().await.unwrap();
    }
    (d, calls)
}
