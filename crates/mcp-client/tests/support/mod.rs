//! Shared helpers for the mcp-client integration tests.
#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_client::testing::{MemoryPeer, memory_pair};
use mcp_client::{Client, ClientHandler, ClientOptions, RequestContext, VersionPreference};
use mcp_types::JsonRpcError;
use mcp_types::JsonRpcNotification;
use mcp_types::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcp_types::logging::LoggingMessageNotificationParams;
use mcp_types::notifications::ProgressNotificationParams;
use mcp_types::roots::{ListRootsResult, Root};
use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::{Value, json};

#[allow(unused_imports)] // each test file uses a subset
pub(crate) use mcp_tests::eventually;

/// Options speaking the handshake only (no discover probe).
pub(crate) fn legacy_options() -> ClientOptions {
    ClientOptions::new("test-client", "0.1.0")
        .with_title("Test Client")
        .with_version_preference(VersionPreference::Handshake)
}

/// Connects with `options`; the peer answers the handshake with
/// `version` and `capabilities`.
pub(crate) async fn connect_with(
    options: ClientOptions,
    version: &str,
    capabilities: Value,
) -> (Client, MemoryPeer) {
    let (transport, mut peer) = memory_pair();
    let version = version.to_owned();
    let server = tokio::spawn(async move {
        peer.handshake(&version, capabilities).await;
        peer
    });
    let client = Client::connect(transport, options).await.expect("connect");
    let peer = server.await.expect("peer task");
    (client, peer)
}

/// A 2025-11-25 connection whose server offers everything.
pub(crate) async fn connect_full() -> (Client, MemoryPeer) {
    connect_with(legacy_options(), "2025-11-25", full_caps()).await
}

pub(crate) fn full_caps() -> Value {
    json!({
        "tools": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
        "prompts": {"listChanged": true},
        "logging": {},
        "completions": {},
        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    })
}

/// A handler recording what reached it.
#[derive(Default)]
pub(crate) struct Recorder {
    pub seen: Mutex<Vec<String>>,
    pub progress: Mutex<Vec<f64>>,
    pub sampling_delay_ms: u64,
}

impl Recorder {
    pub(crate) fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
    fn push(&self, s: impl Into<String>) {
        self.seen.lock().unwrap().push(s.into());
    }
}

#[async_trait]
impl ClientHandler for Recorder {
    async fn list_roots(&self, _ctx: RequestContext) -> Result<ListRootsResult, JsonRpcError> {
        self.push("roots/list");
        Ok(ListRootsResult {
            roots: vec![Root {
                uri: "file:///work".into(),
                name: Some("work".into()),
                ..Default::default()
            }],
            meta: None,
            extra: Default::default(),
        })
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _ctx: RequestContext,
    ) -> Result<CreateMessageResult, JsonRpcError> {
        self.push("sampling/createMessage");
        if self.sampling_delay_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(self.sampling_delay_ms)).await;
        }
        let with_tools = params.tools.is_some();
        Ok(serde_json::from_value(json!({
            "role": "assistant",
            "content": {"type": "text", "text": if with_tools { "used tools" } else { "hello" }},
            "model": "test-model",
            "stopReason": "endTurn"
        }))
        .unwrap())
    }

    async fn elicit(
        &self,
        params: ElicitRequestParams,
        _ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        match params {
            ElicitRequestParams::Form(_) => {
                self.push("elicit/form");
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content = json!({"name": "Ada"}).as_object().cloned();
                Ok(r)
            }
            ElicitRequestParams::Url(u) => {
                self.push(format!("elicit/url {}", u.url));
                Ok(ElicitResult::new(ElicitAction::Accept))
            }
            ElicitRequestParams::Unknown(_) => Err(JsonRpcError::new(
                mcp_types::ErrorCode::INVALID_PARAMS,
                "unknown mode",
            )),
        }
    }

    async fn on_logging_message(&self, params: LoggingMessageNotificationParams) {
        self.push(format!("log {}", params.data));
    }

    async fn on_progress(&self, params: ProgressNotificationParams) {
        self.push(format!("progress {}", params.progress_token));
    }

    async fn on_tools_list_changed(&self) {
        self.push("tools/list_changed");
    }

    async fn on_resource_updated(&self, params: mcp_types::resources::ResourceUriParams) {
        self.push(format!("updated {}", params.uri));
    }

    async fn on_unknown_notification(&self, n: JsonRpcNotification) {
        self.push(format!("unknown {}", n.method));
    }
}

pub(crate) fn recorder() -> Arc<Recorder> {
    Arc::new(Recorder::default())
}
