//! Whole listings (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`, `tasks/list` followed through `nextCursor`)
//! that keep what arrived: a bad entry costs that entry, a pagination
//! fault costs the pages after it, never the pages before.
//!
//! Spec `server/utilities/pagination`: cursors are opaque; "stop after a
//! maximum number of pages or on a repeated cursor" is the practice. Under
//! the handshake revisions a repeated cursor is a server fault and ends
//! the listing. Under 2026-07-28 a server may legally hand out the same
//! cursor again, so a repeated cursor ends the listing only when the page
//! it brought added no new entry; the page cap
//! ([`crate::ClientOptions::max_pages`]) bounds every listing whatever the
//! cursors are.

use std::collections::HashSet;
use std::fmt;
use std::future::Future;

use mcp_types::Paginated;
use mcp_types::ProtocolVersion;
use mcp_types::lenient::EntryProblem;

use crate::ClientError;

/// Everything a whole listing gathered (e.g. [`crate::Client::tools_listing`]).
///
/// `items` holds every entry that decoded, in the server's order, the first
/// of each identity (a tool's or prompt's `name`, a resource's `uri`, a
/// template's `uriTemplate`, a task's `taskId`) when a server repeats one.
/// `problems` holds each entry left out, once (also logged at warn). When
/// `incomplete` is set the server may have more that was not fetched (also
/// logged at warn).
#[derive(Debug, Clone)]
pub struct Listing<T> {
    /// The entries, de-duplicated by identity.
    pub items: Vec<T>,
    /// Entries that did not decode and were left out, over all pages.
    pub problems: Vec<EntryProblem>,
    /// Why the listing stopped before the server said it was complete.
    pub incomplete: Option<Incomplete>,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Listing {
            items: Vec::new(),
            problems: Vec::new(),
            incomplete: None,
        }
    }
}

/// Why a listing stopped before its last page. The entries of the pages
/// fetched until then are kept.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Incomplete {
    /// The server sent a `nextCursor` it had already sent (under 2026-07-28:
    /// with a page that added nothing new).
    CursorRepeated {
        /// Pages fetched.
        pages: usize,
    },
    /// [`crate::ClientOptions::max_pages`] pages were fetched and the
    /// server still had a `nextCursor`.
    PageCap {
        /// Pages fetched.
        pages: usize,
    },
    /// A page after the first failed (the first page failing fails the
    /// listing).
    PageFailed {
        /// Pages fetched successfully.
        pages: usize,
        /// The error of the next page.
        error: ClientError,
    },
}

impl fmt::Display for Incomplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Incomplete::CursorRepeated { pages } => {
                write!(f, "the server repeated a cursor after {pages} pages")
            }
            Incomplete::PageCap { pages } => write!(f, "page cap of {pages} pages reached"),
            Incomplete::PageFailed { pages, error } => {
                write!(f, "page {} failed: {error}", pages + 1)
            }
        }
    }
}

/// The cursor bookkeeping of one listing and what it gathered so far.
pub(crate) struct Pager<T> {
    method: &'static str,
    version: ProtocolVersion,
    max_pages: usize,
    seen_cursors: HashSet<String>,
    seen_keys: HashSet<String>,
    pages: usize,
    listing: Listing<T>,
}

/// What to do after a page.
enum Next {
    /// Fetch the page of this cursor.
    Page(String),
    /// The listing is over (complete or not).
    Done,
}

impl<T> Pager<T> {
    pub(crate) fn new(method: &'static str, version: ProtocolVersion, max_pages: usize) -> Self {
        Pager {
            method,
            version,
            max_pages: max_pages.max(1),
            seen_cursors: HashSet::new(),
            seen_keys: HashSet::new(),
            pages: 0,
            listing: Listing::default(),
        }
    }

    /// Fetches the listing page after page through `fetch` (given each
    /// page's cursor, `None` for the first) until the server says it is
    /// complete or the listing stops early: the one pagination loop of the
    /// client.
    ///
    /// Errors: the first page's; a later page failing ends the listing
    /// with [`Incomplete::PageFailed`], except a cancellation: the caller
    /// asked for no listing, so it fails the listing.
    pub(crate) async fn run<P, F, Fut>(mut self, mut fetch: F) -> Result<Listing<T>, ClientError>
    where
        P: Paginated<Item = T>,
        F: FnMut(Option<String>) -> Fut,
        Fut: Future<Output = Result<P, ClientError>>,
    {
        let mut cursor: Option<String> = None;
        loop {
            match fetch(cursor.take()).await {
                Ok(page) => match self.page(page) {
                    Next::Page(next) => cursor = Some(next),
                    Next::Done => return Ok(self.finish()),
                },
                Err(e) if e.is_cancelled() => return Err(e),
                Err(e) => {
                    self.failed(e)?;
                    return Ok(self.finish());
                }
            }
        }
    }

    /// Takes a page in: its entries (first of each identity), its
    /// problems, and decides on its `nextCursor`.
    fn page<P>(&mut self, mut page: P) -> Next
    where
        P: Paginated<Item = T>,
    {
        self.pages += 1;
        let next = page.next_cursor().map(str::to_owned);
        self.listing.problems.extend(page.take_problems());
        let before = self.listing.items.len();
        for item in page.into_items() {
            if let Some(key) = P::item_key(&item)
                && !self.seen_keys.insert(key.to_owned())
            {
                tracing::debug!(
                    method = self.method,
                    key,
                    "entry listed twice; the first is kept"
                );
                continue;
            }
            self.listing.items.push(item);
        }
        let added = self.listing.items.len() > before;
        let Some(next) = next else { return Next::Done };
        let repeated = !self.seen_cursors.insert(next.clone());
        // Under 2026-07-28 a cursor may come back; it only proves a loop
        // when the page brought nothing new.
        if repeated && (self.version.uses_handshake() || !added) {
            return self.stop(Incomplete::CursorRepeated { pages: self.pages });
        }
        if self.pages >= self.max_pages {
            return self.stop(Incomplete::PageCap { pages: self.pages });
        }
        Next::Page(next)
    }

    /// A page failed: the first one fails the listing, a later one ends it
    /// incomplete.
    fn failed(&mut self, error: ClientError) -> Result<(), ClientError> {
        if self.pages == 0 {
            return Err(error);
        }
        self.stop(Incomplete::PageFailed {
            pages: self.pages,
            error,
        });
        Ok(())
    }

    fn stop(&mut self, why: Incomplete) -> Next {
        tracing::warn!(
            method = self.method,
            entries = self.listing.items.len(),
            "{}: {why}; the listing may be incomplete",
            self.method
        );
        self.listing.incomplete = Some(why);
        Next::Done
    }

    fn finish(self) -> Listing<T> {
        self.listing
    }
}
