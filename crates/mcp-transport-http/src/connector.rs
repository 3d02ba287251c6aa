//! The pooled hyper client: TCP, TLS (rustls with the web PKI roots plus the
//! platform's native roots, ALPN for HTTP/2 and HTTP/1.1) and proxies
//! (`HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` through hyper-util's matcher,
//! `NO_PROXY` in every form curl and Go accept through `no_proxy.rs`:
//! HTTPS destinations go through an HTTP `CONNECT` tunnel, plain-HTTP ones
//! are sent to the proxy in absolute form).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::Uri;
use http::uri::Scheme;
use http_body_util::Full;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder, MaybeHttpsStream};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::{Intercept, Matcher};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::ClientConfig;
use tokio::net::TcpStream;
use tower_service::Service as _;

use crate::config::ProxySetting;
use crate::no_proxy::NoProxy;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The client type every request goes through.
pub(crate) type HttpClient = Client<Connector, Full<Bytes>>;

/// The proxy rules of `proxy`, read once (for `FromEnv`, from the
/// environment as it is now): a client and the `Proxy-Authorization` of
/// its requests use the same rules, and no request reads the environment
/// again.
pub(crate) fn proxy_rules(proxy: &ProxySetting) -> Option<Arc<ProxyRules>> {
    let rules = match proxy {
        ProxySetting::FromEnv => ProxyRules {
            matcher: Matcher::from_env(),
            // As hyper-util reads it: the first of the two that is set.
            no_proxy: NoProxy::parse(
                &std::env::var("NO_PROXY")
                    .or_else(|_| std::env::var("no_proxy"))
                    .unwrap_or_default(),
            ),
        },
        ProxySetting::None => return None,
        ProxySetting::Url(url) => ProxyRules::with(url, ""),
    };
    Some(Arc::new(rules))
}

/// Which proxy, if any, a destination goes through: hyper-util's matcher
/// for the proxy variables, and the `NO_PROXY` list read by
/// [`NoProxy`] (whose forms are a superset of the matcher's, so an entry
/// the matcher also knows gives the same answer).
#[derive(Debug)]
pub(crate) struct ProxyRules {
    matcher: Matcher,
    no_proxy: NoProxy,
}

impl ProxyRules {
    /// Every destination through `proxy`, except those `no_proxy` (a
    /// `NO_PROXY` list) names.
    fn with(proxy: &str, no_proxy: &str) -> ProxyRules {
        ProxyRules {
            matcher: Matcher::builder().all(proxy).build(),
            no_proxy: NoProxy::parse(no_proxy),
        }
    }

    /// The proxy a request to `dst` goes through; `None` to connect
    /// directly.
    pub(crate) fn intercept(&self, dst: &Uri) -> Option<Intercept> {
        if self.no_proxy.matches(dst) {
            return None;
        }
        self.matcher.intercept(dst)
    }
}

/// The most an HTTP/1 connection's read buffer grows to (hyper's default
/// is about 400 KiB). hyper's buffer grows to fit each read, and a
/// connection keeps what it grew to: with large replies and many requests
/// in flight (a connection each), that was a third of the client's peak
/// memory, while the reply body is gathered by its reader anyway. Reads
/// stop growing at 32 KiB: a 100 KiB body takes a few more reads. It also
/// bounds a reply's head (status line and headers) to 32 KiB; Node's HTTP
/// client refuses heads past 16 KiB by default.
const HTTP1_MAX_BUF: usize = 32 * 1024;

/// Builds the pooled client going through `proxies` (see
/// [`proxy_rules`]), keeping at most `max_idle` idle connections per host.
pub(crate) fn build_client(
    proxies: Option<Arc<ProxyRules>>,
    connect_timeout: Duration,
    max_idle: usize,
) -> HttpClient {
    Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(max_idle)
        .http1_max_buf_size(HTTP1_MAX_BUF)
        .build(connector(proxies, connect_timeout))
}

/// The connector of [`build_client`]: through `proxies`, with
/// `connect_timeout` on the TCP connection.
pub(crate) fn connector(proxies: Option<Arc<ProxyRules>>, connect_timeout: Duration) -> Connector {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(connect_timeout));
    Connector { http, proxies }
}

