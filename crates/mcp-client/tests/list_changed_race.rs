//! A `notifications/*/list_changed` racing the listing it makes stale.
//!
//! The server answers a listing from its state when it reads the request;
//! it then changes that state and announces it. The notification can be
//! handled by the client before the (older) answer or after it; either
//! way, what a caller sees once both were handled includes the change: a
//! listing overtaken while in flight is fetched once more for its caller,
//! and never kept as the current tool list.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mcp_client::testing::{MemoryPeer, MemoryTransport, memory_pair};
use mcp_client::{Client, ClientHandler, RequestOptions};
use mcp_transport::{Transport, TransportError, TransportEvents, WireTap};
use mcp_types::{JsonRpcError, JsonRpcMessage, ProtocolVersion, RawResult};
use serde_json::{Value, json};
use support::*;
use tokio::sync::{mpsc, oneshot, watch};

/// One kind of listing: how the server answers it, how it announces a
/// change, how the client lists it.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Tools,
    Prompts,
    Resources,
    Templates,
}

const KINDS: [Kind; 4] = [Kind::Tools, Kind::Prompts, Kind::Resources, Kind::Templates];

impl Kind {
    fn method(self) -> &'static str {
        match self {
            Kind::Tools => "tools/list",
            Kind::Prompts => "prompts/list",
            Kind::Resources => "resources/list",
            Kind::Templates => "resources/templates/list",
        }
    }

    fn notification(self) -> &'static str {
        match self {
            Kind::Tools => "notifications/tools/list_changed",
            Kind::Prompts => "notifications/prompts/list_changed",
            Kind::Resources | Kind::Templates => "notifications/resources/list_changed",
        }
    }

    /// A result listing `names`.
    fn result(self, names: &[&str]) -> Value {
        let entries: Vec<Value> = names
            .iter()
            .map(|n| match self {
                Kind::Tools => json!({"name": n, "inputSchema": {"type": "object"}}),
                Kind::Prompts => json!({"name": n}),
                Kind::Resources => json!({"uri": format!("test://{n}"), "name": n}),
                Kind::Templates => json!({"uriTemplate": format!("test://{n}/{{x}}"), "name": n}),
            })
            .collect();
        let key = match self {
            Kind::Tools => "tools",
            Kind::Prompts => "prompts",
            Kind::Resources => "resources",
            Kind::Templates => "resourceTemplates",
        };
        json!({ key: entries })
    }

    /// The names of a whole listing, as a caller of the client gets it.
    async fn list(self, client: &Client) -> Vec<String> {
        let o = RequestOptions::default();
        match self {
            Kind::Tools => names(client.tools_listing(o).await.unwrap().items, |t| t.name),
            Kind::Prompts => names(client.prompts_listing(o).await.unwrap().items, |p| p.name),
            Kind::Resources => names(client.resources_listing(o).await.unwrap().items, |r| r.name),
            Kind::Templates => names(
                client.resource_templates_listing(o).await.unwrap().items,
                |t| t.name,
            ),
        }
    }
}

fn names<T>(items: Vec<T>, name: impl Fn(T) -> String) -> Vec<String> {
    items.into_iter().map(name).collect()
}

/// The server's state before and after it registers `new`.
const BEFORE: &[&str] = &["old"];
const AFTER: &[&str] = &["old", "new"];

/// Counts the `list_changed` notifications that reached the handler (after
/// the client itself handled them).
#[derive(Default)]
struct Heard {
    count: watch::Sender<usize>,
}

impl Heard {
    fn hear(&self) {
        self.count.send_modify(|n| *n += 1);
    }

    /// Waits until `n` notifications reached the handler.
    async fn until(&self, n: usize) {
        let mut rx = self.count.subscribe();
        tokio::time::timeout(Duration::from_secs(5), rx.wait_for(|c| *c >= n))
            .await
            .expect("the notification reaches the handler")
            .expect("sender alive");
    }
}

#[async_trait]
impl ClientHandler for Heard {
    async fn on_tools_list_changed(&self) {
        self.hear();
    }
    async fn on_prompts_list_changed(&self) {
        self.hear();
    }
    async fn on_resources_list_changed(&self) {
        self.hear();
    }
}

/// A transport that can hold the result of one request of a method
/// after it arrived, until the test releases it: the response is on the
/// client's side, its caller has not seen it yet.
#[derive(Debug)]
struct Gated {
    inner: MemoryTransport,
    gate: Mutex<Option<(String, oneshot::Receiver<()>)>>,
    held: mpsc::UnboundedSender<()>,
}

