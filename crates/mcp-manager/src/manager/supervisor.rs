//! One task per server: first start, watching the connection, refreshing
//! lists on `list_changed`, and reconnecting with backoff after a runtime
//! disconnect.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::connect::{self, LiveServer, close_bounded};
use super::{Shared, Slot};
use crate::error::error_chain;
use crate::namespace::List;
use crate::status::{ManagerEvent, ServerStatus};

/// How often the supervisor double-checks `is_connected`, in case
/// `Client::closed` has not fired (yet), and how long it then waits for the
/// close reason: 1 000 ms.
const LIVENESS_POLL: Duration = Duration::from_millis(1_000);

/// Bound on a health check after a transport-level request failure: 10 000 ms.
const HEALTH_CHECK_TIMEOUT: Duration = Duration::from_millis(10_000);

pub(crate) async fn supervise(shared: Arc<Shared>, slot: Arc<Slot>) {
    let name = slot.config.name.clone();
    let backoff = shared.options.backoff;
    // 0: first start; n ≥ 1: reconnection attempt n.
    let mut attempt: u32 = 0;
    loop {
        let opened = tokio::select! {
            biased;
            () = shared.shutdown.cancelled() => return,
            r = connect::open(&slot.config, &shared.options, &shared.stdio_servers, &slot.revision_hint) => r,
        };
        let last_why = match opened {
            Ok(conn) => {
                let since = Instant::now();
                shared.set_connected(&slot, &conn);
                let reason = tokio::select! {
                    biased;
                    () = shared.shutdown.cancelled() => return,
                    r = watch(&shared, &slot, &conn) => r,
                };
                if shared.shutdown.is_cancelled() {
                    return; // closed by shutdown()
                }
                tracing::warn!(server = %name, %reason, "server disconnected");
                // A connection that lasted at least the backoff cap resets the count.
                attempt = if since.elapsed() >= backoff.cap() {
                    1
                } else {
                    attempt.saturating_add(1)
                };
                shared.set_disconnected(&slot, attempt);
                shared.emit(ManagerEvent::Disconnected {
                    server: name.clone(),
                    reason: reason.clone(),
                });
                // reap what is left of it (stdio: the process group)
                close_bounded(&conn.transport, shared.options.shutdown_timeout).await;
                reason
            }
            Err(connect::StartFailure {
                why,
                needs_login: true,
            }) => {
                // Retrying cannot help: only a login can. The next call
                // that finds one stored wakes this task up for one more
                // start (`Manager::wait_for_client`); nothing polls.
                tracing::warn!(server = %name, %why, "server needs a login");
                shared.set_needs_login(&slot, why);
                tokio::select! {
                    biased;
                    () = shared.shutdown.cancelled() => return,
                    () = slot.login_stored.notified() => {}
                }
                attempt = 0;
                continue;
            }
            Err(connect::StartFailure { why, .. }) if attempt == 0 => {
                tracing::warn!(server = %name, %why, "server failed to start");
                shared.set_failed(&slot, why);
                return;
            }
            Err(connect::StartFailure { why, .. }) => {
                tracing::warn!(server = %name, attempt, %why, "reconnection failed");
                attempt = attempt.saturating_add(1);
                why
            }
        };
        if !backoff.allows(attempt) {
            let why = format!(
                "gave up after {} reconnection attempts; last error: {last_why}",
                attempt.saturating_sub(1)
            );
            shared.set_failed(&slot, why);
            return;
        }
        let delay = backoff.delay(attempt, None);
        slot.state
            .send_modify(|s| s.status = ServerStatus::Reconnecting { attempt });
        shared.emit(ManagerEvent::Reconnecting {
            server: name.clone(),
            attempt,
            delay,
        });
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = shared.shutdown.cancelled() => return,
        }
    }
}

/// Serves list changes until the connection closes; returns why it closed.
async fn watch(shared: &Shared, slot: &Slot, conn: &LiveServer) -> String {
    let signals = &conn.signals;
    let closed = conn.client.closed();
    tokio::pin!(closed);
    loop {
        if let Some(reason) = signals.closed() {
            return reason;
        }
        if !conn.client.is_connected() {
            // The receive loop may not have seen the close yet; its reason
            // (exit status, stderr tail) is better than ours.
            return match tokio::time::timeout(LIVENESS_POLL, &mut closed).await {
                Ok(reason) => reason.to_string(),
                Err(_) => "connection closed".to_owned(),
            };
        }
        let woke = tokio::select! {
            reason = &mut closed => return reason.to_string(),
            woke = tokio::time::timeout(LIVENESS_POLL, signals.notify.notified()) => woke,
        };
        if woke.is_err() {
            continue;
        }
        if signals.closed().is_some() {
            continue;
        }
        // Debounce a burst of list_changed notifications. Each refresh
        // records the count of notifications it was requested at: one that
        // arrives while it is in flight raises the flag again, and the
        // listing stays marked as possibly missing it until the next one.
        tokio::time::sleep(shared.options.list_changed_debounce).await;
        if signals.tools.raised.swap(false, Ordering::SeqCst) {
            let requested = signals.tools.requested_now();
            match conn.client.list_all_tools(Default::default()).await {
                Ok(tools) => shared.set_tools(slot, tools, requested),
                Err(e) => {
                    let error = error_chain(&e);
                    tracing::warn!(server = %slot.config.name, error = %error, "tools/list after list_changed failed");
                    shared.set_listing_failed(slot, List::Tools, error, requested);
                }
            }
        }
        if signals.prompts.raised.swap(false, Ordering::SeqCst) {
            let requested = signals.prompts.requested_now();
            match conn.client.list_all_prompts(Default::default()).await {
                Ok(prompts) => shared.set_prompts(slot, prompts, requested),
                Err(e) => {
                    let error = error_chain(&e);
                    tracing::warn!(server = %slot.config.name, error = %error, "prompts/list after list_changed failed");
                    shared.set_listing_failed(slot, List::Prompts, error, requested);
                }
            }
        }
        if signals.suspect.swap(false, Ordering::SeqCst)
            && let Err(why) = health_check(&conn.client).await
        {
            return format!("health check failed: {why}");
        }
        if signals.resources.raised.swap(false, Ordering::SeqCst) {
            let requested = signals.resources.requested_now();
            match conn.client.list_all_resources(Default::default()).await {
                Ok(resources) => shared.set_resources(slot, resources, requested),
                Err(e) => {
                    let error = error_chain(&e);
                    tracing::warn!(server = %slot.config.name, error = %error, "resources/list after list_changed failed");
                    shared.set_listing_failed(slot, List::Resources, error, requested);
                }
            }
        }
    }
}

/// After a request failed at the transport level: is the server still
/// there? Any answer (even a JSON-RPC error) says yes; a transport error or
/// no answer within [`HEALTH_CHECK_TIMEOUT`] says no.
async fn health_check(client: &mcp_client::Client) -> Result<(), String> {
    let probe = async {
        if client.server_capabilities().tools.is_some() {
            client.list_tools(None, Default::default()).await.map(drop)
        } else {
            client.ping(Default::default()).await
        }
    };
    match tokio::time::timeout(HEALTH_CHECK_TIMEOUT, probe).await {
        Err(_) => Err(format!(
            "no answer within {} ms",
            HEALTH_CHECK_TIMEOUT.as_millis()
        )),
        Ok(Err(e)) if e.transport_error().is_some() => Err(error_chain(&e)),
        Ok(_) => Ok(()),
    }
}
