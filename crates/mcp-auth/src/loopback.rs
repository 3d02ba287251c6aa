//! [`LoopbackBrowser`]: the interactive user agent of a terminal program
//! (RFC 8252 § 7.3). It binds its loopback receiver first, so a port that
//! is taken is an error naming the port before any browser tab opens;
//! then it always prints the authorization URL, opens it in the browser
//! (http(s) only), and at the same time accepts, from a line source such as
//! stdin, a pasted redirect URL, its query string or a bare code (for SSH
//! sessions and containers, where the browser's redirect cannot reach the
//! receiver). A redirect whose `state` or `iss` is not this login's is
//! refused and the agent keeps waiting; past the timeout it gives up.
//! Dropping the `authorize` future (Ctrl-C) closes the listener.

use std::convert::Infallible;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinSet;
use url::Url;

use crate::error::AuthError;
use crate::user_agent::{AuthorizationPrompt, CallbackParams, UserAgent};

/// The host of the redirect URI: the registration must name the one the
/// authorization server will compare (some compare `localhost` and
/// `127.0.0.1` as different strings). The receiver listens on 127.0.0.1
/// either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoopbackHost {
    /// `http://127.0.0.1:PORT/…` (RFC 8252's recommendation; the default).
    Ipv4,
    /// `http://localhost:PORT/…`.
    Localhost,
}

/// Which port the receiver listens on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallbackPort {
    /// One the system picks (the default; RFC 8252 § 7.3 asks
    /// authorization servers to accept any port on a loopback redirect).
    Ephemeral,
    /// Exactly this one (a pre-registered redirect URI): taken means an
    /// error naming it.
    Fixed(u16),
    /// The first free one of these.
    Range(RangeInclusive<u16>),
}

/// How a [`LoopbackBrowser`] behaves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LoopbackOptions {
    /// The redirect URI's host. Default [`LoopbackHost::Ipv4`].
    pub host: LoopbackHost,
    /// The port. Default [`CallbackPort::Ephemeral`].
    pub port: CallbackPort,
    /// The redirect URI's path. Default `/callback`.
    pub path: String,
    /// Open the URL in a browser (it is printed either way). Default `true`.
    pub open_browser: bool,
    /// How long to wait for the redirect. Default 300 s.
    pub timeout: Duration,
}

impl Default for LoopbackOptions {
    fn default() -> Self {
        LoopbackOptions {
            host: LoopbackHost::Ipv4,
            port: CallbackPort::Ephemeral,
            path: "/callback".into(),
            open_browser: true,
            timeout: Duration::from_secs(300),
        }
    }
}

impl LoopbackOptions {
    /// Sets the redirect URI's host.
    pub fn with_host(mut self, host: LoopbackHost) -> Self {
        self.host = host;
        self
    }

    /// Sets the port.
    pub fn with_port(mut self, port: CallbackPort) -> Self {
        self.port = port;
        self
    }

    /// Sets the redirect URI's path (a leading `/` is added when missing).
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// Whether to open a browser.
    pub fn with_open_browser(mut self, open: bool) -> Self {
        self.open_browser = open;
        self
    }

    /// Sets how long to wait for the redirect.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Where the agent tells the user what to do (the URL, a refused paste):
/// one line at a time. No secret is ever passed to it.
pub type Notice = Arc<dyn Fn(&str) + Send + Sync>;

/// The interactive user agent: loopback receiver, browser, paste (see the
/// module docs).
pub struct LoopbackBrowser {
    options: LoopbackOptions,
    addr: SocketAddr,
    redirect_uri: String,
    listener: Mutex<Option<TcpListener>>,
    paste: Mutex<Option<mpsc::Receiver<String>>>,
    notice: Notice,
}

impl fmt::Debug for LoopbackBrowser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackBrowser")
            .field("redirect_uri", &self.redirect_uri)
            .field("options", &self.options)
            .finish()
    }
}

