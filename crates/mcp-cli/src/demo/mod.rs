//! The built-in demo MCP server, `mcp serve-demo`: a real server over stdio
//! (newline-delimited JSON-RPC on stdin/stdout, logs on stderr only), built
//! on `mcp-types`.
//!
//! It answers `initialize` (the client's revision when it has a handshake,
//! else 2025-11-25), `ping`, `tools/list`, `tools/call`, `resources/list`,
//! `resources/read`, `prompts/list`, `prompts/get`, `completion/complete`
//! and `logging/setLevel`, and honours `notifications/cancelled`.
//! Tools: `echo`, `add`, `countdown` (progress), `fail` (`isError`),
//! `ask_name` (elicitation). Resource `demo://readme`, prompt `greet`.

mod catalog;
mod framing;
mod server;
mod tools;

#[cfg(test)]
mod tests;

use std::time::Duration;

use tokio::io::AsyncWriteExt;
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

/// Serves one client on stdin/stdout until stdin closes.
///
/// Errors: an I/O error reading stdin or writing stdout.
pub(crate) async fn run_stdio() -> std::io::Result<()> {
    let (tx, mut rx) = mpsc::channel(OUT_CAPACITY);
    let server = DemoServer::new(tx);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(message) = rx.recv().await {
            let mut bytes = mcp_types::JsonRpcMessage::to_vec(&message);
            bytes.push(b'\n');
            stdout.write_all(&bytes).await?;
            stdout.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });

    let stdin = tokio::io::BufReader::new(tokio::io::stdin());
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