/// Opens a connection to the `https` URI `dst` as a request to it would
/// (same proxies, roots and ALPN offer), reads what its TLS handshake
/// settled, and closes it without sending a byte of HTTP.
///
/// Errors: the connection or the handshake failed (the cause is the
/// error), or `dst` is not `https`.
pub(crate) async fn tls_session(
    mut connector: Connector,
    dst: Uri,
) -> Result<crate::tls::TlsSession, BoxError> {
    if dst.scheme() != Some(&Scheme::HTTPS) {
        return Err(io::Error::other("not an https URL").into());
    }
    let conn = connector.call(dst).await?;
    let MaybeHttpsStream::Https(tls) = &conn.inner else {
        return Err(io::Error::other("the connection is not TLS").into());
    };
    let (_, session) = tls.inner().get_ref();
    let version = match session.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLS 1.3".to_owned(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLS 1.2".to_owned(),
        Some(other) => format!("{other:?}"),
        None => "unknown".to_owned(),
    };
    Ok(crate::tls::TlsSession {
        version,
        cipher_suite: session
            .negotiated_cipher_suite()
            .map(|s| format!("{:?}", s.suite()))
            .unwrap_or_default(),
        alpn: session
            .alpn_protocol()
            .map(|p| String::from_utf8_lossy(p).into_owned()),
        certificates: session
            .peer_certificates()
            .unwrap_or_default()
            .iter()
            .map(|c| c.as_ref().to_vec())
            .collect(),
    })
}

/// Wraps `conn` with TLS for `https` URLs (ALPN: h2, http/1.1).
fn https_wrap<H>(tls: &Arc<ClientConfig>, conn: H) -> HttpsConnector<H> {
    HttpsConnectorBuilder::new()
        .with_tls_config((**tls).clone())
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(conn)
}

/// The rustls configuration: web PKI roots plus native roots, built once,
/// on the first `https` connection (loading the native roots takes
/// milliseconds; a client that only speaks plain HTTP never pays it).
fn tls_config() -> Arc<ClientConfig> {
    static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            let native = rustls_native_certs::load_native_certs();
            for err in &native.errors {
                tracing::debug!(error = %err, "could not load some native root certificates");
            }
            let (added, ignored) = roots.add_parsable_certificates(native.certs);
            tracing::debug!(added, ignored, "native root certificates loaded");
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|b| b.with_root_certificates(roots).with_no_client_auth())
                .unwrap_or_else(|e| {
                    // The ring provider supports the default versions; this
                    // cannot happen, but never panic on it.
                    tracing::warn!(error = %e, "rustls rejected the default protocol versions");
                    ClientConfig::builder()
                        .with_root_certificates(rustls::RootCertStore::empty())
                        .with_no_client_auth()
                });
            Arc::new(config)
        })
        .clone()
}

/// The `Proxy-Authorization` for a plain-HTTP request that goes through a
/// proxy with credentials under `proxies`, when one applies to `uri`.
pub(crate) fn proxy_authorization(
    proxies: Option<&ProxyRules>,
    uri: &Uri,
) -> Option<http::HeaderValue> {
    if uri.scheme() != Some(&Scheme::HTTP) {
        return None;
    }
    proxies?.intercept(uri)?.basic_auth().cloned()
}

/// Connects directly, through a CONNECT tunnel, or to a forward proxy.
#[derive(Clone)]
pub(crate) struct Connector {
    http: HttpConnector,
    proxies: Option<Arc<ProxyRules>>,
}

impl Connector {
    /// Connects to `dst`: plain TCP for `http`, TLS for `https`; any other
    /// scheme (e.g. a `socks5://` proxy) or none is an error. `via_proxy`
    /// marks a connection to a forward proxy (absolute-form targets).
    fn to(
        &self,
        dst: Uri,
        via_proxy: bool,
    ) -> Pin<Box<dyn Future<Output = Result<Conn, BoxError>> + Send>> {
        if dst.scheme() == Some(&Scheme::HTTPS) {
            let mut https = https_wrap(&tls_config(), self.http.clone());
            Box::pin(async move {
                Ok(Conn {
                    inner: https.call(dst).await?,
                    via_proxy,
                    use_: ConnUse::default(),
                    scratch: Vec::new(),
                })
            })
        } else if dst.scheme() == Some(&Scheme::HTTP) {
            let mut http = self.http.clone();
            Box::pin(async move {
                Ok(Conn {
                    inner: MaybeHttpsStream::Http(http.call(dst).await?),
                    via_proxy,
                    use_: ConnUse::default(),
                    scratch: Vec::new(),
                })
            })
        } else {
            // Never speak HTTP to something else: the TCP connector accepts
            // any scheme, and a proxy variable may name a `socks5://` proxy,
            // which must get an error, not an HTTP request.
            let message = match dst.scheme() {
                Some(scheme) => format!("unsupported scheme {scheme}"),
                None => "missing scheme".to_owned(),
            };
            Box::pin(async move { Err(io::Error::other(message).into()) })
        }
    }
}

