//! The rules of frames: a malformed or oversized one fails its request
//! alone, and the wire tap sees each one once.

use super::*;

/// `malformed-frame-isolated`: a frame that is not JSON and a malformed
/// response to one request (both `result` and `error`) fail that request
/// alone; the other request in flight and the next one are answered.
pub async fn check_malformed_frame_isolated<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::MALFORMED_FRAME_ISOLATED).await?;
    let result = async {
        let mut bad = spawn_request(&transport, ECHO, json!({"n": "bad"}), PROMPT * 4);
        let bad_request = wire.take_request(ECHO).await?;
        let good_params = json!({"n": "good"});
        let mut good = spawn_request(&transport, ECHO, good_params.clone(), PROMPT * 4);
        let good_request = wire.take_request(ECHO).await?;
        wire.send_raw(b"{not json").await?;
        let id = bad_request["id"].clone();
        wire.send(&json!({"jsonrpc": "2.0", "id": id, "result": {}, "error": {"code": -32603, "message": "both"}}))
            .await?;
        match outcome(&mut bad, PROMPT).await.map_err(|e| wire.violation(e))? {
            Err(TransportError::Malformed { .. }) => {}
            Err(e) => {
                return Err(wire.violation(format!(
                    "a response with both result and error must fail its request with Malformed, got: {e}"
                )));
            }
            Ok(v) => return Err(wire.violation(format!("a response with both result and error was taken as {v}"))),
        }
        wire.answer(&good_request, json!({"echo": good_params})).await?;
        let answer = outcome(&mut good, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the other request in flight", answer, &good_params)?;
        second_request_works(&transport, &mut wire).await
    }
    .await;
    finish(&*transport).await;
    result
}

/// `oversized-frame-isolated`: a response one byte over the harness's
/// frame limit fails its request with `MessageTooLarge`; the other request
/// in flight and the next one are answered.
pub async fn check_oversized_frame_isolated<H: Harness>(harness: &H) -> Result<(), Violation> {
    let Some(limit) = harness.frame_limit() else {
        return Ok(());
    };
    let (transport, mut wire) = open(harness, Rule::OVERSIZED_FRAME_ISOLATED).await?;
    let result = async {
        let mut big = spawn_request(&transport, ECHO, json!({"n": "big"}), PROMPT * 4);
        let big_request = wire.take_request(ECHO).await?;
        let small_params = json!({"n": "small"});
        let mut small = spawn_request(&transport, ECHO, small_params.clone(), PROMPT * 4);
        let small_request = wire.take_request(ECHO).await?;
        // The id first, so a transport that reads only the start of an
        // over-long frame still finds whose answer it was.
        let head = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"pad":""#, big_request["id"]);
        let tail = r#""}}"#;
        let pad = (limit + 1).saturating_sub(head.len() + tail.len()).max(1);
        let mut frame = head.into_bytes();
        frame.resize(frame.len() + pad, b'x');
        frame.extend_from_slice(tail.as_bytes());
        wire.send_raw(&frame).await?;
        match outcome(&mut big, PROMPT).await.map_err(|e| wire.violation(e))? {
            Err(TransportError::MessageTooLarge { .. }) => {}
            Err(e) => {
                return Err(wire.violation(format!(
                    "a {}-byte response over the {limit}-byte limit must fail its request with MessageTooLarge, got: {e}",
                    frame.len()
                )));
            }
            Ok(_) => {
                return Err(wire.violation(format!(
                    "a {}-byte response over the {limit}-byte limit was delivered",
                    frame.len()
                )));
            }
        }
        wire.answer(&small_request, json!({"echo": small_params})).await?;
        let answer = outcome(&mut small, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the other request in flight", answer, &small_params)?;
        second_request_works(&transport, &mut wire).await
    }
    .await;
    finish(&*transport).await;
    result
}

/// What a [`Recorder`] saw.
#[derive(Debug, Default)]
struct Seen {
    sent: Vec<String>,
    received: Vec<String>,
}

/// A wire tap keeping every text it sees.
#[derive(Debug, Default)]
struct Recorder(Mutex<Seen>);

impl WireTap for Recorder {
    fn observe(&self, _label: &str, event: TapEvent<'_>) {
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            TapEvent::Sent(text) => seen.sent.push(text.to_owned()),
            TapEvent::Received(text) => seen.received.push(text.to_owned()),
            _ => {}
        }
    }
}

