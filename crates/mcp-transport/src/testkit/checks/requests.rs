//! The rules of a request's answer: by id, on timeout, when dropped, and
//! many at once.

use super::*;

/// `answered-by-id`: three requests answered in another order each get
/// their own result.
pub async fn check_answered_by_id<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::ANSWERED_BY_ID).await?;
    let result = answered_by_id(&transport, &mut wire).await;
    finish(&*transport).await;
    result
}

async fn answered_by_id<T: Transport, P: Peer>(
    transport: &Arc<T>,
    wire: &mut Wire<P>,
) -> Result<(), Violation> {
    let mut handles: Vec<(Value, JoinHandle<Answer>)> = (0..3)
        .map(|n| {
            let params = json!({"n": n});
            (
                params.clone(),
                spawn_request(transport, ECHO, params, PROMPT * 2),
            )
        })
        .collect();
    let requests = wire.take_requests(ECHO, 3).await?;
    // Answer the last one first, then the first, then the middle one.
    for i in [2, 0, 1] {
        let request = &requests[i];
        let params = request["params"].clone();
        wire.answer(request, json!({"echo": params})).await?;
    }
    for (params, handle) in &mut handles {
        let answer = outcome(handle, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(wire, &format!("request {params}"), answer, params)?;
    }
    Ok(())
}

/// `timeout-sends-cancelled`: a request left unanswered past its timeout
/// fails with `Timeout`, the peer gets one `notifications/cancelled` for
/// it, its late response is dropped and the connection still works.
pub async fn check_timeout_sends_cancelled<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::TIMEOUT_SENDS_CANCELLED).await?;
    let result = async {
        let timeout = Duration::from_millis(300);
        let mut handle = spawn_request(&transport, ECHO, json!({"n": 1}), timeout);
        let request = wire.take_request(ECHO).await?;
        let id = request["id"].clone();
        match outcome(&mut handle, timeout + PROMPT)
            .await
            .map_err(|e| wire.violation(e))?
        {
            Err(e) if e.is_timeout() => {}
            Err(e) => return Err(wire.violation(format!("expected a Timeout error, got: {e}"))),
            Ok(v) => return Err(wire.violation(format!("an unanswered request succeeded: {v}"))),
        }
        wire.take(&format!("notifications/cancelled for request {id}"), |m| {
            is_cancel_of(m, &id)
        })
        .await?;
        let again = wire.count(QUIET, |m| is_cancel_of(m, &id)).await?;
        if again > 0 {
            return Err(wire.violation(format!(
                "notifications/cancelled for request {id} was sent {} times",
                again + 1
            )));
        }
        // The late response is dropped; the connection goes on, and the
        // id is not issued again (spec basic/index § Requests).
        wire.answer(&request, json!({"echo": {"n": 1}})).await?;
        let next = spawn_request(&transport, ECHO, json!({"n": 2}), PROMPT * 2);
        let next_request = wire.take_request(ECHO).await?;
        if next_request["id"] == id {
            return Err(wire.violation(format!(
                "the id {id} of the request that timed out was issued again"
            )));
        }
        wire.answer(&next_request, json!({"echo": next_request["params"]}))
            .await?;
        let mut next = next;
        let answer = outcome(&mut next, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(
            &wire,
            "the request after the timeout",
            answer,
            &json!({"n": 2}),
        )?;
        second_request_works(&transport, &mut wire).await
    }
    .await;
    finish(&*transport).await;
    result
}

/// `dropped-request-cancels`: dropping a request's future sends one
/// `notifications/cancelled`; dropping `initialize` sends none.
pub async fn check_dropped_request_cancels<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::DROPPED_REQUEST_CANCELS).await?;
    let result = async {
        let handle = spawn_request(&transport, ECHO, json!({"n": 1}), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        let id = request["id"].clone();
        handle.abort();
        let _ = handle.await;
        wire.take(&format!("notifications/cancelled for the dropped request {id}"), |m| {
            is_cancel_of(m, &id)
        })
        .await?;
        let again = wire.count(QUIET, |m| is_cancel_of(m, &id)).await?;
        if again > 0 {
            return Err(wire.violation(format!(
                "notifications/cancelled for request {id} was sent {} times",
                again + 1
            )));
        }
        settles(&*transport).await.map_err(|n| {
            wire.violation(format!("{n} request(s) still pending after the future was dropped"))
        })?;
        let init = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "transport-kit", "version": "0"}
        });
        let handle = spawn_request(&transport, "initialize", init, PROMPT * 4);
        let request = wire.take_request("initialize").await?;
        let id = request["id"].clone();
        handle.abort();
        let _ = handle.await;
        let cancels = wire.count(QUIET, |m| is_cancel_of(m, &id)).await?;
        if cancels > 0 {
            return Err(wire.violation(format!(
                "a dropped initialize (id {id}) was followed by notifications/cancelled (spec: the initialize request MUST NOT be cancelled)"
            )));
        }
        Ok(())
    }
    .await;
    finish(&*transport).await;
    result
}

/// How many tasks send at once in `concurrent-requests`, and how many
/// requests each sends.
const TASKS: usize = 8;
const PER_TASK: usize = 8;

/// `concurrent-requests`: 8 tasks send 8 requests each at once; the ids
/// are distinct, the peer answers them all in reverse order, every task
/// gets its own answers and nothing stays pending.
pub async fn check_concurrent_requests<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::CONCURRENT_REQUESTS).await?;
    let result = async {
        let tasks: Vec<JoinHandle<Result<(), String>>> = (0..TASKS)
            .map(|task| {
                let transport = transport.clone();
                tokio::spawn(async move {
                    let handles: Vec<(Value, JoinHandle<Answer>)> = (0..PER_TASK)
                        .map(|i| {
                            let params = json!({"task": task, "i": i});
                            (
                                params.clone(),
                                spawn_request(&transport, ECHO, params, PROMPT * 4),
                            )
                        })
                        .collect();
                    for (params, handle) in handles {
                        match handle.await {
                            Ok(Ok(v)) if v == json!({"echo": params}) => {}
                            Ok(Ok(v)) => return Err(format!("request {params} got {v}")),
                            Ok(Err(e)) => return Err(format!("request {params} failed: {e}")),
                            Err(e) => return Err(format!("request {params}'s task failed: {e}")),
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        let requests = wire.take_requests(ECHO, TASKS * PER_TASK).await?;
        let mut ids: Vec<String> = requests.iter().map(|r| r["id"].to_string()).collect();
        ids.sort();
        ids.dedup();
        if ids.len() != requests.len() {
            return Err(wire.violation(format!(
                "{} requests in flight carried only {} distinct ids",
                requests.len(),
                ids.len()
            )));
        }
        for request in requests.iter().rev() {
            wire.answer(request, json!({"echo": request["params"]}))
                .await?;
        }
        for task in tasks {
            match tokio::time::timeout(PROMPT * 2, task).await {
                Ok(Ok(Ok(()))) => {}
                Ok(Ok(Err(e))) => return Err(wire.violation(e)),
                Ok(Err(e)) => return Err(wire.violation(format!("a sending task failed: {e}"))),
                Err(_) => {
                    return Err(wire.violation("a sending task's requests were not all answered"));
                }
            }
        }
        settles(&*transport).await.map_err(|n| {
            wire.violation(format!(
                "{n} request(s) still pending after every one was answered"
            ))
        })
    }
    .await;
    finish(&*transport).await;
    result
}
