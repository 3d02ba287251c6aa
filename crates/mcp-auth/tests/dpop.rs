//! DPoP (RFC 9449) through the whole flow against a scripted
//! authorization server and MCP server on 127.0.0.1 that check every
//! proof (signature with the header's key, `typ`, `htm`, `htu`, `ath`,
//! unique `jti`, the key thumbprint a token is bound to): proofs on the
//! token request and on every MCP request (retries included), nonces, the
//! nonce-loop limit at both servers, `invalid_dpop_proof`, the key kept in
//! the store, and DPoP left off when the server or the configuration says
//! so.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::*;
use fault_http::{Recorded, Reply, init_result, tools_result};
use mcp_auth::{CredentialStore as _, HeadlessRedirect, MemoryStore, OAuth, OAuthConfig};
use mcp_transport::{RequestOptions, Transport, TransportError};
use mcp_transport_http::{Fetcher, HttpConfig, HttpMode, HttpTransport, ProxySetting};
use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
use serde_json::{Value, json};
use sha2::Digest as _;

/// What the scripted servers do about DPoP.
#[derive(Debug, Clone, Copy, Default)]
struct Dpop {
    /// The authorization server lists ES256.
    supported: bool,
    /// The token endpoint wants a nonce: `Some(false)` one fixed nonce,
    /// `Some(true)` a new one every time (a loop).
    as_nonce: Option<bool>,
    /// The MCP server wants a nonce, as `as_nonce`.
    rs_nonce: Option<bool>,
    /// The MCP server refuses every proof with `invalid_dpop_proof`.
    refuse_proofs: bool,
    /// The first authenticated MCP request gets a 503 to retry.
    busy_once: bool,
}

/// What the servers saw.
#[derive(Debug, Default)]
struct Seen {
    /// Every proof's problem, by the servers' checks.
    problems: Vec<String>,
    /// Every `jti` of a proof that passed.
    jtis: Vec<String>,
    /// Token requests: the thumbprint of their proof's key, if any.
    token_requests: Vec<Option<String>>,
    /// The key thumbprint each DPoP token is bound to.
    bound: HashMap<String, String>,
    /// MCP requests that carried a token: (scheme, proof checked).
    mcp: Vec<(String, bool)>,
    /// The HTTP methods of the MCP requests whose proof passed.
    methods: Vec<String>,
    nonces_issued: u32,
    busy_sent: bool,
}

fn decode(part: &str) -> Option<Value> {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).ok()?).ok()
}

fn thumbprint(jwk: &Value) -> String {
    let canonical = format!(
        r#"{{"crv":"{}","kty":"{}","x":"{}","y":"{}"}}"#,
        jwk["crv"].as_str().unwrap_or(""),
        jwk["kty"].as_str().unwrap_or(""),
        jwk["x"].as_str().unwrap_or(""),
        jwk["y"].as_str().unwrap_or("")
    );
    URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(canonical.as_bytes()))
}

/// Checks the proof of `r` as RFC 9449 § 4.3 says: returns its claims and
/// key thumbprint, or what is wrong.
fn check_proof(r: &Recorded, htu: &str, token: Option<&str>) -> Result<(Value, String), String> {
    let proof = r.header("dpop").ok_or("no DPoP header")?;
    let parts: Vec<&str> = proof.split('.').collect();
    if parts.len() != 3 {
        return Err("not a compact JWS".into());
    }
    let header = decode(parts[0]).ok_or("bad header")?;
    let claims = decode(parts[1]).ok_or("bad claims")?;
    if header["typ"] != "dpop+jwt" || header["alg"] != "ES256" {
        return Err(format!("header {header}"));
    }
    let jwk = &header["jwk"];
    if jwk.get("d").is_some() {
        return Err("private key in the jwk".into());
    }
    let mut point = vec![4u8];
    point.extend(
        URL_SAFE_NO_PAD
            .decode(jwk["x"].as_str().unwrap_or(""))
            .unwrap_or_default(),
    );
    point.extend(
        URL_SAFE_NO_PAD
            .decode(jwk["y"].as_str().unwrap_or(""))
            .unwrap_or_default(),
    );
    let sig = URL_SAFE_NO_PAD
        .decode(parts[2])
        .map_err(|_| "bad signature encoding")?;
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
        .map_err(|_| "the signature does not verify")?;
    if claims["htm"] != r.method.as_str() {
        return Err(format!("htm {} for {}", claims["htm"], r.method));
    }
    if claims["htu"] != htu {
        return Err(format!("htu {} for {htu}", claims["htu"]));
    }
    let iat = claims["iat"].as_u64().ok_or("no iat")?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    if iat.abs_diff(now) > 60 {
        return Err("iat far off".into());
    }
    if !claims["jti"].is_string() {
        return Err("no jti".into());
    }
    match token {
        Some(t) => {
            let ath = URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(t.as_bytes()));
            if claims["ath"] != ath.as_str() {
                return Err("ath does not match the token".into());
            }
        }
        None if claims.get("ath").is_some() => return Err("ath on a token request".into()),
        None => {}
    }
    Ok((claims, thumbprint(jwk)))
}

