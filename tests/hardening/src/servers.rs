//! Starting the real server processes the runs talk to: the bench server
//! over stdio or Streamable HTTP (JSON or SSE replies), and this binary's
//! own HTTP fault server (`mcp-harden serve-faults`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};
use mcp_transport_stdio::{StdioConfig, StdioTransport};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The bench server: `--server PATH`, else the `bench-server` built beside
/// this binary.
pub(crate) fn bench_server(explicit: Option<&str>) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let path = exe.with_file_name("bench-server");
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "no bench server at {} (build it: cargo build -p mcp-hardening)",
            path.display()
        ))
    }
}

/// The bench server over stdio.
pub(crate) async fn stdio(server: &Path, extra: &[&str]) -> Result<StdioTransport, String> {
    let path = server.to_string_lossy().into_owned();
    let config = StdioConfig::new(path)
        .with_args(["stdio", "--tools", "1"])
        .with_args(extra.iter().copied());
    StdioTransport::spawn(config)
        .await
        .map_err(|e| format!("spawn the bench server: {e}"))
}

/// An HTTP server process and its URL; killed when dropped.
#[derive(Debug)]
pub(crate) struct HttpServer {
    /// Held so the process lives as long as this (killed on drop).
    _child: Child,
    pub(crate) url: String,
}

impl HttpServer {
    /// Starts `program args…`, which must print `listening on URL` on
    /// stderr (the bench server and `serve-faults` do).
    pub(crate) async fn start(program: &Path, args: &[&str]) -> Result<HttpServer, String> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("start {}: {e}", program.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let mut lines = BufReader::new(stderr).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some((_, url)) = line.split_once("listening on ") {
                    return Some(url.trim().to_string());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(|| format!("{} did not say where it listens", program.display()))?;
        // Keep draining stderr so the server never blocks on it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(HttpServer { _child: child, url })
    }

    /// The bench server over HTTP, SSE replies when `sse`.
    pub(crate) async fn bench(server: &Path, sse: bool) -> Result<HttpServer, String> {
        let mut args = vec!["http", "--port", "0", "--tools", "1"];
        if sse {
            args.push("--sse");
        }
        HttpServer::start(server, &args).await
    }

    /// A Streamable HTTP transport to this server.
    pub(crate) async fn connect(
        &self,
        config: impl FnOnce(HttpConfig) -> HttpConfig,
    ) -> Result<HttpTransport, String> {
        HttpTransport::connect(
            config(HttpConfig::new(self.url.clone())),
            HttpMode::Streamable,
        )
        .await
        .map_err(|e| format!("connect to {}: {e}", self.url))
    }
}
