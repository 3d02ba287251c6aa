//! A name looked up while a `list_changed` made a server's listing stale.
//!
//! A server answers a listing from its state when it reads the request,
//! and its `list_changed` can reach the client before that answer or after
//! it; the client lists once more when it sees the notification in time
//! (`mcp_client`'s `list_changes`), but one that arrives after the answer
//! was handled leaves the slot's list stale until the supervisor's
//! refresh, a debounce later. A call naming what is not in the namespace
//! then waits for that refresh and looks again, instead of failing with a
//! name the server just announced.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::time::Instant;

use super::Shared;
use crate::manager::Manager;
use crate::namespace::List;

impl Shared {
    /// Waits until no connected server's `list` is stale from a
    /// `list_changed` received before this call: each such server's next
    /// refresh is in (or failed, or the connection changed), at most its
    /// debounce plus its request timeout (the server's `timeout`, else the
    /// client's) from now; past it the lists are used as they are (logged
    /// at debug). Notifications arriving meanwhile do not prolong the
    /// wait. Returns `false` when no server was stale (nothing waited for).
    pub(crate) async fn settle(&self, list: List) -> bool {
        let start = Instant::now();
        let mut stale = Vec::new();
        for slot in self.slots().values() {
            let rx = slot.state.subscribe();
            let target = {
                let s = rx.borrow();
                s.signals.as_ref().and_then(|signals| {
                    let received = signals.list(list).received.load(Ordering::SeqCst);
                    (received > s.lists.listed_at.get(list)).then(|| (signals.clone(), received))
                })
            };
            if let Some((signals, received)) = target {
                let bound = self.options.list_changed_debounce
                    + slot
                        .config
                        .timeout
                        .unwrap_or(self.options.client.request_timeout);
                stale.push((slot, rx, signals, received, start + bound));
            }
        }
        if stale.is_empty() {
            return false;
        }
        for (slot, mut rx, signals, received, deadline) in stale {
            let refreshed = rx.wait_for(|s| {
                let same_connection = s
                    .signals
                    .as_ref()
                    .is_some_and(|now| Arc::ptr_eq(now, &signals));
                !same_connection || s.lists.listed_at.get(list) >= received
            });
            let in_time = tokio::time::timeout_at(deadline, refreshed)
                .await
                .is_ok_and(|r| r.is_ok());
            if !in_time {
                tracing::debug!(server = %slot.config.name, method = list.method(), "the refresh after list_changed is not in; looking the name up in the lists as they are");
            }
        }
        true
    }
}

impl Manager {
    /// `(server, tool)` of a qualified tool name; when it is not listed and
    /// some server's tool listing is stale from a `tools/list_changed`,
    /// again once that refresh is in (see [`Shared::settle`]).
    pub(in crate::manager) async fn resolve_tool_settled(
        &self,
        qualified: &str,
    ) -> Option<(String, String)> {
        if let Some(found) = self.resolve_tool(qualified) {
            return Some(found);
        }
        if !self.handle.shared.settle(List::Tools).await {
            return None;
        }
        self.resolve_tool(qualified)
    }

    /// `(server, prompt)` of a qualified prompt name, waiting like
    /// [`Manager::resolve_tool_settled`] for a `prompts/list_changed`.
    pub(in crate::manager) async fn resolve_prompt_settled(
        &self,
        qualified: &str,
    ) -> Option<(String, String)> {
        let resolve = || {
            self.namespace()
                .resolve_prompt(qualified)
                .map(|(s, p)| (s.to_owned(), p.to_owned()))
        };
        if let Some(found) = resolve() {
            return Some(found);
        }
        if !self.handle.shared.settle(List::Prompts).await {
            return None;
        }
        resolve()
    }
}
