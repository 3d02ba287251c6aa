//! A server that echoes back the secret it refused (`denied for Bearer
//! <token>`) never gets it shown: every secret value the connection sent (a
//! sensitive configured header, a credential of the auth hook) is hidden in
//! the error's text, its sources, its `Debug` output and the log lines of the
//! exchange, whatever form the echo takes (as sent, the token alone, inside
//! a JSON string, percent-encoded) and wherever it is (body, challenge
//! header, JSON-RPC error, the hook's own reason).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::Arc;

use async_trait::async_trait;
use common::*;
use fault_http::{FaultServer, Recorded, Reply};
use http::{HeaderMap, HeaderValue};
use mcp_transport::{Transport, TransportError};
use mcp_transport_http::{
    AuthChallenge, AuthDecision, AuthFailure, AuthProvider, Credential, HttpConfig, HttpMode,
    HttpTransport, OutgoingRequest,
};

/// The token of every case: `/`, `+` and `=` make its JSON-escaped and
/// percent-encoded forms differ from it.
const TOKEN: &str = "S3cr3t/t0k+en=Zq";

/// A provider that sends `Bearer TOKEN` and, on a refusal, gives up quoting
/// the server's challenge (which echoes the token).
#[derive(Debug)]
struct Echoing;

#[async_trait]
impl AuthProvider for Echoing {
    async fn prepare(&self, _: &OutgoingRequest<'_>) -> Result<Option<Credential>, AuthFailure> {
        let mut headers = HeaderMap::new();
        headers.insert(
            "authorization",
            HeaderValue::try_from(format!("Bearer {TOKEN}")).unwrap(),
        );
        Ok(Some(Credential::new(headers)))
    }

    async fn on_unauthorized(&self, challenge: &AuthChallenge) -> AuthDecision {
        AuthDecision::Fail(AuthFailure::denied(format!(
            "the server said: {}",
            challenge.www_authenticate.as_deref().unwrap_or("nothing")
        )))
    }
}

/// What the secret header carried, as the server received it.
fn sent(r: &Recorded, header: &str) -> String {
    r.header(header).unwrap_or("(none)").to_owned()
}

/// One way of sending the secret, and one way of echoing it.
struct Case {
    name: &'static str,
    config: fn(&str) -> HttpConfig,
    reply: fn(&Recorded) -> Reply,
}

fn static_bearer(url: &str) -> HttpConfig {
    config(url).with_header("Authorization", format!("Bearer {TOKEN}"))
}

fn static_api_key(url: &str) -> HttpConfig {
    config(url).with_header("X-Api-Key", TOKEN)
}

fn provider(url: &str) -> HttpConfig {
    config(url).with_auth_provider(Arc::new(Echoing))
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "401 body and challenge echo the whole header",
            config: static_bearer,
            reply: |r| {
                let auth = sent(r, "authorization");
                Reply::status(401)
                    .header(
                        "www-authenticate",
                        &format!(
                            r#"Bearer error="invalid_token", error_description="{auth} expired""#
                        ),
                    )
                    .header("mcp-auth-server", &format!("https://as/?t={auth}"))
                    .body(format!("denied for {auth}"))
            },
        },
        Case {
            name: "403 JSON body echoes the key JSON-escaped",
            config: static_api_key,
            reply: |r| {
                let key = serde_json::to_string(&sent(r, "x-api-key")).unwrap();
                Reply::status(403)
                    .header("content-type", "application/json")
                    .body(format!(
                        r#"{{"error":"bad key","key":{}}}"#,
                        key.replace('/', "\\/")
                    ))
            },
        },
        Case {
            name: "400 JSON-RPC error echoes the token in message and data",
            config: static_bearer,
            reply: |r| {
                let id = r.rpc_id().unwrap_or_default();
                let auth = sent(r, "authorization");
                let token = auth.trim_start_matches("Bearer ");
                Reply::status(400)
                    .header("content-type", "application/json")
                    .body(
                        serde_json::json!({
                            "jsonrpc": "2.0",
                            "id": id,
                            "error": {"code": -32001, "message": format!("token {token} refused"), "data": {"sent": auth}}
                        })
                        .to_string(),
                    )
            },
        },
        Case {
            name: "500 body echoes the token percent-encoded",
            config: static_bearer,
            reply: |r| {
                let auth = sent(r, "authorization");
                let token: String = auth
                    .trim_start_matches("Bearer ")
                    .bytes()
                    .map(|b| {
                        if b.is_ascii_alphanumeric() {
                            char::from(b).to_string()
                        } else {
                            format!("%{b:02X}")
                        }
                    })
                    .collect();
                Reply::status(500).body(format!("upstream GET /check?token={token} failed"))
            },
        },
        Case {
            name: "the hook's token echoed in a 502 body",
            config: provider,
            reply: |r| {
                Reply::status(502).body(format!("proxy refused {}", sent(r, "authorization")))
            },
        },
        Case {
            name: "the hook's reason quotes a challenge that echoes its token",
            config: provider,
            reply: |r| {
                let auth = sent(r, "authorization");
                Reply::status(401).header(
                    "www-authenticate",
                    &format!(r#"Bearer error="invalid_token", error_description="{auth}""#),
                )
            },
        },
    ]
}

