//! The transport kit against the socket transport, over TCP on 127.0.0.1
//! and over a Unix-domain socket in a temp dir.

use async_trait::async_trait;
use mcp_transport::testkit::{self, Harness, HarnessError, StreamPeer};
use mcp_transport_socket::{SocketAddress, SocketConfig, SocketTransport};
use tokio::net::TcpListener;

/// The line limit the kit's connections get, in bytes.
const LIMIT: usize = 4096;

/// Each connection: a listener of its own on 127.0.0.1:0, the transport
/// connecting to it, the kit's peer on the accepted end.
struct Tcp;

#[async_trait]
impl Harness for Tcp {
    type Transport = SocketTransport;
    type Peer = StreamPeer;

    async fn connect(&self) -> Result<(SocketTransport, StreamPeer), HarnessError> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = SocketAddress::parse(&listener.local_addr()?.to_string())?;
        let config = SocketConfig::new(address).with_max_line_bytes(LIMIT);
        let (transport, accepted) =
            tokio::join!(SocketTransport::connect(config), listener.accept());
        Ok((transport?, StreamPeer::from_stream(accepted?.0)))
    }

    fn frame_limit(&self) -> Option<usize> {
        Some(LIMIT)
    }

    fn secret(&self) -> Option<String> {
        None
    }
}

#[tokio::test]
async fn the_socket_transport_over_tcp_keeps_every_rule() {
    testkit::run(&Tcp).await.assert_passed();
}

#[cfg(unix)]
mod unix {
    use super::*;
    use std::path::PathBuf;
    use tokio::net::UnixListener;

    /// Each connection: a socket file of its own in the test's temp dir.
    struct Unix(PathBuf);

    #[async_trait]
    impl Harness for Unix {
        type Transport = SocketTransport;
        type Peer = StreamPeer;

        async fn connect(&self) -> Result<(SocketTransport, StreamPeer), HarnessError> {
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = self.0.join(format!("s{n}.sock"));
            let listener = UnixListener::bind(&path)?;
            let config = SocketConfig::new(SocketAddress::Unix(path)).with_max_line_bytes(LIMIT);
            let (transport, accepted) =
                tokio::join!(SocketTransport::connect(config), listener.accept());
            Ok((transport?, StreamPeer::from_stream(accepted?.0)))
        }

        fn frame_limit(&self) -> Option<usize> {
            Some(LIMIT)
        }

        fn secret(&self) -> Option<String> {
            None
        }
    }

    #[tokio::test]
    async fn the_socket_transport_over_a_unix_socket_keeps_every_rule() {
        let dir = mcp_tests::temp_dir("socket-kit");
        testkit::run(&Unix(dir.clone())).await.assert_passed();
        let _ = std::fs::remove_dir_all(dir);
    }
}
