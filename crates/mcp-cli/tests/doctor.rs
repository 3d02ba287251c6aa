//! `mcp doctor`: the connection checklist against a server behind each
//! failing step — a refused port, a TLS server whose certificate is not
//! trusted (Python's `ssl` with an `openssl`-made self-signed certificate;
//! skipped, saying so, without them), an HTTP server that is not MCP, a
//! server whose authorization server publishes broken metadata — against
//! TLS servers whose certificate is trusted (through `SSL_CERT_FILE`),
//! offering h2, http/1.1 or no ALPN, against a server with sound
//! authorization metadata and no stored login, and against the demo
//! server, where every step passes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use fault_http::{FaultServer, Reply};
use serde_json::Value;

async fn doctor(args: Vec<String>) -> support::Run {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        support::mcp(&args)
    })
    .await
    .unwrap()
}

/// The step lines: `(verdict, step)`.
fn steps(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter(|l| {
            ["ok ", "FAIL ", "skip ", "auth "]
                .iter()
                .any(|v| l.starts_with(v))
        })
        .map(|l| {
            let verdict = l[..5].trim().to_owned();
            let step = l[6..30].trim().to_owned();
            (verdict, step)
        })
        .collect()
}

#[test]
fn the_demo_passes_every_step() {
    let run = support::mcp(&["doctor", "demo"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let names: Vec<(String, String)> = steps(&run.stdout);
    assert_eq!(
        names,
        [
            ("ok".to_owned(), "command".to_owned()),
            ("ok".to_owned(), "MCP handshake".to_owned())
        ],
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("revision 2025-11-25 (initialize), mcp-demo"),
        "{run:?}"
    );
    assert!(run.stdout.contains("demo: every step passed"), "{run:?}");
    let run = support::mcp(&["doctor", "nosuch"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no server named \"nosuch\""), "{run:?}");
}

#[test]
fn a_refused_port_fails_at_tcp_and_says_what_to_do() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = support::mcp(&["doctor", &url]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(
        steps(&run.stdout),
        [
            ("ok".to_owned(), "URL".to_owned()),
            ("ok".to_owned(), "name resolution".to_owned()),
            ("FAIL".to_owned(), "TCP connect".to_owned()),
        ],
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("the first failing step: TCP connect: 127.0.0.1:"),
        "{run:?}"
    );
    assert!(
        run.stdout.contains(&format!(
            "what to do: nothing listens on 127.0.0.1:{port}: start the server"
        )),
        "{run:?}"
    );
    let run = support::mcp(&["doctor", &url, "--json"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["steps"][2]["step"], "TCP connect");
    assert_eq!(report["steps"][2]["verdict"], "FAIL");
    assert!(report["steps"][2]["ms"].is_u64());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_that_is_not_mcp_fails_at_the_handshake() {
    let web = FaultServer::start(|_| {
        Reply::status(404)
            .header("content-type", "text/html")
            .body("<!DOCTYPE html><html><body>Not Found</body></html>")
    })
    .await
    .unwrap();
    let run = doctor(vec!["doctor".into(), web.url("/")]).await;
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(
        steps(&run.stdout),
        [
            ("ok".to_owned(), "URL".to_owned()),
            ("ok".to_owned(), "name resolution".to_owned()),
            ("ok".to_owned(), "TCP connect".to_owned()),
            ("ok".to_owned(), "HTTP".to_owned()),
            ("FAIL".to_owned(), "MCP handshake".to_owned()),
        ],
        "{run:?}"
    );
    assert!(run.stdout.contains("HTTP 404 (text/html)"), "{run:?}");
    assert!(
        run.stdout
            .contains("what to do: the URL answers HTTP but not MCP: check its path"),
        "{run:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_authorization_metadata_fails_at_discovery() {
    let server = FaultServer::start(|r| {
        let host = r.header("host").unwrap_or("127.0.0.1").to_owned();
        match r.path() {
            "/mcp" => Reply::status(401).header(
                "www-authenticate",
                &format!(
                    "Bearer resource_metadata=\"http://{host}/.well-known/oauth-protected-resource/mcp\""
                ),
            ),
            "/.well-known/oauth-protected-resource/mcp" => Reply::json(format!(
                r#"{{"resource":"http://{host}/mcp","authorization_servers":["http://{host}/as"]}}"#
            )),
            // The authorization server's metadata is not JSON.
            _ => Reply::status(200)
                .header("content-type", "application/json")
                .body("{ this is not json"),
        }
    })
    .await
    .unwrap();
    let run = doctor(vec!["doctor".into(), server.url("/mcp")]).await;
    assert_eq!(run.code, Some(2), "{run:?}");
    let found = steps(&run.stdout);
    assert!(
        found.contains(&("auth".to_owned(), "MCP handshake".to_owned())),
        "{run:?}"
    );
    assert_eq!(
        found.last(),
        Some(&("FAIL".to_owned(), "authorization discovery".to_owned())),
        "{run:?}"
    );
    assert!(
        run.stdout.contains("mcp auth inspect http://127.0.0.1:"),
        "{run:?}"
    );
}

/// A TLS server (Python) on 127.0.0.1 with a self-signed certificate,
/// killed when dropped.
struct SelfSigned(std::process::Child);

impl Drop for SelfSigned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An HTTP/1 server behind TLS; its ALPN offer is the arguments (none:
/// no ALPN at all).
const TLS_SERVER: &str = r#"
import http.server, ssl, sys
httpd = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain("cert.pem", "key.pem")
if len(sys.argv) > 1:
    ctx.set_alpn_protocols(sys.argv[1:])
httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
print(httpd.server_address[1], flush=True)
httpd.serve_forever()
"#;

/// A self-signed server certificate for 127.0.0.1 (an end-entity one, as
/// rustls wants even of a certificate trusted as its own root).
const CERT_CONFIG: &str = "\
[req]
distinguished_name = dn
x509_extensions = ext
prompt = no
[dn]
CN = doctor test server
O = mcp tests
[ext]
basicConstraints = critical,CA:FALSE
subjectAltName = IP:127.0.0.1
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
";

/// Makes `cert.pem` and `key.pem` in `dir`; `false` (said on stderr) when
/// openssl is not there.
fn make_certificate(dir: &std::path::Path) -> bool {
    use std::process::{Command, Stdio};
    std::fs::write(dir.join("cert.cnf"), CERT_CONFIG).unwrap();
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
            "-days",
            "2",
            "-config",
            "cert.cnf",
        ])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let ok = made.is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: openssl could not make a certificate");
    }
    ok
}

/// Starts the TLS server in `dir` (which holds the certificate) offering
/// `alpn`; `None` (said on stderr) when python3 is not there.
fn start_tls_server(dir: &std::path::Path, alpn: &[&str]) -> Option<(SelfSigned, String)> {
    use std::io::BufRead as _;
    use std::process::{Command, Stdio};
    std::fs::write(dir.join("server.py"), TLS_SERVER).unwrap();
    let Ok(child) = Command::new("python3")
        .arg("server.py")
        .args(alpn)
        .current_dir(dir)
        .env("HOME", dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        eprintln!("skipped: python3 is not installed");
        return None;
    };
    let mut server = SelfSigned(child);
    let mut port = String::new();
    std::io::BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let url = format!("https://127.0.0.1:{}/mcp", port.trim());
    Some((server, url))
}

#[test]
fn an_untrusted_certificate_fails_at_tls() {
    let dir = support::temp_dir("doctor-tls");
    if !make_certificate(&dir) {
        return;
    }
    let Some((server, url)) = start_tls_server(&dir, &[]) else {
        return;
    };
    let run = support::mcp(&["doctor", &url]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(
        steps(&run.stdout).last(),
        Some(&("FAIL".to_owned(), "TLS".to_owned())),
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("what to do: the server's TLS certificate is not trusted"),
        "{run:?}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The detail of the step named `step` in a report.
fn detail<'a>(stdout: &'a str, step: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find(|l| l.get(6..30).is_some_and(|s| s.trim() == step))
        .and_then(|l| l.split_once(" ms  "))
        .map(|(_, detail)| detail)
}

/// The TLS step names the certificate (subject, issuer, expiry) and the
/// protocol the server chose by ALPN from the transport's offer (h2,
/// http/1.1), or that it chose none; the certificate is trusted through
/// `SSL_CERT_FILE`, as the transport's roots take it.
#[test]
fn the_tls_step_names_the_certificate_and_the_alpn_protocol() {
    let dir = support::temp_dir("doctor-alpn");
    if !make_certificate(&dir) {
        return;
    }
    let cert = dir.join("cert.pem").display().to_string();
    for (offer, chosen) in [
        (&["h2", "http/1.1"][..], "ALPN h2"),
        (&["http/1.1"][..], "ALPN http/1.1"),
        (&[][..], "ALPN none (HTTP/1.1)"),
    ] {
        let Some((server, url)) = start_tls_server(&dir, offer) else {
            return;
        };
        let home = support::temp_dir("doctor-alpn-run");
        let run = support::mcp_in_env(&home, &["doctor", &url], &[("SSL_CERT_FILE", &cert)]);
        let _ = std::fs::remove_dir_all(&home);
        drop(server);
        let found = steps(&run.stdout);
        assert!(
            found.contains(&("ok".to_owned(), "TLS".to_owned())),
            "{offer:?}: {run:?}"
        );
        let tls = detail(&run.stdout, "TLS").unwrap();
        assert!(tls.starts_with("TLS 1."), "{offer:?}: {tls}");
        assert!(tls.contains(&format!(", {chosen}, ")), "{offer:?}: {tls}");
        assert!(
            tls.contains("certificate CN=doctor test server, O=mcp tests, self-signed, expires 20"),
            "{offer:?}: {tls}"
        );
        // Made for two days a moment ago (within the same second, two
        // whole days are left).
        assert!(
            tls.ends_with(" UTC (in 1 day)") || tls.ends_with(" UTC (in 2 days)"),
            "{offer:?}: {tls}"
        );
        if chosen == "ALPN h2" {
            // The server chose h2 but speaks only HTTP/1: the HTTP step
            // fails, and says that.
            assert_eq!(
                found.last(),
                Some(&("FAIL".to_owned(), "HTTP".to_owned())),
                "{run:?}"
            );
            assert!(
                run.stdout.contains(
                    "what to do: the server chose HTTP/2 (ALPN h2) but gave no HTTP/2 answer"
                ),
                "{run:?}"
            );
        } else {
            assert!(
                found.contains(&("ok".to_owned(), "HTTP".to_owned())),
                "{offer:?}: {run:?}"
            );
            assert!(
                detail(&run.stdout, "HTTP").unwrap().contains("HTTP 501"),
                "{run:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A server that wants a login, with sound metadata: discovery passes and
/// names what it found (the protected resource metadata, the authorization
/// server's metadata, PKCE, the way to register), and the run ends at the
/// stored login, none being stored, with the command to log in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sound_authorization_metadata_passes_discovery_and_asks_for_a_login() {
    let server = FaultServer::start(|r| {
        let host = r.header("host").unwrap_or("127.0.0.1").to_owned();
        match r.path() {
            "/mcp" => Reply::status(401).header(
                "www-authenticate",
                &format!(
                    "Bearer resource_metadata=\"http://{host}/.well-known/oauth-protected-resource/mcp\""
                ),
            ),
            "/.well-known/oauth-protected-resource/mcp" => Reply::json(format!(
                r#"{{"resource":"http://{host}/mcp","authorization_servers":["http://{host}/as"]}}"#
            )),
            "/.well-known/oauth-authorization-server/as" => Reply::json(format!(
                r#"{{"issuer":"http://{host}/as","authorization_endpoint":"http://{host}/as/authorize",
                "token_endpoint":"http://{host}/as/token","registration_endpoint":"http://{host}/as/register",
                "response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}}"#
            )),
            _ => Reply::status(404),
        }
    })
    .await
    .unwrap();
    let url = server.url("/mcp");
    let run = doctor(vec!["doctor".into(), url.clone()]).await;
    assert_eq!(run.code, Some(2), "{run:?}");
    let found = steps(&run.stdout);
    assert!(
        found.contains(&("auth".to_owned(), "MCP handshake".to_owned())),
        "{run:?}"
    );
    assert!(
        found.contains(&("ok".to_owned(), "authorization discovery".to_owned())),
        "{run:?}"
    );
    let discovery = detail(&run.stdout, "authorization discovery").unwrap();
    for part in [
        "protected resource metadata: ",
        "authorization server metadata: ",
        "PKCE: ",
        "client registration: dynamic client registration offered",
    ] {
        assert!(discovery.contains(part), "{part:?} in {discovery}");
    }
    assert_eq!(
        found.last(),
        Some(&("FAIL".to_owned(), "stored login".to_owned())),
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains(&format!("what to do: log in: mcp login {url}")),
        "{run:?}"
    );
}

/// The transport named is the one the connection settled on: a URL is
/// tried as Streamable HTTP and falls back to HTTP+SSE when the server
/// speaks only that (server-everything's `sse` mode; skipped, saying so,
/// when it is not installed).
#[test]
fn the_handshake_names_the_transport_the_connection_settled_on() {
    use mcp_tests::peers::{EverythingHttp, skip_if_missing, spawn_everything_http};
    for (mode, transport) in [
        (EverythingHttp::Sse, "over HTTP+SSE (2024-11-05)"),
        (
            EverythingHttp::StreamableHttp,
            "over Streamable HTTP, with a session",
        ),
    ] {
        let Some(peer) = skip_if_missing(spawn_everything_http(mode)) else {
            return;
        };
        let run = support::mcp(&["doctor", peer.url()]);
        assert_eq!(run.code, Some(0), "{run:?}\n{}", peer.log_tail());
        let handshake = detail(&run.stdout, "MCP handshake").unwrap();
        assert!(handshake.ends_with(transport), "{mode:?}: {handshake}");
    }
}