#[tokio::test]
async fn a_secret_the_server_echoes_is_shown_nowhere() {
    for case in cases() {
        let logs = capture_at(tracing::Level::DEBUG);
        let server = FaultServer::start(case.reply).await.unwrap();
        let t = HttpTransport::connect((case.config)(&server.url("/mcp")), HttpMode::Streamable)
            .await
            .unwrap();
        let e = initialize(&t).await.expect_err(case.name);
        let shown = format!("{}\n{e:?}\n{}", error_chain(&e), logs.text());
        let echoed = server.requests().iter().any(|r| {
            r.header("authorization")
                .or(r.header("x-api-key"))
                .is_some()
        });
        assert!(echoed, "{}: the secret was sent", case.name);
        for form in [TOKEN, "t0k+en", "S3cr3t%2Ft0k"] {
            assert!(
                !shown.contains(form),
                "{}: {form:?} is shown:\n{shown}",
                case.name
            );
        }
        // The echo is there, hidden: the error still says what the server said.
        assert!(shown.contains("***"), "{}: {shown}", case.name);
        match (case.name, &e) {
            (name, TransportError::JsonRpc(rpc)) => {
                assert!(name.contains("JSON-RPC"), "{name}: {e:?}");
                assert_eq!(rpc.message, "token *** refused");
            }
            (name, TransportError::Auth { .. }) => assert!(name.contains("hook's reason"), "{e:?}"),
            (_, TransportError::Http { .. }) => {}
            (name, other) => panic!("{name}: unexpected {other:?}"),
        }
        drop(logs);
    }
}

/// A tap that keeps every text it is shown.
#[derive(Default)]
struct Keep(std::sync::Mutex<String>);

impl mcp_transport::WireTap for Keep {
    fn observe(&self, _label: &str, event: mcp_transport::TapEvent<'_>) {
        let mut all = self.0.lock().unwrap();
        all.push_str(&format!("{event:?}\n"));
    }
}

/// One 2xx answer to `tools/call` that echoes the token where the
/// dispatcher, not the HTTP error path, shows it.
struct Echo2xx {
    name: &'static str,
    reply: fn(&serde_json::Value, &str) -> Reply,
}

fn echoes_in_2xx() -> Vec<Echo2xx> {
    vec![
        Echo2xx {
            name: "a JSON-RPC error in a 200 JSON body",
            reply: |id, token| {
                Reply::json(
                    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": -32001, "message": format!("token {token} refused"),
                        "data": {"sent": format!("Bearer {token}"), "why": [token]}}})
                    .to_string(),
                )
            },
        },
        Echo2xx {
            name: "a JSON-RPC error in an SSE event, after a log message echoing it",
            reply: |id, token| {
                Reply::sse(vec![
                    fault_http::sse_data(
                        &serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message",
                            "params": {"level": "error", "data": format!("upstream saw {token}")}})
                        .to_string(),
                    ),
                    fault_http::sse_data(
                        &serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {
                            "code": -32001, "message": format!("Bearer {token} expired")}})
                        .to_string(),
                    ),
                ])
            },
        },
        Echo2xx {
            name: "a skipped message that is not JSON-RPC, the token past its first 200 bytes",
            reply: |id, token| {
                let padding = "x".repeat(190);
                Reply::json(format!(
                    r#"{{"jsonrpc":"1.0","id":{id},"pad":"{padding}","result":"{token}"}}"#
                ))
            },
        },
        Echo2xx {
            name: "an error member that is not an error object",
            reply: |id, token| {
                Reply::json(
                    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": token, "message": token}})
                        .to_string(),
                )
            },
        },
    ]
}

