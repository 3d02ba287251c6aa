//! The heap bytes one `tools/call` allocates on the client's side, counted
//! by a counting global allocator over a transport that answers at once
//! (no dispatcher, no I/O): what the client itself allocates per call.
//! The params and the arguments are written straight into the request's
//! buffer, never built as a `serde_json::Value` (a map node of 632 bytes,
//! its keys and a copy of each string).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::alloc::System;
use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use cap::Cap;
use mcp_client::{Client, ClientOptions, RequestOptions, VersionPreference};
use mcp_transport::{Transport, TransportError, TransportEvents, WireTap};
use mcp_types::RawParams;
use mcp_types::{ProtocolVersion, RawResult};
use serde_json::{Value, json};

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// Answers `initialize` and every `tools/call` at once.
#[derive(Debug)]
struct Instant;

fn answer(method: &str) -> Result<RawResult, TransportError> {
    Ok(match method {
        "initialize" => RawResult::from_value(&json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "instant", "version": "1"}
        })),
        _ => RawResult::new(Bytes::from_static(
            br#"{"content":[{"type":"text","text":"hello"}]}"#,
        )),
    })
}

#[async_trait]
impl Transport for Instant {
    async fn request(
        &self,
        method: &str,
        _params: Option<&Value>,
        _options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        answer(method)
    }
    async fn request_raw(
        &self,
        method: &str,
        _params: RawParams,
        _options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        answer(method)
    }
    fn dispatcher(&self) -> Option<&Arc<mcp_transport::Dispatcher>> {
        None
    }
    async fn notify(&self, _method: &str, _params: Option<Value>) -> Result<(), TransportError> {
        Ok(())
    }
    async fn close(&self) -> Result<(), TransportError> {
        Ok(())
    }
    fn is_connected(&self) -> bool {
        true
    }
    fn wire_kind(&self) -> Option<&'static str> {
        None
    }
    fn take_events(&self) -> Option<TransportEvents> {
        None
    }
    fn set_protocol_version(&self, _version: ProtocolVersion) {}
    fn sends_metadata_headers(&self) -> bool {
        false
    }
    fn session_id(&self) -> Option<String> {
        None
    }
    fn set_wire_tap(&self, _tap: Arc<dyn WireTap>) -> bool {
        false
    }
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        Cow::Borrowed(text)
    }
    fn pending_requests(&self) -> usize {
        0
    }
}

#[derive(serde::Serialize)]
struct Echo<'a> {
    text: &'a str,
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_builds_no_value_of_its_params() {
    let options = ClientOptions::new("t", "1")
        .with_version_preference(VersionPreference::Only(ProtocolVersion::V2025_06_18));
    let client = Client::connect(Instant, options).await.unwrap();
    let text = "x".repeat(100);
    let call = || client.call_tool("echo", Echo { text: &text }, RequestOptions::default());
    // Warm-up: whatever a first call sets up once.
    call().await.unwrap();
    const CALLS: usize = 100;
    let before = ALLOCATOR.total_allocated();
    for _ in 0..CALLS {
        let result = call().await.unwrap();
        assert_eq!(result.content.len(), 1);
    }
    let per_call = (ALLOCATOR.total_allocated() - before) / CALLS;
    // The request's buffer (384), this transport's boxed future, the
    // content list (room for 4 blocks) and the text: about 1.8 KiB. The
    // arguments are written straight into the request's buffer: through a
    // `Value` (a map node of 632 bytes, the key, a copy of the text) they
    // added 0.75 KiB, and a second `Value` for the params around them
    // (another map node, two keys, the name) 0.65 KiB more.
    assert!(
        per_call <= 2048,
        "{per_call} bytes allocated per call on the client's side"
    );
}
