//! [`TlsSession`]: what a TLS handshake settled, as
//! [`Fetcher::tls_handshake`](crate::Fetcher::tls_handshake) reports it
//! for a person checking a connection.

/// What the TLS handshake with an `https` server settled, on a connection
/// made as the transport makes its own: the same trusted roots (web PKI
/// plus the platform's, which take `SSL_CERT_FILE` / `SSL_CERT_DIR`), the
/// same proxies and the same ALPN offer, `h2` then `http/1.1`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsSession {
    /// The protocol version: `TLS 1.3` or `TLS 1.2`.
    pub version: String,
    /// The cipher suite, by its IANA name (`TLS13_AES_256_GCM_SHA384`).
    pub cipher_suite: String,
    /// The application protocol the server chose by ALPN (RFC 7301) among
    /// those offered: `h2` or `http/1.1`; `None` when it chose none (then
    /// HTTP/1.1 is spoken).
    pub alpn: Option<String>,
    /// The certificate chain the server sent, each DER-encoded, its own
    /// certificate first. It was verified against the trusted roots and
    /// the URL's host before the handshake finished.
    pub certificates: Vec<Vec<u8>>,
}
