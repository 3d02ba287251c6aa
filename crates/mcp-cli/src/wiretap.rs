//! `--verbose`: the JSON-RPC traffic as it is really sent and received,
//! logged through `tracing` (target `mcp::wire`, level DEBUG). The tap sits
//! in the connection's dispatcher, below the client, so a request shows its
//! `id` and `_meta.progressToken`, every `notifications/cancelled` the
//! client sends is shown, and what the client decided on its own (a
//! timeout, a cancellation) is marked `(local)`, never as traffic. Secrets
//! the connection sent read `***`.

use mcp_transport::{TapEvent, WireTap};
use mcp_types::JsonRpcMessage;

/// Logs every message of one connection.
#[derive(Debug, Default)]
pub(crate) struct VerboseTap;

impl WireTap for VerboseTap {
    fn observe(&self, label: &str, event: TapEvent<'_>) {
        match event {
            TapEvent::Sent(text) => {
                tracing::debug!(target: "mcp::wire", server = %label, "--> {} {text}", describe(text))
            }
            TapEvent::Received(text) => {
                tracing::debug!(target: "mcp::wire", server = %label, "<-- {} {text}", describe(text))
            }
            TapEvent::Local(what) => {
                tracing::debug!(target: "mcp::wire", server = %label, "(local) {what}")
            }
            other => tracing::debug!(target: "mcp::wire", server = %label, "{other:?}"),
        }
    }
}

/// What a message is, in a few words, for the start of its log line:
/// `request tools/list (id 1)`, `notification notifications/cancelled`,
/// `result of 1`, `error for 1`, `batch of 2`, or `unreadable` for text
/// that is not JSON-RPC (it is shown all the same).
fn describe(text: &str) -> String {
    match JsonRpcMessage::decode(text.as_bytes()) {
        Ok(message) => describe_message(&message),
        Err(_) => "unreadable".to_owned(),
    }
}

pub(crate) fn describe_message(message: &JsonRpcMessage) -> String {
    match message {
        JsonRpcMessage::Request(r) => format!("request {} (id {})", r.method, r.id),
        JsonRpcMessage::Notification(n) => format!("notification {}", n.method),
        JsonRpcMessage::Response(r) => {
            let id =
                r.id.as_ref()
                    .map_or_else(|| "null".to_owned(), ToString::to_string);
            match r.outcome {
                Ok(_) => format!("result of {id}"),
                Err(_) => format!("error for {id}"),
            }
        }
        JsonRpcMessage::Batch(items) => format!("batch of {}", items.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_message_is_named() {
        for (text, want) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":7}}}"#,
                "request tools/call (id 7)",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
                "notification notifications/cancelled",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","result":{}}"#,
                "result of \"a\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#,
                "error for 3",
            ),
            ("not json", "unreadable"),
        ] {
            assert_eq!(describe(text), want, "{text}");
        }
    }
}
