//! The transport kit against transports built here for it: a correct one
//! over an in-memory byte stream passes every check; two deliberately
//! broken ones (one forgets to fail pending requests on close, one answers
//! a server request twice) fail the kit with the rule they break named.

use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use mcp_transport::testkit::{self, Harness, HarnessError, Rule, StreamPeer};
use mcp_transport::{
    Body, CloseReason, Dispatcher, Outbound, Outgoing, OutgoingKind, RawResult, RequestOptions,
    Transport, TransportError, TransportEvents, WireTap,
};
use mcp_types::RawParams;
use mcp_types::{ProtocolVersion, RequestId};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The longest line the test transport reads, in bytes.
const LIMIT: usize = 4096;

/// How a test transport breaks the contract, if it does.
#[derive(Debug, Clone, Copy, Default)]
struct Faults {
    /// `close()` stops the connection's tasks but leaves the dispatcher
    /// open: pending requests are never failed.
    forget_pending_on_close: bool,
    /// Every response to a server request is written twice.
    answer_twice: bool,
}

/// Queues each message for the writer task.
struct LineOut {
    tx: mpsc::Sender<Body>,
    answer_twice: bool,
}

#[async_trait]
impl Outbound for LineOut {
    async fn send(&self, message: Outgoing, _d: &Arc<Dispatcher>) -> Result<(), TransportError> {
        let closed = |_| TransportError::Closed(CloseReason::new("writer gone"));
        if self.answer_twice && message.kind == OutgoingKind::Response {
            self.tx.send(message.body.clone()).await.map_err(closed)?;
        }
        self.tx.send(message.body).await.map_err(closed)
    }

    fn try_send_now(&self, message: Outgoing) -> Result<(), Outgoing> {
        match self.tx.try_send(message.body.clone()) {
            Ok(()) => Ok(()),
            Err(_) => Err(message),
        }
    }
}

/// Newline-delimited JSON over one end of a `tokio::io::duplex`.
#[derive(Debug)]
struct LineTransport {
    dispatcher: Arc<Dispatcher>,
    stop: CancellationToken,
    faults: Faults,
}

impl LineTransport {
    fn new(stream: DuplexStream, faults: Faults) -> Self {
        let (read, mut write) = tokio::io::split(stream);
        let (tx, mut rx) = mpsc::channel::<Body>(64);
        let dispatcher = Dispatcher::new(
            Arc::new(LineOut {
                tx,
                answer_twice: faults.answer_twice,
            }),
            "kit-line",
        );
        let stop = CancellationToken::new();
        let (d, s) = (dispatcher.clone(), stop.clone());
        tokio::spawn(async move {
            loop {
                let body = tokio::select! {
                    _ = s.cancelled() => break,
                    body = rx.recv() => match body { Some(b) => b, None => break },
                };
                let line = [&body[..], b"\n"].concat();
                if write.write_all(&line).await.is_err() {
                    d.close(CloseReason::new("write failed"));
                    break;
                }
            }
            let _ = write.shutdown().await;
        });
        let (d, s) = (dispatcher.clone(), stop.clone());
        tokio::spawn(async move {
            let mut lines = BufReader::new(read);
            loop {
                let mut line = Vec::new();
                let read = tokio::select! {
                    _ = s.cancelled() => return,
                    r = lines.read_until(b'\n', &mut line) => r,
                };
                match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if line.len() > LIMIT {
                    // A test transport may read the whole line to find its id.
                    let id = serde_json::from_slice::<Value>(&line)
                        .ok()
                        .and_then(|v| serde_json::from_value::<RequestId>(v["id"].clone()).ok());
                    if let Some(id) = id {
                        d.fail_request(&id, TransportError::message_too_large(LIMIT));
                    }
                    continue;
                }
                d.handle_frame(Bytes::from(line)).await;
            }
            d.close(CloseReason::new("the peer closed the stream"));
        });
        LineTransport {
            dispatcher,
            stop,
            faults,
        }
    }
}