/// `None` when `claims` carry the nonce the server wants; else the nonce
/// to demand (a new one each time when the server `loops`).
fn nonce_demand(seen: &mut Seen, loops: bool, claims: &Value, prefix: &str) -> Option<String> {
    let fixed = format!("{prefix}-nonce");
    if !loops && claims["nonce"] == fixed.as_str() {
        return None;
    }
    seen.nonces_issued += 1;
    Some(if loops {
        format!("{prefix}-nonce-{}", seen.nonces_issued)
    } else {
        fixed
    })
}

fn over(dpop: Dpop, seen: Arc<Mutex<Seen>>) -> impl Fn(&str, &Recorded) -> Option<Reply> {
    move |base, r| {
        let mut seen = seen.lock().unwrap();
        match r.path() {
            "/.well-known/oauth-authorization-server" => {
                let mut m = json!({
                    "issuer": base,
                    "authorization_endpoint": format!("{base}/authorize"),
                    "token_endpoint": format!("{base}/token"),
                    "registration_endpoint": format!("{base}/register"),
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"],
                });
                if dpop.supported {
                    m["dpop_signing_alg_values_supported"] = json!(["RS256", "ES256"]);
                }
                Some(Reply::json(m.to_string()))
            }
            "/token" => {
                let htu = format!("{base}/token");
                if r.header("dpop").is_none() {
                    seen.token_requests.push(None);
                    return None; // the scripted bearer token
                }
                let (claims, jkt) = match check_proof(r, &htu, None) {
                    Ok(ok) => ok,
                    Err(e) => {
                        seen.problems.push(format!("token request: {e}"));
                        return Some(
                            Reply::json(r#"{"error":"invalid_dpop_proof"}"#).with_status(400),
                        );
                    }
                };
                seen.token_requests.push(Some(jkt.clone()));
                if let Some(loops) = dpop.as_nonce
                    && let Some(nonce) = nonce_demand(&mut seen, loops, &claims, "as")
                {
                    return Some(
                        Reply::json(r#"{"error":"use_dpop_nonce"}"#)
                            .with_status(400)
                            .header("dpop-nonce", &nonce),
                    );
                }
                let token = format!("dpop-token-{}", seen.token_requests.len());
                seen.bound.insert(token.clone(), jkt);
                Some(Reply::json(
                    json!({"access_token": token, "token_type": "DPoP", "expires_in": 3600})
                        .to_string(),
                ))
            }
            "/mcp" => {
                let authorization = r.header("authorization")?;
                let Some(token) = authorization.strip_prefix("DPoP ") else {
                    seen.mcp.push(("Bearer".into(), false));
                    return None; // the scripted bearer check
                };
                let id = r.rpc_id().unwrap_or_default();
                let checked = check_proof(r, &format!("{base}/mcp"), Some(token)).and_then(
                    |(claims, jkt)| {
                        if seen.bound.get(token) != Some(&jkt) {
                            return Err("the proof's key is not the token's cnf.jkt".into());
                        }
                        let jti = claims["jti"].as_str().unwrap_or("").to_owned();
                        if seen.jtis.contains(&jti) {
                            return Err("a jti used twice".into());
                        }
                        seen.jtis.push(jti);
                        Ok(claims)
                    },
                );
                seen.mcp.push(("DPoP".into(), checked.is_ok()));
                let claims = match checked {
                    Ok(c) => c,
                    Err(e) => {
                        seen.problems.push(format!("MCP request: {e}"));
                        return Some(
                            Reply::status(401)
                                .header("www-authenticate", r#"DPoP error="invalid_dpop_proof""#),
                        );
                    }
                };
                if dpop.refuse_proofs {
                    return Some(Reply::status(401).header(
                        "www-authenticate",
                        r#"DPoP error="invalid_dpop_proof", error_description="key not accepted""#,
                    ));
                }
                if let Some(loops) = dpop.rs_nonce
                    && let Some(nonce) = nonce_demand(&mut seen, loops, &claims, "rs")
                {
                    return Some(
                        Reply::status(401)
                            .header("www-authenticate", r#"DPoP error="use_dpop_nonce""#)
                            .header("dpop-nonce", &nonce),
                    );
                }
                seen.methods.push(r.method.to_string());
                if dpop.busy_once && !seen.busy_sent {
                    seen.busy_sent = true;
                    return Some(Reply::status(503).header("retry-after", "0"));
                }
                // A session: its GET stream and its DELETE.
                match (r.method.as_str(), r.rpc_method().as_deref()) {
                    ("GET", _) => Some(Reply::sse(vec![])),
                    ("DELETE", _) => Some(Reply::status(200)),
                    (_, Some("initialize")) => Some(
                        Reply::json(init_result(&id, "2025-06-18")).header("mcp-session-id", "s1"),
                    ),
                    (_, Some(m)) if m.starts_with("notifications/") => Some(Reply::status(202)),
                    _ => Some(Reply::json(tools_result(&id))),
                }
            }
            _ => None,
        }
    }
}

async fn start(dpop: Dpop) -> (Mock, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mock = Mock::start_with(Script::default(), over(dpop, seen.clone())).await;
    (mock, seen)
}

/// A flow on `store` (shared by two flows: two processes on one store).
fn oauth_on(config: OAuthConfig, store: Arc<MemoryStore>) -> OAuth {
    let agent = Arc::new(HeadlessRedirect::new(Fetcher::new(fetch_options())));
    OAuth::new(config, store, agent).unwrap()
}

/// A DPoP-bound session: the token request carries a proof and gets a
/// `DPoP` token; every MCP request (the retry of a 503 included) carries
/// `Authorization: DPoP` and a proof of its own that the server accepts.
#[tokio::test]
async fn a_bound_token_goes_out_with_a_fresh_proof_on_every_request() {
    let (mock, seen) = start(Dpop {
        supported: true,
        busy_once: true,
        ..Dpop::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    for _ in 0..3 {
        call(&t, "tools/list").await.unwrap();
    }
    let seen = seen.lock().unwrap();
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    assert_eq!(seen.token_requests.len(), 1);
    assert!(
        seen.token_requests[0].is_some(),
        "the token request had a proof"
    );
    assert!(seen.busy_sent);
    // Three calls, one of them sent twice (503): four proofs, four jtis.
    assert_eq!(seen.mcp.len(), 4, "{:?}", seen.mcp);
    assert!(seen.mcp.iter().all(|(scheme, ok)| scheme == "DPoP" && *ok));
    assert_eq!(seen.jtis.len(), 4);
}

/// Both servers ask for a nonce once: the token request and the MCP
/// request are each sent once more with it, and later requests carry it
/// from the start.
#[tokio::test]
async fn a_nonce_asked_for_is_sent_once_more_and_remembered() {
    let (mock, seen) = start(Dpop {
        supported: true,
        as_nonce: Some(false),
        rs_nonce: Some(false),
        ..Dpop::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    call(&t, "tools/list").await.unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    assert_eq!(
        seen.token_requests.len(),
        2,
        "once without, once with the nonce"
    );
    // The first call: refused for the nonce, then with it; the second
    // carries it at once.
    assert_eq!(seen.mcp.len(), 3, "{:?}", seen.mcp);
    assert_eq!(seen.nonces_issued, 2, "one demand per server");
}

/// The auth error of `e`, its text.
fn auth_error(e: &TransportError) -> String {
    match e {
        TransportError::Auth { .. } => e.to_string(),
        other => panic!("expected an auth error, got {other:?}"),
    }
}

/// A token endpoint that asks for a new nonce every time gets the token
/// request twice (the retry with its nonce), then a typed error: never a
/// third request.
#[tokio::test]
async fn a_token_endpoint_nonce_loop_is_retried_once_then_reported() {
    let (mock, seen) = start(Dpop {
        supported: true,
        as_nonce: Some(true),
        ..Dpop::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    let e = tokio::time::timeout(Duration::from_secs(10), call(&t, "tools/list"))
        .await
        .expect("no endless retry")
        .unwrap_err();
    let text = format!("{} {e:?}", auth_error(&e));
    assert!(text.contains("nonce loop"), "{text}");
    assert!(!text.contains("eyJ"), "no proof in the error: {text}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.token_requests.len(), 2, "one retry, no more");
}

/// An MCP server that asks for a new nonce every time gets the request
/// twice (the retry with its nonce), then a typed error.
#[tokio::test]
async fn a_resource_server_nonce_loop_is_retried_once_then_reported() {
    let (mock, seen) = start(Dpop {
        supported: true,
        rs_nonce: Some(true),
        ..Dpop::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    let e = call(&t, "tools/list").await.unwrap_err();
    let text = format!("{} {e:?}", auth_error(&e));
    assert!(text.contains("nonce loop"), "{text}");
    // The scheme's name is no secret: the transport's scrubbing of sent
    // values leaves it in the reason.
    assert!(text.contains("DPoP: "), "{text}");
    assert!(!text.contains("eyJ"), "no proof in the error: {text}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.mcp.len(), 2, "one retry, no more: {:?}", seen.mcp);
    assert_eq!(
        seen.token_requests.len(),
        1,
        "no new authorization for a nonce"
    );
}

/// `invalid_dpop_proof` leads to one fresh authorization with a new key;
/// the same refusal of that token ends it with a typed error (no login
/// loop).
#[tokio::test]
async fn refused_proofs_lead_to_one_fresh_authorization_then_an_error() {
    let (mock, seen) = start(Dpop {
        supported: true,
        refuse_proofs: true,
        ..Dpop::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let t = mock.connect(&oauth).await;
    let e = call(&t, "tools/list").await.unwrap_err();
    let text = auth_error(&e);
    assert!(text.contains("invalid_dpop_proof"), "{text}");
    assert!(text.contains("key not accepted"), "{text}");
    assert_eq!(mock.authorize_queries().len(), 2, "one fresh authorization");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.token_requests.len(), 2);
    assert_ne!(
        seen.token_requests[0], seen.token_requests[1],
        "the fresh authorization uses a new key"
    );
    assert_eq!(seen.mcp.len(), 2);
}

/// The key lives in the credential store: another `OAuth` on the same
/// store (another process) uses the stored bound token with the same key,
/// without authorizing again.
#[tokio::test]
async fn the_key_and_bound_token_are_used_by_the_next_process() {
    let (mock, seen) = start(Dpop {
        supported: true,
        ..Dpop::default()
    })
    .await;
    let store = Arc::new(MemoryStore::new());
    let first = oauth_on(mock.config(), store.clone());
    let t = mock.connect(&first).await;
    call(&t, "tools/list").await.unwrap();
    let second = oauth_on(mock.config(), store.clone());
    let t2 = mock.connect(&second).await;
    call(&t2, "tools/list").await.unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    assert_eq!(mock.authorize_queries().len(), 1);
    assert_eq!(seen.mcp.len(), 2);
    assert!(seen.mcp.iter().all(|(s, ok)| s == "DPoP" && *ok));
    // Neither the store's nor the flow's Debug shows the key.
    let shown = format!("{store:?} {second:?}");
    assert!(!shown.contains("private_key\": \""), "{shown}");
}

/// No DPoP when the authorization server does not list ES256, or when the
/// configuration turns it off: the token request carries no proof and the
/// token goes out as `Bearer`.
#[tokio::test]
async fn dpop_stays_off_without_server_support_or_when_configured_off() {
    for (supported, on) in [(false, true), (true, false)] {
        let (mock, seen) = start(Dpop {
            supported,
            ..Dpop::default()
        })
        .await;
        let oauth = mock.oauth(mock.config().with_dpop(on));
        let t = mock.connect(&oauth).await;
        call(&t, "tools/list").await.unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen.token_requests,
            [None],
            "supported {supported}, on {on}"
        );
        assert_eq!(seen.mcp, [("Bearer".to_owned(), false)]);
        assert!(mock.to("/token")[0].header("dpop").is_none());
    }
}

/// The retry for a nonce is a whole new token request: a grant without a
/// person signs a new client assertion for it (the first one's `jti` is
/// spent: a server refuses it again as a replay).
#[tokio::test]
async fn the_nonce_retry_of_a_grant_signs_a_new_client_assertion() {
    use mcp_auth::{ClientAuthentication, ConfidentialClient, Grant, PrivateKey};
    let (mock, seen) = start(Dpop {
        supported: true,
        as_nonce: Some(false),
        ..Dpop::default()
    })
    .await;
    let key = PrivateKey::from_pem(include_str!("keys/ec-p256.pem")).unwrap();
    let grant = Grant::ClientCredentials(ConfidentialClient::new(
        "machine",
        ClientAuthentication::PrivateKeyJwt(Arc::new(key)),
    ));
    let config = OAuthConfig::for_grant(mock.url(), grant).with_fetch(fetch_options());
    let oauth = OAuth::for_grant(config, Arc::new(MemoryStore::new())).unwrap();
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    assert!(seen.lock().unwrap().problems.is_empty());
    let tokens = mock.to("/token");
    assert_eq!(tokens.len(), 2, "once without, once with the nonce");
    let assertions: Vec<String> = tokens
        .iter()
        .map(|r| get(&form(r), "client_assertion").unwrap().to_owned())
        .collect();
    assert_ne!(assertions[0], assertions[1]);
}

/// Every request of a session carries its own proof for its method: the
/// POSTs, the GET stream and the session's DELETE.
#[tokio::test]
async fn the_get_stream_and_the_delete_carry_proofs_of_their_own() {
    let (mock, seen) = start(Dpop {
        supported: true,
        ..Dpop::default()
    })
    .await;
    let oauth = mock.oauth(mock.config());
    let config = HttpConfig::new(mock.url())
        .with_proxy(ProxySetting::None)
        .with_auth_provider(oauth.provider());
    let t = HttpTransport::connect(config, HttpMode::Streamable)
        .await
        .unwrap();
    let params = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "dpop-tests", "version": "0"}
    });
    t.request("initialize", Some(&params), RequestOptions::default())
        .await
        .unwrap();
    t.notify("notifications/initialized", None).await.unwrap();
    call(&t, "tools/list").await.unwrap();
    // The GET stream opens after initialization, on its own task.
    for _ in 0..100 {
        if seen.lock().unwrap().methods.iter().any(|m| m == "GET") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    t.close().await.unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    for method in ["POST", "GET", "DELETE"] {
        assert!(
            seen.methods.iter().any(|m| m == method),
            "{method}: {:?}",
            seen.methods
        );
    }
    assert_eq!(seen.jtis.len(), seen.methods.len(), "one jti per request");
}

/// A writer of log lines into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Neither a proof, nor the key, nor the bound token reaches a log line,
/// at any level, through a nonce retry and a refused proof; nor the
/// `Debug` of the flow and its store.
#[tokio::test]
async fn no_proof_key_or_token_in_any_log_line() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let (mock, seen) = start(Dpop {
        supported: true,
        as_nonce: Some(false),
        rs_nonce: Some(false),
        ..Dpop::default()
    })
    .await;
    let store = Arc::new(MemoryStore::new());
    let oauth = oauth_on(mock.config(), store.clone());
    let t = mock.connect(&oauth).await;
    call(&t, "tools/list").await.unwrap();
    let proofs: Vec<String> = mock
        .server
        .requests()
        .iter()
        .filter_map(|r| r.header("dpop").map(str::to_owned))
        .collect();
    assert!(proofs.len() >= 3, "{proofs:?}");
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("DPoP nonce"), "the run was logged: {logs}");
    let shown = format!("{logs}\n{oauth:?}\n{store:?}");
    for proof in &proofs {
        assert!(!shown.contains(proof.as_str()), "a proof in the logs");
        let signature = proof.rsplit('.').next().unwrap();
        assert!(
            !shown.contains(signature),
            "a proof's signature in the logs"
        );
    }
    for token in seen.lock().unwrap().bound.keys() {
        assert!(!shown.contains(token.as_str()), "{token} in the logs");
    }
    let record = store
        .get(&mcp_auth::StoreKey::dpop_key(mock.base.clone()))
        .await
        .unwrap()
        .unwrap();
    let mcp_auth::Record::DpopKey(key) = record.0 else {
        panic!("not a key record")
    };
    assert!(
        !shown.contains(key.private_key.expose()),
        "the key in the logs"
    );
    assert!(!format!("{key:?}").contains(key.private_key.expose()));
}
