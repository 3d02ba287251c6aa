//! [`Fetcher`]: plain HTTP requests on the transport's own connector, for
//! what the authorization layer sends besides MCP: metadata discovery,
//! client registration, token requests. Same proxies and TLS roots as the
//! MCP connection; a timeout over the whole exchange; a bounded body; no
//! redirect following (a 3xx is returned as it is, for the caller to judge:
//! an OAuth client must not follow redirects blindly).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::PROXY_AUTHORIZATION;
use http::{Request, Response};
use http_body_util::Full;
use mcp_transport::TransportError;

use crate::body::read_bounded;
use crate::config::{HttpConfig, ProxySetting};
use crate::connector::{
    HttpClient, build_client, connector, proxy_authorization, proxy_rules, tls_session,
};
use crate::decode;
use crate::redact::redact_url;
use crate::tls::TlsSession;

/// The default bound on a fetched body: 256 KiB (metadata documents and
/// token responses are a few KiB).
pub const DEFAULT_FETCH_MAX_BODY: usize = 256 * 1024;

/// Options of a [`Fetcher`].
///
/// ```
/// use std::time::Duration;
/// use mcp_transport_http::FetchOptions;
/// let options = FetchOptions::default().with_timeout(Duration::from_secs(5));
/// assert_eq!(options.max_body_bytes, 256 * 1024);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FetchOptions {
    /// Proxy settings (default: from the environment, as the MCP
    /// connection).
    pub proxy: ProxySetting,
    /// TCP connect timeout. Default 10 000 ms.
    pub connect_timeout: Duration,
    /// The whole exchange: connect, send, reply and body. Default 30 000 ms.
    pub timeout: Duration,
    /// The largest body accepted, in bytes (default
    /// [`DEFAULT_FETCH_MAX_BODY`], 256 KiB).
    pub max_body_bytes: usize,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            proxy: ProxySetting::FromEnv,
            connect_timeout: Duration::from_millis(10_000),
            timeout: Duration::from_millis(30_000),
            max_body_bytes: DEFAULT_FETCH_MAX_BODY,
        }
    }
}

impl FetchOptions {
    /// Options with the proxy and connect timeout of an MCP connection's
    /// `config`, the rest default.
    pub fn from_config(config: &HttpConfig) -> FetchOptions {
        FetchOptions {
            proxy: config.proxy.clone(),
            connect_timeout: config.timeouts.connect,
            ..FetchOptions::default()
        }
    }

    /// Sets the proxy setting.
    pub fn with_proxy(mut self, proxy: ProxySetting) -> Self {
        self.proxy = proxy;
        self
    }

    /// Sets the TCP connect timeout.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the timeout of the whole exchange.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the body bound, in bytes.
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }
}

/// Why a [`Fetcher::fetch`] failed. Every URL in it is shown with its
/// credentials and query values removed. A non-2xx reply is not an error:
/// it is returned as a response.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL is not an absolute `http` or `https` URL.
    #[error("{url} is not an absolute http(s) URL")]
    #[non_exhaustive]
    InvalidUrl {
        /// The URL.
        url: String,
    },
    /// The exchange did not finish within [`FetchOptions::timeout`] (or
    /// the connect timeout).
    #[error("{method} {url} timed out after {ms} ms")]
    #[non_exhaustive]
    Timeout {
        /// The request method.
        method: String,
        /// The URL.
        url: String,
        /// How long was waited, in milliseconds.
        ms: u64,
    },
    /// The request could not be sent or its reply not read; the cause is
    /// the `source`.
    #[error("{method} {url} failed")]
    #[non_exhaustive]
    Network {
        /// The request method.
        method: String,
        /// The URL.
        url: String,
        /// What failed.
        #[source]
        source: Arc<dyn std::error::Error + Send + Sync>,
    },
    /// The reply body was over [`FetchOptions::max_body_bytes`].
    #[error("the reply to {method} {url} is over the {limit}-byte limit")]
    #[non_exhaustive]
    TooLarge {
        /// The request method.
        method: String,
        /// The URL.
        url: String,
        /// The limit, in bytes.
        limit: usize,
    },
}

impl FetchError {
    /// `true` for [`FetchError::Timeout`].
    pub fn is_timeout(&self) -> bool {
        matches!(self, FetchError::Timeout { .. })
    }
}