#[async_trait]
impl Transport for LineTransport {
    async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        self.dispatcher.request(method, params, options).await
    }
    async fn request_raw(
        &self,
        method: &str,
        params: RawParams,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        self.dispatcher.request_raw(method, params, options).await
    }
    fn dispatcher(&self) -> Option<&Arc<Dispatcher>> {
        Some(&self.dispatcher)
    }
    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError> {
        self.dispatcher.notify(method, params).await
    }
    async fn close(&self) -> Result<(), TransportError> {
        if !self.faults.forget_pending_on_close {
            self.dispatcher
                .close(CloseReason::new("closed by the client"));
        }
        self.stop.cancel();
        Ok(())
    }
    fn is_connected(&self) -> bool {
        self.dispatcher.is_open()
    }
    fn wire_kind(&self) -> Option<&'static str> {
        None
    }
    fn take_events(&self) -> Option<TransportEvents> {
        self.dispatcher.take_events()
    }
    fn set_protocol_version(&self, version: ProtocolVersion) {
        self.dispatcher.set_protocol_version(version)
    }
    fn sends_metadata_headers(&self) -> bool {
        false
    }
    fn session_id(&self) -> Option<String> {
        None
    }
    fn set_wire_tap(&self, tap: Arc<dyn WireTap>) -> bool {
        self.dispatcher.set_wire_tap(tap)
    }
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.dispatcher.redact(text)
    }
    fn pending_requests(&self) -> usize {
        self.dispatcher.pending_len()
    }
}

/// Connects a [`LineTransport`] with `faults` to the kit's [`StreamPeer`].
struct LineHarness(Faults);

#[async_trait]
impl Harness for LineHarness {
    type Transport = LineTransport;
    type Peer = StreamPeer;

    async fn connect(&self) -> Result<(LineTransport, StreamPeer), HarnessError> {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        Ok((
            LineTransport::new(ours, self.0),
            StreamPeer::from_stream(theirs),
        ))
    }

    fn frame_limit(&self) -> Option<usize> {
        Some(LIMIT)
    }

    fn secret(&self) -> Option<String> {
        None
    }
}

#[tokio::test]
async fn a_transport_on_the_dispatcher_keeps_every_rule() {
    testkit::run(&LineHarness(Faults::default()))
        .await
        .assert_passed();
}

#[tokio::test]
async fn forgetting_pending_requests_on_close_breaks_close_rejects_pending() {
    let harness = LineHarness(Faults {
        forget_pending_on_close: true,
        ..Faults::default()
    });
    let report = testkit::run(&harness).await;
    let failures = report.failures();
    assert_eq!(
        failures.iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::CLOSE_REJECTS_PENDING],
        "{report}"
    );
    let text = failures[0].to_string();
    assert!(text.contains("`close-rejects-pending`"), "{text}");
    assert!(text.contains("still pending"), "{text}");
    let err = report.into_result().unwrap_err();
    assert!(err.to_string().contains("close-rejects-pending"), "{err}");
}

#[tokio::test]
async fn answering_a_server_request_twice_breaks_server_request_answered_once() {
    let harness = LineHarness(Faults {
        answer_twice: true,
        ..Faults::default()
    });
    let err = testkit::check_server_request_answered_once(&harness)
        .await
        .unwrap_err();
    assert_eq!(err.rule, Rule::SERVER_REQUEST_ANSWERED_ONCE);
    let text = err.to_string();
    assert!(
        text.contains("`server-request-answered-once`") && text.contains("answered 2 times"),
        "{text}"
    );
    let report = testkit::run(&harness).await;
    assert_eq!(
        report.failures().iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::SERVER_REQUEST_ANSWERED_ONCE],
        "{report}"
    );
}

#[tokio::test]
async fn an_allowed_difference_is_reported_not_failed() {
    let harness = LineHarness(Faults {
        answer_twice: true,
        ..Faults::default()
    });
    let report = testkit::Kit::new()
        .allow(Rule::SERVER_REQUEST_ANSWERED_ONCE, "a test of allowances")
        .run(&harness)
        .await;
    assert!(report.passed(), "{report}");
    assert!(
        report
            .to_string()
            .contains("allowed server-request-answered-once")
    );
}