/// The error of a port that cannot be bound.
fn bind_error(port: &str, e: &std::io::Error) -> AuthError {
    if e.kind() == std::io::ErrorKind::AddrInUse {
        AuthError::user_agent(format!(
            "the callback port {port} on 127.0.0.1 is in use (another program, or another login, \
             holds it); free it or choose another port"
        ))
    } else {
        AuthError::user_agent(format!("cannot listen on 127.0.0.1 port {port}: {e}"))
    }
}

async fn bind_port(port: u16) -> Result<TcpListener, std::io::Error> {
    TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await
}

impl LoopbackBrowser {
    /// Binds the receiver now (before any browser opens), per `options`;
    /// notices go to stderr until [`with_notice`](Self::with_notice).
    ///
    /// Errors: `UserAgent` naming the port when it is taken (for a range:
    /// the range, when every port of it is).
    pub async fn bind(options: LoopbackOptions) -> Result<LoopbackBrowser, AuthError> {
        let listener = match &options.port {
            CallbackPort::Ephemeral => bind_port(0).await.map_err(|e| bind_error("0", &e))?,
            CallbackPort::Fixed(p) => bind_port(*p)
                .await
                .map_err(|e| bind_error(&p.to_string(), &e))?,
            CallbackPort::Range(range) => {
                let mut found = None;
                for p in range.clone() {
                    if let Ok(l) = bind_port(p).await {
                        found = Some(l);
                        break;
                    }
                }
                found.ok_or_else(|| {
                    AuthError::user_agent(format!(
                        "every callback port of {}-{} on 127.0.0.1 is in use",
                        range.start(),
                        range.end()
                    ))
                })?
            }
        };
        let addr = listener
            .local_addr()
            .map_err(|e| AuthError::user_agent(format!("the callback listener: {e}")))?;
        let host = match options.host {
            LoopbackHost::Ipv4 => "127.0.0.1",
            LoopbackHost::Localhost => "localhost",
        };
        let redirect_uri = format!("http://{host}:{}{}", addr.port(), options.path);
        Ok(LoopbackBrowser {
            options,
            addr,
            redirect_uri,
            listener: Mutex::new(Some(listener)),
            paste: Mutex::new(None),
            notice: Arc::new(|line: &str| eprintln!("{line}")),
        })
    }

    /// The redirect URI to configure the flow with
    /// ([`OAuthConfig::new`](crate::OAuthConfig::new)).
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// The port the receiver listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Where notices go (default: stderr).
    pub fn with_notice(mut self, notice: Notice) -> Self {
        self.notice = notice;
        self
    }

    /// Accepts pasted answers from `lines` (each a redirect URL, its query
    /// string, or a bare code).
    pub fn with_paste(self, lines: mpsc::Receiver<String>) -> Self {
        LoopbackBrowser {
            paste: Mutex::new(Some(lines)),
            ..self
        }
    }

