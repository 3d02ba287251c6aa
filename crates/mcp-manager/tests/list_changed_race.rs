//! A `list_changed` racing the listing it makes stale, behind the manager.
//!
//! The server (the scripted peer of `mcp_client::testing`, put behind the
//! manager by its transport layer) answers the first listing from its
//! state before it registers `new`, and announces the change before or
//! after that answer. Whatever the order, a call naming `new` once the
//! announcement was handled finds it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mcp_client::ClientHandler;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_manager::{CallOptions, Manager, ManagerError, ManagerOptions, VersionPreference};
use mcp_transport::Transport;
use mcp_types::JsonRpcMessage;
use serde_json::{Value, json};
use support::*;
use tokio::sync::{oneshot, watch};

/// The list the race is about.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Tools,
    Prompts,
}

impl Kind {
    fn method(self) -> &'static str {
        match self {
            Kind::Tools => "tools/list",
            Kind::Prompts => "prompts/list",
        }
    }

    fn notification(self) -> &'static str {
        match self {
            Kind::Tools => "notifications/tools/list_changed",
            Kind::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// In which order the server sends the old answer and the announcement.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    /// The announcement, handled by the client, then the old answer.
    NotificationFirst,
    /// The old answer; the announcement when the test says so.
    ResponseFirst,
}

/// Counts the `list_changed` notifications that reached the host's
/// handler (after the client and the manager handled them).
#[derive(Default)]
struct Heard {
    count: watch::Sender<usize>,
}

impl Heard {
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
        self.count.send_modify(|n| *n += 1);
    }
    async fn on_prompts_list_changed(&self) {
        self.count.send_modify(|n| *n += 1);
    }
}

fn tools(names: &[&str]) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    json!({ "tools": tools })
}

fn prompts(names: &[&str]) -> Value {
    let prompts: Vec<Value> = names.iter().map(|n| json!({"name": n})).collect();
    json!({ "prompts": prompts })
}

/// The scripted server: `kind` holds `old` until its first listing was
/// answered from that state, then `old` and `new`; the other list holds
/// `other`. It answers every later listing from its state, `tools/call`
/// and `prompts/get` by name, until `stop`.
async fn serve(
    mut peer: MemoryPeer,
    kind: Kind,
    order: Order,
    heard: Arc<Heard>,
    announce: oneshot::Receiver<()>,
    mut stop: oneshot::Receiver<()>,
) {
    peer.handshake(
        "2025-11-25",
        json!({"tools": {"listChanged": true}, "prompts": {"listChanged": true}}),
    )
    .await;
    let mut changed = false;
    let mut announce = Some(announce);
    loop {
        let message = tokio::select! {
            _ = &mut stop => return,
            said = async { announce.as_mut().unwrap().await }, if announce.is_some() => {
                announce = None;
                if said.is_ok() {
                    peer.notify(kind.notification(), None).await;
                }
                continue;
            }
            m = peer.next() => m,
        };
        let request = match message {
            Some(JsonRpcMessage::Request(r)) => r,
            Some(JsonRpcMessage::Notification(_)) | None => continue,
            Some(other) => panic!("unexpected {other:?}"),
        };
        let listed = |k: Kind, changed: bool| -> &'static [&'static str] {
            match (k == kind, changed) {
                (true, false) => &["old"],
                (true, true) => &["old", "new"],
                (false, _) => &["other"],
            }
        };
        let result = match request.method.as_str() {
            "tools/list" => tools(listed(Kind::Tools, changed)),
            "prompts/list" => prompts(listed(Kind::Prompts, changed)),
            "tools/call" | "prompts/get" => {
                let name = request.params.as_ref().unwrap()["name"].clone();
                let text = json!({"type": "text", "text": name});
                if request.method == "tools/call" {
                    json!({"content": [text]})
                } else {
                    json!({"messages": [{"role": "user", "content": text}]})
                }
            }
            other => panic!("unexpected request {other}"),
        };
        if request.method == kind.method() && !changed {
            // Answered from the state before the change, which happens now.
            changed = true;
            if order == Order::NotificationFirst {
                announce = None;
                peer.notify(kind.notification(), None).await;
                heard.until(1).await;
            }
        }
        peer.respond(&request.id, result).await;
    }
}

/// A manager over one server, `s`, played by [`serve`]; `announce` makes
/// it send the `list_changed` (with [`Order::ResponseFirst`]).
struct Scripted {
    manager: Manager,
    heard: Arc<Heard>,
    announce: Option<oneshot::Sender<()>>,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
}

