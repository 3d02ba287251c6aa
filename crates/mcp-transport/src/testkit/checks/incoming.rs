//! The rules of what the peer sends unasked: notifications and requests.

use super::*;

/// `notification-reaches-events`: a notification the peer sends while a
/// request is in flight (so a transport that carries server messages only
/// on a request's reply stream has one) reaches the events.
pub async fn check_notification_reaches_events<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::NOTIFICATION_REACHES_EVENTS).await?;
    let result = async {
        let mut events = transport
            .take_events()
            .ok_or_else(|| wire.violation("take_events() returned None on its first call"))?;
        let params = json!({"n": 1});
        let mut carrier = spawn_request(&transport, ECHO, params.clone(), PROMPT * 2);
        let request = wire.take_request(ECHO).await?;
        let note = json!({"level": "info", "data": "from the kit"});
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": note}))
            .await?;
        let deadline = tokio::time::Instant::now() + PROMPT;
        loop {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Some(TransportEvent::Notification(n)))
                    if n.method == "notifications/message" =>
                {
                    if n.params.as_ref() != Some(&note) {
                        return Err(wire.violation(format!(
                            "the notification arrived with other params: {:?}",
                            n.params
                        )));
                    }
                    break;
                }
                Ok(Some(_)) => continue,
                Ok(None) => {
                    return Err(
                        wire.violation("the events channel ended before the notification arrived")
                    );
                }
                Err(_) => {
                    return Err(wire.violation(format!(
                        "no notifications/message event within {} ms",
                        PROMPT.as_millis()
                    )));
                }
            }
        }
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut carrier, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the request in flight", answer, &params)
    }
    .await;
    finish(&*transport).await;
    result
}

/// `server-request-answered-once`: a request the handler answers, one it
/// drops, and (on a second connection, events never taken) a `ping` and an
/// unknown method are each answered exactly once, with the id as sent.
pub async fn check_server_request_answered_once<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::SERVER_REQUEST_ANSWERED_ONCE).await?;
    let handled = async {
        let mut events = transport
            .take_events()
            .ok_or_else(|| wire.violation("take_events() returned None on its first call"))?;
        let params = json!({"n": 1});
        let mut carrier = spawn_request(&transport, ECHO, params.clone(), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        // One the handler answers (a string id), one it drops (a number id).
        let cases = [
            (json!("kit-srv-1"), "roots/list", true),
            (json!(7), "kit/unknown", false),
        ];
        for (id, method, answer) in &cases {
            wire.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}}))
                .await?;
            let incoming = loop {
                match tokio::time::timeout(PROMPT, events.recv()).await {
                    Ok(Some(TransportEvent::Request(r))) => break r,
                    Ok(Some(_)) => continue,
                    Ok(None) | Err(_) => {
                        return Err(wire.violation(format!(
                            "the server request {method} never reached the events"
                        )));
                    }
                }
            };
            if incoming.method != *method {
                return Err(wire.violation(format!(
                    "expected the server request {method}, the events gave {}",
                    incoming.method
                )));
            }
            if *answer {
                incoming
                    .respond(Ok(json!({"roots": []})))
                    .await
                    .map_err(|e| wire.violation(format!("answering {method} failed: {e}")))?;
            } else {
                drop(incoming);
            }
            let reply = wire
                .take(&format!("the answer to {method} (id {id})"), |m| {
                    is_response_to(m, id)
                })
                .await?;
            if *answer && reply["result"] != json!({"roots": []}) {
                return Err(wire.violation(format!("the handler's answer was not sent as given: {reply}")));
            }
            if !*answer && reply["error"]["code"] != -32601 {
                return Err(wire.violation(format!(
                    "a dropped server request must be answered -32601 (method not found), got {reply}"
                )));
            }
            let again = wire.count(QUIET, |m| is_response_to(m, id)).await?;
            if again > 0 {
                return Err(wire.violation(format!(
                    "the server request {method} (id {id}) was answered {} times",
                    again + 1
                )));
            }
        }
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut carrier, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the request in flight", answer, &params)
    }
    .await;
    finish(&*transport).await;
    handled?;

    // Nobody took the events: the transport answers by itself.
    let (transport, mut wire) = open(harness, Rule::SERVER_REQUEST_ANSWERED_ONCE).await?;
    let unhandled = async {
        let params = json!({"n": 2});
        let mut carrier = spawn_request(&transport, ECHO, params.clone(), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        for (id, method) in [(json!(8), "ping"), (json!("kit-srv-9"), "kit/unknown")] {
            wire.send(&json!({"jsonrpc": "2.0", "id": id, "method": method}))
                .await?;
            let reply = wire
                .take(&format!("the default answer to {method} (id {id})"), |m| {
                    is_response_to(m, &id)
                })
                .await?;
            let right = match method {
                "ping" => reply["result"] == json!({}),
                _ => reply["error"]["code"] == -32601,
            };
            if !right {
                return Err(wire.violation(format!(
                    "with no events receiver, {method} must be answered {}, got {reply}",
                    if method == "ping" { "{}" } else { "-32601" }
                )));
            }
            let again = wire.count(QUIET, |m| is_response_to(m, &id)).await?;
            if again > 0 {
                return Err(wire.violation(format!(
                    "the server request {method} (id {id}) was answered {} times",
                    again + 1
                )));
            }
        }
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut carrier, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the request in flight", answer, &params)
    }
    .await;
    finish(&*transport).await;
    unhandled
}