    /// Accepts pasted answers from this process's stdin, read by a thread
    /// of its own (a blocking read that cannot be interrupted: it ends with
    /// the process or at end of input).
    pub fn with_stdin_paste(self) -> Self {
        let (tx, rx) = mpsc::channel(4);
        let spawned = std::thread::Builder::new()
            .name("mcp-auth-paste".into())
            .spawn(move || {
                let stdin = std::io::stdin();
                let mut line = String::new();
                loop {
                    line.clear();
                    match stdin.read_line(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if tx.blocking_send(line.trim().to_owned()).is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        if spawned.is_err() {
            tracing::warn!("cannot read pasted answers: no thread for stdin");
            return self;
        }
        self.with_paste(rx)
    }

    fn say(&self, line: &str) {
        (self.notice)(line);
    }
}

/// Reads a pasted answer: a full redirect URL, its query string (with or
/// without `?`), or a bare code. A bare code is taken as the answer to
/// `prompt` (the user vouches for it): it gets the prompt's `state`, and
/// its `iss` when the authorization server sends one.
pub fn parse_paste(text: &str, prompt: &AuthorizationPrompt) -> Option<CallbackParams> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if text.starts_with("http://") || text.starts_with("https://") {
        return CallbackParams::from_url(text);
    }
    let query = text.strip_prefix('?').unwrap_or(text);
    if query.contains('=') {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        return Some(CallbackParams::new(pairs));
    }
    if text.chars().any(char::is_whitespace) {
        return None;
    }
    let mut pairs = vec![
        ("code".to_owned(), text.to_owned()),
        ("state".to_owned(), prompt.state.clone()),
    ];
    if prompt.iss_required {
        pairs.push(("iss".to_owned(), prompt.issuer.clone()));
    }
    Some(CallbackParams::new(pairs))
}

const SUCCESS_PAGE: &str = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Logged in</title></head>\
<body style=\"font-family:sans-serif;margin:3em\"><h1>Logged in</h1>\
<p>You can close this tab and return to the terminal.</p></body></html>";

const REFUSED_PAGE: &str = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Not this login</title></head>\
<body style=\"font-family:sans-serif;margin:3em\"><h1>This answer is not for the login in progress</h1>\
<p>The terminal is still waiting. Start the login again from the terminal if needed.</p></body></html>";

/// What one HTTP exchange with the receiver brought.
enum Arrived {
    /// The redirect of this login.
    Answer(CallbackParams),
    /// A redirect that is not this login's, and why.
    Refused(&'static str),
}

/// Serves one connection: the callback path gets the success page when
/// its parameters answer `prompt` (they go to `tx`), the refused page
/// otherwise; any other path a 404.
async fn serve(
    stream: tokio::net::TcpStream,
    path: String,
    prompt: Arc<AuthorizationPrompt>,
    tx: mpsc::Sender<Arrived>,
) {
    let service = service_fn(move |request: http::Request<Incoming>| {
        let (path, prompt, tx) = (path.clone(), prompt.clone(), tx.clone());
        async move {
            let page = |status: u16, body: &'static str| {
                let mut response =
                    http::Response::new(Full::new(Bytes::from_static(body.as_bytes())));
                *response.status_mut() =
                    http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::BAD_REQUEST);
                response.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    http::HeaderValue::from_static("text/html; charset=utf-8"),
                );
                Ok::<_, Infallible>(response)
            };
            if request.method() != http::Method::GET || request.uri().path() != path {
                return page(404, "<!DOCTYPE html><title>Not found</title>");
            }
            let params = CallbackParams::new(
                url::form_urlencoded::parse(request.uri().query().unwrap_or("").as_bytes())
                    .into_owned()
                    .collect(),
            );
            match prompt.mismatch(&params) {
                None => {
                    let _ = tx.send(Arrived::Answer(params)).await;
                    page(200, SUCCESS_PAGE)
                }
                Some(why) => {
                    let _ = tx.send(Arrived::Refused(why)).await;
                    page(400, REFUSED_PAGE)
                }
            }
        }
    });
    let served = hyper::server::conn::http1::Builder::new()
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service)
        .await;
    if let Err(e) = served {
        tracing::debug!(error = %e, "a connection to the callback receiver failed");
    }
}

/// How long the success page gets to reach the browser once the answer
/// is in: 2 s.
const PAGE_FLUSH: Duration = Duration::from_secs(2);