impl Scripted {
    async fn start(kind: Kind, order: Order, debounce: Duration) -> Scripted {
        let (transport, peer) = memory_pair();
        let memory: Mutex<Option<Arc<dyn Transport>>> = Mutex::new(Some(Arc::new(transport)));
        let heard = Arc::new(Heard::default());
        let mut options: ManagerOptions = options()
            .with_list_changed_debounce(debounce)
            // The configured transport is replaced by the in-memory one
            // (an HTTP transport does no I/O before its first request).
            .with_transport_layer(move |_, configured| {
                memory.lock().unwrap().take().unwrap_or(configured)
            });
        options.client = options
            .client
            .with_handler(heard.clone())
            .with_version_preference(VersionPreference::Handshake);
        let (announce, announced) = oneshot::channel();
        let (stop, stopped) = oneshot::channel();
        let server = tokio::spawn(serve(peer, kind, order, heard.clone(), announced, stopped));
        let config = config(json!({"s": {"url": "http://127.0.0.1:9/unused"}}));
        let manager = Manager::start(config, options).await;
        assert!(manager.wait_started(Duration::from_secs(10)).await);
        assert!(
            manager.server_status("s").unwrap().is_connected(),
            "{:?}",
            manager.status()
        );
        Scripted {
            manager,
            heard,
            announce: Some(announce),
            stop,
            server,
        }
    }

    /// Makes the server send its `list_changed` now.
    fn announce(&mut self) {
        self.announce.take().unwrap().send(()).unwrap();
    }

    /// Uses `new` as a caller would: calls the tool or gets the prompt.
    async fn use_new(&self, kind: Kind) -> Result<(), ManagerError> {
        match kind {
            Kind::Tools => self
                .manager
                .call_tool("s__new", (), CallOptions::default())
                .await
                .map(drop),
            Kind::Prompts => self
                .manager
                .get_prompt("s__new", None, Default::default())
                .await
                .map(drop),
        }
    }

    fn listed(&self, kind: Kind) -> Vec<String> {
        match kind {
            Kind::Tools => self
                .manager
                .tools()
                .into_iter()
                .map(|t| t.qualified_name)
                .collect(),
            Kind::Prompts => self
                .manager
                .prompts()
                .into_iter()
                .map(|p| p.qualified_name)
                .collect(),
        }
    }

    async fn end(self) {
        self.manager.shutdown().await;
        let _ = self.stop.send(());
        self.server.await.unwrap();
    }
}

/// The announcement is handled before the old answer to the start
/// listing: the client lists once more, and the server starts with `new`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn announced_before_the_start_listing_answer() {
    for kind in [Kind::Tools, Kind::Prompts] {
        // A long debounce: the supervisor's own refresh cannot hide the fault.
        let s = Scripted::start(kind, Order::NotificationFirst, Duration::from_secs(30)).await;
        assert_eq!(s.listed(kind), ["s__new", "s__old"], "{kind:?}");
        s.use_new(kind).await.unwrap();
        s.end().await;
    }
}

/// The old answer to the start listing is handled first, the announcement
/// after the server is connected: a call naming `new` waits for the
/// refresh the announcement asked for, and finds it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn announced_after_the_start_listing_was_handled() {
    for kind in [Kind::Tools, Kind::Prompts] {
        let mut s = Scripted::start(kind, Order::ResponseFirst, Duration::from_millis(300)).await;
        assert_eq!(s.listed(kind), ["s__old"], "{kind:?}");
        s.announce();
        s.heard.until(1).await;
        let started = std::time::Instant::now();
        s.use_new(kind).await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(s.listed(kind), ["s__new", "s__old"], "{kind:?}");
        // A name no server lists, with nothing stale: no wait.
        let started = std::time::Instant::now();
        let missing = match kind {
            Kind::Tools => s
                .manager
                .call_tool("s__missing", (), CallOptions::default())
                .await
                .map(drop),
            Kind::Prompts => s
                .manager
                .get_prompt("s__missing", None, Default::default())
                .await
                .map(drop),
        };
        assert!(
            matches!(missing, Err(ManagerError::UnknownName { .. })),
            "{missing:?}"
        );
        assert!(started.elapsed() < Duration::from_millis(250));
        s.end().await;
    }
}

/// The race as it happens, both orders, scheduled however the runtime
/// schedules it: once the announcement was handled, a call naming `new`
/// always finds it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_race_many_times() {
    const ITERATIONS: usize = 500;
    for i in 0..ITERATIONS {
        let kind = if i % 4 < 2 {
            Kind::Tools
        } else {
            Kind::Prompts
        };
        let order = if i % 2 == 0 {
            Order::NotificationFirst
        } else {
            Order::ResponseFirst
        };
        let mut s = Scripted::start(kind, order, Duration::from_millis(5)).await;
        if order == Order::ResponseFirst {
            s.announce();
        }
        s.heard.until(1).await;
        s.use_new(kind)
            .await
            .unwrap_or_else(|e| panic!("iteration {i} ({kind:?}, {order:?}): {e}"));
        s.end().await;
    }
}