impl Gated {
    /// Holds the next result of `method` until `release` fires; `held`
    /// hears when it is held.
    fn hold(&self, method: &str, release: oneshot::Receiver<()>) {
        *self.gate.lock().unwrap() = Some((method.to_owned(), release));
    }

    async fn pass(&self, method: &str) {
        let release = {
            let mut gate = self.gate.lock().unwrap();
            match gate.take() {
                Some((m, release)) if m == method => Some(release),
                other => {
                    *gate = other;
                    None
                }
            }
        };
        if let Some(release) = release {
            self.held.send(()).unwrap();
            release.await.unwrap();
        }
    }
}

#[async_trait]
impl Transport for Gated {
    async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        let result = self.inner.request(method, params, options).await;
        self.pass(method).await;
        result
    }
    async fn request_raw(
        &self,
        method: &str,
        params: mcp_types::RawParams,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        let result = self.inner.request_raw(method, params, options).await;
        self.pass(method).await;
        result
    }
    /// Requests are held at the gate: not the inner dispatcher's alone.
    fn dispatcher(&self) -> Option<&Arc<mcp_transport::Dispatcher>> {
        None
    }
    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError> {
        self.inner.notify(method, params).await
    }
    async fn close(&self) -> Result<(), TransportError> {
        self.inner.close().await
    }
    fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }
    fn wire_kind(&self) -> Option<&'static str> {
        self.inner.wire_kind()
    }
    fn take_events(&self) -> Option<TransportEvents> {
        self.inner.take_events()
    }
    fn set_protocol_version(&self, version: ProtocolVersion) {
        self.inner.set_protocol_version(version)
    }
    fn sends_metadata_headers(&self) -> bool {
        self.inner.sends_metadata_headers()
    }
    fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }
    fn set_wire_tap(&self, tap: Arc<dyn WireTap>) -> bool {
        self.inner.set_wire_tap(tap)
    }
    fn redact<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        self.inner.redact(text)
    }
    fn pending_requests(&self) -> usize {
        self.inner.pending_requests()
    }
}

/// A client over a [`Gated`] memory transport, its handler, the peer, and
/// the receiver that hears when a result is held.
async fn connect_gated() -> (
    Client,
    Arc<Heard>,
    Arc<Gated>,
    MemoryPeer,
    mpsc::UnboundedReceiver<()>,
) {
    let (transport, mut peer) = memory_pair();
    let (held_tx, held_rx) = mpsc::unbounded_channel();
    let gated = Arc::new(Gated {
        inner: transport,
        gate: Mutex::new(None),
        held: held_tx,
    });
    let heard = Arc::new(Heard::default());
    let server = tokio::spawn(async move {
        peer.handshake("2025-11-25", full_caps()).await;
        peer
    });
    let options = legacy_options().with_handler(heard.clone());
    let client = Client::connect_shared(gated.clone(), options)
        .await
        .expect("connect");
    let peer = server.await.expect("peer task");
    (client, heard, gated, peer, held_rx)
}

/// What a caller that wants the tools sees now: the cached list when it is
/// current, else a new listing (as `mcp tools` does).
async fn tools_now(client: &Client) -> Vec<String> {
    match client.cached_tools() {
        Some(tools) => tools.iter().map(|t| t.name.clone()).collect(),
        None => Kind::Tools.list(client).await,
    }
}

/// Answers every request of `method` from `state` until `stop` fires.
fn serve(
    mut peer: MemoryPeer,
    kind: Kind,
    state: &'static [&'static str],
    mut stop: oneshot::Receiver<()>,
) -> tokio::task::JoinHandle<(MemoryPeer, usize)> {
    tokio::spawn(async move {
        let mut answered = 0;
        loop {
            let message = tokio::select! {
                _ = &mut stop => return (peer, answered),
                m = peer.next() => m,
            };
            match message {
                Some(JsonRpcMessage::Request(r)) if r.method == kind.method() => {
                    peer.respond(&r.id, kind.result(state)).await;
                    answered += 1;
                }
                Some(other) => panic!("unexpected {other:?}"),
                None => {}
            }
        }
    })
}

