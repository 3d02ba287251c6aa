//! The transport kit against the stdio transport. The server is the fake
//! in `--relay` mode: it copies its stdin to a TCP connection to this test
//! (127.0.0.1) and that connection to its stdout, so the kit plays the
//! server over the socket, message by message, and hanging up ends the
//! server's stdout as a crashing server's would.
mod support;

use std::time::Duration;

use async_trait::async_trait;
use mcp_transport::testkit::{self, Harness, HarnessError, StreamPeer};
use mcp_transport_stdio::StdioTransport;
use support::fake;
use tokio::net::TcpListener;

/// The line limit the kit's connections get, in bytes.
const LIMIT: usize = 4096;

struct Relayed;

#[async_trait]
impl Harness for Relayed {
    type Transport = StdioTransport;
    type Peer = StreamPeer;

    async fn connect(&self) -> Result<(StdioTransport, StreamPeer), HarnessError> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?.to_string();
        let config = fake(&["--relay", &address]).with_max_line_bytes(LIMIT);
        let transport = StdioTransport::spawn(config).await?;
        let (socket, _) = tokio::time::timeout(Duration::from_secs(10), listener.accept())
            .await
            .map_err(|_| "the relay did not connect within 10 s")??;
        Ok((transport, StreamPeer::from_stream(socket)))
    }

    fn frame_limit(&self) -> Option<usize> {
        Some(LIMIT)
    }

    fn secret(&self) -> Option<String> {
        None
    }
}

#[tokio::test]
async fn the_stdio_transport_keeps_every_rule() {
    testkit::run(&Relayed).await.assert_passed();
}
