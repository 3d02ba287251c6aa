//! The cancellation tokens the transport's tasks (writer, stdout reader,
//! stderr drain, supervisor) use to tell each other what happened.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// The tokens tying the tasks together.
#[derive(Clone, Default)]
pub(crate) struct Signals {
    /// Shutdown requested (close, drop).
    pub(crate) stop: CancellationToken,
    /// The writer should finish what is queued, then close stdin.
    pub(crate) writer_drain: CancellationToken,
    /// The writer must close stdin now.
    pub(crate) writer_abort: CancellationToken,
    /// The stdout reader reached EOF (or failed).
    pub(crate) stdout_done: CancellationToken,
    /// The stderr drain reached EOF.
    pub(crate) stderr_done: CancellationToken,
    /// Writing to the server's stdin failed (the server closed it): nothing
    /// can be sent any more. The error is in `stdin_error`.
    pub(crate) stdin_failed: CancellationToken,
    /// Why writing to stdin failed, set before `stdin_failed` fires.
    pub(crate) stdin_error: Arc<std::sync::OnceLock<String>>,
    /// The process is reaped and the group is gone: everything is over.
    pub(crate) finished: CancellationToken,
}
