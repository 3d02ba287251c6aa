//! [`StdioTransport`]: the process lifecycle and the stdout reader; the way
//! to the server's stdin (the `Outbound` and the writer task) is in
//! `outbound.rs`. Correlation, timeouts and cancellation are the shared
//! [`Dispatcher`]'s.

use std::fmt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mcp_transport::{
    CloseReason, Dispatcher, RequestOptions, Transport, TransportError, TransportEvents,
};
use mcp_types::RawParams;
use mcp_types::{ProtocolVersion, RawResult};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

use crate::config::{SIGTERM_GRACE, StdioConfig, WRITE_QUEUE};
use crate::framing::{Frame, LineFramer, preview, sniff_id};
use crate::outbound::{StdioOutbound, WriteGate, write_loop};
use crate::process::{GroupSignal, group_alive, resolve_command, signal_group, spawn_error};
use crate::signals::Signals;
use crate::stderr::{TailRing, drain};

/// How long, once the server exited, the transport waits for the rest of its
/// stdout and stderr before failing pending requests: 500 ms.
const DRAIN_WAIT: Duration = Duration::from_millis(500);

/// An MCP connection to a server running as a child process, exchanging
/// newline-delimited JSON-RPC over its stdin/stdout (spec:
/// `basic/transports` § stdio). See the [crate docs](crate) for the shutdown
/// sequence, the limits and cancel safety.
pub struct StdioTransport {
    dispatcher: Arc<Dispatcher>,
    pid: Option<u32>,
    label: Arc<str>,
    tail: Arc<Mutex<TailRing>>,
    signals: Signals,
}

impl fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioTransport")
            .field("label", &self.label)
            .field("pid", &self.pid)
            .field("connected", &self.dispatcher.is_open())
            .finish()
    }
}

impl StdioTransport {
    /// Starts the server and connects to it (spec: `basic/transports` §
    /// stdio; the MCP handshake is the caller's). Must run inside a tokio
    /// runtime with I/O, time and signal drivers enabled.
    ///
    /// The command is looked up in the merged environment's `PATH`; `env` is
    /// merged over the parent's environment (or alone with `clean_env`).
    /// stdin and stdout are piped; stderr is piped and drained from now on.
    /// On Unix the server leads a new process group.
    ///
    /// Errors: [`TransportError::Spawn`] (naming the command and the `PATH`
    /// searched) when it cannot be found or started; [`TransportError::Io`]
    /// when its pipes are missing.
    pub async fn spawn(config: StdioConfig) -> Result<Self, TransportError> {
        let search_path = config.search_path();
        let program = resolve_command(&config.command, &search_path, config.cwd.as_deref())?;
        let mut cmd = Command::new(&program);
        cmd.args(&config.args);
        if config.clean_env {
            cmd.env_clear();
        }
        cmd.envs(config.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if let Some(cwd) = &config.cwd {
            cmd.current_dir(cwd);
        }
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| spawn_error(&config.command, &search_path, e))?;
        let pid = child.id();
        let label: Arc<str> = config.label.as_str().into();
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        if let (Some(stdin), Some(stdout)) = (&pipes.0, &pipes.1) {
            grow_pipes(stdin, stdout, config.pipe_capacity, &label);
        }
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            // Cannot happen with piped stdio; end the child rather than leak it.
            if let Some(pid) = pid {
                signal_group(pid, GroupSignal::Kill);
            }
            let _ = child.kill().await;
            return Err(TransportError::Io(Arc::new(std::io::Error::other(
                "the child's stdio pipes are missing",
            ))));
        };
        tracing::debug!(server = %label, ?pid, program = %program.display(), "stdio server started");

        let signals = Signals::default();
        let tail = Arc::new(Mutex::new(TailRing::new(config.stderr_tail_bytes)));
        let (tx, rx) = mpsc::channel(WRITE_QUEUE);
        let gate = Arc::new(WriteGate::new(&stdin));
        let dispatcher = Dispatcher::new(
            Arc::new(StdioOutbound {
                tx,
                gate: gate.clone(),
            }),
            config.label.clone(),
        );

