//! Slow-drip SSE replies (one byte at a time), out-of-order responses on one
//! stream, progress delivered before the result, and the SSE idle timeout.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use fault_http::{FaultServer, Part, Reply};
use mcp_transport::{TimeoutPhase, Transport, TransportError};
use mcp_transport_http::{HttpMode, HttpTimeouts, HttpTransport};
use serde_json::json;

#[tokio::test]
async fn slow_drip_one_byte_at_a_time() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        let text = format!(": hi\r\nid: 1\r\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"ok\":\"é\"}}}}\r\n\r\n");
        let mut parts = Vec::new();
        for b in text.into_bytes() {
            parts.push(Part::bytes(vec![b]));
            parts.push(Part::pause_ms(2));
        }
        Reply::sse(parts)
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    assert_eq!(
        t.request("x", None, opts())
            .await
            .unwrap()
            .to_value()
            .unwrap(),
        json!({"ok": "é"})
    );
}

#[tokio::test]
async fn progress_arrives_before_the_result_and_out_of_order_responses_resolve() {
    // Two concurrent requests; the first POST's stream carries progress for
    // it, then the response to the SECOND request, then its own.
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if id == json!(0) {
            Reply::sse(vec![
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":0,\"progress\":1,\"total\":2}}\n\n"),
                Part::pause_ms(300),
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":1}}\n\n"),
                Part::pause_ms(50),
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":0,\"progress\":2,\"total\":2}}\n\n"),
                Part::bytes("data: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"n\":0}}\n\n"),
            ])
        } else {
            // The second request's own stream stays silent.
            Reply::sse(vec![Part::Pause(Duration::from_secs(30))])
        }
    })
    .await
    .unwrap();
    let t = Arc::new(streamable(&server.url("/mcp")).await);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let first = {
        let t = t.clone();
        tokio::spawn(async move {
            t.request(
                "tools/call",
                None,
                opts().with_progress(move |p| sink.lock().unwrap().push(p.progress)),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(second, json!({"n": 1}));
    let first = first.await.unwrap().unwrap();
    assert_eq!(first, json!({"n": 0}));
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0]);
}

#[tokio::test]
async fn sse_idle_timeout_names_its_phase() {
    let server = FaultServer::start(|_| {
        Reply::sse(vec![
            Part::bytes(": hi\n\n"),
            Part::Pause(Duration::from_secs(30)),
        ])
    })
    .await
    .unwrap();
    let timeouts = HttpTimeouts::default().with_sse_idle(Some(Duration::from_millis(200)));
    let t = HttpTransport::connect(
        config(&server.url("/mcp")).with_timeouts(timeouts),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    let err = t.request("tools/call", None, opts()).await.unwrap_err();
    assert!(
        matches!(
            err,
            TransportError::Timeout {
                phase: TimeoutPhase::SseResponse,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("SSE response"), "{err}");
}

#[tokio::test]
async fn request_timeout_and_notify_timeout_name_their_phase() {
    let server = FaultServer::start(|_| Reply::sse(vec![Part::Pause(Duration::from_secs(30))]))
        .await
        .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t
        .request(
            "tools/call",
            None,
            opts().with_timeout(Duration::from_millis(200)),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            TransportError::Timeout {
                phase: TimeoutPhase::Request,
                ..
            }
        ),
        "{err:?}"
    );
    // A notification whose reply status never comes: a listener that
    // accepts connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", silent.local_addr().unwrap());
    let holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = silent.accept().await {
            held.push(s);
        }
    });
    let timeouts = HttpTimeouts::default().with_notify(Duration::from_millis(200));
    let t = HttpTransport::connect(config(&url).with_timeouts(timeouts), HttpMode::Streamable)
        .await
        .unwrap();
    let err = t
        .notify("notifications/initialized", None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            TransportError::Timeout {
                phase: TimeoutPhase::Notify,
                ..
            }
        ),
        "{err:?}"
    );
    holder.abort();
}

/// A server that asks a question on the reply stream of `tools/call` and
/// stays silent until the answer arrives: the silence is the client's (a
/// person filling in a form), so `sse_idle` does not end the request.
#[tokio::test]
async fn sse_idle_stands_still_while_a_server_request_is_answered() {
    type Sender = tokio::sync::mpsc::UnboundedSender<Part>;
    let stream: Arc<Mutex<Option<(Sender, serde_json::Value)>>> = Arc::default();
    let on_server = stream.clone();
    let server = FaultServer::start(move |r| {
        if r.is_call("tools/call") {
            let (reply, tx) = Reply::sse_channel();
            let question = json!({"jsonrpc": "2.0", "id": "q1", "method": "elicitation/create",
                "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}}});
            let _ = tx.send(fault_http::sse_data(&question.to_string()));
            *on_server.lock().unwrap() = Some((tx, r.rpc_id().unwrap_or_default()));
            return reply;
        }
        // The answer to the question: the result of the call follows on
        // its stream.
        if r.json().is_some_and(|m| m.get("id") == Some(&json!("q1")))
            && let Some((tx, id)) = on_server.lock().unwrap().as_ref()
        {
            let result = json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}});
            let _ = tx.send(fault_http::sse_data(&result.to_string()));
        }
        Reply::status(202)
    })
    .await
    .unwrap();
    let timeouts = HttpTimeouts::default().with_sse_idle(Some(Duration::from_millis(200)));
    let t = HttpTransport::connect(
        config(&server.url("/mcp")).with_timeouts(timeouts),
        HttpMode::Streamable,
    )
    .await
    .unwrap();
    let mut events = t.take_events().unwrap();
    let person = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if let mcp_transport::TransportEvent::Request(question) = event {
                // Five idle periods pass while the form is filled in.
                tokio::time::sleep(Duration::from_millis(1000)).await;
                question
                    .respond(Ok(json!({"action": "accept", "content": {}})))
                    .await
                    .unwrap();
                return;
            }
        }
    });
    let result = t
        .request("tools/call", None, opts())
        .await
        .expect("the call outlives the server's silence while it waits on us");
    assert_eq!(result.to_value().unwrap(), json!({"content": []}));
    person.await.unwrap();
}
