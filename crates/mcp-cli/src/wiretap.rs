//! `--verbose`: a [`Transport`] wrapper that logs the JSON-RPC traffic
//! through `tracing` (target `mcp::wire`, level DEBUG) and forwards
//! everything unchanged.

use std::sync::Arc;

use async_trait::async_trait;
use mcp_transport::{RequestOptions, Transport, TransportError, TransportEvent, TransportEvents};
use mcp_types::ProtocolVersion;
use mcp_types::jsonrpc::RawParams;
use serde_json::Value;
use tokio::sync::mpsc;

/// Logs what passes through `inner`.
#[derive(Debug)]
pub(crate) struct Wiretap {
    inner: Arc<dyn Transport>,
    label: String,
}

impl Wiretap {
    /// Wraps `inner`; `label` names the server in each line.
    pub(crate) fn new(inner: Arc<dyn Transport>, label: &str) -> Self {
        Wiretap {
            inner,
            label: label.to_owned(),
        }
    }
}

fn compact(v: Option<&Value>) -> String {
    v.map_or_else(String::new, Value::to_string)
}

fn log_outcome(label: &str, method: &str, outcome: &Result<mcp_types::RawResult, TransportError>) {
    match outcome {
        Ok(result) => {
            tracing::debug!(target: "mcp::wire", server = %label, "<-- result of {method} {result}")
        }
        Err(e) => {
            tracing::debug!(target: "mcp::wire", server = %label, "<-- error for {method}: {e}")
        }
    }
}

#[async_trait]
impl Transport for Wiretap {
    async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<mcp_types::RawResult, TransportError> {
        tracing::debug!(target: "mcp::wire", server = %self.label, "--> request {method} {}", compact(params));
        let outcome = self.inner.request(method, params, options).await;
        log_outcome(&self.label, method, &outcome);
        outcome
    }

    async fn request_raw(
        &self,
        method: &str,
        params: RawParams,
        options: RequestOptions,
    ) -> Result<mcp_types::RawResult, TransportError> {
        tracing::debug!(target: "mcp::wire", server = %self.label, "--> request {method} {}", String::from_utf8_lossy(params.json()));
        let outcome = self.inner.request_raw(method, params, options).await;
        log_outcome(&self.label, method, &outcome);
        outcome
    }

    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError> {
        tracing::debug!(target: "mcp::wire", server = %self.label, "--> notification {method} {}", compact(params.as_ref()));
        self.inner.notify(method, params).await
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.inner.close().await
    }

    fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    fn take_events(&self) -> Option<TransportEvents> {
        let mut inner = self.inner.take_events()?;
        let (tx, rx) = mpsc::channel(mcp_transport::EVENTS_CAPACITY);
        let label = self.label.clone();
        tokio::spawn(async move {
            while let Some(event) = inner.recv().await {
                match &event {
                    TransportEvent::Notification(n) => {
                        tracing::debug!(target: "mcp::wire", server = %label,
                        "<-- notification {} {}", n.method, compact(n.params.as_ref()))
                    }
                    TransportEvent::Request(r) => {
                        tracing::debug!(target: "mcp::wire", server = %label,
                        "<-- request {} (id {}) {}", r.method, r.id, compact(r.params.as_ref()))
                    }
                    TransportEvent::Closed(reason) => {
                        tracing::debug!(target: "mcp::wire", server = %label, "connection closed: {reason}")
                    }
                    other => tracing::debug!(target: "mcp::wire", server = %label, "{other:?}"),
                }
                if tx.send(event).await.is_err() {
                    break;
                }
            }
        });
        Some(rx)
    }

    fn set_protocol_version(&self, version: ProtocolVersion) {
        self.inner.set_protocol_version(version);
    }

    fn sends_metadata_headers(&self) -> bool {
        self.inner.sends_metadata_headers()
    }

    fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use mcp_transport::RequestOptions;

    use super::*;

    /// A transport whose every query answers what a default would not.
    #[derive(Debug, Default)]
    struct Unusual {
        versions: Mutex<Vec<ProtocolVersion>>,
    }

    #[async_trait]
    impl Transport for Unusual {
        async fn request(
            &self,
            _method: &str,
            _params: Option<&Value>,
            _options: RequestOptions,
        ) -> Result<mcp_types::RawResult, TransportError> {
            Ok(serde_json::json!({"ok": true}).into())
        }
        async fn request_raw(
            &self,
            _method: &str,
            _params: RawParams,
            _options: RequestOptions,
        ) -> Result<mcp_types::RawResult, TransportError> {
            Ok(serde_json::json!({"raw": true}).into())
        }
        async fn notify(&self, _: &str, _: Option<Value>) -> Result<(), TransportError> {
            Ok(())
        }
        async fn close(&self) -> Result<(), TransportError> {
            Ok(())
        }
        fn is_connected(&self) -> bool {
            true
        }
        fn take_events(&self) -> Option<TransportEvents> {
            None
        }
        fn set_protocol_version(&self, version: ProtocolVersion) {
            self.versions.lock().unwrap().push(version);
        }
        fn sends_metadata_headers(&self) -> bool {
            true
        }
        fn session_id(&self) -> Option<String> {
            Some("session-1".into())
        }
    }

    #[tokio::test]
    async fn every_query_is_forwarded() {
        let inner = Arc::new(Unusual::default());
        let tap = Wiretap::new(inner.clone(), "s");
        assert!(tap.sends_metadata_headers());
        assert_eq!(tap.session_id().as_deref(), Some("session-1"));
        assert!(tap.is_connected());
        tap.set_protocol_version(ProtocolVersion::V2026_07_28);
        assert_eq!(
            *inner.versions.lock().unwrap(),
            [ProtocolVersion::V2026_07_28]
        );
        let result = tap
            .request("ping", None, RequestOptions::default())
            .await
            .unwrap();
        assert_eq!(result.to_value().unwrap()["ok"], true);
        let params = RawParams::to_json(&serde_json::json!({"name": "echo"})).unwrap();
        let result = tap
            .request_raw("tools/call", params, RequestOptions::default())
            .await
            .unwrap();
        assert_eq!(result.to_value().unwrap()["raw"], true);
    }
}
