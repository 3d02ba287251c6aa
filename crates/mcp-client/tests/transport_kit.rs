//! The transport kit against `mcp_client::testing`'s in-memory transport:
//! the transport the client's own tests run on keeps the contract the
//! client relies on, as the stdio and HTTP transports do.

use async_trait::async_trait;
use mcp_client::testing::{MemoryPeer, MemoryTransport, memory_pair};
use mcp_transport::testkit::{self, Harness, HarnessError, Peer};

/// The kit's peer: the scripted [`MemoryPeer`], until it hangs up (it is
/// dropped, as a test's server task ending drops it).
struct KitPeer(Option<MemoryPeer>);

#[async_trait]
impl Peer for KitPeer {
    async fn recv(&mut self) -> Option<Vec<u8>> {
        self.0.as_mut()?.next().await.map(|m| m.to_vec())
    }

    async fn send(&mut self, frame: &[u8]) -> std::io::Result<()> {
        match &self.0 {
            Some(peer) => {
                peer.send_raw(frame).await;
                Ok(())
            }
            None => Err(std::io::ErrorKind::NotConnected.into()),
        }
    }

    async fn hang_up(&mut self) {
        self.0 = None;
    }
}

struct Memory;

#[async_trait]
impl Harness for Memory {
    type Transport = MemoryTransport;
    type Peer = KitPeer;

    async fn connect(&self) -> Result<(MemoryTransport, KitPeer), HarnessError> {
        let (transport, peer) = memory_pair();
        Ok((transport, KitPeer(Some(peer))))
    }

    /// Frames are handed over whole in memory: no size limit.
    fn frame_limit(&self) -> Option<usize> {
        None
    }

    fn secret(&self) -> Option<String> {
        None
    }
}

#[tokio::test]
async fn the_in_memory_test_transport_keeps_every_rule() {
    let report = testkit::run(&Memory).await;
    report.assert_passed();
}