impl tower_service::Service<Uri> for Connector {
    type Response = Conn;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Conn, BoxError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // Every inner connector is cloned per call and always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let intercept = self.proxies.as_ref().and_then(|m| m.intercept(&dst));
        match intercept {
            None => self.to(dst, false),
            Some(proxy) if dst.scheme() == Some(&Scheme::HTTPS) => {
                let mut tunnel = Tunnel::new(proxy.uri().clone(), self.http.clone());
                if let Some(auth) = proxy.basic_auth() {
                    tunnel = tunnel.with_auth(auth.clone());
                }
                let mut https = https_wrap(&tls_config(), tunnel);
                Box::pin(async move {
                    Ok(Conn {
                        inner: https.call(dst).await?,
                        via_proxy: false,
                        use_: ConnUse::default(),
                        scratch: Vec::new(),
                    })
                })
            }
            Some(proxy) => self.to(proxy.uri().clone(), true),
        }
    }
}

/// A connection; `via_proxy` makes hyper send absolute-form request targets.
pub(crate) struct Conn {
    inner: MaybeHttpsStream<TokioIo<TcpStream>>,
    via_proxy: bool,
    use_: ConnUse,
    scratch: Vec<u8>,
}

/// How a connection has been used, as far as telling a failure of a reused
/// idle connection from one of a response goes. HTTP/1.1 writes a request
/// and then reads its response, so each write that follows a read (or the
/// first write) starts a request. hyper-util hands this, as the
/// connection's "extra", to the error of a request that failed on it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConnUse(Arc<UseCounters>);

#[derive(Debug, Default)]
struct UseCounters {
    /// Requests started on the connection.
    requests: AtomicU32,
    /// A request was written and not one byte has been read since.
    awaiting_reply: AtomicBool,
}

impl ConnUse {
    fn wrote(&self) {
        if !self.0.awaiting_reply.swap(true, Ordering::AcqRel) {
            self.0.requests.fetch_add(1, Ordering::AcqRel);
        }
    }

    fn read(&self, n: usize) {
        if n > 0 {
            self.0.awaiting_reply.store(false, Ordering::Release);
        }
    }

    /// `true` while no byte has arrived since the current request was
    /// written.
    fn awaiting_reply(&self) -> bool {
        self.0.awaiting_reply.load(Ordering::Acquire)
    }

    /// `true` when the connection had served a request before the current
    /// one and not one byte of the current one's response arrived.
    pub(crate) fn reused_and_unanswered(&self) -> bool {
        self.0.requests.load(Ordering::Acquire) >= 2 && self.awaiting_reply()
    }
}

/// `true` when `e` is the failure of an HTTP/1 request sent on a reused
/// idle connection before any byte of its response arrived: the server
/// closed the connection as the request went out (keep-alive timeout, or a
/// server that closes after every response without saying
/// `Connection: close`). Such a request may be sent again on a fresh
/// connection, as curl and browsers do.
pub(crate) fn failed_unanswered_on_reused(e: &hyper_util::client::legacy::Error) -> bool {
    if e.is_connect() {
        return false;
    }
    let Some(info) = e.connect_info() else {
        return false;
    };
    if info.is_negotiated_h2() {
        // HTTP/2 says itself which streams were not processed (GOAWAY,
        // REFUSED_STREAM); hyper retries those.
        return false;
    }
    let mut extensions = http::Extensions::new();
    info.get_extras(&mut extensions);
    extensions
        .get::<ConnUse>()
        .is_some_and(ConnUse::reused_and_unanswered)
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        let connected = self.inner.connected().extra(self.use_.clone());
        if self.via_proxy {
            connected.proxy(true)
        } else {
            connected
        }
    }
}

