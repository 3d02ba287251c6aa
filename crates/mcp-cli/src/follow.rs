//! What `mcp log` and `mcp watch` follow: while one of them runs, the
//! servers' handlers hand it the notifications it prints (log messages,
//! resource updates, list changes) instead of showing them on stderr.

use std::sync::{Mutex, MutexGuard};

use mcp_types::logging::LoggingMessageNotificationParams;
use tokio::sync::mpsc;

/// A notification a server sent.
#[derive(Debug, Clone)]
pub(crate) enum Heard {
    /// `notifications/message`.
    Log(LoggingMessageNotificationParams),
    /// `notifications/resources/updated`, with its URI.
    ResourceUpdated(String),
    /// `notifications/{tools,prompts,resources}/list_changed`: which list.
    ListChanged(&'static str),
}

/// A server's name and what it sent.
pub(crate) type Followed = (String, Heard);

static FOLLOWER: Mutex<Option<mpsc::UnboundedSender<Followed>>> = Mutex::new(None);

fn follower() -> MutexGuard<'static, Option<mpsc::UnboundedSender<Followed>>> {
    FOLLOWER.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts following: from now on [`offer`] hands notifications to the
/// returned receiver.
pub(crate) fn start() -> mpsc::UnboundedReceiver<Followed> {
    let (tx, rx) = mpsc::unbounded_channel();
    *follower() = Some(tx);
    rx
}

/// Hands `heard` from `server` to the follower; `false` when nothing
/// follows (the caller shows it as usual, or not at all).
pub(crate) fn offer(server: &str, heard: Heard) -> bool {
    match follower().as_ref() {
        Some(tx) => tx.send((server.to_owned(), heard)).is_ok(),
        None => false,
    }
}
