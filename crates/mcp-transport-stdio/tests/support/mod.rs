//! Shared helpers for the stdio integration tests.
//!
//! # Finding the fake server
//! `CARGO_BIN_EXE_*` only exists for binaries of the package under test, and
//! the fake lives in its own crate (`tests/fake-stdio-server`) to keep this
//! library clean. So the first test of each test binary builds it once with
//! the same `cargo` (`env!("CARGO")`), into `<target>/fake-stdio-server/`
//! — a target dir of its own, because the outer `cargo test` holds the lock
//! of the main one while tests run. `<target>` is found from the test
//! executable's path (`<target>/<profile>/deps/<test>`). Set
//! `FAKE_STDIO_SERVER=/path/to/fake-stdio-server` to use a prebuilt binary.
#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use mcp_transport::{RequestOptions, Transport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use serde_json::{Value, json};

// These tests give every wait its own limit: `eventually(limit, cond)`.
#[allow(unused_imports)] // each test file uses a subset
pub(crate) use mcp_tests::{eventually_within as eventually, temp_path};

/// The fake server binary, built on first use.
pub(crate) fn fake_server() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(p) = std::env::var_os("FAKE_STDIO_SERVER") {
            return PathBuf::from(p);
        }
        let exe = std::env::current_exe().expect("current_exe");
        // <target>/<profile>/deps/<test-exe>
        let target = exe
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .expect("test executable is under <target>/<profile>/deps");
        let own_target = target.join("fake-stdio-server");
        let manifest =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fake-stdio-server/Cargo.toml");
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "-p",
                "fake-stdio-server",
                "--manifest-path",
            ])
            .arg(&manifest)
            .env("CARGO_TARGET_DIR", &own_target)
            .status()
            .expect("run cargo build for fake-stdio-server");
        assert!(status.success(), "building fake-stdio-server failed");
        let bin = own_target.join("debug").join("fake-stdio-server");
        assert!(bin.is_file(), "{} missing after build", bin.display());
        bin
    })
    .clone()
}

/// A config running the fake with `args`, a short grace period and a label.
pub(crate) fn fake(args: &[&str]) -> StdioConfig {
    StdioConfig::new(fake_server().display().to_string())
        .with_args(args.iter().copied())
        .with_shutdown_grace(Duration::from_millis(500))
        .with_label("fake")
}

/// Options with a timeout in ms.
pub(crate) fn within(ms: u64) -> RequestOptions {
    RequestOptions::default().with_timeout(Duration::from_millis(ms))
}

/// Sends a `script` request running `steps`.
pub(crate) async fn script(
    t: &StdioTransport,
    steps: Value,
    options: RequestOptions,
) -> Result<Value, mcp_transport::TransportError> {
    t.request("script", Some(&json!({ "steps": steps })), options)
        .await
        .map(|r| r.to_value().expect("the result is JSON"))
}

/// `ping` within 5 000 ms; panics unless it answers with JSON. Proves the
/// connection still works.
pub(crate) async fn ping(t: &StdioTransport) -> Value {
    t.request("ping", None, within(5_000))
        .await
        .expect("ping answered")
        .to_value()
        .expect("the result is JSON")
}

/// Reads the fake's recorded stdin: one JSON value per line.
pub(crate) fn recorded(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("the client wrote a JSON line"))
        .collect()
}

/// The state letter of `pid` from /proc (`R`, `S`, `Z`, …), or `None` when
/// no such process exists.
pub(crate) fn proc_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ..." — comm may contain spaces: take what follows the last ')'.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// Reads a pid written by the fake's `--pid-file`/`--grandchild`, waiting for it.
pub(crate) async fn read_pid(path: &Path) -> u32 {
    let mut pid = None;
    eventually(Duration::from_secs(10), || {
        pid = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.lines().next().and_then(|l| l.trim().parse().ok()));
        pid.is_some()
    })
    .await;
    pid.unwrap_or_else(|| panic!("no pid in {}", path.display()))
}

/// `initialize` with protocolVersion 2025-06-18.
pub(crate) async fn initialize(t: &StdioTransport) -> Value {
    t.request(
        "initialize",
        Some(&json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "stdio-tests", "version": "0"}
        })),
        within(10_000),
    )
    .await
    .expect("initialize")
    .to_value()
    .expect("the result is JSON")
}