        let stderr_task = {
            let (label, tail, cb, done) = (
                label.clone(),
                tail.clone(),
                config.on_stderr.clone(),
                signals.stderr_done.clone(),
            );
            async move {
                drain(stderr, label, tail, cb).await;
                done.cancel();
            }
        };
        tokio::spawn(stderr_task);
        #[cfg(unix)]
        match rustix::io::fcntl_dupfd_cloexec(&stdin, 0) {
            Ok(fd) => {
                tokio::spawn(watch_stdin(fd, signals.clone(), label.clone()));
            }
            Err(e) => {
                tracing::debug!(server = %label, error = %e, "stdin not watched; a closed stdin shows at the next write")
            }
        }
        let writer = tokio::spawn(write_loop(stdin, rx, gate, signals.clone(), label.clone()));
        tokio::spawn(read_loop(
            stdout,
            dispatcher.clone(),
            config.max_line_bytes,
            signals.clone(),
            label.clone(),
        ));
        tokio::spawn(supervise(
            child,
            Supervisor {
                pid,
                dispatcher: dispatcher.clone(),
                signals: signals.clone(),
                tail: tail.clone(),
                grace: config.shutdown_grace,
                writer,
                label: label.clone(),
            },
        ));
        Ok(StdioTransport {
            dispatcher,
            pid,
            label,
            tail,
            signals,
        })
    }

    /// The server's process id (and process-group id on Unix), while known.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The label naming this server in logs.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The last bytes the server wrote to stderr (at most
    /// `stderr_tail_bytes`), lossily decoded.
    pub fn stderr_tail(&self) -> Option<String> {
        self.tail.lock().unwrap_or_else(|p| p.into_inner()).text()
    }

    /// Why the connection closed, once it has.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.dispatcher.close_reason().cloned()
    }

    /// Ends the server now, skipping the shutdown sequence: SIGKILL to its
    /// process group at once (no stdin close, no grace, no SIGTERM), for a
    /// caller that will not wait, such as a user pressing Ctrl-C a second
    /// time. Every pending request fails with `Closed("killed by the
    /// client")` (unless the connection had already closed); the supervisor
    /// then reaps the server, and [`wait_finished`](Self::wait_finished)
    /// resolves. Also ends a [`close`](Transport::close) already waiting out
    /// its grace. Does nothing once the server has been reaped.
    pub fn kill(&self) {
        if self.signals.finished.is_cancelled() {
            return;
        }
        if let Some(pid) = self.pid {
            tracing::debug!(server = %self.label, pgid = pid, "killing the server's process group");
            signal_group(pid, GroupSignal::Kill);
        }
        self.dispatcher
            .close(CloseReason::new("killed by the client"));
        self.signals.stop.cancel();
        self.signals.writer_abort.cancel();
    }

    /// Waits until the server process is reaped and its process group is
    /// gone (after [`close`](Transport::close), or after it exited by itself).
    pub async fn wait_finished(&self) {
        self.signals.finished.cancelled().await;
    }
}

#[async_trait]
impl Transport for StdioTransport {
    async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        self.dispatcher.request(method, params, options).await
    }

    async fn request_raw(
        &self,
        method: &str,
        params: RawParams,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        self.dispatcher.request_raw(method, params, options).await
    }

    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError> {
        self.dispatcher.notify(method, params).await
    }

    fn dispatcher(&self) -> Option<&Arc<Dispatcher>> {
        Some(&self.dispatcher)
    }

    /// Fails pending requests with `Closed("closed by the client")`, then
    /// runs the shutdown sequence and returns once the server is reaped.
    async fn close(&self) -> Result<(), TransportError> {
        self.dispatcher
            .close(CloseReason::new("closed by the client"));
        self.signals.stop.cancel();
        self.signals.finished.cancelled().await;
        Ok(())
    }

    fn is_connected(&self) -> bool {
        self.dispatcher.is_open()
    }
    fn wire_kind(&self) -> Option<&'static str> {
        Some("stdio")
    }

    fn take_events(&self) -> Option<TransportEvents> {
        self.dispatcher.take_events()
    }

    fn set_protocol_version(&self, version: ProtocolVersion) {
        self.dispatcher.set_protocol_version(version);
    }

    /// No HTTP, so no request-metadata headers.
    fn sends_metadata_headers(&self) -> bool {
        false
    }

    /// stdio has no sessions.
    fn session_id(&self) -> Option<String> {
        None
    }

    fn set_wire_tap(&self, tap: Arc<dyn mcp_transport::WireTap>) -> bool {
        self.dispatcher.set_wire_tap(tap)
    }

    fn redact<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        self.dispatcher.redact(text)
    }

    fn pending_requests(&self) -> usize {
        self.dispatcher.pending_len()
    }
}

impl Drop for StdioTransport {
    /// Without `close()`: SIGKILL to the process group now (no runtime
    /// needed), pending requests fail with `Closed`; the supervisor task (or
    /// tokio's orphan reaper, if the runtime is gone) reaps the child.
    fn drop(&mut self) {
        if self.signals.finished.is_cancelled() {
            return;
        }
        if let Some(pid) = self.pid {
            signal_group(pid, GroupSignal::Kill);
        }
        self.dispatcher
            .close(CloseReason::new("transport dropped without close()"));
        self.signals.stop.cancel();
        self.signals.writer_abort.cancel();
    }
}

