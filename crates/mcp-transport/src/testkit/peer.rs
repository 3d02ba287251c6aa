//! [`StreamPeer`]: the kit's peer over a byte stream carrying
//! newline-delimited JSON (the stdio framing).

use async_trait::async_trait;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Peer;

/// A [`Peer`] over any byte stream: every message one line ending in `\n`
/// (a trailing `\r` is dropped from what it reads). What the transport
/// writes is read by a task of its own, so [`recv`](Peer::recv) is cancel
/// safe; [`hang_up`](Peer::hang_up) drops both halves of the stream.
pub struct StreamPeer {
    lines: mpsc::UnboundedReceiver<Vec<u8>>,
    reader: Option<JoinHandle<()>>,
    writer: Option<Box<dyn AsyncWrite + Send + Unpin>>,
}

impl std::fmt::Debug for StreamPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamPeer")
            .field("connected", &self.writer.is_some())
            .finish()
    }
}

impl StreamPeer {
    /// A peer reading the transport's messages from `reader` and writing
    /// its own to `writer`.
    pub fn new(
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Self {
        let (tx, lines) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            let mut reader = BufReader::new(reader);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) => break,
                    Ok(_) => {
                        while matches!(line.last(), Some(b'\n' | b'\r')) {
                            line.pop();
                        }
                        if line.is_empty() {
                            continue;
                        }
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "the kit's stream peer stopped reading");
                        break;
                    }
                }
            }
        });
        StreamPeer {
            lines,
            reader: Some(reader),
            writer: Some(Box::new(writer)),
        }
    }

    /// A peer over one bidirectional stream (a socket, one end of a
    /// `tokio::io::duplex`).
    pub fn from_stream(stream: impl AsyncRead + AsyncWrite + Send + 'static) -> Self {
        let (reader, writer) = tokio::io::split(stream);
        StreamPeer::new(reader, writer)
    }
}

#[async_trait]
impl Peer for StreamPeer {
    async fn recv(&mut self) -> Option<Vec<u8>> {
        self.lines.recv().await
    }

    async fn send(&mut self, frame: &[u8]) -> std::io::Result<()> {
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotConnected))?;
        let mut line = Vec::with_capacity(frame.len() + 1);
        line.extend_from_slice(frame);
        line.push(b'\n');
        writer.write_all(&line).await?;
        writer.flush().await
    }

    async fn hang_up(&mut self) {
        if let Some(mut writer) = self.writer.take() {
            let _ = writer.shutdown().await;
        }
        if let Some(reader) = self.reader.take() {
            reader.abort();
            // Wait until the task (and the read half it owns) is dropped.
            let _ = reader.await;
        }
    }
}

impl Drop for StreamPeer {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            reader.abort();
        }
    }
}
