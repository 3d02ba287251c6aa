//! The way out to the server's stdin: a message alone in flight is written from
//! the sender's task, anything else is queued for the writer task, which
//! gathers what queued into one vectored write.

use std::pin::Pin;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_transport::{
    Body, CloseReason, Dispatcher, Outbound, Outgoing, OutgoingKind, TimeoutPhase, TransportError,
};
use tokio::io::AsyncWrite;
use tokio::process::ChildStdin;
use tokio::sync::mpsc;

use crate::config::NOTIFY_TIMEOUT;
use crate::signals::Signals;

/// Delivers outgoing messages: written straight to the server's stdin from
/// the sender's own task when the message is alone in flight and nothing is
/// queued ahead of it (no hop to the writer task: that hop is most of a
/// small call's latency), to the writer task otherwise. With other requests
/// in flight the writer task gathers what queued meanwhile into one
/// vectored write: a `write` per message would cost a system call (and
/// often a wake-up of the server) for each.
pub(crate) struct StdioOutbound {
    pub(crate) tx: mpsc::Sender<Body>,
    pub(crate) gate: Arc<WriteGate>,
}

/// Where an outgoing message went.
enum Route {
    /// Written with its `\n`; or, after a short write, what is left is
    /// queued for the writer task, first in line.
    Done,
    /// These bytes (all of the message, or what a short write left) wait
    /// for the writer task; they are counted in [`WriteGate`] already.
    Queue(Body),
}

/// Orders direct writes against the writer task: a message may be written
/// directly only while no message is queued for the writer or being
/// written by it, so messages never interleave and keep their order.
pub(crate) struct WriteGate {
    state: Mutex<GateState>,
}

struct GateState {
    /// A second handle on the stdin pipe (a `dup`, non-blocking), `None`
    /// where direct writes are not available or once the writer closed
    /// stdin (it drops this handle too, so the server reads EOF).
    #[cfg(unix)]
    fd: Option<std::os::fd::OwnedFd>,
    /// Messages handed to the writer task and not yet written by it.
    queued: usize,
}