/// Notices when no process reads the server's stdin any more (the server
/// closed it, or exited): the kernel flags the write end of a pipe with an
/// error once its last reader is gone. A failed write tells the same, but
/// not always: a write can still land in the pipe's buffer while a child
/// being started by another thread of this process holds a copy of the read
/// end (fork copies every descriptor; close-on-exec drops it only at exec).
/// Nothing more is written after such a request, so only this watch ends the
/// connection then. Ends with the writer (its handle must not keep the pipe
/// open once the writer closes stdin, or the server never reads EOF).
#[cfg(unix)]
async fn watch_stdin(fd: std::os::fd::OwnedFd, signals: Signals, label: Arc<str>) {
    use tokio::io::Interest;
    let pipe = match tokio::net::unix::pipe::Sender::from_owned_fd(fd) {
        Ok(pipe) => pipe,
        Err(e) => {
            tracing::debug!(server = %label, error = %e, "stdin not watched; a closed stdin shows at the next write");
            return;
        }
    };
    let reader_gone = async {
        loop {
            match pipe.ready(Interest::ERROR).await {
                Ok(ready) if ready.is_error() => return true,
                Ok(_) => continue,
                Err(e) => {
                    tracing::debug!(server = %label, error = %e, "watching stdin failed");
                    return false;
                }
            }
        }
    };
    tokio::select! {
        biased;
        _ = signals.stop.cancelled() => {}
        _ = signals.writer_drain.cancelled() => {}
        _ = signals.writer_abort.cancelled() => {}
        _ = signals.stdin_failed.cancelled() => {}
        true = reader_gone => {
            tracing::debug!(server = %label, "no process reads the server's stdin any more");
            let _ = signals.stdin_error.set("nothing reads it any more".into());
            signals.stdin_failed.cancel();
        }
    }
}

