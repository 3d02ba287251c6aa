//! Where a socket server listens: `HOST:PORT` or a Unix-domain socket path.

use std::fmt;
use std::path::PathBuf;

use mcp_transport::TransportError;

/// The address of a server listening on a socket.
///
/// ```
/// use mcp_transport_socket::SocketAddress;
/// assert_eq!(
///     SocketAddress::parse("127.0.0.1:7000").unwrap(),
///     SocketAddress::Tcp("127.0.0.1:7000".into())
/// );
/// assert_eq!(
///     SocketAddress::parse("/run/mcp.sock").unwrap(),
///     SocketAddress::Unix("/run/mcp.sock".into())
/// );
/// assert!(SocketAddress::parse("").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SocketAddress {
    /// A TCP address, `HOST:PORT` (`127.0.0.1:7000`, `[::1]:7000`,
    /// `localhost:7000`), resolved when connecting.
    Tcp(String),
    /// The path of a Unix-domain stream socket (Unix only).
    Unix(PathBuf),
}

impl SocketAddress {
    /// Reads `PATH|HOST:PORT`: text holding a `/` is a path; otherwise text
    /// ending in `:PORT` (decimal digits of a port, 0 to 65535, after a
    /// non-empty host; 0 is for a listener to pick a port) is a TCP
    /// address; anything else is a path relative to the working directory
    /// (`mcp.sock`).
    ///
    /// Errors: [`TransportError::Misuse`] for empty text.
    pub fn parse(text: &str) -> Result<Self, TransportError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(TransportError::misuse(
                "a socket address is PATH or HOST:PORT, not empty",
            ));
        }
        if text.contains('/') {
            return Ok(SocketAddress::Unix(PathBuf::from(text)));
        }
        match text.rsplit_once(':') {
            Some((host, port))
                if !host.is_empty()
                    && port.parse::<u16>().is_ok()
                    && port.bytes().all(|b| b.is_ascii_digit()) =>
            {
                Ok(SocketAddress::Tcp(text.to_owned()))
            }
            _ => Ok(SocketAddress::Unix(PathBuf::from(text))),
        }
    }
}

impl fmt::Display for SocketAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SocketAddress::Tcp(address) => f.write_str(address),
            SocketAddress::Unix(path) => write!(f, "{}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_is_tcp_and_anything_else_a_path() {
        for tcp in ["localhost:1", "[::1]:65535", "10.0.0.1:7000", "127.0.0.1:0"] {
            assert_eq!(
                SocketAddress::parse(tcp).unwrap(),
                SocketAddress::Tcp(tcp.into())
            );
        }
        for path in [
            "mcp.sock", "./x:80", "a:", "a:65536", ":80", "a:+80", "/tmp/s",
        ] {
            assert_eq!(
                SocketAddress::parse(path).unwrap(),
                SocketAddress::Unix(path.into()),
                "{path}"
            );
        }
        assert!(SocketAddress::parse("  ").is_err());
    }
}
