//! `mcp doctor`: the connection checklist against a server behind each
//! failing step — a refused port, a TLS server whose certificate is not
//! trusted (Python's `ssl` with an `openssl`-made self-signed certificate;
//! skipped, saying so, without them), an HTTP server that is not MCP, a
//! server whose authorization server publishes broken metadata — and
//! against the demo server, where every step passes.
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
        run.stdout.contains("revision 2025-11-25, mcp-demo"),
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

const TLS_SERVER: &str = r#"
import http.server, ssl
httpd = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain("cert.pem", "key.pem")
httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
print(httpd.server_address[1], flush=True)
httpd.serve_forever()
"#;

#[test]
fn an_untrusted_certificate_fails_at_tls() {
    use std::io::BufRead as _;
    use std::process::{Command, Stdio};
    let dir = support::temp_dir("doctor-tls");
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
        ])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: openssl could not make a certificate");
        return;
    }
    std::fs::write(dir.join("server.py"), TLS_SERVER).unwrap();
    let Ok(child) = Command::new("python3")
        .arg("server.py")
        .current_dir(&dir)
        .env("HOME", &dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        eprintln!("skipped: python3 is not installed");
        return;
    };
    let mut server = SelfSigned(child);
    let mut port = String::new();
    std::io::BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let url = format!("https://127.0.0.1:{}/mcp", port.trim());
    let run = support::mcp(&["doctor", &url]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(
        steps(&run.stdout).last(),
        Some(&("FAIL".to_owned(), "TLS and HTTP".to_owned())),
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
