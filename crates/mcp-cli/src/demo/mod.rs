//! The built-in demo MCP server, `mcp serve-demo`: a real server over stdio
//! (newline-delimited JSON-RPC on stdin/stdout, logs on stderr only), built
//! on `mcp-types`. With `--listen` it serves the same lines on a socket
//! instead (a loopback TCP port or a Unix-domain socket), each connection a
//! client of its own, for `mcp --socket` and the socket transport's tests.
//!
//! It answers `initialize` (the client's revision when it has a handshake,
//! else 2025-11-25), `ping`, `tools/list`, `tools/call`, `resources/list`,
//! `resources/read`, `prompts/list`, `prompts/get`, `completion/complete`
//! and `logging/setLevel`, and honours `notifications/cancelled`.
//! Tools: `echo`, `add`, `countdown` (progress), `fail` (`isError`),
//! `ask_name` (elicitation). Resource `demo://readme`, prompt `greet`.

mod catalog;
mod framing;
mod host;
mod params;
mod server;
mod tools;

#[cfg(test)]
mod tests;

use std::time::Duration;

use mcp_transport_socket::SocketAddress;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

pub(crate) use framing::DEFAULT_MAX_LINE_BYTES;
use framing::{Line, LineReader};
use server::DemoServer;

/// Capacity of the outgoing message queue, in messages (backpressure on
/// handlers when stdout is slow).
const OUT_CAPACITY: usize = 256;

/// After stdin closes, how long requests still in flight get to finish
/// before they are cancelled: 2 000 ms.
const DRAIN_GRACE: Duration = Duration::from_millis(2_000);

/// Serves one client on stdin/stdout until stdin closes; with `listen`
/// (`HOST:PORT` on a loopback address, or the path of a Unix-domain socket
/// to create), every client that connects there, until the process is
/// stopped. The address listened on is the first line on stdout
/// (`listening on 127.0.0.1:40123`).
///
/// Errors: an I/O error reading stdin or writing stdout; for `listen`, an
/// address that is not loopback, or binding or accepting failed.
pub(crate) async fn serve(listen: Option<&str>) -> std::io::Result<()> {
    match listen {
        None => serve_stream(tokio::io::stdin(), tokio::io::stdout()).await,
        Some(address) => listen_on(address).await,
    }
}

/// Accepts clients on `address` and serves each on a task of its own.
async fn listen_on(address: &str) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    let address = SocketAddress::parse(address)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("--listen: {e}")))?;
    match address {
        SocketAddress::Tcp(host_port) => {
            // The demo server has no authorization: never reachable from
            // another machine.
            let resolved: Vec<_> = tokio::net::lookup_host(host_port.as_str()).await?.collect();
            if resolved.is_empty() || resolved.iter().any(|a| !a.ip().is_loopback()) {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "--listen {host_port}: the demo server listens on loopback addresses only (127.0.0.1, [::1], localhost)"
                    ),
                ));
            }
            let listener = tokio::net::TcpListener::bind(resolved.as_slice()).await?;
            announce(&listener.local_addr()?.to_string()).await?;
            loop {
                let (stream, peer) = listener.accept().await?;
                tracing::info!(%peer, "demo client connected");
                let (read, write) = stream.into_split();
                tokio::spawn(serve_client(read, write));
            }
        }
        #[cfg(unix)]
        SocketAddress::Unix(path) => {
            let listener = tokio::net::UnixListener::bind(&path)?;
            announce(&path.display().to_string()).await?;
            loop {
                let (stream, _) = listener.accept().await?;
                tracing::info!(socket = %path.display(), "demo client connected");
                let (read, write) = stream.into_split();
                tokio::spawn(serve_client(read, write));
            }
        }
        other => Err(Error::new(
            ErrorKind::InvalidInput,
            format!("--listen {other}: no such socket on this system"),
        )),
    }
}

/// Says where the server listens, as the first line on stdout.
async fn announce(address: &str) -> std::io::Result<()> {
    let mut stdout = tokio::io::stdout();
    stdout
        .write_all(format!("listening on {address}\n").as_bytes())
        .await?;
    stdout.flush().await
}

/// Serves one socket client; its failure is logged, the listener goes on.
async fn serve_client(
    read: impl AsyncRead + Unpin + Send + 'static,
    write: impl AsyncWrite + Unpin + Send + 'static,
) {
    match serve_stream(read, write).await {
        Ok(()) => tracing::info!("demo client disconnected"),
        Err(e) => tracing::warn!(error = %e, "demo client connection failed"),
    }
}

/// Serves one client on `read` and `write` until its input ends.
///
/// Errors: an I/O error reading or writing.
async fn serve_stream(
    read: impl AsyncRead + Unpin + Send,
    write: impl AsyncWrite + Unpin + Send + 'static,
) -> std::io::Result<()> {
    let (tx, mut rx) = mpsc::channel(OUT_CAPACITY);
    let server = DemoServer::new(tx);
    let writer = tokio::spawn(async move {
        let mut stdout = write;
        while let Some(message) = rx.recv().await {
            let mut bytes = mcp_types::JsonRpcMessage::to_vec(&message);
            bytes.push(b'\n');
            stdout.write_all(&bytes).await?;
            stdout.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });

    let stdin = tokio::io::BufReader::new(read);
    let mut lines = LineReader::new(stdin, DEFAULT_MAX_LINE_BYTES);
    let read_result = loop {
        match lines.next_line().await {
            Ok(Some(Line::Message(bytes))) => {
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                server.handle_bytes(&bytes).await;
            }
            Ok(Some(Line::TooLong(limit))) => {
                tracing::warn!(limit, "incoming line over the limit discarded");
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };

    // Input closed: nobody can answer our own requests any more; let the
    // other requests finish briefly, then stop.
    server.input_closed();
    let deadline = tokio::time::Instant::now() + DRAIN_GRACE;
    while server.in_flight() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.cancel_all();
    server.close_output();
    drop(server);
    match tokio::time::timeout(DRAIN_GRACE, writer).await {
        Ok(Ok(Err(e))) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e),
        _ => {}
    }
    read_result
}