#[async_trait]
impl UserAgent for LoopbackBrowser {
    async fn authorize(&self, prompt: &AuthorizationPrompt) -> Result<CallbackParams, AuthError> {
        let url = Url::parse(&prompt.url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| AuthError::user_agent("the authorization URL is not an http(s) URL"))?;
        let listener = match self.listener.lock().await.take() {
            Some(l) => l,
            // A second authorization (a step-up): the same port again.
            None => bind_port(self.addr.port())
                .await
                .map_err(|e| bind_error(&self.addr.port().to_string(), &e))?,
        };
        let mut paste = self.paste.lock().await;
        self.say("To log in, open this URL in a browser:");
        self.say(&format!("  {url}"));
        if self.options.open_browser {
            let target = url.to_string();
            let opened = tokio::task::spawn_blocking(move || {
                webbrowser::open(&target).map_err(|e| e.to_string())
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
            match opened {
                Ok(()) => self.say("(opened in your browser)"),
                Err(e) => self.say(&format!("(no browser could be opened: {e})")),
            }
        }
        if paste.is_some() {
            self.say(&format!(
                "Waiting for the browser to come back to {}; if it cannot reach this machine, \
                 paste the URL it ended on (or the code) here and press Enter.",
                self.redirect_uri
            ));
        } else {
            self.say(&format!(
                "Waiting for the browser to come back to {}.",
                self.redirect_uri
            ));
        }
        let prompt = Arc::new(prompt.clone());
        let (tx, mut rx) = mpsc::channel::<Arrived>(4);
        let mut connections = JoinSet::new();
        let deadline = tokio::time::Instant::now() + self.options.timeout;
        let answer = loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        connections.spawn(serve(stream, self.options.path.clone(), prompt.clone(), tx.clone()));
                    }
                    Err(e) => tracing::debug!(error = %e, "accept on the callback receiver failed"),
                },
                Some(arrived) = rx.recv() => match arrived {
                    Arrived::Answer(params) => break params,
                    Arrived::Refused(why) => self.say(&format!(
                        "A redirect arrived that is not this login's ({why}); still waiting."
                    )),
                },
                line = async { match paste.as_mut() { Some(p) => p.recv().await, None => std::future::pending().await } } => match line {
                    None => *paste = None,
                    Some(line) => match parse_paste(&line, &prompt) {
                        None if line.trim().is_empty() => {}
                        None => self.say("That is not a redirect URL, its query string or a code; still waiting."),
                        Some(params) => match prompt.mismatch(&params) {
                            None => break params,
                            Some(why) => self.say(&format!(
                                "That answer is not this login's ({why}); still waiting."
                            )),
                        },
                    },
                },
                () = tokio::time::sleep_until(deadline) => {
                    return Err(AuthError::user_agent(format!(
                        "no answer from the browser within {} s",
                        self.options.timeout.as_secs()
                    )));
                }
            }
        };
        drop(listener);
        drop(tx);
        // Let the success page reach the browser before its connection is
        // dropped with this future.
        let _ = tokio::time::timeout(PAGE_FLUSH, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(iss_required: bool) -> AuthorizationPrompt {
        AuthorizationPrompt::new(
            "https://as.example/authorize?state=st",
            "http://127.0.0.1:1/callback",
            "st",
            "https://as.example",
            iss_required,
        )
    }

    #[test]
    fn pasted_answers() {
        let p = prompt(true);
        let full = parse_paste(
            "  http://127.0.0.1:5/callback?code=c1&state=st&iss=https%3A%2F%2Fas.example \n",
            &p,
        )
        .unwrap();
        assert_eq!(full.get("code"), Some("c1"));
        assert_eq!(p.mismatch(&full), None);
        let query = parse_paste("?code=c2&state=st&iss=https://as.example", &p).unwrap();
        assert_eq!(query.get("code"), Some("c2"));
        assert_eq!(p.mismatch(&query), None);
        let bare = parse_paste("c3-abc_DEF", &p).unwrap();
        assert_eq!(bare.get("code"), Some("c3-abc_DEF"));
        assert_eq!(p.mismatch(&bare), None);
        let bare = parse_paste("c4", &prompt(false)).unwrap();
        assert_eq!(bare.get("iss"), None);
        assert!(parse_paste("   ", &p).is_none());
        assert!(parse_paste("two words", &p).is_none());
        let wrong_state = parse_paste("code=c&state=other&iss=https://as.example", &p).unwrap();
        assert!(p.mismatch(&wrong_state).is_some());
        let wrong_iss = parse_paste("code=c&state=st&iss=https://evil.example", &p).unwrap();
        assert!(p.mismatch(&wrong_iss).is_some());
        let no_iss = parse_paste("code=c&state=st", &p).unwrap();
        assert!(p.mismatch(&no_iss).is_some());
        assert_eq!(prompt(false).mismatch(&no_iss), None);
    }
}