impl Read for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.use_.awaiting_reply() {
            return Pin::new(&mut this.inner).poll_read(cx, buf);
        }
        // The first read after a request was written goes through the
        // connection's own buffer and is copied out, so that whether any
        // byte arrived is known (the cursor cannot say how far a read
        // advanced it); later reads go straight to hyper's buffer.
        let want = buf.remaining().min(READ_CHUNK);
        if this.scratch.len() < want {
            this.scratch.resize(want, 0);
        }
        let mut scratch = hyper::rt::ReadBuf::new(&mut this.scratch[..want]);
        match Pin::new(&mut this.inner).poll_read(cx, scratch.unfilled()) {
            Poll::Ready(Ok(())) => {
                let filled = scratch.filled();
                buf.put_slice(filled);
                this.use_.read(filled.len());
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

/// The largest first read of a response (the connection's copy buffer
/// grows to this).
const READ_CHUNK: usize = 8 * 1024;

impl Write for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled
            && n > 0
        {
            this.use_.wrote();
        }
        polled
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = polled
            && n > 0
        {
            this.use_.wrote();
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connector as [`build_client`] makes it.
    fn connector(proxies: Option<ProxyRules>) -> Connector {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        Connector {
            http,
            proxies: proxies.map(Arc::new),
        }
    }

    /// `NO_PROXY` in the forms curl and Go accept decides which requests
    /// bypass the proxy (`no_proxy.rs` has a row per form); the others go
    /// through it.
    #[test]
    fn no_proxy_forms_bypass_the_proxy() {
        let cases: &[(&str, &str, bool)] = &[
            ("example.com:8080", "http://example.com:8080/mcp", false),
            ("example.com:8080", "http://example.com:9090/mcp", true),
            ("*.example.com", "https://api.example.com/mcp", false),
            ("[::1]:8080", "http://[::1]:8080/mcp", false),
            ("10.1.2.3:8080", "http://10.1.2.3:8080/mcp", false),
            ("10.0.0.0/8, fd00::/8", "http://[fd00::5]/mcp", false),
            (
                " .example.com , other.net ",
                "https://a.example.com/mcp",
                false,
            ),
            ("*", "https://anything/mcp", false),
            ("other.net", "https://example.com/mcp", true),
            ("", "https://example.com/mcp", true),
        ];
        for (no_proxy, url, proxied) in cases {
            let rules = ProxyRules::with("http://proxy.example:3128", no_proxy);
            let got = rules.intercept(&url.parse().unwrap());
            assert_eq!(got.is_some(), *proxied, "NO_PROXY={no_proxy:?} {url}");
        }
    }

    /// A request counts as answered from its reply's first byte; a
    /// connection is reused from its second request on.
    #[test]
    fn connection_use_tells_reused_and_unanswered() {
        let u = ConnUse::default();
        assert!(!u.reused_and_unanswered(), "nothing written yet");
        u.read(0);
        u.wrote();
        u.wrote();
        assert!(
            !u.reused_and_unanswered(),
            "first request, written in two parts"
        );
        u.read(1);
        assert!(!u.reused_and_unanswered());
        u.read(100);
        u.wrote();
        assert!(u.reused_and_unanswered(), "second request, no byte yet");
        u.read(0);
        assert!(u.reused_and_unanswered(), "EOF is not a byte");
        u.read(1);
        assert!(!u.reused_and_unanswered(), "one byte of the reply arrived");
    }

    /// Only `http` and `https` are connected to: the TCP connector itself
    /// accepts any scheme, so without the check a `socks5://` proxy (which
    /// `HTTP_PROXY` / `ALL_PROXY` may name) would be sent an HTTP request.
    #[tokio::test]
    async fn only_http_and_https_are_connected_to() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let socks: Uri = format!("socks5://{addr}").parse().unwrap();
        let err = connector(None).call(socks.clone()).await.err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("unsupported scheme socks5")
        );
        let proxy = ProxyRules::with(&socks.to_string(), "");
        let target: Uri = "http://127.0.0.1:1/mcp".parse().unwrap();
        let err = connector(Some(proxy)).call(target).await.err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("unsupported scheme socks5")
        );
        assert_eq!(
            listener.accept().map_err(|e| e.kind()).err(),
            Some(io::ErrorKind::WouldBlock),
            "nothing connected to the socks5 proxy"
        );
        // Plain HTTP still goes straight to TCP.
        let plain: Uri = format!("http://{addr}/").parse().unwrap();
        assert!(connector(None).call(plain).await.is_ok());
    }
}