/// Sends plain HTTP requests on the transport's connector (proxy, TLS
/// roots, connection pool), never following redirects. Cheap to clone.
///
/// ```
/// # use fault_http::{FaultServer, Reply};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = FaultServer::start(|_| Reply::json(r#"{"issuer":"x"}"#)).await?;
/// # let url = server.url("/.well-known/oauth-authorization-server");
/// use mcp_transport_http::{FetchOptions, Fetcher, ProxySetting};
/// let fetcher = Fetcher::new(FetchOptions::default().with_proxy(ProxySetting::None));
/// let request = http::Request::get(url).body(bytes::Bytes::new())?;
/// let response = fetcher.fetch(request).await?;
/// assert_eq!(response.status(), 200);
/// assert_eq!(&response.body()[..], br#"{"issuer":"x"}"#);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Fetcher {
    client: HttpClient,
    /// The proxy rules, read once: the client's and the requests'.
    proxies: Option<std::sync::Arc<crate::connector::ProxyRules>>,
    options: FetchOptions,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("options", &self.options)
            .finish()
    }
}

impl Fetcher {
    /// A fetcher with its own connection pool.
    pub fn new(options: FetchOptions) -> Fetcher {
        let proxies = proxy_rules(&options.proxy);
        Fetcher {
            client: build_client(proxies.clone(), options.connect_timeout, 4),
            proxies,
            options,
        }
    }

    /// The options it was made with.
    pub fn options(&self) -> &FetchOptions {
        &self.options
    }

    /// Sends `request` and reads its whole reply. A compressed reply body
    /// is decoded (the bound counts decoded bytes). Redirects are not
    /// followed.
    ///
    /// Errors: [`FetchError::InvalidUrl`], [`FetchError::Timeout`],
    /// [`FetchError::Network`], [`FetchError::TooLarge`].
    pub async fn fetch(&self, request: Request<Bytes>) -> Result<Response<Bytes>, FetchError> {
        let method = request.method().to_string();
        let uri = request.uri().clone();
        let url = redact_url(&uri.to_string());
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.authority().is_none() {
            return Err(FetchError::InvalidUrl { url });
        }
        let (mut parts, body) = request.into_parts();
        if let Some(v) = proxy_authorization(self.proxies.as_deref(), &uri) {
            parts.headers.insert(PROXY_AUTHORIZATION, v);
        }
        let request = Request::from_parts(parts, Full::new(body));
        let limit = self.options.max_body_bytes;
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| FetchError::Network {
                    method: method.clone(),
                    url: url.clone(),
                    source: Arc::new(e),
                })?;
            let (parts, body) = decode::decode(response, "fetch").into_parts();
            let body = read_bounded(body, limit).await.map_err(|e| match e {
                TransportError::MessageTooLarge { limit, .. } => FetchError::TooLarge {
                    method: method.clone(),
                    url: url.clone(),
                    limit,
                },
                other => FetchError::Network {
                    method: method.clone(),
                    url: url.clone(),
                    source: Arc::new(other),
                },
            })?;
            Ok(Response::from_parts(parts, body))
        };
        match tokio::time::timeout(self.options.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout {
                method: method.clone(),
                url: url.clone(),
                ms: u64::try_from(self.options.timeout.as_millis()).unwrap_or(u64::MAX),
            }),
        }
    }

    /// Opens a connection to the `https` URL `url` as a request to it
    /// would (same proxies, trusted roots and ALPN offer, on a connection
    /// of its own, outside the pool), reports what its TLS handshake
    /// settled, and closes it without sending any HTTP. For a person
    /// checking a connection: `mcp doctor`'s TLS step.
    ///
    /// Errors: [`FetchError::InvalidUrl`] for anything but an absolute
    /// `https` URL; [`FetchError::Timeout`] past [`FetchOptions::timeout`];
    /// [`FetchError::Network`] when the connection or the handshake failed
    /// (an untrusted certificate among them; the cause is its `source`).
    pub async fn tls_handshake(&self, url: &str) -> Result<TlsSession, FetchError> {
        const METHOD: &str = "TLS handshake with";
        let shown = redact_url(url);
        let uri: http::Uri = match url.parse() {
            Ok(uri) => uri,
            Err(_) => return Err(FetchError::InvalidUrl { url: shown }),
        };
        if uri.scheme_str() != Some("https") || uri.authority().is_none() {
            return Err(FetchError::InvalidUrl { url: shown });
        }
        let connector = connector(self.proxies.clone(), self.options.connect_timeout);
        match tokio::time::timeout(self.options.timeout, tls_session(connector, uri)).await {
            Ok(Ok(session)) => Ok(session),
            Ok(Err(e)) => Err(FetchError::Network {
                method: METHOD.to_owned(),
                url: shown,
                source: Arc::from(e),
            }),
            Err(_) => Err(FetchError::Timeout {
                method: METHOD.to_owned(),
                url: shown,
                ms: u64::try_from(self.options.timeout.as_millis()).unwrap_or(u64::MAX),
            }),
        }
    }
}