/// The notification is handled before the answer computed before the
/// change arrives: the caller gets a second listing, with the change.
#[tokio::test]
async fn notification_before_the_response_lists_once_more() {
    for kind in KINDS {
        let heard = Arc::new(Heard::default());
        let options = legacy_options().with_handler(heard.clone());
        let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
        let mut call = tokio::spawn({
            let client = client.clone();
            async move { kind.list(&client).await }
        });
        let request = peer.expect_request(kind.method()).await;
        // The server answers from its state now, registers `new`, announces
        // it, and the answer goes out after the announcement.
        let answer = kind.result(BEFORE);
        peer.notify(kind.notification(), None).await;
        heard.until(1).await;
        peer.respond(&request.id, answer).await;
        let again = tokio::select! {
            r = peer.expect_request(kind.method()) => r,
            got = &mut call => panic!("{kind:?}: the caller got {got:?} from the listing the notification overtook"),
        };
        peer.respond(&again.id, kind.result(AFTER)).await;
        assert_eq!(call.await.unwrap(), AFTER, "{kind:?}");
        if let Kind::Tools = kind {
            let cached = client
                .cached_tools()
                .expect("the second listing is current");
            assert_eq!(cached.len(), 2);
            assert_eq!(tools_now(&client).await, AFTER);
        }
        assert!(
            peer.try_next().is_none(),
            "{kind:?}: one more listing, no more"
        );
    }
}

/// The answer computed before the change reaches the client first, the
/// notification after it, and the client handles the notification before
/// the caller got the answer: the caller gets a second listing.
#[tokio::test]
async fn response_before_the_notification_handled_late_lists_once_more() {
    for kind in KINDS {
        let (client, heard, gated, mut peer, mut held) = connect_gated().await;
        let (release, gate) = oneshot::channel();
        gated.hold(kind.method(), gate);
        let mut call = tokio::spawn({
            let client = client.clone();
            async move { kind.list(&client).await }
        });
        let request = peer.expect_request(kind.method()).await;
        let answer = kind.result(BEFORE);
        // The server's state changes, then the old answer goes out, then
        // the notification.
        peer.respond(&request.id, answer).await;
        held.recv().await.expect("the answer is held");
        peer.notify(kind.notification(), None).await;
        heard.until(1).await;
        release.send(()).unwrap();
        let again = tokio::select! {
            r = peer.expect_request(kind.method()) => r,
            got = &mut call => panic!("{kind:?}: the caller got {got:?} from the listing the notification overtook"),
        };
        peer.respond(&again.id, kind.result(AFTER)).await;
        assert_eq!(call.await.unwrap(), AFTER, "{kind:?}");
        if let Kind::Tools = kind {
            assert_eq!(tools_now(&client).await, AFTER);
        }
        assert!(
            peer.try_next().is_none(),
            "{kind:?}: one more listing, no more"
        );
    }
}

/// The caller got the old answer before the notification came: nothing
/// can give that caller the change, but the tool cache is stale from then
/// on, so the next caller lists anew and sees it.
#[tokio::test]
async fn response_handled_before_the_notification_leaves_the_cache_stale() {
    let heard = Arc::new(Heard::default());
    let options = legacy_options().with_handler(heard.clone());
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { Kind::Tools.list(&client).await }
    });
    let request = peer.expect_request("tools/list").await;
    peer.respond(&request.id, Kind::Tools.result(BEFORE)).await;
    assert_eq!(call.await.unwrap(), BEFORE);
    peer.notify(Kind::Tools.notification(), None).await;
    heard.until(1).await;
    assert!(client.cached_tools().is_none(), "stale after list_changed");
    let (stop, stopped) = oneshot::channel();
    let server = serve(peer, Kind::Tools, AFTER, stopped);
    assert_eq!(tools_now(&client).await, AFTER);
    stop.send(()).unwrap();
    assert_eq!(server.await.unwrap().1, 1);
}

/// A listing of several pages, the change announced between two of them:
/// the pages do not make one state of the server, so it is listed again.
#[tokio::test]
async fn a_change_between_pages_lists_once_more() {
    let heard = Arc::new(Heard::default());
    let options = legacy_options().with_handler(heard.clone());
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { Kind::Tools.list(&client).await }
    });
    let first = peer.expect_request("tools/list").await;
    let mut page = Kind::Tools.result(&["old"]);
    page["nextCursor"] = json!("2");
    peer.respond(&first.id, page).await;
    let second = peer.expect_request("tools/list").await;
    peer.notify(Kind::Tools.notification(), None).await;
    heard.until(1).await;
    peer.respond(&second.id, Kind::Tools.result(&["other"]))
        .await;
    let again = peer.expect_request("tools/list").await;
    assert!(
        again
            .params
            .as_ref()
            .and_then(|p| p.get("cursor"))
            .is_none()
    );
    peer.respond(&again.id, Kind::Tools.result(&["old", "new", "other"]))
        .await;
    assert_eq!(call.await.unwrap(), ["old", "new", "other"]);
    assert_eq!(client.cached_tools().map(|t| t.len()), Some(3));
}

