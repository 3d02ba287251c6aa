//! `mcp --socket`: a call over a socket to the demo server served with
//! `mcp serve-demo --listen`, on 127.0.0.1 and on a Unix-domain socket in
//! the test's temp dir.
#![allow(
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use support::{mcp_in, temp_dir};

/// A demo server listening on `address`; killed (and reaped) when dropped.
struct Listening {
    child: Child,
    /// Where it listens, as it said on its first line.
    address: String,
}

impl Listening {
    fn start(dir: &Path, address: &str) -> Listening {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(["serve-demo", "--listen", address])
            .current_dir(dir)
            .env("HOME", dir)
            .env("XDG_CACHE_HOME", dir.join(".cache"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp serve-demo --listen");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout piped"))
            .read_line(&mut first)
            .expect("read the first line");
        let address = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        Listening { child, address }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_tool_is_called_over_tcp_on_127_0_0_1() {
    let dir = temp_dir("socket-tcp");
    let server = Listening::start(&dir, "127.0.0.1:0");
    // A TCP listener on the port the system picked, not a file named so.
    assert!(
        server.address.starts_with("127.0.0.1:") && !server.address.ends_with(":0"),
        "{}",
        server.address
    );
    assert!(!dir.join("127.0.0.1:0").exists());
    let run = mcp_in(
        &dir,
        &["--socket", &server.address, "call", "add", "a=2", "b=3"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "5\n");
    // A second client on the same listener.
    let run = mcp_in(&dir, &["--socket", &server.address, "servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("connected"), "{run:?}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_tool_is_called_over_a_unix_socket() {
    let dir = temp_dir("socket-unix");
    let path = dir.join("demo.sock");
    let server = Listening::start(&dir, path.to_str().unwrap());
    let run = mcp_in(
        &dir,
        &["--socket", &server.address, "call", "echo", "message=hi"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "hi\n");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_demo_server_listens_on_loopback_only() {
    let dir = temp_dir("socket-any");
    let run = mcp_in(&dir, &["serve-demo", "--listen", "0.0.0.0:0"]);
    assert_ne!(run.code, Some(0), "{run:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unreachable_socket_fails_naming_it() {
    let dir = temp_dir("socket-none");
    let missing = dir.join("nobody.sock");
    let run = mcp_in(&dir, &["--socket", missing.to_str().unwrap(), "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("nobody.sock"), "{run:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