impl WriteGate {
    pub(crate) fn new(stdin: &ChildStdin) -> Self {
        #[cfg(unix)]
        // Close-on-exec: a child started later must not inherit this
        // handle, or the pipe outlives `close` and the server never reads EOF.
        let fd = rustix::io::fcntl_dupfd_cloexec(stdin, 0)
            .and_then(|fd| rustix::io::ioctl_fionbio(&fd, true).map(|()| fd))
            .map_err(|e| tracing::debug!(error = %e, "no direct writes to stdin; the writer task writes everything"))
            .ok();
        #[cfg(not(unix))]
        let _ = stdin;
        WriteGate {
            state: Mutex::new(GateState {
                #[cfg(unix)]
                fd,
                queued: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes `body` and its `\n` now if `alone` (no other request in
    /// flight), nothing is queued and the pipe takes it; otherwise counts it
    /// as queued and returns what the writer task must write. A short write
    /// queues the rest, first in line: the queue is empty (nothing was
    /// queued) and the lock keeps it so until `push` is called by the caller
    /// under the same guard.
    fn route(
        &self,
        mut body: Body,
        alone: bool,
        push: impl FnOnce(Body) -> Result<(), Body>,
    ) -> Result<Route, Body> {
        let mut state = self.lock();
        #[cfg(unix)]
        if alone
            && state.queued == 0
            && let Some(fd) = &state.fd
        {
            let slices = [std::io::IoSlice::new(&body), std::io::IoSlice::new(b"\n")];
            let written = match rustix::io::writev(fd, &slices) {
                Ok(n) if n > body.len() => return Ok(Route::Done),
                Ok(n) => n,
                // Full pipe (EAGAIN) or a failure the writer task will meet
                // and report: it gets the whole message.
                Err(_) => 0,
            };
            state.queued += 1;
            body.advance(written);
            return match push(body) {
                Ok(()) => Ok(Route::Done),
                Err(rest) => {
                    state.queued -= 1;
                    Err(rest)
                }
            };
        }
        state.queued += 1;
        drop(state);
        let _ = push;
        Ok(Route::Queue(body))
    }

    /// The writer task wrote (or gave up on) one queued message; also
    /// undoes the count of a message that never reached the queue.
    fn done_one(&self) {
        self.done(1);
    }

    /// The writer task wrote (or gave up on) `n` queued messages.
    fn done(&self, n: usize) {
        let mut state = self.lock();
        state.queued = state.queued.saturating_sub(n);
    }

    /// The writer closed stdin: no more direct writes; the second handle is
    /// closed so the pipe is.
    fn close(&self) {
        #[cfg(unix)]
        {
            self.lock().fd = None;
        }
    }
}

#[async_trait]
impl Outbound for StdioOutbound {
    async fn send(
        &self,
        message: Outgoing,
        dispatcher: &Arc<Dispatcher>,
    ) -> Result<(), TransportError> {
        let closed = || closed_error(dispatcher);
        let alone = alone_in_flight(message.kind, dispatcher);
        let body = match self.gate.route(message.body, alone, |rest| {
            self.tx.try_send(rest).map_err(|e| e.into_inner())
        }) {
            Ok(Route::Done) => return Ok(()),
            Ok(Route::Queue(body)) => body,
            Err(_) => return Err(closed()),
        };
        let sent = match message.kind {
            // The request's own timeout bounds this wait.
            OutgoingKind::Request => self.tx.send(body).await.map_err(|_| closed()),
            OutgoingKind::Notification | OutgoingKind::Response => {
                match tokio::time::timeout(NOTIFY_TIMEOUT, self.tx.send(body)).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(_)) => Err(closed()),
                    Err(_) => Err(TransportError::timeout(
                        NOTIFY_TIMEOUT,
                        TimeoutPhase::Notify,
                    )),
                }
            }
        };
        if sent.is_err() {
            self.gate.done_one();
        }
        sent
    }

    /// A request written directly when it is alone in flight and nothing
    /// is queued, else queued when the writer queue has room: what `send`
    /// does, without its boxed future. A full queue hands it back.
    fn send_request_now(
        &self,
        mut message: Outgoing,
        dispatcher: &Dispatcher,
    ) -> Result<Result<(), TransportError>, Outgoing> {
        let alone = alone_in_flight(message.kind, dispatcher);
        let body = std::mem::take(&mut message.body);
        match self.gate.route(body, alone, |rest| {
            self.tx.try_send(rest).map_err(|e| e.into_inner())
        }) {
            Ok(Route::Done) => Ok(Ok(())),
            Ok(Route::Queue(body)) => match self.tx.try_send(body) {
                Ok(()) => Ok(Ok(())),
                Err(mpsc::error::TrySendError::Full(body)) => {
                    // Not queued after all: `send` counts it again.
                    self.gate.done_one();
                    message.body = body;
                    Err(message)
                }
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    self.gate.done_one();
                    Ok(Err(closed_error(dispatcher)))
                }
            },
            Err(_) => Ok(Err(closed_error(dispatcher))),
        }
    }

    /// Writes the message directly, or queues it when the writer queue has
    /// room (never waits).
    fn try_send_now(&self, message: Outgoing) -> Result<(), Outgoing> {
        let push = |rest: Body| self.tx.try_send(rest).map_err(|e| e.into_inner());
        // Called from `Drop`, without the dispatcher: written straight away
        // when nothing is queued, as a lone message would be.
        match self.gate.route(message.body.clone(), true, push) {
            Ok(Route::Done) => Ok(()),
            Ok(Route::Queue(body)) => match self.tx.try_send(body) {
                Ok(()) => Ok(()),
                Err(_) => {
                    self.gate.done_one();
                    Err(message)
                }
            },
            Err(_) => Err(message),
        }
    }
}

/// The error of a message that cannot reach the server's stdin any more.
fn closed_error(dispatcher: &Dispatcher) -> TransportError {
    TransportError::Closed(
        dispatcher
            .close_reason()
            .cloned()
            .unwrap_or_else(|| CloseReason::new("the server's stdin is closed")),
    )
}

/// `true` when a message of `kind` is the only one in flight: a request
/// is registered before it is sent, so it is alone when it is the one
/// pending request; anything else when none is pending.
fn alone_in_flight(kind: OutgoingKind, dispatcher: &Dispatcher) -> bool {
    let pending = dispatcher.pending_len();
    match kind {
        OutgoingKind::Request => pending <= 1,
        OutgoingKind::Notification | OutgoingKind::Response => pending == 0,
    }
}

/// The writer task: what is queued is written in order, each message with
/// its `\n`, gathered into one vectored write (up to [`BATCH_MESSAGES`]
/// messages or [`BATCH_BYTES`] bytes, whichever comes first), so messages
/// never interleave and many requests in flight cost one system call, not
/// one each. A stalled server blocks the queue (backpressure). Senders
/// write directly only while this queue is empty ([`WriteGate`]).
pub(crate) async fn write_loop(
    mut stdin: ChildStdin,
    mut rx: mpsc::Receiver<Body>,
    gate: Arc<WriteGate>,
    signals: Signals,
    label: Arc<str>,
) {
    let mut draining = false;
    let mut batch = Batch::default();
    loop {
        let first = tokio::select! {
            biased;
            _ = signals.writer_abort.cancelled() => break,
            _ = signals.writer_drain.cancelled(), if !draining => {
                draining = true;
                rx.close();
                continue;
            }
            body = rx.recv() => match body {
                Some(body) => body,
                None => break,
            },
        };
        batch.push(first);
        while !batch.is_full() {
            match rx.try_recv() {
                Ok(body) => batch.push(body),
                Err(_) => break,
            }
        }
        let messages = batch.messages;
        let written = tokio::select! {
            biased;
            _ = signals.writer_abort.cancelled() => break,
            r = batch.write_to(&mut stdin) => r,
        };
        gate.done(messages);
        if let Err(e) = written {
            tracing::debug!(server = %label, error = %e, "writing to the server's stdin failed; stdin closed");
            let _ = signals
                .stdin_error
                .set(format!("writing to it failed: {e}"));
            signals.stdin_failed.cancel();
            break;
        }
    }
    // Dropping stdin and the gate's handle closes the pipe: the server
    // reads EOF.
    gate.close();
    drop(stdin);
    rx.close();
}

/// At most this many messages go into one write of the writer task (two
/// slices each, well under the system's `IOV_MAX` of 1024).
const BATCH_MESSAGES: usize = 128;
/// A write of the writer task gathers no more messages once it holds this
/// many bytes (the pipe's default capacity): more would only wait longer.
const BATCH_BYTES: usize = 256 * 1024;

/// The slices of one vectored write: a full batch, each body and its `\n`.
const SLICES: usize = 2 * BATCH_MESSAGES;

/// The slices of a small batch: four messages.
const FEW_SLICES: usize = 8;

/// One vectored write of the first `N` of `parts` (all of them when they
/// fit), from an array of `N` slices on the stack.
fn poll_write_parts<const N: usize>(
    stdin: &mut ChildStdin,
    cx: &mut std::task::Context<'_>,
    parts: &std::collections::VecDeque<Body>,
) -> std::task::Poll<std::io::Result<usize>> {
    let mut slices = [std::io::IoSlice::new(&[]); N];
    let mut len = 0;
    for (slot, part) in slices.iter_mut().zip(parts) {
        *slot = std::io::IoSlice::new(part);
        len += 1;
    }
    Pin::new(stdin).poll_write_vectored(cx, &slices[..len])
}

/// Messages gathered for one vectored write: each body and its `\n`, as
/// slices in order; written ones are dropped from the front.
#[derive(Default)]
struct Batch {
    /// Bodies and newlines, in order.
    parts: std::collections::VecDeque<Body>,
    /// Bytes in `parts`.
    bytes: usize,
    /// Messages in `parts`.
    messages: usize,
}

impl Batch {
    fn push(&mut self, body: Body) {
        self.bytes += body.len() + 1;
        self.messages += 1;
        self.parts.push_back(body);
        self.parts.push_back(Body::from(&b"\n"[..]));
    }

    fn is_full(&self) -> bool {
        self.messages >= BATCH_MESSAGES || self.bytes >= BATCH_BYTES
    }

    /// Writes every part, in as few vectored writes as the pipe allows;
    /// the batch is empty afterwards, also on error.
    async fn write_to(&mut self, stdin: &mut ChildStdin) -> std::io::Result<()> {
        let result = self.write_all(stdin).await;
        self.parts.clear();
        self.bytes = 0;
        self.messages = 0;
        result
    }

    async fn write_all(&mut self, stdin: &mut ChildStdin) -> std::io::Result<()> {
        while !self.parts.is_empty() {
            // The slices are built on the stack at each poll, not kept in
            // the task (4 KiB more per connection) nor in a `Vec` (an
            // allocation per write).
            let parts = &self.parts;
            let mut n = std::future::poll_fn(|cx| {
                // A batch of a few messages fills a small array: the full
                // one is 4 KiB to clear at every write.
                if parts.len() <= FEW_SLICES {
                    poll_write_parts::<FEW_SLICES>(stdin, cx, parts)
                } else {
                    poll_write_parts::<SLICES>(stdin, cx, parts)
                }
            })
            .await?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            while n > 0 {
                let Some(front) = self.parts.front_mut() else {
                    break;
                };
                if n >= front.len() {
                    n -= front.len();
                    self.parts.pop_front();
                } else {
                    front.advance(n);
                    n = 0;
                }
            }
        }
        Ok(())
    }
}