/// What the tap must have seen once: a name, whether it was sent (else
/// received), and how to know it.
type Expected<'a> = (&'static str, bool, Box<dyn Fn(&Value) -> bool + 'a>);

/// How many of `texts` parse to a message matching `pred`.
fn count_tapped(texts: &[String], pred: impl Fn(&Value) -> bool) -> usize {
    texts
        .iter()
        .filter_map(|t| serde_json::from_str::<Value>(t).ok())
        .filter(|m| pred(m))
        .count()
}

/// `wire-tap-once`: a tap installed on the transport sees a request, its
/// response, a notification each way and a server request's answer
/// exactly once each; with a secret declared, neither the tap nor an error
/// carrying the secret back shows it.
pub async fn check_wire_tap_once<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::WIRE_TAP_ONCE).await?;
    let secret = harness.secret();
    let result = async {
        let recorder = Arc::new(Recorder::default());
        if !transport.set_wire_tap(recorder.clone()) {
            return Err(wire.violation("set_wire_tap() refused the first tap"));
        }
        let params = json!({"n": "tapped"});
        let mut handle = spawn_request(&transport, ECHO, params.clone(), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/kit", "params": {"n": 1}}))
            .await?;
        wire.send(&json!({"jsonrpc": "2.0", "id": "kit-tap-ping", "method": "ping"}))
            .await?;
        let ping_id = json!("kit-tap-ping");
        wire.take("the answer to ping", |m| is_response_to(m, &ping_id))
            .await?;
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut handle, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the tapped request", answer, &params)?;
        transport
            .notify("notifications/kit-client", Some(json!({"n": 2})))
            .await
            .map_err(|e| wire.violation(format!("notify failed: {e}")))?;
        wire.take("notifications/kit-client", |m| {
            m["method"] == "notifications/kit-client"
        })
        .await?;
        let id = request["id"].clone();
        let seen = || recorder.0.lock().unwrap_or_else(|p| p.into_inner()).sent.clone();
        let expectations: [Expected<'_>; 5] = [
            ("the request", true, Box::new(|m: &Value| is_request(m) && m["id"] == id)),
            ("the notification sent", true, Box::new(|m: &Value| m["method"] == "notifications/kit-client")),
            ("the answer to ping", true, Box::new(|m: &Value| is_response_to(m, &ping_id))),
            ("the response", false, Box::new(|m: &Value| is_response_to(m, &id))),
            ("the notification received", false, Box::new(|m: &Value| m["method"] == "notifications/kit")),
        ];
        for (what, sent, pred) in &expectations {
            let texts = if *sent {
                seen()
            } else {
                recorder.0.lock().unwrap_or_else(|p| p.into_inner()).received.clone()
            };
            let n = count_tapped(&texts, pred);
            if n != 1 {
                return Err(wire.violation(format!(
                    "the tap saw {what} {n} times as {} (once expected)",
                    if *sent { "sent" } else { "received" }
                )));
            }
        }
        let Some(secret) = secret else {
            return Ok(());
        };
        let mut handle = spawn_request(&transport, ECHO, json!({"n": "secret"}), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        wire.send(&json!({
            "jsonrpc": "2.0", "id": request["id"],
            "error": {"code": -32000, "message": format!("refused {secret}"), "data": {"echo": secret}}
        }))
        .await?;
        match outcome(&mut handle, PROMPT).await.map_err(|e| wire.violation(e))? {
            Err(e) if format!("{e} {e:?}").contains(&secret) => {
                return Err(wire.violation("an error response quoting the connection's secret shows it in the request's error"));
            }
            Err(_) => {}
            Ok(v) => return Err(wire.violation(format!("an error response was taken as a result: {v}"))),
        }
        let leaked = {
            let seen = recorder.0.lock().unwrap_or_else(|p| p.into_inner());
            seen.sent.iter().chain(&seen.received).any(|t| t.contains(&secret))
        };
        if leaked {
            return Err(wire.violation("the wire tap saw the connection's secret"));
        }
        if transport.redact(&format!("a {secret} b")).contains(&secret) {
            return Err(wire.violation("Transport::redact() leaves the connection's secret in"));
        }
        Ok(())
    }
    .await;
    finish(&*transport).await;
    result
}