#[tokio::test]
async fn a_secret_echoed_in_a_2xx_reply_is_shown_nowhere() {
    for case in echoes_in_2xx() {
        let logs = capture_at(tracing::Level::DEBUG);
        let server = FaultServer::start(move |r: &Recorded| {
            let id = r.rpc_id().unwrap_or_default();
            match r.rpc_method().as_deref() {
                Some("initialize") => Reply::json(fault_http::init_result(&id, "2025-06-18")),
                Some("tools/call") => {
                    let auth = sent(r, "authorization");
                    (case.reply)(&id, auth.trim_start_matches("Bearer "))
                }
                _ => Reply::status(202),
            }
        })
        .await
        .unwrap();
        let t = HttpTransport::connect(static_bearer(&server.url("/mcp")), HttpMode::Streamable)
            .await
            .unwrap();
        let tap = Arc::new(Keep::default());
        assert!(
            t.set_wire_tap(tap.clone()),
            "{}: the tap is taken",
            case.name
        );
        let mut events = t.take_events().unwrap();
        initialize(&t).await.unwrap();
        let e = t
            .request(
                "tools/call",
                Some(&serde_json::json!({"name": "x"})),
                opts().with_timeout(std::time::Duration::from_secs(5)),
            )
            .await
            .expect_err(case.name);
        let mut notified = String::new();
        while let Ok(event) = events.try_recv() {
            notified.push_str(&format!("{event:?}\n"));
        }
        let tapped = tap.0.lock().unwrap().clone();
        let shown = format!(
            "{}\n{e:?}\n{notified}\n{tapped}\n{}",
            error_chain(&e),
            logs.text()
        );
        for form in [TOKEN, "t0k+en", "S3cr3t%2Ft0k", "S3cr3t\\/t0k"] {
            assert!(
                !shown.contains(form),
                "{}: {form:?} is shown:\n{shown}",
                case.name
            );
        }
        assert!(shown.contains("***"), "{}: {shown}", case.name);
        assert!(
            tapped.contains("Sent") && tapped.contains("Received"),
            "{}: the tap saw the traffic: {tapped}",
            case.name
        );
        match &e {
            TransportError::JsonRpc(rpc) => assert!(rpc.message.contains("***"), "{e:?}"),
            TransportError::Malformed { .. } => {}
            other => panic!("{}: unexpected {other:?}", case.name),
        }
        drop(logs);
    }
}

/// A URL the server sends (a redirect's `Location`, a legacy `endpoint`
/// event) may carry a secret in its query, and may be relative: an error
/// that names it shows the query's names, never its values.
#[tokio::test]
async fn a_url_the_server_sends_is_shown_without_its_query_values() {
    // (what the server answers: a Location or an endpoint, how to connect)
    let cases: [(&str, &str, HttpMode); 4] = [
        ("location", "/moved?token=QSECRET", HttpMode::Streamable),
        (
            "location",
            "http://[::1/m?token=QSECRET",
            HttpMode::Streamable,
        ),
        ("endpoint", "http://[::1/m?token=QSECRET", HttpMode::Legacy),
        (
            "endpoint",
            "//u:QSECRET@[::1/m?token=QSECRET",
            HttpMode::Legacy,
        ),
    ];
    for (what, url, mode) in cases {
        let server = FaultServer::start(move |_| match what {
            // A POST redirected with 302 is refused; a bad Location too.
            "location" if url.starts_with('/') => Reply::status(302).header("location", url),
            "location" => Reply::status(307).header("location", url),
            _ => Reply::sse(vec![fault_http::Part::bytes(format!(
                "event: endpoint\ndata: {url}\n\n"
            ))]),
        })
        .await
        .unwrap();
        let error = match HttpTransport::connect(config(&server.url("/mcp")), mode).await {
            Err(e) => e,
            Ok(t) => initialize(&t).await.expect_err("refused"),
        };
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains("QSECRET"), "{what} {url}: {shown}");
        assert!(shown.contains("token=***"), "{what} {url}: {shown}");
    }
}
