//! How to start a stdio MCP server: [`StdioConfig`].

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Default maximum length of one line (message) from the server: 64 MiB
/// (67 108 864 bytes, excluding the line end), above the 16 MiB lines real
/// servers send (large resources and
/// images inline) with room for their JSON.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Default capacity asked for the child's stdin and stdout pipes: 256 KiB
/// (see [`StdioConfig::pipe_capacity`]).
pub const DEFAULT_PIPE_CAPACITY: usize = 256 * 1024;

/// Default time the server gets to exit after its stdin is closed, before
/// SIGTERM: 2 000 ms.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_millis(2_000);

/// Time the server gets after SIGTERM before SIGKILL: 1 000 ms.
pub const SIGTERM_GRACE: Duration = Duration::from_millis(1_000);

/// Default size of the stderr tail kept for the close reason: 8 KiB
/// (8 192 bytes).
pub(crate) const DEFAULT_STDERR_TAIL_BYTES: usize = 8 * 1024;

/// Longest stderr line handed to `tracing` and the callback: 4 KiB (4 096
/// bytes); the rest of a longer (or unterminated) line is dropped.
pub const STDERR_LINE_MAX: usize = 4 * 1024;

/// Capacity of the outgoing queue, in messages: 256. When the server stops
/// reading its stdin, senders wait (backpressure) instead of growing memory.
pub const WRITE_QUEUE: usize = 256;

/// Longest a notification or a response waits for room in the outgoing
/// queue: 30 000 ms, then [`TransportError::Timeout`] with phase `Notify`.
///
/// [`TransportError::Timeout`]: mcp_transport::TransportError::Timeout
pub const NOTIFY_TIMEOUT: Duration = Duration::from_millis(30_000);

/// A callback receiving each stderr line of the server (without its line
/// end, lossily decoded, at most [`STDERR_LINE_MAX`] bytes).
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// How to start a stdio MCP server (spec: `basic/transports` § stdio).
///
/// ```
/// use std::time::Duration;
/// use mcp_transport_stdio::StdioConfig;
/// let config = StdioConfig::new("npx")
///     .with_args(["-y", "@modelcontextprotocol/server-everything"])
///     .with_env("API_KEY", "x")
///     .with_shutdown_grace(Duration::from_millis(500))
///     .with_label("everything");
/// assert_eq!(config.max_line_bytes, 64 * 1024 * 1024);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct StdioConfig {
    /// The program: a name looked up in the (merged) `PATH`, or a path.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for the server, merged over the parent's environment
    /// (so `PATH` and the rest are inherited), unless `clean_env`.
    pub env: Vec<(String, String)>,
    /// Start from an empty environment: the server sees only `env`.
    pub clean_env: bool,
    /// The working directory; default: the parent's.
    pub cwd: Option<PathBuf>,
    /// Maximum length of one line from the server, in bytes (default
    /// [`DEFAULT_MAX_LINE_BYTES`], 64 MiB).
    pub max_line_bytes: usize,
    /// Capacity asked for the stdin and stdout pipes, in bytes (default
    /// [`DEFAULT_PIPE_CAPACITY`], 256 KiB; Linux only, best effort; `0`
    /// keeps the system default, 64 KiB on Linux). A message that fits
    /// crosses the pipe in one write and one read; with the default pipe a
    /// 100 KiB response makes the server block until the client has read
    /// the first 64 KiB, one more wake-up each way. Each pipe counts
    /// against the user's pipe budget (`/proc/sys/fs/pipe-user-pages-soft`,
    /// 64 MiB by default), so 256 KiB × 2 leaves room for about 128
    /// servers.
    pub pipe_capacity: usize,
    /// Time the server gets to exit after stdin is closed, before SIGTERM
    /// (default [`DEFAULT_SHUTDOWN_GRACE`], 2 000 ms).
    pub shutdown_grace: Duration,
    /// Bytes of stderr kept for the close reason (default
    /// 8 KiB, 8 192 bytes).
    pub stderr_tail_bytes: usize,
    /// Receives each stderr line, besides `tracing`.
    pub on_stderr: Option<StderrCallback>,
    /// Names the server in logs (field `server`); default: the command.
    pub label: String,
}

impl fmt::Debug for StdioConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Values of `env` may be secrets: only the names are shown.
        let env_names: Vec<&str> = self.env.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("StdioConfig")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &env_names)
            .field("clean_env", &self.clean_env)
            .field("cwd", &self.cwd)
            .field("max_line_bytes", &self.max_line_bytes)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("stderr_tail_bytes", &self.stderr_tail_bytes)
            .field("on_stderr", &self.on_stderr.is_some())
            .field("label", &self.label)
            .finish()
    }
}

impl StdioConfig {
    /// A config running `command` with no arguments and the defaults.
    pub fn new(command: impl Into<String>) -> Self {
        let command = command.into();
        StdioConfig {
            label: command.clone(),
            command,
            args: Vec::new(),
            env: Vec::new(),
            clean_env: false,
            cwd: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            pipe_capacity: DEFAULT_PIPE_CAPACITY,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            stderr_tail_bytes: DEFAULT_STDERR_TAIL_BYTES,
            on_stderr: None,
        }
    }

    /// Appends one argument.
    pub fn with_arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets one environment variable for the server (merged over the parent's).
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Gives the server only the variables set with [`with_env`](Self::with_env).
    pub fn with_clean_env(mut self, clean: bool) -> Self {
        self.clean_env = clean;
        self
    }

    /// Sets the working directory.
    pub fn with_cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets the maximum line length, in bytes.
    pub fn with_max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// Sets [`StdioConfig::pipe_capacity`], in bytes (`0`: system default).
    pub fn with_pipe_capacity(mut self, bytes: usize) -> Self {
        self.pipe_capacity = bytes;
        self
    }

    /// Sets the grace period between closing stdin and SIGTERM.
    pub fn with_shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Sets how many bytes of stderr are kept for the close reason.
    pub fn with_stderr_tail_bytes(mut self, bytes: usize) -> Self {
        self.stderr_tail_bytes = bytes;
        self
    }

    /// Sets a callback receiving each stderr line.
    pub fn with_on_stderr(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_stderr = Some(Arc::new(callback));
        self
    }

    /// Sets the label naming the server in logs.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// The `PATH` the command is looked up in: `env`'s last `PATH`, else
    /// the parent's (none with `clean_env`).
    pub fn search_path(&self) -> std::ffi::OsString {
        match self.env.iter().rev().find(|(k, _)| k == "PATH") {
            Some((_, v)) => v.into(),
            None if self.clean_env => std::ffi::OsString::new(),
            None => std::env::var_os("PATH").unwrap_or_default(),
        }
    }
}
