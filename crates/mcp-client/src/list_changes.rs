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
//! and never kept as current (see [`crate::known_tools`] for tools). A
//! server sending `list_changed` without end costs each caller at most one
//! more listing.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_types::Request;
use mcp_types::prompts::ListPrompts;
use mcp_types::resources::{ListResourceTemplates, ListResources};
use mcp_types::tools::ListTools;

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
            ListTools::METHOD => Some(ListKind::Tools),
            ListPrompts::METHOD => Some(ListKind::Prompts),
            ListResources::METHOD | ListResourceTemplates::METHOD => Some(ListKind::Resources),
            _ => None,
        }
    }
}

/// The generations of the lists the client keeps no cache of (tools: in
/// [`crate::known_tools::KnownTools`], under its lock).
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

    /// Raises the generation of `kind`; `false` for tools, whose generation
    /// the tool cache keeps.
    pub(crate) fn raise(&self, kind: ListKind) -> bool {
        self.of(kind)
            .map(|generation| generation.fetch_add(1, Ordering::SeqCst))
            .is_some()
    }

    /// The generation of `kind`; `None` for tools (see [`Self::raise`]).
    pub(crate) fn get(&self, kind: ListKind) -> Option<u64> {
        self.of(kind)
            .map(|generation| generation.load(Ordering::SeqCst))
    }
}

/// A whole listing (`method` names it in logs) by `fetch`, fetched once
/// more when its list's `generation` (see `Connection::list_generation`)
/// moved while it was in flight: a `list_changed` arrived. `keep` receives
/// each listing with the generation it was requested at, keeps what it
/// keeps of it (tools: the cache) and says whether it is current.
///
/// Bounded: at most two listings. When the second one is overtaken as
/// well it is returned (logged at debug); when it fails, the first is
/// returned (logged at warn). Neither is then kept as current, so the
/// next caller lists again.
///
/// Errors: the first listing's.
pub(crate) async fn fresh_listing<T, Fut>(
    generation: impl Fn() -> u64,
    method: &str,
    fetch: impl Fn() -> Fut,
    keep: impl Fn(Listing<T>, u64) -> (Listing<T>, bool),
) -> Result<Listing<T>, ClientError>
where
    Fut: Future<Output = Result<Listing<T>, ClientError>>,
{
    let requested = generation();
    let (first, current) = keep(fetch().await?, requested);
    if current {
        return Ok(first);
    }
    tracing::debug!(%method, "a list_changed arrived while the listing was in flight; listing once more");
    let requested = generation();
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
