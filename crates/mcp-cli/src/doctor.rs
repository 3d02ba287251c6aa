//! `mcp doctor SERVER|URL`: the connection checklist. Each step is tried
//! in order and reported with its verdict and how long it took; the first
//! one that fails ends the run, and the report closes with it and what to
//! do about it.
//!
//! A remote server: the URL, name resolution, a TCP connection, TLS (the
//! certificate, and the protocol chosen by ALPN from what the transport
//! offers), an HTTP answer, the MCP handshake (revision, transport),
//! authorization discovery (when the server wants a login) and the stored
//! login. A stdio server: its command, then its start and handshake.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use mcp_manager::RemoteServer;
use mcp_manager::{Manager, McpConfig, ServerConfig, ServerStatus, StartListings, TransportConfig};
use serde::Serialize;

use crate::cli::Cli;
use crate::exit::{FAILURE, Failure, SUCCESS};
use crate::output;
use crate::servers::ConnectSettings;

/// How long one network step may take: 10 s.
const STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// One step of the checklist.
#[derive(Debug, Clone, Serialize)]
struct Step {
    /// What was checked.
    step: &'static str,
    /// `ok`, `FAIL`, `auth` (the server wants a login, or its
    /// authorization failed: the later steps tell why and what to do), or
    /// `skip` (not needed).
    verdict: &'static str,
    /// How long it took, in milliseconds.
    ms: u128,
    /// What was found.
    detail: String,
    /// What to do, for a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

/// The steps so far; the first failure stops the run.
#[derive(Debug, Default)]
struct Checklist {
    steps: Vec<Step>,
}

impl Checklist {
    fn ok(&mut self, step: &'static str, since: Instant, detail: impl Into<String>) {
        self.push(step, "ok", since, detail.into(), None);
    }

    fn skip(&mut self, step: &'static str, detail: impl Into<String>) {
        self.steps.push(Step {
            step,
            verdict: "skip",
            ms: 0,
            detail: detail.into(),
            fix: None,
        });
    }

    fn fail(
        &mut self,
        step: &'static str,
        since: Instant,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.push(step, "FAIL", since, detail.into(), Some(fix.into()));
    }

    fn push(
        &mut self,
        step: &'static str,
        verdict: &'static str,
        since: Instant,
        detail: String,
        fix: Option<String>,
    ) {
        self.steps.push(Step {
            step,
            verdict,
            ms: since.elapsed().as_millis(),
            detail,
            fix,
        });
    }

    fn failed(&self) -> Option<&Step> {
        self.steps.iter().find(|s| s.verdict == "FAIL")
    }
}

/// The host and port of an `http(s)` URL, and whether it is `https`.
fn host_port(url: &str) -> Result<(String, u16, bool), String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("{url} has no scheme (http:// or https://)"))?;
    let tls = match scheme.to_ascii_lowercase().as_str() {
        "https" => true,
        "http" => false,
        other => return Err(format!("scheme {other:?} is not http or https")),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("{authority}: unclosed [ in the host"))?;
        (host.to_owned(), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), Some(p)),
            None => (authority.to_owned(), None),
        }
    };
    if host.is_empty() {
        return Err(format!("{url} names no host"));
    }
    let port = match port {
        Some(p) => p
            .parse()
            .map_err(|_| format!("port {p:?} is not a number"))?,
        None if tls => 443,
        None => 80,
    };
    Ok((host, port, tls))
}

/// Runs `mcp doctor` for `target` (a server of the configuration, a URL,
/// or, when `None`, the one server the command line names).
///
/// Errors: no such server, or several and none named.
pub(crate) async fn run(cli: &Cli, target: Option<&str>) -> Result<u8, Failure> {
    let entry = entry(cli, target)?;
    let mut list = Checklist::default();
    let settings = ConnectSettings {
        timeout: Duration::from_secs(cli.timeout.clamp(1, 3600)),
        verbose: false,
        allow_input: false,
        listings: StartListings::NONE,
    };
    match &entry.transport {
        TransportConfig::Remote(remote) => remote_steps(&mut list, &entry, remote, &settings).await,
        TransportConfig::Stdio(stdio) => {
            let since = Instant::now();
            match find_program(&stdio.command) {
                Ok(path) => {
                    list.ok("command", since, format!("{} ({path})", stdio.command));
                    handshake(&mut list, &entry, &settings).await;
                }
                Err(why) => list.fail(
                    "command",
                    since,
                    why,
                    "install the program, or fix `command` in the entry (a bare name is looked up on PATH)",
                ),
            }
        }
        _ => {
            let since = Instant::now();
            list.ok("transport", since, entry.transport.kind_name());
            handshake(&mut list, &entry, &settings).await;
        }
    }
    report(cli, &entry.name, &list)?;
    Ok(if list.failed().is_some() {
        FAILURE
    } else {
        SUCCESS
    })
}

