//! Locking a `std::sync::Mutex` without panicking.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`. A lock poisoned by a panic on another task is used as it is:
/// the connection must not panic in turn.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