/// Reads stdout, frames it, and hands each message to the dispatcher.
/// Raises the capacity of the child's stdin and stdout pipes to `bytes`
/// (Linux `F_SETPIPE_SZ`), best effort: where the system refuses
/// (`/proc/sys/fs/pipe-max-size`, the per-user pipe budget) a pipe keeps
/// its size, logged at debug.
fn grow_pipes(stdin: &ChildStdin, stdout: &ChildStdout, bytes: usize, label: &str) {
    if bytes == 0 {
        return;
    }
    #[cfg(target_os = "linux")]
    for (name, result) in [
        ("stdin", rustix::pipe::fcntl_setpipe_size(stdin, bytes)),
        ("stdout", rustix::pipe::fcntl_setpipe_size(stdout, bytes)),
    ] {
        if let Err(e) = result {
            tracing::debug!(server = %label, pipe = name, error = %e, "pipe capacity not raised");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (stdin, stdout, label);
}

async fn read_loop(
    mut stdout: ChildStdout,
    dispatcher: Arc<Dispatcher>,
    max_line_bytes: usize,
    signals: Signals,
    label: Arc<str>,
) {
    let mut framer =
        LineFramer::new(max_line_bytes).with_source(format!("the stdout of stdio server {label}"));
    loop {
        // Read straight into the framer's buffer: lines reach the
        // dispatcher as slices of it, without a copy.
        let read = tokio::select! {
            biased;
            _ = signals.finished.cancelled() => break,
            r = stdout.read_buf(framer.read_buffer()) => r,
        };
        match read {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                tracing::debug!(server = %label, error = %e, "reading the server's stdout failed");
                break;
            }
        }
        while let Some(frame) = framer.next_frame() {
            handle_frame(&dispatcher, frame, &label).await;
        }
    }
    let mut frames = Vec::new();
    framer.finish(&mut frames);
    for frame in frames {
        handle_frame(&dispatcher, frame, &label).await;
    }
    signals.stdout_done.cancel();
}

async fn handle_frame(dispatcher: &Arc<Dispatcher>, frame: Frame, label: &str) {
    match frame {
        Frame::Line(line) => dispatcher.handle_frame(line).await,
        Frame::TooLong { prefix, limit } => {
            let preview = preview(&prefix);
            match sniff_id(&prefix) {
                Some(id)
                    if dispatcher.fail_request(&id, TransportError::message_too_large(limit)) =>
                {
                    tracing::warn!(server = %label, %id, limit, %preview, "response over the line limit discarded; its request fails");
                }
                _ => {
                    tracing::warn!(server = %label, limit, %preview, "line over the limit discarded");
                }
            }
        }
    }
}

struct Supervisor {
    pid: Option<u32>,
    dispatcher: Arc<Dispatcher>,
    signals: Signals,
    tail: Arc<Mutex<TailRing>>,
    grace: Duration,
    writer: tokio::task::JoinHandle<()>,
    label: Arc<str>,
}

impl Supervisor {
    fn tail(&self) -> Option<String> {
        self.tail.lock().unwrap_or_else(|p| p.into_inner()).text()
    }

    /// Closes the dispatcher because the server went away by itself.
    async fn server_gone(&self, status: Option<ExitStatus>) {
        // Let the reader deliver what the server wrote before it went, and
        // the stderr drain catch its last words.
        let _ = tokio::time::timeout(DRAIN_WAIT, self.signals.stdout_done.cancelled()).await;
        let _ = tokio::time::timeout(DRAIN_WAIT, self.signals.stderr_done.cancelled()).await;
        let reason = CloseReason {
            message: if status.is_some() {
                "server exited".into()
            } else {
                "server closed its stdout".into()
            },
            exit_status: status.map(|s| s.to_string()),
            stderr_tail: self.tail(),
        };
        tracing::info!(server = %self.label, %reason, "stdio server connection ended");
        self.dispatcher.close(reason);
    }

    /// The server closed its stdin but is still running: nothing can be
    /// sent to it, so the connection ends (every pending request fails now
    /// instead of at its timeout) and the server is shut down.
    fn stdin_gone(&self) {
        let error = self
            .signals
            .stdin_error
            .get()
            .map_or("closed", String::as_str);
        let reason = CloseReason {
            message: format!("the server closed its stdin ({error})"),
            exit_status: None,
            stderr_tail: self.tail(),
        };
        tracing::warn!(server = %self.label, %reason, "stdio server connection ended");
        self.dispatcher.close(reason);
    }
}

/// Owns the child: notices when it goes away by itself, and runs the
/// shutdown sequence (see the crate docs) exactly once.
async fn supervise(mut child: Child, mut sup: Supervisor) {
    enum Why {
        Stop,
        Exited(Option<ExitStatus>),
        StdoutEnded,
        StdinFailed,
    }
    let why = tokio::select! {
        biased;
        _ = sup.signals.stop.cancelled() => Why::Stop,
        status = child.wait() => Why::Exited(status.ok()),
        _ = sup.signals.stdout_done.cancelled() => Why::StdoutEnded,
        _ = sup.signals.stdin_failed.cancelled() => Why::StdinFailed,
    };
    let mut exited = false;
    match why {
        Why::Stop => {}
        Why::Exited(status) => {
            exited = true;
            sup.server_gone(status).await;
        }
        Why::StdoutEnded => {
            // Usually the server is exiting: give it a moment, for its status.
            let status = match tokio::time::timeout(DRAIN_WAIT, child.wait()).await {
                Ok(Ok(status)) => {
                    exited = true;
                    Some(status)
                }
                _ => None,
            };
            sup.server_gone(status).await;
        }
        Why::StdinFailed => {
            // Usually the server is exiting (then its status and last
            // words tell more); otherwise it closed stdin and runs on.
            match tokio::time::timeout(DRAIN_WAIT, child.wait()).await {
                Ok(Ok(status)) => {
                    exited = true;
                    sup.server_gone(Some(status)).await;
                }
                _ => sup.stdin_gone(),
            }
        }
    }
    shutdown(&mut child, exited, &mut sup).await;
    sup.signals.finished.cancel();
}

/// Close stdin; wait `grace`; SIGTERM the group; wait up to
/// [`SIGTERM_GRACE`]; SIGKILL the group; reap the child.
async fn shutdown(child: &mut Child, mut exited: bool, sup: &mut Supervisor) {
    sup.signals.writer_drain.cancel();
    if !exited {
        exited = tokio::time::timeout(sup.grace, child.wait()).await.is_ok();
    }
    sup.signals.writer_abort.cancel();
    // Make sure the writer let go of stdin.
    let _ = tokio::time::timeout(DRAIN_WAIT, &mut sup.writer).await;
    let Some(pgid) = sup.pid else {
        return;
    };
    if !exited || group_alive(pgid) {
        tracing::debug!(server = %sup.label, pgid, "sending SIGTERM to the server's process group");
        signal_group(pgid, GroupSignal::Term);
        let deadline = tokio::time::Instant::now() + SIGTERM_GRACE;
        loop {
            if !exited {
                exited = matches!(child.try_wait(), Ok(Some(_)));
            }
            if exited && !group_alive(pgid) {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::debug!(server = %sup.label, pgid, "sending SIGKILL to the server's process group");
                signal_group(pgid, GroupSignal::Kill);
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    if !exited {
        let _ = child.start_kill();
        if let Err(e) = child.wait().await {
            tracing::warn!(server = %sup.label, error = %e, "could not reap the server process");
        }
    }
}
