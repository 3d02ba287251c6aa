//! Helpers shared by the integration tests (each test file uses a subset).
#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_transport::{RequestOptions, Transport, TransportError};
use mcp_transport_http::{Backoff, HttpConfig, HttpMode, HttpTransport, ProxySetting};
use serde_json::{Value, json};

#[allow(unused_imports)] // each test file uses a subset
pub(crate) use mcp_tests::eventually;

/// The generous upper bound for "promptly" (cases say 1 s).
pub(crate) const PROMPT: Duration = Duration::from_secs(5);

/// A config for a fault server: no proxy, fast reconnects.
pub(crate) fn config(url: &str) -> HttpConfig {
    HttpConfig::new(url)
        .with_proxy(ProxySetting::None)
        .with_reconnect(
            Backoff::new(
                Duration::from_millis(10),
                Duration::from_millis(50),
                Some(3),
                0.5,
            )
            .unwrap(),
        )
}

pub(crate) async fn streamable(url: &str) -> HttpTransport {
    HttpTransport::connect(config(url), HttpMode::Streamable)
        .await
        .expect("connect")
}

/// A Streamable HTTP transport past the handshake (`initialize` with
/// 2025-06-18, then `notifications/initialized`), and its events.
pub(crate) async fn initialized(url: &str) -> (HttpTransport, mcp_transport::TransportEvents) {
    let t = streamable(url).await;
    let events = t.take_events().expect("events not taken yet");
    initialize(&t).await.expect("initialize");
    t.notify("notifications/initialized", None)
        .await
        .expect("notifications/initialized");
    (t, events)
}

pub(crate) fn opts() -> RequestOptions {
    RequestOptions::default().with_timeout(Duration::from_secs(10))
}

pub(crate) fn init_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "mcp-transport-http-tests", "version": "0.0.0"}
    })
}

pub(crate) async fn initialize(t: &HttpTransport) -> Result<Value, TransportError> {
    t.request("initialize", Some(&init_params("2025-06-18")), opts())
        .await
        .map(|r| r.to_value().expect("the result is JSON"))
}

/// Captures log lines of the current thread at `level` and above while
/// alive (use the default current-thread tokio test runtime: its tasks run
/// on the test's thread).
///
/// One global subscriber per test binary, installed on first use, formats
/// every event and hands it to the capture of the thread it happened on, if
/// any. A scoped subscriber per test (`set_default`) is not used: tracing
/// caches per call site, across threads, whether a line is wanted, and a test
/// without a subscriber hitting a call site while another test installs its
/// own can leave that call site switched off for the capture.
pub(crate) struct Warnings {
    buf: Arc<Mutex<Vec<u8>>>,
}

/// A thread's capture: the lowest level wanted, and where lines go.
type Capture = Option<(tracing::Level, Arc<Mutex<Vec<u8>>>)>;

thread_local! {
    static CAPTURE: std::cell::RefCell<Capture> = const { std::cell::RefCell::new(None) };
}

/// Writes into the current thread's capture, when it wants the event's level.
struct ThreadSink(Option<Arc<Mutex<Vec<u8>>>>);

impl Write for ThreadSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if let Some(buf) = &self.0 {
            buf.lock().unwrap().extend_from_slice(b);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct ThreadSinks;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for ThreadSinks {
    type Writer = ThreadSink;
    fn make_writer(&'a self) -> ThreadSink {
        ThreadSink(None)
    }
    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> ThreadSink {
        ThreadSink(CAPTURE.with(|c| {
            c.borrow()
                .as_ref()
                .filter(|(level, _)| meta.level() <= level)
                .map(|(_, buf)| buf.clone())
        }))
    }
}

/// Captures WARN and above (see [`Warnings`]).
pub(crate) fn capture_warnings() -> Warnings {
    capture_at(tracing::Level::WARN)
}

/// Captures `level` and above (see [`Warnings`]).
pub(crate) fn capture_at(level: tracing::Level) -> Warnings {
    static GLOBAL: std::sync::Once = std::sync::Once::new();
    GLOBAL.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(ThreadSinks)
            .finish();
        tracing::subscriber::set_global_default(subscriber)
            .expect("no other global subscriber in the HTTP tests");
    });
    let buf = Arc::new(Mutex::new(Vec::new()));
    CAPTURE.with(|c| *c.borrow_mut() = Some((level, buf.clone())));
    Warnings { buf }
}

impl Drop for Warnings {
    fn drop(&mut self) {
        CAPTURE.with(|c| *c.borrow_mut() = None);
    }
}

impl Warnings {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf.lock().unwrap()).into_owned()
    }
}

/// The next notification among `events` (other events skipped), within
/// `PROMPT`; panics naming `what` otherwise.
pub(crate) async fn next_notification(
    events: &mut mcp_transport::TransportEvents,
    what: &str,
) -> mcp_types::JsonRpcNotification {
    loop {
        match tokio::time::timeout(PROMPT, events.recv()).await {
            Ok(Some(mcp_transport::TransportEvent::Notification(n))) => return n,
            Ok(Some(_)) => continue,
            other => panic!("{what} did not arrive: {other:?}"),
        }
    }
}

/// An error's text followed by each of its sources' (`error: cause: cause`),
/// as a chain printer shows it: what failed below the transport's own level
/// (the URL of a failed HTTP request, a body that could not be read) is in
/// the sources.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
