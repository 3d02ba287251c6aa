//! `notifications/{tools,prompts,resources}/list_changed` against listings
//! in flight.
//!
//! A server answers `tools/list` from its state when it reads the request;
//! when it changes that state and sends `list_changed`, the notification
//! may reach the client before the (older) answer or after it. The order
//! on the wire does not tell which answer is older, the order of the
//! requests does: every `list_changed` raises a generation of its list,
//! and a listing requested at an older generation than the current one
//! may miss the change. Such a listing is fetched once more for its caller,
//! and never kept as current (see [`crate::tool_cache`] for tools). A
//! server sending `list_changed` without end costs each caller at most one
//! more listing.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::connection::Connection;
use crate::error::ClientError;
use crate::listing::Listing;

/// A list a server announces changes of with `list_changed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// `tools/list`, announced by `notifications/tools/list_changed`.
    Tools,
    /// `prompts/list`, announced by `notifications/prompts/list_changed`.
    Prompts,
    /// `resources/list` and `resources/templates/list`, announced by
    /// `notifications/resources/list_changed`.
    Resources,
}

impl ListKind {
    /// The list a listing `method` reads, if a `list_changed` covers it.
    pub(crate) fn listed_by(method: &str) -> Option<ListKind> {
        match method {
            "tools/list" => Some(ListKind::Tools),
            "prompts/list" => Some(ListKind::Prompts),
            "resources/list" | "resources/templates/list" => Some(ListKind::Resources),
            _ => None,
        }
    }
}

/// The generations of the lists the client keeps no cache of (tools: in
/// [`crate::tool_cache::ToolCache`], under its lock).
#[derive(Debug, Default)]
pub(crate) struct ListGenerations {
    prompts: AtomicU64,
    resources: AtomicU64,
}

impl ListGenerations {
    fn of(&self, kind: ListKind) -> Option<&AtomicU64> {
        match kind {
            ListKind::Tools => None,
            ListKind::Prompts => Some(&self.prompts),
            ListKind::Resources => Some(&self.resources),
        }
    }
}

impl Connection {
    /// A `list_changed` of `kind` arrived: a new generation of that list
    /// (tools: the cache's compiled validators are forgotten too). Called by
    /// the receive loop before the handler hears of it.
    pub(crate) fn list_changed(&self, kind: ListKind) {
        match self.list_generations.of(kind) {
            Some(generation) => {
                generation.fetch_add(1, Ordering::SeqCst);
            }
            None => self.invalidate_tools(),
        }
    }

    /// The current generation of `kind`: read before a listing is sent.
    pub(crate) fn list_generation(&self, kind: ListKind) -> u64 {
        match self.list_generations.of(kind) {
            Some(generation) => generation.load(Ordering::SeqCst),
            None => self.tools().generation(),
        }
    }

    /// A whole listing of `kind` (`method` names it in logs) by `fetch`,
    /// fetched once more when a `list_changed` of `kind` arrived while it
    /// was in flight. `keep` receives each listing with the generation it
    /// was requested at, keeps what it keeps of it (tools: the cache) and
    /// says whether it is current.
    ///
    /// Bounded: at most two listings. When the second one is overtaken as
    /// well it is returned (logged at debug); when it fails, the first is
    /// returned (logged at warn). Neither is then kept as current, so the
    /// next caller lists again.
    ///
    /// Errors: the first listing's.
    pub(crate) async fn fresh_listing<T, Fut>(
        &self,
        kind: ListKind,
        method: &str,
        fetch: impl Fn() -> Fut,
        keep: impl Fn(Listing<T>, u64) -> (Listing<T>, bool),
    ) -> Result<Listing<T>, ClientError>
    where
        Fut: Future<Output = Result<Listing<T>, ClientError>>,
    {
        let requested = self.list_generation(kind);
        let (first, current) = keep(fetch().await?, requested);
        if current {
            return Ok(first);
        }
        tracing::debug!(%method, "a list_changed arrived while the listing was in flight; listing once more");
        let requested = self.list_generation(kind);
        match fetch().await {
            Ok(second) => {
                let (second, current) = keep(second, requested);
                if !current {
                    tracing::debug!(%method, "the second listing was overtaken by list_changed as well; returned as it is, not kept as current");
                }
                Ok(second)
            }
            Err(error) => {
                tracing::warn!(%method, %error, "listing once more after list_changed failed; returning the earlier listing, not kept as current");
                Ok(first)
            }
        }
    }
}