/// The entry `target` names: a URL becomes a Streamable HTTP entry; a name
/// is looked up among the configured servers.
fn entry(cli: &Cli, target: Option<&str>) -> Result<ServerConfig, Failure> {
    if let Some(url) = target.filter(|t| t.contains("://")) {
        let name = host_port(url).map_or_else(|_| "remote".to_owned(), |(h, _, _)| h);
        let mut remote = RemoteServer::new(url, mcp_manager::RemoteKind::StreamableHttp);
        remote.oauth.account = cli.account.clone();
        return Ok(ServerConfig::new(name, TransportConfig::Remote(remote)));
    }
    let config: McpConfig = crate::targets::resolve(cli)?;
    match target {
        Some(name) => config.servers.get(name).cloned().ok_or_else(|| {
            Failure::new(format!(
                "no server named {name:?} (have: {}); a URL is checked as given",
                config
                    .servers
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }),
        None => {
            let mut all = config.servers.into_values();
            match (all.next(), all.next()) {
                (Some(one), None) => Ok(one),
                _ => Err(Failure::new(
                    "several servers: name one, `mcp doctor SERVER`",
                )),
            }
        }
    }
}

/// Where `command` is: itself when it has a `/`, else the first match on
/// `PATH`.
fn find_program(command: &str) -> Result<String, String> {
    use std::os::unix::fs::PermissionsExt as _;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if command.contains('/') {
        let p = std::path::Path::new(command);
        return if runnable(p) {
            Ok(command.to_owned())
        } else {
            Err(format!("{command} is not a runnable file"))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(command))
        .find(|p| runnable(p))
        .map(|p| p.display().to_string())
        .ok_or_else(|| format!("{command} is not on PATH"))
}

async fn remote_steps(
    list: &mut Checklist,
    entry: &ServerConfig,
    remote: &RemoteServer,
    settings: &ConnectSettings,
) {
    let since = Instant::now();
    let (host, port, tls) = match host_port(&remote.url) {
        Ok(parts) => {
            list.ok("URL", since, remote.url.clone());
            parts
        }
        Err(why) => {
            list.fail(
                "URL",
                since,
                why,
                "give an absolute http:// or https:// URL, e.g. https://example.com/mcp",
            );
            return;
        }
    };

    let since = Instant::now();
    let lookup =
        tokio::time::timeout(STEP_TIMEOUT, tokio::net::lookup_host((host.as_str(), port))).await;
    let addresses: Vec<std::net::SocketAddr> = match lookup {
        Ok(Ok(found)) => found.collect(),
        Ok(Err(e)) => {
            list.fail(
                "name resolution",
                since,
                format!("{host}: {e}"),
                "check the host name in the URL, and that this machine resolves names (DNS)",
            );
            return;
        }
        Err(_) => {
            list.fail(
                "name resolution",
                since,
                format!("{host}: no answer within {} s", STEP_TIMEOUT.as_secs()),
                "check this machine's DNS settings and network",
            );
            return;
        }
    };
    let shown: Vec<String> = addresses.iter().map(|a| a.ip().to_string()).collect();
    list.ok(
        "name resolution",
        since,
        format!("{host} → {}", shown.join(", ")),
    );

    let since = Instant::now();
    let mut last = String::new();
    let mut refused = false;
    let mut connected = None;
    for address in &addresses {
        match tokio::time::timeout(STEP_TIMEOUT, tokio::net::TcpStream::connect(address)).await {
            Ok(Ok(_)) => {
                connected = Some(*address);
                break;
            }
            Ok(Err(e)) => {
                refused |= e.kind() == std::io::ErrorKind::ConnectionRefused;
                last = format!("{address}: {e}");
            }
            Err(_) => last = format!("{address}: no answer within {} s", STEP_TIMEOUT.as_secs()),
        }
    }
    match connected {
        Some(a) => list.ok("TCP connect", since, format!("connected to {a}")),
        None => {
            let fix = if refused {
                format!(
                    "nothing listens on {host}:{port}: start the server, or check the port in the URL"
                )
            } else {
                format!(
                    "{host}:{port} does not answer: check the address, a firewall, or a proxy (HTTPS_PROXY / HTTP_PROXY)"
                )
            };
            list.fail("TCP connect", since, last, fix);
            return;
        }
    }

    let fetcher = mcp_transport_http::Fetcher::new(
        mcp_transport_http::FetchOptions::default().with_timeout(STEP_TIMEOUT),
    );
    let mut alpn = None;
    if tls {
        let since = Instant::now();
        match fetcher.tls_handshake(&remote.url).await {
            Ok(session) => {
                alpn.clone_from(&session.alpn);
                list.ok("TLS", since, tls_detail(&session));
            }
            Err(e) => {
                let chain = crate::exit::error_chain(&e);
                let fix = if chain.to_lowercase().contains("certificate") {
                    "the server's TLS certificate is not trusted: check its name and chain (or add its CA to the system's roots, or name it in SSL_CERT_FILE)"
                } else if e.is_timeout() {
                    "the server took the connection but did not finish a TLS handshake: check the scheme (http vs https) and the port"
                } else {
                    "the server took the connection but no TLS handshake came of it: check the scheme (http vs https) and the port"
                };
                list.fail("TLS", since, chain, fix);
                return;
            }
        }
    }

    let since = Instant::now();
    // A body no MCP server takes: any HTTP answer shows the server is
    // reachable, and nothing is started on it.
    let request = http::Request::post(remote.url.as_str())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(bytes::Bytes::from_static(b"{}"));
    let request = match request {
        Ok(r) => r,
        Err(e) => {
            list.fail("HTTP", since, e.to_string(), "give a valid URL");
            return;
        }
    };
    match fetcher.fetch(request).await {
        Ok(response) => {
            let kind = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("no content type")
                .to_owned();
            list.ok(
                "HTTP",
                since,
                format!(
                    "HTTP {} ({kind}), over {:?}",
                    response.status().as_u16(),
                    response.version()
                ),
            );
        }
        Err(e) => {
            let fix = if alpn.as_deref() == Some("h2") {
                "the server chose HTTP/2 (ALPN h2) but gave no HTTP/2 answer: check that it speaks HTTP/2, or have it offer only http/1.1"
            } else if tls {
                "the server finished the TLS handshake but gave no HTTP answer: check the port and what listens there"
            } else {
                "the server took the connection but gave no HTTP answer: check the scheme (http vs https) and the port"
            };
            list.fail("HTTP", since, crate::exit::error_chain(&e), fix);
            return;
        }
    }

    let needs_login = !handshake(list, entry, settings).await;
    if list.failed().is_some() {
        return;
    }

    let since = Instant::now();
    if remote.wants_oauth() && needs_login {
        let report =
            mcp_auth::inspect(&remote.url, mcp_transport_http::FetchOptions::default()).await;
        // What was found, with its verdict (PKCE's method, the way to
        // register); the well-known URLs tried where nothing was are left
        // out (`mcp auth inspect` lists every request).
        let found: Vec<String> = report
            .steps
            .iter()
            .filter(|s| !s.ok || s.status.is_none_or(|status| status < 400 || status == 401))
            .map(|s| {
                format!(
                    "{}{}: {}",
                    if s.ok { "" } else { "FAIL " },
                    s.what,
                    s.verdict
                )
            })
            .collect();
        if report.usable {
            list.ok("authorization discovery", since, found.join("; "));
        } else {
            let bad = report
                .steps
                .iter()
                .find(|s| !s.ok)
                .map(|s| format!("{}: {}", s.what, s.verdict))
                .unwrap_or_else(|| "no usable authorization server".into());
            list.fail(
                "authorization discovery",
                since,
                bad,
                format!(
                    "the server's authorization metadata does not allow a login: tell its operator; `mcp auth inspect {}` shows every request",
                    remote.url
                ),
            );
            return;
        }
    } else {
        list.skip(
            "authorization discovery",
            "not needed: the server answered without a login",
        );
    }

    let since = Instant::now();
    match crate::auth::flow_for(entry) {
        None => list.skip("stored login", "the entry does not use OAuth"),
        Some(oauth) => match oauth.status().await {
            Ok(Some(login)) => {
                let expiry = match login
                    .expires_at
                    .map(|at| at.duration_since(std::time::SystemTime::now()))
                {
                    None => "no expiry given".to_owned(),
                    Some(Ok(left)) => format!("expires in {} min", left.as_secs().div_ceil(60)),
                    Some(Err(past)) => {
                        format!("expired {} min ago", past.duration().as_secs().div_ceil(60))
                    }
                };
                let detail = format!(
                    "account {}, issuer {}, {expiry}{}",
                    login.account,
                    login.issuer,
                    if login.refreshable {
                        ", refreshable"
                    } else {
                        ""
                    }
                );
                list.ok("stored login", since, detail);
            }
            Ok(None) if needs_login => list.fail(
                "stored login",
                since,
                "none stored",
                format!("log in: mcp login {}", remote.url),
            ),
            Ok(None) => list.skip("stored login", "none stored (none needed)"),
            Err(e) => list.fail(
                "stored login",
                since,
                crate::exit::error_chain(&e),
                "check the credential store (--credential-store)",
            ),
        },
    }
    // The server refused every way in although discovery and the stored
    // login look right: the handshake is what failed.
    if needs_login
        && list.failed().is_none()
        && let Some(step) = list.steps.iter_mut().find(|s| s.verdict == "auth")
    {
        step.verdict = "FAIL";
        step.fix = Some(format!(
            "log in again: mcp login {} (the server refused the stored login)",
            remote.url
        ));
    }
}

/// The TLS step's finding: the version, the protocol chosen by ALPN, and
/// the server's certificate (subject, issuer, expiry), e.g. `TLS 1.3, ALPN
/// h2, certificate CN=example.com issued by CN=R11, O=Let's Encrypt,
/// expires 2027-01-31 12:00 UTC (in 58 days)`.
fn tls_detail(session: &mcp_transport_http::TlsSession) -> String {
    let alpn = match session.alpn.as_deref() {
        Some(protocol) => format!("ALPN {protocol}"),
        None => "ALPN none (HTTP/1.1)".to_owned(),
    };
    let certificate = match session.certificates.first() {
        None => "no certificate".to_owned(),
        Some(der) => certificate_detail(der, std::time::SystemTime::now()),
    };
    format!("{}, {alpn}, {certificate}", session.version)
}

/// The subject, issuer and expiry of a DER certificate, as of `now`.
fn certificate_detail(der: &[u8], now: std::time::SystemTime) -> String {
    let certificate = match x509_parser::parse_x509_certificate(der) {
        Ok((_, c)) => c,
        Err(e) => {
            // It was verified, so this is a gap of the parser, not of the
            // server: say so and go on.
            tracing::debug!(error = %e, "could not parse the server's certificate");
            return "certificate (not readable here)".to_owned();
        }
    };
    let subject = certificate.subject().to_string();
    let issuer = certificate.issuer().to_string();
    let issued = if subject == issuer {
        "self-signed".to_owned()
    } else {
        format!("issued by {issuer}")
    };
    let not_after = certificate.validity().not_after.timestamp();
    let when = chrono::DateTime::from_timestamp(not_after, 0).map_or_else(
        || not_after.to_string(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    );
    let now = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let left = not_after.saturating_sub(now);
    let left = match left {
        ..=0 => "expired".to_owned(),
        1..=86_399 => format!("in {} h", left.div_euclid(3600).max(1)),
        86_400..=172_799 => "in 1 day".to_owned(),
        _ => format!("in {} days", left / 86_400),
    };
    format!("certificate {subject}, {issued}, expires {when} ({left})")
}

/// The MCP handshake through the manager, as every command connects.
/// Returns `false` when the server wants a login (reported as a failure
/// that later steps explain).
async fn handshake(list: &mut Checklist, entry: &ServerConfig, settings: &ConnectSettings) -> bool {
    let since = Instant::now();
    let mut config = McpConfig::default();
    config.servers.insert(entry.name.clone(), entry.clone());
    let bound = crate::servers::start_bound(&config, settings);
    let ui = std::sync::Arc::new(crate::ui::Ui::new(mcp_client::CancellationToken::new()));
    let manager = Manager::start(config, crate::servers::manager_options(settings, &ui)).await;
    manager.wait_started(bound).await;
    let status = manager
        .server_status(&entry.name)
        .unwrap_or(ServerStatus::Starting);
    let client = manager.client(&entry.name);
    let mut ok = true;
    match (status, client) {
        (ServerStatus::Connected { revision, .. }, Some(client)) => {
            let info = client.server_info();
            // The transport the connection settled on: a URL is tried as
            // Streamable HTTP and falls back to HTTP+SSE.
            let settled = client.transport().wire_kind();
            let transport = match (&entry.transport, settled) {
                (TransportConfig::Remote(_), Some(kind @ "Streamable HTTP")) => format!(
                    "{kind}, {}",
                    if client.transport().session_id().is_some() {
                        "with a session"
                    } else {
                        "without a session"
                    }
                ),
                (_, Some(kind)) => kind.to_owned(),
                (TransportConfig::Remote(r), None) if r.kind == mcp_manager::RemoteKind::Sse => {
                    "HTTP+SSE (2024-11-05)".to_owned()
                }
                (other, None) => other.kind_name().to_owned(),
            };
            // How the revision was settled: the stateless revision by
            // the `server/discover` probe, a handshake revision by
            // `initialize`.
            let by = if client.negotiated().is_stateless() {
                "server/discover"
            } else {
                "initialize"
            };
            list.ok(
                "MCP handshake",
                since,
                format!(
                    "revision {revision} ({by}), {} {}, over {transport}",
                    info.name, info.version
                ),
            );
        }
        // Not a failure yet: the steps after it (discovery, the stored
        // login) tell whether a login can be had and what to do.
        (ServerStatus::NeedsLogin { why }, _) => {
            ok = false;
            list.push("MCP handshake", "auth", since, why, None);
        }
        (ServerStatus::Failed { why }, _)
            if matches!(entry.transport, TransportConfig::Remote(_))
                && why.contains("authorization") =>
        {
            ok = false;
            list.push(
                "MCP handshake",
                "auth",
                since,
                crate::exit::tidy(&why),
                None,
            );
        }
        (ServerStatus::Failed { why }, _) => {
            let why = crate::exit::tidy(&why);
            let fix = if answers_not_mcp(&why) {
                "the URL answers HTTP but not MCP: check its path (servers often serve /mcp) and the server's documentation"
            } else if matches!(entry.transport, TransportConfig::Stdio(_)) {
                "the server's stderr is above: run its command by hand to see it fail"
            } else {
                "see why above; `mcp --verbose ping` shows the traffic"
            };
            let mut detail = String::new();
            let _ = write!(detail, "{why}");
            list.fail("MCP handshake", since, detail, fix);
        }
        (other, _) => {
            list.fail(
                "MCP handshake",
                since,
                other.to_string(),
                "the server did not finish starting: try a larger --timeout",
            );
        }
    }
    if tokio::time::timeout(STEP_TIMEOUT, manager.shutdown())
        .await
        .is_err()
    {
        manager.kill().await;
    }
    ok
}

/// `true` when a failed start reads as an HTTP server that is not an MCP
/// endpoint: a web page, or a status a server gives a path or method it
/// does not serve (404, 405, 501).
fn answers_not_mcp(why: &str) -> bool {
    let lower = why.to_lowercase();
    let status = lower
        .find("http ")
        .and_then(|at| lower.get(at + 5..at + 8))
        .and_then(|code| code.parse::<u16>().ok());
    lower.contains("<html")
        || lower.contains("<!doctype html")
        || lower.contains("text/html")
        || matches!(status, Some(404 | 405 | 501))
}

fn report(cli: &Cli, name: &str, list: &Checklist) -> Result<(), Failure> {
    if cli.json {
        let value = serde_json::json!({
            "server": name,
            "steps": list.steps,
            "ok": list.failed().is_none(),
        });
        return output::json_line(&serde_json::to_string_pretty(&value).unwrap_or_default());
    }
    for s in &list.steps {
        output::line(&output::row(&format!(
            "{:<5} {:<24} {:>6} ms  {}",
            s.verdict, s.step, s.ms, s.detail
        )))?;
    }
    match list.failed() {
        None => output::line(&format!("{name}: every step passed")),
        Some(s) => {
            output::line(&output::row(&format!(
                "{name}: the first failing step: {}: {}",
                s.step, s.detail
            )))?;
            output::line(&format!(
                "what to do: {}",
                s.fix.as_deref().unwrap_or("see above")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_host_port_and_scheme() {
        assert_eq!(
            host_port("https://example.com/mcp").unwrap(),
            ("example.com".into(), 443, true)
        );
        assert_eq!(
            host_port("http://u:p@127.0.0.1:8080/x?y").unwrap(),
            ("127.0.0.1".into(), 8080, false)
        );
        assert_eq!(
            host_port("http://[::1]:9/").unwrap(),
            ("::1".into(), 9, false)
        );
        assert!(host_port("example.com/mcp").is_err());
        assert!(host_port("ftp://example.com").is_err());
        assert!(host_port("http://:80/").is_err());
        assert!(host_port("http://h:x/").is_err());
    }

    #[test]
    fn a_web_server_reads_as_not_mcp() {
        assert!(answers_not_mcp(
            "handshake failed: HTTP 501: <!DOCTYPE HTML> <html>"
        ));
        assert!(answers_not_mcp("handshake failed: HTTP 404: not found"));
        assert!(!answers_not_mcp("handshake failed: HTTP 500: oops"));
        assert!(!answers_not_mcp("startup timed out after 2000 ms"));
    }
}