/// A server announcing a change with every answer: each caller lists at
/// most twice and gets the second listing, which is not kept as current.
#[tokio::test]
async fn a_storm_of_list_changed_costs_one_more_listing() {
    for kind in KINDS {
        let heard = Arc::new(Heard::default());
        let options = legacy_options().with_handler(heard.clone());
        let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
        let call = tokio::spawn({
            let client = client.clone();
            async move { kind.list(&client).await }
        });
        for round in 1..=2 {
            let request = peer.expect_request(kind.method()).await;
            peer.notify(kind.notification(), None).await;
            heard.until(round).await;
            let name = format!("v{round}");
            peer.respond(&request.id, kind.result(&[&name])).await;
        }
        assert_eq!(call.await.unwrap(), ["v2"], "{kind:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(peer.try_next().is_none(), "{kind:?}: two listings, no more");
        if let Kind::Tools = kind {
            assert!(client.cached_tools().is_none(), "overtaken: not current");
        }
    }
}

/// The second listing fails: the caller gets the first one (it is what
/// arrived), which is not kept as current.
#[tokio::test]
async fn a_failed_second_listing_returns_the_first() {
    let heard = Arc::new(Heard::default());
    let options = legacy_options().with_handler(heard.clone());
    let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { Kind::Tools.list(&client).await }
    });
    let request = peer.expect_request("tools/list").await;
    peer.notify(Kind::Tools.notification(), None).await;
    heard.until(1).await;
    peer.respond(&request.id, Kind::Tools.result(BEFORE)).await;
    let again = peer.expect_request("tools/list").await;
    peer.respond_error(
        &again.id,
        JsonRpcError::new(mcp_types::ErrorCode::INTERNAL_ERROR, "busy"),
    )
    .await;
    assert_eq!(call.await.unwrap(), BEFORE);
    assert!(client.cached_tools().is_none());
}

/// The race as it happens: the server answers from its old state and
/// announces the change, in either order on the wire, with the client's
/// tasks scheduled however the runtime schedules them. After both were
/// handled, never is the old listing current, the caller's listing misses
/// the change only when the notification came after the caller got it,
/// and a caller after that sees the change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_race_many_times() {
    const ITERATIONS: usize = 500;
    // [response first, notification first]
    let stale_returned = [AtomicUsize::new(0), AtomicUsize::new(0)];
    for i in 0..ITERATIONS {
        let heard = Arc::new(Heard::default());
        let options = legacy_options().with_handler(heard.clone());
        let (client, mut peer) = connect_with(options, "2025-11-25", full_caps()).await;
        let call = tokio::spawn({
            let client = client.clone();
            async move { Kind::Tools.list(&client).await }
        });
        let request = peer.expect_request("tools/list").await;
        let answer = Kind::Tools.result(BEFORE);
        let notification_first = i % 2 == 0;
        if notification_first {
            peer.notify(Kind::Tools.notification(), None).await;
            if i % 4 == 0 {
                tokio::task::yield_now().await;
            }
            peer.respond(&request.id, answer).await;
        } else {
            peer.respond(&request.id, answer).await;
            if i % 4 == 1 {
                tokio::task::yield_now().await;
            }
            peer.notify(Kind::Tools.notification(), None).await;
        }
        let (stop, stopped) = oneshot::channel();
        let server = serve(peer, Kind::Tools, AFTER, stopped);
        let got = call.await.unwrap();
        heard.until(1).await;
        let cached = client
            .cached_tools()
            .map(|t| t.iter().map(|t| t.name.clone()).collect::<Vec<_>>());
        assert!(
            cached.as_deref().is_none_or(|c| c == AFTER),
            "iteration {i}: the old listing is current: {cached:?}"
        );
        if got != AFTER {
            assert_eq!(got, BEFORE, "iteration {i}");
            stale_returned[usize::from(notification_first)].fetch_add(1, Ordering::Relaxed);
        }
        assert_eq!(tools_now(&client).await, AFTER, "iteration {i}");
        stop.send(()).unwrap();
        let (_peer, answered) = server.await.unwrap();
        assert!(answered <= 2, "iteration {i}: {answered} more listings");
    }
    eprintln!(
        "callers that got the listing before the change (the notification was handled after they had it): {} of {} with the response first on the wire, {} of {} with the notification first",
        stale_returned[0].load(Ordering::Relaxed),
        ITERATIONS / 2,
        stale_returned[1].load(Ordering::Relaxed),
        ITERATIONS / 2,
    );
}
